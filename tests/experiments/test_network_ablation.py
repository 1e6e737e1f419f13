"""experiments/scripts/network_ablation.py: a tiny ablation trains its PPO rows, writes its report and reuses the rows
(its distillation rows' learner was removed; commit cbad168 runs them)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ABLATION = Path(__file__).resolve().parents[2] / "experiments" / "scripts" / "network_ablation.py"


def test_a_tiny_network_ablation_trains_its_ppo_rows_and_reuses_them(tmp_path):
    pytest.importorskip("torch")
    report = tmp_path / "ablation" / "REPORT.md"
    command = [sys.executable, str(ABLATION), "--runs", str(tmp_path / "runs"), "--batches", "1", "--games-per-batch", "4",
               "--rows", "paper,plus,plusext", "--eval-games", "4",
               "--report", str(report)]
    first = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr[-3000:]
    text = report.read_text()
    for label in ("paper network, PPO", "+ plus scorer", "+ extended observation"):
        assert text.count(label) == 2, label  # a sampled and an argmax row
    results = json.loads((report.parent / "results.json").read_text())
    assert set(results) == {"paper", "plus", "plusext"}
    assert set(results["plus"]["results"]) == {f"{m}/{o}" for m in ("sampled", "argmax") for o in ("random", "greedy", "smart")}
    second = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert second.returncode == 0 and second.stdout.count("batch 0:") == 0  # nothing trained or evaluated again
    bad = subprocess.run([sys.executable, str(ABLATION), "--rows", "dqn"], capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown rows" in bad.stderr
