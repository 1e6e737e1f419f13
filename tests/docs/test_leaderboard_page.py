"""``benchmarks/leaderboard.py``: the page's sentences that read results are written from the stored files."""

from __future__ import annotations

import json
from pathlib import Path

from tests.scripts import load_script

REPO = Path(__file__).resolve().parents[2]


def _leaderboard():
    return load_script("benchmarks/leaderboard.py")


def _board(scores: list[tuple[str, float, int]], tables: str = "sampled") -> dict:
    rows = [dict(rank=i, agent_shown=name, mu=30.0 - i, mean_score=score, games=games)
            for i, (name, score, games) in enumerate(scores, start=1)]
    return {"ratings": rows, "tables": tables}


def test_the_orders_agree_or_the_page_says_where_they_part():
    lb = _leaderboard()
    agree = _board([("a", 3.0, 60), ("b", 1.0, 60), ("c", -1.0, 60)])
    assert lb.order_disagreements(agree) == []
    apart = _board([("a", 1.0, 48), ("b", 0.5, 80), ("c", 4.0, 60)])
    assert lb.order_disagreements(apart) == ["`c` has the best mean score yet the 3rd rating"]  # a, b: one apart
    note = lb.reading_note({"paper": agree, "charlesworth": apart})
    assert "(48 to 80 seats an agent, sampled tables" in note
    assert "on the Charlesworth board `c` has the best mean score yet the 3rd rating." in note
    assert "paper-rules board" not in note
    calm = lb.reading_note({"paper": agree})
    assert "no agent is two places apart" in calm and "sampled" in calm


def test_the_four_agent_check_is_read_from_its_file(tmp_path):
    lb = _leaderboard()
    assert "not measured yet" in lb.check_note(None)
    data = _board([("search", 9.8, 160), ("smart", -0.7, 160)], tables="all")
    data.update(arena_command="big2 arena random greedy smart search --deals 40", date="2026-11-27", games=160)
    text = lb.check_note(json.loads(json.dumps(data)))
    assert "ranks search 29.0, smart 28.0 (mean scores +9.80, -0.70)" in text and "160 games" in text
    for row, points in zip(data["ratings"], (9.8, -0.7)):
        row.update(points=points, points_ci=[points - 1, points + 1])
    text = lb.check_note(data)
    assert "ranks search +9.80, smart -0.70 points a game (at one table of four, each agent's points are its " in text
    data["ratings"][0]["points"] = 9.0
    assert "points a game (mean scores +9.80, -0.70)" in lb.check_note(data)


def test_the_stored_page_is_the_one_the_script_writes(tmp_path, monkeypatch):
    """docs/leaderboard.md is what --page-only writes from the stored results: never edited by hand."""
    lb = _leaderboard()
    page = tmp_path / "leaderboard.md"
    monkeypatch.setattr(lb, "PAGE", page)
    lb.main(["--page-only"])
    assert page.read_text() == (REPO / "docs" / "leaderboard.md").read_text()


def _points_board(tmp_path, lb, monkeypatch, board="paper", searchers="tables", deals=2):
    """A small real board in the new format, measured into tmp_path (the stored files go there too)."""
    import argparse

    monkeypatch.setattr(lb, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(lb, "HERE", tmp_path / "benchmarks")  # the pool is named relative to HERE.parent
    monkeypatch.setattr(lb, "pool", lambda *args: ["random", "greedy", "smart", "search:4", "search:8"])
    args = argparse.Namespace(deals=deals, seed=1, tables="all", jobs=1, search="search:4", ismcts="ismcts",
                              params=None, search_net="search:8", searchers=searchers, runs=str(tmp_path / "runs"))
    (tmp_path / "results").mkdir(exist_ok=True)
    return lb.measure(args, board)


def test_a_board_keeps_its_games_as_a_pool_and_its_picture(tmp_path, monkeypatch):
    from big2_env.evaluation.arena import add_to_arena
    from big2_env.evaluation.arena.run import read_arena

    lb = _leaderboard()
    data = _points_board(tmp_path, lb, monkeypatch)
    assert data["pool"] == "results/paper" and data["rating"] == "points" and data["conflicts"] == []
    assert [r["rank"] for r in data["ratings"]] == [1, 2, 3, 4, 5]
    points = [r["points"] for r in data["ratings"]]
    assert points == sorted(points, reverse=True) and all(len(r["points_ci"]) == 2 for r in data["ratings"])
    assert data["head_to_head"]["agents"] == ["random", "greedy", "smart", "search:4", "search:8"]
    assert (tmp_path / "results" / "paper.png").stat().st_size > 1000
    config, _, records = read_arena(tmp_path / "results" / "paper")  # a pool others can refit or add to
    assert len(records) == data["games"] == 5 * 2 * 4 and config["deals"] == 2
    added = add_to_arena(tmp_path / "results" / "paper", ["search:2"], out=tmp_path / "added", picture=False)
    assert len(added.records) > len(records)
    lines = lb.board_section(data)
    text = "\n".join(lines)
    assert "![Paper rules: each agent's points and placing with their 95% intervals](leaderboard/paper.png)" in text
    assert '<div class="leaderboard" markdown>' in text and "| rank | agent | points [95%] | placing [95%] |" in text
    top = data["ratings"][0]
    assert f"| 1 | `{top['agent_shown']}` | {top['points']:+.2f}<br>[{top['points_ci'][0]:+.2f}, " in text
    assert "big2 arena --pool results/paper --add AGENT --out DIR" in text
    assert "each agent held 32 seats" in text  # every table: the same seats for all


def test_his_network_is_stored_by_its_file_name_and_loaded_with_load(tmp_path):
    lb = _leaderboard()
    data = {"board": "charlesworth", "date": "2027-01-01", "deals": 1, "tables": "all", "tables_played": 1, "games": 4,
            "command": "c", "arena_command": "a", "pool": "benchmarks/leaderboard/charlesworth", "conflicts": [],
            "ratings": [dict(rank=1, agent="charlesworth:modelParameters136500", agent_shown="charlesworth:PATH",
                             points=1.0, points_ci=[0.5, 1.5], plackett_luce=0.1, plackett_luce_ci=[0.0, 0.2],
                             win_rate=0.3, win_rate_ci=[0.2, 0.4], mean_score=1.0, mean_score_ci=[0.5, 1.5], games=4)]}
    text = "\n".join(lb.board_section(data))
    assert "--load charlesworth:modelParameters136500=charlesworth:PATH" in text


def test_the_real_boards_order_agrees_where_intervals_separate():
    """On every stored board with the points rating: where two agents' points intervals do not overlap, the points
    order is the mean score's and the head to head's (the boards measured before it have no games to refit)."""
    lb = _leaderboard()
    for board in (*lb.BOARDS, lb.CHECK):
        data = lb._load(lb.RESULTS / f"{board}.json")
        if data is None or not lb._points_board(data):
            continue
        rows = data["ratings"]
        for a in rows:
            for b in rows:
                if a["points_ci"][0] > b["points_ci"][1]:
                    assert a["mean_score"] > b["mean_score"], (board, a["agent"], b["agent"])
        assert data["conflicts"] == [], (board, data["conflicts"])


def test_the_boards_seat_the_search_over_the_network_at_its_default_budget():
    lb = _leaderboard()
    paper = lb.pool("paper", "search", "ismcts", None)
    assert "search-net" in paper and "search" in paper and "ismcts" in paper and len(paper) == 9
    his = lb.pool("charlesworth", "search", "ismcts", "his.params")
    assert his[-2:] == ["pretrained-charlesworth", "charlesworth:his.params"] and "search-net" in his
    assert "search-net" not in lb.pool("paper", "search", "ismcts", None, search_net="none")
    assert lb.pool(lb.CHECK, "search", "ismcts", None) == ["random", "greedy", "smart", "search"]


def test_a_board_short_of_the_target_says_how_many_deals_would_reach_it():
    lb = _leaderboard()
    rows = [dict(rank=1, agent_shown="a", points=2.0, points_ci=[1.0, 3.0], mean_score=2.0),
            dict(rank=2, agent_shown="b", points=-2.0, points_ci=[-2.4, -1.6], mean_score=-2.0)]
    wide = {"deals": 10, "ratings": rows, "conflicts": []}
    assert lb.deals_for_target(wide) == 40  # +-1.0 at 10 deals: four times the deals halve it
    assert "(the target is +-0.5, which about 40 deals would reach" in lb.agreement_note(wide)
    rows[0]["points_ci"] = [1.6, 2.4]
    narrow = {"deals": 10, "ratings": rows, "conflicts": []}
    assert lb.deals_for_target(narrow) == 10 and "would reach" not in lb.agreement_note(narrow)


def test_the_searchers_join_a_board_of_the_others_by_add(tmp_path, monkeypatch):
    """--searchers add: the other agents play every table, the searchers are added with matched seats; a board grown
    to more deals adds them again (the earlier addition is moved aside, not mixed in)."""
    from big2_env.evaluation.arena.run import read_arena

    lb = _leaderboard()
    data = _points_board(tmp_path, lb, monkeypatch, searchers="add")
    assert data["added"] == ["search:4", "search:8"] and "--searchers add" in data["command"]
    assert "big2 arena random greedy smart --rules paper --deals 2" in data["arena_command"]
    assert "&& big2 arena --pool runs/leaderboard/paper --add search:4 search:8 --add-tables matched" in data["arena_command"]
    base, _, base_games = read_arena(tmp_path / "runs" / "paper")
    assert base["agents"] == ["random", "greedy", "smart"] and len(base_games) == 3 * 2 * 4  # three agents: 3 tables
    config, _, games = read_arena(tmp_path / "results" / "paper")  # the stored pool is the addition's
    assert config["agents"] == ["random", "greedy", "smart", "search:4", "search:8"] and len(games) == data["games"]
    seats = {r["agent"]: r["games"] for r in data["ratings"]}
    assert seats["search:4"] > 0 and seats["search:8"] > 0 and len(seats) == 5
    text = "\n".join(lb.board_section(data))
    assert "`search:4` and `search:8` added to them with `big2 arena --pool --add`" in text
    grown = _points_board(tmp_path, lb, monkeypatch, searchers="add", deals=3)
    assert grown["deals"] == 3 and (tmp_path / "runs" / "paper+searchers.2deals").is_dir()
    assert read_arena(tmp_path / "runs" / "paper+searchers")[0]["deals"] == 3


def test_the_introduction_reads_points_boards_and_legacy_ones_together():
    lb = _leaderboard()
    legacy = _board([("a", 1.0, 48), ("b", 0.5, 80), ("c", 4.0, 60)])
    points = {"ratings": [dict(rank=1, agent_shown="x", points=1.0, points_ci=[0.5, 1.5], mean_score=1.0)],
              "added": ["x"]}
    mixed = lb.reading_note({"paper": points, "charlesworth": legacy})
    assert mixed.startswith("Read the ratings with their intervals: neighbours whose intervals overlap")
    assert "the searchers, added with matched seats" in mixed and "On the boards measured before the points" in mixed
    alone = lb.reading_note({"paper": dict(points, added=[])})
    assert "matched seats" not in alone and "On the boards measured before" not in alone


def test_a_board_rated_before_search_nets_opponent_models_says_so():
    lb = _leaderboard()
    rated = {"ratings": [{"agent_shown": "search-net"}, {"agent_shown": "smart"}]}
    assert "its default until 2026-11-29" in lb.budgets_note({"paper": rated})
    assert "On the board under the paper's rules," in lb.budgets_note({"paper": rated})
    both = lb.budgets_note({"paper": rated, "charlesworth": rated})
    assert "On the boards under the paper's rules and Charlesworth's rules," in both
    now = dict(rated, search_net_opponent_models=True)
    assert "2026-11-29" not in lb.budgets_note({"paper": now})
    assert "2026-11-29" not in lb.budgets_note({"paper": {"ratings": [{"agent_shown": "smart"}]}})
