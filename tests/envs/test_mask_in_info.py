"""``mask_in_observation=False``: the ``Box`` observation with the action mask in ``info`` (PettingZoo's
other place for it, and where AgileRL reads it), for the AEC, Parallel and opponents envs and the
single-agent Gymnasium env."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import big2_env
from big2_env import NUM_ACTIONS, OBS_SIZE, opponents_env
from big2_env.observations.extended import EXTENDED_SIZE
from big2_env.envs.gym import Big2SingleAgentEnv


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def box_env(**kwargs):
    return big2_env.env(candidate_view=False, mask_in_observation=False, **kwargs)


@pytest.mark.parametrize("observation", ["paper", "extended"])
def test_aec_env_passes_pettingzoo_api_and_seed_tests(observation):
    api_test(box_env(observation=observation), num_cycles=300)
    seed_test(lambda: box_env(observation=observation), num_cycles=300)
    size = EXTENDED_SIZE if observation == "extended" else OBS_SIZE
    assert box_env(observation=observation).observation_space("player_0").shape == (size,)


def test_same_game_as_the_dict_observation_with_the_mask_moved_to_info():
    plain, boxed = big2_env.env(candidate_view=False), box_env()
    plain.reset(seed=11)
    boxed.reset(seed=11)
    rng = np.random.default_rng(0)
    for agent in plain.agent_iter():
        assert boxed.agent_selection == agent
        obs, reward, termination, truncation, info = plain.last()
        b_obs, b_reward, b_termination, b_truncation, b_info = boxed.last()
        assert isinstance(b_obs, np.ndarray) and np.array_equal(b_obs, obs["observation"])
        assert (b_reward, b_termination, b_truncation) == (reward, termination, truncation)
        assert b_info["action_mask"].dtype == np.int8 and np.array_equal(b_info["action_mask"], obs["action_mask"])
        assert {k: v for k, v in b_info.items() if k != "action_mask"} == info
        for other in boxed.agents:  # only the agent on move has a non-zero mask
            assert boxed.infos[other]["action_mask"].any() == (other == agent and not termination)
        action = None if termination or truncation else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        plain.step(action)
        boxed.step(action)
    assert not boxed.agents


def test_illegal_action_ends_the_game_through_the_info_mask():
    e = box_env()
    e.reset(seed=3)
    agent = e.agent_selection
    illegal = int(np.flatnonzero(e.infos[agent]["action_mask"] == 0)[0])
    e.step(illegal)  # PettingZoo's TerminateIllegalWrapper reads the mask from info
    assert e.rewards[agent] == -13 and all(e.terminations.values())  # the worst score


def test_parallel_env_infos_carry_the_masks():
    p = big2_env.parallel_env(candidate_view=False, mask_in_observation=False)
    observations, infos = p.reset(seed=5)
    while p.agents:
        assert all(o.shape == (OBS_SIZE,) for o in observations.values())
        masks = {a: infos[a]["action_mask"] for a in p.agents}
        assert [a for a, m in masks.items() if m.any()] == [p.aec_env.agent_selection]
        actions = {a: int(np.flatnonzero(m)[0]) if m.any() else 0 for a, m in masks.items()}
        observations, rewards, terminations, truncations, infos = p.step(actions)
    assert sum(rewards.values()) == 0 and all(not i["action_mask"].any() for i in infos.values())
    assert all({"scores", "winner", "turns"} <= set(i) for i in infos.values())


def test_opponents_env_infos_carry_the_learners_masks():
    api_test(opponents_env({"player_1": "greedy", "player_3": "random"}, candidate_view=False, mask_in_observation=False), 300)
    e = opponents_env({1: "greedy"}, candidate_view=False, mask_in_observation=False)
    e.reset(seed=2)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        assert obs.shape == (OBS_SIZE,) and set(e.infos) == set(e.agents)
        if termination or truncation:
            assert not info["action_mask"].any() and "winner" in info
            e.step(None)
            continue
        assert info["action_mask"].sum() == len(e.unwrapped.base.current_decision().actions)
        e.step(int(np.flatnonzero(info["action_mask"])[-1]))


@pytest.mark.parametrize(
    "keywords, message",
    [
        ({"mask_in_observation": False}, "use it with candidate_view=False"),
        ({"candidate_view": False, "mask_in_observation": False, "observation_key": "observations"}, "observation_key"),
        ({"mask_in_observation": 0}, "mask_in_observation must be True or False"),
    ],
)
def test_bad_combinations_are_refused(keywords, message):
    with pytest.raises(ValueError, match=message):
        big2_env.env(**keywords)


def test_default_infos_have_no_mask():
    e = big2_env.env()
    e.reset(seed=0)
    assert e.infos[e.agent_selection] == {}


def test_single_agent_env_puts_the_mask_in_info_with_the_box_observation():
    env = Big2SingleAgentEnv(opponents="random", mask_in_observation=False)
    obs, info = env.reset(seed=4)
    terminated = False
    while not terminated:
        assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (NUM_ACTIONS,)
        assert np.array_equal(info["action_mask"], env.action_masks())
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert not info["action_mask"].any() and info["winner"] in range(4)
    _, default_info = Big2SingleAgentEnv(opponents="random").reset(seed=4)
    assert "action_mask" not in default_info  # the Dict observation carries it instead
