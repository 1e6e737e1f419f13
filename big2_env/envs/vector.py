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
(``observation="charlesworth"``, kept up to date move by move in the state, as his game does).
The single-agent form, one learner against core heuristics, is
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

import numba
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space
from numba import njit, prange

from ..checks import is_int
from ..engine.core import check_seed, rules_array, shuffled_decks
from ..engine.core.games import (
    T_CATEGORY,
    T_MASK,
    T_OPENING,
    T_PASSED,
    T_PASSES,
    T_PLAYER,
    T_SIZE,
    T_STRENGTH,
    T_WINNER,
    TABLE_SIZE,
    apply_move,
    final_scores,
    locked,
    new_table,
)
from ..engine.core.kernels import (
    CAPACITY,
    R_OPENING,
    R_SCORING,
    WORK_SIZE,
    classify_play,
    combos_into,
    leading_zeros,
    legal_from,
    popcount,
)
from ..players.kernels.smart import smart_pick
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
from ..players.charlesworth import INPUT_SIZE

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
T0 = 8  # the table: columns 8..16 (its T_PASSED: the seats that passed in this round, as the extended view shows)
TURNS = T0 + TABLE_SIZE  # decisions so far in this game
LEARNER = TURNS + 1  # the learner's seat (the single-agent vector env's; -1 in self-play)
TRICK_PLAYER = LEARNER + 1  # who made the active trick (-1 when a player leads): the extended view's control
DECLINED = TRICK_PLAYER + 1  # per seat x trick size 1..5: the weakest strength it passed on (-1: none)
CW_FLAGS = DECLINED + 20  # Charlesworth's view, per seat: the kind flags of its block, bit f - 21 for flag f (21..26)
CW_LAST = CW_FLAGS + 4  # per viewer: his last-play section (numbers 383..411), bit i for number 383 + i
CW_PASSES = CW_LAST + 4  # his pass counter (0..2)
STATE_SIZE = CW_PASSES + 1
VIEWS = ("paper", "extended")
"""The views both vector envs give (this one and :mod:`big2_env.envs.vector_opponents`)."""
SELF_PLAY_VIEWS = ("paper", "charlesworth", "extended")
"""The views of :class:`Big2VectorEnv`: also Charlesworth's 412 numbers."""
EXTENDED_SIZE = OBS_SIZE + 38
CHARLESWORTH_SIZE = INPUT_SIZE
VIEW_SIZES = {"paper": OBS_SIZE, "extended": EXTENDED_SIZE, "charlesworth": CHARLESWORTH_SIZE}
# his sections and last-play numbers (big2_env.players.charlesworth): hand, other players, record, last play
_CW_OTHERS, _CW_RECORD, _CW_LAST = 286, 367, 383
_SUIT_BITS = 0x1111111111111  # the diamonds' bits (shift by the suit for the others)
_CW_CONTROL, _CW_NO_PASS, _CW_ONE_PASS, _CW_TWO_PASSES = 17, 26, 27, 28
_CW_SINGLE, _CW_TWO_PAIR, _CW_QUADS, _CW_STRAIGHT, _CW_FLUSH, _CW_FULL_HOUSE = 18, 21, 22, 23, 24, 25
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
    open_game(state, g, first)


@njit(cache=True)
def open_game(state, g, first):  # pragma: no cover - compiled
    """Game ``g`` at its deal, its four hands in place and its other columns zero: ``first`` to open,
    nobody's trick, no passes on record."""
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
                      state[g, T0 + T_OPENING] == 1, rules[R_OPENING], locked(state, g, T0, rules), legal)


@njit(cache=True)
def _rule_pick(state, g, kind, k, rules, ws_masks, ws_sizes, ws_categories, legal):  # pragma: no cover - compiled
    """After :func:`_legal` wrote the mover's ``k`` legal plays: the index among them (``k``: pass) of
    Greedy's move (``kind`` 1: the first, the weakest play) or Smart's (``kind`` 2)."""
    if kind != 2:
        return 0
    return smart_pick(state[g, H0 + state[g, T0 + T_PLAYER]], ws_masks, ws_sizes, ws_categories, legal, k,
                      state[g, T0 + T_SIZE], state[g, T0 + T_CATEGORY], state[g, T0 + T_MASK], rules)


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
    more when ``out`` has room for them (:mod:`big2_env.observations.extended`); Charlesworth's 412
    when ``out`` has 412 (:func:`write_charlesworth`)."""
    if out.shape[0] == CHARLESWORTH_SIZE:
        write_charlesworth(state, g, player, out)
        return
    write_observation(state[g, H0 : H0 + 4], state[g, P0 : P0 + 4], state[g, T0 + T_MASK], state[g, T0 + T_PASSES], player,
                      out)
    if out.shape[0] < EXTENDED_SIZE:
        return
    out[OBS_SIZE] = popcount(state[g, H0 + player]) / 13.0
    trick_player = state[g, TRICK_PLAYER]
    out[OBS_SIZE + 1 + (0 if trick_player < 0 else (trick_player - player) % 4)] = 1.0
    for k in range(3):
        seat = (player + 1 + k) % 4
        out[OBS_SIZE + 5 + k] = (state[g, T0 + T_PASSED] >> seat) & 1
        for size in range(5):
            weakest = state[g, DECLINED + 5 * seat + size]
            if weakest >= 0:
                out[OBS_SIZE + 8 + 5 * k + size] = 1.0
                out[OBS_SIZE + 23 + 5 * k + size] = weakest / _STRENGTH_MAX[size]


@njit(cache=True)
def write_charlesworth(state, g, player, out):  # pragma: no cover - compiled
    """``player``'s 412 numbers of game ``g`` into ``out``, as Charlesworth's game computes them
    (:func:`big2_env.players.charlesworth.network_input`): his hand's 13 slots of 22, the three other
    players (next, across, previous) from their hands' sizes, cards played and the kind flags
    :func:`_charlesworth_move` kept, the sixteen cards Q-D .. 2-S anyone played, and the last-play
    section it kept for ``player``."""
    out[:] = 0.0
    hand = state[g, H0 + player]
    in_run = 0  # bit r: rank r is in a run of five or more consecutive ranks held
    start = 0
    for r in range(14):
        if r == 13 or (hand >> (4 * r)) & 15 == 0:
            if r - start >= 5:
                in_run |= ((1 << (r - start)) - 1) << start
            start = r + 1
    slot = 0
    for c in range(52):
        if (hand >> c) & 1:
            base = 22 * slot
            r = c >> 2
            held = popcount((hand >> (4 * r)) & 15)
            out[base + r] = 1.0
            out[base + 13 + (c & 3)] = 1.0
            out[base + 17] = 1.0 if held >= 2 else 0.0
            out[base + 18] = 1.0 if held >= 3 else 0.0
            out[base + 19] = 1.0 if held == 4 else 0.0
            out[base + 20] = (in_run >> r) & 1
            out[base + 21] = 1.0 if popcount(hand & (_SUIT_BITS << (c & 3))) >= 5 else 0.0
            slot += 1
    played = 0
    for seat in range(4):
        played |= state[g, P0 + seat]
    for k in range(3):
        seat = (player + 1 + k) % 4
        block = _CW_OTHERS + 27 * k
        left = popcount(state[g, H0 + seat])
        if left:
            out[block + left - 1] = 1.0
        mine = state[g, P0 + seat]
        for c in range(44, 52):  # A-D .. 2-S
            out[block + 13 + c - 44] = (mine >> c) & 1
        flags = state[g, CW_FLAGS + seat]
        for f in range(6):
            out[block + 21 + f] = (flags >> f) & 1
    for c in range(36, 52):  # Q-D .. 2-S
        out[_CW_RECORD + c - 36] = (played >> c) & 1
    last = state[g, CW_LAST + player]
    for i in range(29):
        out[_CW_LAST + i] = (last >> i) & 1


@njit(cache=True)
def _nth_card(cards, n):  # pragma: no cover - compiled
    """The ``n``-th lowest card id of the bitmask ``cards`` (0: the lowest)."""
    for _ in range(n):
        cards &= cards - 1
    return popcount((cards & -cards) - 1)


@njit(cache=True)
def _charlesworth_move(state, g, player, play):  # pragma: no cover - compiled
    """Keep Charlesworth's view up to date for the mover ``player`` playing ``play`` (0: a pass), as
    his game does (``_Inputs.play`` and ``_Inputs.pass_`` of :mod:`big2_env.players.charlesworth`,
    quirks included): the mover's kind flags, every viewer's last-play section, the pass counter."""
    if play == 0:
        passes = state[g, CW_PASSES]
        for k in range(1, 4):
            viewer = (player + k) % 4
            if passes < 2:
                last = state[g, CW_LAST + viewer] & ~(7 << _CW_NO_PASS)
                state[g, CW_LAST + viewer] = last | (1 << (_CW_ONE_PASS if passes == 0 else _CW_TWO_PASSES))
            else:
                state[g, CW_LAST + viewer] = 0
        if passes < 2:
            state[g, CW_PASSES] = passes + 1
        else:  # the third pass: the player after the passer takes control
            state[g, CW_LAST + (player + 1) % 4] = 1 << _CW_CONTROL
            state[g, CW_PASSES] = 0
        return
    n = popcount(play)
    top = 63 - leading_zeros(play)
    flags = 0
    key = top >> 2  # the key card's value - 1 (a bit of the section), and its suit slot (-1: none)
    suit = top & 3
    if n <= 3:  # kind: the bits of the section's kind slots
        kind = 1 << (_CW_SINGLE + n - 1)  # single, pair, triple
        if n >= 2:
            flags = 1 << (n - 2)
    elif n == 4:
        flags = 1 << 2
        r0, r1, r2 = _nth_card(play, 0) >> 2, _nth_card(play, 1) >> 2, _nth_card(play, 2) >> 2
        kind = 1 << (_CW_TWO_PAIR if r0 == r1 and r2 == top >> 2 and r0 != r2 else _CW_QUADS)
    else:
        rank_bits = 0
        suit_bits = 0
        for c in range(52):
            if (play >> c) & 1:
                rank_bits |= 1 << (c >> 2)
                suit_bits |= 1 << (c & 3)
        low = popcount((rank_bits & -rank_bits) - 1)
        kind = 0
        if rank_bits == 31 << low:  # five consecutive values
            flags |= 1 << 3
            kind |= 1 << _CW_STRAIGHT
        if popcount(suit_bits) == 1:
            flags |= 1 << 4
            kind |= 1 << _CW_FLUSH
        else:  # a full house, or (his quirk) a plain straight: keyed by the middle card, no suit
            flags |= 1 << 5
            kind |= 1 << _CW_FULL_HOUSE
            key = _nth_card(play, 2) >> 2
            suit = -1
    section = kind | (1 << key) | (1 << _CW_NO_PASS)
    if suit >= 0:
        section |= 1 << (13 + suit)
    for k in range(1, 4):
        state[g, CW_LAST + (player + k) % 4] = section
    state[g, CW_LAST + player] = 0
    state[g, CW_FLAGS + player] |= flags
    state[g, CW_PASSES] = 0


@njit(cache=True)
def _play(state, g, play, size, strength, category):  # pragma: no cover - compiled
    """The mover plays ``play`` (0: passes); returns whether that ended the game. Also keeps the
    extended view's public record: who made the trick, who passed in this round and on what, and
    Charlesworth's (:func:`_charlesworth_move`)."""
    player = state[g, T0 + T_PLAYER]
    _charlesworth_move(state, g, player, play)
    if play == 0:
        column = DECLINED + 5 * player + state[g, T0 + T_SIZE] - 1
        if state[g, column] < 0 or state[g, T0 + T_STRENGTH] < state[g, column]:
            state[g, column] = state[g, T0 + T_STRENGTH]
    else:
        state[g, TRICK_PLAYER] = player
    state[g, P0 + player] |= play
    apply_move(state, g, H0, T0, play, size, strength, category)
    if play == 0 and state[g, T0 + T_PASSES] == 3:  # everyone else passed: a new round (apply_move cleared T_PASSED)
        state[g, TRICK_PLAYER] = -1
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
    if locked(state, g, T0, rules):  # passed earlier in this trick, under pass_locks
        return -1
    # the cards at the action's hand slots
    play = 0
    slot = 0
    for c in range(52):
        if (hand >> c) & 1:
            for j in range(5):
                if tables[0][action, j] == slot:
                    play |= 1 << c
            slot += 1
    if play == 0 or play & hand != play:
        return -1
    # the play's size, strength and category: the one combination of all its cards (the mask said it is legal)
    size, strength, category = classify_play(play, rules, ws_masks, ws_sizes, ws_strengths, ws_categories, work)
    if category < 0:
        return -1
    return 1 if _play(state, g, play, size, strength, category) else 0


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


def check_settings(num_envs: Any, observation: Any, views: tuple[str, ...] = VIEWS) -> int:
    """``num_envs`` as an int after checking it (1 to :data:`MAX_ENVS`) and ``observation`` (one of
    ``views``: :data:`VIEWS`, or :data:`SELF_PLAY_VIEWS` for :class:`Big2VectorEnv`)."""
    if not is_int(num_envs, 1, MAX_ENVS):
        raise ValueError(f"num_envs must be an int in 1..{MAX_ENVS:,}; got {num_envs!r}")
    if not isinstance(observation, str) or observation not in views:
        named = [f"{v!r} ({VIEW_SIZES[v]}{' numbers' if i == 0 else ''})" for i, v in enumerate(views)]
        raise ValueError(f"observation must be {', '.join(named[:-1])} or {named[-1]}; got {observation!r}")
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
        self._state = np.zeros((n, STATE_SIZE), dtype=np.int64)
        self._next_decks = np.zeros((n, 52), dtype=np.int64)
        self._observations = np.zeros((n, VIEW_SIZES[observation]), dtype=np.float32)
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
            "action_mask": self._masks.view(np.int8).copy(),
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
    for view in SELF_PLAY_VIEWS:
        env = Big2VectorEnv(2, seed=0, observation=view)
        obs, _ = env.reset()
        env.step(obs["action_mask"].argmax(axis=1))
    env.candidates()
    return time.perf_counter() - started
