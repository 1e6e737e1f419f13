"""N games stepped together in compiled code: turn-based self-play with the paper's view.

:func:`vector_env` makes a :class:`Big2VectorEnv`. In each of its ``num_envs`` games, whoever
is on move acts: ``step(actions)`` takes one action index per game (for the seat on move
there), plays them all in one compiled call, parallel over games on all cores, and returns the
next movers' observations.

* ``reset(seed=None)`` returns ``(obs, infos)``; ``obs`` is a dict of numpy arrays:
  ``"observation"`` float32 ``(N, 277)`` (the paper's numbers, :mod:`big2_env.observations.paper`;
  ``(N, 315)`` with ``observation="extended"``, :mod:`big2_env.observations.extended`; ``(N, 412)``
  with ``observation="charlesworth"``: the numbers Charlesworth's network reads,
  :func:`big2_env.players.charlesworth.network_input`),
  ``"action_mask"`` int8 ``(N, 1695)`` (1 where legal) and ``"current_player"`` int64 ``(N,)``.
* ``step(actions)`` takes an int array ``(N,)`` and returns ``(obs, rewards, terminations,
  truncations, infos)``: ``rewards`` float32 ``(N, 4)`` in seat order (the final scores of a
  game that ended at this step, else zeros), ``terminations`` bool ``(N,)``, ``truncations``
  all false.
* **Autoreset: Gymnasium 1.x's same-step mode** (``gymnasium.vector.AutoresetMode.SAME_STEP``):
  a game that ends is dealt again within the same ``step``; its row of ``obs`` is the new
  game's first decision, its ``rewards`` row the ended game's scores, and ``terminations``
  marks it. ``infos`` holds ``"winner"`` (the ended game's winning seat, -1 elsewhere) and
  ``"turns"`` (its decisions).
* **Spaces**, declared as a Gymnasium vector env declares them: ``single_observation_space`` (the
  ``Dict`` of one game's ``"observation"``, ``"action_mask"`` and ``"current_player"``),
  ``single_action_space`` (``Discrete(1695)``), their batched ``observation_space`` and
  ``action_space`` (``MultiDiscrete``), ``reward_space`` (``(N, 4)`` float32) and ``metadata``
  (``"autoreset_mode"``, ``"num_players"``).
* **Why it is not a Gymnasium** ``VectorEnv``: it is a *self-play* vector env in Pgx's form (one
  state per game, whoever is on move acts, rewards for all four seats at once, auto-reset),
  not N copies of a single-agent env. A Gymnasium ``VectorEnv`` has one agent per game and a
  reward per game; that env, one learner per game against compiled opponents, is
  ``gymnasium.make_vec("Big2-v0", num_envs=N)`` (:mod:`big2_env.envs.vector_opponents`).
* Seeded: ``vector_env(N, seed=s)`` and ``reset(seed=s)`` give the same deals and, for the
  same actions, the same games; the deals come from a ``numpy.random.Generator``, one deck
  per game, drawn in game order (the next deck of every game is drawn ahead).

Every action is checked before compiled code sees it (an int array of shape ``(N,)``, each a
legal action of its game, per the last ``action_mask``): a bad one raises ``ValueError``
naming the game, and the state is unchanged.

``candidates()`` gives every mover's legal actions as the card-aware networks read them (the 80
candidate features and action indices, in :class:`~big2_env.observations.decision.Decision`'s
order); ``big2 train --env vector`` trains on it (:mod:`agents.collect.vector`). ``hands()`` gives
every game's four hands (the full state, for a critic; never for a policy). All three views are
compiled: the paper's, the extended one (``observation="extended"``) and Charlesworth's
(``observation="charlesworth"``, whose memory is kept move by move, as his game does). The games
run on the batch stepper (:mod:`big2_env.envs.batch`): the rules state, one int64 row per game, and
the view's own memory beside it. The single-agent form, one learner against core heuristics, is
:mod:`big2_env.envs.vector_opponents` (``gymnasium.make_vec("Big2-v0")``).

Example:
    >>> import numpy as np
    >>> from big2_env import vector_env
    >>> venv = vector_env(8, seed=0)
    >>> obs, infos = venv.reset()
    >>> obs["observation"].shape, obs["action_mask"].shape, obs["current_player"].shape
    ((8, 277), (8, 1695), (8,))
    >>> rng = np.random.default_rng(0)
    >>> finished = 0
    >>> while finished < 8:
    ...     actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
    ...     obs, rewards, terminations, truncations, infos = venv.step(actions)
    ...     finished += int(terminations.sum())
    >>> float(rewards[terminations].sum())
    0.0
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..engine.core import check_seed, rules_array, shuffled_decks
from ..engine.rules import Rules
from ..observations.compiled import NUM_ACTIONS
from .batch.candidates import candidate_arrays
from .batch.layout import new_state, records
from .batch.moves import TABLES
from .batch.stepper import (
    MAX_ENVS,
    SELF_PLAY_VIEWS,
    check_action_array,
    check_settings,
    reset_games,
    step_games,
    thread_chunks,
)
from .batch.views import VIEW_IDS, VIEW_SIZES, new_memory

__all__ = ["Big2VectorEnv", "vector_env"]


class Big2VectorEnv:
    """``num_envs`` games of Big 2 stepped together (see the module docstring).

    Args:
        num_envs: how many games (1 to 1,048,576).
        seed: ``None``, a non-negative int or a ``numpy.random.Generator``: the deals' source.
        rules: a :class:`~big2_env.engine.rules.Rules`, preset name, dict or ``None``.
        observation: ``"paper"`` (the 277 numbers, default), ``"extended"`` (the 315 of
            :mod:`big2_env.observations.extended`: also who holds control, who passed in this round
            and on what) or ``"charlesworth"`` (the 412 numbers Charlesworth's network reads,
            :func:`big2_env.players.charlesworth.network_input`, quirks included).
    """

    MAX_ENVS = MAX_ENVS
    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": [], "name": "big2_v0_vector", "num_players": 4}

    def __init__(self, num_envs: int, seed: Any = None, rules: Rules | str | dict | None = None,
                 observation: str = "paper") -> None:
        self.num_envs = check_settings(num_envs, observation, SELF_PLAY_VIEWS)
        self.observation = observation
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0 if observation == "charlesworth" else 52.0, (VIEW_SIZES[observation],),
                                      dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
            "current_player": spaces.Discrete(4),
        })
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.reward_space = spaces.Box(-np.inf, np.inf, (self.num_envs, 4), dtype=np.float32)
        self.rules = Rules.coerce(rules)
        self._rules = rules_array(self.rules)
        self._rng = check_seed(seed)
        n = self.num_envs
        self._view = VIEW_IDS[observation]
        self._state = new_state(n)
        self._memory = new_memory(observation, n)
        self._next_decks = np.zeros((n, 52), dtype=np.int64)
        self._masks = np.zeros((n, NUM_ACTIONS), dtype=np.bool_)  # the last masks returned, for checking actions
        self._players = np.zeros(n, dtype=np.int64)
        self._ready = False

    def _chunks(self) -> int:
        return thread_chunks(self.num_envs)

    def _outputs(self) -> dict[str, np.ndarray]:
        """Fresh arrays for the observations the kernels write (in parallel, each game's row by its thread)."""
        n = self.num_envs
        return {
            "observation": np.empty((n, VIEW_SIZES[self.observation]), dtype=np.float32),
            "action_mask": np.empty((n, NUM_ACTIONS), dtype=np.int8),
            "current_player": np.empty(n, dtype=np.int64),
        }

    def reset(self, seed: Any = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal every game anew (``seed`` reseeds the deals' generator first)."""
        if seed is not None:
            self._rng = check_seed(seed)
        decks = shuffled_decks(self.num_envs, self._rng)
        self._next_decks[:] = shuffled_decks(self.num_envs, self._rng)
        obs = self._outputs()
        reset_games(self._view, self._state, self._memory, decks, self._rules, TABLES, obs["observation"], self._masks,
                    obs["action_mask"], obs["current_player"], self._chunks())
        self._players[:] = obs["current_player"]
        self._ready = True
        return obs, {}

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play one action per game (for its seat on move); see the module docstring for what comes back."""
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        acts = self._check_actions(actions)
        n = self.num_envs
        rewards = np.zeros((n, 4), dtype=np.float32)
        terminated = np.zeros(n, dtype=np.bool_)
        winners = np.full(n, -1, dtype=np.int64)
        turns = np.zeros(n, dtype=np.int64)
        errors = np.zeros(n, dtype=np.int64)
        obs = self._outputs()
        step_games(self._view, self._state, self._memory, acts, self._next_decks, self._rules, TABLES, obs["observation"],
                   self._masks, obs["action_mask"], obs["current_player"], rewards, terminated, winners, turns, errors,
                   self._chunks())
        self._players[:] = obs["current_player"]
        if errors.any():  # cannot happen after _check_actions; a guard, not a path
            raise AssertionError(f"the core refused the actions of games {np.flatnonzero(errors).tolist()}")
        ended = np.flatnonzero(terminated)
        if len(ended):  # the ended games were dealt their next decks: draw the ones after those
            self._next_decks[ended] = shuffled_decks(len(ended), self._rng)
        truncations = np.zeros(n, dtype=np.bool_)
        return obs, rewards, terminated, truncations, {"winner": winners, "turns": turns}

    def candidates(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The legal plays of every game's mover as the card-aware networks read them:
        ``(features, actions, counts)``, the 80 candidate features (float32 ``(M, 80)``) and action
        indices (``(M,)``) of every game's legal actions in ascending action order (pass last),
        game after game, ``counts[g]`` of them for game ``g``: what
        :class:`~big2_env.observations.decision.Decision` gives (``features``, ``actions``) for
        each game's decision, computed in the core."""
        if not self._ready:
            raise RuntimeError("call reset() before candidates()")
        return candidate_arrays(self._state, self._rules, self._chunks())

    def hands(self) -> np.ndarray:
        """The four hands of every game: a copy, int64 ``(N, 4)`` of card bitmasks in seat order (bit
        ``c`` set: card id ``c`` held, 0 = 3D .. 51 = 2S). The full state, for training a critic that
        sees every hand; never give it to a policy."""
        if not self._ready:
            raise RuntimeError("call reset() before hands()")
        return records(self._state)["hands"].copy()

    def _check_actions(self, actions: Any) -> np.ndarray:
        acts, illegal_games = check_action_array(actions, self._masks)
        illegal = np.flatnonzero(illegal_games)
        if len(illegal):
            g = int(illegal[0])
            raise ValueError(
                f"actions[{g}] = {acts[g]} is not legal in game {g} (seat {self._players[g]} on move); "
                f"legal: {np.flatnonzero(self._masks[g]).tolist()[:20]}"
            )
        return acts

    def __repr__(self) -> str:
        return f"Big2VectorEnv(num_envs={self.num_envs}, rules={self.rules!r})"


def vector_env(num_envs: int, seed: Any = None, rules: Rules | str | dict | None = None,
               observation: str = "paper") -> Big2VectorEnv:
    """``num_envs`` games of Big 2 stepped together in compiled code (:class:`Big2VectorEnv`)."""
    return Big2VectorEnv(num_envs, seed=seed, rules=rules, observation=observation)


def warm_up() -> float:
    """Compile (or load from the disk cache) the vector env's kernels; returns the seconds it took
    (see :func:`big2_env.engine.core.warm_up`)."""
    import time

    started = time.perf_counter()
    for view in SELF_PLAY_VIEWS:
        env = Big2VectorEnv(2, seed=0, observation=view)
        obs, _ = env.reset()
        env.step(obs["action_mask"].argmax(axis=1))
    env.candidates()
    return time.perf_counter() - started
