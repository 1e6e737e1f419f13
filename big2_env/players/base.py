"""The policy interface: anything that chooses moves from the env's observation dict.

Every policy maps an observation (the dict that the PettingZoo and Gymnasium envs
return: ``"observation"`` and ``"action_mask"``, plus the candidate keys when
present) to an action index in ``0..1694``. Heuristics, trained agents, a human at
the terminal and adapters for Stable-Baselines3 models all share this interface.
:func:`policy_actions` is how the package's game loops (evaluation, the envs'
opponents, ``big2 play``, the search's rollouts) ask a policy for moves.

Example:
    >>> from big2_env import env
    >>> from big2_env.players import make_policy
    >>> e = env(); e.reset(seed=1)
    >>> policy = make_policy("random", seed=0)
    >>> obs, *_ = e.last()
    >>> bool(obs["action_mask"][policy.act(obs)])
    True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from ..observations.decision import PolicyObservation
from ..observations.paper import ACTION_SLOTS, NUM_ACTIONS, OBS_HAND, OBS_TRICK, PAD_CARD, action_cards

__all__ = ["DecodedObservation", "Observation", "Policy", "decode_observation", "legal_actions", "policy_actions", "policy_view"]

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
    hand = tuple(sorted(int(c) for c in vector[OBS_HAND].tolist() if c != PAD_CARD))
    trick_cards = tuple(np.flatnonzero(vector[OBS_TRICK]).tolist())
    actions = tuple(int(a) for a in legal_actions(obs).tolist())
    if not actions:
        raise ValueError("the observation has no legal action: is this agent on move?")
    size = len(hand)
    plays = []
    for a in actions:
        if not 0 <= a < NUM_ACTIONS or (ACTION_SLOTS[a] and ACTION_SLOTS[a][-1] >= size):
            action_cards(a, hand)  # raises the ValueError that names the problem
        slots = ACTION_SLOTS[a]
        plays.append(tuple([hand[s] for s in slots]))
    return DecodedObservation(hand, trick_cards or None, actions, tuple(plays))


class Policy:
    """Base class: override :meth:`act`; :meth:`act_batch` loops over :meth:`act` by default.

    ``observation_kind`` says which ``"observation"`` numbers the package's game loops
    (evaluation, opponents in the envs, ``big2 play``) give the policy: ``"paper"`` (the 277)
    or ``"extended"`` (the 315 of :mod:`big2_env.observations.extended`).
    """

    name = "policy"
    observation_kind = "paper"

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


def policy_view(policy: Any, observations: list[PolicyObservation]) -> list[PolicyObservation]:
    """The observations as ``policy`` reads them: the extended view when its ``observation_kind``
    is ``"extended"``, else unchanged."""
    if getattr(policy, "observation_kind", "paper") == "extended":
        return [PolicyObservation(o.decision, extended=True) for o in observations]
    return observations


def policy_actions(policy: Any, observations: list[PolicyObservation]) -> list[int]:
    """``policy``'s actions for ``observations`` (in its view, :func:`policy_view`), through
    ``act_batch`` when it has one; ``ValueError`` when that returns the wrong number."""
    observations = policy_view(policy, observations)
    batch = getattr(policy, "act_batch", None)
    actions = batch(observations) if batch is not None else [policy.act(o) for o in observations]
    if len(actions) != len(observations):
        raise ValueError(f"{policy!r}.act_batch returned {len(actions)} actions for {len(observations)} observations")
    return actions
