"""One game of a batch, in compiled code: its deal, legal plays, moves and scores.

A game is row ``g`` of the rules state (:mod:`big2_env.envs.batch.layout`) and of its view's memory
(:mod:`big2_env.envs.batch.views`). :func:`play` is the one place where a move changes them: the
view's memory hears of it, then the core's :func:`~big2_env.engine.core.games.apply_move` changes
the table and the hands, and the row records the cards played and the decision. Each thread of a
parallel loop (:mod:`big2_env.envs.batch.stepper`) brings its own scratch arrays (:func:`workspace`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...engine.core.games import (
    T_CATEGORY,
    T_MASK,
    T_OPENING,
    T_PLAYER,
    T_SIZE,
    T_STRENGTH,
    T_WINNER,
    apply_move,
    final_scores,
    locked,
    new_table,
)
from ...engine.core.kernels import (
    CAPACITY,
    R_OPENING,
    R_SCORING,
    WORK_SIZE,
    classify_play,
    combos_into,
    legal_from,
    popcount,
)
from ...players.kernels.smart import smart_pick
from ...observations.compiled import NUM_ACTIONS, PASS_ACTION, SLOT_INDEX, action_index
from ...observations.paper import ACTION_SLOTS
from .layout import H0, P0, STATE_SIZE, T0, TURNS
from .views import clear_memory, on_move, write_view

__all__ = ["TABLES", "chunk_games", "deal", "deal_hands", "decide", "legal", "play", "play_action", "play_cards",
           "play_opponents", "rule_pick", "scores", "workspace", "write_mask"]

SLOTS = np.full((NUM_ACTIONS, 5), -1, dtype=np.int64)
for _i, _s in enumerate(ACTION_SLOTS):
    SLOTS[_i, : len(_s)] = _s
TABLES = (SLOTS, SLOT_INDEX)
"""The action tables the kernels read (each action's hand slots, and the index of a set of slots),
passed as arguments (numba cannot cache code that reads large global arrays)."""


@njit(cache=True)
def chunk_games(chunk: int, chunks: int, n: int):  # pragma: no cover - compiled
    """The games ``[start, stop)`` of thread ``chunk`` of ``chunks``, out of ``n``: a block of consecutive
    games (every ``chunks``-th game instead would put two threads' writes on one cache line)."""
    return chunk * n // chunks, (chunk + 1) * n // chunks


@njit(cache=True)
def workspace():  # pragma: no cover - compiled
    """One thread's scratch arrays: a hand's combinations (masks, sizes, strengths, categories), legal
    indices, and the enumeration's own scratch (:func:`~big2_env.engine.core.kernels.combos_into`)."""
    return (np.empty(CAPACITY, dtype=np.int64), np.empty(CAPACITY, dtype=np.int64), np.empty(CAPACITY, dtype=np.int64),
            np.empty(CAPACITY, dtype=np.int64), np.empty(CAPACITY, dtype=np.int64), np.empty(WORK_SIZE, dtype=np.int64))


@njit(cache=True)
def _open(view, state, memory, g, first):  # pragma: no cover - compiled
    """Game ``g`` at its deal, its four hands in place and its other columns zero: ``first`` to open."""
    new_table(state, g, T0, first, 1)
    clear_memory(view, memory, g)


@njit(cache=True)
def deal(view, state, memory, g, deck):  # pragma: no cover - compiled
    """Deal game ``g`` the shuffled ``deck`` (52 card ids, 13 to each seat in order); the holder of 3D opens."""
    for k in range(STATE_SIZE):
        state[g, k] = 0
    first = 0
    for i in range(52):
        state[g, H0 + i // 13] |= 1 << deck[i]
    for p in range(4):
        if state[g, H0 + p] & 1:
            first = p
    _open(view, state, memory, g, first)


@njit(cache=True)
def deal_hands(view, state, memory, g, hands, first):  # pragma: no cover - compiled
    """Deal game ``g`` the four card bitmasks ``hands``; ``first`` opens."""
    for k in range(STATE_SIZE):
        state[g, k] = 0
    for p in range(4):
        state[g, H0 + p] = hands[p]
    _open(view, state, memory, g, first)


@njit(cache=True)
def legal(state, g, rules, ws_masks, ws_sizes, ws_strengths, ws_categories, legal, work):  # pragma: no cover - compiled
    """The mover's legal plays (indices into its combinations of the trick's size, in ``ws_*``); returns their count."""
    player = state[g, T0 + T_PLAYER]
    hand = state[g, H0 + player]
    trick_size = state[g, T0 + T_SIZE]
    n = combos_into(hand, rules, ws_masks, ws_sizes, ws_strengths, ws_categories, trick_size, work)
    return legal_from(ws_masks, ws_sizes, ws_strengths, n, hand, trick_size, state[g, T0 + T_STRENGTH],
                      state[g, T0 + T_OPENING] == 1, rules[R_OPENING], locked(state, g, T0, rules), legal)


@njit(cache=True)
def rule_pick(state, g, kind, k, rules, ws_masks, ws_sizes, ws_categories, legal):  # pragma: no cover - compiled
    """After :func:`legal` wrote the mover's ``k`` legal plays: the index among them (``k``: pass) of
    Greedy's move (``kind`` 1: the first, the weakest play) or Smart's (``kind`` 2)."""
    if kind != 2:
        return 0
    return smart_pick(state[g, H0 + state[g, T0 + T_PLAYER]], ws_masks, ws_sizes, ws_categories, legal, k,
                      state[g, T0 + T_SIZE], state[g, T0 + T_CATEGORY], state[g, T0 + T_MASK], rules)


@njit(cache=True)
def write_mask(state, g, k, ws_masks, legal_at, tables, masks, row):  # pragma: no cover - compiled
    """After :func:`legal` wrote game ``g``'s mover's ``k`` legal plays: mark their action indices, and
    the pass when it is legal, in row ``row`` of ``masks`` (bool, cleared by the caller)."""
    hand = state[g, H0 + state[g, T0 + T_PLAYER]]
    for j in range(k):
        masks[row, action_index(ws_masks[legal_at[j]], hand, tables[1])] = True
    if state[g, T0 + T_SIZE]:
        masks[row, PASS_ACTION] = True


@njit(cache=True)
def decide(view, state, memory, g, rules, tables, observations, masks, players, ws_masks, ws_sizes, ws_strengths,
           ws_categories, legal_at, work):  # pragma: no cover - compiled
    """Write game ``g``'s mover's view, action mask and seat (row ``g`` of ``observations``, ``masks``, ``players``)."""
    player = state[g, T0 + T_PLAYER]
    k = legal(state, g, rules, ws_masks, ws_sizes, ws_strengths, ws_categories, legal_at, work)
    masks[g, :] = False
    write_mask(state, g, k, ws_masks, legal_at, tables, masks, g)
    write_view(view, state, memory, g, player, observations[g])
    players[g] = player


@njit(cache=True)
def play(view, state, memory, g, cards, size, strength, category):  # pragma: no cover - compiled
    """The mover plays ``cards`` (0: passes; a legal play of ``size``, ``strength`` and ``category``);
    returns whether that ended the game."""
    player = state[g, T0 + T_PLAYER]
    on_move(view, state, memory, g, player, cards)
    state[g, P0 + player] |= cards
    apply_move(state, g, H0, T0, cards, size, strength, category)
    state[g, TURNS] += 1
    return state[g, T0 + T_WINNER] >= 0


@njit(cache=True)
def play_cards(view, state, memory, g, cards, rules, ws_masks, ws_sizes, ws_strengths, ws_categories,
               work):  # pragma: no cover - compiled
    """The mover plays the card mask ``cards`` (0: a pass; a legal move, checked by the caller)."""
    if cards == 0:
        play(view, state, memory, g, 0, 0, 0, 0)
        return
    size = popcount(cards)
    combos_into(cards, rules, ws_masks, ws_sizes, ws_strengths, ws_categories, size, work)
    i = 0
    while ws_masks[i] != cards:  # the play is a combination: it is listed
        i += 1
    play(view, state, memory, g, cards, size, ws_strengths[i], ws_categories[i])


@njit(cache=True)
def play_action(view, state, memory, g, action, rules, tables, ws_masks, ws_sizes, ws_strengths, ws_categories,
                work):  # pragma: no cover - compiled
    """The mover plays action index ``action``; returns 1 when that ended the game, 0 when not, -1
    when the action is not a legal play (the game is then unchanged)."""
    player = state[g, T0 + T_PLAYER]
    hand = state[g, H0 + player]
    if action == PASS_ACTION:
        if state[g, T0 + T_SIZE] == 0:
            return -1
        return 1 if play(view, state, memory, g, 0, 0, 0, 0) else 0
    if locked(state, g, T0, rules):  # passed earlier in this trick, under pass_locks
        return -1
    # the cards at the action's hand slots
    cards = 0
    slot = 0
    for c in range(52):
        if (hand >> c) & 1:
            for j in range(5):
                if tables[0][action, j] == slot:
                    cards |= 1 << c
            slot += 1
    if cards == 0 or cards & hand != cards:
        return -1
    # the play's size, strength and category: the one combination of all its cards (the mask said it is legal)
    size, strength, category = classify_play(cards, rules, ws_masks, ws_sizes, ws_strengths, ws_categories, work)
    if category < 0:
        return -1
    return 1 if play(view, state, memory, g, cards, size, strength, category) else 0


@njit(cache=True)
def play_opponents(view, state, memory, g, learner, rules, kinds, draws, offset, ws_masks, ws_sizes, ws_strengths,
                   ws_categories, legal_at, work):  # pragma: no cover - compiled
    """The seats other than ``learner`` move until it is on move or the game is over; returns whether it is over.
    ``kinds[k]`` is the kind of the seat ``k + 1`` places after the learner (0 random, 1 greedy, 2 smart);
    Random reads ``draws[g, offset]``, ``draws[g, offset + 1]`` ... (cyclically)."""
    used = 0
    while state[g, T0 + T_WINNER] < 0 and state[g, T0 + T_PLAYER] != learner:
        player = state[g, T0 + T_PLAYER]
        k = legal(state, g, rules, ws_masks, ws_sizes, ws_strengths, ws_categories, legal_at, work)
        total = k + 1 if state[g, T0 + T_SIZE] else k
        kind = kinds[(player - learner + 3) % 4]
        if kind == 0:
            pick = min(int(draws[g, (offset + used) % draws.shape[1]] * total), total - 1)
            used += 1
        else:
            pick = rule_pick(state, g, kind, k, rules, ws_masks, ws_sizes, ws_categories, legal_at)
        if pick == k:
            play(view, state, memory, g, 0, 0, 0, 0)
        else:
            i = legal_at[pick]
            play(view, state, memory, g, ws_masks[i], ws_sizes[i], ws_strengths[i], ws_categories[i])
    return state[g, T0 + T_WINNER] >= 0


@njit(cache=True)
def scores(state, g, rules, out):  # pragma: no cover - compiled
    """The ended game's final scores, in seat order, into ``out`` (4,)."""
    final_scores(state, g, H0, state[g, T0 + T_WINNER], rules[R_SCORING], out)
