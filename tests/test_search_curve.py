"""benchmarks/search_curve.py: it reads the curve's points, orders them by time and tabulates them."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "search_curve.py"


def load():
    spec = importlib.util.spec_from_file_location("search_curve", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def point(win: float, games: int) -> dict:
    return {"win_rate": win, "win_rate_ci": [win - 0.05, win + 0.05], "mean_score": 1.5,
            "mean_score_ci": [0.5, 2.5], "games": games}


def test_points_are_read_by_opponent_and_sorted_by_time(tmp_path):
    curve = load()
    (tmp_path / "curve_smart_1s.json").write_text(json.dumps(point(0.5, 100)))
    (tmp_path / "curve_smart_0.05s.json").write_text(json.dumps(point(0.4, 400)))
    (tmp_path / "curve_charlesworth_4s.json").write_text(json.dumps(point(0.3, 40)))
    (tmp_path / "cells.json").write_text("{}")  # not a curve point
    points = curve.read_points(tmp_path)
    assert [p["seconds"] for p in points["smart"]] == [0.05, 1.0]
    assert [p["seconds"] for p in points["charlesworth"]] == [4.0]
    text = curve.table(points)
    assert "| three Smart | 0.05 s | 400 | 40.0% [35.0%, 45.0%] | +1.50 [+0.50, +2.50] |" in text
    assert text.count("\n") == 4  # header, rule and three rows


def test_an_empty_folder_is_refused(tmp_path):
    with pytest.raises(SystemExit):
        load().main(["--dir", str(tmp_path)])
