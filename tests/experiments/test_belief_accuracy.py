"""experiments/scripts/belief_accuracy.py: how well search-net's weighed deals place the hidden cards."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tests.scripts import load_script

pytest.importorskip("torch")

from big2_env.players.charlesworth import PARAMETER_SHAPES, write_parameters  # noqa: E402

bench = load_script("experiments/scripts/belief_accuracy.py")


def test_accuracy_by_hand():
    real = [0, 0b0011, 0b0100, 0b1000]  # cards 0 and 1 with seat 1, 2 with seat 2, 3 with seat 3
    hidden = 0b1111
    right = np.array([[0, 0b0011, 0b0100, 0b1000]])
    wrong = np.array([[0, 0b1100, 0b0001, 0b0010]])
    assert bench.accuracy(right, np.ones(1), real, hidden) == (1.0, 0.0)
    placed, score = bench.accuracy(wrong, np.ones(1), real, hidden)
    assert placed == 0.0 and score == pytest.approx(math.log(bench.FLOOR))
    placed, score = bench.accuracy(np.concatenate([right, wrong]), np.array([0.25, 0.75]), real, hidden)
    assert placed == pytest.approx(0.25) and score == pytest.approx(math.log(0.25))
    # only the hidden cards count: card 3 known, so the wrong deal's misplacing of it is not read
    placed, _ = bench.accuracy(np.array([[0, 0b0011, 0b1100, 0]]), np.ones(1), real, 0b0111)
    assert placed == pytest.approx(1.0)


def test_every_setting_reads_the_same_decisions(tmp_path):
    rng = np.random.default_rng(0)
    params = tmp_path / "his"
    write_parameters([rng.normal(size=s).astype(np.float32) * 0.05 for s in PARAMETER_SHAPES], params)
    out = tmp_path / "acc.json"
    assert bench.main(["--params", str(params), "--games", "1", "--deals", "32", "--sizes", "8,32",
                       "--temperatures", "1,2", "--strengths", "0,0.9,1", "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    assert figures["decisions"] > 0
    keys = {(row["deals"], row["temperature"], row["strength"]) for row in figures["settings"]}
    assert keys == {(n, t, s) for n in (8, 32) for t in (1.0, 2.0) for s in (0.9, 1.0)} | {(8, 1.0, 0.0), (32, 1.0, 0.0)}
    for row in figures["settings"]:
        assert 0 <= row["placed"] <= 1 and math.log(bench.FLOOR) <= row["log_score"] <= 0
        assert row["placed_ci"][0] <= row["placed"] <= row["placed_ci"][1]
    assert figures["command"].startswith("python experiments/scripts/belief_accuracy.py --params PATH ")  # no local path kept
    assert str(tmp_path) not in figures["command"]


def test_his_network_can_weigh_the_deals_and_weighs_them_otherwise_than_ours(tmp_path):
    rng = np.random.default_rng(0)
    params = tmp_path / "his"
    write_parameters([rng.normal(size=s).astype(np.float32) * 0.3 for s in PARAMETER_SHAPES], params)
    figures = {}
    for weigher in ("ours", "his"):
        out = tmp_path / f"{weigher}.json"
        assert bench.main(["--params", str(params), "--games", "1", "--deals", "16", "--sizes", "16",
                           "--temperatures", "1", "--strengths", "0,1", "--weigher", weigher, "--json", str(out)]) == 0
        figures[weigher] = json.loads(out.read_text())
        assert figures[weigher]["weigher"] == weigher
    ours, his = ([row for row in figures[w]["settings"]] for w in ("ours", "his"))
    assert ours[0] == his[0]  # uniform deals: the same draws, whoever weighs them
    assert ours[1]["placed"] != his[1]["placed"]


@pytest.mark.parametrize("bad", [["--sizes", "8,x"], ["--sizes", "1"], ["--temperatures", "0"], ["--temperatures", "nan"],
                                 ["--strengths", "1.5"]])
def test_bad_settings_are_refused_with_a_message(bad, capsys):
    with pytest.raises(SystemExit):
        bench.main(["--params", "unused", "--deals", "16", *bad])
    assert "error:" in capsys.readouterr().err
