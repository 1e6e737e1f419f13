"""The paper's view in compiled code: the 1695-action index and mask, and the 277 numbers (numba).

The kernels of :mod:`big2_env.engine.core.kernels` play the rules; these write what a player
sees, as :mod:`big2_env.observations.paper` documents (tested number by number against the Python
oracle of ``tests/reference/paper_view.py``).
Inputs are trusted: the Python functions here pass them a :class:`~big2_env.engine.game.Game`'s checked state.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from numba import njit

from ..engine import native
from ..engine.core.kernels import SCRATCH_ROWS, WORK_SIZE, comparison_card, legal_rows, popcount
from ..engine.combos import FEATURE_CATEGORY
from .layout import (
    ACTION_SLOTS,
    FEAT_CATEGORY,
    FEAT_NUM_CARDS,
    FEAT_PASS,
    FEAT_RANK,
    FEAT_RANK_SCALED,
    FEAT_SUIT,
    NUM_ACTIONS,
    OBS_SIZE,
    PAD_CARD,
    PASS_ACTION,
)

__all__ = [
    "FEATURE_CATEGORIES",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "PASS_ACTION",
    "action_index",
    "game_observation",
    "write_features",
    "write_observation",
]

def _slot_index_table() -> np.ndarray:
    """Action index of every set of hand slots (a 13-bit mask), -1 where none (the paper's index)."""
    table = np.full(1 << 13, -1, dtype=np.int64)
    for index, chosen in enumerate(ACTION_SLOTS[:PASS_ACTION]):
        table[sum(1 << s for s in chosen)] = index
    return table


SLOT_INDEX = _slot_index_table()
FEATURE_CATEGORIES = np.array(FEATURE_CATEGORY, dtype=np.int64)
"""The feature column (after ``FEAT_CATEGORY``) of each category (:data:`big2_env.engine.combos.FEATURE_CATEGORY`);
passed to :func:`write_features` as an argument (parallel kernels cannot cache global arrays)."""


@njit(cache=True)
def action_index(play: int, hand: int, slot_index) -> int:  # pragma: no cover - compiled
    """The 1695-index of the play with card mask ``play`` (0: pass) from the hand with mask ``hand``
    (``slot_index`` is :data:`SLOT_INDEX`, passed in so that parallel kernels can be cached)."""
    if play == 0:
        return PASS_ACTION
    slots = 0
    m = play
    while m:
        low = m & -m
        slots |= 1 << popcount(hand & (low - 1))
        m ^= low
    return slot_index[slots]


@njit(cache=True)
def write_features(play: int, category: int, feature_categories, out):  # pragma: no cover - compiled
    """The 80 candidate features of one play (card mask ``play``, 0 for pass; ``category`` as the
    engine numbers it) into ``out`` (float32), as :func:`big2_env.observations.paper.entry_features`
    writes them: the cards, pass, the category, the comparison card's rank and suit, the number
    of cards / 5 and the rank / 12. The comparison card is the play's top card, except in a full
    house (the triple's top card) and a five-card four of a kind (the four's top card)."""
    out[:] = 0.0
    if play == 0:
        out[FEAT_PASS] = 1.0
        return
    n = 0
    m = play
    while m:
        low = m & -m
        out[popcount(low - 1)] = 1.0
        n += 1
        m ^= low
    card = comparison_card(play, category)
    rank = card >> 2
    out[FEAT_CATEGORY + feature_categories[category]] = 1.0
    out[FEAT_RANK + rank] = 1.0
    out[FEAT_SUIT + (card & 3)] = 1.0
    out[FEAT_NUM_CARDS] = n / 5.0
    out[FEAT_RANK_SCALED] = rank / 12.0


@njit(cache=True)
def write_observation(hands, played_by, trick, passes, player, out):  # pragma: no cover - compiled
    """The paper's 277 numbers of ``player`` (see :mod:`big2_env.observations.paper`) into ``out`` (float32)."""
    out[:] = 0.0
    k = 0
    hand = hands[player]
    for c in range(52):
        if (hand >> c) & 1:
            out[k] = c
            k += 1
    while k < 13:
        out[k] = PAD_CARD
        k += 1
    played = played_by[0] | played_by[1] | played_by[2] | played_by[3]
    for c in range(52):
        if (trick >> c) & 1:
            out[13 + c] = 1.0
        if (played >> c) & 1:
            out[65 + c] = 1.0
    for j in range(3):
        other = (player + 1 + j) % 4
        out[117 + j] = popcount(hands[other])
        mask = played_by[other]
        for c in range(52):
            if (mask >> c) & 1:
                out[121 + 52 * j + c] = 1.0
    out[120] = passes


DECISION_ROWS = SCRATCH_ROWS + 1
"""Rows of :func:`decision_view`'s scratch array: :func:`~big2_env.engine.core.kernels.legal_rows`'
rows (masks, comparison cards, strengths, categories, work, legal indices), then action indices."""
POSITION_SIZE = 15
"""Length of :func:`decision_view`'s position array: the four hands, the four seats' played cards, the
trick's mask, size and strength, the passes, the player on move, the opening flag and whether the
player on move is locked out of the trick (``pass_locks``: pass is its only play)."""


@njit(cache=True)
def decision_view(position, rules, slot_index, observation, scratch):  # pragma: no cover - compiled
    """One decision of the paper's view: the 277 numbers of the player on move into ``observation``
    (float32) and its legal non-pass plays, ordered by action index, into the rows of ``scratch``
    (:data:`DECISION_ROWS`): masks, comparison cards, strengths, categories and, in the last row,
    the action indices; returns their count (pass, legal exactly when facing a trick, is not listed).
    ``position`` is laid out as :data:`POSITION_SIZE` says."""
    player = position[12]
    write_observation(position[0:4], position[4:8], position[8], position[11], player, observation)
    hand = position[player]
    k = 0 if position[14] else legal_rows(hand, rules, position[9], position[10], position[13] != 0, scratch)
    actions = scratch[SCRATCH_ROWS]
    for j in range(k):
        actions[j] = action_index(scratch[0, j], hand, slot_index)
    for i in range(1, k):  # insertion sort by action index: the plays come nearly sorted already
        key = actions[i]
        mask, card, strength, category = scratch[0, i], scratch[1, i], scratch[2, i], scratch[3, i]
        j = i - 1
        while j >= 0 and actions[j] > key:
            actions[j + 1] = actions[j]
            for row in range(4):
                scratch[row, j + 1] = scratch[row, j]
            j -= 1
        actions[j + 1] = key
        scratch[0, j + 1], scratch[1, j + 1], scratch[2, j + 1], scratch[3, j + 1] = mask, card, strength, category
    return k


def game_observation(game: Any, player: int) -> np.ndarray:
    """The 277 numbers of ``player`` in ``game`` (a :class:`~big2_env.engine.game.Game`), from one
    call of :func:`write_observation`; what :func:`big2_env.observations.paper.observation` returns."""
    out = np.empty(OBS_SIZE, dtype=np.float32)
    write_observation(np.array(game._hand_masks, dtype=np.int64), np.array(game.played_by_mask, dtype=np.int64),
                      game._trick_mask if game.trick else 0, game.passes, player, out)
    return out


_local = threading.local()


def decision_arrays(game: Any) -> tuple[np.ndarray, list[int], list[int]]:
    """The view of the player on move in ``game`` (a :class:`~big2_env.engine.game.Game` not over):
    the 277 numbers, and the card masks and action indices of the legal non-pass plays, both
    ordered by action index (pass, legal exactly when ``game.trick`` is set, is not listed), from
    one call of :func:`decision_view`. What :class:`~big2_env.observations.decision.Decision`
    is built from."""
    buffers = getattr(_local, "buffers", None)
    if buffers is None:
        buffers = _local.buffers = (np.empty(POSITION_SIZE, dtype=np.int64),
                                    np.empty((DECISION_ROWS, WORK_SIZE), dtype=np.int64))
    position, scratch = buffers
    trick = game.trick
    hands, played_by = game._hand_masks, game.played_by_mask
    position[:] = (hands[0], hands[1], hands[2], hands[3], played_by[0], played_by[1], played_by[2], played_by[3],
                   game._trick_mask if trick else 0, len(trick) if trick else 0, game._trick_strength, game.passes,
                   game.current_player, game._opening, game.locked)
    observation = np.empty(OBS_SIZE, dtype=np.float32)
    k = decision_view(position, native.rules_array(game.rules), SLOT_INDEX, observation, scratch)
    return observation, scratch[0, :k].tolist(), scratch[SCRATCH_ROWS, :k].tolist()


def warm_up() -> float:
    """Compile (or load from the disk cache) the view's kernels; returns the seconds it took
    (see :func:`big2_env.engine.core.warm_up`)."""
    import time

    from ..engine.game import Game

    started = time.perf_counter()
    game = Game(seed=0)
    game_observation(game, 0)
    decision_arrays(game)
    return time.perf_counter() - started
