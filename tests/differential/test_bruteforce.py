"""Brute-force cross-check of the fast legal-play generator.

The enumerator below is deliberately simple and written from SPEC.md alone: it
tries every subset of 1..5 cards of the hand (``itertools.combinations``) and
classifies each one with its own straightforward rules; it does not use
``big2_env.engine.combos``. It is compared with :func:`big2_env.legal_plays` on
thousands of random hands and tricks under every rule variant.

The helpers (``bf_classify``, ``bf_beats``, ``bf_legal_plays``, ``random_combo``,
``VARIANTS``) are also used by ``test_game_properties.py``.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from big2_env import Rules, beats, classify, format_play, legal_plays

# --------------------------------------------------------------------------
# An independent model of the rules (SPEC.md sections 1 and 2).
# --------------------------------------------------------------------------

RANKS = "3456789TJQKA2"  # rank 0..12
DECK = tuple(range(52))


def rank_of(card: int) -> int:
    return card // 4


def suit_of(card: int) -> int:
    return card % 4


# Straights, lowest first, as rank text. The eight "no_two" straights are
# 34567 .. TJQKA (a 2 is never in one); "wrap" adds 23456 and A2345 above
# TJQKA (in that order); "to_two" adds JQKA2 as the highest.
BASE_STRAIGHTS = ["34567", "45678", "56789", "6789T", "789TJ", "89TJQ", "9TJQK", "TJQKA"]
EXTRA_STRAIGHTS = {"no_two": [], "wrap": ["23456", "A2345"], "to_two": ["JQKA2"]}


def straight_list(straights: str) -> list[frozenset[int]]:
    """The straights of a variant as rank sets, lowest first."""
    return [frozenset(RANKS.index(ch) for ch in text) for text in BASE_STRAIGHTS + EXTRA_STRAIGHTS[straights]]


_STRAIGHTS = {name: straight_list(name) for name in EXTRA_STRAIGHTS}

# Category order inside each play size.
FOUR_CATEGORIES = ["two pair", "four of a kind"]
FIVE_CATEGORIES = ["straight", "flush", "full house", "four of a kind", "straight flush"]


def bf_classify(cards, rules: Rules):
    """``(size, category name, comparable key)`` of a legal combination, else ``None``.

    Two plays of the same size compare by ``(category order, key)``.
    """
    cards = sorted(cards)
    n = len(cards)
    if n == 0 or n > 5 or len(set(cards)) != n:
        return None
    ranks = [rank_of(c) for c in cards]
    suits = [suit_of(c) for c in cards]
    counts = Counter(ranks)
    high = max(cards)
    if n == 1:
        return (1, "single", high)
    if n == 2:
        return (2, "pair", high) if len(counts) == 1 else None
    if n == 3:  # a lone triple is a play only where the rules allow it
        return (3, "triple", high) if len(counts) == 1 and rules.lone_triples else None
    if n == 4:
        if not rules.four_card_plays:
            return None
        if len(counts) == 1:
            return (4, "four of a kind", ranks[0])
        if sorted(counts.values()) == [2, 2]:
            # the highest card of the higher pair is the highest card overall
            return (4, "two pair", high)
        return None
    # five cards
    is_flush = len(set(suits)) == 1
    straights = _STRAIGHTS[rules.straights]
    rank_set = frozenset(ranks)
    if rank_set in straights:
        position = straights.index(rank_set)
        return (5, "straight flush" if is_flush else "straight", (position, high))
    if is_flush:
        if rules.flush_order == "suit_first":
            return (5, "flush", (suits[0], high))
        return (5, "flush", high)
    shape = sorted(counts.values())
    if shape == [2, 3]:
        triple_rank = next(r for r, k in counts.items() if k == 3)
        return (5, "full house", triple_rank)
    if shape == [1, 4] and rules.five_card_quads:
        quad_rank = next(r for r, k in counts.items() if k == 4)
        return (5, "four of a kind", quad_rank)
    return None


def category_order(info) -> int:
    size, name, _ = info
    if size == 4:
        return FOUR_CATEGORIES.index(name)
    if size == 5:
        return FIVE_CATEGORIES.index(name)
    return 0


def bf_beats(mine, theirs) -> bool:
    """Does classified play ``mine`` beat classified play ``theirs``?"""
    if mine[0] != theirs[0]:
        return False
    if category_order(mine) != category_order(theirs):
        return category_order(mine) > category_order(theirs)
    return mine[2] > theirs[2]


def bf_all_combos(hand, rules: Rules) -> dict[tuple[int, ...], tuple]:
    """Every subset of 1..5 cards of the hand that is a legal combination, with its class."""
    hand = sorted(hand)
    table = {}
    for size in range(1, 6):
        for subset in combinations(hand, size):
            info = bf_classify(subset, rules)
            if info is not None:
                table[subset] = info
    return table


def bf_select(table, trick, rules: Rules, must_include=None) -> set[tuple[int, ...]]:
    """Legal plays from a table of :func:`bf_all_combos` facing ``trick`` (None: leading)."""
    result = set()
    trick_info = bf_classify(trick, rules) if trick else None
    if trick:
        assert trick_info is not None, "test bug: the trick is not a combination"
    for play, info in table.items():
        if must_include is not None and must_include not in play:
            continue
        if trick_info is not None and not bf_beats(info, trick_info):
            continue
        result.add(play)
    if trick:
        result.add(())
    return result


def bf_legal_plays(hand, trick=None, rules: Rules = Rules(), must_include=None) -> set[tuple[int, ...]]:
    """The brute-force legal-play set (``()`` is pass, present when facing a trick)."""
    return bf_select(bf_all_combos(hand, rules), trick, rules, must_include)


def bf_is_legal(play, hand, trick, rules: Rules, must_include=None) -> bool:
    """Membership in :func:`bf_legal_plays` without enumerating the whole set."""
    play = tuple(sorted(play))
    if not play:
        return bool(trick)
    if not set(play) <= set(hand) or len(set(play)) != len(play):
        return False
    if must_include is not None and must_include not in play:
        return False
    info = bf_classify(play, rules)
    if info is None:
        return False
    return not trick or bf_beats(info, bf_classify(trick, rules))


# --------------------------------------------------------------------------
# Random combinations (for tricks), built constructively from a card pool.
# --------------------------------------------------------------------------

def random_combo(rng: random.Random, pool, rules: Rules, tries: int = 30):
    """A random legal combination drawn from ``pool`` under ``rules``, or ``None``."""
    pool = sorted(pool)
    by_rank = {r: [c for c in pool if rank_of(c) == r] for r in range(13)}
    by_suit = {s: [c for c in pool if suit_of(c) == s] for s in range(4)}
    kinds = ["single", "pair", "straight", "flush", "full house", "straight flush"]
    if rules.lone_triples:
        kinds.append("triple")
    if rules.four_card_plays:
        kinds += ["two pair", "four-card quads"]
    if rules.five_card_quads:
        kinds.append("four of a kind")
    for _ in range(tries):
        kind = rng.choice(kinds)
        play = None
        ranks_with = lambda k: [r for r in range(13) if len(by_rank[r]) >= k]  # noqa: E731
        if kind == "single" and pool:
            play = [rng.choice(pool)]
        elif kind in ("pair", "triple") and ranks_with(2 if kind == "pair" else 3):
            k = 2 if kind == "pair" else 3
            play = rng.sample(by_rank[rng.choice(ranks_with(k))], k)
        elif kind == "two pair" and len(ranks_with(2)) >= 2:
            a, b = rng.sample(ranks_with(2), 2)
            play = rng.sample(by_rank[a], 2) + rng.sample(by_rank[b], 2)
        elif kind == "four-card quads" and ranks_with(4):
            play = list(by_rank[rng.choice(ranks_with(4))])
        elif kind == "four of a kind" and ranks_with(4):
            r = rng.choice(ranks_with(4))
            others = [c for c in pool if rank_of(c) != r]
            if others:
                play = by_rank[r] + [rng.choice(others)]
        elif kind == "full house" and ranks_with(3):
            t = rng.choice(ranks_with(3))
            pair_ranks = [r for r in ranks_with(2) if r != t]
            if pair_ranks:
                p = rng.choice(pair_ranks)
                play = rng.sample(by_rank[t], 3) + rng.sample(by_rank[p], 2)
        elif kind == "straight":
            shapes = [s for s in _STRAIGHTS[rules.straights] if all(by_rank[r] for r in s)]
            if shapes:
                play = [rng.choice(by_rank[r]) for r in rng.choice(shapes)]
        elif kind == "straight flush":
            options = [(s, suit) for s in _STRAIGHTS[rules.straights] for suit in range(4)
                       if all(r * 4 + suit in pool for r in s)]
            if options:
                shape, suit = rng.choice(options)
                play = [r * 4 + suit for r in shape]
        elif kind == "flush":
            suits = [s for s in range(4) if len(by_suit[s]) >= 5]
            if suits:
                play = rng.sample(by_suit[rng.choice(suits)], 5)
        if play is not None:
            play = tuple(sorted(play))
            assert bf_classify(play, rules) is not None, (kind, play)
            return play
    return None


def random_hand(rng: random.Random, size: int | None = None):
    """A random hand of 1..13 cards; often from a dense sub-deck so big combinations are common."""
    size = rng.randint(1, 13) if size is None else size
    mode = rng.random()
    if mode < 0.4:
        deck = list(DECK)
    elif mode < 0.7:  # few ranks: pairs, triples, quads, full houses, two pair
        ranks = rng.sample(range(13), rng.randint(4, 7))
        deck = [c for c in DECK if rank_of(c) in ranks]
    elif mode < 0.85:  # few suits: flushes and straight flushes
        suits = rng.sample(range(4), rng.randint(1, 2))
        deck = [c for c in DECK if suit_of(c) in suits]
    else:  # a run of ranks around the 2 (wrap / to-two straights)
        start = rng.choice([7, 8, 9, 10, 11, 12])
        ranks = [(start + i) % 13 for i in range(7)]
        deck = [c for c in DECK if rank_of(c) in ranks]
    size = min(size, len(deck))
    return sorted(rng.sample(deck, size))


# Every value of every Rules option, and the presets.
VARIANTS = [
    Rules(),
    Rules(straights="wrap"),
    Rules(straights="to_two"),
    Rules(flush_order="suit_first"),
    Rules(four_card_plays=True),
    Rules(five_card_quads=False),
    Rules(four_card_plays=True, five_card_quads=False),
    Rules(scoring="hk"),
    Rules(opening="3D_leads_free"),
    Rules(opening="3D_single"),
    Rules.preset("charlesworth"),
    Rules(straights="wrap", flush_order="suit_first", four_card_plays=True),
    Rules(lone_triples=False),
    Rules(pass_locks=True),
    # both new options beside every value of every other option
    Rules(lone_triples=False, pass_locks=True, straights="wrap", flush_order="suit_first", four_card_plays=True,
          scoring="hk", opening="3D_leads_free"),
    Rules(lone_triples=False, pass_locks=True, straights="to_two", four_card_plays=True, five_card_quads=False,
          opening="3D_single"),
    Rules(lone_triples=False, pass_locks=True),
]
VARIANT_IDS = [
    "paper", "wrap", "to_two", "suit_first", "four_card", "no_five_quads", "four_no_five", "hk",
    "leads_free", "3D_single", "charlesworth", "wrap_suit_four", "no_lone_triples", "pass_locks",
    "house_wrap_hk", "house_charlesworth", "house_paper",
]


def show(plays) -> list[str]:
    return sorted(format_play(p) for p in plays)


# --------------------------------------------------------------------------
# Sanity of the model itself (so a shared mistake would show up here).
# --------------------------------------------------------------------------


def test_model_straight_lists():
    assert len(straight_list("no_two")) == 8
    assert all(12 not in s for s in straight_list("no_two"))  # a 2 is never in a straight
    assert len(straight_list("wrap")) == 10 and len(straight_list("to_two")) == 9
    for straights in EXTRA_STRAIGHTS:  # no wrap-around through the 2 other than the listed ones
        for text in ("QKA23", "KA234", "KA235"):
            assert frozenset(RANKS.index(ch) for ch in text) not in straight_list(straights)
    rules = Rules()
    assert bf_classify([0, 4, 8, 12, 16], rules)[1] == "straight flush"  # 3D 4D 5D 6D 7D
    assert bf_classify([0, 5, 8, 12, 16], rules)[1] == "straight"
    assert bf_classify([0, 4, 8, 12, 24], rules)[1] == "flush"
    assert bf_classify([0, 1, 2, 4, 5], rules) == (5, "full house", 0)
    assert bf_classify([0, 1, 2, 3, 4], rules) == (5, "four of a kind", 0)
    assert bf_classify([0, 1, 2, 3, 4], Rules(five_card_quads=False)) is None
    assert bf_classify([0, 1, 4, 5], rules) is None
    assert bf_classify([0, 1, 4, 5], Rules(four_card_plays=True)) == (4, "two pair", 5)
    assert bf_classify([0, 1, 2], rules) == (3, "triple", 2)
    assert bf_classify([0, 1, 2], Rules(lone_triples=False)) is None  # no lone triple
    assert bf_classify([0, 1, 2, 4, 5], Rules(lone_triples=False)) == (5, "full house", 0)  # but a full house


# --------------------------------------------------------------------------
# The cross-check.
# --------------------------------------------------------------------------

HANDS_PER_VARIANT = 350
TRICKS_PER_HAND = 4


def check_hand(rng: random.Random, rules: Rules, hand, tricks_per_hand: int = TRICKS_PER_HAND, deep: bool = False):
    table = bf_all_combos(hand, rules)
    rest = [c for c in DECK if c not in set(hand)]
    tricks = [None] + [random_combo(rng, rest, rules) for _ in range(tricks_per_hand)]
    for trick in tricks:
        fast = legal_plays(hand, trick, rules)
        expected = bf_select(table, trick, rules)
        context = f"rules={rules} hand={show([(c,) for c in hand])} trick={format_play(trick) if trick else None}"
        assert len(fast) == len(set(fast)), f"duplicate plays: {context}"
        assert all(list(p) == sorted(p) for p in fast), context
        assert set(fast) == expected, (
            f"{context}\n missing={show(expected - set(fast))}\n extra={show(set(fast) - expected)}"
        )
        # pass is present exactly when facing a trick, and comes last
        assert (() in fast) == bool(trick), context
        if trick:
            assert fast[-1] == ()
        # non-pass plays are ordered by size, then strength
        keys = [(len(p), category_order(table[p]), table[p][2]) for p in fast if p]
        assert keys == sorted(keys), f"order: {context}"
    if 0 in hand:
        fast = legal_plays(hand, None, rules, must_include=0)
        assert set(fast) == bf_select(table, None, rules, must_include=0)
    if deep:
        # classify agrees on every subset, and beats agrees on plays of equal size
        for size in range(1, 6):
            for subset in combinations(hand, size):
                combo = classify(subset, rules)
                assert (combo is None) == (subset not in table), (rules, show([subset]))
                if combo is not None:
                    name = "four of a kind" if combo.name == "four of a kind (4 cards)" else combo.name
                    assert name == table[subset][1], (rules, show([subset]), combo)
        for trick in tricks:
            if trick:
                t_info = bf_classify(trick, rules)
                for play, info in table.items():
                    if len(play) == len(trick):
                        assert beats(play, trick, rules) == bf_beats(info, t_info), (rules, play, trick)


@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
def test_legal_plays_match_bruteforce(rules):
    rng = random.Random(f"bruteforce-{rules.to_json()}")
    for i in range(HANDS_PER_VARIANT):
        check_hand(rng, rules, random_hand(rng), deep=(i % 8 == 0))


@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
def test_full_thirteen_card_hands(rules):
    """Full 13-card hands (the deal), against many tricks each."""
    rng = random.Random(f"thirteen-{rules.to_json()}")
    for _ in range(8):
        check_hand(rng, rules, random_hand(rng, 13), tricks_per_hand=25)


def test_every_kind_of_trick_is_generated():
    """The trick generator reaches every category (so the cross-check covers them)."""
    rng = random.Random(1)
    seen = Counter()
    rules = Rules(four_card_plays=True, straights="wrap")
    for _ in range(3000):
        hand = random_hand(rng)
        rest = [c for c in DECK if c not in hand]
        trick = random_combo(rng, rest, rules)
        if trick:
            seen[bf_classify(trick, rules)[1]] += 1
    expected = {"single", "pair", "triple", "two pair", "four of a kind", "straight", "flush", "full house",
                "straight flush"}
    assert set(seen) == expected
