"""Every mover's legal plays as the card-aware networks read them: the candidate rows, in compiled code.

:func:`candidate_arrays` gives, for a batch's rules state, the 80 candidate features and action
indices of each game's legal actions in ascending action order (pass last), game after game, as
:class:`~big2_env.observations.decision.Decision` lists them. The candidate rows read the rules
state only: they keep no memory.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ...engine.core.games import T_PLAYER, T_SIZE
from ...observations.compiled import FEATURE_CATEGORIES, PASS_ACTION, action_index, write_features
from ...observations.paper import FEATURE_SIZE
from .layout import H0, T0
from .moves import TABLES, chunk_games, legal, workspace

__all__ = ["candidate_arrays"]


@njit(cache=True, parallel=True)
def _counts(state, rules, counts, chunks):  # pragma: no cover - compiled
    n = state.shape[0]
    for chunk in prange(chunks):
        ws_masks, ws_sizes, ws_strengths, ws_categories, legal_at, work = workspace()
        start, stop = chunk_games(chunk, chunks, n)
        for g in range(start, stop):
            k = legal(state, g, rules, ws_masks, ws_sizes, ws_strengths, ws_categories, legal_at, work)
            counts[g] = k + 1 if state[g, T0 + T_SIZE] else k


@njit(cache=True, parallel=True)
def _rows(state, rules, tables, feature_categories, offsets, features, actions, chunks):  # pragma: no cover - compiled
    """Every game's legal plays (and pass) in ascending action order from row ``offsets[g]``: their
    80 candidate features and action indices."""
    n = state.shape[0]
    for chunk in prange(chunks):
        ws_masks, ws_sizes, ws_strengths, ws_categories, legal_at, work = workspace()
        start, stop = chunk_games(chunk, chunks, n)
        for g in range(start, stop):
            k = legal(state, g, rules, ws_masks, ws_sizes, ws_strengths, ws_categories, legal_at, work)
            hand = state[g, H0 + state[g, T0 + T_PLAYER]]
            for j in range(k):  # action indices, then an insertion sort of (action, combination) by action
                work[j] = action_index(ws_masks[legal_at[j]], hand, tables[1])
            for j in range(1, k):
                a, i = work[j], legal_at[j]
                t = j - 1
                while t >= 0 and work[t] > a:
                    work[t + 1], legal_at[t + 1] = work[t], legal_at[t]
                    t -= 1
                work[t + 1], legal_at[t + 1] = a, i
            row = offsets[g]
            for j in range(k):
                i = legal_at[j]
                actions[row] = work[j]
                write_features(ws_masks[i], ws_categories[i], feature_categories, features[row])
                row += 1
            if state[g, T0 + T_SIZE]:
                actions[row] = PASS_ACTION
                write_features(0, 0, feature_categories, features[row])


def candidate_arrays(state: np.ndarray, rules: np.ndarray, chunks: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(features (M, 80) float32, actions (M,) int64, counts (N,) int64)``: the candidate rows of
    every game of ``state`` (its mover's legal actions), ``counts[g]`` of them for game ``g``."""
    counts = np.zeros(state.shape[0], dtype=np.int64)
    _counts(state, rules, counts, chunks)
    offsets = np.cumsum(counts) - counts
    features = np.empty((int(counts.sum()), FEATURE_SIZE), dtype=np.float32)
    actions = np.empty(len(features), dtype=np.int64)
    _rows(state, rules, TABLES, FEATURE_CATEGORIES, offsets, features, actions, chunks)
    return features, actions, counts
