"""The arena's ``timing.csv``: what every game cost, kept across interruptions, resumes and additions."""

from __future__ import annotations

import pytest

from big2_env.evaluation.arena import ArenaError, add_to_arena, refit_arena, run_arena
from big2_env.evaluation.arena import run as arena_run
from big2_env.evaluation.arena.schedule import CHUNK_MATCHES
from big2_env.evaluation.arena.timing import TIMING, append_time, play_time, read_times, write_times

AGENTS = ["random", "greedy", "smart"]


def test_rows_round_trip_and_the_last_row_of_a_chunk_wins(tmp_path):
    path = tmp_path / TIMING
    append_time(path, 0, 64, 2.0)
    append_time(path, 1, 12, 0.5)
    append_time(path, 1, 12, 0.75)  # a chunk played again (a resumed run's cut-short chunk)
    assert read_times(path) == {0: (64, 2.0), 1: (12, 0.75)}
    write_times(path, {1: (12, 0.75), 0: (64, 2.0)})
    assert path.read_text().splitlines() == ["chunk,games,seconds", "0,64,2.000", "1,12,0.750"]
    cost = play_time(read_times(path), games=100)
    assert (cost.seconds, cost.games, cost.of_games, cost.complete) == (2.75, 76, 100, False)
    assert read_times(tmp_path / "missing.csv") == {}


def test_a_line_cut_short_is_not_a_row_and_a_bad_one_is_named(tmp_path):
    path = tmp_path / TIMING
    append_time(path, 0, 64, 2.0)
    with open(path, "a") as handle:
        handle.write("1,6")  # a kill while writing
    assert read_times(path) == {0: (64, 2.0)}
    path.write_text("chunk,games,seconds\n0,64,2.0\n1,zero,1.0\n")
    with pytest.raises(ValueError, match="line 3: not a chunk's timing"):
        read_times(path)
    path.write_text("chunk,games,seconds\n0,0,2.0\n")
    with pytest.raises(ValueError, match="line 2: chunk, games and seconds"):
        read_times(path)
    path.write_text("chunk,seconds\n0,2.0\n")
    with pytest.raises(ValueError, match="expected"):
        read_times(path)


def test_every_chunk_is_timed_once_across_an_interruption(tmp_path, monkeypatch):
    real = arena_run.play_chunk

    def interrupted(*args, **kwargs):
        if args[6] == 1:  # the second of three chunks
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(arena_run, "play_chunk", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_arena(AGENTS, deals=12, seed=2, out=tmp_path, picture=False)  # 36 matches: chunks of 16, 16, 4
    monkeypatch.setattr(arena_run, "play_chunk", real)
    first = read_times(tmp_path / TIMING)
    assert list(first) == [0] and first[0][0] == 4 * CHUNK_MATCHES
    result = run_arena(AGENTS, deals=12, seed=2, out=tmp_path, resume=True, picture=False)
    times = read_times(tmp_path / TIMING)
    assert sorted(times) == [0, 1, 2] and times[0] == first[0]  # the first call's chunk keeps its own time
    assert [games for games, _ in map(times.get, range(3))] == [64, 64, 16]
    cost = result.play_time
    assert cost is not None and cost.complete and cost.of_games == len(result.records) == 144
    assert cost.seconds == pytest.approx(sum(s for _, s in times.values()))
    assert "all 144 games:" in result.to_table() and "timed" not in result.to_table()


def test_a_chunk_cut_short_loses_its_row_and_gets_a_new_one(tmp_path):
    run_arena(["random", "greedy"], deals=6, seed=4, out=tmp_path, picture=False)  # chunks of 16 and 2 matches
    lines = (tmp_path / "games.csv").read_text().splitlines(keepends=True)
    (tmp_path / "games.csv").write_text("".join(lines[: 1 + 4 * CHUNK_MATCHES + 3]))
    append_time(tmp_path / TIMING, 1, 3, 99.0)  # as if the cut-short chunk had been timed: it is not kept
    run_arena(["random", "greedy"], deals=6, seed=4, out=tmp_path, resume=True, picture=False)
    times = read_times(tmp_path / TIMING)
    assert sorted(times) == [0, 1] and times[1][0] == 8 and times[1][1] != 99.0


def test_an_addition_carries_the_pools_times_and_leaves_the_pool_alone(tmp_path):
    pool = tmp_path / "pool"
    run_arena(["random", "greedy"], deals=2, seed=0, out=pool, picture=False)
    before = (pool / TIMING).read_bytes()
    added = add_to_arena(pool, ["smart"], out=tmp_path / "added", picture=False)
    assert (pool / TIMING).read_bytes() == before
    pool_times, times = read_times(pool / TIMING), read_times(tmp_path / "added" / TIMING)
    assert {c: times[c] for c in pool_times} == pool_times and len(times) > len(pool_times)
    assert added.play_time is not None and added.play_time.complete and added.play_time.of_games == 48


def test_a_folder_from_before_the_timing_says_how_much_is_timed(tmp_path):
    run_arena(AGENTS, deals=12, seed=2, out=tmp_path, picture=False)
    (tmp_path / TIMING).unlink()  # a folder written before timing.csv was kept
    lines = (tmp_path / "games.csv").read_text().splitlines(keepends=True)
    (tmp_path / "games.csv").write_text("".join(lines[: 1 + 8 * CHUNK_MATCHES]))  # its last chunk still to play
    result = run_arena(AGENTS, deals=12, seed=2, out=tmp_path, resume=True, picture=False)
    cost = result.play_time
    assert cost is not None and (cost.games, cost.of_games) == (16, 144) and not cost.complete
    assert "for the 16 timed" in result.to_table()
    assert refit_arena(tmp_path, picture=False).play_time == cost


def test_a_bad_timing_file_is_refused_with_its_name(tmp_path):
    run_arena(["random", "greedy"], deals=1, seed=0, out=tmp_path, picture=False)
    (tmp_path / TIMING).write_text("chunk,games,seconds\nx,1,1\n")
    with pytest.raises(ArenaError, match="cannot read the arena's timing: .*timing.csv line 2"):
        refit_arena(tmp_path, picture=False)
