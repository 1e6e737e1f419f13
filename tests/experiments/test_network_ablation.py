"""experiments/scripts/network_ablation.py: a tiny ablation trains every row, writes its report and reuses the rows."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ABLATION = Path(__file__).resolve().parents[2] / "experiments" / "scripts" / "network_ablation.py"


def test_a_tiny_network_ablation_trains_every_row_and_reuses_them(tmp_path):
    pytest.importorskip("torch")
    report = tmp_path / "ablation" / "REPORT.md"
    command = [sys.executable, str(ABLATION), "--runs", str(tmp_path / "runs"), "--batches", "1", "--games-per-batch", "4",
               "--distill-batches", "1", "--distill-games", "2", "--teacher", "greedy", "--eval-games", "4",
               "--report", str(report)]
    first = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr[-3000:]
    text = report.read_text()
    for label in ("paper network, PPO", "+ plus scorer", "+ extended observation", "distillation alone", "then PPO"):
        assert text.count(label) == 2, label  # a sampled and an argmax row
    results = json.loads((report.parent / "results.json").read_text())
    assert set(results) == {"paper", "plus", "plusext", "distill", "distill_ppo"}
    assert set(results["plus"]["results"]) == {f"{m}/{o}" for m in ("sampled", "argmax") for o in ("random", "greedy", "smart")}
    second = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert second.returncode == 0 and second.stdout.count("batch 0:") == 0  # nothing trained or evaluated again
    bad = subprocess.run([sys.executable, str(ABLATION), "--rows", "dqn"], capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown rows" in bad.stderr
