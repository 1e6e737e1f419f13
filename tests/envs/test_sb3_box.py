"""``mask_in_observation=False``: the Box observation with the mask only through ``action_masks()``, so
sb3-contrib's ``MaskablePPO("MlpPolicy", env)`` works as its docs write it; its saves load safely."""

from __future__ import annotations

import numpy as np
import pytest

from big2_env import evaluate
from big2_env.observations.extended import EXTENDED_SIZE
from big2_env.envs.gym import Big2SingleAgentEnv


@pytest.mark.parametrize("kind, size", [("paper", 277), ("extended", EXTENDED_SIZE)])
def test_the_box_observation_is_the_numbers_alone_and_passes_both_checkers(kind, size):
    from gymnasium.utils.env_checker import check_env

    env = Big2SingleAgentEnv(opponents="greedy", mask_in_observation=False, observation=kind)
    check_env(env)
    obs, info = env.reset(seed=3)
    assert env.observation_space.shape == (size,) and obs.shape == (size,) and env.observation_space.contains(obs)
    paired = Big2SingleAgentEnv(opponents="greedy", observation=kind)
    dict_obs, _ = paired.reset(seed=3)
    np.testing.assert_array_equal(obs, dict_obs["observation"])  # the same numbers, the mask left out
    done = False
    while not done:
        obs, reward, done, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert obs.shape == (size,)
    assert reward == info["scores"][info["learner_seat"]]


def test_maskable_ppo_mlp_policy_as_the_docs_write_it_trains_saves_and_loads_safely(tmp_path):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    from big2_env.evaluation.loading import load_agent
    from big2_env.players.sb3 import SB3Policy

    env = Big2SingleAgentEnv(opponents="random", mask_in_observation=False)
    sb3_check_env(env)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, seed=0)
    model.learn(128)
    model.save(tmp_path / "box.zip")
    loaded = load_agent(str(tmp_path / "box.zip"))  # no unpickling: the Box space is rebuilt here
    direct = evaluate(SB3Policy(model), "random", n_games=6, seed=1)
    assert list(evaluate(loaded, "random", n_games=6, seed=1).scores) == list(direct.scores)


def test_bad_mask_options_are_refused():
    with pytest.raises(ValueError, match="mask_in_observation must be True or False"):
        Big2SingleAgentEnv(mask_in_observation="no")
    with pytest.raises(ValueError, match="candidate_view=True needs the Dict observation"):
        Big2SingleAgentEnv(candidate_view=True, mask_in_observation=False)
