"""Whole games in the compiled core: the table's state, one move applied, and games of random,
Greedy and Smart seats (numba). Inputs are trusted (see :mod:`big2_env.engine.core.kernels`).

A table is an int64 array of :data:`TABLE_FIELDS` (the player on move, the trick's size,
strength, category and card mask, the passes since the last play, whether it is the opening,
the winner or -1) beside the four hands' bitmasks; :func:`apply_move` is the one place
where a play or a pass changes them, as :meth:`big2_env.engine.game.Game._apply` does.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import CAPACITY, R_OPENING, R_SCORING, hand_combos, hand_penalty, legal_from, popcount
from .smart import smart_pick

T_PLAYER, T_SIZE, T_STRENGTH, T_CATEGORY, T_MASK, T_PASSES, T_OPENING, T_WINNER = range(8)
TABLE_FIELDS = ("player", "trick_size", "trick_strength", "trick_category", "trick_mask", "passes", "opening", "winner")


@njit(cache=True)
def new_table(table, player: int, opening: int) -> None:  # pragma: no cover - compiled
    """A fresh trick-less table with ``player`` on move (``opening``: nothing played yet)."""
    table[:] = 0
    table[T_PLAYER] = player
    table[T_OPENING] = opening
    table[T_WINNER] = -1


@njit(cache=True)
def apply_move(table, hands, mask: int, size: int, strength: int, category: int) -> None:  # pragma: no cover
    """The player on move plays ``mask`` (0: passes); three passes in a row clear the trick, and
    emptying a hand wins (the winner stays on move)."""
    player = table[T_PLAYER]
    if mask == 0:
        table[T_PASSES] += 1
        if table[T_PASSES] == 3:
            table[T_SIZE] = 0
            table[T_STRENGTH] = 0
            table[T_CATEGORY] = 0
            table[T_MASK] = 0
        table[T_PLAYER] = (player + 1) % 4
        return
    hands[player] ^= mask
    table[T_SIZE] = size
    table[T_STRENGTH] = strength
    table[T_CATEGORY] = category
    table[T_MASK] = mask
    table[T_PASSES] = 0
    table[T_OPENING] = 0
    if hands[player] == 0:
        table[T_WINNER] = player
    else:
        table[T_PLAYER] = (player + 1) % 4


@njit(cache=True)
def final_scores(hands, winner: int, scoring: int, scores) -> None:  # pragma: no cover - compiled
    """Each loser pays its hand's penalty to the winner (``scores``: four ints summing to 0)."""
    total = 0
    for p in range(4):
        scores[p] = -hand_penalty(popcount(hands[p]), scoring)
        total -= scores[p]
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
    hands = np.zeros(4, dtype=np.int64)
    for i in range(52):
        hands[i // 13] |= 1 << deck[i]
    counts = np.zeros(4, dtype=np.int64)
    first = 0
    for p in range(4):
        counts[p] = hand_combos(hands[p], rules, ws_masks[p], ws_sizes[p], ws_strengths[p], ws_categories[p])
        if hands[p] & 1:
            first = p
    table = np.empty(8, dtype=np.int64)
    new_table(table, first, 1)
    turn = 0
    while table[T_WINNER] < 0:
        player = table[T_PLAYER]
        trick_size = table[T_SIZE]
        k = legal_from(ws_masks[player], ws_sizes[player], ws_strengths[player], counts[player], hands[player],
                       trick_size, table[T_STRENGTH], table[T_OPENING], rules[R_OPENING], legal)
        total = k + 1 if trick_size else k
        if (smart_seats >> player) & 1:
            pick = smart_pick(hands[player], ws_masks[player], ws_sizes[player], ws_categories[player], legal, k,
                              trick_size, table[T_CATEGORY], table[T_MASK], rules)
        elif (greedy_seats >> player) & 1:
            pick = 0
        else:
            pick = min(int(uniforms[turn] * total), total - 1)  # uniforms are below 1; guard against rounding
        chosen = 0
        if pick == k:
            apply_move(table, hands, 0, 0, 0, 0)
        else:
            i = legal[pick]
            chosen = ws_masks[player][i]
            apply_move(table, hands, chosen, ws_sizes[player][i], ws_strengths[player][i], ws_categories[player][i])
        if turn < trace.shape[0]:
            trace[turn, 0], trace[turn, 1], trace[turn, 2] = player, total, chosen
        turn += 1
    final_scores(hands, table[T_WINNER], rules[R_SCORING], scores)
    return table[T_WINNER], turn


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
