"""Cards: integer ids, text parsing and formatting, and the input validators.

A card is an int in ``0..51`` with ``card = rank * 4 + suit``.

* ranks, low to high: ``3 4 5 6 7 8 9 T J Q K A 2`` (rank ``0..12``);
* suits, low to high: diamonds < clubs < hearts < spades (``D C H S``, suit ``0..3``).

So card 0 is ``3D`` (the lowest card) and card 51 is ``2S`` (the highest single).

Accepted types, checked here in one place for every public entry point of the
package (the engine's internal hot paths take already-checked values and check nothing):

* a **card id** (:func:`check_card`) is a Python ``int`` or a numpy integer
  (``np.int64``, ``np.int32``, ...) in ``0..51``. Bools (``True``, ``np.True_``),
  floats (even ``5.0``), strings and anything else raise ``ValueError`` naming the
  value, its type and the allowed range. :func:`card_str`, :func:`card_rank` and
  :func:`card_suit` check their argument (internal code uses ``card >> 2`` and
  ``card & 3`` directly);
* a **hand** (:func:`check_hand`) is an iterable (list, tuple, numpy array, ...; not
  text) of distinct card ids, at most 13 of them. Plays and tricks are checked the
  same way. :func:`check_cards` checks a collection of card ids without the
  distinctness and size rules (for :func:`format_cards`, :func:`cards_to_mask`,
  :func:`big2_env.engine.combos.classify`);
* small ints such as ranks, suits, seats and passes (:func:`check_index`) are
  Python ints or numpy integers in their range; no bools or floats;
* **card text** (:func:`parse_card`, :func:`parse_cards`, :func:`parse_play`) must
  be a ``str``.

Examples:
    >>> parse_cards("3D 10s K♥")
    [0, 31, 42]
    >>> format_cards([0, 31, 42])
    '3D TS KH'
    >>> card_rank(parse_card("2S")), card_suit(parse_card("2S"))
    (12, 3)
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from ..checks import is_int

RANK_CHARS = "3456789TJQKA2"
SUIT_CHARS = "DCHS"
SUIT_SYMBOLS = "♦♣♥♠"
NUM_CARDS = 52
NUM_RANKS = 13
NUM_SUITS = 4
MAX_HAND = 13  # the most cards a hand (or any play or trick) can hold
THREE_OF_DIAMONDS = 0

_RANK_ALIASES = {ch: i for i, ch in enumerate(RANK_CHARS)}
_RANK_ALIASES["10"] = RANK_CHARS.index("T")
_SUIT_ALIASES = {ch: i for i, ch in enumerate(SUIT_CHARS)}
_SUIT_ALIASES.update({ch: i for i, ch in enumerate(SUIT_SYMBOLS)})
# Outline glyphs (♢ ♧ ♡ ♤) are sometimes used for the same suits.
_SUIT_ALIASES.update({ch: i for i, ch in enumerate("♢♧♡♤")})

_CARD_NAMES = tuple(r + s for r in RANK_CHARS for s in SUIT_CHARS)
PASS_WORDS = frozenset({"pass", "p", "-"})


def _describe(value: object) -> str:
    """``repr`` of a rejected value with its type, for error messages."""
    return f"{value!r} ({type(value).__name__})"


def check_index(value: object, what: str, limit: int | None, allowed: str | None = None) -> int:
    """``value`` as a Python int if it is an int or numpy integer in ``0..limit-1``, else ``ValueError``.

    Bools (``np.bool_`` included), floats (even integral ones) and strings are
    rejected. The message names ``what``, the value, its type and ``allowed``
    (default ``"0..limit-1"``). With ``limit=None`` only the type is checked.
    Used for card ids, seats, ranks, suits, passes and actions.
    """
    if type(value) is int:
        if limit is None or 0 <= value < limit:
            return value
    elif is_int(value) if limit is None else is_int(value, 0, limit - 1):
        return int(value)  # type: ignore[call-overload]  # an int or numpy integer (is_int)
    if allowed is None:
        allowed = "an int" if limit is None else f"0..{limit - 1}"
    raise ValueError(
        f"{what} must be {allowed}, got {_describe(value)}; give an int or numpy integer (not a bool, float or str)"
    )


def check_card(card: object, what: str = "a card id") -> int:
    """Return ``card`` as a Python int if it is a valid card id, else raise ``ValueError``.

    The one card-id validator of the package: a Python ``int`` or numpy integer in
    ``0..51``; never a bool (``np.bool_`` included), a float (even an integral one)
    or a string. ``what`` names the argument in the message.
    """
    return check_index(card, what, NUM_CARDS, "an int in 0..51")


def check_cards(cards: Iterable[object], what: str = "cards") -> list[int]:
    """The card ids of a collection as a list of Python ints; ``ValueError`` naming the problem.

    ``cards`` must be an iterable (a list, tuple, numpy array, ...; not text or bytes)
    of valid card ids (see :func:`check_card`); repeats and the count are not
    checked here (see :func:`check_hand` for hands, plays and tricks).
    """
    if isinstance(cards, (str, bytes, bytearray)):
        raise ValueError(  # noqa: TRY004 (every bad input is a ValueError in this package)
            f"the {what} must be a collection of card ids (ints 0..51), got the text {cards!r}; "
            "parse card text with parse_cards()"
        )
    try:
        items = list(cards)
    except TypeError:
        raise ValueError(f"the {what} must be a collection of card ids (ints 0..51), got {_describe(cards)}") from None
    item_what = f"each card of the {what}"
    return [check_card(c, item_what) for c in items]


def check_hand(cards: Iterable[int], what: str = "hand", *, min_cards: int = 0) -> int:
    """Bitmask of a hand, play or trick after checking it; ``ValueError`` naming the problem.

    The one hand validator of the package: ``cards`` must be an iterable (not text)
    of distinct valid card ids (see :func:`check_cards`), at least ``min_cards`` and
    at most 13 of them. ``what`` names it in messages (``"hand"``, ``"play"``,
    ``"trick"``, ``"hand of player 2"``). :func:`mask_to_cards` of the result gives
    the cards as sorted Python ints.
    """
    listed = check_cards(cards, what)
    mask = 0
    for card in listed:
        if mask >> card & 1:
            raise ValueError(f"card {_CARD_NAMES[card]} is given twice in the {what}")
        mask |= 1 << card
    if not min_cards <= len(listed) <= MAX_HAND:
        allowed = f"{min_cards} to {MAX_HAND}" if min_cards else f"at most {MAX_HAND}"
        raise ValueError(f"the {what} must hold {allowed} cards, got {len(listed)}")
    return mask


def check_seed(seed: object) -> np.random.Generator:
    """``seed`` as a ``numpy.random.Generator`` (one given is returned as is): ``None`` or a non-negative
    int or numpy integer; anything else (a bool or a float too) raises ``ValueError``."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or is_int(seed, 0):
        return np.random.default_rng(None if seed is None else int(seed))  # type: ignore[call-overload]
    raise ValueError(f"seed must be None, a non-negative int (Python int or numpy integer; not a bool or float) "
                     f"or a numpy.random.Generator, got {_describe(seed)}")


def card_rank(card: int) -> int:
    """Rank 0..12 of a card (0 is a three, 12 is a two). ``ValueError`` if ``card`` is not a card id."""
    return check_card(card) >> 2


def card_suit(card: int) -> int:
    """Suit 0..3 of a card (diamonds, clubs, hearts, spades). ``ValueError`` if ``card`` is not a card id."""
    return check_card(card) & 3


def make_card(rank: int, suit: int) -> int:
    """Card id from a rank 0..12 and a suit 0..3 (ints or numpy integers; no bools or floats)."""
    return check_index(rank, "rank", NUM_RANKS) * 4 + check_index(suit, "suit", NUM_SUITS)


def card_str(card: int) -> str:
    """Text form of one card id, e.g. ``card_str(0) == '3D'``."""
    return _CARD_NAMES[check_card(card)]


def _check_text(text: object, what: str) -> str:
    if not isinstance(text, str):
        raise ValueError(f"{what} must be a str, got {_describe(text)}")  # noqa: TRY004 (see check_cards)
    return text


def parse_card(token: str) -> int:
    """Parse one card such as ``"TS"``, ``"10s"``, ``"3♦"``; raise ``ValueError`` naming a bad token."""
    text = _check_text(token, "card text").strip()
    upper = text.upper()
    if len(upper) >= 2:
        rank_text, suit_text = upper[:-1], upper[-1]
        rank = _RANK_ALIASES.get(rank_text)
        suit = _SUIT_ALIASES.get(suit_text)
        if rank is not None and suit is not None:
            return rank * 4 + suit
    raise ValueError(
        f"bad card {token!r}: expected a rank (3-9, T or 10, J, Q, K, A, 2) followed by a suit "
        f"(D C H S or ♦ ♣ ♥ ♠), e.g. '3D', '10S', 'kh'"
    )


def _tokens(text: str) -> list[str]:
    return text.replace(",", " ").split()


def parse_cards(text: str) -> list[int]:
    """Parse whitespace- or comma-separated cards, e.g. ``"3D 3S"``, in the order given.

    Raises ``ValueError`` naming the bad token, or a card given twice.
    """
    _check_text(text, "card text")
    cards: list[int] = []
    for token in _tokens(text):
        card = parse_card(token)
        if card in cards:
            raise ValueError(f"card {card_str(card)} is given twice in {text!r}")
        cards.append(card)
    return cards


def parse_play(text: str) -> tuple[int, ...]:
    """Parse a play: card text (sorted into a tuple) or ``pass`` for the empty play ``()``."""
    if _check_text(text, "play text").strip().lower() in PASS_WORDS:
        return ()
    cards = parse_cards(text)
    if not cards:
        raise ValueError("empty play: type cards such as '3D 3S', or 'pass'")
    return tuple(sorted(cards))


def format_cards(cards: Iterable[int]) -> str:
    """Cards as space-separated text in the order given, e.g. ``'3D TS'`` (checked by :func:`check_cards`)."""
    return " ".join(_CARD_NAMES[c] for c in check_cards(cards))


def format_play(play: Iterable[int]) -> str:
    """A play as text: its cards in ascending order, or ``'pass'`` for ``()`` (checked by :func:`check_hand`)."""
    mask = check_hand(play, "play")
    return " ".join(_CARD_NAMES[c] for c in mask_to_cards(mask)) if mask else "pass"


def cards_to_mask(cards: Iterable[int]) -> int:
    """Bitmask with bit ``c`` set for each card ``c`` (checked by :func:`check_cards`; repeats set the same bit)."""
    mask = 0
    for c in check_cards(cards):
        mask |= 1 << c
    return mask


def mask_to_cards(mask: int) -> list[int]:
    """Ascending card ids of the bits set in ``mask``."""
    cards = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    return cards
