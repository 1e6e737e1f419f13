"""Whole games of random, Greedy and Smart seats in the compiled core (numba): what
:func:`big2_env.players.kernels.play_random` and :func:`~big2_env.players.kernels.random_game_trace`
play. Each move goes through the engine's :func:`~big2_env.engine.core.games.apply_move` and the
scores through its :func:`~big2_env.engine.core.games.final_scores`. Inputs are trusted (see
:mod:`big2_env.engine.core.kernels`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...engine.core.games import (
    GAME_SIZE,
    HANDS_AT,
    TABLE_AT,
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
from ...engine.core.kernels import CAPACITY, R_OPENING, R_SCORING, WORK_SIZE, combos_into, legal_from
from .smart import smart_pick


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
