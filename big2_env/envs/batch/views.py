"""The views a batch writes, each chosen by its id, each with its own memory of the game.

* ``"paper"``, id :data:`PAPER` (0): 277 numbers, no memory (they come from the rules state,
  :func:`big2_env.observations.compiled.write_observation`);
* ``"extended"``, id :data:`EXTENDED` (1): 315 numbers, 21 memory columns per game
  (:mod:`big2_env.envs.batch.extended`);
* ``"charlesworth"``, id :data:`CHARLESWORTH` (2): 412 numbers, 9 memory columns per game
  (:mod:`big2_env.observations.charlesworth`).

The stepper (:mod:`big2_env.envs.batch.moves`) calls :func:`clear_memory` at each deal and
:func:`on_move` before each move changes the rules state; :func:`write_view` writes a seat's
numbers. A batch holds one view: its memory is :func:`new_memory` of that view.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...engine.core.games import T_MASK, T_PASSES
from ...observations.compiled import OBS_SIZE, write_observation
from ...observations import charlesworth
from . import extended
from .layout import H0, P0, T0

__all__ = ["CHARLESWORTH", "EXTENDED", "MEMORY_SIZES", "PAPER", "VIEW_IDS", "VIEW_SIZES", "clear_memory", "new_memory",
           "on_move", "write_view"]

PAPER, EXTENDED, CHARLESWORTH = 0, 1, 2
VIEW_IDS = {"paper": PAPER, "extended": EXTENDED, "charlesworth": CHARLESWORTH}
"""Each view's id, what the kernels take."""
VIEW_SIZES = {"paper": OBS_SIZE, "extended": extended.EXTENDED_SIZE, "charlesworth": charlesworth.CHARLESWORTH_SIZE}
"""Each view's numbers."""
MEMORY_SIZES = {"paper": 0, "extended": extended.MEMORY_SIZE, "charlesworth": charlesworth.MEMORY_SIZE}
"""Each view's memory columns per game."""


def new_memory(view: str, n: int) -> np.ndarray:
    """The memory of ``view`` for ``n`` games: int64 ``(n, MEMORY_SIZES[view])`` (set at each deal)."""
    return np.zeros((n, MEMORY_SIZES[view]), dtype=np.int64)


@njit(cache=True)
def clear_memory(view, memory, g):  # pragma: no cover - compiled
    """Game ``g``'s memory of ``view`` at its deal."""
    if view == EXTENDED:
        extended.clear(memory, g)
    elif view == CHARLESWORTH:
        charlesworth.clear(memory, g)


@njit(cache=True)
def on_move(view, state, memory, g, player, play):  # pragma: no cover - compiled
    """Game ``g``'s memory of ``view`` hears that ``player`` (on move) plays ``play`` (0: passes);
    ``state`` is still the one the move is made in."""
    if view == EXTENDED:
        extended.on_move(state, memory, g, player, play)
    elif view == CHARLESWORTH:
        charlesworth.on_move(memory, g, player, play)


@njit(cache=True)
def write_view(view, state, memory, g, player, out):  # pragma: no cover - compiled
    """``player``'s numbers of ``view`` in game ``g`` into ``out`` (float32, ``VIEW_SIZES`` of the view)."""
    if view == EXTENDED:
        extended.write(state, memory, g, player, out)
    elif view == CHARLESWORTH:
        charlesworth.write(state[g, H0 : H0 + 4], state[g, P0 : P0 + 4], memory, g, player, out)
    else:
        write_observation(state[g, H0 : H0 + 4], state[g, P0 : P0 + 4], state[g, T0 + T_MASK], state[g, T0 + T_PASSES],
                          player, out)
