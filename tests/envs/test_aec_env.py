"""The PettingZoo AEC env: PettingZoo's own tests for every variant, spaces, rewards, infos, illegal actions, render."""

from __future__ import annotations

import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import big2_env
from big2_env import NUM_ACTIONS, PASS_ACTION, Rules, env, raw_env

VARIANT_RULES = {
    "paper": Rules(),
    "charlesworth": Rules.preset("charlesworth"),
    "wrap": Rules(straights="wrap"),
    "suit_first": Rules(flush_order="suit_first"),
    "four_card": Rules(four_card_plays=True),
    "no_five_quads": Rules(five_card_quads=False),
    "hk": Rules(scoring="hk"),
    "leads_free": Rules(opening="3D_leads_free"),
    "3d_single": Rules(opening="3D_single"),
}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("candidate_view", [True, False])
@pytest.mark.parametrize("variant", sorted(VARIANT_RULES))
def test_pettingzoo_api_seed_render(variant, candidate_view, capsys):
    rules = VARIANT_RULES[variant]
    api_test(env(rules=rules, candidate_view=candidate_view), num_cycles=200)
    seed_test(lambda: env(rules=rules, candidate_view=candidate_view), num_cycles=200)
    render_test(lambda render_mode=None: env(render_mode=render_mode, rules=rules, candidate_view=candidate_view))
    capsys.readouterr()


@pytest.mark.skipif(not hasattr(pettingzoo, "make"), reason="pettingzoo.make (the env registry) exists from PettingZoo 1.27 on")
def test_registered_with_pettingzoo_make():
    e = pettingzoo.make("aec", "big2-v0", rules="charlesworth", candidate_view=False)
    e.reset(seed=0)
    assert e.unwrapped.rules == Rules.preset("charlesworth")
    assert set(e.observation_space("player_0").spaces) == {"observation", "action_mask", "history"}


def play_out(e, seed: int, rng: np.random.Generator):
    e.reset(seed=seed)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        if termination or truncation:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(rng.choice(legal)))
    return e


def test_spaces_are_fixed_objects():
    e = raw_env()
    assert e.observation_space("player_0") is e.observation_space("player_0") is e.observation_space("player_3")
    assert e.action_space("player_1").n == NUM_ACTIONS
    space = e.observation_space("player_0")
    assert set(space.spaces) == {"observation", "action_mask", "history", "candidate_actions", "candidate_features"}
    assert space["observation"].shape == (277,) and space["observation"].dtype == np.float32
    assert space["action_mask"].shape == (1695,) and space["action_mask"].dtype == np.int8


def test_observations_for_mover_and_waiting_agents():
    e = raw_env()
    e.reset(seed=5)
    mover = e.agent_selection
    obs = e.observe(mover)
    assert obs["action_mask"].sum() == len(obs["candidate_actions"]) > 0
    assert obs["candidate_features"].shape == (len(obs["candidate_actions"]), 80)
    assert np.flatnonzero(obs["action_mask"]).tolist() == obs["candidate_actions"].tolist()
    for agent in e.agents:
        if agent != mover:
            other = e.observe(agent)
            assert other["action_mask"].sum() == 0
            assert other["candidate_actions"].shape == (0,) and other["candidate_features"].shape == (0, 80)
            assert e.observation_space(agent).contains(other)
            # each agent sees its own hand
            assert (other["observation"][:13] < 52).sum() == 13


def test_rewards_infos_and_termination():
    rng = np.random.default_rng(0)
    for seed in range(20):
        e = raw_env()
        e.reset(seed=seed)
        totals = dict.fromkeys(e.agents, 0.0)
        last_info = None
        for agent in e.agent_iter():
            obs, reward, termination, truncation, info = e.last()
            totals[agent] += reward
            if termination:
                last_info = info
                e.step(None)
                continue
            assert reward == 0
            e.step(int(rng.choice(obs["candidate_actions"])))
        assert last_info is not None
        scores = last_info["scores"]
        assert set(last_info) == {"scores", "winner", "turns"}
        assert sum(scores.values()) == 0
        assert scores[f"player_{last_info['winner']}"] == max(scores.values()) > 0 and last_info["winner"] == e.game.winner
        assert totals == {a: float(s) for a, s in scores.items()}
        assert last_info["turns"] == e.game.turn
        assert not e.agents


def test_raw_env_rejects_illegal_actions_and_keeps_state():
    e = raw_env()
    e.reset(seed=1)
    agent = e.agent_selection
    before = (e.game.hands, e.game.turn, e.agent_selection)
    legal = e.observe(agent)["candidate_actions"].tolist()
    illegal = next(a for a in range(NUM_ACTIONS) if a not in legal)
    with pytest.raises(ValueError, match=f"illegal action {illegal} for {agent}; legal actions: {legal[0]} \\("):
        e.step(illegal)
    with pytest.raises(ValueError, match="illegal action"):
        e.step(PASS_ACTION)  # cannot pass at the opening
    for bad in (1.5, "3", None, -1, 1695, True):
        with pytest.raises(ValueError):
            e.step(bad)
    assert (e.game.hands, e.game.turn, e.agent_selection) == before
    e.step(np.int64(legal[0]))  # numpy integers are accepted
    assert e.game.turn == 1


def test_wrapped_env_terminates_on_illegal_action():
    e = env()
    e.reset(seed=1)
    agent = e.agent_selection
    e.last()
    e.step(PASS_ACTION)  # illegal at the opening
    assert all(e.terminations.values())
    assert e.rewards[agent] == -13  # the worst score under the paper's scoring
    assert all(r == 0 for a, r in e.rewards.items() if a != agent)


def test_same_seed_same_game_and_reset_reseeds():
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    a = play_out(raw_env(), 11, rng_a)
    b = play_out(raw_env(), 11, rng_b)
    assert a.game.history == b.game.history
    c = raw_env()
    c.reset(seed=11)
    first = c.game.hands
    c.reset()
    assert c.game.hands != first  # unseeded reset continues the stream
    c.reset(seed=11)
    assert c.game.hands == first


def test_render_modes(capsys):
    e = raw_env(render_mode="ansi")
    e.reset(seed=2)
    text = e.render()
    mover = e.game.current_player
    assert f"player_{mover} to move" in text
    assert text.count("(hidden)") == 3
    e_all = raw_env(render_mode="ansi", render_view="all")
    e_all.reset(seed=2)
    assert "(hidden)" not in e_all.render()
    h = raw_env(render_mode="human", render_view=0)
    h.reset(seed=2)
    assert h.render() is None
    assert "player_0" in capsys.readouterr().out
    assert raw_env().render() is None  # no render mode: a warning, nothing drawn


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"render_mode": "rgb"}, "render_mode"),
        ({"rules": "nope"}, "unknown rules preset"),
        ({"rules": {"straights": "sideways"}}, "Rules.straights"),
        ({"candidate_view": "yes"}, "candidate_view"),
        ({"render_view": 7}, "viewer"),
    ],
)
def test_bad_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        raw_env(**kwargs)


def test_use_before_reset_is_an_error():
    with pytest.raises(RuntimeError, match="reset"):
        raw_env().observe("player_0")
    with pytest.raises(AttributeError, match="before reset"):
        env().agent_selection  # noqa: B018


def test_public_names():
    for name in big2_env.__all__:
        assert hasattr(big2_env, name), name
