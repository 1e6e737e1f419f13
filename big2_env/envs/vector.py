"""N games stepped together in compiled code: turn-based self-play with the paper's view.

:func:`vector_env` makes a :class:`Big2VectorEnv`. In each of its ``num_envs`` games, whoever
is on move acts: ``step(actions)`` takes one action index per game (for the seat on move
there), plays them all in one compiled call, parallel over games on all cores, and returns the
next movers' observations.

* ``reset(seed=None)`` returns ``(obs, infos)``; ``obs`` is a dict of numpy arrays:
  ``"observation"`` float32 ``(N, 277)`` (the paper's numbers, :mod:`big2_env.observations.paper`;
  ``(N, 315)`` with ``observation="extended"``, :mod:`big2_env.observations.extended`),
  ``"action_mask"`` bool ``(N, 1695)`` and ``"current_player"`` int64 ``(N,)``.
* ``step(actions)`` takes an int array ``(N,)`` and returns ``(obs, rewards, terminations,
  truncations, infos)``: ``rewards`` float32 ``(N, 4)`` in seat order (the final scores of a
  game that ended at this step, else zeros), ``terminations`` bool ``(N,)``, ``truncations``
  all false.
* **Autoreset: Gymnasium 1.x's same-step mode** (``gymnasium.vector.AutoresetMode.SAME_STEP``):
  a game that ends is dealt again within the same ``step``; its row of ``obs`` is the new
  game's first decision, its ``rewards`` row the ended game's scores, and ``terminations``
  marks it. ``infos`` holds ``"winner"`` (the ended game's winning seat, -1 elsewhere) and
  ``"turns"`` (its decisions).
* Seeded: ``vector_env(N, seed=s)`` and ``reset(seed=s)`` give the same deals and, for the
  same actions, the same games; the deals come from a ``numpy.random.Generator``, one deck
  per game, drawn in game order (the next deck of every game is drawn ahead).

Every action is checked before compiled code sees it (an int array of shape ``(N,)``, each a
legal action of its game, per the last ``action_mask``): a bad one raises ``ValueError``
naming the game, and the state is unchanged.

``candidates()`` gives every mover's legal actions as the card-aware networks read them (the 80
candidate features and action indices, in :class:`~big2_env.observations.decision.Decision`'s
order); ``big2 train --env vector`` trains on it (:mod:`agents.vector_rollout`). Both views are
compiled: the paper's and the extended one (``observation="extended"``). The single-agent form, one learner against
core heuristics, is :mod:`big2_env.envs.vector_opponents` (``gymnasium.make_vec("Big2-v0")``).

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

import numba
import numpy as np
from numba import njit, prange

from ..engine.core import check_seed, rules_array, shuffled_decks
from ..engine.core.games import (
    T_MASK,
    T_OPENING,
    T_PASSES,
    T_PLAYER,
    T_SIZE,
    T_STRENGTH,
    T_WINNER,
    apply_move,
    final_scores,
    new_table,
)
from ..engine.core.kernels import (
    CAPACITY,
    R_OPENING,
    R_SCORING,
    WORK_SIZE,
    combos_into,
    leading_zeros,
    legal_from,
    popcount,
)
from ..engine.rules import Rules
from ..observations.compiled import (
    FEATURE_CATEGORIES,
    NUM_ACTIONS,
    OBS_SIZE,
    PASS_ACTION,
    SLOT_INDEX,
    action_index,
    write_features,
    write_observation,
)
from ..observations.paper import ACTION_SLOTS, FEATURE_SIZE

__all__ = ["Big2VectorEnv", "vector_env"]

SLOTS = np.full((NUM_ACTIONS, 5), -1, dtype=np.int64)
for _i, _s in enumerate(ACTION_SLOTS):
    SLOTS[_i, : len(_s)] = _s
TABLES = (SLOTS, SLOT_INDEX)
"""The tables the parallel kernels read, passed as arguments (numba cannot cache code that reads large global arrays)."""

# state columns (int64 array (N, STATE_SIZE)): the hands, the cards each seat played, then the
# core's table (big2_env.engine.core.games.TABLE_FIELDS), so that one apply_move plays for every kernel
H0 = 0  # hands of seats 0..3: columns 0..3
P0 = 4  # cards played by seats 0..3: columns 4..7
T0 = 8  # the table: columns 8..15
TURNS = T0 + 8  # decisions so far in this game
LEARNER = TURNS + 1  # the learner's seat (the single-agent vector env's; -1 in self-play)
TRICK_PLAYER = LEARNER + 1  # who made the active trick (-1 when a player leads): the extended view's control
PASSED = TRICK_PLAYER + 1  # bitmask of the seats that passed in this round
DECLINED = PASSED + 1  # per seat x trick size 1..5: the weakest strength it passed on (-1: none)
STATE_SIZE = DECLINED + 20
VIEWS = ("paper", "extended")
EXTENDED_SIZE = OBS_SIZE + 38
_STRENGTH_MAX = (51.0, 51.0, 51.0, 112.0, 4519.0)  # big2_env.observations.extended.STRENGTH_MAX


@njit(cache=True)
def _workspace():  # pragma: no cover - compiled
    """One thread's scratch arrays: a hand's combinations (masks, sizes, strengths, categories), legal
    indices, and the enumeration's own scratch (:func:`~big2_env.engine.core.kernels.combos_into`)."""
    return (np.empty(CAPACITY, dtype=np.int64), np.empty(CAPACITY, dtype=np.int64), np.empty(CAPACITY, dtype=np.int64),
            np.empty(CAPACITY, dtype=np.int64), np.empty(CAPACITY, dtype=np.int64), np.empty(WORK_SIZE, dtype=np.int64))


@njit(cache=True)
def _deal(state, g, deck):  # pragma: no cover - compiled
    for k in range(STATE_SIZE):
        state[g, k] = 0
    first = 0
    for i in range(52):
        state[g, H0 + i // 13] |= 1 << deck[i]
    for p in range(4):
        if state[g, H0 + p] & 1:
            first = p
    new_table(state, g, T0, first, 1)
    state[g, LEARNER] = -1
    state[g, TRICK_PLAYER] = -1
    for k in range(20):
        state[g, DECLINED + k] = -1


@njit(cache=True)
def _legal(state, g, rules, ws_masks, ws_sizes, ws_strengths, ws_categories, legal, work):  # pragma: no cover - compiled
    """The mover's legal plays (indices into its combinations of the trick's size, in ``ws_*``); returns their count."""
    player = state[g, T0 + T_PLAYER]
    hand = state[g, H0 + player]
    trick_size = state[g, T0 + T_SIZE]
    n = combos_into(hand, rules, ws_masks, ws_sizes, ws_strengths, ws_categories, trick_size, work)
    return legal_from(ws_masks, ws_sizes, ws_strengths, n, hand, trick_size, state[g, T0 + T_STRENGTH],
                      state[g, T0 + T_OPENING] == 1, rules[R_OPENING], legal)


@njit(cache=True)
def _view(state, g, rules, tables, observations, masks, players, ws_masks, ws_sizes, ws_strengths, ws_categories,
          legal, work):  # pragma: no cover - compiled
    """Write game ``g``'s mover's observation, action mask and seat."""
    player = state[g, T0 + T_PLAYER]
    hand = state[g, H0 + player]
    k = _legal(state, g, rules, ws_masks, ws_sizes, ws_strengths, ws_categories, legal, work)
    masks[g, :] = False
    for j in range(k):
        masks[g, action_index(ws_masks[legal[j]], hand, tables[1])] = True
    if state[g, T0 + T_SIZE]:
        masks[g, PASS_ACTION] = True
    write_view(state, g, player, observations[g])
    players[g] = player


@njit(cache=True)
def write_view(state, g, player, out):  # pragma: no cover - compiled
    """``player``'s view of game ``g`` into ``out``: the paper's 277 numbers, and the extended view's 38
    more when ``out`` has room for them (:mod:`big2_env.observations.extended`)."""
    write_observation(state[g, H0 : H0 + 4], state[g, P0 : P0 + 4], state[g, T0 + T_MASK], state[g, T0 + T_PASSES], player,
                      out)
    if out.shape[0] < EXTENDED_SIZE:
        return
    out[OBS_SIZE] = popcount(state[g, H0 + player]) / 13.0
    trick_player = state[g, TRICK_PLAYER]
    out[OBS_SIZE + 1 + (0 if trick_player < 0 else (trick_player - player) % 4)] = 1.0
    for k in range(3):
        seat = (player + 1 + k) % 4
        out[OBS_SIZE + 5 + k] = (state[g, PASSED] >> seat) & 1
        for size in range(5):
            weakest = state[g, DECLINED + 5 * seat + size]
            if weakest >= 0:
                out[OBS_SIZE + 8 + 5 * k + size] = 1.0
                out[OBS_SIZE + 23 + 5 * k + size] = weakest / _STRENGTH_MAX[size]


@njit(cache=True)
def _play(state, g, play, size, strength, category):  # pragma: no cover - compiled
    """The mover plays ``play`` (0: passes); returns whether that ended the game. Also keeps the
    extended view's public record: who made the trick, who passed in this round and on what."""
    player = state[g, T0 + T_PLAYER]
    if play == 0:
        column = DECLINED + 5 * player + state[g, T0 + T_SIZE] - 1
        if state[g, column] < 0 or state[g, T0 + T_STRENGTH] < state[g, column]:
            state[g, column] = state[g, T0 + T_STRENGTH]
        state[g, PASSED] |= 1 << player
    else:
        state[g, TRICK_PLAYER] = player
    state[g, P0 + player] |= play
    apply_move(state, g, H0, T0, play, size, strength, category)
    if play == 0 and state[g, T0 + T_PASSES] == 3:  # everyone else passed: a new round
        state[g, TRICK_PLAYER] = -1
        state[g, PASSED] = 0
    state[g, TURNS] += 1
    return state[g, T0 + T_WINNER] >= 0


@njit(cache=True)
def _play_action(state, g, action, rules, tables, ws_masks, ws_sizes, ws_strengths, ws_categories, work):  # pragma: no cover
    """The mover plays action index ``action``; returns 1 when that ended the game, 0 when not, -1
    when the action is not a legal play (the state is then unchanged)."""
    player = state[g, T0 + T_PLAYER]
    hand = state[g, H0 + player]
    if action == PASS_ACTION:
        if state[g, T0 + T_SIZE] == 0:
            return -1
        return 1 if _play(state, g, 0, 0, 0, 0) else 0
    # the cards at the action's hand slots
    play = 0
    slot = 0
    for c in range(52):
        if (hand >> c) & 1:
            for j in range(5):
                if tables[0][action, j] == slot:
                    play |= 1 << c
            slot += 1
    # the play's size, strength and category: the one combination of all its cards (the mask said it is legal)
    size = popcount(play)
    if play == 0 or play & hand != play:
        return -1
    if size <= 3:  # one rank: its top card is the strength
        top = 63 - leading_zeros(play)
        if (top >> 2) != (popcount((play & -play) - 1) >> 2):
            return -1
        return 1 if _play(state, g, play, size, top, size - 1) else 0  # SINGLE, PAIR, TRIPLE are 0, 1, 2
    count = combos_into(play, rules, ws_masks, ws_sizes, ws_strengths, ws_categories, size, work)
    if count != 1:
        return -1
    return 1 if _play(state, g, play, size, ws_strengths[0], ws_categories[0]) else 0


@njit(cache=True)
def _scores(state, g, rules, out):  # pragma: no cover - compiled
    """The ended game's final scores, in seat order, into ``out`` (4,)."""
    final_scores(state, g, H0, state[g, T0 + T_WINNER], rules[R_SCORING], out)


@njit(cache=True, parallel=True)
def _reset(state, decks, rules, tables, observations, masks, players, chunks):  # pragma: no cover - compiled
    n = state.shape[0]
    for chunk in prange(chunks):
        ws_masks, ws_sizes, ws_strengths, ws_categories, legal, work = _workspace()
        for g in range(chunk, n, chunks):
            _deal(state, g, decks[g])
            _view(state, g, rules, tables, observations, masks, players, ws_masks, ws_sizes, ws_strengths, ws_categories, legal,
                  work)


@njit(cache=True, parallel=True)
def _step(state, actions, next_decks, rules, tables, observations, masks, players, rewards, terminated, winners, turns,
          errors, chunks):  # pragma: no cover - compiled
    n = state.shape[0]
    for chunk in prange(chunks):
        ws_masks, ws_sizes, ws_strengths, ws_categories, legal, work = _workspace()
        for g in range(chunk, n, chunks):
            rewards[g, :] = 0.0
            terminated[g] = False
            winners[g] = -1
            turns[g] = 0
            errors[g] = 0
            ended = _play_action(state, g, actions[g], rules, tables, ws_masks, ws_sizes, ws_strengths, ws_categories, work)
            if ended < 0:
                errors[g] = 1
                continue
            if ended:  # the game is over: scores, then a new deal (same-step autoreset)
                _scores(state, g, rules, rewards[g])
                terminated[g] = True
                winners[g] = state[g, T0 + T_WINNER]
                turns[g] = state[g, TURNS]
                _deal(state, g, next_decks[g])
            _view(state, g, rules, tables, observations, masks, players, ws_masks, ws_sizes, ws_strengths, ws_categories, legal,
                  work)


@njit(cache=True, parallel=True)
def _candidate_counts(state, rules, counts, chunks):  # pragma: no cover - compiled
    n = state.shape[0]
    for chunk in prange(chunks):
        ws_masks, ws_sizes, ws_strengths, ws_categories, legal, work = _workspace()
        for g in range(chunk, n, chunks):
            k = _legal(state, g, rules, ws_masks, ws_sizes, ws_strengths, ws_categories, legal, work)
            counts[g] = k + 1 if state[g, T0 + T_SIZE] else k


@njit(cache=True, parallel=True)
def _candidate_rows(state, rules, tables, feature_categories, offsets, features, actions, chunks):  # pragma: no cover
    """Every game's legal plays (and pass) in ascending action order from row ``offsets[g]``: their
    80 candidate features and action indices."""
    n = state.shape[0]
    for chunk in prange(chunks):
        ws_masks, ws_sizes, ws_strengths, ws_categories, legal, work = _workspace()
        for g in range(chunk, n, chunks):
            k = _legal(state, g, rules, ws_masks, ws_sizes, ws_strengths, ws_categories, legal, work)
            hand = state[g, H0 + state[g, T0 + T_PLAYER]]
            for j in range(k):  # action indices, then an insertion sort of (action, combination) by action
                work[j] = action_index(ws_masks[legal[j]], hand, tables[1])
            for j in range(1, k):
                a, i = work[j], legal[j]
                t = j - 1
                while t >= 0 and work[t] > a:
                    work[t + 1], legal[t + 1] = work[t], legal[t]
                    t -= 1
                work[t + 1], legal[t + 1] = a, i
            row = offsets[g]
            for j in range(k):
                i = legal[j]
                actions[row] = work[j]
                write_features(ws_masks[i], ws_categories[i], feature_categories, features[row])
                row += 1
            if state[g, T0 + T_SIZE]:
                actions[row] = PASS_ACTION
                write_features(0, 0, feature_categories, features[row])


MAX_ENVS = 1 << 20
"""The most games one vector env holds."""


def check_settings(num_envs: Any, observation: Any) -> int:
    """``num_envs`` as an int after checking it (1 to :data:`MAX_ENVS`) and ``observation`` (one of :data:`VIEWS`)."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or not 1 <= num_envs <= MAX_ENVS:
        raise ValueError(f"num_envs must be an int in 1..{MAX_ENVS:,}; got {num_envs!r}")
    if observation not in VIEWS:
        raise ValueError(f"observation must be 'paper' (277 numbers) or 'extended' (315); got {observation!r}")
    return int(num_envs)


def thread_chunks(num_envs: int) -> int:
    """How many parts the games are split into, one per thread (numba's thread count, read here:
    code that reads it inside a kernel cannot be cached)."""
    return max(1, min(num_envs, numba.get_num_threads()))


def check_action_array(actions: Any, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``actions`` as int64, one action index per game, and which of them the games' ``masks`` do
    not allow; ``ValueError`` for anything but an int array of the games' count in 0..1694."""
    n = len(masks)
    acts = np.asarray(actions)
    if acts.shape != (n,) or acts.dtype.kind not in "iu":
        raise ValueError(
            f"actions must be an int array of shape ({n},), one action index per game; "
            f"got shape {acts.shape}, dtype {acts.dtype}"
        )
    bad = np.flatnonzero((acts < 0) | (acts >= NUM_ACTIONS))
    if len(bad):
        g = int(bad[0])
        raise ValueError(f"actions[{g}] = {acts[g]} is out of range: action indices are 0..{NUM_ACTIONS - 1}")
    acts = acts.astype(np.int64)
    return acts, ~masks[np.arange(n), acts]


class Big2VectorEnv:
    """``num_envs`` games of Big 2 stepped together (see the module docstring).

    Args:
        num_envs: how many games (1 to 1,048,576).
        seed: ``None``, a non-negative int or a ``numpy.random.Generator``: the deals' source.
        rules: a :class:`~big2_env.engine.rules.Rules`, preset name, dict or ``None``.
        observation: ``"paper"`` (the 277 numbers, default) or ``"extended"`` (the 315 of
            :mod:`big2_env.observations.extended`: also who holds control, who passed in this round
            and on what).
    """

    MAX_ENVS = MAX_ENVS

    def __init__(self, num_envs: int, seed: Any = None, rules: Rules | str | dict | None = None,
                 observation: str = "paper") -> None:
        self.num_envs = check_settings(num_envs, observation)
        self.observation = observation
        self.rules = Rules.coerce(rules)
        self._rules = rules_array(self.rules)
        self._rng = check_seed(seed)
        n = self.num_envs
        self._state = np.zeros((n, STATE_SIZE), dtype=np.int64)
        self._next_decks = np.zeros((n, 52), dtype=np.int64)
        self._observations = np.zeros((n, OBS_SIZE if observation == "paper" else EXTENDED_SIZE), dtype=np.float32)
        self._masks = np.zeros((n, NUM_ACTIONS), dtype=np.bool_)
        self._players = np.zeros(n, dtype=np.int64)
        self._ready = False

    def _decks(self, n: int) -> np.ndarray:
        return shuffled_decks(n, self._rng)

    def _chunks(self) -> int:
        return thread_chunks(self.num_envs)

    def _obs(self) -> dict[str, np.ndarray]:
        return {
            "observation": self._observations.copy(),
            "action_mask": self._masks.copy(),
            "current_player": self._players.copy(),
        }

    def reset(self, seed: Any = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal every game anew (``seed`` reseeds the deals' generator first)."""
        if seed is not None:
            self._rng = check_seed(seed)
        decks = self._decks(self.num_envs)
        self._next_decks[:] = self._decks(self.num_envs)
        _reset(self._state, decks, self._rules, TABLES, self._observations, self._masks, self._players, self._chunks())
        self._ready = True
        return self._obs(), {}

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
        _step(self._state, acts, self._next_decks, self._rules, TABLES, self._observations, self._masks, self._players, rewards,
              terminated, winners, turns, errors, self._chunks())
        if errors.any():  # cannot happen after _check_actions; a guard, not a path
            raise AssertionError(f"the core refused the actions of games {np.flatnonzero(errors).tolist()}")
        ended = np.flatnonzero(terminated)
        if len(ended):  # the ended games were dealt their next decks: draw the ones after those
            self._next_decks[ended] = self._decks(len(ended))
        truncations = np.zeros(n, dtype=np.bool_)
        return self._obs(), rewards, terminated, truncations, {"winner": winners, "turns": turns}

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
        return self._state[:, H0 : H0 + 4].copy()

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


def candidate_arrays(state: np.ndarray, rules: np.ndarray, chunks: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:meth:`Big2VectorEnv.candidates` of a vector env's state (shared by the single-agent vector env)."""
    counts = np.zeros(state.shape[0], dtype=np.int64)
    _candidate_counts(state, rules, counts, chunks)
    offsets = np.cumsum(counts) - counts
    features = np.empty((int(counts.sum()), FEATURE_SIZE), dtype=np.float32)
    actions = np.empty(len(features), dtype=np.int64)
    _candidate_rows(state, rules, TABLES, FEATURE_CATEGORIES, offsets, features, actions, chunks)
    return features, actions, counts


def vector_env(num_envs: int, seed: Any = None, rules: Rules | str | dict | None = None,
               observation: str = "paper") -> Big2VectorEnv:
    """``num_envs`` games of Big 2 stepped together in compiled code (:class:`Big2VectorEnv`)."""
    return Big2VectorEnv(num_envs, seed=seed, rules=rules, observation=observation)


def warm_up() -> float:
    """Compile (or load from the disk cache) the vector env's kernels; returns the seconds it took
    (see :func:`big2_env.engine.core.warm_up`)."""
    import time

    started = time.perf_counter()
    for view in VIEWS:
        env = Big2VectorEnv(2, seed=0, observation=view)
        obs, _ = env.reset()
        env.step(obs["action_mask"].argmax(axis=1))
    env.candidates()
    return time.perf_counter() - started
