"""One learner against three heuristic opponents in N games at once, the opponents inside the
compiled core: a Gymnasium vector env (``gymnasium.make_vec("Big2-v0", num_envs=N)``).

:class:`Big2OpponentsVectorEnv` is the vector form of :class:`~big2_env.envs.gym.Big2SingleAgentEnv`:
in each game the learner sits in one seat and Random, Greedy or Smart (the paper's
heuristics, move for move as :mod:`big2_env.players` choose: :mod:`big2_env.players.kernels.smart`)
play the other three inside the same compiled call, so ``step`` returns with the learner on
move in every game.

* Spaces: ``single_observation_space`` is the single-agent env's ``Dict`` of
  ``"observation"`` (float32, 277, or 315 with ``observation="extended"``) and ``"action_mask"`` (int8, 1695);
  ``single_action_space`` is ``Discrete(1695)``. ``observation_space`` and ``action_space``
  are their batches over the ``num_envs`` games.
* ``step(actions)`` returns ``(obs, rewards, terminations, truncations, infos)``:
  ``rewards`` float32 ``(N,)``, the learner's final score in a game that ended at this step
  (else 0), as the single-agent env rewards.
* **Autoreset: Gymnasium 1.x's same-step mode** (``metadata["autoreset_mode"]`` is
  ``AutoresetMode.SAME_STEP``): an ended game is dealt again (and its opponents play up to
  the learner's first turn) within the same ``step``. Its row of ``obs`` is the new game's;
  the ended game's last observation (the learner's view of the final table, with an all-zero
  mask) is in ``infos["final_obs"]`` (an object array, ``None`` where no game ended, with the
  boolean ``infos["_final_obs"]``), and ``infos["final_info"]`` holds ``"winner"``,
  ``"turns"``, ``"learner_seat"`` and ``"scores"`` with their ``_``-masks. ``infos`` always
  has ``"learner_seat"`` (the current games').
* The learner's seat is random per game (drawn with the deal) or fixed (``learner_seat``).
* Seeded: ``reset(seed=s)`` makes the deals, the learner's seats and the Random opponents'
  draws reproducible (``numpy.random.Generator``, drawn in game order).
* Every action is checked before compiled code sees it (an int array of shape ``(N,)``, each
  in 0..1694). An illegal one ends its game with the reward ``illegal_penalty`` (the worst
  score) and ``final_info["illegal_action"]``, as the single-agent env's default
  ``illegal_action="penalize"``; with ``illegal_action="raise"`` it raises ``ValueError``
  naming the game, and nothing changes.

For Stable-Baselines3, wrap it with :func:`big2_env.envs.sb3_vec.sb3_vec_env` (a ``VecEnv``).

Example:
    >>> import gymnasium, numpy as np
    >>> import big2_env  # registers "Big2-v0"
    >>> envs = gymnasium.make_vec("Big2-v0", num_envs=4, opponents="greedy")
    >>> obs, infos = envs.reset(seed=0)
    >>> obs["observation"].shape, obs["action_mask"].shape
    ((4, 277), (4, 1695))
    >>> actions = obs["action_mask"].argmax(axis=1)  # each game's first legal action
    >>> obs, rewards, terminations, truncations, infos = envs.step(actions)
    >>> rewards.shape, rewards.dtype.name
    ((4,), 'float32')
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..checks import is_int, is_number
from ..engine.core import check_seed, rules_array, shuffled_decks
from ..engine.game import worst_score
from ..engine.rules import Rules
from ..observations.compiled import NUM_ACTIONS
from ..observations.spaces import observation_space
from .gym import ILLEGAL_ACTION_MODES
from .batch.candidates import candidate_arrays
from .batch.layout import new_state, records
from .batch.moves import TABLES
from .batch.stepper import (
    MAX_ENVS,
    VIEWS,
    check_action_array,
    check_settings,
    reset_against,
    step_against,
    thread_chunks,
)
from .batch.views import VIEW_IDS, VIEW_SIZES, new_memory

__all__ = ["OPPONENT_KINDS", "Big2OpponentsVectorEnv", "make_vector"]

OPPONENT_KINDS = ("random", "greedy", "smart")
"""The opponents that run inside the core (an opponent spec of another kind needs the
Python env: ``gymnasium.make_vec("Big2-v0", ..., vectorization_mode="sync")``)."""
DRAWS = 8
"""Uniform draws per game per step for Random opponents (at most 3 moves before the learner's
turn, and 3 more in a game dealt anew in the same step, from the row's second half)."""


def _kinds(opponents: Any) -> np.ndarray:
    names = [opponents] * 3 if isinstance(opponents, str) else opponents
    if isinstance(names, Sequence) and not isinstance(names, str) and len(names) == 3 and all(
        isinstance(n, str) and n in OPPONENT_KINDS for n in names
    ):
        return np.array([OPPONENT_KINDS.index(n) for n in names], dtype=np.int64)
    raise ValueError(
        f"opponents must be one of {', '.join(OPPONENT_KINDS)} or a list of three of them (next, across, previous); "
        f"got {opponents!r}. Other opponents need the Python env: gymnasium.make_vec('Big2-v0', ..., "
        "vectorization_mode='sync')"
    )


class Big2OpponentsVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of one learner against three core opponents (see the module docstring).

    Args:
        num_envs: how many games (1 to 1,048,576).
        opponents: ``"random"`` (default), ``"greedy"``, ``"smart"``, or a list of three of them
            for the seats 1, 2, 3 places clockwise from the learner.
        learner_seat: ``None`` (default: random per game) or a seat 0..3.
        rules: a :class:`~big2_env.engine.rules.Rules`, preset name, dict or ``None``.
        observation: ``"paper"`` (the 277 numbers, default) or ``"extended"`` (the 315 of
            :mod:`big2_env.observations.extended`).
        seed: the deals' and draws' source (``None``, an int or a Generator); ``reset(seed=...)`` reseeds.
        illegal_action: ``"penalize"`` (default, as the single-agent env: an illegal action ends
            that game with reward ``illegal_penalty`` and ``final_info["illegal_action"]``) or
            ``"raise"`` (``ValueError`` naming the game; nothing changes).
        illegal_penalty: the reward of an illegal action (default: the worst score under ``rules``).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}
    MAX_ENVS = MAX_ENVS

    def __init__(self, num_envs: int = 1, opponents: Any = "random", learner_seat: int | None = None,
                 rules: Rules | str | dict | None = None, observation: str = "paper", seed: Any = None,
                 illegal_action: str = "penalize", illegal_penalty: float | None = None) -> None:
        self.num_envs = check_settings(num_envs, observation)
        self.observation = observation
        if learner_seat is not None and not is_int(learner_seat, 0, 3):
            raise ValueError(f"learner_seat must be None or a seat 0..3; got {learner_seat!r}")
        self.opponents = opponents
        self._kinds = _kinds(opponents)
        self.learner_seat = None if learner_seat is None else int(learner_seat)
        self.rules = Rules.coerce(rules)
        self._rules = rules_array(self.rules)
        self._rng = check_seed(seed)
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}; got {illegal_action!r}")
        if illegal_penalty is not None and not is_number(illegal_penalty):
            raise ValueError(f"illegal_penalty must be a finite number or None; got {illegal_penalty!r}")
        self.illegal_action = illegal_action
        self.illegal_penalty = worst_score(self.rules) if illegal_penalty is None else float(illegal_penalty)
        self.single_observation_space = observation_space(False, observation)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        n = self.num_envs
        self._view = VIEW_IDS[observation]
        self._state = new_state(n)
        self._memory = new_memory(observation, n)
        self._learners = np.full(n, -1, dtype=np.int64)
        self._next_decks = np.zeros((n, 52), dtype=np.int64)
        self._next_seats = np.zeros(n, dtype=np.int64)
        self._width = VIEW_SIZES[observation]
        self._observations = np.zeros((n, self._width), dtype=np.float32)
        self._masks = np.zeros((n, NUM_ACTIONS), dtype=np.bool_)
        self._players = np.zeros(n, dtype=np.int64)
        self._ready = False

    # ------------------------------------------------------------------ draws
    def _seats(self, n: int) -> np.ndarray:
        if self.learner_seat is not None:
            return np.full(n, self.learner_seat, dtype=np.int64)
        return self._rng.integers(0, 4, n).astype(np.int64)

    def _draw_next(self, games: np.ndarray | None = None) -> None:
        """The next deal and learner seat of ``games`` (all when ``None``), drawn ahead in game order."""
        n = self.num_envs if games is None else len(games)
        decks, seats = shuffled_decks(n, self._rng), self._seats(n)
        if games is None:
            self._next_decks[:], self._next_seats[:] = decks, seats
        else:
            self._next_decks[games], self._next_seats[games] = decks, seats

    def _chunks(self) -> int:
        return thread_chunks(self.num_envs)

    def _obs(self) -> dict[str, np.ndarray]:
        return {"observation": self._observations.copy(), "action_mask": self._masks.view(np.int8).copy()}

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal every game anew (``seed`` reseeds first); the opponents play up to the learner's first turn."""
        if options:
            raise ValueError(f"this env takes no reset options; got {sorted(options)}")
        if seed is not None:
            self._rng = check_seed(seed)
        n = self.num_envs
        decks, seats = shuffled_decks(n, self._rng), self._seats(n)
        draws = self._rng.random((n, DRAWS))
        self._draw_next()
        reset_against(self._view, self._state, self._memory, self._learners, decks, seats, self._rules, self._kinds, draws,
                      TABLES, self._observations, self._masks, self._players, self._chunks())
        self._ready = True
        return self._obs(), {"learner_seat": self._learners.copy()}

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The learner's action in every game, then its opponents' moves (see the module docstring)."""
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        acts, illegal = self._check_actions(actions)
        n = self.num_envs
        draws = self._rng.random((n, DRAWS))
        rewards = np.zeros(n, dtype=np.float32)
        terminated = np.zeros(n, dtype=np.bool_)
        scores = np.zeros((n, 4), dtype=np.float32)
        winners = np.full(n, -1, dtype=np.int64)
        turns = np.zeros(n, dtype=np.int64)
        ended_seats = np.full(n, -1, dtype=np.int64)
        final_observations = np.zeros((n, self._width), dtype=np.float32)
        errors = np.zeros(n, dtype=np.int64)
        step_against(self._view, self._state, self._memory, self._learners, acts, self._next_decks, self._next_seats,
                     self._rules, self._kinds, draws, TABLES, self._observations, self._masks, self._players, rewards,
                     terminated, scores, winners, turns, ended_seats, final_observations, illegal, self.illegal_penalty,
                     errors, self._chunks())
        if errors.any():  # cannot happen after _check_actions; a guard, not a path
            raise AssertionError(f"the core refused the actions of games {np.flatnonzero(errors).tolist()}")
        infos: dict[str, Any] = {"learner_seat": self._learners.copy()}
        ended = np.flatnonzero(terminated)
        if len(ended):
            self._draw_next(ended)
            final_obs = np.full(n, None, dtype=object)
            empty_mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
            for g in ended:
                final_obs[g] = {"observation": final_observations[g], "action_mask": empty_mask}
            final_info = {"winner": winners, "turns": turns, "learner_seat": ended_seats, "scores": scores,
                          "illegal_action": illegal.copy()}
            final_info.update({f"_{k}": terminated.copy() for k in list(final_info)})
            infos.update(final_obs=final_obs, _final_obs=terminated.copy(), final_info=final_info,
                         _final_info=terminated.copy())
        return self._obs(), rewards, terminated, np.zeros(n, dtype=np.bool_), infos

    def candidates(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The learner's legal actions in every game as the card-aware networks read them:
        ``(features (M, 80), actions (M,), counts (N,))`` (see :meth:`big2_env.envs.vector.Big2VectorEnv.candidates`)."""
        if not self._ready:
            raise RuntimeError("call reset() before candidates()")
        return candidate_arrays(self._state, self._rules, self._chunks())

    def hands(self) -> np.ndarray:
        """Every game's four hands as card bitmasks, int64 ``(N, 4)`` in seat order (a copy: for
        checking and debugging; a learner must not see them)."""
        return records(self._state)["hands"].copy()

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game's learner, int8 ``(N, 1695)``, 1 where legal (sb3-contrib's name)."""
        return self._masks.view(np.int8).copy()

    def _check_actions(self, actions: Any) -> tuple[np.ndarray, np.ndarray]:
        """The actions as int64 and which of them are illegal (``ValueError`` for a malformed array,
        or for an illegal action under ``illegal_action="raise"``)."""
        acts, illegal = check_action_array(actions, self._masks)
        if illegal.any() and self.illegal_action == "raise":
            g = int(np.flatnonzero(illegal)[0])
            raise ValueError(
                f"actions[{g}] = {acts[g]} is not legal in game {g} (the learner, seat {self._players[g]}, is on move); "
                f"legal: {np.flatnonzero(self._masks[g]).tolist()[:20]}"
            )
        return acts, illegal

    def __repr__(self) -> str:
        return f"Big2OpponentsVectorEnv(num_envs={self.num_envs}, opponents={self.opponents!r}, rules={self.rules!r})"


def make_vector(num_envs: int = 1, **kwargs: Any) -> Big2OpponentsVectorEnv:
    """The ``vector_entry_point`` of ``"Big2-v0"``: ``gymnasium.make_vec("Big2-v0", num_envs=N, **kwargs)``.

    Takes :class:`Big2OpponentsVectorEnv`'s arguments. Its observation has no ``"history"`` (the
    single-agent env's ``history=False``): it is for learners; the agents that read the history
    play in the single-agent env. Arguments of the single-agent env that the compiled env does not
    have (``candidate_view=True``, ``render_mode``, other opponents ...) raise ``ValueError`` naming
    the Python alternative, ``vectorization_mode="sync"``.
    """
    allowed = {"opponents", "learner_seat", "rules", "observation", "seed", "illegal_action", "illegal_penalty"}
    neutral = {"candidate_view": False, "render_mode": None, "mask_in_observation": True, "keys": "pettingzoo",
               "history": False}
    extra = {}
    for key, value in kwargs.items():
        if key in allowed:
            extra[key] = value
        elif key in neutral and value == neutral[key]:
            continue
        elif key == "max_episode_steps" and value is None:
            continue
        else:
            raise ValueError(
                f"the compiled Big2-v0 vector env does not take {key}={value!r} (it takes {', '.join(sorted(allowed))}); "
                "for the Python env's options use gymnasium.make_vec('Big2-v0', ..., vectorization_mode='sync')"
            )
    return Big2OpponentsVectorEnv(num_envs, **extra)


def warm_up() -> float:
    """Compile (or load from the disk cache) this env's kernels; returns the seconds it took
    (see :func:`big2_env.engine.core.warm_up`)."""
    import time

    started = time.perf_counter()
    for view in VIEWS:
        env = Big2OpponentsVectorEnv(2, opponents=["random", "greedy", "smart"], observation=view, seed=0)
        obs, _ = env.reset()
        env.step(obs["action_mask"].argmax(axis=1))
    return time.perf_counter() - started
