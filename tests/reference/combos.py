"""The reference engine's combinations (pure Python): classification, comparison and enumeration from a hand.

The pure-Python code the package's engine ran on before the compiled core; the core
(:mod:`big2_env.engine.core.kernels`) is tested against it. Kept as it was, apart from imports.

Every legal combination gets a :class:`Combo` with

* ``category``: one of :data:`CATEGORY_NAMES` (single, pair, triple, two pair,
  four-card quads, straight, flush, full house, four of a kind, straight flush);
* ``strength``: an int such that, for two combinations with the same number of
  cards, the first beats the second exactly when its strength is greater;
* ``comparison_card``: the card that decides comparisons (used by the encodings).

Strength layout (all ints): singles, pairs and triples use the highest card id;
four-card plays use ``category_offset + key`` (two pair below quads); five-card
hands use ``1000 * five_card_rank + key`` with five-card ranks straight < flush <
full house < four of a kind < straight flush, so a higher category always wins.

Enumeration (:func:`enumerate_combos`) never loops over subsets of the whole hand:
pairs and triples come from per-rank lookup tables indexed by the rank's 4-bit suit
pattern, straights from the rank windows, flushes from each suit with five or more
cards, full houses from triple x pair, quads from a full rank plus a kicker.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations, product
from typing import Iterable, NamedTuple

from big2_env.engine.cards import NUM_RANKS, check_cards
from big2_env.engine.rules import Rules

# Categories, in the combination ordering used by Greedy (type first, then key).
SINGLE, PAIR, TRIPLE, TWO_PAIR, QUADS, STRAIGHT, FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH = range(10)
CATEGORY_NAMES = (
    "single",
    "pair",
    "triple",
    "two pair",
    "four of a kind (4 cards)",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)
# The 8 one-hot categories of the candidate features (two pair -> pair, 4-card quads -> four of a kind).
FEATURE_CATEGORY = (0, 1, 2, 1, 6, 3, 4, 5, 6, 7)
# Offset of each five-card category inside the five-card strength scale.
_FIVE_RANK = {STRAIGHT: 0, FLUSH: 1, FULL_HOUSE: 2, FOUR_OF_A_KIND: 3, STRAIGHT_FLUSH: 4}
_FIVE_SCALE = 1000
_QUADS4_OFFSET = 100


class Combo(NamedTuple):
    """Classification of a legal combination (see the module docstring)."""

    category: int
    strength: int
    comparison_card: int

    @property
    def name(self) -> str:
        return CATEGORY_NAMES[self.category]


# An entry of an enumerated hand: (strength, play, mask, category, comparison_card).
Entry = tuple[int, tuple[int, ...], int, int, int]


@lru_cache(maxsize=None)
def straight_shapes(straights: str) -> tuple[tuple[int, ...], ...]:
    """Rank windows that make a straight, lowest shape first (index = shape order)."""
    shapes = [tuple(range(low, low + 5)) for low in range(8)]  # 34567 .. TJQKA (8 shapes; no 2)
    if straights == "to_two":
        shapes.append((8, 9, 10, 11, 12))  # J Q K A 2
    elif straights == "wrap":
        shapes.append((12, 0, 1, 2, 3))  # 2 3 4 5 6
        shapes.append((11, 12, 0, 1, 2))  # A 2 3 4 5
    return tuple(shapes)


@lru_cache(maxsize=None)
def _shape_by_rank_mask(straights: str) -> dict[int, int]:
    return {sum(1 << r for r in shape): i for i, shape in enumerate(straight_shapes(straights))}


def _straight_strength(shape: int, top: int, flush: bool) -> int:
    category = STRAIGHT_FLUSH if flush else STRAIGHT
    return _FIVE_RANK[category] * _FIVE_SCALE + shape * 52 + top


def _flush_strength(top: int, rules: Rules) -> int:
    key = (top & 3) * 52 + top if rules.flush_order == "suit_first" else top
    return _FIVE_RANK[FLUSH] * _FIVE_SCALE + key


def classify(cards: Iterable[int], rules: Rules = Rules()) -> Combo | None:
    """Classify a set of cards under ``rules``; ``None`` if it is not a legal combination.

    ``cards`` is a collection of card ids (checked by :func:`big2_env.engine.cards.check_cards`:
    ``ValueError`` for anything that is not an int or numpy integer in 0..51); a
    repeated card or more than five cards make no combination (``None``).

    >>> from big2_env.engine.cards import parse_cards
    >>> classify(parse_cards("3D 3S")).name
    'pair'
    >>> classify(parse_cards("3D 4D")) is None
    True
    """
    play = sorted(check_cards(cards))
    rules = Rules.coerce(rules)
    n = len(play)
    if n != len(set(play)) or n == 0 or n > 5:
        return None
    top = play[-1]
    ranks = [c >> 2 for c in play]
    if n == 1:
        return Combo(SINGLE, top, top)
    if n <= 3:
        if ranks[0] == ranks[-1] and (n == 2 or rules.lone_triples):
            return Combo(PAIR if n == 2 else TRIPLE, top, top)
        return None
    if n == 4:
        if not rules.four_card_plays:
            return None
        if ranks[0] == ranks[3]:
            return Combo(QUADS, _QUADS4_OFFSET + ranks[0], top)
        if ranks[0] == ranks[1] and ranks[2] == ranks[3]:
            return Combo(TWO_PAIR, top, top)
        return None
    counts = sorted((ranks.count(r) for r in set(ranks)), reverse=True)
    if counts == [1, 1, 1, 1, 1]:
        is_flush = len({c & 3 for c in play}) == 1
        shape = _shape_by_rank_mask(rules.straights).get(sum(1 << r for r in ranks))
        if shape is not None:
            return Combo(STRAIGHT_FLUSH if is_flush else STRAIGHT, _straight_strength(shape, top, is_flush), top)
        if is_flush:
            return Combo(FLUSH, _flush_strength(top, rules), top)
        return None
    if counts == [3, 2]:
        triple_rank = ranks[2]  # the middle card of a sorted full house is in the triple
        triple_top = max(c for c in play if c >> 2 == triple_rank)
        return Combo(FULL_HOUSE, _FIVE_RANK[FULL_HOUSE] * _FIVE_SCALE + triple_rank, triple_top)
    if counts == [4, 1] and rules.five_card_quads:
        quad_rank = ranks[2]
        return Combo(FOUR_OF_A_KIND, _FIVE_RANK[FOUR_OF_A_KIND] * _FIVE_SCALE + quad_rank, quad_rank * 4 + 3)
    return None


def beats(play: Iterable[int], trick: Iterable[int], rules: Rules = Rules()) -> bool:
    """True when ``play`` is a legal combination that beats ``trick`` (same size, higher strength).

    Both are collections of card ids, checked as in :func:`classify` (``ValueError`` for a bad card id).
    """
    play_t, trick_t = check_cards(play, "play"), check_cards(trick, "trick")
    mine, theirs = classify(play_t, rules), classify(trick_t, rules)
    if mine is None or theirs is None or len(play_t) != len(trick_t):
        return False
    return mine.strength > theirs.strength


def _entry(play: tuple[int, ...], category: int, strength: int, comparison_card: int) -> Entry:
    mask = 0
    for c in play:
        mask |= 1 << c
    return (strength, play, mask, category, comparison_card)


def _build_rank_tables() -> tuple[list[list[list[Entry]]], list[list[list[Entry]]]]:
    """Per rank and 4-bit suit pattern: the pair entries and the triple entries."""
    pairs: list[list[list[Entry]]] = []
    triples: list[list[list[Entry]]] = []
    for rank in range(NUM_RANKS):
        pairs_r, triples_r = [], []
        for pattern in range(16):
            cards = [rank * 4 + s for s in range(4) if pattern >> s & 1]
            pairs_r.append([_entry(p, PAIR, p[-1], p[-1]) for p in combinations(cards, 2)])
            triples_r.append([_entry(t, TRIPLE, t[-1], t[-1]) for t in combinations(cards, 3)])
        pairs.append(pairs_r)
        triples.append(triples_r)
    return pairs, triples


_PAIR_TABLE, _TRIPLE_TABLE = _build_rank_tables()


def _sort_key(entry: Entry) -> tuple[int, tuple[int, ...]]:
    return entry[0], entry[1]


def enumerate_combos(hand_mask: int, rules: Rules = Rules()) -> list[list[Entry]]:
    """Every legal combination in the hand, grouped by size.

    Returns a list indexed by number of cards (index 0 is empty): each item is a
    list of :data:`Entry` tuples ``(strength, play, mask, category, comparison_card)``
    sorted by ``(strength, play)``.
    """
    by_rank = [[c for c in range(r * 4, r * 4 + 4) if hand_mask >> c & 1] for r in range(NUM_RANKS)]
    patterns = [(hand_mask >> (4 * r)) & 15 for r in range(NUM_RANKS)]
    hand = [c for cs in by_rank for c in cs]

    singles: list[Entry] = [(c, (c,), 1 << c, SINGLE, c) for c in hand]
    pairs: list[Entry] = []
    triples: list[Entry] = []
    for r in range(NUM_RANKS):
        pat = patterns[r]
        if pat & (pat - 1):  # at least two cards of this rank
            pairs.extend(_PAIR_TABLE[r][pat])
            triples.extend(_TRIPLE_TABLE[r][pat])
    full_ranks = [r for r in range(NUM_RANKS) if patterns[r] == 15]

    fours: list[Entry] = []
    if rules.four_card_plays:
        for a, b in combinations(pairs, 2):
            if a[1][0] >> 2 != b[1][0] >> 2:
                play = tuple(sorted(a[1] + b[1]))
                fours.append((play[-1], play, a[2] | b[2], TWO_PAIR, play[-1]))
        for r in full_ranks:
            play = tuple(by_rank[r])
            fours.append(_entry(play, QUADS, _QUADS4_OFFSET + r, play[-1]))

    fives: list[Entry] = []
    shape_of = _shape_by_rank_mask(rules.straights)
    for shape, ranks in enumerate(straight_shapes(rules.straights)):
        if all(patterns[r] for r in ranks):
            for chosen in product(*(by_rank[r] for r in ranks)):
                play = tuple(sorted(chosen))
                is_flush = len({c & 3 for c in play}) == 1
                category = STRAIGHT_FLUSH if is_flush else STRAIGHT
                fives.append(_entry(play, category, _straight_strength(shape, play[-1], is_flush), play[-1]))
    for suit in range(4):
        suited = [c for c in hand if c & 3 == suit]
        if len(suited) >= 5:
            for play in combinations(suited, 5):
                if sum(1 << (c >> 2) for c in play) in shape_of:
                    continue  # a straight flush, already listed above
                fives.append(_entry(play, FLUSH, _flush_strength(play[-1], rules), play[-1]))
    for t in triples:
        t_rank = t[1][0] >> 2
        for p in pairs:
            if p[1][0] >> 2 != t_rank:
                play = tuple(sorted(t[1] + p[1]))
                strength = _FIVE_RANK[FULL_HOUSE] * _FIVE_SCALE + t_rank
                fives.append((strength, play, t[2] | p[2], FULL_HOUSE, t[1][-1]))
    if rules.five_card_quads:
        for r in full_ranks:
            quad = tuple(by_rank[r])
            strength = _FIVE_RANK[FOUR_OF_A_KIND] * _FIVE_SCALE + r
            for kicker in hand:
                if kicker >> 2 != r:
                    fives.append(_entry(tuple(sorted(quad + (kicker,))), FOUR_OF_A_KIND, strength, quad[-1]))

    groups: list[list[Entry]] = [[], singles, pairs, triples if rules.lone_triples else [], fours, fives]
    for group in groups[2:]:
        group.sort(key=_sort_key)
    return groups
