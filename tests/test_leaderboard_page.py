"""``benchmarks/leaderboard.py``: the page's sentences that read results are written from the stored files."""

from __future__ import annotations

import json
from pathlib import Path

from scripts import load_script

REPO = Path(__file__).resolve().parents[1]


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


def test_the_stored_page_is_the_one_the_script_writes(tmp_path, monkeypatch):
    """docs/leaderboard.md is what --page-only writes from the stored results: never edited by hand."""
    lb = _leaderboard()
    page = tmp_path / "leaderboard.md"
    monkeypatch.setattr(lb, "PAGE", page)
    lb.main(["--page-only"])
    assert page.read_text() == (REPO / "docs" / "leaderboard.md").read_text()
