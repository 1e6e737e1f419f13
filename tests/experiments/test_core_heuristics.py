"""``experiments/scripts/core_heuristics.py``: the heuristics' speed in the compiled core, and Random against Greedy,
from the games it played."""

from __future__ import annotations

import json

import numpy as np
import pytest

from big2_env.players.kernels import play_random
from tests.scripts import load_script


def test_core_heuristics_writes_the_games_it_played(tmp_path):
    out = tmp_path / "heuristics.json"
    load_script("experiments/scripts/core_heuristics.py").main(["--games", "60", "--seed", "4", "--json", str(out)])
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
        load_script("experiments/scripts/core_heuristics.py").main(["--games", "0"])
