"""The compiled core's small benchmarks write what the performance page quotes:
``benchmarks/core_heuristics.py`` (the heuristics' speed in the core, Random against Greedy) and
``benchmarks/core_compile.py --json`` (the start-up cost)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from big2_env.players.kernels import play_random
from tests.scripts import load_script


def test_core_heuristics_writes_the_games_it_played(tmp_path):
    out = tmp_path / "heuristics.json"
    load_script("benchmarks/core_heuristics.py").main(["--games", "60", "--seed", "4", "--json", str(out)])
    rows = json.loads(out.read_text())["rows"]
    assert set(rows) == {"smart_all", "random_vs_greedy"}
    # the same seed replays the same games: the recorded results are those games' own
    games = play_random(60, seed=4, greedy_seats=[1, 2, 3])
    row = rows["random_vs_greedy"]
    assert row["games"] == 60
    assert row["seat0_win_rate"] == pytest.approx(float(np.mean(games.winners == 0)))
    assert row["seat0_mean_score"] == pytest.approx(float(np.mean(games.scores[:, 0])))
    assert row["decisions_per_game"] == pytest.approx(float(np.mean(games.turns)))
    smart = play_random(60, seed=4, smart_seats=range(4))
    assert rows["smart_all"]["decisions_per_game"] == pytest.approx(float(np.mean(smart.turns)))
    for name in rows:
        assert rows[name]["games_per_s"] > 0
        assert rows[name]["decisions_per_s"] == pytest.approx(rows[name]["games_per_s"] * rows[name]["decisions_per_game"])


def test_core_heuristics_refuses_no_games():
    with pytest.raises(SystemExit):
        load_script("benchmarks/core_heuristics.py").main(["--games", "0"])


def test_core_compile_records_the_cold_and_warm_times(tmp_path, monkeypatch):
    module = load_script("benchmarks/core_compile.py")
    times = iter([9.0, 0.5, 0.7, 12.0, 0.6, 0.4, 70.0, 1.2, 0.9])  # three children, each cold then two warm runs
    children = []

    def fake_first_game(cache_dir, child=module.CHILD):
        children.append(child)
        return next(times)

    monkeypatch.setattr(module, "first_game", fake_first_game)
    out = tmp_path / "compile.json"
    module.main(["--warm-runs", "2", "--json", str(out)])
    record = json.loads(out.read_text())
    assert record["warm_runs"] == 2
    assert record["rows"] == {
        "core_game": {"cold_s": 9.0, "warm_best_s": 0.5, "warm_worst_s": 0.7},
        "aec_game": {"cold_s": 12.0, "warm_best_s": 0.4, "warm_worst_s": 0.6},
        "warm_up": {"cold_s": 70.0, "warm_best_s": 0.9, "warm_worst_s": 1.2},
    }
    assert children == [module.CHILD] * 3 + [module.CHILD_AEC] * 3 + [module.CHILD_ALL] * 3
