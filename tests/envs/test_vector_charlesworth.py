"""The compiled vector env's extras: ``hands()`` (the full state) and Charlesworth's 412 numbers."""

from __future__ import annotations

import numpy as np
import pytest

from big2_env import Rules, vector_env
from big2_env.envs.batch.views import new_memory
from big2_env.observations.charlesworth import FLAGS, LAST, PASSES, clear, on_move
from big2_env.observations.paper import ACTION_SLOTS
from tests.reference.charlesworth_view import INPUT_SIZE, network_input


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


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if (mask >> c) & 1]


def _play_and_compare(rules, seed: int, num_envs: int, games: int) -> tuple[int, set[int]]:
    """Step random legal actions until ``games`` games ended, comparing every decision's 412 numbers
    to the reference :func:`network_input` (``tests/reference/charlesworth_view.py``) of the game's
    public history (seats relative to the mover) and the mover's hand;
    returns how many decisions were compared and the sizes of the plays seen."""
    venv = vector_env(num_envs, seed=seed, rules=rules, observation="charlesworth")
    obs, _ = venv.reset()
    histories: list[list[tuple[int, tuple[int, ...]]]] = [[] for _ in range(num_envs)]
    rng = np.random.default_rng(seed + 1000)
    decisions, ended, sizes = 0, 0, set()
    while True:
        hands = venv.hands()
        assert obs["observation"].dtype == np.float32 and obs["observation"].shape == (num_envs, INPUT_SIZE)
        for g in range(num_envs):
            mover = int(obs["current_player"][g])
            relative = [((seat - mover) % 4, cards) for seat, cards in histories[g]]
            expected = network_input(relative, _cards(int(hands[g, mover])))
            np.testing.assert_array_equal(obs["observation"][g], expected, err_msg=f"game {g}, history {histories[g]}")
        decisions += num_envs
        if ended >= games:
            return decisions, sizes
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        for g in range(num_envs):
            mover = int(obs["current_player"][g])
            hand = _cards(int(hands[g, mover]))
            cards = tuple(hand[s] for s in ACTION_SLOTS[int(actions[g])])
            histories[g].append((mover, cards))
            sizes.add(len(cards))
        obs, _, terminations, _, _ = venv.step(actions)
        for g in np.flatnonzero(terminations):  # dealt anew in the same step: a new history
            histories[g] = []
            ended += 1


@pytest.mark.parametrize("rules, seeds", [("charlesworth", (0, 1, 2)), ("paper", (3, 4)), (Rules(straights="wrap"), (5,))])
def test_every_decision_matches_his_numbers(rules, seeds):
    for seed in seeds:
        decisions, sizes = _play_and_compare(rules, seed, num_envs=16, games=60)
        assert decisions > 1000 and {0, 1, 2, 3, 5} <= sizes
        if rules == "charlesworth":
            assert 4 in sizes


def test_his_quirks_are_kept():
    """A plain straight sets the full-house flags and is keyed by its middle card with no suit; the
    third pass gives control to the player after the passer (spot checks of the view's memory)."""
    memory = new_memory("charlesworth", 1)
    clear(memory, 0)
    straight = sum(1 << c for c in (4, 9, 14, 16, 20))  # seat 0 plays 4-D 5-C 6-H 7-D 8-D, a plain straight
    on_move(memory, 0, 0, straight)
    for viewer in (1, 2, 3):
        last = int(memory[0, LAST + viewer])
        assert [i for i in range(29) if (last >> i) & 1] == [3, 23, 25, 26]  # key 6 (value 4), straight, full house, no pass
    assert memory[0, LAST] == 0 and memory[0, FLAGS] == (1 << 3) | (1 << 5)
    for seat in (1, 2, 3):
        on_move(memory, 0, seat, 0)
    assert memory[0, LAST + 1] == 0 and memory[0, LAST + 2] == 0 and memory[0, LAST + 0] == 1 << 17
    assert memory[0, LAST + 3] == (1 << 3) | (1 << 23) | (1 << 25) | (1 << 28)  # the third passer's own view: two passes
    assert memory[0, PASSES] == 0


@pytest.mark.parametrize("observation", ["full", "Paper", 412, None])
def test_unknown_views_are_refused(observation):
    with pytest.raises(ValueError, match="'paper' .277 numbers., 'charlesworth' .412. or 'extended' .315."):
        vector_env(2, observation=observation)


def test_views_share_the_games():
    """The same seed and actions give the same games whatever the view (the paper view's 277 numbers unchanged)."""
    a, b = vector_env(8, seed=9, observation="paper"), vector_env(8, seed=9, observation="charlesworth")
    (obs_a, _), (obs_b, _) = a.reset(), b.reset()
    rng = np.random.default_rng(0)
    for _ in range(100):
        assert np.array_equal(obs_a["action_mask"], obs_b["action_mask"]) and np.array_equal(a.hands(), b.hands())
        assert np.array_equal(a._state, b._state)  # the rules state holds no view's memory
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs_a["action_mask"]])
        obs_a, rewards_a, *_ = a.step(actions)
        obs_b, rewards_b, *_ = b.step(actions)
        assert np.array_equal(rewards_a, rewards_b)
