"""experiments/scripts/search_curve.py: it reads the curve's points, orders them by time and tabulates them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "scripts" / "search_curve.py"


def load():
    return load_script("experiments/scripts/search_curve.py")


def point(win: float, games: int) -> dict:
    return {"win_rate": win, "win_rate_ci": [win - 0.05, win + 0.05], "mean_score": 1.5,
            "mean_score_ci": [0.5, 2.5], "games": games}


def test_points_are_read_by_opponent_and_sorted_by_time(tmp_path):
    curve = load()
    (tmp_path / "curve_smart_1s.json").write_text(json.dumps(point(0.5, 100)))
    (tmp_path / "curve_smart_0.05s.json").write_text(json.dumps(point(0.4, 400)))
    (tmp_path / "curve_charlesworth_4s.json").write_text(json.dumps(point(0.3, 40)))
    (tmp_path / "curve_ismcts_smart_0.25s.json").write_text(json.dumps(point(0.45, 200)))
    (tmp_path / "curve_search_smart_0.1s.json").write_text(json.dumps(point(0.42, 200)))  # the default, new name
    (tmp_path / "cells.json").write_text("{}")  # not a curve point
    (tmp_path / "curve_wizard_smart_1s.json").write_text("{}")  # no such design
    (tmp_path / "curve_smart_fast.json").write_text("{}")  # no time
    points = curve.read_points(tmp_path)
    assert list(points) == [("search", "smart"), ("ismcts", "smart"), ("search", "charlesworth")]
    assert [p["seconds"] for p in points["search", "smart"]] == [0.05, 0.1, 1.0]
    assert [p["seconds"] for p in points["search", "charlesworth"]] == [4.0]
    text = curve.table(points)
    assert "| three Smart | search | 0.05 s | 400 | 40.0% [35.0%, 45.0%] | +1.50 [+0.50, +2.50] |" in text
    assert "| three Smart | ismcts | 0.25 s | 200 | 45.0% [40.0%, 50.0%] |" in text
    assert text.count("\n") == 6  # header, rule and five rows


def test_the_plot_is_drawn(tmp_path):
    pytest.importorskip("matplotlib")
    curve = load()
    (tmp_path / "curve_smart_1s.json").write_text(json.dumps(point(0.5, 100)))
    (tmp_path / "curve_search-fast_charlesworth_0.1s.json").write_text(json.dumps(point(0.3, 100)))
    curve.main(["--dir", str(tmp_path)])
    assert (tmp_path / "strength_vs_time.png").stat().st_size > 10_000


def test_an_empty_folder_is_refused(tmp_path):
    with pytest.raises(SystemExit):
        load().main(["--dir", str(tmp_path)])


# ----------------------------------------------------------------------------- experiments/scripts/search_designs.py
DESIGNS_SCRIPT = SCRIPT.parent / "search_designs.py"


def load_designs():
    return load_script("experiments/scripts/search_designs.py")


def test_each_design_is_built_with_its_time_and_rollouts():
    from big2_env.players.ismcts import ISMCTSPolicy
    from big2_env.players.search import FastRollout, SearchPolicy

    designs = load_designs()
    search, fast, ismcts = (designs.make_design(d, 0.25, "charlesworth") for d in designs.DESIGNS)
    assert isinstance(search, SearchPolicy) and search.budget == "0.25s" and not isinstance(search.rollout, FastRollout)
    assert isinstance(fast, SearchPolicy) and isinstance(fast.rollout, FastRollout) and fast.rollout.sample
    assert fast.rollout.model.rules == "charlesworth"
    assert isinstance(ismcts, ISMCTSPolicy) and ismcts.seconds == 0.25
    assert designs.curve_path(Path("d"), "search", "smart", 0.1).name == "curve_smart_0.1s.json"
    assert designs.curve_path(Path("d"), "ismcts", "charlesworth", 1.0).name == "curve_ismcts_charlesworth_1s.json"


def test_a_design_point_is_written_where_the_curve_reads_it(tmp_path):
    designs, curve = load_designs(), load()
    designs.main(["--design", "search-fast", "--opponent", "smart", "--seconds", "0.005", "--deals", "1",
                  "--dir", str(tmp_path)])
    points = curve.read_points(tmp_path)
    assert list(points) == [("search-fast", "smart")] and points["search-fast", "smart"][0]["games"] == 4


@pytest.mark.parametrize("argv", [["--deals", "0"], ["--seconds", "0"], ["--opponent", "charlesworth"],
                                  ["--opponent", "charlesworth", "--params", "/no/such/file"]])
def test_the_designs_benchmark_refuses_bad_arguments(argv, tmp_path):
    base = {"--design": "search", "--opponent": "smart", "--seconds": "0.1", "--deals": "1"}
    for flag, value in zip(argv[::2], argv[1::2]):
        base[flag] = value
    with pytest.raises(SystemExit):
        load_designs().main([x for pair in base.items() for x in pair] + ["--dir", str(tmp_path)])
    assert not list(tmp_path.iterdir())
