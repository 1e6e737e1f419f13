"""Whole games in the compiled core: the table's state, one move applied, and games of random,
Greedy and Smart seats (numba). Inputs are trusted (see :mod:`big2_env.engine.core.kernels`).

A table is nine int64 columns of :data:`TABLE_FIELDS` (the player on move, the trick's size,
strength, category and card mask, the passes since the last play, whether it is the opening,
the winner or -1, and the bitmask of the seats that passed since the trick was led: under the
``pass_locks`` rule they may only pass until it ends, :func:`locked`) beside the four hands' bitmasks, in a row of a 2-D array;
:func:`apply_move` is the one place where a play or a pass changes them, as
:meth:`big2_env.engine.game.Game._apply` does, for every kernel of the core (the games here,
the search's play-outs, the vector envs).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import (
    CAPACITY,
    R_OPENING,
    R_PASS_LOCKS,
    R_SCORING,
    WORK_SIZE,
    combos_into,
    hand_penalty,
    legal_from,
    popcount,
)
from .smart import smart_pick

T_PLAYER, T_SIZE, T_STRENGTH, T_CATEGORY, T_MASK, T_PASSES, T_OPENING, T_WINNER, T_PASSED = range(9)
TABLE_FIELDS = ("player", "trick_size", "trick_strength", "trick_category", "trick_mask", "passes", "opening", "winner",
                "passed")
TABLE_SIZE = len(TABLE_FIELDS)
GAME_SIZE = 4 + TABLE_SIZE
"""Columns of a game row of the plain layout: the four hands (0..3), then the table (4..12)."""
HANDS_AT, TABLE_AT = 0, 4


# The helpers address a game as a row ``g`` of a 2-D int64 array, with its hands at column
# ``h`` and its table at column ``t``, rather than through slices: a slice is a new array
# object, whose reference count the threads of a parallel kernel would fight over.
@njit(cache=True)
def new_table(rows, g, t, player: int, opening: int) -> None:  # pragma: no cover - compiled
    """A fresh trick-less table with ``player`` on move (``opening``: nothing played yet)."""
    for k in range(TABLE_SIZE):
        rows[g, t + k] = 0
    rows[g, t + T_PLAYER] = player
    rows[g, t + T_OPENING] = opening
    rows[g, t + T_WINNER] = -1


@njit(cache=True)
def apply_move(rows, g, h, t, mask: int, size: int, strength: int, category: int) -> None:  # pragma: no cover
    """The player on move plays ``mask`` (0: passes); three passes in a row clear the trick (and
    who passed in it), and emptying a hand wins (the winner stays on move)."""
    player = rows[g, t + T_PLAYER]
    if mask == 0:
        rows[g, t + T_PASSES] += 1
        rows[g, t + T_PASSED] |= 1 << player
        if rows[g, t + T_PASSES] == 3:
            rows[g, t + T_SIZE] = 0
            rows[g, t + T_STRENGTH] = 0
            rows[g, t + T_CATEGORY] = 0
            rows[g, t + T_MASK] = 0
            rows[g, t + T_PASSED] = 0
        rows[g, t + T_PLAYER] = (player + 1) % 4
        return
    rows[g, h + player] ^= mask
    rows[g, t + T_SIZE] = size
    rows[g, t + T_STRENGTH] = strength
    rows[g, t + T_CATEGORY] = category
    rows[g, t + T_MASK] = mask
    rows[g, t + T_PASSES] = 0
    rows[g, t + T_OPENING] = 0
    if rows[g, h + player] == 0:
        rows[g, t + T_WINNER] = player
    else:
        rows[g, t + T_PLAYER] = (player + 1) % 4


@njit(cache=True)
def locked(rows, g, t, rules) -> bool:  # pragma: no cover - compiled
    """Whether the player on move in row ``g`` (table at column ``t``) may only pass: under the
    ``pass_locks`` rule, it passed earlier in the trick on the table."""
    return rules[R_PASS_LOCKS] != 0 and (rows[g, t + T_PASSED] >> rows[g, t + T_PLAYER]) & 1 == 1


@njit(cache=True)
def final_scores(rows, g, h, winner: int, scoring: int, scores) -> None:  # pragma: no cover - compiled
    """Each loser pays its hand's penalty to the winner (``scores``: four numbers summing to 0)."""
    total = 0
    for p in range(4):
        penalty = hand_penalty(popcount(rows[g, h + p]), scoring)
        scores[p] = -penalty
        total += penalty
    scores[winner] = total


@njit(cache=True)
def random_game(deck, uniforms, rules, ws_masks, ws_sizes, ws_strengths, ws_categories, legal, scores, trace,
                greedy_seats=0, smart_seats=0):  # pragma: no cover - compiled
    """Play one game from ``deck`` (a permutation of 0..51: seat ``i`` gets ``deck[13 i : 13 i + 13]``)
    choosing, at turn ``t``, legal play ``floor(uniforms[t] * n_legal)`` (pass last when legal), except
    that the seats in the bitmask ``greedy_seats`` make their first legal play (the paper's Greedy,
    in the engine's order) and those in ``smart_seats`` Smart's choice (:func:`smart_pick`).

    Writes the final scores to ``scores`` (4,) and, when ``trace`` has rows, each turn's
    ``(player, number of legal plays, chosen play mask)``; returns ``(winner, turns)``.
    """
    game = np.zeros((1, GAME_SIZE), dtype=np.int64)
    for i in range(52):
        game[0, HANDS_AT + i // 13] |= 1 << deck[i]
    counts = np.zeros(4, dtype=np.int64)
    work = np.empty(WORK_SIZE, dtype=np.int64)
    first = 0
    for p in range(4):
        hand = game[0, HANDS_AT + p]
        counts[p] = combos_into(hand, rules, ws_masks[p], ws_sizes[p], ws_strengths[p], ws_categories[p], 0, work)
        if hand & 1:
            first = p
    t = TABLE_AT
    new_table(game, 0, t, first, 1)
    turn = 0
    while game[0, t + T_WINNER] < 0:
        player = game[0, t + T_PLAYER]
        hand = game[0, HANDS_AT + player]
        trick_size = game[0, t + T_SIZE]
        k = legal_from(ws_masks[player], ws_sizes[player], ws_strengths[player], counts[player], hand,
                       trick_size, game[0, t + T_STRENGTH], game[0, t + T_OPENING], rules[R_OPENING],
                       locked(game, 0, t, rules), legal)
        total = k + 1 if trick_size else k
        if (smart_seats >> player) & 1:
            pick = smart_pick(hand, ws_masks[player], ws_sizes[player], ws_categories[player], legal, k,
                              trick_size, game[0, t + T_CATEGORY], game[0, t + T_MASK], rules)
        elif (greedy_seats >> player) & 1:
            pick = 0
        else:
            pick = min(int(uniforms[turn] * total), total - 1)  # uniforms are below 1; guard against rounding
        chosen = 0
        if pick == k:
            apply_move(game, 0, HANDS_AT, t, 0, 0, 0, 0)
        else:
            i = legal[pick]
            chosen = ws_masks[player][i]
            apply_move(game, 0, HANDS_AT, t, chosen, ws_sizes[player][i], ws_strengths[player][i], ws_categories[player][i])
        if turn < trace.shape[0]:
            trace[turn, 0], trace[turn, 1], trace[turn, 2] = player, total, chosen
        turn += 1
    final_scores(game, 0, HANDS_AT, game[0, t + T_WINNER], rules[R_SCORING], scores)
    return game[0, t + T_WINNER], turn


@njit(cache=True)
def random_games(decks, uniforms, rules, scores, winners, turns, greedy_seats=0, smart_seats=0):  # pragma: no cover
    """:func:`random_game` for every row of ``decks`` (N, 52) and ``uniforms`` (N, MAX_TURNS), one workspace for all."""
    ws_masks = np.empty((4, CAPACITY), dtype=np.int64)
    ws_sizes = np.empty((4, CAPACITY), dtype=np.int64)
    ws_strengths = np.empty((4, CAPACITY), dtype=np.int64)
    ws_categories = np.empty((4, CAPACITY), dtype=np.int64)
    legal = np.empty(CAPACITY, dtype=np.int64)
    no_trace = np.empty((0, 3), dtype=np.int64)
    for g in range(decks.shape[0]):
        winners[g], turns[g] = random_game(decks[g], uniforms[g], rules, ws_masks, ws_sizes, ws_strengths, ws_categories,
                                           legal, scores[g], no_trace, greedy_seats, smart_seats)
