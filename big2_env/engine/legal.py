"""Legal plays: the combinations of a hand that the active trick (or the opening rule) allows.

:func:`legal_plays` serves users and tests, the checked :func:`legal_entries` the belief replay.
Both (and :class:`big2_env.engine.game.Game`) answer from the compiled core
(:func:`big2_env.engine.core.kernels.legal_rows`, through :mod:`big2_env.engine.native`).
"""

from __future__ import annotations

from typing import Iterable

from . import native
from .cards import NUM_CARDS, card_str, check_card, check_hand, format_cards, mask_to_cards
from .combos import Entry, classify
from .native import PASS_ENTRY
from .rules import Rules
from ..checks import is_int

PASS: tuple[int, ...] = ()


def legal_entries(hand_mask: int, trick_size: int, trick_strength: int, opening: bool, rules: Rules) -> list[Entry]:
    """The legal entries ``(strength, play, mask, category, comparison_card)`` of a player holding
    ``hand_mask`` (a checked bitmask), facing a trick of ``trick_size`` cards and ``trick_strength``
    (size 0 when leading) or, leading the game's first play (``opening``), under the rules' opening
    rule. Non-pass plays come by size, then strength, then cards; pass (:data:`PASS_ENTRY`) comes
    last when legal (exactly when facing a trick). The rule of
    :meth:`big2_env.engine.game.Game.legal_entries`, also used to replay a game's public history
    (:mod:`big2_env.players.beliefs`). Arguments of the wrong type or range raise ``ValueError``.

    >>> from big2_env.engine.cards import parse_cards
    >>> [e[1] for e in legal_entries(sum(1 << c for c in parse_cards("3D 3S 5H")), 1, 4, False, Rules())]
    [(10,), ()]
    """
    if not is_int(hand_mask, 0, (1 << NUM_CARDS) - 1, numpy=False):
        raise ValueError(f"hand_mask must be an int bitmask of cards 0..51; got {hand_mask!r}")
    if not is_int(trick_size, 0, 5, numpy=False):
        raise ValueError(f"trick_size must be an int 0..5 (0: leading); got {trick_size!r}")
    if not is_int(trick_strength, 0, (1 << 40) - 1, numpy=False):
        raise ValueError(f"trick_strength must be a non-negative int (a Combo's strength); got {trick_strength!r}")
    if not isinstance(opening, bool) or not isinstance(rules, Rules):
        raise ValueError(f"opening must be True or False and rules a Rules; got {opening!r}, {rules!r}")
    return native.legal_entries(hand_mask, trick_size, trick_strength, opening, rules)


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
    entries = native.legal_entries(hand_mask, trick_size, trick_strength, False, rules)
    return [e[1] for e in entries if not must_mask or e[2] & must_mask or not e[2]]


__all__ = ["PASS", "PASS_ENTRY", "legal_entries", "legal_plays"]
