"""The rules state of the batch stepper: one int64 row per game, nothing but the game itself.

A row holds, in this order (:data:`STATE_DTYPE` names each field; :func:`records` reads a state
through it):

* columns 0..3, ``hands``: each seat's hand, a card bitmask (bit ``c``: card id ``c``, 0 = 3D .. 51 = 2S);
* columns 4..7, ``played``: the cards each seat has played in this game;
* columns 8..16, ``table``: the core's table (:data:`big2_env.engine.core.games.TABLE_FIELDS`: the
  player on move, the trick's size, strength, category and cards, the passes in a row, the opening,
  the winner or -1, the seats that passed in this trick);
* column 17, ``turns``: the decisions made so far.

The compiled kernels address a game by its row and these column offsets (:data:`H0`, :data:`P0`,
:data:`T0`, :data:`TURNS`), as the core's :func:`~big2_env.engine.core.games.apply_move` does;
what a view remembers of the game lives in that view's own memory (:mod:`big2_env.envs.batch.views`),
never here.

Example:
    >>> import numpy as np
    >>> state = np.zeros((2, STATE_SIZE), dtype=np.int64)
    >>> state[1, H0 + 2] = 0b101
    >>> state[1, T0 + 7] = 3  # the table's winner
    >>> rows = records(state)
    >>> rows["hands"][1].tolist(), int(rows["table"]["winner"][1]), STATE_SIZE
    ([0, 0, 5, 0], 3, 18)
"""

from __future__ import annotations

import numpy as np

from ...engine.core.games import TABLE_FIELDS, TABLE_SIZE

__all__ = ["H0", "P0", "STATE_DTYPE", "STATE_SIZE", "T0", "TABLE_DTYPE", "TURNS", "new_state", "records"]

H0 = 0
"""The hands of seats 0..3: columns 0..3."""
P0 = H0 + 4
"""The cards seats 0..3 played: columns 4..7."""
T0 = P0 + 4
"""The core's table: columns 8..16."""
TURNS = T0 + TABLE_SIZE
"""The decisions made so far in the game."""
STATE_SIZE = TURNS + 1
"""Columns of a game's row."""

TABLE_DTYPE = np.dtype([(name, np.int64) for name in TABLE_FIELDS])
"""The table's nine fields, in the core's order."""
STATE_DTYPE = np.dtype([("hands", np.int64, (4,)), ("played", np.int64, (4,)), ("table", TABLE_DTYPE),
                        ("turns", np.int64)])
"""One game's row as a record: the same bytes as its :data:`STATE_SIZE` int64 columns."""


def new_state(n: int) -> np.ndarray:
    """The rules state of ``n`` games, all zeros until they are dealt: int64 ``(n, STATE_SIZE)``."""
    return np.zeros((n, STATE_SIZE), dtype=np.int64)


def records(state: np.ndarray) -> np.ndarray:
    """The games of ``state`` (int64 ``(n, STATE_SIZE)``, C order) as ``(n,)`` records of
    :data:`STATE_DTYPE` sharing its memory: ``records(state)["hands"]`` is ``(n, 4)``,
    ``records(state)["table"]["player"]`` the seats on move."""
    return state.view(STATE_DTYPE)[:, 0]
