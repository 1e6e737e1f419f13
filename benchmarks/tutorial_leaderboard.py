"""The leaderboard tutorial's figures (``docs/tutorial-leaderboard.md``): an agent against Smart, then on a board.

Runs the page's commands (``COMMANDS``; ``tests/benchmarks/test_tutorials.py`` checks that they are the
page's) as written, in ``--dir`` (a scratch folder by default), each as its own ``big2`` process, and
writes what the page quotes: each step's seconds, the evaluation's win rate and mean score with their
95% intervals (its ``--json`` file), and the board's ratings before and after the agent was added
(each ``ratings.json``). It also sizes, without playing it, the page's last command, the same addition
to the shipped paper-rules board (``benchmarks/leaderboard/paper``): the matches and games it plays,
how many of them seat one of the board's searchers, and what those cost a game when the board was made
(its ``timing.csv``).

Usage:
    python benchmarks/tutorial_leaderboard.py --dir runs/tutorial-board --json benchmarks/tutorial/leaderboard.json
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import math
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from big2_env.devtools.records import portable_path, publish_record
from big2_env.evaluation.arena.run import read_arena
from big2_env.evaluation.arena.schedule import CHUNK_MATCHES

REPO = Path(__file__).resolve().parents[1]
AGENT = "search:32"
"""The agent the page places: the search at 32 rollouts a decision, which needs no training and is in no shipped board."""
BOARD, ADDED, EVAL = "runs/board", "runs/board+search32", "search32-vs-smart.json"

COMMANDS: list[tuple[str, str]] = [
    ("eval", f"big2 eval --agent {AGENT} --opponent smart --games 400 --json {EVAL}"),
    ("board", f"big2 arena random greedy smart fast --deals 20 --out {BOARD}"),
    ("add", f"big2 arena --pool {BOARD} --add {AGENT} --out {ADDED}"),
]
"""The page's commands, in order, with the keys their steps are recorded under."""

SHIPPED = "benchmarks/leaderboard/paper"
"""The shipped board the page's last command adds the agent to (not run here: it is sized)."""
SEARCHERS = ("search", "ismcts", "search-net")
"""The shipped board's searchers, at their default budgets: the tables that seat one cost nearly all the time."""


def big2_argv(command: str) -> list[str]:
    """``command`` as a process's arguments: this checkout's ``big2`` (``python -m big2_env.cli``, run with the
    checkout first on the path by :func:`time_step`), whichever ``big2`` is installed.

    Example:
        >>> big2_argv("big2 arena --pool runs/board --add search:32 --out runs/b")[-4:]
        ['--add', 'search:32', '--out', 'runs/b']
    """
    argv = shlex.split(command)
    return [sys.executable, "-m", "big2_env.cli"] + argv[1:] if argv[0] == "big2" else argv


def time_step(command: str, cwd: Path) -> dict[str, Any]:
    """Run ``command`` in ``cwd``; its seconds, the load average before and after it and its exit status."""
    load = os.getloadavg()[0]
    started = time.perf_counter()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    done = subprocess.run(big2_argv(command), cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{command!r} failed ({done.returncode}):\n{(done.stdout + done.stderr)[-3000:]}")
    return {"command": command, "seconds": round(seconds, 1), "load_before": round(load, 2),
            "load_after": round(os.getloadavg()[0], 2), "returncode": done.returncode}


def ratings(folder: Path) -> dict[str, dict[str, Any]]:
    """An arena folder's ratings by agent, with their rank (1: best), best first."""
    rows = json.loads((folder / "ratings.json").read_text())
    keep = ("points", "points_ci", "plackett_luce", "plackett_luce_ci", "games", "win_rate", "win_rate_ci",
            "mean_score", "mean_score_ci")
    return {row["agent"]: {"rank": rank, **{key: row[key] for key in keep}} for rank, row in enumerate(rows, start=1)}


def shipped_addition(pool: Path = REPO / SHIPPED, agent: str = AGENT) -> dict[str, Any]:
    """What ``big2 arena --pool POOL --add AGENT`` (matched tables) would play, and what the pool's searcher games cost.

    The pool's own addition of its searchers (its second part) is the part of its ``timing.csv`` whose games all seat one.
    """
    config, schedule, _ = read_arena(pool)
    names = [*config["agents"], agent]
    extended = schedule.extend(len(config["agents"]), 1, config["seed"])
    added = extended.matches[len(schedule.matches):]
    searched = sum(1 for m in added if any(names[a] in SEARCHERS for a in extended.tables[m.table].slots))
    first_added_chunk = math.ceil(schedule.parts[1] / CHUNK_MATCHES) if len(schedule.parts) > 1 else None
    games = seconds = 0.0
    with open(pool / "timing.csv", newline="") as handle:
        for row in csv.DictReader(handle):
            if first_added_chunk is not None and int(row["chunk"]) >= first_added_chunk:
                games += int(row["games"])
                seconds += float(row["seconds"])
    per_game = seconds / games if games else None
    try:
        where = pool.resolve().relative_to(REPO.resolve()).as_posix()
    except ValueError:  # a pool outside this checkout: its name alone, no machine path
        where = pool.name
    return {"pool": where, "agent": agent, "pool_agents": config["agents"], "deals": config["deals"],
            "matches": len(added), "games": 4 * len(added), "searcher_games": 4 * searched,
            "searcher_s_per_game": round(per_game, 3) if per_game else None,
            "searcher_hours_one_process": round(4 * searched * per_game / 3600, 1) if per_game else None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=None, help="run the commands in this folder (kept; default: a scratch folder)")
    parser.add_argument("--json", default=None, help="write the figures to this JSON file")
    args = parser.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.dir or scratch)
        folder.mkdir(parents=True, exist_ok=True)
        steps: dict[str, dict[str, Any]] = {}
        for key, command in COMMANDS:
            print(f"[{key}] {command}", flush=True)
            steps[key] = time_step(command, folder)
            print(f"[{key}] {steps[key]['seconds']:.1f} s", flush=True)
        evaluation = json.loads((folder / EVAL).read_text())
        result = {
            "date": datetime.date.today().isoformat(), "commit": commit, "python": platform.python_version(),
            "cores": os.cpu_count(), "steps": steps,
            "eval": {key: evaluation[key] for key in ("agent", "opponent", "games", "seed", "win_rate", "win_rate_ci",
                                                      "mean_score", "mean_score_ci", "command")},
            "board": ratings(folder / BOARD), "added": ratings(folder / ADDED), "shipped": shipped_addition(),
            "command": "python benchmarks/tutorial_leaderboard.py" + (f" --json {portable_path(args.json)}" if args.json else ""),
        }
    publish_record(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
