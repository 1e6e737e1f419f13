"""The reference Charlesworth view (pure Python): his 412 numbers, updated move by move as his game
updates them, quirks included (the table and the quirks are in :mod:`big2_env.players.charlesworth`).

:func:`big2_env.players.charlesworth.network_input` and the vector env's ``"charlesworth"`` view
write them through the compiled kernels of :mod:`big2_env.observations.charlesworth`; this is the
independent statement they are tested against (``tests/players/test_charlesworth.py``,
``tests/envs/test_vector_charlesworth.py``).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["INPUT_SIZE", "network_input"]

INPUT_SIZE = 412


_HAND, _OTHERS, _RECORD, _LAST = 0, 286, 367, 383
_BLOCK = 27
# the last play's kind, at _LAST + 18 ..: single, pair, triple, two pair, quads, straight, flush, full house
_SINGLE, _PAIR, _TRIPLE, _TWO_PAIR, _QUADS, _STRAIGHT, _FLUSH, _FULL_HOUSE = range(18, 26)
_CONTROL, _NO_PASS, _ONE_PASS, _TWO_PASSES = 17, 26, 27, 28
_SUIT_SLOT = (13, 14, 15, 16)  # by our suit index (D, C, H, S); his numbers them card % 4 on cards 1..52: 1, 2, 3, 0


def _value(card: int) -> int:
    """His card value 1 (a three) .. 13 (a two) of our card id."""
    return (card >> 2) + 1


def _consecutive(play: Sequence[int]) -> bool:
    return all(_value(b) == _value(a) + 1 for a, b in zip(play, play[1:]))


def _same_rank(play: Sequence[int]) -> bool:
    return len({c >> 2 for c in play}) == 1


class _Inputs:
    """The four players' 412 numbers, updated move by move as his game updates them (seats are
    ours, relative or absolute: the next player after ``s`` is ``s + 1``)."""

    def __init__(self) -> None:
        self.x = np.zeros((4, INPUT_SIZE), dtype=np.float32)
        for k in range(3):
            self.x[:, _OTHERS + _BLOCK * k + 12] = 1  # every other player holds 13 cards
        self.passes = 0
        self.left = [13, 13, 13, 13]

    def play(self, seat: int, cards: Sequence[int]) -> None:
        self.left[seat] -= len(cards)
        self.passes = 0
        x = self.x
        kind, key, suited = self._kind(cards)
        for k in range(3):  # the player k+1 seats behind the mover sees the mover in block k
            viewer = (seat - 1 - k) % 4
            block = _OTHERS + _BLOCK * k
            x[viewer, block : block + 13] = 0
            if self.left[seat]:  # (his game ends before updating after the last card)
                x[viewer, block + self.left[seat] - 1] = 1
            for c in cards:
                if c >= 44:  # A-D .. 2-S
                    x[viewer, block + 13 + c - 44] = 1
            x[viewer, _LAST:] = 0
            for flag in self._flags(cards):
                x[viewer, block + flag] = 1
            for slot in kind:
                x[viewer, _LAST + slot] = 1
            x[viewer, _LAST + key - 1] = 1
            if suited is not None:
                x[viewer, _LAST + _SUIT_SLOT[suited]] = 1
            x[viewer, _LAST + _NO_PASS] = 1
        x[seat, _LAST:] = 0
        for c in cards:
            if c >= 36:  # Q-D .. 2-S
                x[:, _RECORD + c - 36] = 1

    def pass_(self, seat: int) -> None:
        viewers = [(seat - 1 - k) % 4 for k in range(3)]
        x = self.x
        if self.passes < 2:
            for viewer in viewers:
                x[viewer, _LAST + _NO_PASS :] = 0
                x[viewer, _LAST + (_ONE_PASS if self.passes == 0 else _TWO_PASSES)] = 1
            self.passes += 1
        else:  # the third pass: the player after the passer takes control
            for viewer in viewers:
                x[viewer, _LAST:] = 0
            x[(seat + 1) % 4, _LAST + _CONTROL] = 1
            self.passes = 0

    @staticmethod
    def _flags(cards: Sequence[int]) -> list[int]:
        """The block flags a play sets (pair 21 .. full house 26), with his straight quirk."""
        n = len(cards)
        if n == 2:
            return [21]
        if n == 3:
            return [22]
        if n == 4:
            return [23]
        if n != 5:
            return []
        flags = []
        if _consecutive(cards):
            flags.append(24)
        if len({c & 3 for c in cards}) == 1:
            flags.append(25)
        else:
            flags.append(26)  # his full-house test is always true here
        return flags

    @staticmethod
    def _kind(cards: Sequence[int]) -> tuple[list[int], int, int | None]:
        """The last-play slots a play sets, its key card's value and its suit (``None``: no suit)."""
        n = len(cards)
        if n == 1:
            return [_SINGLE], _value(cards[0]), cards[0] & 3
        if n == 2:
            return [_PAIR], _value(cards[1]), cards[1] & 3
        if n == 3:
            return [_TRIPLE], _value(cards[2]), cards[2] & 3
        if n == 4:
            two_pair = _same_rank(cards[:2]) and _same_rank(cards[2:]) and not _same_rank(cards)
            return [_TWO_PAIR if two_pair else _QUADS], _value(cards[3]), cards[3] & 3
        kind: list[int] = []
        key: int = _value(cards[4])
        suited: int | None = cards[4] & 3
        if _consecutive(cards):
            kind.append(_STRAIGHT)
        if len({c & 3 for c in cards}) == 1:
            kind.append(_FLUSH)
        else:  # a full house, or (his quirk) a plain straight: keyed by the middle card, no suit
            kind.append(_FULL_HOUSE)
            key, suited = _value(cards[2]), None
        return kind, key, suited


def _hand_numbers(hand: Sequence[int]) -> np.ndarray:
    """The 286 hand numbers of a sorted hand (see the module docstring)."""
    out = np.zeros(286, dtype=np.float32)
    ranks = [0] * 13
    suits = [0] * 4
    for c in hand:
        ranks[c >> 2] += 1
        suits[c & 3] += 1
    in_run = [False] * 13
    start = 0
    present = [r for r in range(13) if ranks[r]]
    for i in range(1, len(present) + 1):  # maximal runs of consecutive values held
        if i == len(present) or present[i] != present[i - 1] + 1:
            if i - start >= 5:
                for r in present[start:i]:
                    in_run[r] = True
            start = i
    for slot, c in enumerate(hand):
        base = 22 * slot
        r = c >> 2
        out[base + r] = 1
        out[base + 13 + (c & 3)] = 1
        out[base + 17] = ranks[r] >= 2
        out[base + 18] = ranks[r] >= 3
        out[base + 19] = ranks[r] == 4
        out[base + 20] = in_run[r]
        out[base + 21] = suits[c & 3] >= 5
    return out


def network_input(history: Sequence[tuple[int, Sequence[int]]], hand: Sequence[int]) -> np.ndarray:
    """His 412 numbers for the player on move (seat 0), from the public move history in seats
    relative to that player (``(seat, cards)`` pairs from the first move, ``()`` for a pass: what
    :func:`big2_env.observations.extended.history_moves` reads from an observation's
    ``"history"``) and the player's hand (card ids).
    """
    inputs = _Inputs()
    for seat, cards in history:
        if cards:
            inputs.play(seat, sorted(cards))
        else:
            inputs.pass_(seat)
    x = inputs.x[0].copy()
    x[:286] = _hand_numbers(sorted(hand))
    return x
