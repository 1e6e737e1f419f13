"""The examples that train with third-party RL libraries run as scripts (skipped when the library is absent)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_tianshou_dqn_smoke(tmp_path):
    """``examples/tianshou_dqn.py --smoke``: the unchanged env in Tianshou's PettingZooEnv, its collector,
    replay buffer and off-policy trainer (Greedy seats through the example's Tianshou policy wrapper), then
    ``big2_env.evaluate``. About 25 s here, mostly importing Tianshou and numba compiling its kernels."""
    pytest.importorskip("tianshou", reason="Tianshou is not installed (pip install -e '.[tianshou]')")
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "tianshou_dqn.py"), "--smoke", "--opponent", "greedy",
         "--json", str(tmp_path / "r.json")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    trained = re.search(r"trained (\d+) env steps \(~(\d+) learner decisions, (\d+) games", result.stdout)
    assert trained, result.stdout
    steps, decisions, games = map(int, trained.groups())
    assert steps >= 400 and decisions > 0 and games > 0, result.stdout
    assert "env steps/s" in result.stdout
    for opponent in ("random", "greedy"):
        assert re.search(rf"evaluated vs {opponent}: win rate [01]\.\d+ .* over 8 games", result.stdout), result.stdout
    check_record(tmp_path / "r.json", steps, "env_steps")


def test_tianshou_single_agent_dqn_smoke(tmp_path):
    """``examples/tianshou_single_dqn.py --smoke``: ``gymnasium.make("Big2-v0", keys="tianshou")`` straight into
    Tianshou's DummyVectorEnv, collector and DQN (it reads ``obs.obs`` and ``obs.mask``), then ``big2_env.evaluate``."""
    pytest.importorskip("tianshou", reason="Tianshou is not installed (pip install -e '.[tianshou]')")
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "tianshou_single_dqn.py"), "--smoke", "--json", str(tmp_path / "r.json")],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    trained = re.search(r"trained (\d+) learner steps \((\d+) games\)", result.stdout)
    assert trained and int(trained.group(1)) >= 300 and int(trained.group(2)) > 0, result.stdout
    for opponent in ("random", "greedy"):
        assert re.search(rf"evaluated vs {opponent}: win rate [01]\.\d+ over 8 games", result.stdout), result.stdout
    check_record(tmp_path / "r.json", int(trained.group(1)), "steps")


def check_record(path, steps, key, games=8):
    """What ``--json`` wrote (the figures docs/libraries.md quotes): the steps trained, a speed that
    agrees with them, and an evaluation of ``games`` games against each of Random and Greedy."""
    record = json.loads(path.read_text())
    assert record[key] == steps
    assert record["steps_per_s"] > 0 and record["train_s"] > 0
    assert abs(record["steps_per_s"] * record["train_s"] - steps) <= 1e-6 * steps + 1
    assert set(record["eval"]) == {"random", "greedy"}
    for result in record["eval"].values():
        assert result["n_games"] == games and 0 <= result["win_rate"] <= 1
