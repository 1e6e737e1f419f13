"""The compiled kernels: combinations, legal plays and the scores of hands left, on int bitmasks (numba).

Everything here takes and returns numbers and numpy arrays only: no Python objects in the
loops. Inputs are trusted: the public functions of :mod:`big2_env.engine.core` check dtypes,
shapes and ranges before calling in (a kernel that indexed out of bounds would corrupt memory
silently). With ``NUMBA_DISABLE_JIT=1`` the same functions run as plain Python.

Conventions, the same as the Python engine's (:mod:`big2_env.engine.combos`):

* a card is ``rank * 4 + suit`` (0..51), a hand or a play an int64 bitmask of cards;
* categories are numbered single 0 .. straight flush 9, and ``strength`` orders plays of one
  size exactly as the Python engine's :attr:`~big2_env.engine.combos.Combo.strength`;
* the rules are an int64 array laid out by :data:`RULE_FIELDS` (see :func:`big2_env.engine.core.rules_array`).

A hand's combinations are listed by size, then strength, then the sorted card tuple, which is
the Python engine's order, so "the k-th legal play" names the same play in both.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..rules import STRAIGHTS, straight_shapes

# rules array layout
R_STRAIGHTS, R_FLUSH, R_FOUR, R_FIVE_QUADS, R_SCORING, R_OPENING, R_LONE_TRIPLES, R_PASS_LOCKS = range(8)
RULE_FIELDS = ("straights", "flush_order", "four_card_plays", "five_card_quads", "scoring", "opening", "lone_triples",
               "pass_locks")
"""The fields of a rules array, in order; each holds the index of the value in its tuple of
choices (``big2_env.engine.rules.STRAIGHTS`` ...) or 0/1 for the booleans."""

SINGLE, PAIR, TRIPLE, TWO_PAIR, QUADS, STRAIGHT, FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH = range(10)
FIVE_SCALE = 1000
QUADS4_OFFSET = 100

CAPACITY = 4096
"""Room for one hand's combinations (a 13-card hand has at most about 1,300: 13 cards of one suit)."""

MAX_TURNS = 256
"""More decisions than any game can take (at most 52 plays, each followed by at most 3 passes)."""

_B1, _B2, _B3, _B4 = 52, 52 * 52, 52 * 52 * 52, 52 * 52 * 52 * 52
_LEX = 52 * _B4  # 52 ** 5: the lexicographic code of a sorted card tuple is below this
_SIZE_SHIFT = 42  # order key: size << 42 | strength * 52**5 + lexicographic code


def straight_shape_masks(straights: int) -> np.ndarray:
    """The rank bitmasks of the straights, lowest first, for ``straights`` 0 (no_two), 1 (wrap), 2 (to_two):
    :func:`big2_env.engine.rules.straight_shapes`' windows."""
    return np.array([sum(1 << r for r in shape) for shape in straight_shapes(STRAIGHTS[straights])], dtype=np.int64)


SHAPES = np.zeros((3, 10), dtype=np.int64)
SHAPE_COUNT = np.zeros(3, dtype=np.int64)
for _v in range(3):
    _s = straight_shape_masks(_v)
    SHAPES[_v, : len(_s)] = _s
    SHAPE_COUNT[_v] = len(_s)


@njit(cache=True)
def _sort5(a: int, b: int, c: int, d: int, e: int):  # pragma: no cover - compiled
    # a sorting network for five values (9 compare-exchanges)
    if a > b:
        a, b = b, a
    if d > e:
        d, e = e, d
    if c > e:
        c, e = e, c
    if c > d:
        c, d = d, c
    if a > d:
        a, d = d, a
    if a > c:
        a, c = c, a
    if b > e:
        b, e = e, b
    if b > d:
        b, d = d, b
    if b > c:
        b, c = c, b
    return a, b, c, d, e


@njit(cache=True)
def _add(masks, sizes, strengths, categories, keys, n, mask, size, strength, category, lex):  # pragma: no cover
    masks[n] = mask
    sizes[n] = size
    strengths[n] = strength
    categories[n] = category
    keys[n] = (size << _SIZE_SHIFT) | (strength * _LEX + lex)
    return n + 1


@njit(cache=True)
def _five(masks, sizes, strengths, categories, keys, n, a, b, c, d, e, category, strength):  # pragma: no cover
    a, b, c, d, e = _sort5(a, b, c, d, e)
    mask = (1 << a) | (1 << b) | (1 << c) | (1 << d) | (1 << e)
    lex = a * _B4 + b * _B3 + c * _B2 + d * _B1 + e
    return _add(masks, sizes, strengths, categories, keys, n, mask, 5, strength, category, lex)


@njit(cache=True)
def _flush_strength(top: int, suit_first: int) -> int:  # pragma: no cover
    key = (top & 3) * 52 + top if suit_first else top
    return FIVE_SCALE + key


WORK_SIZE = CAPACITY + 528
"""Length of the scratch array :func:`combos_into` works in (its sort keys, then the per-rank
cards, the pairs and the triples of the hand)."""


@njit(cache=True)
def hand_combos(hand: int, rules, masks, sizes, strengths, categories, only_size=0):  # pragma: no cover - compiled
    """Every legal combination of ``hand`` under ``rules`` (of ``only_size`` cards, or all sizes when 0),
    written sorted into the four arrays; returns their count. (:func:`combos_into` with a fresh scratch array.)"""
    return combos_into(hand, rules, masks, sizes, strengths, categories, only_size, np.empty(WORK_SIZE, dtype=np.int64))


@njit(cache=True)
def combos_into(hand: int, rules, masks, sizes, strengths, categories, only_size, work):  # pragma: no cover - compiled
    """:func:`hand_combos` working in the scratch array ``work`` (:data:`WORK_SIZE` int64): it allocates
    nothing, which matters in the hot loops (and in parallel ones, where allocations contend)."""
    keys = work[:CAPACITY]
    n = 0
    at = CAPACITY
    cards = work[at : at + 52].reshape(13, 4)  # cards[r, :count[r]]: the hand's cards of rank r, ascending
    count = work[at + 52 : at + 65]
    count[:] = 0
    pair_lo = work[at + 65 : at + 143]
    pair_hi = work[at + 143 : at + 221]
    pair_rank = work[at + 221 : at + 299]
    tri = work[at + 299 : at + 455].reshape(52, 3)
    tri_rank = work[at + 455 : at + 507]
    rs = work[at + 507 : at + 512]
    suited = work[at + 512 : at + 525]
    for c in range(52):
        if (hand >> c) & 1:
            r = c >> 2
            cards[r, count[r]] = c
            count[r] += 1
            if only_size == 0 or only_size == 1:
                n = _add(masks, sizes, strengths, categories, keys, n, 1 << c, 1, c, SINGLE, c * _B4)
    # pairs and triples, rank by rank; remembered for two pair and full houses
    n_pairs = 0
    n_tri = 0
    for r in range(13):
        k = count[r]
        for i in range(k):
            for j in range(i + 1, k):
                a, b = cards[r, i], cards[r, j]
                pair_lo[n_pairs], pair_hi[n_pairs], pair_rank[n_pairs] = a, b, r
                n_pairs += 1
                if only_size == 0 or only_size == 2:
                    n = _add(masks, sizes, strengths, categories, keys, n, (1 << a) | (1 << b), 2, b, PAIR, a * _B4 + b * _B3)
                for m in range(j + 1, k):
                    c = cards[r, m]
                    tri[n_tri, 0], tri[n_tri, 1], tri[n_tri, 2], tri_rank[n_tri] = a, b, c, r
                    n_tri += 1
                    if rules[R_LONE_TRIPLES] and (only_size == 0 or only_size == 3):
                        n = _add(masks, sizes, strengths, categories, keys, n, (1 << a) | (1 << b) | (1 << c), 3, c,
                                 TRIPLE, a * _B4 + b * _B3 + c * _B2)
    if rules[R_FOUR] and (only_size == 0 or only_size == 4):
        for i in range(n_pairs):
            for j in range(i + 1, n_pairs):
                if pair_rank[i] != pair_rank[j]:
                    lo, hi = (i, j) if pair_rank[i] < pair_rank[j] else (j, i)
                    a, b, c, d = pair_lo[lo], pair_hi[lo], pair_lo[hi], pair_hi[hi]
                    mask = (1 << a) | (1 << b) | (1 << c) | (1 << d)
                    n = _add(masks, sizes, strengths, categories, keys, n, mask, 4, d, TWO_PAIR,
                             a * _B4 + b * _B3 + c * _B2 + d * _B1)
        for r in range(13):
            if count[r] == 4:
                a = r * 4
                n = _add(masks, sizes, strengths, categories, keys, n, 15 << a, 4, QUADS4_OFFSET + r, QUADS,
                         a * _B4 + (a + 1) * _B3 + (a + 2) * _B2 + (a + 3) * _B1)
    if only_size != 0 and only_size != 5:
        return _sorted(masks, sizes, strengths, categories, keys, n)
    # straights and straight flushes: one card of each rank of a window
    variant = rules[R_STRAIGHTS]
    for shape in range(SHAPE_COUNT[variant]):
        ranks_mask = SHAPES[variant, shape]
        t = 0
        ok = True
        for r in range(13):
            if (ranks_mask >> r) & 1:
                rs[t] = r
                t += 1
                if count[r] == 0:
                    ok = False
        if not ok:
            continue
        for i0 in range(count[rs[0]]):
            for i1 in range(count[rs[1]]):
                for i2 in range(count[rs[2]]):
                    for i3 in range(count[rs[3]]):
                        for i4 in range(count[rs[4]]):
                            a, b, c = cards[rs[0], i0], cards[rs[1], i1], cards[rs[2], i2]
                            d, e = cards[rs[3], i3], cards[rs[4], i4]
                            suit = a & 3
                            flush = (b & 3) == suit and (c & 3) == suit and (d & 3) == suit and (e & 3) == suit
                            top = max(max(max(a, b), max(c, d)), e)
                            if flush:
                                category, rank5 = STRAIGHT_FLUSH, 4
                            else:
                                category, rank5 = STRAIGHT, 0
                            n = _five(masks, sizes, strengths, categories, keys, n, a, b, c, d, e, category,
                                      rank5 * FIVE_SCALE + shape * 52 + top)
    # flushes that are not straight flushes
    for suit in range(4):
        m = 0
        for r in range(13):
            c = r * 4 + suit
            if (hand >> c) & 1:
                suited[m] = c
                m += 1
        if m < 5:
            continue
        for i0 in range(m):
            for i1 in range(i0 + 1, m):
                for i2 in range(i1 + 1, m):
                    for i3 in range(i2 + 1, m):
                        for i4 in range(i3 + 1, m):
                            a, b, c, d, e = suited[i0], suited[i1], suited[i2], suited[i3], suited[i4]
                            ranks_mask = (1 << (a >> 2)) | (1 << (b >> 2)) | (1 << (c >> 2)) | (1 << (d >> 2)) | (1 << (e >> 2))
                            is_straight = False
                            for shape in range(SHAPE_COUNT[variant]):
                                if SHAPES[variant, shape] == ranks_mask:
                                    is_straight = True
                            if is_straight:
                                continue
                            n = _five(masks, sizes, strengths, categories, keys, n, a, b, c, d, e, FLUSH,
                                      _flush_strength(e, rules[R_FLUSH]))
    # full houses: a triple and a pair of another rank
    for i in range(n_tri):
        for j in range(n_pairs):
            if pair_rank[j] != tri_rank[i]:
                n = _five(masks, sizes, strengths, categories, keys, n, tri[i, 0], tri[i, 1], tri[i, 2], pair_lo[j],
                          pair_hi[j], FULL_HOUSE, 2 * FIVE_SCALE + tri_rank[i])
    # four of a kind and a kicker
    if rules[R_FIVE_QUADS]:
        for r in range(13):
            if count[r] == 4:
                a = r * 4
                for k in range(52):
                    if (hand >> k) & 1 and (k >> 2) != r:
                        n = _five(masks, sizes, strengths, categories, keys, n, a, a + 1, a + 2, a + 3, k, FOUR_OF_A_KIND,
                                  3 * FIVE_SCALE + r)
    return _sorted(masks, sizes, strengths, categories, keys, n)


@njit(cache=True)
def _sorted(masks, sizes, strengths, categories, keys, n):  # pragma: no cover - compiled
    """Sort the first ``n`` rows of the four arrays by ``keys``: insertion sort for the usual few
    dozen (no allocation), else one argsort, permuting through ``keys`` once it is read."""
    if n <= 64:
        for i in range(1, n):
            key, mask, size, strength, category = keys[i], masks[i], sizes[i], strengths[i], categories[i]
            j = i - 1
            while j >= 0 and keys[j] > key:
                keys[j + 1], masks[j + 1], sizes[j + 1] = keys[j], masks[j], sizes[j]
                strengths[j + 1], categories[j + 1] = strengths[j], categories[j]
                j -= 1
            keys[j + 1], masks[j + 1], sizes[j + 1], strengths[j + 1], categories[j + 1] = key, mask, size, strength, category
        return n
    order = np.argsort(keys[:n])
    _permute(masks, keys, order, n)
    _permute(sizes, keys, order, n)
    _permute(strengths, keys, order, n)
    _permute(categories, keys, order, n)
    return n


@njit(cache=True)
def _permute(column, scratch, order, n):  # pragma: no cover - compiled
    scratch[:n] = column[:n]
    for i in range(n):
        column[i] = scratch[order[i]]


@njit(cache=True)
def legal_from(masks, sizes, strengths, n, hand, trick_size, trick_strength, opening, opening_rule, locked,
               out):  # pragma: no cover - compiled
    """The indices (into a hand's sorted combinations, those still inside ``hand``) of the legal
    non-pass plays, written to ``out``; returns their count. Pass is not listed: it is legal
    exactly when ``trick_size > 0``. ``locked``: the mover passed earlier in this trick under the
    ``pass_locks`` rule (:func:`big2_env.engine.core.games.locked`), so no play is legal."""
    if locked:
        return 0
    k = 0
    for i in range(n):
        mask = masks[i]
        if mask & hand != mask:
            continue
        if trick_size:
            if sizes[i] != trick_size or strengths[i] <= trick_strength:
                continue
        elif opening:
            if opening_rule == 0 and not mask & 1:
                continue
            if opening_rule == 2 and mask != 1:
                continue
        out[k] = i
        k += 1
    return k


@njit(cache=True)
def hand_penalty(cards_left: int, scoring: int) -> int:  # pragma: no cover
    if scoring == 1:
        if cards_left == 13:
            return 3 * cards_left
        if cards_left >= 10:
            return 2 * cards_left
    return cards_left


@njit(cache=True)
def popcount(x: int) -> int:  # pragma: no cover - compiled
    """Set bits of a non-negative int below 2**62 (additions only: the same with and without the JIT)."""
    x = x - ((x >> 1) & 0x1555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x = x + (x >> 8)
    x = x + (x >> 16)
    x = x + (x >> 32)
    return x & 0x7F


@njit(cache=True)
def comparison_card(play: int, category: int) -> int:  # pragma: no cover - compiled
    """The card that decides comparisons (the encodings' comparison card) of a legal play: its top
    card, except in a full house (the triple's top card) and a five-card four of a kind (the four's)."""
    card = 63 - leading_zeros(play)
    if category == FULL_HOUSE or category == FOUR_OF_A_KIND:
        for r in range(13):  # the rank held three (four) times
            if popcount((play >> (4 * r)) & 15) >= 3:
                card = 4 * r + 3
                while not (play >> card) & 1:
                    card -= 1
    return card


@njit(cache=True)
def leading_zeros(x):  # pragma: no cover - compiled
    """Leading zero bits of a positive int64 (a binary search over the word)."""
    n = 0
    if x >> 32 == 0:
        n += 32
        x <<= 32
    if x >> 48 == 0:
        n += 16
        x <<= 16
    if x >> 56 == 0:
        n += 8
        x <<= 8
    if x >> 60 == 0:
        n += 4
        x <<= 4
    if x >> 62 == 0:
        n += 2
        x <<= 2
    if x >> 63 == 0:
        n += 1
    return n


SCRATCH_ROWS = 6
"""Rows of the scratch array of :func:`legal_rows` and :func:`classify_mask` (each :data:`WORK_SIZE`
long): play masks, comparison cards, strengths, categories, the work array and legal indices. One
2-D array rather than six keeps the calls from Python cheap (numba types every argument)."""


@njit(cache=True)
def legal_rows(hand: int, rules, trick_size: int, trick_strength: int, opening: bool, scratch):  # pragma: no cover
    """The legal non-pass plays of ``hand`` facing a trick of ``trick_size`` cards and ``trick_strength``
    (size 0: leading; ``opening``: the game's first play, under the rules' opening rule), in the
    engine's order, written to the front of the rows of ``scratch`` (:data:`SCRATCH_ROWS`): their
    masks, comparison cards, strengths and categories; returns their count. Pass is not listed
    (it is legal exactly when ``trick_size > 0``)."""
    masks, cards, strengths, categories, work, legal = scratch[0], scratch[1], scratch[2], scratch[3], scratch[4], scratch[5]
    n = combos_into(hand, rules, masks, cards, strengths, categories, trick_size, work)
    k = legal_from(masks, cards, strengths, n, hand, trick_size, trick_strength, opening, rules[R_OPENING], False, legal)
    for j in range(k):
        i = legal[j]
        masks[j], strengths[j], categories[j] = masks[i], strengths[i], categories[i]
        cards[j] = comparison_card(masks[j], categories[j])
    return k


@njit(cache=True)
def classify_play(play: int, rules, masks, sizes, strengths, categories, work):  # pragma: no cover - compiled
    """``(size, strength, category)`` of ``play`` (a card mask of 1 to 5 cards) when it is one legal
    combination under ``rules``, else ``(size, -1, -1)``: plays of one to three cards directly (one
    rank, the top card the strength), larger ones through :func:`combos_into` (``masks``, ``sizes``,
    ``strengths``, ``categories`` and ``work`` are its scratch). What a step of an action index plays."""
    size = popcount(play)
    if size <= 3:
        top = 63 - leading_zeros(play)
        if (top >> 2) != (popcount((play & -play) - 1) >> 2) or (size == 3 and not rules[R_LONE_TRIPLES]):
            return size, -1, -1
        return size, top, size - 1  # SINGLE, PAIR, TRIPLE are 0, 1, 2
    if combos_into(play, rules, masks, sizes, strengths, categories, size, work) != 1:
        return size, -1, -1
    return size, strengths[0], categories[0]


@njit(cache=True)
def classify_mask(play: int, rules, scratch):  # pragma: no cover - compiled
    """Whether ``play`` (a card mask of 1 to 5 cards) is a legal combination under ``rules``: 1, with
    its mask, comparison card, strength and category in column 0 of the rows of ``scratch`` (as
    :func:`legal_rows` writes them), or 0."""
    masks, cards, strengths, categories, work = scratch[0], scratch[1], scratch[2], scratch[3], scratch[4]
    n = combos_into(play, rules, masks, cards, strengths, categories, popcount(play), work)
    for i in range(n):
        if masks[i] == play:
            masks[0], strengths[0], categories[0] = masks[i], strengths[i], categories[i]
            cards[0] = comparison_card(play, categories[i])
            return 1
    return 0
