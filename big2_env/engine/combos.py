"""Combinations: classification, comparison and fast enumeration from a hand.

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

Classification and enumeration are answered by the compiled core
(:func:`big2_env.engine.core.kernels.combos_into`, through :mod:`big2_env.engine.native`): the
rules live in one place. A pure-Python implementation in ``tests/reference`` is the
reference the core is tested against.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable, NamedTuple

from . import native
from .cards import check_cards
from .rules import Rules, straight_shapes

__all__ = ["CATEGORY_NAMES", "Combo", "Entry", "FEATURE_CATEGORY", "beats", "classify", "enumerate_combos", "straight_shapes"]

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


class Combo(NamedTuple):
    """Classification of a legal combination (see the module docstring)."""

    category: int
    strength: int
    comparison_card: int

    @property
    def name(self) -> str:
        return CATEGORY_NAMES[self.category]


Entry = native.Entry
"""An entry of an enumerated hand: ``(strength, play, mask, category, comparison_card)``."""


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
    play = check_cards(cards)
    rules = Rules.coerce(rules)
    mask = 0
    for c in play:
        mask |= 1 << c
    if not 0 < len(play) <= 5 or mask.bit_count() != len(play):
        return None
    return _classify(mask, rules)


@lru_cache(maxsize=1 << 16)
def _classify(mask: int, rules: Rules) -> Combo | None:
    found = native.classify_mask(mask, rules)
    return None if found is None else Combo(*found)


def beats(play: Iterable[int], trick: Iterable[int], rules: Rules = Rules()) -> bool:
    """True when ``play`` is a legal combination that beats ``trick`` (same size, higher strength).

    Both are collections of card ids, checked as in :func:`classify` (``ValueError`` for a bad card id).
    """
    play_t, trick_t = check_cards(play, "play"), check_cards(trick, "trick")
    mine, theirs = classify(play_t, rules), classify(trick_t, rules)
    if mine is None or theirs is None or len(play_t) != len(trick_t):
        return False
    return mine.strength > theirs.strength


def enumerate_combos(hand_mask: int, rules: Rules = Rules()) -> list[list[Entry]]:
    """Every legal combination in the hand (a card bitmask), grouped by size.

    Returns a list indexed by number of cards (index 0 is empty): each item is a
    list of :data:`Entry` tuples ``(strength, play, mask, category, comparison_card)``
    sorted by ``(strength, play)``.

    >>> from big2_env.engine.cards import parse_cards
    >>> groups = enumerate_combos(sum(1 << c for c in parse_cards("3D 3S 4H")))
    >>> [len(group) for group in groups]
    [0, 3, 1, 0, 0, 0]
    """
    groups: list[list[Entry]] = [[] for _ in range(6)]
    for entry in native.all_entries(hand_mask, Rules.coerce(rules)):
        groups[len(entry[1])].append(entry)
    return groups
