"""The ``observation_key`` option: the observation vector under ``"observations"``, as RLlib's
action-masking RLModule expects (see ``examples/rllib_ppo.py``; no ray needed here)."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test

from big2_env import env, opponents_env, parallel_env, raw_env
from big2_env.observations.spaces import OBSERVATION_KEYS, observation_space


@pytest.mark.parametrize("candidate_view", [False, True])
def test_pettingzoo_api_with_observations_key(candidate_view):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(candidate_view=candidate_view, observation_key="observations"), num_cycles=200)


def test_rllib_form_has_exactly_the_two_keys_and_no_sequence_spaces():
    e = raw_env(candidate_view=False, observation_key="observations", history=False)
    space = e.observation_space("player_0")
    assert set(space.spaces) == {"observations", "action_mask"}
    assert all(isinstance(s, spaces.Box) for s in space.spaces.values())
    assert space["observations"].shape == (277,) and space["action_mask"].shape == (1695,)
    assert space == observation_space(candidate_view=False, observation_key="observations")
    extended = raw_env(candidate_view=False, observation="extended", observation_key="observations", history=False)
    assert extended.observation_space("player_0")["observations"].shape == (315,)


def test_same_game_same_numbers_under_either_key():
    a, b = raw_env(), raw_env(observation_key="observations")
    a.reset(seed=3)
    b.reset(seed=3)
    while a.agents:
        for agent in a.possible_agents:  # the mover and the agents waiting (all-zero mask)
            oa, ob = a.observe(agent), b.observe(agent)
            assert set(ob) == {"observations", "action_mask", "history", "candidate_actions", "candidate_features"}
            np.testing.assert_array_equal(oa["observation"], ob["observations"])
            np.testing.assert_array_equal(oa["action_mask"], ob["action_mask"])
            assert b.observation_space(agent).contains(ob)
        obs = a.observe(a.agent_selection)
        action = None if a.terminations[a.agent_selection] else int(obs["candidate_actions"][-1])
        a.step(action)
        b.step(action)
    assert a.rewards == b.rewards


def test_default_is_unchanged():
    e = raw_env()
    assert e.observation_key == "observation" == OBSERVATION_KEYS[0]
    e.reset(seed=0)
    assert set(e.observe("player_0")) == {"observation", "action_mask", "history", "candidate_actions", "candidate_features"}


@pytest.mark.parametrize("bad", ["obs", "Observations", "", None, 1, ("observation",)])
def test_bad_observation_key_is_a_clear_error(bad):
    with pytest.raises(ValueError, match=r"observation_key must be one of 'observation', 'observations'; got"):
        raw_env(observation_key=bad)
    with pytest.raises(ValueError, match="observation_key must be one of"):
        env(observation_key=bad)


def test_key_survives_pickling_and_reaches_the_other_entry_points():
    e = pickle.loads(pickle.dumps(raw_env(candidate_view=False, observation_key="observations", history=False)))
    e.reset(seed=1)
    assert set(e.observe(e.agent_selection)) == {"observations", "action_mask"}
    p = parallel_env(candidate_view=False, observation_key="observations", history=False)
    observations, _ = p.reset(seed=1)
    assert all(set(o) == {"observations", "action_mask"} for o in observations.values())
    o = opponents_env({1: "random", 2: "random", 3: "random"}, candidate_view=False, observation_key="observations",
                      history=False)
    o.reset(seed=1)
    assert set(o.observe("player_0")) == {"observations", "action_mask"}
