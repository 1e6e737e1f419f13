"""The extended view in the batch stepper: the paper's 277 numbers and 38 more
(:mod:`big2_env.observations.extended`: the mover's hand size, who holds control, who passed in
this round and the weakest play each passed on), with its own memory of the game.

Its memory, int64 ``(N, MEMORY_SIZE)``: :data:`TRICK_PLAYER` (who made the trick on the table, -1
when a player leads) and :data:`DECLINED` (per seat x trick size 1..5, the weakest strength it
passed on, -1: none), kept by :func:`on_move` before each move changes the rules state.
"""

from __future__ import annotations

from numba import njit

from ...engine.core.games import T_MASK, T_PASSED, T_PASSES, T_SIZE, T_STRENGTH
from ...engine.core.kernels import popcount
from ...observations.compiled import OBS_SIZE, write_observation
from .layout import H0, P0, T0

__all__ = ["DECLINED", "EXTENDED_SIZE", "MEMORY_SIZE", "TRICK_PLAYER", "clear", "on_move", "write"]

EXTENDED_SIZE = OBS_SIZE + 38
"""Numbers of the view."""
TRICK_PLAYER = 0
"""Memory column: who made the active trick (-1 when a player leads)."""
DECLINED = TRICK_PLAYER + 1
"""Memory columns ``DECLINED + 5 * seat + size - 1``: the weakest strength ``seat`` passed on at trick size ``size``."""
MEMORY_SIZE = DECLINED + 20
_STRENGTH_MAX = (51.0, 51.0, 51.0, 112.0, 4519.0)  # big2_env.observations.extended.STRENGTH_MAX


@njit(cache=True)
def clear(memory, g):  # pragma: no cover - compiled
    """Game ``g`` at its deal: nobody's trick, no passes on record."""
    memory[g, TRICK_PLAYER] = -1
    for k in range(20):
        memory[g, DECLINED + k] = -1


@njit(cache=True)
def on_move(state, memory, g, player, play):  # pragma: no cover - compiled
    """``player`` (on move) plays ``play`` (0: passes) in game ``g``, whose rules state is still the
    one the move is made in."""
    if play == 0:
        column = DECLINED + 5 * player + state[g, T0 + T_SIZE] - 1
        if memory[g, column] < 0 or state[g, T0 + T_STRENGTH] < memory[g, column]:
            memory[g, column] = state[g, T0 + T_STRENGTH]
        if state[g, T0 + T_PASSES] == 2:  # the third pass in a row: a new round, led by the trick's maker
            memory[g, TRICK_PLAYER] = -1
    else:
        memory[g, TRICK_PLAYER] = player


@njit(cache=True)
def write(state, memory, g, player, out):  # pragma: no cover - compiled
    """``player``'s 315 numbers of game ``g`` into ``out``."""
    write_observation(state[g, H0 : H0 + 4], state[g, P0 : P0 + 4], state[g, T0 + T_MASK], state[g, T0 + T_PASSES], player,
                      out)
    out[OBS_SIZE] = popcount(state[g, H0 + player]) / 13.0
    trick_player = memory[g, TRICK_PLAYER]
    out[OBS_SIZE + 1 + (0 if trick_player < 0 else (trick_player - player) % 4)] = 1.0
    for k in range(3):
        seat = (player + 1 + k) % 4
        out[OBS_SIZE + 5 + k] = (state[g, T0 + T_PASSED] >> seat) & 1
        for size in range(5):
            weakest = memory[g, DECLINED + 5 * seat + size]
            if weakest >= 0:
                out[OBS_SIZE + 8 + 5 * k + size] = 1.0
                out[OBS_SIZE + 23 + 5 * k + size] = weakest / _STRENGTH_MAX[size]
