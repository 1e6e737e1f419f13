"""The paper's Smart baseline (Algorithm 2) as a compiled kernel: :func:`smart_pick`.

It makes, move for move, the choice of :func:`big2_env.players.smart.smart_choice` (the Python
reference, where every term and tie rule is documented), on bitmasks: a hand's rank counts
are the popcounts of its 4-bit rank nibbles, its suit counts the popcounts of its suit
masks. Scores are in tenths of a point, as in the reference, so ties and the pass
threshold are exact. Inputs are trusted (see :mod:`big2_env.engine.core.kernels`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...engine.core.kernels import (
    FOUR_OF_A_KIND,
    QUADS,
    R_STRAIGHTS,
    SHAPE_COUNT,
    SHAPES,
    SINGLE,
    STRAIGHT,
    STRAIGHT_FLUSH,
    popcount,
)

SUIT_MASK = sum(1 << (4 * r) for r in range(13))
"""The cards of suit 0 (shift left by the suit for the others)."""
TWOS_MASK = 15 << 48
HIGH_SINGLE = 1 << 40  # a single at or above this card is a K, A or 2

# the weights of players.smart (in tenths where they are added to the score)
_TWO_PENALTY = np.array([10, 5, 0], dtype=np.int64)  # per phase: early, mid, late
_PAIR_TRIPLE_BREAK = np.array([8, 4, 0], dtype=np.int64)
_FIVE_CARD_BREAK = np.array([20, 8, 4], dtype=np.int64)
_POP4 = np.array([bin(i).count("1") for i in range(16)], dtype=np.int64)
EARLY, MID, LATE = 0, 1, 2


@njit(cache=True)
def trick_offset10(phase: int, trick_size: int, trick_category: int, trick_mask: int) -> int:  # pragma: no cover
    """The terms of s(a) that are the same for every play (late phase, a very strong trick, a bomb), in tenths."""
    offset = 0
    if trick_size:
        bomb = trick_category == QUADS or trick_category == FOUR_OF_A_KIND or trick_category == STRAIGHT_FLUSH
        if phase == LATE:
            strong = (trick_category >= STRAIGHT or trick_category == QUADS or (trick_mask & TWOS_MASK) != 0
                      or (trick_category == SINGLE and trick_mask >= HIGH_SINGLE))
            if strong:
                offset -= 10
        if bomb:
            offset += 25
    if phase == LATE:
        offset -= 10
    return 10 * offset


@njit(cache=True)
def smart_pick(hand, masks, sizes, categories, legal, k, trick_size, trick_category, trick_mask, rules):  # pragma: no cover
    """Smart's choice among the ``k`` legal plays ``legal[:k]`` (indices into the hand's combinations
    ``masks`` / ``sizes`` / ``categories``, in the engine's order) and pass (legal when
    ``trick_size > 0``): returns ``j < k`` for play ``legal[j]``, or ``k`` for pass."""
    total = k + 1 if trick_size else k
    if total <= 1:
        return 0
    n_hand, phase, quads, full_house, flush, window_ranks, orphans = hand_shape(hand, rules)
    offset = trick_offset10(phase, trick_size, trick_category, trick_mask)
    best, best_score, best_twos = -1, 0, 0
    for j in range(k):
        i = legal[j]
        score, twos = _play_score(masks[i], sizes[i], hand, n_hand, phase, quads, full_house, flush, window_ranks,
                                  orphans, offset)
        # the first of the lowest scores, in the engine's order (size, then strength), is Greedy's tie rule
        if best < 0 or score < best_score:
            best, best_score, best_twos = j, score, twos
    return smart_decide(best, best_score, best_twos, k, trick_size, trick_category, phase)


@njit(cache=True)
def smart_decide(best, best_score, best_twos, k, trick_size, trick_category, phase):  # pragma: no cover - compiled
    """Smart's move once its best play is known: ``best`` (``j < k``, the first of the lowest
    scores, ``best_score`` with ``best_twos`` 2s), or ``k`` (pass) where its pass rule says so."""
    if trick_size:
        if phase == EARLY and best_twos >= 2 and best_score > 300:
            return k
        if trick_category == QUADS or trick_category == FOUR_OF_A_KIND or trick_category == STRAIGHT_FLUSH:
            return k
    return best


@njit(cache=True)
def smart_scores(hand, masks, sizes, legal, k, trick_size, trick_category, trick_mask, rules, out):  # pragma: no cover
    """Smart's score s(a) (in tenths; lower is better) of each of the ``k`` legal plays ``legal[:k]``,
    arguments as in :func:`smart_pick`, written to ``out[:k]``: what a search ranks its candidates by."""
    n_hand, phase, quads, full_house, flush, window_ranks, orphans = hand_shape(hand, rules)
    offset = trick_offset10(phase, trick_size, trick_category, trick_mask)
    for j in range(k):
        i = legal[j]
        out[j] = _play_score(masks[i], sizes[i], hand, n_hand, phase, quads, full_house, flush, window_ranks, orphans,
                             offset)[0]


@njit(cache=True)
def hand_shape(hand, rules):  # pragma: no cover - compiled
    """What Smart reads off the hand before scoring its plays: its size, the phase, whether it holds
    four of a kind, a full house, a flush, the ranks of its complete straight windows, and its
    low orphans."""
    n_hand = popcount(hand)
    phase = EARLY if n_hand > 10 else (MID if n_hand >= 6 else LATE)
    present = 0
    quads = False
    n_pairs = 0
    triple = False
    orphans = 0
    for r in range(13):
        nr = _POP4[(hand >> (4 * r)) & 15]
        if nr:
            present |= 1 << r
        if nr == 4:
            quads = True
        if nr >= 2:
            n_pairs += 1
        if nr >= 3:
            triple = True
        if r < 5 and nr == 1:
            orphans += 1
    full_house = triple and n_pairs >= 2
    flush = False
    for s in range(4):
        if popcount(hand & (SUIT_MASK << s)) >= 5:
            flush = True
    window_ranks = 0  # ranks of the straight windows the hand holds complete
    variant = rules[R_STRAIGHTS]
    for w in range(SHAPE_COUNT[variant]):
        shape = SHAPES[variant, w]
        if present & shape == shape:
            window_ranks |= shape
    return n_hand, phase, quads, full_house, flush, window_ranks, orphans


@njit(cache=True)
def _play_score(m, n, hand, n_hand, phase, quads, full_house, flush, window_ranks, orphans, offset):  # pragma: no cover
    """Smart's score (in tenths) of the play ``m`` of ``n`` cards, and the number of 2s in it."""
    if n == n_hand:
        return -10000, 0
    rank_sum, twos, orph, five_break, pair_break = play_terms(m, n, hand, quads, full_house, flush, window_ranks, orphans)
    return terms_score(rank_sum, twos, orph, five_break, pair_break, n, phase, offset), twos


@njit(cache=True)
def terms_score(rank_sum, twos, orph, five_break, pair_break, n, phase, offset):  # pragma: no cover - compiled
    """Smart's score (in tenths) of a play of ``n`` cards, from its :func:`play_terms` (not the
    whole hand: that one scores -10000) and the :func:`trick_offset10` of the table."""
    penalty = 0
    if five_break:
        penalty = _FIVE_CARD_BREAK[phase]
    elif pair_break:
        penalty = _PAIR_TRIPLE_BREAK[phase]
    return 8 * rank_sum + 10 * (_TWO_PENALTY[phase] * twos + penalty + 6 * orph - 4 * n) + offset


@njit(cache=True)
def play_terms(m, n, hand, quads, full_house, flush, window_ranks, orphans):  # pragma: no cover - compiled
    """The parts of Smart's score of the play ``m`` of ``n`` cards from ``hand`` (with :func:`hand_shape`'s
    reading of the hand): the sum of its cards' ranks, its 2s, the low orphans left after it,
    whether it breaks a five-card combination, and whether it breaks a pair or triple."""
    rank_sum = 0
    twos = 0
    orph = orphans
    five_break = False
    pair_break = False
    rest = m
    while rest:
        low = rest & -rest
        r = popcount(low - 1) >> 2
        rest &= ~(15 << (4 * r))
        kr = _POP4[(m >> (4 * r)) & 15]
        nr = _POP4[(hand >> (4 * r)) & 15]
        rank_sum += r * kr
        if r == 12:
            twos += kr
        if r < 5:
            orph += (1 if nr - kr == 1 else 0) - (1 if nr == 1 else 0)
        if n < 5:
            left = nr - kr
            if quads and nr == 4 and kr < 4:
                five_break = True
            if full_house and 0 < left < min(nr, 3):
                five_break = True
            if left == 0 and (window_ranks >> r) & 1:
                five_break = True
            if (n == 1 and left >= 2) or (n <= 2 and left >= 3):
                pair_break = True
    if n < 5 and flush and not five_break:
        for s in range(4):
            suit = SUIT_MASK << s
            held = popcount(hand & suit)
            played = popcount(m & suit)
            if played and held >= 5 and held - played < 5:
                five_break = True
    return rank_sum, twos, orph, five_break, pair_break
