"""Charlesworth's view in compiled code: the 412 numbers his network reads (laid out and explained
in :mod:`big2_env.players.charlesworth`, quirks included), with its own memory of the game (numba).

His game keeps parts of the view move by move rather than from the cards; so does this view's memory, int64
``(N, MEMORY_SIZE)``: :data:`FLAGS` (per seat, the kind flags of its block, bit ``f - 21`` for flag
``f``, 21..26), :data:`LAST` (per viewer, his last-play section, numbers 383..411: bit ``i`` for
number ``383 + i``) and :data:`PASSES` (his pass counter, 0..2), kept by :func:`on_move`.
The batch stepper keeps one memory row per game (:mod:`big2_env.envs.batch.views`);
:func:`replay_input` builds one from a move history (what
:func:`big2_env.players.charlesworth.network_input` returns). Tested number by number against the
pure-Python view of ``tests/reference/charlesworth_view.py``.
"""

from __future__ import annotations

from numba import njit

import numpy as np

from ..engine.core.kernels import leading_zeros, popcount
from .layout import CHARLESWORTH_SIZE

__all__ = ["CHARLESWORTH_SIZE", "FLAGS", "LAST", "MEMORY_SIZE", "PASSES", "clear", "on_move", "replay_input", "write"]

FLAGS = 0
"""Memory columns 0..3: each seat's kind flags."""
LAST = FLAGS + 4
"""Memory columns 4..7: each viewer's last-play section."""
PASSES = LAST + 4
"""Memory column: his pass counter."""
MEMORY_SIZE = PASSES + 1
# his sections and last-play numbers (big2_env.players.charlesworth): other players, record, last play
_OTHERS, _RECORD, _LAST = 286, 367, 383
_SUIT_BITS = 0x1111111111111  # the diamonds' bits (shift by the suit for the others)
_CONTROL, _NO_PASS, _ONE_PASS, _TWO_PASSES = 17, 26, 27, 28
_SINGLE, _TWO_PAIR, _QUADS, _STRAIGHT, _FLUSH, _FULL_HOUSE = 18, 21, 22, 23, 24, 25


@njit(cache=True)
def clear(memory, g):  # pragma: no cover - compiled
    """Game ``g`` at its deal: no flags, no last play, no passes."""
    for k in range(MEMORY_SIZE):
        memory[g, k] = 0


@njit(cache=True)
def write(hands, played_by, memory, g, player, out):  # pragma: no cover - compiled
    """``player``'s 412 numbers of game ``g`` into ``out``, as Charlesworth's game computes them: his
    hand's 13 slots of 22, the three other players (next, across, previous) from their hands' sizes,
    cards played and the kind flags :func:`on_move` kept, the sixteen cards Q-D .. 2-S anyone played,
    and the last-play section it kept for ``player``. ``hands`` and ``played_by`` are the four seats'
    card masks (of the others' hands only the number of cards is read)."""
    out[:] = 0.0
    hand = hands[player]
    in_run = 0  # bit r: rank r is in a run of five or more consecutive ranks held
    start = 0
    for r in range(14):
        if r == 13 or (hand >> (4 * r)) & 15 == 0:
            if r - start >= 5:
                in_run |= ((1 << (r - start)) - 1) << start
            start = r + 1
    slot = 0
    for c in range(52):
        if (hand >> c) & 1:
            base = 22 * slot
            r = c >> 2
            held = popcount((hand >> (4 * r)) & 15)
            out[base + r] = 1.0
            out[base + 13 + (c & 3)] = 1.0
            out[base + 17] = 1.0 if held >= 2 else 0.0
            out[base + 18] = 1.0 if held >= 3 else 0.0
            out[base + 19] = 1.0 if held == 4 else 0.0
            out[base + 20] = (in_run >> r) & 1
            out[base + 21] = 1.0 if popcount(hand & (_SUIT_BITS << (c & 3))) >= 5 else 0.0
            slot += 1
    played = 0
    for seat in range(4):
        played |= played_by[seat]
    for k in range(3):
        seat = (player + 1 + k) % 4
        block = _OTHERS + 27 * k
        left = popcount(hands[seat])
        if left:
            out[block + left - 1] = 1.0
        mine = played_by[seat]
        for c in range(44, 52):  # A-D .. 2-S
            out[block + 13 + c - 44] = (mine >> c) & 1
        flags = memory[g, FLAGS + seat]
        for f in range(6):
            out[block + 21 + f] = (flags >> f) & 1
    for c in range(36, 52):  # Q-D .. 2-S
        out[_RECORD + c - 36] = (played >> c) & 1
    last = memory[g, LAST + player]
    for i in range(29):
        out[_LAST + i] = (last >> i) & 1


@njit(cache=True)
def _nth_card(cards, n):  # pragma: no cover - compiled
    """The ``n``-th lowest card id of the bitmask ``cards`` (0: the lowest)."""
    for _ in range(n):
        cards &= cards - 1
    return popcount((cards & -cards) - 1)


@njit(cache=True)
def on_move(memory, g, player, play):  # pragma: no cover - compiled
    """The mover ``player`` plays ``play`` (0: a pass) in game ``g``, as his game records it (quirks
    included): the mover's kind flags, every viewer's last-play section, the pass counter."""
    if play == 0:
        passes = memory[g, PASSES]
        for k in range(1, 4):
            viewer = (player + k) % 4
            if passes < 2:
                last = memory[g, LAST + viewer] & ~(7 << _NO_PASS)
                memory[g, LAST + viewer] = last | (1 << (_ONE_PASS if passes == 0 else _TWO_PASSES))
            else:
                memory[g, LAST + viewer] = 0
        if passes < 2:
            memory[g, PASSES] = passes + 1
        else:  # the third pass: the player after the passer takes control
            memory[g, LAST + (player + 1) % 4] = 1 << _CONTROL
            memory[g, PASSES] = 0
        return
    n = popcount(play)
    top = 63 - leading_zeros(play)
    flags = 0
    key = top >> 2  # the key card's value - 1 (a bit of the section), and its suit slot (-1: none)
    suit = top & 3
    if n <= 3:  # kind: the bits of the section's kind slots
        kind = 1 << (_SINGLE + n - 1)  # single, pair, triple
        if n >= 2:
            flags = 1 << (n - 2)
    elif n == 4:
        flags = 1 << 2
        r0, r1, r2 = _nth_card(play, 0) >> 2, _nth_card(play, 1) >> 2, _nth_card(play, 2) >> 2
        kind = 1 << (_TWO_PAIR if r0 == r1 and r2 == top >> 2 and r0 != r2 else _QUADS)
    else:
        rank_bits = 0
        suit_bits = 0
        for c in range(52):
            if (play >> c) & 1:
                rank_bits |= 1 << (c >> 2)
                suit_bits |= 1 << (c & 3)
        low = popcount((rank_bits & -rank_bits) - 1)
        kind = 0
        if rank_bits == 31 << low:  # five consecutive values
            flags |= 1 << 3
            kind |= 1 << _STRAIGHT
        if popcount(suit_bits) == 1:
            flags |= 1 << 4
            kind |= 1 << _FLUSH
        else:  # a full house, or (his quirk) a plain straight: keyed by the middle card, no suit
            flags |= 1 << 5
            kind |= 1 << _FULL_HOUSE
            key = _nth_card(play, 2) >> 2
            suit = -1
    section = kind | (1 << key) | (1 << _NO_PASS)
    if suit >= 0:
        section |= 1 << (13 + suit)
    for k in range(1, 4):
        memory[g, LAST + (player + k) % 4] = section
    memory[g, LAST + player] = 0
    memory[g, FLAGS + player] |= flags
    memory[g, PASSES] = 0


@njit(cache=True)
def replay_input(seats, plays, hand, out):  # pragma: no cover - compiled
    """The 412 numbers of the player in seat 0 into ``out`` (float32), after the moves of ``seats`` and
    ``plays`` (card masks, 0: a pass; seats relative to that player) from the deal, holding the
    cards of the mask ``hand``; each other seat holds 13 cards less those it played."""
    memory = np.zeros((1, MEMORY_SIZE), dtype=np.int64)
    played_by = np.zeros(4, dtype=np.int64)
    for i in range(len(seats)):
        on_move(memory, 0, seats[i], plays[i])
        played_by[seats[i]] |= plays[i]
    hands = np.empty(4, dtype=np.int64)
    hands[0] = hand
    for seat in range(1, 4):
        hands[seat] = (1 << (13 - popcount(played_by[seat]))) - 1
    write(hands, played_by, memory, 0, 0, out)
