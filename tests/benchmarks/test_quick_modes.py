"""Each maintained benchmark's main path at a toy size: the script runs as its command would (its ``main``,
or the script itself), writes its results file under ``tmp_path``, and the file has the keys the pages quote.

The other maintained benchmarks are run the same way in their own files: ``test_setup_time.py``,
``test_quick_train_time.py``, ``test_clone_size.py`` (``setup_time.py``), ``test_tutorials.py``,
``test_reproduce.py``, ``test_core_benchmarks.py`` (``core_compile.py``) and
``tests/docs/test_leaderboard_page.py`` (``leaderboard.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.scripts import REPO, load_script


def test_env_speed_writes_every_row_and_ratio(tmp_path):
    pytest.importorskip("pygame")
    pytest.importorskip("pettingzoo")
    out = tmp_path / "env_speed.json"
    load_script("benchmarks/env_speed.py").main(["--seconds", "0.05", "--json", str(out)])
    data = json.loads(out.read_text())
    assert len(data["rows"]) == 9 and all(row["decisions_per_s"] > 0 for row in data["rows"])
    assert set(data["ratios"]) == {"b/d", "c/d", "e/a", "f/d", "g/h", "i/a"}
    assert data["command"] == f"python benchmarks/env_speed.py --seconds 0.05 --json {out}"
    script = load_script("benchmarks/env_speed.py")
    assert [row["threads"] for row in data["thread_scaling"]] == script.thread_counts(data["numba_threads"])
    assert data["thread_scaling"][0]["speedup"] == 1.0 and all(row["decisions_per_s"] > 0 for row in data["thread_scaling"])
    assert script.thread_counts(1) == [1] and script.thread_counts(8) == [1, 2, 4, 8] and script.thread_counts(6) == [1, 2, 4, 6]


def test_heuristics_table_writes_the_three_by_three_cells(tmp_path):
    out = tmp_path / "heuristics_table.json"
    load_script("benchmarks/heuristics_table.py").main(["--games", "4", "--seed", "3", "--json", str(out)])
    data = json.loads(out.read_text())
    names = {"random", "greedy", "smart"}
    assert set(data["cells"]) == names and all(set(row) == names for row in data["cells"].values())
    cell = data["cells"]["random"]["greedy"]
    assert cell["games"] == 4 and 0 <= cell["win_rate"] <= 1 and data["games"] == 4 and data["seed"] == 3


def test_core_vs_reference_compares_every_rule_set(tmp_path):
    out = tmp_path / "differential.json"
    load_script("benchmarks/core_vs_reference.py").main(
        ["--decisions", "60", "--variant-decisions", "0", "--smart-seats", "0,2", "--out", str(out)])
    data = json.loads(out.read_text())
    assert data["summary"]["mismatches"] == 0 and data["summary"]["decisions_each"] >= 60
    assert set(data["results"]) >= {"paper", "charlesworth"}


def test_search_speed_writes_the_speeds_the_pages_quote(tmp_path):
    out = tmp_path / "search_speed.json"
    load_script("benchmarks/search_speed.py").main(
        ["--positions", "6", "--seconds", "0.05", "--budget", "8", "--ismcts-positions", "2", "--json", str(out)])
    data = json.loads(out.read_text())
    assert data["positions"] == 6 and data["budget"] == 8
    for key in ("default_nested_search_ms_per_decision", "core_smart_rollouts_per_s", "core_ismcts_ms_per_decision"):
        assert data[key] > 0, key


def test_trainer_ceiling_writes_the_trainer_beside_its_ceiling(tmp_path):
    pytest.importorskip("torch")
    out = tmp_path / "ceiling.json"
    assert load_script("benchmarks/trainer_ceiling.py").main(
        ["--batches", "1", "--steps", "1", "--threads", "1", "--games-per-batch", "4", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["games_per_batch"] == 4 and data["trainer_decisions_per_s"] > 0
    assert data["trainer_over_ceiling"] == pytest.approx(data["trainer_decisions_per_s"] / data["ceiling_decisions_per_s"])


def test_jax_speed_writes_a_row_a_batch_size_and_view(tmp_path):
    pytest.importorskip("jax")
    out = tmp_path / "speed.json"
    assert load_script("benchmarks/jax_speed.py").main(
        ["--batches", "4", "--decisions", "32", "--views", "paper", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert [(row["view"], row["num_envs"]) for row in data["rows"]] == [("paper", 4)]
    assert data["rows"][0]["jax"]["decisions_per_s"] > 0 and "jax_device" in data


@pytest.mark.slow
def test_the_gpu_script_runs_its_three_parts_at_toy_sizes(tmp_path):
    pytest.importorskip("jax")
    env = dict(os.environ, OUT=str(tmp_path), BIG2_GPU_SMOKE="1", PYTHON=sys.executable,
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    done = subprocess.run(["bash", "benchmarks/jax_gpu.sh", "500"], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    speed = json.loads((tmp_path / "speed_gpu.json").read_text())
    assert [row["num_envs"] for row in speed["rows"]] == [64, 256, 64, 256]
    assert (tmp_path / "machine.txt").is_file() and (tmp_path / "ppo_speed").is_dir() and (tmp_path / "ppo_20m").is_dir()


@pytest.mark.slow
def test_the_gpu_script_runs_a_regime_in_spells_each_resuming_the_last_checkpoint(tmp_path):
    pytest.importorskip("jax")
    pytest.importorskip("torch")
    env = dict(os.environ, BIG2_GPU_SMOKE="1", BIG2_GPU_REGIME="a", PYTHON=sys.executable,
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))

    def spell(out, **more):
        done = subprocess.run(["bash", "benchmarks/jax_gpu.sh", "300"], cwd=REPO, env=dict(env, OUT=str(out), **more),
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        return json.loads((out / "ppo_a" / "log.json").read_text())

    first = spell(tmp_path / "one", BIG2_GPU_UPDATES="2")  # a spell cut short, as a time limit would
    assert first["decisions"] == 128 and first["spells"] == [0]
    second = spell(tmp_path / "two", BIG2_GPU_FROM=str(tmp_path / "one" / "ppo_a"))  # carried to a fresh machine
    assert second["spells"] == [0, 2] and second["decisions"] == 6 * 64 and not second["stopped_by_max_seconds"]
    # what comes back: the checkpoint, the log and this spell's snapshots, no more than 8 files
    files = sorted(str(path.relative_to(tmp_path / "two")) for path in (tmp_path / "two").rglob("*") if path.is_file())
    assert files == ["ppo_a/checkpoint.npz", "ppo_a/log.json", "ppo_a/snapshots/model_256.pt",
                     "ppo_a/snapshots/model_384.pt"]


def test_jax_vs_core_finds_no_mismatch(tmp_path):
    pytest.importorskip("jax")
    out = tmp_path / "differential.json"
    script = load_script("benchmarks/jax_vs_core.py")
    first = next(iter(script.RULE_SETS))
    assert script.main(["--decisions", "40", "--num-envs", "4", "--only", first, "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["mismatches"] == 0 and list(data["results"]) == [first] and data["decisions"] >= 40


def test_charlesworth_duel_seats_the_agent_against_three_copies_of_his_network(tmp_path):
    from big2_env.players.charlesworth import write_parameters
    from tests.players.test_charlesworth import random_arrays

    params = tmp_path / "modelParameters0"
    write_parameters(random_arrays(), params)
    out = tmp_path / "duel.json"
    load_script("benchmarks/charlesworth_duel.py").main(
        ["--params", str(params), "--agent", "random", "--deals", "1", "--json", str(out)])
    data = json.loads(out.read_text())
    assert data["agent"] == "random" and data["deals"] == 1 and data["games"] == 4 and 0 <= data["win_rate"] <= 1
    assert data["command"].startswith("python benchmarks/charlesworth_duel.py --params PATH --agent random --deals 1 ")


def test_web_load_plays_its_games_against_a_real_big2_serve(tmp_path):
    out = tmp_path / "load.json"
    figures = load_script("benchmarks/web_load.py").main(["--games", "3", "--opponents", "random", "--json", str(out)])
    assert figures["finished"] == 3 and figures["error_count"] == 0 and figures["first_page_s"] > 0
    assert figures["all"]["n"] == figures["requests"] > 3 * 13
    data = json.loads(out.read_text())
    assert data["games"] == 3 and data["all"]["p95_ms"] > 0


def test_leaderboard_check_measures_its_board_and_writes_the_page(tmp_path, monkeypatch):
    lb = load_script("benchmarks/leaderboard.py")
    monkeypatch.setattr(lb, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(lb, "PAGE", tmp_path / "leaderboard.md")
    monkeypatch.setattr(lb, "HERE", tmp_path / "benchmarks")  # the pool is named relative to HERE.parent
    lb.main(["--board", lb.CHECK, "--deals", "1", "--search", "search:4", "--runs", str(tmp_path / "runs")])
    data = json.loads((tmp_path / "results" / f"{lb.CHECK}.json").read_text())
    assert len(data["ratings"]) == 4 and data["command"].startswith(f"python benchmarks/leaderboard.py --board {lb.CHECK} ")
    page = (tmp_path / "leaderboard.md").read_text()
    assert "\n# Leaderboard\n" in page and "points a game" in page  # the introduction reads the check


def test_every_maintained_script_is_run_by_a_test():
    here = Path(__file__).resolve().parent
    files = [*here.glob("test_*.py"), REPO / "tests" / "docs" / "test_leaderboard_page.py"]
    tests = "\n".join(path.read_text() for path in files)
    scripts = sorted(p.name for p in (REPO / "benchmarks").iterdir() if p.suffix in (".py", ".sh"))
    assert len(scripts) <= 15, scripts
    assert [name for name in scripts if f"benchmarks/{name}" not in tests] == []
