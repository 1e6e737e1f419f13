"""Cards: integer ids, text parsing and formatting.

A card is an int in ``0..51`` with ``card = rank * 4 + suit``.

* ranks, low to high: ``3 4 5 6 7 8 9 T J Q K A 2`` (rank ``0..12``);
* suits, low to high: diamonds < clubs < hearts < spades (``D C H S``, suit ``0..3``).

So card 0 is ``3D`` (the lowest card) and card 51 is ``2S`` (the highest single).

Examples:
    >>> parse_cards("3D 10s K♥")
    [0, 31, 42]
    >>> format_cards([0, 31, 42])
    '3D TS KH'
    >>> card_rank(parse_card("2S")), card_suit(parse_card("2S"))
    (12, 3)
"""

from __future__ import annotations

from typing import Iterable, Sequence

RANK_CHARS = "3456789TJQKA2"
SUIT_CHARS = "DCHS"
SUIT_SYMBOLS = "♦♣♥♠"
NUM_CARDS = 52
NUM_RANKS = 13
NUM_SUITS = 4
THREE_OF_DIAMONDS = 0

_RANK_ALIASES = {ch: i for i, ch in enumerate(RANK_CHARS)}
_RANK_ALIASES["10"] = RANK_CHARS.index("T")
_SUIT_ALIASES = {ch: i for i, ch in enumerate(SUIT_CHARS)}
_SUIT_ALIASES.update({ch: i for i, ch in enumerate(SUIT_SYMBOLS)})
# Outline glyphs (♢ ♧ ♡ ♤) are sometimes used for the same suits.
_SUIT_ALIASES.update({ch: i for i, ch in enumerate("♢♧♡♤")})

_CARD_NAMES = tuple(r + s for r in RANK_CHARS for s in SUIT_CHARS)
PASS_WORDS = frozenset({"pass", "p", "-"})


def card_rank(card: int) -> int:
    """Rank 0..12 of a card (0 is a three, 12 is a two)."""
    return card >> 2


def card_suit(card: int) -> int:
    """Suit 0..3 of a card (diamonds, clubs, hearts, spades)."""
    return card & 3


def make_card(rank: int, suit: int) -> int:
    """Card id from a rank 0..12 and a suit 0..3."""
    if not (0 <= rank < NUM_RANKS and 0 <= suit < NUM_SUITS):
        raise ValueError(f"rank must be in 0..12 and suit in 0..3, got rank={rank}, suit={suit}")
    return rank * 4 + suit


def card_str(card: int) -> str:
    """Text form of one card id, e.g. ``card_str(0) == '3D'``."""
    return _CARD_NAMES[check_card(card)]


def check_card(card: object) -> int:
    """Return ``card`` as an int if it is a valid card id, else raise ``ValueError``."""
    try:
        as_int = int(card)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        raise ValueError(f"a card id must be an int in 0..51, got {card!r}") from None
    if as_int != card or not 0 <= as_int < NUM_CARDS or isinstance(card, bool):
        raise ValueError(f"a card id must be an int in 0..51, got {card!r}")
    return as_int


def parse_card(token: str) -> int:
    """Parse one card such as ``"TS"``, ``"10s"``, ``"3♦"``; raise ``ValueError`` naming a bad token."""
    text = token.strip()
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
    if not isinstance(text, str):
        raise ValueError(f"card text must be a str, got {type(text).__name__}")
    cards: list[int] = []
    for token in _tokens(text):
        card = parse_card(token)
        if card in cards:
            raise ValueError(f"card {card_str(card)} is given twice in {text!r}")
        cards.append(card)
    return cards


def parse_play(text: str) -> tuple[int, ...]:
    """Parse a play: card text (sorted into a tuple) or ``pass`` for the empty play ``()``."""
    if text.strip().lower() in PASS_WORDS:
        return ()
    cards = parse_cards(text)
    if not cards:
        raise ValueError("empty play: type cards such as '3D 3S', or 'pass'")
    return tuple(sorted(cards))


def format_cards(cards: Iterable[int]) -> str:
    """Cards as space-separated text in the order given, e.g. ``'3D TS'``."""
    return " ".join(card_str(c) for c in cards)


def format_play(play: Sequence[int]) -> str:
    """A play as text: its cards in ascending order, or ``'pass'`` for ``()``."""
    return format_cards(sorted(play)) if len(play) else "pass"


def cards_to_mask(cards: Iterable[int]) -> int:
    """Bitmask with bit ``c`` set for each card ``c``."""
    mask = 0
    for c in cards:
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
