"""Run an arena into a folder: check the input, play the schedule (resuming from ``games.csv``), write the results.

The folder ``out`` holds:

* ``arena.json``: what was asked (agents, deals, seed, rules, tables); it marks the folder as an
  arena's, and ``resume=True`` refuses to continue a run asked differently;
* ``games.csv``: every game (:mod:`~big2_env.evaluation.arena.records`), appended chunk by chunk
  as the games finish, then rewritten in game-number order;
* ``ratings.json``, ``head_to_head.json`` (:mod:`~big2_env.evaluation.arena.report`) and
  ``ratings.png`` (:mod:`~big2_env.evaluation.arena.plot`, when matplotlib is installed).

Example:
    >>> import tempfile
    >>> out = tempfile.mkdtemp()
    >>> result = run_arena(["random", "greedy"], deals=2, seed=0, out=out)
    >>> len(result.records), [row.agent for row in result.ratings]
    (24, ['greedy', 'random'])
    >>> sorted(os.listdir(out))[:4]
    ['arena.json', 'games.csv', 'head_to_head.json', 'ratings.json']
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...engine.rules import Rules
from ...errors import MissingDependencyError
from ..loading import load_agent
from ..progress import Progress
from ..workers import START_METHOD
from .play import play_chunk, play_chunk_in_worker
from .ratings import AgentRating, HeadToHead, head_to_head, rate
from .records import GameRecord, append_games, read_games, write_games
from .report import head_to_head_table, ratings_table, write_json
from .schedule import CHUNK_MATCHES, TABLE_MODES, Schedule, ScheduledGame

__all__ = ["ARENA_FORMAT", "ArenaError", "ArenaResult", "rules_name", "run_arena"]

ARENA_FORMAT = "big2-arena"
MARKER = "arena.json"
GAMES = "games.csv"


class ArenaError(ValueError):
    """Input the arena refuses (too few agents, a bad count, a folder that is not an arena's...), with what is allowed."""


@dataclass(frozen=True)
class ArenaResult:
    """What :func:`run_arena` measured; ``str(result)`` is the printed table.

    Attributes:
        agents: the pool, as given. ratings: one :class:`AgentRating` per agent, best first.
        head_to_head: the :class:`HeadToHead` matrix. records: every game, in game-number order.
        schedule: the :class:`Schedule` played. out: the folder. resumed: games read back from ``games.csv``.
        elapsed_s: seconds this call played for. picture: the path of ``ratings.png``, ``None`` without matplotlib.
    """

    agents: tuple[str, ...]
    ratings: list[AgentRating]
    head_to_head: HeadToHead
    records: list[GameRecord]
    schedule: Schedule
    seed: int
    rules: Rules
    out: str
    resumed: int
    elapsed_s: float
    picture: str | None

    def to_table(self) -> str:
        tables = len({m.table for m in self.schedule.matches})
        deals = len(self.schedule.deal_seeds)
        head = (
            f"arena: {len(self.agents)} agents, {tables} table{'s' * (tables != 1)} ({self.schedule.mode}), {deals} deals, "
            f"{len(self.records)} games (every table's deal in 4 seat rotations), seed {self.seed}, "
            f"rules {rules_name(self.rules)}"
        )
        played = len(self.records) - self.resumed
        timing = f"{played} games played in {self.elapsed_s:.1f} s" + (f", {self.resumed} read back" if self.resumed else "")
        order = [r.agent for r in self.ratings]
        return "\n".join([head, timing, "", ratings_table(self.ratings), "", head_to_head_table(self.head_to_head, order)])

    def __str__(self) -> str:
        return self.to_table()


def _positive(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ArenaError(f"{what} must be a positive integer; got {value!r}")
    return int(value)


def _check_agents(agents: Any) -> tuple[str, ...]:
    if isinstance(agents, (str, bytes)) or not isinstance(agents, Sequence):
        raise ArenaError(f"agents must be a list of agent specs; got {agents!r}")
    specs = tuple(os.fspath(a) if isinstance(a, os.PathLike) else a for a in agents)
    bad = [a for a in specs if not isinstance(a, str) or not a]
    if bad:
        raise ArenaError(f"each agent must be an agent spec (a name or a path); got {bad[0]!r}")
    if len(specs) < 2:
        raise ArenaError(f"the arena needs at least two agents (an agent may then fill several seats); got {len(specs)}: "
                         f"{' '.join(specs) or 'none'}")
    repeated = sorted({a for a in specs if specs.count(a) > 1})
    if repeated:
        raise ArenaError(f"each agent may be named once; {', '.join(repeated)} is named more than once")
    return specs


def rules_name(rules: Rules) -> str:
    """The preset's name when ``rules`` is one, else ``"custom"``."""
    return next((name for name in Rules.PRESETS if Rules.preset(name) == rules), "custom")


def _config(agents: Sequence[str], deals: int, seed: int, rules: Rules, mode: str) -> dict[str, Any]:
    return {"format": ARENA_FORMAT, "version": 1, "agents": list(agents), "deals": deals, "seed": seed,
            "rules": rules.to_dict(), "tables": mode, "chunk_matches": CHUNK_MATCHES}


def _prepare_folder(out: str, config: Mapping[str, Any], resume: bool) -> bool:
    """Check (and make) the folder; True when an earlier run's games are to be read back."""
    import json

    marker = os.path.join(out, MARKER)
    if os.path.exists(out) and not os.path.isdir(out):
        raise ArenaError(f"out {out!r} is a file; give a folder (new, empty or an arena's, with --resume)")
    if os.path.isfile(marker):
        if not resume:
            raise ArenaError(f"{out!r} already holds an arena run ({MARKER}): resume=True (--resume) continues it, "
                             f"or give another folder")
        try:
            with open(marker, encoding="utf-8") as handle:
                saved = json.load(handle)
        except (OSError, ValueError) as err:
            raise ArenaError(f"cannot read {marker!r}: {err}") from None
        if not isinstance(saved, dict) or saved.get("format") != ARENA_FORMAT:
            raise ArenaError(f"{marker!r} is not an arena's {MARKER}")
        for key, value in config.items():
            if saved.get(key) != value:
                raise ArenaError(f"{out!r} holds an arena run with {key} = {saved.get(key)!r}; this one asks for "
                                 f"{value!r}: resume it as it was asked, or give another folder")
        return True
    if os.path.isdir(out) and os.listdir(out):
        raise ArenaError(f"{out!r} exists and is not an arena folder (no {MARKER}); give a new or empty folder")
    os.makedirs(out, exist_ok=True)
    write_json(marker, dict(config))
    return False


def _read_back(path: str, schedule_games: Sequence[ScheduledGame], names: Sequence[str]) -> dict[int, list[GameRecord]]:
    """The whole chunks of an earlier run's ``games.csv``, checked against the schedule (a chunk cut short is dropped)."""
    try:
        records = read_games(path)
    except ValueError as err:
        raise ArenaError(f"cannot resume: {err}") from None
    by_chunk: dict[int, dict[int, GameRecord]] = {}
    for record in records:
        if not 0 <= record.game < len(schedule_games):
            raise ArenaError(f"cannot resume: {path} holds game {record.game}, past this arena's {len(schedule_games)} games")
        planned = schedule_games[record.game]
        expected = (planned.deal, planned.table, planned.rotation, tuple(names[a] for a in planned.seats))
        if (record.deal, record.table, record.rotation, record.agents) != expected:
            raise ArenaError(f"cannot resume: game {record.game} in {path} does not match this arena's schedule")
        by_chunk.setdefault(planned.chunk, {})[record.game] = record
    sizes: dict[int, int] = {}
    for game in schedule_games:
        sizes[game.chunk] = sizes.get(game.chunk, 0) + 1
    return {chunk: [games[g] for g in sorted(games)] for chunk, games in by_chunk.items() if len(games) == sizes[chunk]}


def _play(
    names: tuple[str, ...], policies: list[Any], rules: Rules, trust: bool, schedule: Schedule, todo: list[int],
    seed: int, jobs: int, path: str, report: Callable[[int], None],
) -> list[GameRecord]:
    """Play the chunks ``todo``, appending each one's games to ``path`` as it finishes."""
    chunks = schedule.chunks()
    played: list[GameRecord] = []
    if jobs == 1 or len(todo) <= 1:
        for chunk in todo:
            records = play_chunk(names, policies, rules, chunks[chunk], schedule.deal_seeds, seed, chunk, report)
            append_games(path, records)
            played.extend(records)
        return played
    from concurrent.futures import ProcessPoolExecutor, as_completed

    from ...engine.core import warm_up

    warm_up()  # the compiled core loads its cache here once, not racing in every worker
    context = multiprocessing.get_context(START_METHOD)
    with ProcessPoolExecutor(max_workers=min(jobs, len(todo)), mp_context=context) as pool:
        futures = [pool.submit(play_chunk_in_worker, (names, rules, trust, chunks[c], schedule.deal_seeds, seed, c))
                   for c in todo]
        for future in as_completed(futures):
            _, records = future.result()
            append_games(path, records)
            played.extend(records)
            report(len(records))
    return played


def run_arena(
    agents: Sequence[str],
    deals: int,
    out: str | os.PathLike[str],
    seed: int = 0,
    rules: Rules | str | Mapping[str, Any] | None = None,
    tables: str | None = None,
    jobs: int = 1,
    resume: bool = False,
    progress: bool = False,
    trust: bool = False,
    picture: bool = True,
) -> ArenaResult:
    """Rate ``agents`` at four-seat tables on duplicate deals, into the folder ``out``.

    Args:
        agents: two or more agent specs (any that :func:`~big2_env.evaluation.loading.load_agent` takes), each once.
        deals: deals each table plays (``tables="all"``), or deals in all (``"sampled"``: one table per deal).
        out: the folder for the results: new, empty, or an earlier arena's with ``resume``.
        seed: seeds the deals, the tables' seat orders and every agent (the same seed, whatever ``jobs``,
            gives the same games and results).
        rules: a :class:`Rules`, preset name or dict (``None``: the default rules).
        tables: ``"all"``, ``"sampled"`` or ``None`` (all tables up to 35, else sampled;
            see :mod:`~big2_env.evaluation.arena.schedule`).
        jobs: worker processes (``1``: this process). Call under ``if __name__ == "__main__":`` when above 1.
        resume: continue the run in ``out`` from its ``games.csv`` (whole chunks are kept; the result equals one
            straight run's).
        progress: show a progress bar with the time left.
        trust: let an SB3 ``.zip`` agent be unpickled by its own loader (see ``load_agent``).
        picture: draw ``ratings.png`` (skipped, with a note on stderr, without matplotlib).

    Raises:
        ArenaError: fewer than two agents, one named twice, a non-positive ``deals`` or ``jobs``, an unknown
            ``tables``, a folder that is not an arena's (or is one, without ``resume``), a resumed run asked
            differently.
        LoadError: an agent spec that names no agent, or an agent that refuses the rules.
    """
    names = _check_agents(agents)
    deals = _positive(deals, "deals")
    jobs = _positive(jobs, "jobs")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ArenaError(f"seed must be a non-negative integer; got {seed!r}")
    seed = int(seed)
    if tables is not None and tables not in TABLE_MODES:
        raise ArenaError(f"tables must be one of {', '.join(TABLE_MODES)}; got {tables!r}")
    rules = Rules.coerce(rules)
    policies = [load_agent(name, rules, trust=trust, what="arena agent") for name in names]
    schedule = Schedule.build(len(names), deals, seed, tables)
    folder = os.fspath(out)
    path = os.path.join(folder, GAMES)
    resuming = _prepare_folder(folder, _config(names, deals, seed, rules, schedule.mode), resume)
    games = schedule.games()
    kept = _read_back(path, games, names) if resuming else {}
    done = [r for chunk in sorted(kept) for r in kept[chunk]]
    write_games(path, done)
    todo = [c for c in range(len(schedule.chunks())) if c not in kept]

    label = f"arena ({len(names)} agents, {len({m.table for m in schedule.matches})} tables)"
    bar = Progress(len(games), label, progress, initial=len(done))
    start = time.perf_counter()
    try:
        played = _play(names, policies, rules, trust, schedule, todo, seed, jobs, path, bar.update)
    finally:
        bar.close()
    elapsed = time.perf_counter() - start
    records = sorted(done + played, key=lambda r: r.game)
    write_games(path, records)

    ratings = rate(names, records)
    matrix = head_to_head(names, records)
    ranked = [dict(rank=rank, **row.to_dict()) for rank, row in enumerate(ratings, start=1)]
    write_json(os.path.join(folder, "ratings.json"), ranked)
    write_json(os.path.join(folder, "head_to_head.json"), matrix.to_dict())
    drawn = None
    if picture:
        from .plot import draw_ratings

        target = os.path.join(folder, "ratings.png")
        try:
            draw_ratings(target, ratings, matrix, title=f"{deals} deals, seed {seed}, rules {rules_name(rules)}")
            drawn = target
        except MissingDependencyError as err:
            print(f"ratings.png not drawn: {err}", file=sys.stderr)
    return ArenaResult(names, ratings, matrix, records, schedule, seed, rules, folder, len(done), elapsed, drawn)
