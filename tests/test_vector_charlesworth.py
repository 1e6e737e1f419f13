"""The compiled vector env's extras: ``hands()`` (the full state) and Charlesworth's 412 numbers."""

from __future__ import annotations

import numpy as np
import pytest

from big2_env import vector_env


def test_hands_are_the_deals_and_follow_the_plays():
    venv = vector_env(6, seed=3)
    with pytest.raises(RuntimeError, match="reset"):
        venv.hands()
    obs, _ = venv.reset()
    mirror = np.random.default_rng(3)
    decks = np.tile(np.arange(52, dtype=np.int64), (6, 1))
    mirror.permuted(decks, axis=1, out=decks)
    hands = venv.hands()
    assert hands.dtype == np.int64 and hands.shape == (6, 4)
    for g in range(6):
        for seat in range(4):
            assert hands[g, seat] == sum(1 << int(c) for c in decks[g, 13 * seat : 13 * seat + 13])
    hands[:] = 0  # a copy: the env is untouched
    assert venv.hands().any()
    rng = np.random.default_rng(0)
    for _ in range(40):
        before = venv.hands()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        movers = obs["current_player"]
        obs, _, terminations, _, _ = venv.step(actions)
        after = venv.hands()
        for g in np.flatnonzero(~terminations):  # only the mover's hand shrinks
            others = [s for s in range(4) if s != movers[g]]
            assert (after[g, others] == before[g, others]).all()
            assert after[g, movers[g]] & ~before[g, movers[g]] == 0
