"""The reference engine's legal-play generation (pure Python): the combinations of a hand filtered by the active trick.

The pure-Python code the package's engine ran on before the compiled core. Kept as it was, apart from imports.

The standalone :func:`legal_plays` serves users and tests; :class:`big2_env.engine.game.Game`
uses the same :func:`select_entries` on hand tables it keeps up to date
incrementally (playing cards only removes entries, it never adds any).
"""

from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache
from operator import itemgetter
from typing import Iterable, Sequence

from big2_env.engine.cards import THREE_OF_DIAMONDS, card_str, check_card, check_hand, format_cards, mask_to_cards
from .combos import Entry, classify, enumerate_combos
from big2_env.engine.rules import Rules

PASS: tuple[int, ...] = ()
PASS_ENTRY: Entry = (-1, (), 0, -1, -1)
_strength_of = itemgetter(0)


def select_entries(
    groups: Sequence[list[Entry]],
    trick_size: int,
    trick_strength: int,
    must_include_mask: int = 0,
    only_play: tuple[int, ...] | None = None,
) -> list[Entry]:
    """Non-pass entries of an enumerated hand that are legal now.

    ``trick_size == 0`` means leading (every combination, by size then strength);
    otherwise only entries of that size with a greater strength.
    ``must_include_mask`` keeps entries containing that card; ``only_play`` keeps
    exactly that play (the ``3D_single`` opening).
    """
    if trick_size:
        group = groups[trick_size]
        chosen = group[bisect_right(group, trick_strength, key=_strength_of) :]
    else:
        chosen = [e for group in groups for e in group]
    if only_play is not None:
        return [e for e in chosen if e[1] == only_play]
    if must_include_mask:
        return [e for e in chosen if e[2] & must_include_mask]
    return chosen


def legal_entries_from(
    groups: Sequence[list[Entry]], trick_size: int, trick_strength: int, opening: bool, rules: Rules
) -> list[Entry]:
    """The legal entries of a player whose enumerated hand is ``groups``, facing a trick of
    ``trick_size`` cards and ``trick_strength`` (size 0 when leading), or, leading the game's
    first play (``opening``), under the rules' opening rule. Pass (:data:`PASS_ENTRY`) comes
    last when legal. The engine's rule (:meth:`big2_env.engine.game.Game.legal_entries`), also used
    to replay a game's public history (:mod:`big2_env.players.beliefs`)."""
    if not trick_size:
        if opening and rules.opening == "3D_must_play":
            return select_entries(groups, 0, 0, must_include_mask=1 << THREE_OF_DIAMONDS)
        if opening and rules.opening == "3D_single":
            return select_entries(groups, 0, 0, only_play=(THREE_OF_DIAMONDS,))
        return select_entries(groups, 0, 0)
    legal = select_entries(groups, trick_size, trick_strength)
    legal.append(PASS_ENTRY)
    return legal


@lru_cache(maxsize=4096)
def _cached_combos(hand_mask: int, rules: Rules) -> list[list[Entry]]:
    return enumerate_combos(hand_mask, rules)


def legal_plays(
    hand: Iterable[int],
    trick: Iterable[int] | None = None,
    rules: Rules = Rules(),
    must_include: int | None = None,
) -> list[tuple[int, ...]]:
    """Every legal play from ``hand`` facing ``trick`` (``None`` or ``()`` when leading).

    ``hand`` and ``trick`` are collections of distinct card ids (at most 13, see
    :func:`big2_env.engine.cards.check_hand`); ``must_include`` is ``None`` or a card id.
    Anything else raises ``ValueError`` naming the argument and what is allowed.

    Each play is a sorted tuple of card ids; ``()`` is pass, present exactly when
    passing is legal (facing a trick). Non-pass plays come first, ordered by
    number of cards and then by strength; pass is last. ``must_include`` is a card
    that every play must contain (the opening 3D).

    >>> from big2_env.engine.cards import parse_cards, format_play
    >>> [format_play(p) for p in legal_plays(parse_cards("3D 3S 5H"), parse_cards("4C"))]
    ['5H', 'pass']
    """
    rules = Rules.coerce(rules)
    hand_mask = check_hand(hand, "hand")
    trick_size, trick_strength = 0, 0
    trick_mask = 0 if trick is None else check_hand(trick, "trick")
    if trick_mask:
        trick_t = tuple(mask_to_cards(trick_mask))
        combo = classify(trick_t, rules)
        if combo is None:
            raise ValueError(f"trick {format_cards(trick_t)!r} is not a legal combination under these rules")
        if trick_mask & hand_mask:
            raise ValueError(f"trick {format_cards(trick_t)!r} shares cards with the hand")
        trick_size, trick_strength = len(trick_t), combo.strength
    must_mask = 0
    if must_include is not None:
        card = check_card(must_include, "must_include")
        if not hand_mask >> card & 1:
            raise ValueError(f"must_include card {card_str(card)} is not in the hand")
        must_mask = 1 << card
    entries = select_entries(_cached_combos(hand_mask, rules), trick_size, trick_strength, must_mask)
    plays = [e[1] for e in entries]
    if trick_size:
        plays.append(PASS)
    return plays
