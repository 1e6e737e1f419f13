"""Policies: anything that chooses moves from the env's observation dict.

Every policy maps an observation (the dict that the PettingZoo and Gymnasium envs
return: ``"observation"`` and ``"action_mask"``, plus the candidate keys when
present) to an action index in ``0..1694``. Heuristics, trained agents, a human at
the terminal and adapters for Stable-Baselines3 models all share this interface.

Example:
    >>> from big2_env import env
    >>> from big2_env.policies import make_policy
    >>> e = env(); e.reset(seed=1)
    >>> policy = make_policy("random", seed=0)
    >>> obs, *_ = e.last()
    >>> bool(obs["action_mask"][policy.act(obs)])
    True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .encoding import OBS_HAND, OBS_TRICK, PAD_CARD, action_cards

Observation = Mapping[str, Any]


@dataclass(frozen=True)
class DecodedObservation:
    """The parts of an observation that heuristics need, decoded to cards.

    Attributes:
        hand: the acting player's hand, ascending card ids.
        trick: the active trick as a sorted tuple, or ``None`` when leading.
        actions: the legal action indices, ascending.
        plays: the legal plays (sorted card tuples, ``()`` for pass), same order.
    """

    hand: tuple[int, ...]
    trick: tuple[int, ...] | None
    actions: tuple[int, ...]
    plays: tuple[tuple[int, ...], ...]


def decode_observation(obs: Observation) -> DecodedObservation:
    """Decode hand, trick and legal plays from an observation dict (with or without candidate view)."""
    vector = np.asarray(obs["observation"])
    hand = tuple(int(c) for c in vector[OBS_HAND] if c != PAD_CARD)
    trick_cards = tuple(int(c) for c in np.flatnonzero(vector[OBS_TRICK]))
    if "candidate_actions" in obs:
        actions = tuple(int(a) for a in obs["candidate_actions"])
    else:
        actions = tuple(int(a) for a in np.flatnonzero(obs["action_mask"]))
    if not actions:
        raise ValueError("the observation has no legal action: is this agent on move?")
    plays = tuple(action_cards(a, hand) for a in actions)
    return DecodedObservation(hand, trick_cards or None, actions, plays)


class Policy:
    """Base class: override :meth:`act`; :meth:`act_batch` loops over :meth:`act` by default."""

    name = "policy"

    def act(self, obs: Observation) -> int:
        raise NotImplementedError

    def act_batch(self, observations: Sequence[Observation]) -> list[int]:
        """Actions for many observations at once (e.g. many games stepped together)."""
        return [self.act(o) for o in observations]

    def seed(self, seed: int | None = None) -> None:
        """Seed the policy's random choices (a no-op for deterministic policies)."""

    def __call__(self, obs: Observation) -> int:
        return self.act(obs)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def legal_actions(obs: Observation) -> np.ndarray:
    """Legal action indices of an observation, ascending."""
    if "candidate_actions" in obs:
        return np.asarray(obs["candidate_actions"])
    return np.flatnonzero(obs["action_mask"])


class RandomPolicy(Policy):
    """Uniform over the legal actions (pass included when legal)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, obs: Observation) -> int:
        actions = legal_actions(obs)
        if len(actions) == 0:
            raise ValueError("the observation has no legal action: is this agent on move?")
        return int(actions[self.rng.integers(len(actions))])


POLICIES: dict[str, Callable[..., Policy]] = {"random": RandomPolicy}


def make_policy(name: str, seed: int | None = None) -> Policy:
    """Build a named heuristic policy: one of :data:`POLICIES` (``"random"``, ...)."""
    try:
        factory = POLICIES[name]
    except KeyError:
        raise ValueError(f"unknown policy {name!r}; allowed: {', '.join(sorted(POLICIES))}") from None
    policy = factory()
    policy.seed(seed)
    return policy
