"""``experiments/scripts/recipe_speed.py --from-log``: the speed of stretches of one run, read from its train_log.csv."""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

import pytest
from tests.scripts import load_script

REPO = Path(__file__).resolve().parents[2]


def _recipe_speed():
    return load_script("experiments/scripts/recipe_speed.py")


def _write_log(path: Path, rows: list[tuple[int, int, float, float]]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["batch", "games", "batch_decisions", "rollout_s", "update_s"])
        for batch, decisions, rollout, update in rows:
            writer.writerow([batch, batch * 10, decisions, rollout, update])


def test_each_stretch_is_its_decisions_over_its_time_and_the_first_is_the_reference(tmp_path):
    log = tmp_path / "train_log.csv"
    # batches 1-2 on a slow machine (1 s a batch), 3-5 on a fast one (0.25 s a batch), 1000 decisions each
    _write_log(log, [(1, 1000, 0.2, 0.8), (2, 1000, 0.1, 0.9), (3, 1000, 0.05, 0.2), (4, 1000, 0.05, 0.2),
                     (5, 1000, 0.05, 0.2)])
    out = tmp_path / "speed.json"
    _recipe_speed().main(["--from-log", str(log), "--segment", "slow=1-2", "--segment", "fast=3-5", "--json", str(out)])
    rows = json.loads(out.read_text())["rows"]
    assert [r["segment"] for r in rows] == ["slow", "fast"]
    assert rows[0]["decisions_per_s"] == pytest.approx(1000.0) and rows[1]["decisions_per_s"] == pytest.approx(4000.0)
    assert rows[1]["ratio_to_first"] == pytest.approx(4.0) and rows[0]["ratio_to_first"] == 1.0
    assert rows[0]["update_s_per_batch"] == pytest.approx(0.85) and rows[1]["rollout_s_per_batch"] == pytest.approx(0.05)
    assert rows[1]["decisions"] == 3000


def test_bad_segments_and_logs_are_refused_by_name(tmp_path, capsys):
    speed = _recipe_speed()
    for text in ("fast", "fast=3", "fast=5-3", "=1-2", "fast=a-b"):
        with pytest.raises(argparse.ArgumentTypeError, match="NAME=FIRST-LAST"):
            speed.parse_segment(text)
    with pytest.raises(SystemExit):
        speed.main(["--from-log", str(tmp_path / "missing.csv"), "--segment", "a=1-2"])
    assert "no such file" in capsys.readouterr().err
    log = tmp_path / "train_log.csv"
    _write_log(log, [(1, 1000, 0.2, 0.8)])
    with pytest.raises(SystemExit, match="holds 1 of the 2 batches 1-2"):
        speed.main(["--from-log", str(log), "--segment", "a=1-2", "--json", str(tmp_path / "out.json")])
    with pytest.raises(SystemExit):
        speed.main(["--from-log", str(log)])  # a segment is needed
    assert not (tmp_path / "out.json").exists()
