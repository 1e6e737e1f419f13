"""The paper's layouts as numbers: the sizes, the slices of the 277-number state and of the
80 candidate features, and the hand-slot tuple of each of the 1695 actions; and the size of
Charlesworth's view.

Shared by :mod:`big2_env.observations.paper` (which documents them) and the compiled view
:mod:`big2_env.observations.compiled`, so that neither imports the other at import time; and by
:mod:`big2_env.players.charlesworth` and :mod:`big2_env.observations.charlesworth` alike.
"""

from __future__ import annotations

from itertools import combinations

OBS_SIZE = 277
NUM_ACTIONS = 1695
PASS_ACTION = 1694
FEATURE_SIZE = 80
HAND_SLOTS = 13
PAD_CARD = 52

OBS_HAND = slice(0, 13)
OBS_TRICK = slice(13, 65)
OBS_PLAYED = slice(65, 117)
OBS_CARDS_LEFT = slice(117, 120)
OBS_PASSES = 120
OBS_PLAYED_BY = slice(121, 277)

FEAT_CARDS = slice(0, 52)
FEAT_PASS = 52
FEAT_CATEGORY = 53
FEAT_RANK = 61
FEAT_SUIT = 74
FEAT_NUM_CARDS = 78
FEAT_RANK_SCALED = 79


def _build_slot_tuples() -> list[tuple[int, ...]]:
    slots: list[tuple[int, ...]] = [(i,) for i in range(13)]
    slots += [(i, j) for i in range(13) for j in range(i + 1, min(i + 3, 12) + 1)]
    slots += [(i, j, k) for i in range(13) for j in range(i + 1, 13) for k in range(j + 1, min(i + 3, 12) + 1)]
    slots += [
        (a, b, c, d)
        for a in range(13)
        for b in range(a + 1, min(a + 3, 12) + 1)
        for c in range(b + 1, 13)
        for d in range(c + 1, min(c + 3, 12) + 1)
    ]
    slots += list(combinations(range(13), 5))
    return slots


ACTION_SLOTS: tuple[tuple[int, ...], ...] = tuple(_build_slot_tuples()) + ((),)
assert len(ACTION_SLOTS) == NUM_ACTIONS
BLOCK_STARTS = {1: 0, 2: 13, 3: 46, 4: 77, 5: 407}

CHARLESWORTH_SIZE = 412
"""Numbers of Charlesworth's view (his network's inputs; :mod:`big2_env.players.charlesworth`)."""
