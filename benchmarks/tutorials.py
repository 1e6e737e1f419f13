"""The tutorials' figures: each runs its page's commands as written and records what the page quotes.

``train`` is the training tutorial (``docs/tutorial-train.md``): PPO against three Smart players, its curve,
its evaluation. It writes each step's seconds with the machine's one-minute load average before and after
it, the run's own split of its wall time into training and evaluation, its median batch's seconds (the pace
where other work slowed some batches), its games, its learning curve's points (``metrics.csv``) and the
evaluation's win rate and mean score with their 95% intervals (its ``--json`` file); the curve's picture is
copied to ``--picture``.

``leaderboard`` is the leaderboard tutorial (``docs/tutorial-leaderboard.md``): an agent against Smart, then
on a board. It writes each step's seconds, the evaluation's win rate and mean score with their 95% intervals
(its ``--json`` file), and the board's ratings before and after the agent was added (each ``ratings.json``).
It also sizes, without playing it, the page's last command, the same addition to the shipped paper-rules
board (``benchmarks/leaderboard/paper``): the matches and games it plays, how many of them seat one of the
board's searchers, and what those cost a game when the board was made (its ``timing.csv``).

Each runs the page's commands (``TRAIN_COMMANDS``, ``BOARD_COMMANDS``; ``tests/benchmarks/test_tutorials.py``
checks that they are the pages') in ``--dir`` (a scratch folder by default), each as its own ``big2``
process. Run them on a quiet machine: training uses every core it is given.

Usage:
    python benchmarks/tutorials.py train --dir runs/tutorial-train --json benchmarks/tutorial/train.json \\
        --picture benchmarks/tutorial/learning_curves.png
    python benchmarks/tutorials.py leaderboard --dir runs/tutorial-board --json benchmarks/tutorial/leaderboard.json
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import math
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from big2_env.records import portable_path, publish_record
from big2_env.evaluation.arena.run import read_arena
from big2_env.evaluation.arena.schedule import CHUNK_MATCHES

REPO = Path(__file__).resolve().parents[1]

# ----------------------------------------------------------------------------- the training tutorial
RUN = "runs/vs-smart"
"""The run folder the training page's commands write, relative to the folder they run in."""

TRAIN_COMMANDS: list[tuple[str, str]] = [
    ("train", f"big2 train --curriculum fixed:smart --batches 100 --eval-every 10 --eval-opponents smart --out {RUN}"),
    ("plot", f"big2 plot {RUN}"),
    ("eval", f"big2 eval --agent {RUN} --opponent smart --games 400 --json {RUN}/eval.json"),
]
"""The training page's commands, in order, with the keys their steps are recorded under."""

FINISHED = re.compile(r"wall time (?P<wall>\d+) s \((?P<train>\d+) s training, (?P<eval>\d+) s evaluation\)")
"""``big2 train``'s closing line: its wall time split into training and evaluation."""

# ----------------------------------------------------------------------------- the leaderboard tutorial
AGENT = "search:32"
"""The agent the leaderboard page places: the search at 32 rollouts a decision, which needs no training and is in no
shipped board."""
BOARD, ADDED, EVAL = "runs/board", "runs/board+search32", "search32-vs-smart.json"

BOARD_COMMANDS: list[tuple[str, str]] = [
    ("eval", f"big2 eval --agent {AGENT} --opponent smart --games 400 --json {EVAL}"),
    ("board", f"big2 arena random greedy smart fast --deals 20 --out {BOARD}"),
    ("add", f"big2 arena --pool {BOARD} --add {AGENT} --out {ADDED}"),
]
"""The leaderboard page's commands, in order, with the keys their steps are recorded under."""

SHIPPED = "benchmarks/leaderboard/paper"
"""The shipped board the page's last command adds the agent to (not run here: it is sized)."""
SEARCHERS = ("search", "ismcts", "search-net")
"""The shipped board's searchers, at their default budgets: the tables that seat one cost nearly all the time."""


# ----------------------------------------------------------------------------- running the pages' commands
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
    """Run ``command`` in ``cwd``; its seconds, the load average before and after it, its exit status and output's
    last line (and the whole output, under ``"output"``, for the caller to read and drop)."""
    load = os.getloadavg()[0]
    started = time.perf_counter()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    done = subprocess.run(big2_argv(command), cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{command!r} failed ({done.returncode}):\n{(done.stdout + done.stderr)[-3000:]}")
    lines = done.stdout.strip().splitlines()
    return {"command": command, "seconds": round(seconds, 1), "load_before": round(load, 2),
            "load_after": round(os.getloadavg()[0], 2), "returncode": done.returncode,
            "last_line": lines[-1] if lines else "", "output": done.stdout}


def run_steps(commands: list[tuple[str, str]], folder: Path) -> dict[str, dict[str, Any]]:
    """Each command run in ``folder``, in order, timed (:func:`time_step`), by its key."""
    steps: dict[str, dict[str, Any]] = {}
    for key, command in commands:
        print(f"[{key}] {command}", flush=True)
        steps[key] = time_step(command, folder)
        print(f"[{key}] {steps[key]['seconds']:.1f} s", flush=True)
    return steps


def evaluation_figures(path: Path) -> dict[str, Any]:
    """What the pages quote of a ``big2 eval --json`` file."""
    evaluation = json.loads(path.read_text())
    return {key: evaluation[key] for key in ("agent", "opponent", "games", "seed", "win_rate", "win_rate_ci",
                                             "mean_score", "mean_score_ci", "command")}


# ----------------------------------------------------------------------------- the training tutorial's record
def curve(run: Path) -> list[dict[str, Any]]:
    """The run's evaluations against Smart (``metrics.csv``): batch, training games, win rate and mean score."""
    with open(run / "metrics.csv", newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r["opponent"] == "smart"]
    return [{"batch": int(r["batch"]), "games": int(r["games"]), "eval_games": int(r["eval_games"]),
             "win_rate": float(r["win_rate"]), "mean_score": float(r["mean_score"])} for r in rows]


def median_batch_s(run: Path) -> float:
    """The median seconds a training batch took (``train_log.csv``'s elapsed times, which leave the evaluations out):
    the pace of a quiet machine when other work slowed some batches."""
    with open(run / "train_log.csv", newline="") as handle:
        elapsed = [0.0] + [float(r["elapsed_s"]) for r in csv.DictReader(handle)]
    return statistics.median(b - a for a, b in zip(elapsed, elapsed[1:]))


def record(steps: dict[str, dict[str, Any]], run: Path, commit: str, json_path: str | None) -> dict[str, Any]:
    """The results file's contents, from the steps' records and the run folder they wrote."""
    finished = FINISHED.search(steps["train"]["output"])
    for step in steps.values():
        step.pop("output", None)
    if finished is None:
        raise RuntimeError("big2 train's closing line (wall time ... s training, ... s evaluation) is missing")
    points = curve(run)
    median = median_batch_s(run)
    try:
        import torch

        torch_version = str(torch.__version__)
    except ImportError:  # big2 train would have failed first
        torch_version = ""
    return {
        "date": datetime.date.today().isoformat(), "commit": commit, "python": platform.python_version(),
        "torch": torch_version, "cores": os.cpu_count(), "steps": steps,
        "seconds": round(sum(step["seconds"] for step in steps.values()), 1),
        "train": {"wall_s": int(finished["wall"]), "training_s": int(finished["train"]), "eval_s": int(finished["eval"]),
                  "minutes": round(steps["train"]["seconds"] / 60, 1), "games": points[-1]["games"],
                  "batches": points[-1]["batch"], "median_batch_s": round(median, 2),
                  "batches_at_median_min": round(points[-1]["batch"] * median / 60, 1),
                  "first": points[0], "last": points[-1], "curve": points},
        "eval": evaluation_figures(run / "eval.json"),
        "command": "python benchmarks/tutorials.py train" + (f" --json {portable_path(json_path)}" if json_path else ""),
    }


# ----------------------------------------------------------------------------- the leaderboard tutorial's record
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


def train(args: argparse.Namespace, commit: str) -> None:
    """The training page's commands run in ``--dir``; their record written to ``--json``, the curve to ``--picture``."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.dir or scratch)
        folder.mkdir(parents=True, exist_ok=True)
        if (folder / RUN).exists():
            raise SystemExit(f"{folder / RUN} exists: give --dir a folder without {RUN}")
        result = record(run_steps(TRAIN_COMMANDS, folder), folder / RUN, commit, args.json)
        if args.picture:
            Path(args.picture).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(folder / RUN / "learning_curves.png", args.picture)
    publish_record(result, args.json)


def leaderboard(args: argparse.Namespace, commit: str) -> None:
    """The leaderboard page's commands run in ``--dir``; their record, with the shipped board's addition sized, to ``--json``."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.dir or scratch)
        folder.mkdir(parents=True, exist_ok=True)
        steps = run_steps(BOARD_COMMANDS, folder)
        for step in steps.values():
            for key in ("output", "last_line"):
                step.pop(key)
        result = {
            "date": datetime.date.today().isoformat(), "commit": commit, "python": platform.python_version(),
            "cores": os.cpu_count(), "steps": steps, "eval": evaluation_figures(folder / EVAL),
            "board": ratings(folder / BOARD), "added": ratings(folder / ADDED), "shipped": shipped_addition(),
            "command": "python benchmarks/tutorials.py leaderboard"
            + (f" --json {portable_path(args.json)}" if args.json else ""),
        }
    publish_record(result, args.json)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    tutorials = parser.add_subparsers(dest="tutorial", required=True)
    for name, page in (("train", "docs/tutorial-train.md"), ("leaderboard", "docs/tutorial-leaderboard.md")):
        sub = tutorials.add_parser(name, help=f"run {page}'s commands and record what it quotes")
        sub.add_argument("--dir", default=None, help="run the commands in this folder (kept; default: a scratch folder)")
        sub.add_argument("--json", default=None, help="write the figures to this JSON file")
        if name == "train":
            sub.add_argument("--picture", default=None, help="copy the run's learning curves (PNG) to this file")
    args = parser.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    (train if args.tutorial == "train" else leaderboard)(args, commit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
