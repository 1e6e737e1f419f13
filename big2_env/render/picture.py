"""A picture of the table as an RGB array (``render_mode="rgb_array"``), drawn with numpy only.

:func:`render_rgb` draws a fixed-size ``(480, 640, 3)`` ``uint8`` frame: the four seats
around the table with their names and cards left (the seat on move highlighted in
yellow, a ``pass`` tag on the seats that passed since the trick), the active trick in
the middle with its kind and who made it, and every hand, face up where the viewer may
see it (the rule of :func:`big2_env.render.render_table`: ``"current"``, ``"all"``,
``"none"`` or a seat; all hands once the game is over) and as card backs otherwise.
Text uses a built-in 5x7 bitmap font, so no imaging library is needed.

Example:
    >>> from big2_env import Game
    >>> frame = render_rgb(Game(seed=0), viewer="all")
    >>> frame.shape, frame.dtype
    ((480, 640, 3), dtype('uint8'))
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ..engine.cards import RANK_CHARS
from ..engine.combos import classify
from .text import Viewer, _visible, check_viewer

HEIGHT, WIDTH = 480, 640
FRAME_SHAPE = (HEIGHT, WIDTH, 3)
CARD_W, CARD_H = 36, 50
_STEP_X, _STEP_Y = 26, 20  # overlap of a hand drawn across / down
_TRICK_STEP = 40

Color = tuple[int, int, int]
_FELT: Color = (18, 92, 52)
_TABLE: Color = (30, 124, 72)
_RIM: Color = (104, 68, 34)
_WHITE: Color = (250, 250, 246)
_INK: Color = (24, 24, 24)
_RED: Color = (200, 30, 36)
_GOLD: Color = (250, 206, 60)
_LABEL: Color = (12, 58, 32)
_LIGHT: Color = (236, 236, 228)
_PALE: Color = (190, 214, 196)
_BACK: Color = (38, 66, 150)
_BACK_PATTERN: Color = (78, 108, 196)
_EDGE: Color = (96, 96, 96)

# A 5x7 bitmap font: each glyph is 7 rows of 5 pixels. The suit symbols are also reachable
# by their letters through ``_SUIT_GLYPH``.
_FONT_ROWS = {
    " ": "00000 00000 00000 00000 00000 00000 00000",
    "0": "01110 10001 10011 10101 11001 10001 01110",
    "1": "00100 01100 00100 00100 00100 00100 01110",
    "2": "01110 10001 00001 00010 00100 01000 11111",
    "3": "11111 00010 00100 00010 00001 10001 01110",
    "4": "00010 00110 01010 10010 11111 00010 00010",
    "5": "11111 10000 11110 00001 00001 10001 01110",
    "6": "00110 01000 10000 11110 10001 10001 01110",
    "7": "11111 00001 00010 00100 01000 01000 01000",
    "8": "01110 10001 10001 01110 10001 10001 01110",
    "9": "01110 10001 10001 01111 00001 00010 01100",
    "A": "01110 10001 10001 10001 11111 10001 10001",
    "B": "11110 10001 10001 11110 10001 10001 11110",
    "C": "01110 10001 10000 10000 10000 10001 01110",
    "D": "11100 10010 10001 10001 10001 10010 11100",
    "E": "11111 10000 10000 11110 10000 10000 11111",
    "F": "11111 10000 10000 11110 10000 10000 10000",
    "G": "01110 10001 10000 10111 10001 10001 01111",
    "H": "10001 10001 10001 11111 10001 10001 10001",
    "I": "01110 00100 00100 00100 00100 00100 01110",
    "J": "00111 00010 00010 00010 00010 10010 01100",
    "K": "10001 10010 10100 11000 10100 10010 10001",
    "L": "10000 10000 10000 10000 10000 10000 11111",
    "M": "10001 11011 10101 10101 10001 10001 10001",
    "N": "10001 10001 11001 10101 10011 10001 10001",
    "O": "01110 10001 10001 10001 10001 10001 01110",
    "P": "11110 10001 10001 11110 10000 10000 10000",
    "Q": "01110 10001 10001 10001 10101 10010 01101",
    "R": "11110 10001 10001 11110 10100 10010 10001",
    "S": "01111 10000 10000 01110 00001 00001 11110",
    "T": "11111 00100 00100 00100 00100 00100 00100",
    "U": "10001 10001 10001 10001 10001 10001 01110",
    "V": "10001 10001 10001 10001 10001 01010 00100",
    "W": "10001 10001 10001 10101 10101 10101 01010",
    "X": "10001 10001 01010 00100 01010 10001 10001",
    "Y": "10001 10001 10001 01010 00100 00100 00100",
    "Z": "11111 00001 00010 00100 01000 10000 11111",
    "a": "00000 00000 01110 00001 01111 10001 01111",
    "b": "10000 10000 10110 11001 10001 10001 11110",
    "c": "00000 00000 01110 10000 10000 10001 01110",
    "d": "00001 00001 01101 10011 10001 10001 01111",
    "e": "00000 00000 01110 10001 11111 10000 01110",
    "f": "00110 01001 01000 11100 01000 01000 01000",
    "g": "00000 01111 10001 10001 01111 00001 01110",
    "h": "10000 10000 10110 11001 10001 10001 10001",
    "i": "00100 00000 01100 00100 00100 00100 01110",
    "j": "00010 00000 00110 00010 00010 10010 01100",
    "k": "10000 10000 10010 10100 11000 10100 10010",
    "l": "01100 00100 00100 00100 00100 00100 01110",
    "m": "00000 00000 11010 10101 10101 10001 10001",
    "n": "00000 00000 10110 11001 10001 10001 10001",
    "o": "00000 00000 01110 10001 10001 10001 01110",
    "p": "00000 00000 11110 10001 11110 10000 10000",
    "q": "00000 00000 01101 10011 01111 00001 00001",
    "r": "00000 00000 10110 11001 10000 10000 10000",
    "s": "00000 00000 01110 10000 01110 00001 11110",
    "t": "01000 01000 11100 01000 01000 01001 00110",
    "u": "00000 00000 10001 10001 10001 10011 01101",
    "v": "00000 00000 10001 10001 10001 01010 00100",
    "w": "00000 00000 10001 10001 10101 10101 01010",
    "x": "00000 00000 10001 01010 00100 01010 10001",
    "y": "00000 00000 10001 10001 01111 00001 01110",
    "z": "00000 00000 11111 00010 00100 01000 11111",
    "_": "00000 00000 00000 00000 00000 00000 11111",
    "(": "00010 00100 01000 01000 01000 00100 00010",
    ")": "01000 00100 00010 00010 00010 00100 01000",
    ":": "00000 01100 01100 00000 01100 01100 00000",
    ",": "00000 00000 00000 00000 01100 00100 01000",
    ".": "00000 00000 00000 00000 00000 01100 01100",
    "-": "00000 00000 00000 11111 00000 00000 00000",
    "+": "00000 00100 00100 11111 00100 00100 00000",
    ">": "01000 00100 00010 00001 00010 00100 01000",
    "<": "00010 00100 01000 10000 01000 00100 00010",
    "|": "00100 00100 00100 00100 00100 00100 00100",
    "/": "00000 00001 00010 00100 01000 10000 00000",
    "!": "00100 00100 00100 00100 00100 00000 00100",
    "?": "01110 10001 00001 00010 00100 00000 00100",
    "=": "00000 00000 11111 00000 11111 00000 00000",
    "'": "01100 00100 01000 00000 00000 00000 00000",
    "#": "01010 01010 11111 01010 11111 01010 01010",
    "*": "00000 00100 10101 01110 10101 00100 00000",
    "♦": "00100 01110 01110 11111 01110 01110 00100",
    "♣": "01110 01110 10101 11111 10101 00100 01110",
    "♥": "00000 01010 11111 11111 11111 01110 00100",
    "♠": "00100 01110 11111 11111 10101 00100 01110",
}
_GLYPHS = {ch: np.array([[c == "1" for c in row] for row in rows.split()], dtype=bool) for ch, rows in _FONT_ROWS.items()}
_UNKNOWN = _GLYPHS["?"]
_SUIT_GLYPH = "♦♣♥♠"  # suit 0..3 = D C H S
GLYPH_W, GLYPH_H = 5, 7


@lru_cache(maxsize=2048)
def text_mask(text: str, scale: int = 2) -> np.ndarray:
    """The pixels of ``text`` in the 5x7 font, each font pixel ``scale`` x ``scale``:
    a read-only bool array of shape ``(7 * scale, (6 * len(text) - 1) * scale)``."""
    n = len(text)
    mask = np.zeros((GLYPH_H, max(6 * n - 1, 0)), dtype=bool)
    for i, ch in enumerate(text):
        mask[:, 6 * i : 6 * i + GLYPH_W] = _GLYPHS.get(ch, _UNKNOWN)
    if scale > 1:
        mask = mask.repeat(scale, axis=0).repeat(scale, axis=1)
    mask.flags.writeable = False
    return mask


def _paint(img: np.ndarray, mask: np.ndarray, y: int, x: int, color: Color) -> None:
    """Set the pixels of ``mask`` placed at ``(y, x)`` to ``color``, clipped to the frame."""
    h, w = mask.shape
    y0, x0, y1, x1 = max(y, 0), max(x, 0), min(y + h, img.shape[0]), min(x + w, img.shape[1])
    if y0 < y1 and x0 < x1:
        np.copyto(img[y0:y1, x0:x1], np.asarray(color, dtype=np.uint8), where=mask[y0 - y : y1 - y, x0 - x : x1 - x, None])


def _rect(img: np.ndarray, y: int, x: int, h: int, w: int, color: Color) -> None:
    img[max(y, 0) : max(y + h, 0), max(x, 0) : max(x + w, 0)] = color


def _frame(img: np.ndarray, y: int, x: int, h: int, w: int, color: Color, t: int = 2) -> None:
    """The outline of a rectangle, ``t`` pixels thick."""
    _rect(img, y, x, t, w, color)
    _rect(img, y + h - t, x, t, w, color)
    _rect(img, y, x, h, t, color)
    _rect(img, y, x + w - t, h, t, color)


def _fit(text: str, max_width: int) -> np.ndarray:
    """``text`` at scale 2 if it fits in ``max_width`` pixels, else at scale 1."""
    big = text_mask(text, 2)
    return big if big.shape[1] <= max_width else text_mask(text, 1)


def _text(img: np.ndarray, text: str, y: int, x: int, color: Color, *, align: str = "left", max_width: int = WIDTH) -> None:
    mask = _fit(text, max_width)
    if align == "center":
        x -= mask.shape[1] // 2
    elif align == "right":
        x -= mask.shape[1]
    _paint(img, mask, y, x, color)


def _label(
    img: np.ndarray, lines: list[str], y: int, x: int, *, align: str, on_move: bool, max_width: int = 260
) -> tuple[int, int, int, int]:
    """A box of text lines with its top at ``y`` and its left edge, centre or right edge at
    ``x`` (``align``); gold with dark text for the seat on move. Returns ``(y, x, h, w)``."""
    masks = [_fit(line, max_width) for line in lines]
    pad, gap = 3, 3
    w = max(m.shape[1] for m in masks) + 2 * pad
    h = sum(m.shape[0] for m in masks) + gap * (len(masks) - 1) + 2 * pad
    left = x - w // 2 if align == "center" else x - w if align == "right" else x
    _rect(img, y, left, h, w, _GOLD if on_move else _LABEL)
    ink = _INK if on_move else _LIGHT
    top = y + pad
    for m in masks:
        mx = left + (w - m.shape[1]) // 2 if align == "center" else left + pad if align == "left" else left + w - pad - m.shape[1]
        _paint(img, m, top, mx, ink)
        top += m.shape[0] + gap
    return y, left, h, w


# ---------------------------------------------------------------- card sprites
def _card_outline() -> tuple[np.ndarray, np.ndarray]:
    """The card's shape (rectangle with chamfered corners) and its 1-pixel border."""
    shape = np.ones((CARD_H, CARD_W), dtype=bool)
    for dy, dx in ((0, 0), (0, 1), (1, 0)):
        shape[dy, dx] = shape[dy, -1 - dx] = shape[-1 - dy, dx] = shape[-1 - dy, -1 - dx] = False
    padded = np.pad(shape, 1)
    inner = shape & padded[:-2, 1:-1] & padded[2:, 1:-1] & padded[1:-1, :-2] & padded[1:-1, 2:]
    return shape, shape & ~inner


@lru_cache(maxsize=64)
def card_sprite(card: int | None) -> np.ndarray:
    """The picture of a card face (``card`` 0..51) or of a card back (``None``)."""
    _, border = _card_outline()
    rgb = np.empty((CARD_H, CARD_W, 3), dtype=np.uint8)
    if card is None:
        yy, xx = np.mgrid[0:CARD_H, 0:CARD_W]
        rgb[:] = _BACK
        rgb[((yy + xx) % 6 == 0) | ((yy - xx) % 6 == 0)] = _BACK_PATTERN
        _frame(rgb, 2, 2, CARD_H - 4, CARD_W - 4, _WHITE, 2)
    else:
        rank, suit = card >> 2, card & 3
        ink = _RED if suit in (0, 2) else _INK
        rgb[:] = _WHITE
        _paint(rgb, text_mask(RANK_CHARS[rank], 2), 3, 3, ink)
        _paint(rgb, text_mask(_SUIT_GLYPH[suit], 2), 3, 15, ink)
        big = text_mask(_SUIT_GLYPH[suit], 3)
        _paint(rgb, big, CARD_H - big.shape[0] - 5, (CARD_W - big.shape[1]) // 2, ink)
    rgb[border] = _EDGE
    rgb.flags.writeable = False
    return rgb


_CORNERS = np.nonzero(~_card_outline()[0])  # the few pixels outside a card's shape


def _draw_card(img: np.ndarray, card: int | None, y: int, x: int) -> None:
    """The card with its top-left corner at ``(y, x)`` (every card of the layout lies inside the frame)."""
    region = img[y : y + CARD_H, x : x + CARD_W]
    corners = region[_CORNERS]
    region[:] = card_sprite(card)
    region[_CORNERS] = corners


# ---------------------------------------------------------------- the table
@lru_cache(maxsize=1)
def _background() -> np.ndarray:
    img = np.empty(FRAME_SHAPE, dtype=np.uint8)
    img[:] = _FELT
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    cy, cx, a, b = 248, WIDTH // 2, 170, 120
    r = ((xx - cx) / a) ** 2 + ((yy - cy) / b) ** 2
    img[r <= 1.0] = _RIM
    img[((xx - cx) / (a - 7)) ** 2 + ((yy - cy) / (b - 7)) ** 2 <= 1.0] = _TABLE
    img.flags.writeable = False
    return img


# Where each table position draws: 0 bottom, 1 left, 2 top, 3 right (clockwise from the bottom).
_HAND_Y = {0: 400, 2: 46}
_HAND_X = {1: 12, 3: WIDTH - 12 - CARD_W}
_SIDE_CENTER_Y = 262


def _hand_origin(position: int, n: int) -> tuple[int, int, int, int]:
    """Top-left corner and the step between cards of a hand of ``n`` cards at ``position``."""
    if position in (0, 2):
        width = (n - 1) * _STEP_X + CARD_W
        return _HAND_Y[position], WIDTH // 2 - width // 2, 0, _STEP_X
    height = (n - 1) * _STEP_Y + CARD_H
    return _SIDE_CENTER_Y - height // 2, _HAND_X[position], _STEP_Y, 0


def _seat_label(img: np.ndarray, position: int, lines: list[str], on_move: bool, passed: bool) -> None:
    if position in (0, 2):
        y = 456 if position == 0 else 21
        box_y, box_x, _, box_w = _label(img, ["  ".join(lines)], y, WIDTH // 2, align="center", on_move=on_move, max_width=420)
        if passed:
            _label(img, ["pass"], box_y, box_x + box_w + 8, align="left", on_move=False)
        return
    x = _HAND_X[1] + CARD_W + 8 if position == 1 else _HAND_X[3] - 8
    align = "left" if position == 1 else "right"
    box_y, _, box_h, _ = _label(img, lines, 200, x, align=align, on_move=on_move, max_width=110)
    if passed:
        _label(img, ["pass"], box_y + box_h + 6, x, align=align, on_move=False)


def render_rgb(game: Any, viewer: Viewer = "current", names: list[str] | None = None) -> np.ndarray:
    """The table as a ``(480, 640, 3)`` ``uint8`` RGB picture.

    Args:
        game: a :class:`big2_env.Game`, or ``None`` for an empty table ("call reset()").
        viewer: whose hands are face up: ``"current"``, ``"all"``, ``"none"``/``None`` or a
            seat 0..3 (see :func:`big2_env.render.check_viewer`); all hands once the game is over.
        names: the four seats' names (default ``player_0`` .. ``player_3``).

    The seat at the bottom is ``viewer`` when it is a seat, else seat 0; the others follow
    clockwise: left, top, right.
    """
    viewer = check_viewer(viewer)
    bottom = viewer if isinstance(viewer, int) else 0
    names = list(names) if names is not None else [f"player_{i}" for i in range(4)]
    if len(names) != 4 or not all(isinstance(n, str) for n in names):
        raise ValueError(f"names must be 4 strings, got {names!r}")
    img = _background().copy()
    if game is None:
        _text(img, "Big 2", 4, 8, _LIGHT)
        _text(img, "call reset() to deal", 240, WIDTH // 2, _LIGHT, align="center")
        return img

    over = game.is_over
    mover = None if over else game.current_player
    status = "game over" if over else f"{names[game.current_player]} to move"
    played = bin(game.played_mask).count("1")
    _text(img, f"Big 2 | turn {game.turn} | {status}", 4, 8, _LIGHT, max_width=560)
    _text(img, f"played {played}", 8, WIDTH - 8, _PALE, align="right", max_width=90)

    passed_seats = set()
    if game.trick is not None:
        passed_seats = {(game.trick_player + k) % 4 for k in range(1, game.passes + 1)}
    scores = game.scores() if over else None
    for seat in range(4):
        position = (seat - bottom) % 4
        hand = game.hand(seat)
        n = len(hand)
        face_up = _visible(viewer, seat, game)
        if n:
            y, x, dy, dx = _hand_origin(position, n)
            if seat == mover:
                w = (n - 1) * dx + CARD_W
                h = (n - 1) * dy + CARD_H
                _frame(img, y - 4, x - 4, h + 8, w + 8, _GOLD, 2)
            for i, card in enumerate(hand):
                _draw_card(img, card if face_up else None, y + i * dy, x + i * dx)
        lines = (names[seat].split() if position in (1, 3) else [names[seat]]) + [f"{n} card{'s' if n != 1 else ''}"]
        if scores is not None:
            lines.append(f"score {scores[seat]:+d}")
        _seat_label(img, position, lines, seat == mover, seat in passed_seats)

    cx = WIDTH // 2
    if over:
        _text(img, f"{names[game.winner]} wins", 226, cx, _GOLD, align="center", max_width=330)
    elif game.trick is None:
        verb = "opens" if game.is_opening else "leads"
        _text(img, f"{names[game.current_player]} {verb}", 226, cx, _LIGHT, align="center", max_width=330)
        if game.is_opening:
            _text(img, game.rules.opening.replace("_", " "), 250, cx, _PALE, align="center", max_width=330)
    else:
        trick = game.trick
        combo = classify(trick, game.rules)
        kind = f"{combo.name} " if combo else ""
        _text(img, f"{kind}by {names[game.trick_player]}", 194, cx, _LIGHT, align="center", max_width=330)
        width = (len(trick) - 1) * _TRICK_STEP + CARD_W
        for i, card in enumerate(trick):
            _draw_card(img, card, 220, cx - width // 2 + i * _TRICK_STEP)
        if game.passes:
            _text(img, f"{game.passes} pass{'es' if game.passes != 1 else ''} since", 280, cx, _PALE, align="center")
    return img
