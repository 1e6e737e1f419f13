"""RLlib takes the env unchanged (``examples/rllib_ppo.py``); skipped without ``ray[rllib]``.

The smoke run takes about 25 s on 2 busy cores, Ray's start-up included.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip(
    "ray.rllib",
    reason="RLlib is not installed: its tests need the [rllib] extra in an environment of their own "
    "(ray[rllib] pins an older gymnasium than [test]; .ci/run shows how)",
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "rllib_ppo.py"


def test_env_passes_rllib_checker_and_fits_the_action_masking_module():
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    import big2_env

    env = PettingZooEnv(big2_env.env(candidate_view=False, observation_key="observations", history=False))
    check_multiagent_environments(env)  # steps one random (unmasked) action: PettingZoo may warn
    space = env.observation_space["player_0"]
    module = ActionMaskingTorchRLModule(observation_space=space, action_space=env.action_space["player_0"], model_config={})
    assert module.observation_space == space
    with pytest.raises(KeyError, match="observations"):  # the reported failure, with the default key
        ActionMaskingTorchRLModule(
            observation_space=big2_env.raw_env(candidate_view=False).observation_space("player_0"),
            action_space=env.action_space["player_0"],
            model_config={},
        )


def test_rllib_ppo_smoke_run_trains_and_evaluates(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    result = subprocess.run(
        [sys.executable, str(EXAMPLE), "--smoke", "--json", str(tmp_path / "r.json")],
        capture_output=True, text=True, timeout=300, env=env, cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    out = result.stdout
    assert "iter 2:" in out and "trained 2 iterations" in out, out
    assert "episode_return_mean +0.00" in out, out  # zero-sum: no game ended on an illegal move
    assert "vs 3 x random: win rate" in out and "vs 3 x greedy: win rate" in out, out
    assert "over 20 games" in out, out
    record = json.loads((tmp_path / "r.json").read_text())  # what docs/libraries.md quotes
    assert record["iterations"] == 2 and record["steps"] > 0
    assert record["steps_per_s"] == pytest.approx(record["steps"] / record["train_s"])
    assert {opponent: r["n_games"] for opponent, r in record["eval"].items()} == {"random": 20, "greedy": 20}
