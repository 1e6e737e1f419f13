"""big2 arena (big2_env.evaluation.arena): schedule, duplicate seats, golden results, jobs, resume, adding agents to a
stored pool, refits, compressed games, the time estimate, refusals."""

from __future__ import annotations

import csv
import gzip
import hashlib
import json
import math
import os
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from big2_env.cli import main
from big2_env.errors import LoadError
from big2_env.evaluation.arena import ArenaError, Schedule, add_to_arena, refit_arena, run_arena
from big2_env.evaluation.arena import run as arena_run
from big2_env.evaluation.arena.ratings import head_to_head, rate
from big2_env.evaluation.arena.records import GameRecord, finishing_order, read_games, write_games
from big2_env.evaluation.arena.schedule import CHUNK_MATCHES


def _rows(folder: Path) -> list[dict[str, str]]:
    with open(folder / "games.csv", newline="") as handle:
        return list(csv.DictReader(handle))


# ---------------------------------------------------------------- schedule


@pytest.mark.parametrize("pool, tables", [(2, 3), (3, 3), (4, 1), (5, 5), (6, 15)])
def test_every_table_of_a_pool(pool, tables):
    schedule = Schedule.build(pool, deals=2, seed=3)
    assert len(schedule.tables) == tables
    members = [tuple(sorted(t.slots)) for t in schedule.tables]
    assert len(set(members)) == tables  # no table twice
    for table in members:
        assert set(table) == set(range(pool)) if pool <= 4 else len(set(table)) == 4  # every agent sits when it can


@pytest.mark.parametrize("pool, mode", [(2, "all"), (3, "all"), (5, "all"), (6, "sampled")])
def test_duplicate_seats_are_balanced_exactly(pool, mode):
    """In every match each slot holds every seat once, so per deal every agent holds every seat equally often."""
    schedule = Schedule.build(pool, deals=5, seed=1, mode=mode)
    games = schedule.games()
    assert len(games) == 4 * len(schedule.matches)
    for number in range(len(schedule.matches)):
        rotations = games[4 * number: 4 * number + 4]
        assert {g.deal for g in rotations} == {schedule.matches[number].deal}
        slots = schedule.tables[rotations[0].table].slots
        for slot in range(4):
            held = sorted(next(s for s in range(4) if (s - g.rotation) % 4 == slot) for g in rotations)
            assert held == [0, 1, 2, 3]
        per_agent = Counter((agent, seat) for g in rotations for seat, agent in enumerate(g.seats))
        for agent in set(slots):
            assert {per_agent[(agent, seat)] for seat in range(4)} == {slots.count(agent)}


def test_sampled_tables_are_used_equally_often():
    schedule = Schedule.build(6, deals=30, seed=0, mode="sampled")  # 15 tables: each exactly twice
    assert [m.deal for m in schedule.matches] == list(range(30))
    assert set(Counter(m.table for m in schedule.matches).values()) == {2}


def test_same_seed_same_schedule_another_seed_another():
    a, b, c = (Schedule.build(5, deals=3, seed=s) for s in (7, 7, 8))
    assert a == b
    assert a.deal_seeds != c.deal_seeds


def test_a_chunk_reports_every_game_once():
    from big2_env.engine.rules import Rules
    from big2_env.evaluation.arena.play import play_chunk
    from big2_env.evaluation.loading import load_agent

    schedule = Schedule.build(2, deals=2, seed=0)
    chunk = schedule.chunks()[0]
    reports: list[int] = []
    play_chunk(["random", "smart"], [load_agent("random"), load_agent("smart")], Rules(), chunk, schedule.deal_seeds,
               seed=0, chunk=0, report=reports.append)
    assert sum(reports) == len(chunk) == 24 and len(reports) > 1 and min(reports) > 0


def test_finishing_order_ties_by_cards_then_seat_after_the_winner():
    assert finishing_order(1, [4, 0, 2, 9]) == (1, 2, 0, 3)
    assert finishing_order(2, [3, 3, 0, 3]) == (2, 3, 0, 1)  # all tied: seat order after the winner
    assert finishing_order(0, [0, 5, 5, 1]) == (0, 3, 1, 2)


# ---------------------------------------------------------------- golden results


def test_golden_two_agents_one_deal(tmp_path):
    """random vs greedy, one deal, seed 0: 3 tables (AAAB, AABB, ABBB in shuffled slot orders) x 4 rotations."""
    result = run_arena(["random", "greedy"], deals=1, seed=0, out=tmp_path, picture=False)
    rows = _rows(tmp_path)
    assert len(rows) == 12
    assert {r["deal_seed"] for r in rows} == {"8668861027912758289"}
    assert rows[0] == {
        "game": "0", "deal": "0", "deal_seed": "8668861027912758289", "table": "0", "rotation": "0",
        "seat0": "random", "seat1": "random", "seat2": "greedy", "seat3": "random", "order": "2 1 3 0",
        "score0": "-7", "score1": "-1", "score2": "11", "score3": "-3", "turns": "74",
    }
    assert all(sum(int(r[f"score{s}"]) for s in range(4)) == 0 for r in rows)
    # counted by hand from the 12 rows: greedy wins games 0, 1, 5, 6, 7, 8, 9, 10, 11
    winners = [r[f"seat{r['order'].split()[0]}"] for r in rows]
    assert winners.count("greedy") == 9 and winners.count("random") == 3
    best, worst = result.ratings
    assert (best.agent, best.games, best.wins, best.win_rate) == ("greedy", 24, 9, 0.375)
    assert (worst.agent, worst.games, worst.wins) == ("random", 24, 3)
    # two agents: every game's scores sum to zero, so their mean scores are opposite (24 seats each)
    greedy_total = sum(int(r[f"score{s}"]) for r in rows for s in range(4) if r[f"seat{s}"] == "greedy")
    assert best.mean_score == greedy_total / 24 == 2.25 and worst.mean_score == -2.25
    # points, by hand: with thetas +t (greedy) and -t, a table of k greedy seats predicts t (4 - k) / 2 for a greedy
    # seat and -t k / 2 for a random one; least squares gives t = sum(x y) / sum(x^2) = 2 * 54 / (4 * (3 + 4 + 3))
    assert best.points == pytest.approx(2.7) and worst.points == pytest.approx(-2.7)
    assert best.mu is None  # OpenSkill only when asked for
    skill = rate(["random", "greedy"], result.records, rating="openskill")
    assert round(skill[0].mu, 2) == 26.22 and round(skill[1].mu, 2) == 22.90
    assert math.isnan(best.mean_score_ci[0]) and math.isnan(best.win_rate_ci[0])  # one deal: no interval
    assert math.isnan(best.points_ci[0]) and math.isnan(best.plackett_luce_ci[0])


def test_ratings_json_and_head_to_head(tmp_path):
    result = run_arena(["random", "greedy", "smart"], deals=2, seed=1, out=tmp_path, picture=False)
    saved = json.loads((tmp_path / "ratings.json").read_text())
    assert [row["rank"] for row in saved] == [1, 2, 3]
    assert [row["agent"] for row in saved] == [r.agent for r in result.ratings]
    points = [row["points"] for row in saved]
    assert points == sorted(points, reverse=True)  # best first, by points
    for row in saved:
        assert {"agent", "points", "points_ci", "plackett_luce", "plackett_luce_ci", "games", "wins", "mean_score"} <= set(row)
        assert row["points_ci"][0] <= row["points_ci"][1] and "mu" not in row
        assert row["games"] == 24 * 4 // 3  # 3 tables x 2 deals x 4 rotations x 4 seats, shared by 3 agents
    assert sum(points) == pytest.approx(0.0, abs=1e-9)
    assert sum(row["wins"] for row in saved) == 24
    matrix = json.loads((tmp_path / "head_to_head.json").read_text())
    mean = matrix["mean_score_difference"]
    for i in range(3):
        assert mean[i][i] is None
        for j in range(3):
            if i != j:
                assert mean[i][j] == pytest.approx(-mean[j][i])
                assert matrix["low"][i][j] <= mean[i][j] <= matrix["high"][i][j]
    assert matrix["deals"][0][1] == 2


def test_one_game_of_four_agents_is_openskills_own_update():
    from openskill.models import PlackettLuce

    record = GameRecord(0, 0, 1, 0, 0, ("a", "b", "c", "d"), (2, 0, 3, 1), (-1, -5, 9, -3), 50)
    model = PlackettLuce(tau=0.0)
    expected = model.rate([[model.rating()] for _ in range(4)], ranks=[2, 4, 1, 3])
    rows = {r.agent: r for r in rate(["a", "b", "c", "d"], [record], rating="openskill")}
    for seat, agent in enumerate("abcd"):
        assert rows[agent].mu == pytest.approx(expected[seat][0].mu)
        assert rows[agent].sigma == pytest.approx(expected[seat][0].sigma)
    assert [r.agent for r in rate(["a", "b", "c", "d"], [record], rating="openskill")] == ["c", "a", "d", "b"]
    assert head_to_head(["a", "b", "c", "d"], [record]).mean[2][1] == 14.0


def test_two_seats_of_one_agent_both_count():
    """An agent in two seats gets both seats' updates: the sum of their changes of mu."""
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0)
    fresh = model.rate([[model.rating()] for _ in range(4)], ranks=[1, 2, 3, 4])
    change = [team[0].mu - 25.0 for team in fresh]
    first_and_second = GameRecord(0, 0, 1, 0, 0, ("a", "a", "b", "c"), (0, 1, 2, 3), (6, -1, -2, -3), 50)
    first_and_last = GameRecord(0, 0, 1, 0, 0, ("a", "b", "c", "a"), (0, 1, 2, 3), (6, -1, -2, -3), 50)
    top = {r.agent: r.mu for r in rate(["a", "b", "c"], [first_and_second], rating="openskill")}
    split = {r.agent: r.mu for r in rate(["a", "b", "c"], [first_and_last], rating="openskill")}
    assert top["a"] == pytest.approx(25.0 + change[0] + change[1])
    assert split["a"] == pytest.approx(25.0 + change[0] + change[3])  # last place costs more than first gains
    assert top["a"] > 25.0 > split["a"] and top["c"] == pytest.approx(25.0 + change[3])


# ---------------------------------------------------------------- jobs and resume


def test_the_same_results_with_one_job_or_two(tmp_path):
    agents = ["random", "greedy", "smart"]
    run_arena(agents, deals=6, seed=5, out=tmp_path / "one", jobs=1, picture=False)  # 18 matches: two chunks
    run_arena(agents, deals=6, seed=5, out=tmp_path / "two", jobs=2, picture=False)
    for name in ("games.csv", "ratings.json", "head_to_head.json"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name


def test_resume_equals_one_straight_run(tmp_path, monkeypatch):
    agents = ["random", "greedy", "smart"]
    straight = tmp_path / "straight"
    run_arena(agents, deals=12, seed=2, out=straight, picture=False)  # 36 matches: chunks of 16, 16, 4

    real = arena_run.play_chunk

    def interrupted(*args, **kwargs):
        if args[6] == 1:  # the second chunk: the run is stopped there
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    resumed = tmp_path / "resumed"
    monkeypatch.setattr(arena_run, "play_chunk", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_arena(agents, deals=12, seed=2, out=resumed, picture=False)
    monkeypatch.setattr(arena_run, "play_chunk", real)
    assert len(_rows(resumed)) == 4 * CHUNK_MATCHES and not (resumed / "ratings.json").exists()
    with open(resumed / "games.csv", "a") as handle:  # and a line cut short, as a kill while writing leaves
        handle.write("64,5,123,0,0,random,gre")
    result = run_arena(agents, deals=12, seed=2, out=resumed, resume=True, picture=False)
    assert result.resumed == 4 * CHUNK_MATCHES
    for name in ("games.csv", "ratings.json", "head_to_head.json"):
        assert (straight / name).read_bytes() == (resumed / name).read_bytes(), name


def test_resume_drops_a_chunk_cut_short(tmp_path):
    agents = ["random", "greedy"]
    run_arena(agents, deals=6, seed=4, out=tmp_path, picture=False)  # 18 matches: chunks of 16 and 2
    full = (tmp_path / "games.csv").read_text()
    lines = full.splitlines(keepends=True)
    (tmp_path / "games.csv").write_text("".join(lines[: 1 + 4 * CHUNK_MATCHES + 3]))  # 3 games of the second chunk
    result = run_arena(agents, deals=6, seed=4, out=tmp_path, resume=True, picture=False)
    assert result.resumed == 4 * CHUNK_MATCHES
    assert (tmp_path / "games.csv").read_text() == full


def test_resume_with_more_deals_equals_a_straight_run_with_them(tmp_path):
    agents = ["random", "greedy", "smart"]
    run_arena(agents, deals=7, seed=3, out=tmp_path / "straight", picture=False)  # 21 matches: chunks of 16 and 5
    run_arena(agents, deals=6, seed=3, out=tmp_path / "grown", picture=False)  # 18 matches: chunks of 16 and 2
    grown = run_arena(agents, deals=7, seed=3, out=tmp_path / "grown", resume=True, picture=False)
    assert grown.resumed == 4 * CHUNK_MATCHES  # the first chunk kept; the short one played again, whole
    for name in ("games.csv", "ratings.json", "head_to_head.json"):
        assert (tmp_path / "straight" / name).read_bytes() == (tmp_path / "grown" / name).read_bytes(), name
    assert json.loads((tmp_path / "grown" / "arena.json").read_text())["deals"] == 7
    with pytest.raises(ArenaError, match="deals = 7; this one asks for 5"):
        run_arena(agents, deals=5, seed=3, out=tmp_path / "grown", resume=True)
    run_arena(agents, deals=2, seed=3, out=tmp_path / "sampled", tables="sampled", picture=False)
    with pytest.raises(ArenaError, match="more deals: only with every table"):
        run_arena(agents, deals=3, seed=3, out=tmp_path / "sampled", tables="sampled", resume=True)


def test_resume_refuses_a_run_asked_differently(tmp_path):
    run_arena(["random", "greedy"], deals=1, seed=0, out=tmp_path, picture=False)
    with pytest.raises(ArenaError, match="seed = 0; this one asks for 1"):
        run_arena(["random", "greedy"], deals=1, seed=1, out=tmp_path, resume=True)
    with pytest.raises(ArenaError, match="already holds an arena run"):
        run_arena(["random", "greedy"], deals=1, seed=0, out=tmp_path)


def test_resume_refuses_games_of_another_schedule(tmp_path):
    run_arena(["random", "greedy"], deals=1, seed=0, out=tmp_path, picture=False)
    text = (tmp_path / "games.csv").read_text().replace(",random,random,greedy,random,", ",random,random,smart,random,", 1)
    (tmp_path / "games.csv").write_text(text)
    with pytest.raises(ArenaError, match="game 0 .* does not match"):
        run_arena(["random", "greedy"], deals=1, seed=0, out=tmp_path, resume=True)


def test_read_games_names_a_bad_line(tmp_path):
    run_arena(["random", "greedy"], deals=1, seed=0, out=tmp_path, picture=False)
    lines = (tmp_path / "games.csv").read_text().splitlines(keepends=True)
    lines[3] = lines[3].replace(",", ",x", 1)
    (tmp_path / "games.csv").write_text("".join(lines))
    with pytest.raises(ValueError, match="line 4"):
        read_games(tmp_path / "games.csv")


# ---------------------------------------------------------------- adding agents to a stored pool


def _folder_hash(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        digest.update(str(path.relative_to(folder)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
            digest.update(str(path.stat().st_mtime_ns).encode())
    return digest.hexdigest()


@pytest.mark.parametrize("pool, new, mode", [(5, 1, "matched"), (5, 1, "all"), (6, 2, "matched"), (2, 1, "matched"),
                                             (8, 1, "matched")])
def test_an_extension_plays_only_tables_with_a_new_agent(pool, new, mode):
    base = Schedule.build(pool, deals=6, seed=2, mode="all" if pool <= 7 else "sampled")
    bigger = base.extend(pool, new, seed=2, add_tables=mode)
    assert bigger.matches[: len(base.matches)] == base.matches and bigger.tables[: len(base.tables)] == base.tables
    assert bigger.deal_seeds == base.deal_seeds and bigger.parts == (0, len(base.matches))
    added = bigger.matches[len(base.matches):]
    new_tables = bigger.tables[len(base.tables):]
    assert all(max(t.slots) >= pool for t in new_tables)  # every new table seats a new agent
    members = {tuple(sorted(t.slots)) for t in bigger.tables}
    assert len(members) == len(bigger.tables)  # no table twice
    per_deal = Counter((m.deal, m.table) for m in added)
    assert set(per_deal.values()) == {1}  # no deal plays a table twice
    uses = Counter(m.table for m in added)
    assert max(uses.values()) - min(uses.values()) <= 1  # each new table used equally often
    if mode == "all":
        assert len(added) == len(new_tables) * 6
    else:  # each new agent holds about as many seats as a pool agent held
        held = [sum(base.tables[m.table].slots.count(a) for m in base.matches) for a in range(pool)]
        new_held = [sum(bigger.tables[m.table].slots.count(a) for m in added) for a in range(pool, pool + new)]
        if len(added) == len(new_tables) * 6:  # a small pool: even every new table gives fewer seats
            assert all(h <= np.mean(held) for h in new_held), (held, new_held)
        else:
            assert all(abs(h - np.mean(held)) <= 0.25 * np.mean(held) + 2 for h in new_held), (held, new_held)
    chunks = bigger.chunks()
    first_added = next(i for i, c in enumerate(chunks) if c[0].game >= 4 * len(base.matches))
    assert chunks[first_added][0].game == 4 * len(base.matches)  # the additions start a chunk of their own


def test_add_plays_only_the_new_tables_and_leaves_the_pool_as_it_was(tmp_path):
    pool = tmp_path / "pool"
    first = run_arena(["random", "greedy", "smart", "search:4", "search:8"], deals=2, seed=6, out=pool, picture=False)
    before = _folder_hash(pool)
    bigger = add_to_arena(pool, ["search:2"], out=tmp_path / "bigger", picture=False)
    assert _folder_hash(pool) == before  # the stored folder is only read
    assert bigger.records[: len(first.records)] == first.records  # the pool's games reused as they are
    new = bigger.records[len(first.records):]
    assert len(new) == 4 * 4 * 2 == len(bigger.records) - bigger.resumed  # C(4, 3) = 4 of the 10 new tables a deal
    assert all("search:2" in r.agents for r in new)  # only tables that seat the new agent
    assert {r.deal_seed for r in new} == {r.deal_seed for r in first.records}  # on the pool's deals
    assert {r.agent for r in bigger.ratings} == set(first.agents) | {"search:2"}
    rows = {r.agent: r for r in bigger.ratings}
    assert rows["search:2"].games == 4 * 4 * 2 == next(r.games for r in first.ratings if r.agent == "random")
    assert sum(r.points for r in bigger.ratings) == pytest.approx(0.0, abs=1e-9)  # everything refitted
    saved = json.loads((tmp_path / "bigger" / "arena.json").read_text())
    assert saved["added"] == [{"agents": ["search:2"], "tables": "matched"}] and saved["seed"] == 6
    again = add_to_arena(pool, ["search:2"], out=tmp_path / "again", picture=False)  # the same games, seeded
    assert (tmp_path / "again" / "games.csv").read_bytes() == (tmp_path / "bigger" / "games.csv").read_bytes()
    assert [r.agent for r in again.ratings] == [r.agent for r in bigger.ratings]


def test_add_to_a_compressed_pool_and_to_an_added_one(tmp_path):
    pool = tmp_path / "pool"
    run_arena(["random", "greedy", "smart", "search:1"], deals=1, seed=1, out=pool, picture=False, compress=True)
    assert sorted(os.listdir(pool)) == ["arena.json", "games.csv.gz", "head_to_head.json", "ratings.json", "timing.csv"]
    with gzip.open(pool / "games.csv.gz", "rt") as handle:
        assert handle.readline().startswith("game,deal,deal_seed")
    once = add_to_arena(pool, ["search:2"], out=tmp_path / "once", picture=False)
    twice = add_to_arena(tmp_path / "once", ["search:3", "search:4"], out=tmp_path / "twice", picture=False,
                         add_tables="all", compress=True)
    assert twice.records[: len(once.records)] == once.records
    assert len(twice.schedule.parts) == 3 and len(twice.ratings) == 7
    fresh = arena_run.read_arena(tmp_path / "twice")  # the folder says how to rebuild its whole schedule
    assert fresh[2] == twice.records and fresh[1] == twice.schedule


def test_an_interrupted_add_resumes(tmp_path, monkeypatch):
    pool = tmp_path / "pool"
    run_arena(["random", "greedy", "smart", "search:1", "search:2"], deals=5, seed=0, out=pool, picture=False)
    straight = add_to_arena(pool, ["search:3"], out=tmp_path / "straight", picture=False)  # 20 new matches: 2 chunks
    real = arena_run.play_chunk

    def interrupted(*args, **kwargs):
        if args[6] == len(straight.schedule.chunks()) - 1:  # the last chunk
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(arena_run, "play_chunk", interrupted)
    with pytest.raises(KeyboardInterrupt):
        add_to_arena(pool, ["search:3"], out=tmp_path / "resumed", picture=False)
    monkeypatch.setattr(arena_run, "play_chunk", real)
    resumed = add_to_arena(pool, ["search:3"], out=tmp_path / "resumed", picture=False, resume=True)
    assert resumed.records == straight.records
    for name in ("games.csv", "ratings.json", "head_to_head.json"):
        assert (tmp_path / "straight" / name).read_bytes() == (tmp_path / "resumed" / name).read_bytes(), name


def test_add_loads_a_pool_agent_from_elsewhere(tmp_path):
    """A stored board names an agent that does not load here (his network as charlesworth:PATH): --load says where."""
    pool = tmp_path / "pool"
    run_arena(["random", "greedy", "search:4"], deals=1, seed=2, out=pool, picture=False)
    for name in ("arena.json", "games.csv"):
        (pool / name).write_text((pool / name).read_text().replace("search:4", "elsewhere:PATH"))
    with pytest.raises(LoadError):
        add_to_arena(pool, ["smart"], out=tmp_path / "refused", picture=False)
    result = add_to_arena(pool, ["smart"], out=tmp_path / "new", picture=False, load={"elsewhere:PATH": "search:4"})
    assert "elsewhere:PATH" in {r.agent for r in result.ratings}
    with pytest.raises(ArenaError, match="load names nobody, not in the pool"):
        add_to_arena(pool, ["smart"], out=tmp_path / "other", picture=False, load={"nobody": "random"})


@pytest.mark.parametrize(
    "change, message",
    [
        ("unfinished", "holds 12 of its 24 games: finish it first"),
        ("present", "greedy is already in the pool"),
        ("same", "out must be a new folder, not the pool's own"),
        ("nothing", "add at least one agent"),
        ("not_arena", "is not an arena folder"),
        ("tables", "add_tables must be one of matched, all; got 'some'"),
    ],
)
def test_add_refusals(tmp_path, change, message):
    pool = tmp_path / "pool"
    run_arena(["random", "greedy"], deals=2, seed=0, out=pool, picture=False)
    agents, out, kwargs = ["smart"], tmp_path / "new", {}
    if change == "unfinished":
        write_games(pool / "games.csv", read_games(pool / "games.csv")[:12])
    elif change == "present":
        agents = ["smart", "greedy"]
    elif change == "same":
        out = pool
    elif change == "nothing":
        agents = []
    elif change == "not_arena":
        pool = tmp_path
    elif change == "tables":
        kwargs = {"add_tables": "some"}
    with pytest.raises(ArenaError, match=message):
        add_to_arena(pool, agents, out=out, picture=False, **kwargs)
    assert not (tmp_path / "new").exists()


def test_refit_rewrites_the_ratings_from_the_games(tmp_path):
    result = run_arena(["random", "greedy", "smart"], deals=2, seed=1, out=tmp_path, picture=False)
    saved = (tmp_path / "ratings.json").read_bytes()
    (tmp_path / "ratings.json").write_text("[]")
    again = refit_arena(tmp_path, picture=False)
    assert (tmp_path / "ratings.json").read_bytes() == saved and again.ratings == result.ratings
    skill = refit_arena(tmp_path, rating="openskill", picture=False)
    rows = json.loads((tmp_path / "ratings.json").read_text())
    assert [r["agent"] for r in rows] == [r.agent for r in skill.ratings] and all("mu" in r for r in rows)


def test_compressed_games_are_the_same_games_and_bytes(tmp_path):
    result = run_arena(["random", "greedy"], deals=1, seed=0, out=tmp_path / "a", picture=False)
    write_games(tmp_path / "one.csv.gz", result.records)
    write_games(tmp_path / "two.csv.gz", result.records)
    assert read_games(tmp_path / "one.csv.gz") == result.records
    assert (tmp_path / "one.csv.gz").read_bytes() == (tmp_path / "two.csv.gz").read_bytes()  # no time stamp
    (tmp_path / "bad.csv.gz").write_bytes(b"not gzip")
    with pytest.raises(ValueError, match="cannot read it"):
        read_games(tmp_path / "bad.csv.gz")


def test_the_time_is_estimated_before_the_games_start(tmp_path, capsys):
    run_arena(["random", "greedy", "smart"], deals=2, seed=1, out=tmp_path, progress=True, picture=False)
    err = capsys.readouterr().err
    assert "24 games to play (3 tables x 2 deals x 4 seat rotations): about" in err
    assert "ms a decision: random" in err and err.index("games to play") < err.index("arena (3 agents")


class _CompilesLate:
    """Plays the first legal move, compiling a new numba function on its second and third decisions (as a searcher
    does at its first real search on a fresh install, after a forced opening)."""

    def __init__(self) -> None:
        self.calls = 0

    def act(self, observation):
        import numba

        self.calls += 1
        if self.calls in (2, 3):  # a fresh function each time: never in numba's cache
            numba.njit(lambda x, k=self.calls: x * k + 1)(3)
        return int(observation["candidate_actions"][0])


def test_the_estimate_leaves_numbas_compiling_out():
    from big2_env.engine.rules import Rules
    from big2_env.evaluation.arena.estimate import compiling, decision_seconds

    with compiling() as seconds:
        _CompilesLate().act  # nothing compiled: the list stays empty
    assert seconds == []
    late = _CompilesLate()
    with compiling() as seconds:  # a budget the compile overruns, as a searcher's 30 s compile overruns 0.5 s
        speed = decision_seconds(late, Rules(), budget_s=0.01)
    assert late.calls >= 2 and len(seconds) == 1 and seconds[0] > 0  # it did compile, inside the timed batches
    assert speed < 0.005, f"{speed:.4f} s a decision: the compile was counted"


class _CountsThreads:
    """Plays the first legal move and notes torch's and numba's thread counts at each decision."""

    def __init__(self) -> None:
        self.seen: set[tuple[int, int]] = set()

    def act(self, observation):
        import numba
        import torch

        self.seen.add((torch.get_num_threads(), numba.get_num_threads()))
        return int(observation["candidate_actions"][0])


def test_the_estimate_times_each_agent_on_a_workers_threads(monkeypatch, capsys):
    """Timed on every core's threads while other processes ran, a search over a network took 24 s a decision
    against 0.15 s on the one thread each of two workers has: the forecast said hundreds of hours."""
    import numba
    import torch

    from big2_env.engine.rules import Rules

    agent = _CountsThreads()
    monkeypatch.setattr(arena_run, "load_agent", lambda spec, rules, trust=False: agent)
    games = Schedule.build(n_agents=2, deals=1, seed=0).games()
    before = (torch.get_num_threads(), numba.get_num_threads())
    arena_run._say_estimate(("a", "b"), ("a", "b"), Rules(), False, games, 10_000, 1)  # far more jobs than cores
    assert agent.seen == {(1, 1)}
    assert (torch.get_num_threads(), numba.get_num_threads()) == before
    assert "games to play" in capsys.readouterr().err


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"agents": ["random"]}, ArenaError, "at least two agents .* got 1: random"),
        ({"agents": []}, ArenaError, "at least two agents .* got 0: none"),
        ({"agents": "random greedy"}, ArenaError, "a list of agent specs"),
        ({"agents": ["random", "random"]}, ArenaError, "random is named more than once"),
        ({"agents": ["random", "wizard"]}, LoadError, "must be one of greedy, random, search, smart.*got 'wizard'"),
        ({"agents": ["random", "charlesworth:HIS_FILE"]}, LoadError, "plays under the 'charlesworth' rules"),
        ({"deals": 0}, ArenaError, "deals must be a positive integer; got 0"),
        ({"deals": -3}, ArenaError, "deals must be a positive integer; got -3"),
        ({"deals": 2.5}, ArenaError, "deals must be a positive integer; got 2.5"),
        ({"jobs": 0}, ArenaError, "jobs must be a positive integer; got 0"),
        ({"seed": -1}, ArenaError, "seed must be a non-negative integer"),
        ({"tables": "some"}, ArenaError, "tables must be one of all, sampled; got 'some'"),
    ],
)
def test_refusals(tmp_path, kwargs, error, message):
    his_file = tmp_path / "modelParameters0"  # a file that is there: the refusal is the rules'
    his_file.write_bytes(b"not read")
    arguments = {"agents": ["random", "greedy"], "deals": 1, "out": tmp_path / "arena"} | kwargs
    if isinstance(arguments["agents"], list):
        arguments["agents"] = [a.replace("HIS_FILE", str(his_file)) for a in arguments["agents"]]
    with pytest.raises(error, match=message):
        run_arena(**arguments)
    assert not (tmp_path / "arena").exists()  # refused before anything is written


def test_refuses_a_folder_that_is_not_an_arenas(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ArenaError, match="exists and is not an arena folder"):
        run_arena(["random", "greedy"], deals=1, out=tmp_path)
    with pytest.raises(ArenaError, match="is a file"):
        run_arena(["random", "greedy"], deals=1, out=tmp_path / "notes.txt")
    assert (tmp_path / "notes.txt").read_text() == "mine"


# ---------------------------------------------------------------- command line


def test_command_line_run(tmp_path, capsys):
    out = tmp_path / "arena"
    assert main(["arena", "random", "greedy", "smart", "--deals", "2", "--seed", "1", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "rank  agent" in printed and "head_to_head.json" in printed and "mean score difference" in printed
    ranked = [row["agent"] for row in json.loads((out / "ratings.json").read_text())]
    assert printed.index(ranked[0]) < printed.index(ranked[-1])
    assert (out / "ratings.png").stat().st_size > 1000  # matplotlib is in [test]


def test_command_line_add_and_refit(tmp_path, capsys):
    pool, bigger = tmp_path / "pool", tmp_path / "bigger"
    assert main(["arena", "random", "greedy", "smart", "search:4", "--deals", "1", "--out", str(pool), "--no-progress",
                 "--compress"]) == 0
    assert "games.csv.gz" in capsys.readouterr().out
    assert main(["arena", "--pool", str(pool), "--add", "search:2", "--out", str(bigger), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "5 agents" in printed and "then the added agents' tables" in printed and "search:2" in printed
    assert main(["arena", "--refit", str(bigger), "--rating", "openskill"]) == 0
    assert "mu" in capsys.readouterr().out.splitlines()[4]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["random"], "at least two agents"),
        (["--pool", "POOL", "--add", "smart", "--deals", "3"], "--pool takes --deals from the stored arena"),
        (["--add", "smart"], "takes --pool DIR --add AGENT"),
        (["--refit", "POOL", "--seed", "2"], "--refit takes --seed and --out from the stored arena"),
        (["random", "greedy", "--rating", "elo"], "argument --rating: invalid choice: 'elo'"),
        (["random", "wizard"], "must be one of"),
        (["random", "charlesworth:HIS_FILE"], "plays under the 'charlesworth' rules"),
        (["random", "greedy", "--deals", "0"], "argument --deals: must be a positive integer; got '0'"),
        (["random", "greedy", "--jobs", "-2"], "argument --jobs: must be a positive integer; got '-2'"),
        (["random", "greedy", "--tables", "half"], "argument --tables: invalid choice: 'half'"),
    ],
)
def test_command_line_refusals(tmp_path, capsys, argv, message):
    his_file = tmp_path / "modelParameters0"
    his_file.write_bytes(b"not read")
    argv = [a.replace("HIS_FILE", str(his_file)).replace("POOL", str(tmp_path / "pool")) for a in argv]
    with pytest.raises(SystemExit) as exit_info:
        main(["arena", *argv, "--out", str(tmp_path / "arena")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert re_search(message, err), err


def re_search(pattern: str, text: str) -> bool:
    import re

    return re.search(pattern, text) is not None
