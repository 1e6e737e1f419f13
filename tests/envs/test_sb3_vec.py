"""SB3 and sb3-contrib train on the compiled vector env through Big2SB3VecEnv."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

from big2_env.envs.sb3_vec import Big2SB3VecEnv, sb3_vec_env  # noqa: E402


def test_maskable_ppo_learns_on_the_vector_env_and_plays_only_legal_moves():
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    torch.set_num_threads(1)
    venv = sb3_vec_env(8, opponents="greedy", seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(512)
    obs = venv.reset()
    ended = 0
    for _ in range(200):  # the env raises on an illegal action, so this checks every move
        actions, _ = model.predict(obs, action_masks=get_action_masks(venv), deterministic=True)
        obs, rewards, dones, infos = venv.step(actions)
        for info, done in zip(infos, dones):
            if done:
                ended += 1
                assert info["terminal_observation"].shape == (277,) and sum(info["scores"]) == 0
                assert info["TimeLimit.truncated"] is False
    assert ended > 0


def test_the_dict_observation_for_multi_input_policies():
    from stable_baselines3 import PPO

    venv = sb3_vec_env(4, mask_in_observation=True, opponents="random")
    obs = venv.reset()
    assert set(obs) == {"observation", "action_mask"} and obs["action_mask"].dtype == np.int8
    PPO("MultiInputPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, device="cpu").learn(64)


def test_seeded_resets_and_the_vec_env_api():
    venv = sb3_vec_env(3, opponents="random")
    venv.seed(5)
    a = venv.reset()
    venv.seed(5)
    assert np.array_equal(a, venv.reset())
    assert venv.get_attr("rules")[0] == venv.venv.rules and venv.env_is_wrapped(object) == [False] * 3
    assert venv.has_attr("action_masks") and len(venv.env_method("action_masks", indices=[0, 2])) == 2
    with pytest.raises(AttributeError, match="only 'action_masks'"):
        venv.env_method("render")
    with pytest.raises(AttributeError, match="when making it"):
        venv.set_attr("rules", None)
    with pytest.raises(RuntimeError, match="step_async"):
        venv.step_wait()
    with pytest.raises(ValueError, match="mask_in_observation"):
        sb3_vec_env(2, mask_in_observation="yes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="wraps a Big2OpponentsVectorEnv"):
        Big2SB3VecEnv(object())  # type: ignore[arg-type]
