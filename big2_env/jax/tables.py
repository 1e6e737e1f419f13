"""The static tables of the JAX core, built once with numpy at import (no jax here).

The 1695-action index names sets of hand slots (:data:`big2_env.observations.paper.ACTION_SLOTS`):
slot ``s`` is the ``s``-th lowest card the mover holds *now* (the hand shrinks, so the slots
move). These tables turn an action into slots, and slots into cards, with one gather:

* :data:`SLOTS` ``(1695, 5)``: each action's slots, ascending, padded with :data:`PAD_SLOT` (13),
  the slot that always holds the pad card 52 (pass is all padding);
* :data:`SIZES` ``(1695,)``: each action's number of cards (0 for pass);
* :data:`BLOCKS`: ``(start, stop, size)`` of the five blocks of plays (singles .. five-card sets);
* :data:`STRAIGHT_SHAPES`: per ``straights`` option, the 13-bit rank masks of its straights,
  lowest first (a straight's shape index orders it before its top card does), as the compiled
  core's :func:`~big2_env.engine.core.kernels.straight_shape_masks`;
* :data:`RUN_WINDOWS`, :data:`IN_WINDOW`: the nine windows of five consecutive ranks and which
  ranks each covers (Charlesworth's "in a run of five or more" flag).

Example:
    >>> SLOTS.shape, int(SIZES[13]), SLOTS[13].tolist(), BLOCKS[4]
    ((1695, 5), 2, [0, 1, 13, 13, 13], (407, 1694, 5))
    >>> [bin(m) for m in STRAIGHT_SHAPES["to_two"][-1:]]  # J Q K A 2
    ['0b1111100000000']
"""

from __future__ import annotations

import numpy as np

from ..engine.rules import STRAIGHTS, straight_shapes
from ..observations.paper import ACTION_SLOTS, BLOCK_STARTS, NUM_ACTIONS, PASS_ACTION

__all__ = [
    "BLOCKS",
    "IN_WINDOW",
    "NUM_ACTIONS",
    "PAD_CARD",
    "PAD_SLOT",
    "PASS_ACTION",
    "RUN_WINDOWS",
    "SIZES",
    "SLOTS",
    "STRAIGHT_SHAPES",
]

PAD_SLOT = 13
"""The slot past the last: it holds :data:`PAD_CARD` in every hand (the padding of short actions)."""
PAD_CARD = 52
"""The card id that pads a hand's sorted cards (rank 13, beyond every real card)."""

SLOTS = np.full((NUM_ACTIONS, 5), PAD_SLOT, dtype=np.int32)
SIZES = np.zeros(NUM_ACTIONS, dtype=np.int32)
for _index, _slots in enumerate(ACTION_SLOTS):
    SLOTS[_index, : len(_slots)] = _slots
    SIZES[_index] = len(_slots)

BLOCKS: tuple[tuple[int, int, int], ...] = tuple(
    (BLOCK_STARTS[size], BLOCK_STARTS[size + 1] if size < 5 else PASS_ACTION, size) for size in range(1, 6)
)
"""``(start, stop, size)`` of the singles, pairs, triples, four-card and five-card blocks of the index."""

STRAIGHT_SHAPES: dict[str, np.ndarray] = {
    name: np.array([sum(1 << r for r in shape) for shape in straight_shapes(name)], dtype=np.int32) for name in STRAIGHTS
}

RUN_WINDOWS = np.array([[start + k for k in range(5)] for start in range(9)], dtype=np.int32)
"""The nine windows of five consecutive ranks (3-4-5-6-7 .. T-J-Q-K-A-2 is ranks 8..12), as rank lists."""
IN_WINDOW = np.array([[start <= r < start + 5 for start in range(9)] for r in range(13)], dtype=bool)
"""``IN_WINDOW[r, w]``: rank ``r`` lies in window ``w`` of :data:`RUN_WINDOWS`."""
