"""benchmarks/reproduce_paper.py: the ordering test, and a tiny end-to-end run that writes a report."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "reproduce_paper.py"


def load_reproduce():
    return load_script("benchmarks/reproduce_paper.py")


def test_ordering_verdicts_follow_the_two_proportion_z_test():
    rp = load_reproduce()
    # 45% vs 40% over 1000 games each: z = 0.05 / sqrt(0.425 * 0.575 * 0.002) = 2.26
    assert rp.z_test(0.45, 0.40, 1000, 1000) == pytest.approx(2.26, abs=0.01)
    assert rp.verdict(2.26) == "holds"
    assert rp.verdict(1.0) == "same way, within noise"
    assert rp.verdict(-1.0) == "the other way, within noise"
    assert "the other way, clearly" in rp.verdict(-2.5)
    # every run of the tables and orderings is a defined experiment with the paper's figures (Table 4's new methods
    # have none)
    for _, names, _ in rp.TABLES:
        assert all(n in rp.EXPERIMENTS and (n in rp.PAPER or n in rp.SEED_METHODS) for n in names)
    assert {n for b, w, _ in rp.ORDERINGS for n in (b, w)} <= set(rp.EXPERIMENTS)


def test_a_tiny_reproduction_writes_its_report_and_resumes(tmp_path):
    pytest.importorskip("torch")
    command = [sys.executable, str(SCRIPT), "--batches", "1", "--eval-games", "8", "--curve-games", "4", "--jobs", "1",
               "--only", "mcq,sarsa,mcq_win", "--runs", str(tmp_path / "runs"), "--report-dir", str(tmp_path / "report")]
    first = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    report = (tmp_path / "report" / "REPORT.md").read_text()
    assert "Every run: 1 batches of 64 games" in report
    assert "| Monte Carlo Q | " in report and "| Q-learning | not run" in report
    assert "| Monte Carlo Q beats SARSA | Greedy | " in report  # both ran: the finding is checked
    results = json.loads((tmp_path / "report" / "results.json").read_text())
    assert set(results["runs"]) == {"mcq", "sarsa", "mcq_win"}
    assert results["runs"]["mcq"]["results"]["smart"]["n_games"] == 8
    # a win-head network is evaluated with AlphaDou's rule and again by expected score alone, on the same deals
    assert results["runs"]["mcq_win"]["results_score_only"]["smart"]["n_games"] == 8
    assert "results_score_only" not in results["runs"]["mcq"]
    assert "| the same network without the win head's bonus (rho 0) | " in report
    assert results["runs"]["mcq"]["deterministic"] is True  # value learners are evaluated greedily
    # a second invocation reuses the finished runs instead of training again
    second = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0 and "training" not in second.stdout
    bad = subprocess.run([sys.executable, str(SCRIPT), "--only", "dqn"], capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown run(s) dqn" in bad.stderr


def test_the_committed_report_is_what_the_script_writes_from_its_results(tmp_path):
    """REPORT.md is written from results.json (and the curves beside it): rewriting it changes nothing."""
    folder = Path(__file__).resolve().parents[2] / "benchmarks" / "reproduction"
    for name in ["results.json", *(p.name for p in folder.glob("curves_table*.png"))]:
        shutil.copy(folder / name, tmp_path / name)
    done = subprocess.run([sys.executable, str(SCRIPT), "--report-only", "--report-dir", str(tmp_path),
                           "--runs", str(tmp_path / "no-runs")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "REPORT.md").read_text() == (folder / "REPORT.md").read_text()
    assert "## In short" in (tmp_path / "REPORT.md").read_text()
