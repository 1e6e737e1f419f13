"""Run an arena into a folder: check the input, play the schedule (resuming from ``games.csv``), write the results.

The folder ``out`` holds:

* ``arena.json``: what was asked (agents, deals, seed, rules, tables, and the agents added to a
  pool with the way their tables were chosen); it marks the folder as an arena's, and
  ``resume=True`` refuses to continue a run asked differently;
* ``games.csv``: every game (:mod:`~big2_env.evaluation.arena.records`), appended chunk by chunk
  as the games finish, then rewritten in game-number order (``compress=True``: ``games.csv.gz``
  at the end);
* ``timing.csv``: the seconds each chunk of games took, appended as they finish
  (:mod:`~big2_env.evaluation.arena.timing`), so that the cost of a run interrupted and resumed is known;
* ``ratings.json``, ``head_to_head.json`` (:mod:`~big2_env.evaluation.arena.report`) and
  ``ratings.png`` (:mod:`~big2_env.evaluation.arena.plot`, when matplotlib is installed).

Three ways in: :func:`run_arena` plays a pool; :func:`add_to_arena` rates new agents against a
finished arena's pool, playing only the tables that seat a new agent (on the pool's deals and
seeds), reusing the pool's games and refitting everything into a new folder (the pool's folder is
only read); :func:`refit_arena` rewrites a folder's ratings from its games, playing none.

Example:
    >>> import tempfile
    >>> out = tempfile.mkdtemp()
    >>> result = run_arena(["random", "greedy"], deals=2, seed=0, out=out)
    >>> len(result.records), [row.agent for row in result.ratings]
    (24, ['greedy', 'random'])
    >>> sorted(os.listdir(out))[:4]
    ['arena.json', 'games.csv', 'head_to_head.json', 'ratings.json']
    >>> bigger = add_to_arena(out, ["smart"], out=tempfile.mkdtemp(), picture=False)
    >>> len(bigger.records), bigger.resumed    # the pool's 24 games reused, the new tables' 24 played
    (48, 24)
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...checks import is_int
from ...engine.rules import Rules
from ...errors import MissingDependencyError
from ..loading import load_agent
from ..progress import Progress
from ..workers import threads_as_worker, worker_pool
from .estimate import decision_seconds, describe_estimate
from .play import play_chunk, play_chunk_in_worker
from .ratings import AgentRating, HeadToHead, check_rating, head_to_head, order_conflicts, rate
from .records import GameRecord, append_games, read_games, write_games
from .report import head_to_head_table, ratings_table, write_json
from .schedule import ADD_TABLE_MODES, CHUNK_MATCHES, TABLE_MODES, Schedule, ScheduledGame
from .timing import TIMING, PlayTime, append_time, play_time, read_times, write_times

__all__ = ["ARENA_FORMAT", "ArenaError", "ArenaResult", "add_to_arena", "read_arena", "refit_arena", "rules_name",
           "run_arena"]

ARENA_FORMAT = "big2-arena"
MARKER = "arena.json"
GAMES = "games.csv"
GAMES_GZ = "games.csv.gz"


class ArenaError(ValueError):
    """Input the arena refuses (too few agents, a bad count, a folder that is not an arena's...), with what is allowed."""


RATING_NAMES = {"points": "points", "plackett-luce": "placing (Plackett-Luce)", "openskill": "OpenSkill mu"}


@dataclass(frozen=True)
class ArenaResult:
    """What :func:`run_arena` (or :func:`add_to_arena`, :func:`refit_arena`) measured; ``str(result)`` is the printed
    table.

    Attributes:
        agents: the pool, as given (for an addition: the pool's agents, then the new ones). ratings: one
            :class:`AgentRating` per agent, best first by ``rating``. head_to_head: the :class:`HeadToHead` matrix.
        records: every game, in game-number order. schedule: the :class:`Schedule` played. out: the folder.
        resumed: games read back (from ``games.csv``, or the pool's). elapsed_s: seconds this call played for.
        picture: the path of ``ratings.png``, ``None`` without matplotlib. rating: the rating that orders the rows.
        play_time: what every game of the folder cost, whichever call played it (``timing.csv``,
            :class:`~big2_env.evaluation.arena.timing.PlayTime`: process-seconds, and the games they cover).
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
    rating: str = "points"
    play_time: PlayTime | None = None

    @property
    def conflicts(self) -> list[tuple[str, str]]:
        """The pairs whose rating intervals separate but whose head to head goes the other way
        (:func:`~big2_env.evaluation.arena.ratings.order_conflicts`)."""
        return order_conflicts(self.ratings, self.head_to_head, self.rating)

    def to_table(self) -> str:
        tables = len({m.table for m in self.schedule.matches})
        deals = len(self.schedule.deal_seeds)
        mode = self.schedule.mode + (", then the added agents' tables" if len(self.schedule.parts) > 1 else "")
        head = (
            f"arena: {len(self.agents)} agents, {tables} table{'s' * (tables != 1)} ({mode}), {deals} deals, "
            f"{len(self.records)} games (every table's deal in 4 seat rotations), seed {self.seed}, "
            f"rules {rules_name(self.rules)}"
        )
        played = len(self.records) - self.resumed
        timing = f"{played} games played in {self.elapsed_s:.1f} s" + (f", {self.resumed} read back" if self.resumed else "")
        cost = self.play_time
        if cost is not None and self.resumed and cost.games:
            timing += (f"; all {cost.of_games} games: {cost.seconds:.1f} process-seconds"
                       + ("" if cost.complete else f" for the {cost.games} timed (timing.csv)"))
        order = [r.agent for r in self.ratings]
        conflicts = self.conflicts
        agreement = (
            f"where two agents' {RATING_NAMES[self.rating]} intervals separate, the head to head agrees with the order"
            if not conflicts else
            "the head to head goes against the order of separated intervals for " + ", ".join(
                f"{a} over {b}" for a, b in conflicts)
        )
        return "\n".join([
            head, timing, "", f"best first by {RATING_NAMES[self.rating]} (points: a point a game against the "
            "pool's average; placing: the log strength of finishing ahead), with 95% intervals over deals",
            ratings_table(self.ratings), agreement, "", head_to_head_table(self.head_to_head, order),
        ])

    def __str__(self) -> str:
        return self.to_table()


def _positive(value: Any, what: str) -> int:
    if not is_int(value, 1):
        raise ArenaError(f"{what} must be a positive integer; got {value!r}")
    return int(value)


def _check_agents(agents: Any, at_least: int = 2, what: str = "the arena needs at least two agents") -> tuple[str, ...]:
    if isinstance(agents, (str, bytes)) or not isinstance(agents, Sequence):
        raise ArenaError(f"agents must be a list of agent specs; got {agents!r}")
    specs = tuple(os.fspath(a) if isinstance(a, os.PathLike) else a for a in agents)
    bad = [a for a in specs if not isinstance(a, str) or not a]
    if bad:
        raise ArenaError(f"each agent must be an agent spec (a name or a path); got {bad[0]!r}")
    if len(specs) < at_least:
        raise ArenaError(f"{what} (an agent may then fill several seats); got {len(specs)}: {' '.join(specs) or 'none'}")
    repeated = sorted({a for a in specs if specs.count(a) > 1})
    if repeated:
        raise ArenaError(f"each agent may be named once; {', '.join(repeated)} is named more than once")
    return specs


def _check_rating(rating: Any) -> str:
    try:
        return check_rating(rating)
    except ValueError as err:
        raise ArenaError(str(err)) from None


def rules_name(rules: Rules) -> str:
    """The preset's name when ``rules`` is one, else ``"custom"``."""
    return next((name for name in Rules.PRESETS if Rules.preset(name) == rules), "custom")


def _config(agents: Sequence[str], deals: int, seed: int, rules: Rules, mode: str) -> dict[str, Any]:
    return {"format": ARENA_FORMAT, "version": 1, "agents": list(agents), "deals": deals, "seed": seed,
            "rules": rules.to_dict(), "tables": mode, "chunk_matches": CHUNK_MATCHES}


def _schedule_of(config: Mapping[str, Any]) -> Schedule:
    """The schedule an ``arena.json`` describes: the pool's, then each addition's matches."""
    added = config.get("added", [])
    total = len(config["agents"])
    pool = total - sum(len(step["agents"]) for step in added)
    schedule = Schedule.build(pool, config["deals"], config["seed"], config["tables"])
    for step in added:
        schedule = schedule.extend(pool, len(step["agents"]), config["seed"], step["tables"])
        pool += len(step["agents"])
    return schedule


def _games_file(folder: str) -> str:
    """The folder's games file: ``games.csv`` while a run is under way (or uncompressed), else ``games.csv.gz``."""
    plain = os.path.join(folder, GAMES)
    packed = os.path.join(folder, GAMES_GZ)
    return packed if os.path.isfile(packed) and not os.path.isfile(plain) else plain


def _read_config(folder: str) -> dict[str, Any]:
    import json

    marker = os.path.join(folder, MARKER)
    if not os.path.isfile(marker):
        raise ArenaError(f"{folder!r} is not an arena folder (no {MARKER})")
    try:
        with open(marker, encoding="utf-8") as handle:
            saved = json.load(handle)
    except (OSError, ValueError) as err:
        raise ArenaError(f"cannot read {marker!r}: {err}") from None
    if not isinstance(saved, dict) or saved.get("format") != ARENA_FORMAT:
        raise ArenaError(f"{marker!r} is not an arena's {MARKER}")
    return saved


def read_arena(folder: str | os.PathLike[str]) -> tuple[dict[str, Any], Schedule, list[GameRecord]]:
    """A finished arena's ``arena.json``, schedule and games (from ``games.csv`` or ``games.csv.gz``), checked against
    each other; :class:`ArenaError` for a folder that is not a finished arena's. Nothing is written."""
    folder = os.fspath(folder)
    config = _read_config(folder)
    try:
        schedule = _schedule_of(config)
    except (KeyError, TypeError, ValueError) as err:
        raise ArenaError(f"{os.path.join(folder, MARKER)!r} does not describe an arena ({err!r})") from None
    path = _games_file(folder)
    games = schedule.games()
    kept = _read_back(path, games, config["agents"], "cannot read the arena")
    records = [r for chunk in sorted(kept) for r in kept[chunk]]
    if len(records) != len(games):
        read = len(read_games(path))  # whole chunks or not
        raise ArenaError(f"{folder!r} holds {read} of its {len(games)} games: finish it first (big2 arena ... "
                         f"--out {folder} --resume)")
    return config, schedule, records


def _more_deals(saved: Mapping[str, Any], config: Mapping[str, Any]) -> bool:
    """Whether a resumed run asks for more deals than the folder's, where that is allowed: with every table (the
    larger schedule's matches start with the smaller one's: the same deals, tables, seats and game numbers) and no
    agents added. The last chunk of the smaller run, cut short, is played again as a whole chunk of the larger."""
    return (
        isinstance(saved.get("deals"), int) and isinstance(config.get("deals"), int)
        and config["deals"] > saved["deals"] and config.get("tables") == "all" and not saved.get("added")
    )


def _prepare_folder(out: str, config: Mapping[str, Any], resume: bool) -> bool:
    """Check (and make) the folder; True when an earlier run's games are to be read back."""
    marker = os.path.join(out, MARKER)
    if os.path.exists(out) and not os.path.isdir(out):
        raise ArenaError(f"out {out!r} is a file; give a folder (new, empty or an arena's, with --resume)")
    if os.path.isfile(marker):
        if not resume:
            raise ArenaError(f"{out!r} already holds an arena run ({MARKER}): resume=True (--resume) continues it, "
                             f"or give another folder")
        saved = _read_config(out)
        more = _more_deals(saved, config)
        for key, value in config.items():
            if saved.get(key) != value and not (key == "deals" and more):
                raise ArenaError(f"{out!r} holds an arena run with {key} = {saved.get(key)!r}; this one asks for "
                                 f"{value!r}: resume it as it was asked, or give another folder"
                                 + (" (more deals: only with every table, and no agents added)" if key == "deals"
                                    else ""))
        if more:
            write_json(marker, dict(saved, deals=config["deals"]))
        return True
    if os.path.isdir(out) and os.listdir(out):
        raise ArenaError(f"{out!r} exists and is not an arena folder (no {MARKER}); give a new or empty folder")
    os.makedirs(out, exist_ok=True)
    write_json(marker, dict(config))
    return False


def _read_back(
    path: str, schedule_games: Sequence[ScheduledGame], names: Sequence[str], what: str = "cannot resume"
) -> dict[int, list[GameRecord]]:
    """The whole chunks of an earlier run's ``games.csv``, checked against the schedule (a chunk cut short is dropped)."""
    try:
        records = read_games(path)
    except ValueError as err:
        raise ArenaError(f"{what}: {err}") from None
    by_chunk: dict[int, dict[int, GameRecord]] = {}
    for record in records:
        if not 0 <= record.game < len(schedule_games):
            raise ArenaError(f"{what}: {path} holds game {record.game}, past this arena's {len(schedule_games)} games")
        planned = schedule_games[record.game]
        expected = (planned.deal, planned.table, planned.rotation, tuple(names[a] for a in planned.seats))
        if (record.deal, record.table, record.rotation, record.agents) != expected:
            raise ArenaError(f"{what}: game {record.game} in {path} does not match this arena's schedule")
        by_chunk.setdefault(planned.chunk, {})[record.game] = record
    sizes: dict[int, int] = {}
    for game in schedule_games:
        sizes[game.chunk] = sizes.get(game.chunk, 0) + 1
    return {chunk: [games[g] for g in sorted(games)] for chunk, games in by_chunk.items() if len(games) == sizes[chunk]}


def _play(
    names: tuple[str, ...], specs: tuple[str, ...], policies: list[Any], rules: Rules, trust: bool, schedule: Schedule,
    todo: list[int], seed: int, jobs: int, path: str, report: Callable[[int], None],
) -> list[GameRecord]:
    """Play the chunks ``todo``, appending each one's games to ``path`` as it finishes."""
    chunks = schedule.chunks()
    played: list[GameRecord] = []
    timing = os.path.join(os.path.dirname(path), TIMING)

    def keep(chunk: int, records: list[GameRecord], seconds: float) -> None:
        append_games(path, records)
        append_time(timing, chunk, len(records), seconds)
        played.extend(records)

    if jobs == 1 or len(todo) <= 1:
        for chunk in todo:
            start = time.perf_counter()
            records = play_chunk(names, policies, rules, chunks[chunk], schedule.deal_seeds, seed, chunk, report)
            keep(chunk, records, time.perf_counter() - start)
        return played
    from concurrent.futures import as_completed

    from ...players.kernels import warm_up

    warm_up()  # the compiled core loads its cache here once, not racing in every worker
    with worker_pool(min(jobs, len(todo))) as pool:
        futures = [pool.submit(play_chunk_in_worker,
                               (names, specs, rules, trust, chunks[c], schedule.deal_seeds, seed, c)) for c in todo]
        for future in as_completed(futures):
            chunk, records, seconds = future.result()
            keep(chunk, records, seconds)
            report(len(records))
    return played


def _say_estimate(names: tuple[str, ...], specs: tuple[str, ...], rules: Rules, trust: bool,
                  games: list[ScheduledGame], jobs: int, deals: int) -> None:
    """Print, before the games start, how many there are and how long they will take (each agent timed on fresh
    copies, so the agents that play are untouched, on the threads each of the ``jobs`` workers will have)."""
    used = sorted({agent for game in games for agent in game.seats})
    speeds = [0.0] * len(names)
    for agent in used:
        policy = load_agent(specs[agent], rules, trust=trust)
        with threads_as_worker(jobs):
            speeds[agent] = decision_seconds(policy, rules)
    print(describe_estimate(games, names, speeds, jobs, deals), file=sys.stderr, flush=True)


def _finish(
    names: tuple[str, ...], records: list[GameRecord], schedule: Schedule, seed: int, rules: Rules, folder: str,
    resumed: int, elapsed: float, picture: bool, rating: str,
) -> ArenaResult:
    """Fit the ratings, write ``ratings.json``, ``head_to_head.json`` and ``ratings.png``; the result."""
    ratings = rate(names, records, rating=rating)
    matrix = head_to_head(names, records)
    ranked = [dict(rank=rank, **row.to_dict()) for rank, row in enumerate(ratings, start=1)]
    write_json(os.path.join(folder, "ratings.json"), ranked)
    write_json(os.path.join(folder, "head_to_head.json"), matrix.to_dict())
    drawn = None
    if picture:
        from .plot import draw_ratings

        target = os.path.join(folder, "ratings.png")
        deals = len(schedule.deal_seeds)
        try:
            draw_ratings(target, ratings, matrix, title=f"{deals} deals, seed {seed}, rules {rules_name(rules)}")
            drawn = target
        except MissingDependencyError as err:
            print(f"ratings.png not drawn: {err}", file=sys.stderr)
    times = _read_times(folder)
    chunks = {game.chunk for game in schedule.games()}
    cost = play_time({c: t for c, t in times.items() if c in chunks}, len(records))
    return ArenaResult(names, ratings, matrix, records, schedule, seed, rules, folder, resumed, elapsed, drawn, rating,
                       cost)


def _run(
    names: tuple[str, ...], config: dict[str, Any], schedule: Schedule, rules: Rules, folder: str, *, seed: int,
    jobs: int, resume: bool, progress: bool, trust: bool, picture: bool, rating: str, compress: bool,
    start_with: list[GameRecord] | None = None, start_times: Mapping[int, tuple[int, float]] | None = None,
    specs: tuple[str, ...] | None = None,
) -> ArenaResult:
    """Play ``schedule`` into ``folder`` (after ``start_with``, the games already played: a pool's, whose chunks took
    ``start_times``) and fit; agent ``names[i]`` is loaded from ``specs[i]`` (default: the names)."""
    specs = names if specs is None else specs
    policies = [load_agent(spec, rules, trust=trust, what="arena agent") for spec in specs]
    resuming = _prepare_folder(folder, config, resume)
    path = os.path.join(folder, GAMES)
    games = schedule.games()
    if resuming:
        kept = _read_back(_games_file(folder), games, names)
        times = _read_times(folder)
    else:
        kept = {}
        for record in start_with or []:
            kept.setdefault(games[record.game].chunk, []).append(record)
        times = dict(start_times or {})
    done = [r for chunk in sorted(kept) for r in kept[chunk]]
    write_games(path, done)
    write_times(os.path.join(folder, TIMING), {c: t for c, t in times.items() if c in kept and t[0] == len(kept[c])})
    if os.path.isfile(os.path.join(folder, GAMES_GZ)):
        os.remove(os.path.join(folder, GAMES_GZ))  # the games are in games.csv while the run goes on
    todo = [c for c in range(len(schedule.chunks())) if c not in kept]
    if progress and todo:
        _say_estimate(names, specs, rules, trust, [g for g in games if g.chunk in set(todo)], jobs,
                      len(schedule.deal_seeds))

    label = f"arena ({len(names)} agents, {len({m.table for m in schedule.matches})} tables)"
    bar = Progress(len(games), label, progress, initial=len(done))
    start = time.perf_counter()
    try:
        played = _play(names, specs, policies, rules, trust, schedule, todo, seed, jobs, path, bar.update)
    finally:
        bar.close()
    elapsed = time.perf_counter() - start
    records = sorted(done + played, key=lambda r: r.game)
    if compress:
        write_games(os.path.join(folder, GAMES_GZ), records)
        os.remove(path)
    else:
        write_games(path, records)
    return _finish(names, records, schedule, seed, rules, folder, len(done), elapsed, picture, rating)


def _read_times(folder: str) -> dict[int, tuple[int, float]]:
    """The folder's ``timing.csv`` (:mod:`~big2_env.evaluation.arena.timing`); :class:`ArenaError` for a bad one."""
    try:
        return read_times(os.path.join(folder, TIMING))
    except ValueError as err:
        raise ArenaError(f"cannot read the arena's timing: {err}") from None


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
    rating: str = "points",
    compress: bool = False,
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
            straight run's). With every table, ``deals`` may be more than the run's: it goes on to the new deals
            (the result equals a straight run with that many deals).
        progress: say how long the games will take (each agent timed on a handful of decisions) and show a
            progress bar with the time left.
        trust: let an SB3 ``.zip`` agent be unpickled by its own loader (see ``load_agent``).
        picture: draw ``ratings.png`` (skipped, with a note on stderr, without matplotlib).
        rating: the rating that orders the results: ``"points"``, ``"plackett-luce"`` or ``"openskill"`` (which
            also adds OpenSkill's online rating; see :mod:`~big2_env.evaluation.arena.ratings`).
        compress: keep the games as ``games.csv.gz`` at the end.

    Raises:
        ArenaError: fewer than two agents, one named twice, a non-positive ``deals`` or ``jobs``, an unknown
            ``tables`` or ``rating``, a folder that is not an arena's (or is one, without ``resume``), a resumed
            run asked differently.
        LoadError: an agent spec that names no agent, or an agent that refuses the rules.
    """
    names = _check_agents(agents)
    deals = _positive(deals, "deals")
    jobs = _positive(jobs, "jobs")
    if not is_int(seed, 0):
        raise ArenaError(f"seed must be a non-negative integer; got {seed!r}")
    seed = int(seed)
    if tables is not None and tables not in TABLE_MODES:
        raise ArenaError(f"tables must be one of {', '.join(TABLE_MODES)}; got {tables!r}")
    rating = _check_rating(rating)
    rules = Rules.coerce(rules)
    schedule = Schedule.build(len(names), deals, seed, tables)
    config = _config(names, deals, seed, rules, schedule.mode)
    return _run(names, config, schedule, rules, os.fspath(out), seed=seed, jobs=jobs, resume=resume,
                progress=progress, trust=trust, picture=picture, rating=rating, compress=compress)


def add_to_arena(
    pool: str | os.PathLike[str],
    agents: Sequence[str],
    out: str | os.PathLike[str],
    add_tables: str = "matched",
    jobs: int = 1,
    resume: bool = False,
    progress: bool = False,
    trust: bool = False,
    picture: bool = True,
    rating: str = "points",
    compress: bool = False,
    load: Mapping[str, str] | None = None,
) -> ArenaResult:
    """Rate new ``agents`` against the finished arena in ``pool``, into the new folder ``out``.

    Only the tables that seat a new agent are played, on the pool's deals, with its seed and rules
    (:meth:`~big2_env.evaluation.arena.schedule.Schedule.extend`); the pool's games are reused as they are, and every
    rating is refitted over all the games. ``pool`` is only read. ``out`` may itself be a pool later.

    Args:
        pool: a finished arena's folder (``games.csv`` or ``games.csv.gz``).
        agents: one or more new agent specs, none of them in the pool.
        out: the new folder for the results (or an interrupted addition's, with ``resume``).
        add_tables: ``"matched"`` (each new agent gets about as many seats as a pool agent held) or ``"all"`` (every
            table with a new agent, on every deal).
        jobs: worker processes, as for :func:`run_arena`.
        resume: continue an interrupted addition in ``out``.
        progress: say how long the new games will take and show a progress bar.
        trust: as for :func:`run_arena`.
        picture: draw ``ratings.png``.
        rating: the rating that orders the results, as for :func:`run_arena`.
        compress: keep the games as ``games.csv.gz``.
        load: where to load a pool agent from when its name in the pool does not load here, ``{name: spec}``
            (a stored board's ``charlesworth:PATH``, say, from ``charlesworth:/your/modelParameters136500``);
            its name in the results stays the pool's.

    Raises:
        ArenaError: a pool folder that is not a finished arena's, no new agent, one already in the pool or named
            twice, an unknown ``add_tables``, ``out`` the pool's own folder, a ``load`` name not in the pool, and
            :func:`run_arena`'s refusals.
    """
    new = _check_agents(agents, at_least=1, what="add at least one agent")
    jobs = _positive(jobs, "jobs")
    if add_tables not in ADD_TABLE_MODES:
        raise ArenaError(f"add_tables must be one of {', '.join(ADD_TABLE_MODES)}; got {add_tables!r}")
    rating = _check_rating(rating)
    folder, pool_folder = os.fspath(out), os.fspath(pool)
    if os.path.exists(folder) and os.path.exists(pool_folder) and os.path.samefile(folder, pool_folder):
        raise ArenaError(f"out must be a new folder, not the pool's own ({pool_folder!r}): the pool is left as it is")
    config, schedule, records = read_arena(pool_folder)
    times = _read_times(pool_folder)
    present = [a for a in new if a in config["agents"]]
    if present:
        raise ArenaError(f"{', '.join(present)} {'is' if len(present) == 1 else 'are'} already in the pool "
                         f"({' '.join(config['agents'])})")
    names = tuple(config["agents"]) + new
    load = dict(load or {})
    strangers = sorted(set(load) - set(config["agents"]))
    if strangers:
        raise ArenaError(f"load names {', '.join(strangers)}, not in the pool ({' '.join(config['agents'])})")
    extended = dict(config)
    extended["agents"] = list(names)
    extended["added"] = [*config.get("added", []), {"agents": list(new), "tables": add_tables}]
    schedule = schedule.extend(len(config["agents"]), len(new), config["seed"], add_tables)
    rules = Rules.coerce(config["rules"])
    return _run(names, extended, schedule, rules, folder, seed=config["seed"], jobs=jobs, resume=resume,
                progress=progress, trust=trust, picture=picture, rating=rating, compress=compress,
                start_with=records, start_times=times, specs=tuple(load.get(name, name) for name in names))


def refit_arena(folder: str | os.PathLike[str], rating: str = "points", picture: bool = True) -> ArenaResult:
    """Rewrite a finished arena's ``ratings.json``, ``head_to_head.json`` and ``ratings.png`` from its games, playing
    none (to order it by another ``rating``)."""
    rating = _check_rating(rating)
    config, schedule, records = read_arena(folder)
    rules = Rules.coerce(config["rules"])
    return _finish(tuple(config["agents"]), records, schedule, config["seed"], rules, os.fspath(folder),
                   len(records), 0.0, picture, rating)
