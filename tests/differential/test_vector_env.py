"""The compiled vector env against the Python engine: every game's observations, masks, seats, rewards."""

from __future__ import annotations

import numpy as np
import pytest

from big2_env import Game, Rules, action_cards, legal_action_mask, observation, vector_env
from big2_env.envs.vector import Big2VectorEnv
from big2_env.observations.decision import Decision
from big2_env.observations.extended import extended_observation

from tests.differential.test_bruteforce import VARIANT_IDS, VARIANTS


def _decks(rng: np.random.Generator, n: int) -> np.ndarray:
    decks = np.tile(np.arange(52, dtype=np.int64), (n, 1))
    rng.permuted(decks, axis=1, out=decks)
    return decks


def _game(deck: np.ndarray, rules: Rules) -> Game:
    return Game.from_hands([sorted(int(c) for c in deck[13 * i : 13 * i + 13]) for i in range(4)], rules)


def _check_views(obs, games, venv=None, view="paper"):
    """Every game's view equals the engine's; with ``venv``, also its candidate rows (the 80 features and the
    action indices of each legal action, in :class:`Decision`'s order)."""
    if venv is not None:
        features, actions, counts = venv.candidates()
        offsets = np.cumsum(counts) - counts
    for g, game in enumerate(games):
        player = game.current_player
        assert obs["current_player"][g] == player
        expected = observation(game, player) if view == "paper" else extended_observation(game, player)
        np.testing.assert_array_equal(obs["observation"][g], expected)
        np.testing.assert_array_equal(obs["action_mask"][g], legal_action_mask(game).astype(bool))
        if venv is not None:
            decision = Decision(game)
            rows = slice(offsets[g], offsets[g] + counts[g])
            assert actions[rows].tolist() == decision.actions.tolist()
            np.testing.assert_array_equal(features[rows], decision.features)


@pytest.mark.parametrize("view", ["paper", "extended"])
@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
def test_every_step_matches_the_python_engine(rules, view):
    n, seed = 5, 11
    venv = vector_env(n, seed=seed, rules=rules, observation=view)
    obs, infos = venv.reset()
    assert infos == {} and obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    mirror = np.random.default_rng(seed)  # the deals, drawn as the env documents it
    games = [_game(d, rules) for d in _decks(mirror, n)]
    upcoming = list(_decks(mirror, n))
    _check_views(obs, games, venv, view)
    chooser = np.random.default_rng(1)
    ended_games = 0
    while ended_games < 3 * n:
        actions = np.array([chooser.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, rewards, terminations, truncations, infos = venv.step(actions)
        assert rewards.dtype == np.float32 and rewards.shape == (n, 4) and not truncations.any()
        for g, game in enumerate(games):
            game.play(action_cards(int(actions[g]), game.hand(game.current_player)))
            assert terminations[g] == game.is_over
            if game.is_over:
                assert rewards[g].tolist() == game.scores() and infos["winner"][g] == game.winner
                assert infos["turns"][g] == game.turn
                games[g] = _game(upcoming[g], rules)
                ended_games += 1
            else:
                assert not rewards[g].any() and infos["winner"][g] == -1
        ended = np.flatnonzero(terminations)
        if len(ended):  # the env draws the next decks of the games that ended, in one call, in game order
            for g, deck in zip(ended, _decks(mirror, len(ended))):
                upcoming[g] = deck
        _check_views(obs, games, venv, view)


def test_same_seed_same_games_and_reset_reseeds():
    def run(venv, seed=None):
        obs, _ = venv.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = []
        for _ in range(150):
            actions = np.array([np.flatnonzero(m)[rng.integers(m.sum())] for m in obs["action_mask"]])
            obs, rewards, terminations, _, _ = venv.step(actions)
            out.append(rewards.copy())
        return np.array(out)

    a, b = run(vector_env(4, seed=7)), run(vector_env(4, seed=7))
    assert np.array_equal(a, b) and a.any()
    venv = vector_env(4, seed=1)
    assert np.array_equal(run(venv, seed=7), a)
    assert not np.array_equal(run(vector_env(4, seed=8)), a)


def test_scores_sum_to_zero_over_many_games():
    venv = vector_env(64, seed=0, rules="charlesworth")
    obs, _ = venv.reset()
    rng = np.random.default_rng(0)
    total, finished = 0.0, 0
    while finished < 200:
        actions = np.array([np.flatnonzero(m)[rng.integers(m.sum())] for m in obs["action_mask"]])
        obs, rewards, terminations, _, _ = venv.step(actions)
        total += float(np.abs(rewards.sum(axis=1)).sum())
        finished += int(terminations.sum())
    assert total == 0.0


@pytest.mark.parametrize(
    "actions, message",
    [
        (np.zeros(3, dtype=np.int64), "shape"),
        (np.zeros(4, dtype=np.float64), "int array"),
        (np.full(4, 1695), "out of range"),
        (np.full(4, -1), "out of range"),
        (np.full(4, 1694), "not legal in game 0"),
        ("0000", "int array"),
    ],
)
def test_bad_actions_are_refused_and_change_nothing(actions, message):
    venv = vector_env(4, seed=0)
    obs, _ = venv.reset()
    state = venv._state.copy()
    with pytest.raises(ValueError, match=message):
        venv.step(actions)
    assert np.array_equal(venv._state, state)
    legal = np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]])
    venv.step(legal)  # and it still plays


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"num_envs": 0}, "num_envs"),
        ({"num_envs": True}, "num_envs"),
        ({"num_envs": 2.0}, "num_envs"),
        ({"num_envs": 2, "seed": -1}, "seed"),
        ({"num_envs": 2, "rules": "nope"}, "nope"),
        ({"num_envs": 2, "observation": "full"}, "paper.*or .extended."),
    ],
)
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        vector_env(**kwargs)


def test_step_before_reset_is_an_error():
    with pytest.raises(RuntimeError, match="reset"):
        Big2VectorEnv(2).step(np.zeros(2, dtype=np.int64))


def test_candidates_before_reset_is_an_error():
    with pytest.raises(RuntimeError, match="reset"):
        vector_env(2).candidates()
