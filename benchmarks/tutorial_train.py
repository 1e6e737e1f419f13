"""The training tutorial's run (``docs/tutorial-train.md``): PPO against three Smart players, its curve, its evaluation.

Runs the page's commands (``COMMANDS``; ``tests/benchmarks/test_tutorials.py`` checks that they are the
page's) as written, in ``--dir`` (a scratch folder by default), each as its own ``big2`` process, and
writes what the page quotes: each step's seconds with the machine's one-minute load average before and
after it, the run's own split of its wall time into training and evaluation, its median batch's seconds
(the pace where other work slowed some batches), its games, its learning
curve's points (``metrics.csv``) and the evaluation's win rate and mean score with their 95% intervals
(its ``--json`` file). The curve's picture is copied to ``--picture``. Run it on a quiet machine:
training uses every core it is given.

Usage:
    python benchmarks/tutorial_train.py --dir runs/tutorial-train --json benchmarks/tutorial/train.json \\
        --picture benchmarks/tutorial/learning_curves.png
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
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

from big2_env.devtools.records import portable_path, publish_record

REPO = Path(__file__).resolve().parents[1]
RUN = "runs/vs-smart"
"""The run folder the page's commands write, relative to the folder they run in."""

COMMANDS: list[tuple[str, str]] = [
    ("train", f"big2 train --curriculum fixed:smart --batches 100 --eval-every 10 --eval-opponents smart --out {RUN}"),
    ("plot", f"big2 plot {RUN}"),
    ("eval", f"big2 eval --agent {RUN} --opponent smart --games 400 --json {RUN}/eval.json"),
]
"""The page's commands, in order, with the keys their steps are recorded under."""

FINISHED = re.compile(r"wall time (?P<wall>\d+) s \((?P<train>\d+) s training, (?P<eval>\d+) s evaluation\)")
"""``big2 train``'s closing line: its wall time split into training and evaluation."""


def big2_argv(command: str) -> list[str]:
    """``command`` as a process's arguments: this checkout's ``big2`` (``python -m big2_env.cli``, run with the
    checkout first on the path by :func:`time_step`), whichever ``big2`` is installed.

    Example:
        >>> big2_argv("big2 plot runs/vs-smart")[-2:]
        ['plot', 'runs/vs-smart']
    """
    argv = shlex.split(command)
    return [sys.executable, "-m", "big2_env.cli"] + argv[1:] if argv[0] == "big2" else argv


def time_step(command: str, cwd: Path) -> dict[str, Any]:
    """Run ``command`` in ``cwd``; its seconds, the load average before and after it, its exit status and output's
    last line (and the whole output, under ``"output"``, for the caller to read)."""
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
    finished = FINISHED.search(steps["train"].pop("output"))
    for step in steps.values():
        step.pop("output", None)
    if finished is None:
        raise RuntimeError("big2 train's closing line (wall time ... s training, ... s evaluation) is missing")
    points = curve(run)
    median = median_batch_s(run)
    evaluation = json.loads((run / "eval.json").read_text())
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
        "eval": {key: evaluation[key] for key in ("agent", "opponent", "games", "seed", "win_rate", "win_rate_ci",
                                                  "mean_score", "mean_score_ci", "command")},
        "command": "python benchmarks/tutorial_train.py" + (f" --json {portable_path(json_path)}" if json_path else ""),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=None, help="run the commands in this folder (kept; default: a scratch folder)")
    parser.add_argument("--json", default=None, help="write the figures to this JSON file")
    parser.add_argument("--picture", default=None, help="copy the run's learning curves (PNG) to this file")
    args = parser.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.dir or scratch)
        folder.mkdir(parents=True, exist_ok=True)
        if (folder / RUN).exists():
            raise SystemExit(f"{folder / RUN} exists: give --dir a folder without {RUN}")
        steps: dict[str, dict[str, Any]] = {}
        for key, command in COMMANDS:
            print(f"[{key}] {command}", flush=True)
            steps[key] = time_step(command, folder)
            print(f"[{key}] {steps[key]['seconds']:.1f} s", flush=True)
        result = record(steps, folder / RUN, commit, args.json)
        if args.picture:
            Path(args.picture).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(folder / RUN / "learning_curves.png", args.picture)
    publish_record(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
