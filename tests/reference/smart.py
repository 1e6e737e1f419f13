"""The reference Smart (pure Python): the paper's Algorithm 2, term by term.

:class:`big2_env.players.smart.SmartPolicy` states the rule and plays it through the compiled
kernel (:mod:`big2_env.players.kernels.smart`); this is the independent statement of the same
rule that the kernel is tested against (``tests/players/test_policies.py``,
``tests/differential/test_core.py``): :func:`smart_choice` is the whole decision, :func:`smart_scores`
the score s(a) of each play, :func:`smart_ranking` the order of the plays. It classifies with the
reference engine (:mod:`tests.reference.combos`), never the core.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from big2_env.engine.rules import Rules

from .combos import FOUR_OF_A_KIND, PAIR, QUADS, SINGLE, STRAIGHT, STRAIGHT_FLUSH, TRIPLE, classify, straight_shapes

__all__ = [
    "break_penalty",
    "broken_structures",
    "game_phase",
    "is_bomb",
    "is_very_strong",
    "low_orphans",
    "smart_choice",
    "smart_ranking",
    "smart_scores",
]


@lru_cache(maxsize=1 << 16)
def _classify_cached(play: tuple[int, ...], rules: Rules):
    return classify(play, rules)


def _greedy_key(play: tuple[int, ...], rules: Rules) -> tuple[int, int, tuple[int, ...]]:
    """(category, strength, cards): Greedy's combination ordering, the card tuple as the last tie-break."""
    n = len(play)
    if n <= 3:  # single, pair, triple: the strength is the highest card id
        return ((SINGLE, PAIR, TRIPLE)[n - 1], play[-1], play)
    combo = _classify_cached(play, rules)
    if combo is None:
        return (99, 0, play)
    return (combo.category, combo.strength, play)


EARLY, MID, LATE = "early", "mid", "late"
"""Game phases of :func:`game_phase`."""

# Structure names reported by :func:`broken_structures`.
PAIR_OR_TRIPLE = "pair or triple"
FIVE_CARD_STRUCTURES = ("four of a kind", "full house", "flush", "straight")

# The paper's weights. Scores are kept internally in tenths (ints) so that ties and
# the pass threshold are exact: 0.8 * rank becomes 8 * rank.
_RANK_WEIGHT_10 = 8
_TWO_PENALTY = {EARLY: 10, MID: 5, LATE: 0}
_PAIR_TRIPLE_BREAK = {EARLY: 8, MID: 4, LATE: 0}
_FIVE_CARD_BREAK = {EARLY: 20, MID: 8, LATE: 4}
_ORPHAN_PENALTY = 6
_SHED_BONUS = 4
_LATE_BONUS = 10
_VERY_STRONG_LATE_BONUS = 10
_BOMB_PENALTY = 25
_WIN_SCORE = -1000
_PASS_THRESHOLD = 30
_TWO_RANK = 12
_LOW_ORPHAN_RANKS = range(5)  # 3, 4, 5, 6, 7
_BOMB_CATEGORIES = frozenset({QUADS, FOUR_OF_A_KIND, STRAIGHT_FLUSH})


def game_phase(hand_size: int) -> str:
    """The paper's phase of a hand of ``hand_size`` cards: early > 10, mid 6..10, late <= 5.

    >>> game_phase(13), game_phase(10), game_phase(6), game_phase(5)
    ('early', 'mid', 'mid', 'late')
    """
    if hand_size > 10:
        return EARLY
    if hand_size >= 6:
        return MID
    return LATE


def low_orphans(cards: Sequence[int]) -> int:
    """Number of low orphans in ``cards``: ranks 3 to 7 (rank index 0..4) held exactly once.

    >>> from big2_env.engine.cards import parse_cards
    >>> low_orphans(parse_cards("3D 4C 4H 7S 8D"))  # 3 and 7; the 4s are a pair, 8 is not low
    2
    """
    counts = [0] * 5
    for c in cards:
        r = c >> 2
        if r < 5:
            counts[r] += 1
    return sum(1 for n in counts if n == 1)


def is_bomb(trick: Sequence[int] | None, rules: Rules = Rules()) -> bool:
    """True when ``trick`` is a four of a kind (five-card, or four-card under that variant) or a straight flush."""
    if not trick:
        return False
    combo = _classify_cached(tuple(sorted(trick)), rules)
    return combo is not None and combo.category in _BOMB_CATEGORIES


def is_very_strong(trick: Sequence[int] | None, rules: Rules = Rules()) -> bool:
    """The "very strong" trick of Algorithm 2: a five-card hand (straight or better), a
    four-card four of a kind (variant), any trick containing a 2, or a single K or A.

    >>> from big2_env.engine.cards import parse_cards
    >>> [is_very_strong(parse_cards(t)) for t in ("KD", "QS", "AD AS", "2D 2C", "3D 4D 5D 6D 8D")]
    [True, False, False, True, True]
    """
    if not trick:
        return False
    combo = _classify_cached(tuple(sorted(trick)), rules)
    if combo is None:
        return False
    if combo.category >= STRAIGHT or combo.category == QUADS:
        return True
    if any(c >> 2 == _TWO_RANK for c in trick):
        return True
    return combo.category == SINGLE and trick[0] >> 2 >= 10


@lru_cache(maxsize=None)
def _window_masks(straights: str) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """(rank bitmask, ranks) of every straight window of a ``straights`` rule."""
    return tuple((sum(1 << r for r in w), w) for w in straight_shapes(straights))


class _HandShape:
    """Per-decision summary of the hand H used by BreakPenalty and LowOrphans."""

    __slots__ = ("size", "phase", "ranks", "suits", "full_house", "windows", "quads", "flush", "orphans")

    def __init__(self, hand: Sequence[int], rules: Rules) -> None:
        ranks = [0] * 13
        suits = [0] * 4
        for c in hand:
            ranks[c >> 2] += 1
            suits[c & 3] += 1
        self.size = len(hand)
        self.phase = game_phase(self.size)
        self.ranks = ranks
        self.suits = suits
        self.quads = 4 in ranks
        self.flush = max(suits) >= 5
        self.full_house = any(n >= 3 for n in ranks) and sum(1 for n in ranks if n >= 2) >= 2
        present = 0
        for r in range(13):
            if ranks[r]:
                present |= 1 << r
        self.windows = tuple(w for mask, w in _window_masks(rules.straights) if present & mask == mask)
        self.orphans = sum(1 for r in _LOW_ORPHAN_RANKS if ranks[r] == 1)


def _rank_counts(play: Sequence[int]) -> dict[int, int]:
    by_rank: dict[int, int] = {}
    for c in play:
        r = c >> 2
        by_rank[r] = by_rank.get(r, 0) + 1
    return by_rank


def _broken(shape: _HandShape, play: Sequence[int], by_rank: dict[int, int], stop: bool) -> list[str]:
    """Structures of H broken by ``play`` (see :class:`big2_env.players.smart.SmartPolicy`); ``stop``: return at
    the first five-card one."""
    found: list[str] = []
    n = len(play)
    if n >= 5:
        return found
    ranks = shape.ranks
    if shape.quads and any(ranks[r] == 4 and k < 4 for r, k in by_rank.items()):
        found.append("four of a kind")
        if stop:
            return found
    if shape.full_house and any(0 < ranks[r] - k < min(ranks[r], 3) for r, k in by_rank.items()):
        found.append("full house")
        if stop:
            return found
    if shape.flush:
        suits = shape.suits
        by_suit = [0, 0, 0, 0]
        for c in play:
            by_suit[c & 3] += 1
        if any(k and suits[s] >= 5 and suits[s] - k < 5 for s, k in enumerate(by_suit)):
            found.append("flush")
            if stop:
                return found
    for window in shape.windows:
        if any(ranks[r] == by_rank.get(r, 0) for r in window):
            found.append("straight")
            if stop:
                return found
            break
    if any((n == 1 and ranks[r] - k >= 2) or (n <= 2 and ranks[r] - k >= 3) for r, k in by_rank.items()):
        found.append(PAIR_OR_TRIPLE)
    return found


def broken_structures(play: Sequence[int], hand: Sequence[int], rules: Rules = Rules()) -> list[str]:
    """Which structures of ``hand`` the non-pass ``play`` breaks, as BreakPenalty sees them.

    Names, in this order: ``"four of a kind"``, ``"full house"``, ``"flush"``,
    ``"straight"`` (the potential five-card structures) and ``"pair or triple"``.
    The definitions are in :class:`big2_env.players.smart.SmartPolicy`.

    >>> from big2_env.engine.cards import parse_cards
    >>> hand = parse_cards("3D 3C 3H 5D 6D 7D 8D KS")
    >>> broken_structures(parse_cards("3D"), hand)  # splits a triple and leaves four diamonds
    ['flush', 'pair or triple']
    >>> broken_structures(parse_cards("KS"), hand)
    []
    """
    return _broken(_HandShape(hand, rules), play, _rank_counts(play), stop=False)


def break_penalty(play: Sequence[int], hand: Sequence[int], rules: Rules = Rules()) -> int:
    """BreakPenalty(a, H): 20/8/4 (early/mid/late) when the play breaks a potential
    five-card structure, else 8/4/0 when it breaks a pair or triple, else 0.

    Added once per play, whatever the number of structures broken; the phase is
    that of ``hand`` (before the play).
    """
    return _break_penalty(_HandShape(hand, rules), play, _rank_counts(play))


def _break_penalty(shape: _HandShape, play: Sequence[int], by_rank: dict[int, int]) -> int:
    found = _broken(shape, play, by_rank, stop=True)
    if not found:
        return 0
    if found[0] != PAIR_OR_TRIPLE:
        return _FIVE_CARD_BREAK[shape.phase]
    return _PAIR_TRIPLE_BREAK[shape.phase]


def _smart_score10(shape: _HandShape, play: Sequence[int], trick_offset10: int) -> int:
    """s(a) of Algorithm 2 in tenths of a point (see :class:`big2_env.players.smart.SmartPolicy`)."""
    n = len(play)
    if n == shape.size:
        return _WIN_SCORE * 10
    ranks = shape.ranks
    by_rank: dict[int, int] = {}
    rank_sum = 0
    for c in play:
        r = c >> 2
        rank_sum += r
        by_rank[r] = by_rank.get(r, 0) + 1
    # low orphans of H \ a: those of H, corrected for the low ranks the play touches
    orphans = shape.orphans
    for r, k in by_rank.items():
        if r < 5:
            orphans += (ranks[r] - k == 1) - (ranks[r] == 1)
    phase = shape.phase
    score = (
        _TWO_PENALTY[phase] * by_rank.get(_TWO_RANK, 0)
        + (_break_penalty(shape, play, by_rank) if n < 5 else 0)
        + _ORPHAN_PENALTY * orphans
        - _SHED_BONUS * n
    )
    return _RANK_WEIGHT_10 * rank_sum + 10 * score + trick_offset10


def _trick_offset10(phase: str, trick: tuple[int, ...] | None, rules: Rules) -> int:
    """The terms of s(a) that depend only on the phase and the trick (same for every a), in tenths."""
    offset = 0
    if phase == LATE:
        offset -= _LATE_BONUS
        if is_very_strong(trick, rules):
            offset -= _VERY_STRONG_LATE_BONUS
    if is_bomb(trick, rules):
        offset += _BOMB_PENALTY
    return 10 * offset


def smart_choice(hand: Sequence[int], trick: Sequence[int] | None, plays: Sequence[tuple[int, ...]], rules: Rules) -> int:
    """The index in ``plays`` (the legal plays in the engine's order, ``()`` for pass) that
    :class:`big2_env.players.smart.SmartPolicy` chooses: Algorithm 2's whole decision on plain data.
    ``hand`` is the acting player's hand, ``trick`` the active trick (``None`` when leading).
    """
    if len(plays) == 1:
        return 0
    shape = _HandShape(hand, rules)
    offset = _trick_offset10(shape.phase, tuple(trick) if trick else None, rules)
    best_score = None
    tied: list[int] = []
    pass_index = -1
    for i, play in enumerate(plays):
        if not play:
            pass_index = i
            continue
        score = _smart_score10(shape, play, offset)
        if best_score is None or score < best_score:
            best_score, tied = score, [i]
        elif score == best_score:
            tied.append(i)
    if best_score is None:  # only pass is legal (covered above, kept for safety)
        return pass_index
    if len(tied) == 1:
        best = tied[0]
    else:  # the weakest under Greedy's ordering, whose categories grow with the play's size
        size = min(len(plays[i]) for i in tied)
        best = min((_greedy_key(plays[i], rules), i) for i in tied if len(plays[i]) == size)[1]
    if pass_index >= 0:
        twos = sum(1 for c in plays[best] if c >> 2 == _TWO_RANK)
        if shape.phase == EARLY and twos >= 2 and best_score > 10 * _PASS_THRESHOLD:
            return pass_index
        if is_bomb(trick, rules):
            return pass_index
    return best


def smart_ranking(hand: Sequence[int], trick: Sequence[int] | None, plays: Sequence[tuple[int, ...]], rules: Rules) -> list[int]:
    """Indices of the non-pass ``plays`` from Smart's favourite to its least favourite (by s(a), ties by
    Greedy's ordering); pass is left out. A prior for search (:mod:`big2_env.players.search`)."""
    shape = _HandShape(hand, rules)
    offset = _trick_offset10(shape.phase, tuple(trick) if trick else None, rules)
    keyed = [(_smart_score10(shape, play, offset), _greedy_key(play, rules), i) for i, play in enumerate(plays) if play]
    return [i for _, _, i in sorted(keyed)]


def smart_scores(hand: Sequence[int], trick: Sequence[int] | None, plays: Sequence[tuple[int, ...]],
                 rules: Rules) -> dict[tuple[int, ...], float]:
    """s(a) of every non-pass play of ``plays`` (lower is better), by play."""
    shape = _HandShape(hand, rules)
    offset = _trick_offset10(shape.phase, tuple(trick) if trick else None, rules)
    return {play: _smart_score10(shape, play, offset) / 10 for play in plays if play}
