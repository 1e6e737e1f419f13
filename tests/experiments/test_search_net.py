"""``experiments/scripts/search_net.py``'s ``--merge`` (parts of one run, deals back to back, into one file)
and ``--compare`` (two agents' files, the paired difference deal by deal): hand-built files, and
the committed files, which merging and comparing must reproduce."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.scripts import load_script

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "experiments" / "results" / "search_net"
bench = load_script("experiments/scripts/search_net.py")


def part(scores: list[int], first_deal: int = 0, agent: str = "search-net@640",
         search: dict[str, float] | None = None) -> dict[str, Any]:
    """A file as the script writes it for ``len(scores) / 4`` deals from ``first_deal``."""
    deals = len(scores) // 4
    won = [int(s > 0) for s in scores]
    record = {"agent": agent, "opponent": "charlesworth", "rules": "charlesworth", "deals": deals,
              "first_deal": first_deal, "games": len(scores), "seed": 0, "options": {},
              **bench.summary(np.asarray(scores, dtype=float), np.asarray(won)),
              "elapsed_s": 10.0, "machine": "x86_64",
              "command": f"python experiments/scripts/search_net.py --agent {agent} --deals {deals} --seed 0"
                         + (f" --first-deal {first_deal}" if first_deal else ""),
              "scores": scores, "won": won}
    if search is not None:
        record["search"] = search
    return record


def split(whole: dict[str, Any], at: int) -> list[dict[str, Any]]:
    """``whole`` cut after ``at`` deals into two parts, as two runs with --first-deal would write them."""
    out = []
    for lo, hi in ((0, at), (at, whole["deals"])):
        scores = whole["scores"][lo * 4:hi * 4]
        piece = part(scores, first_deal=lo, agent=whole["agent"])
        piece.update(won=whole["won"][lo * 4:hi * 4], elapsed_s=whole["elapsed_s"] / 2, options=whole["options"],
                     command=whole["command"].replace(f"--deals {whole['deals']}", f"--deals {hi - lo}")
                     + (f" --first-deal {lo}" if lo else ""))
        out.append(piece)
    return out


def test_merge_is_the_summary_of_the_parts_games_in_deal_order():
    a = part([3, -1, -1, -1, -2, 5, -2, -1], first_deal=0)
    b = part([-10, 12, -1, -1], first_deal=2)
    merged = bench.merge([b, a])  # any order: sorted by first deal
    assert merged["deals"] == 3 and merged["games"] == 12 and merged["first_deal"] == 0
    assert merged["scores"] == a["scores"] + b["scores"]
    assert merged["win_rate"] == pytest.approx(3 / 12)
    assert merged["mean_score"] == pytest.approx(sum(a["scores"] + b["scores"]) / 12)
    assert merged["stranded_losses"] == 1 and merged["losses"] == 9
    assert merged["elapsed_s"] == 20.0 and merged["parts"] == [a["command"], b["command"]]
    assert merged["command"].endswith("--deals 3 --seed 0")


def test_merge_weights_the_search_figures_by_decisions_and_departures():
    a = part([1, -1, 0, 0], 0, search={"decisions": 10, "searched": 8, "rollouts": 100, "departures": 2,
                                       "departure_rate": 0.25, "mean_gain": 1.0, "seconds_per_decision": 0.1})
    b = part([1, -1, 0, 0], 1, search={"decisions": 30, "searched": 12, "rollouts": 300, "departures": 6,
                                       "departure_rate": 0.5, "mean_gain": 3.0, "seconds_per_decision": 0.3})
    total = bench.merge([a, b])["search"]
    assert (total["decisions"], total["searched"], total["rollouts"], total["departures"]) == (40, 20, 400, 8)
    assert total["departure_rate"] == pytest.approx(8 / 20)
    assert total["mean_gain"] == pytest.approx((2 * 1.0 + 6 * 3.0) / 8)
    assert total["seconds_per_decision"] == pytest.approx((10 * 0.1 + 30 * 0.3) / 40)
    assert "opponent_seats_smart" not in total  # parts written before the opponent models keep no such count


def test_merge_sums_the_opponent_models_readings():
    def search(net, smart):
        return {"decisions": 10, "searched": 8, "rollouts": 100, "departures": 2, "departure_rate": 0.25,
                "mean_gain": 1.0, "seconds_per_decision": 0.1,
                "opponent_seats_network": net, "opponent_seats_smart": smart}
    total = bench.merge([part([1, -1, 0, 0], 0, search=search(20, 4)), part([1, -1, 0, 0], 1, search=search(22, 2))])
    assert (total["search"]["opponent_seats_network"], total["search"]["opponent_seats_smart"]) == (42, 6)


@pytest.mark.parametrize("change, message", [
    ({"agent": "search-net@2560"}, "differ in agent"),
    ({"seed": 1}, "differ in seed"),
    ({"first_deal": 3}, "not back to back"),
])
def test_merge_refuses_parts_of_different_runs(change, message):
    a, b = part([1, -1, 0, 0], 0), part([1, -1, 0, 0], 1)
    b.update(change)
    with pytest.raises(SystemExit, match=message):
        bench.merge([a, b])


def test_merge_refuses_a_part_without_its_games():
    a, b = part([1, -1, 0, 0], 0), part([1, -1, 0, 0], 1)
    del b["scores"]
    with pytest.raises(SystemExit, match="per-game scores"):
        bench.merge([a, b])


@pytest.mark.parametrize("name", ["duel_640_1000.json", "duel_network_1000.json"])
def test_merging_a_committed_file_cut_in_two_gives_it_back(name):
    whole = json.loads((RESULTS / name).read_text())
    merged = bench.merge(split(whole, 437))
    for key in ("deals", "games", "win_rate", "mean_score", "stranded_losses", "losses", "scores", "won", "command"):
        assert merged[key] == whole[key], key
    assert merged["win_rate_ci"] == pytest.approx(whole["win_rate_ci"])
    assert merged["mean_score_ci"] == pytest.approx(whole["mean_score_ci"])


def test_compare_is_the_paired_difference_over_the_shared_deals_only():
    first = part([4, -1, -1, -2, 8, -8, 0, 0, 2, -2, 0, 0], first_deal=0)  # deals 0, 1, 2
    other = part([0, 0, 0, 0, 1, -1, 0, 0], first_deal=1)  # deals 1, 2
    figures = bench.compare(first, other)
    assert (figures["first_deal"], figures["deals"]) == (1, 2)
    # deal 0 is first's alone; deals 1 and 2: every seat's mean score 0 in both files, so no difference in
    # points; wins (a positive score) 1/4 against 0 on deal 1, 1/4 against 1/4 on deal 2
    assert figures["mean_score_difference"] == pytest.approx(0.0)
    assert figures["win_rate_difference"] == pytest.approx(((1 / 4 - 0) + (1 / 4 - 1 / 4)) / 2)
    assert (figures["games_scored_differently"], figures["deals_scored_differently"]) == (4, 2)  # two seats a deal
    same = bench.compare(first, first)
    assert same["mean_score_difference"] == 0.0 and same["win_rate_difference_ci"] == [0.0, 0.0]
    assert same["games_scored_differently"] == 0


def test_compare_refuses_files_that_did_not_play_the_same_deals():
    a, b = part([1, -1, 0, 0], 0), part([1, -1, 0, 0], 1)
    with pytest.raises(SystemExit, match="share no deal"):
        bench.compare(a, b)
    b.update(first_deal=0, seed=3)
    with pytest.raises(SystemExit, match="differ in seed"):
        bench.compare(a, b)


def test_the_committed_paired_file_is_what_compare_gives():
    paired = json.loads((RESULTS / "paired_640_network_1000.json").read_text())
    figures = bench.compare(*(json.loads((RESULTS / name).read_text())
                              for name in ("duel_640_1000.json", "duel_network_1000.json")))
    for key in ("deals", "win_rate_difference", "mean_score_difference"):
        assert figures[key] == pytest.approx(paired[key]), key
    assert figures["mean_score_difference_ci"] == pytest.approx(paired["mean_score_difference_ci"])


def test_seeding_each_deal_plays_the_same_deals_and_each_deal_as_a_run_of_that_deal_alone(tmp_path):
    """--seed-each-deal: deal k's games are those of a run of deal k alone (--first-deal k); the deals are
    the run's usual ones, so the paired comparison with an ordinary run is over the same deals."""
    from big2_env import evaluate

    out = tmp_path / "each.json"
    bench.main(["--agent", "random", "--opponent", "greedy", "--deals", "3", "--seed", "4", "--seed-each-deal",
                "--json", str(out)])
    each = json.loads(out.read_text())
    assert each["seed_each_deal"] is True and each["games"] == 12 and each["command"].endswith("--seed-each-deal")
    alone = [evaluate("random", "greedy", n_games=1, seed=4, rules="paper", duplicate=True, progress=False,
                      first_deal=k) for k in range(3)]
    assert each["scores"] == [int(s) for r in alone for s in r.scores]
    # Greedy against Greedy is deterministic: seeding changes nothing, and the two modes play the same games
    plain, again = tmp_path / "plain.json", tmp_path / "again.json"
    bench.main(["--agent", "greedy", "--opponent", "greedy", "--deals", "3", "--seed", "4", "--json", str(plain)])
    bench.main(["--agent", "greedy", "--opponent", "greedy", "--deals", "3", "--seed", "4", "--seed-each-deal",
                "--json", str(again)])
    assert json.loads(plain.read_text())["scores"] == json.loads(again.read_text())["scores"]


def test_merge_refuses_parts_that_seeded_differently():
    a, b = part([1, -1, 0, 0], 0), part([1, -1, 0, 0], 1)
    b["seed_each_deal"] = True
    with pytest.raises(SystemExit, match="differ in seed_each_deal"):
        bench.merge([a, b])
