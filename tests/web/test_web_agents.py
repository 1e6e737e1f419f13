"""The web table with a network at it: its insight is the network's probabilities and value."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from big2_env.web.tables import TableStore  # noqa: E402


def test_a_network_on_move_shows_its_probabilities_and_value_and_plays_what_it_showed():
    store = TableStore(("pretrained", "random"))
    table = store.create({"mode": "watch", "seats": ["pretrained"] * 4, "seed": 1})
    for _ in range(6):
        view = table.view()
        seen = view["insight"]
        assert seen["kind"] == "network" and isinstance(seen["value"], float)
        assert abs(sum(c["p"] for c in seen["candidates"]) - 1) < 1e-4
        assert [c["p"] for c in seen["candidates"]] == sorted((c["p"] for c in seen["candidates"]), reverse=True)
        table.advance()
        assert table.game.history[-1][1] == tuple(seen["chosen"])  # the move shown is the move made
    quiet = store.create({"mode": "watch", "seats": ["pretrained"] * 4, "seed": 1, "insight": False})
    assert quiet.view()["insight"] is None


def test_the_search_over_the_network_sits_at_the_table_and_shows_its_candidates():
    store = TableStore(("search-net@16", "random"))
    store.check_agents()
    table = store.create({"mode": "watch", "seats": ["search-net@16"] * 4, "seed": 2})
    kinds = set()
    for _ in range(8):
        seen = table.view()["insight"]
        if seen is not None:
            kinds.add(seen["kind"])
            assert seen["kind"] == "search" and len(seen["candidates"]) >= 2
            assert [c["mean"] for c in seen["candidates"]] == sorted((c["mean"] for c in seen["candidates"]), reverse=True)
        table.advance()
        if seen is not None:
            assert table.game.history[-1][1] == tuple(seen["chosen"])
    assert kinds == {"search"}
