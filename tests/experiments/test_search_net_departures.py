"""experiments/scripts/search_net_departures.py: each departure of search-net valued again, by its rollouts and at the table."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tests.scripts import load_script

pytest.importorskip("torch")

from big2_env.players.charlesworth import PARAMETER_SHAPES, write_parameters  # noqa: E402

bench = load_script("experiments/scripts/search_net_departures.py")


def test_every_departure_is_valued_again_and_parts_merge(tmp_path):
    rng = np.random.default_rng(0)
    params = tmp_path / "his"
    write_parameters([rng.normal(size=s).astype(np.float32) * 0.05 for s in PARAMETER_SHAPES], params)
    parts = []
    for seed in (1, 2):  # margin 0: the search takes the best mean, and so leaves the network often
        out = tmp_path / f"part{seed}.json"
        assert bench.main(["--params", str(params), "--games", "1", "--seed", str(seed), "--budget", "20",
                           "--fresh", "8", "--options", '{"margin": 0}', "--json", str(out)]) == 0
        parts.append(out)
    figures = [json.loads(p.read_text()) for p in parts]
    for part in figures:
        assert part["departures"] == len(part["rows"]) > 0 and part["searched"] >= part["departures"]
        assert all(row["measured"] > 0 and all(math.isfinite(row[k]) for k in ("fresh", "table", "table_argmax", "true"))
                   for row in part["rows"])
        assert part["measured"] == pytest.approx(np.mean([row["measured"] for row in part["rows"]]))
        assert part["curse"] == pytest.approx(part["measured"] - part["fresh"])
    merged = tmp_path / "merged.json"
    assert bench.main(["--merge", *map(str, parts), "--json", str(merged)]) == 0
    whole = json.loads(merged.read_text())
    assert whole["games"] == 2 and whole["rows"] == figures[0]["rows"] + figures[1]["rows"]
    assert whole["departures_per_game"] == pytest.approx(len(whole["rows"]) / 2)
    assert whole["model_error"] == pytest.approx(whole["fresh"] - whole["table"])
    assert whole["sampled_own"] == pytest.approx(whole["table"] - whole["table_argmax"])
    assert whole["beliefs"] == pytest.approx(whole["table_argmax"] - whole["true"])
    assert whole["gain_per_game"] == pytest.approx(whole["departures_per_game"] * whole["true"])  # the lemma


def test_parts_of_different_runs_are_not_merged(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    base = {"games": 1, "seed": 1, "budget": 640, "fresh_rollouts": 2560, "options": {}, "seconds": 1.0,
            "searched": 0, "rows": []}
    a.write_text(json.dumps(base))
    b.write_text(json.dumps({**base, "budget": 64}))
    with pytest.raises(SystemExit, match="differ in budget"):
        bench.main(["--merge", str(a), str(b)])



def test_the_oracle_plays_every_rollout_on_the_real_cards():
    from big2_env import Game
    from big2_env.observations.decision import Decision, PolicyObservation

    search = bench.OracleSearch.from_spec("pretrained-charlesworth", rules="charlesworth", budget=24, seed=0, margin=0)
    game = Game("charlesworth", seed=5)
    start = [sum(1 << c for c in game.hand(p)) for p in range(4)]
    for _ in range(6):  # a few moves in, so that the hidden cards have moved
        decision = Decision(game)
        game._apply(decision.require_entry(int(decision.actions[0]), "a player"))
    me = game.current_player
    real = np.array([start[(me + k) % 4] for k in range(4)], dtype=np.int64)  # starting hands, the searcher first
    with pytest.raises(RuntimeError, match="real is not set"):
        search.act(PolicyObservation(Decision(game), extended=True))
    dealt: list[np.ndarray] = []
    play = search.rollout.play

    def spy(hands, *args, **kwargs):
        dealt.append(np.asarray(hands).copy())
        return play(hands, *args, **kwargs)

    search.rollout.play = spy  # type: ignore[method-assign]
    search.real = real
    search.act(PolicyObservation(Decision(game), extended=True))
    assert dealt and all((hands == real[None]).all() for hands in dealt)


def test_the_oracle_run_keeps_each_games_score_and_is_not_merged_with_a_plain_one(tmp_path):
    rng = np.random.default_rng(0)
    params = tmp_path / "his"
    write_parameters([rng.normal(size=s).astype(np.float32) * 0.05 for s in PARAMETER_SHAPES], params)
    out = tmp_path / "oracle.json"
    assert bench.main(["--params", str(params), "--games", "2", "--seed", "3", "--budget", "12", "--fresh", "8",
                       "--oracle", "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    assert figures["oracle"] is True and len(figures["scores"]) == 2
    assert figures["score"] == pytest.approx(np.mean(figures["scores"]))
    assert figures["win_rate"] == pytest.approx(np.mean([x > 0 for x in figures["scores"]]))
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({**figures, "oracle": False}))
    with pytest.raises(SystemExit, match="differ in oracle"):
        bench.main(["--merge", str(out), str(plain)])


def test_a_noisy_oracle_deals_the_real_cards_after_the_swaps_and_says_how_many_it_places_right(tmp_path):
    from big2_env import Game
    from big2_env.observations.decision import Decision, PolicyObservation
    from big2_env.players.dealers import UniformDealer
    from big2_env.players.public import public_state

    search = bench.OracleSearch.from_spec("pretrained-charlesworth", rules="charlesworth", budget=24, seed=0)
    game = Game("charlesworth", seed=7)
    start = [sum(1 << c for c in game.hand(p)) for p in range(4)]
    for _ in range(5):
        decision = Decision(game)
        game._apply(decision.require_entry(int(decision.actions[0]), "a player"))
    me = game.current_player
    search.real = np.array([start[(me + k) % 4] for k in range(4)], dtype=np.int64)
    search.swaps, search.placed = 2, []
    position = public_state(PolicyObservation(Decision(game), extended=True))
    hands, weights = search._weighed_deals(position)
    assert hands.shape == (bench.NOISY_DEALS, 4) and weights.sum() == pytest.approx(1.0)
    hidden = sum(1 << c for c in UniformDealer.starting(position, np.random.default_rng(0)).unseen)
    for row in hands.tolist():
        assert row[0] == search.real[0]  # its own hand untouched
        for seat in (1, 2, 3):  # each seat keeps its count, and its known cards
            assert row[seat].bit_count() == int(search.real[seat]).bit_count()
            assert row[seat] & ~hidden == int(search.real[seat]) & ~hidden
        wrong = sum((row[s] & hidden & ~int(search.real[s])).bit_count() for s in (1, 2, 3))
        assert wrong <= 4  # two swaps move at most four cards
    assert len(search.placed) == 1 and 1 - 4 / hidden.bit_count() <= search.placed[0] < 1
    with pytest.raises(SystemExit):
        bench.main(["--params", "x", "--games", "1", "--swaps", "2"])  # swaps only with --oracle
