"""The reference paper view (pure Python): the 277-number information state, number by number.

:func:`big2_env.observations.paper.observation` writes it through the compiled kernel
(:func:`big2_env.observations.compiled.write_observation`); this is the independent statement of
the layout (the table of :mod:`big2_env.observations.paper`) that the kernel is tested against
(``tests/observations/test_encoding.py``, ``tests/differential/test_core.py``,
``tests/differential/test_reference_engine.py``). It reads only a game's public interface
(``hand``, ``cards_left``, ``trick``, ``passes``, ``played_by_mask``), so it serves the package's
:class:`~big2_env.engine.game.Game` and the reference :class:`tests.reference.game.Game` alike.
"""

from __future__ import annotations

import numpy as np

__all__ = ["observation"]


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def observation(game, player: int) -> np.ndarray:
    """The 277 float32 numbers of ``player`` in ``game``: the hand as card ids padded with 52 (0:13),
    the active trick (13:65), every card played (65:117), the others' cards left (117:120), the
    passes (120), the cards each other player played (121:277); the others clockwise from ``player``."""
    obs = np.zeros(277, dtype=np.float32)
    hand = sorted(int(c) for c in game.hand(player))
    obs[0:13] = hand + [52] * (13 - len(hand))
    for c in game.trick or ():
        obs[13 + c] = 1.0
    for seat in range(4):
        for c in _cards(game.played_by_mask[seat]):
            obs[65 + c] = 1.0
    for k in range(3):
        other = (player + 1 + k) % 4
        obs[117 + k] = game.cards_left(other)
        for c in _cards(game.played_by_mask[other]):
            obs[121 + 52 * k + c] = 1.0
    obs[120] = game.passes
    return obs
