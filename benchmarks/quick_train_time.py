"""How long the README's short training run takes: its ``big2 train`` command, then ``big2 plot`` and ``big2 eval``.

Runs the README's training example (``COMMANDS``; ``tests/docs/test_docs.py`` checks that they are the
README's) as written, in a scratch folder, each as its own ``big2`` process (the installed command,
or ``python -m big2_env.cli`` when ``big2`` is not on the path), and records each step's seconds
with the machine's one-minute load average before and after it (well above the number of cores:
something else was running too). The README quotes ``steps.train.seconds``. Run it on a quiet
machine: training uses every core it is given.

Usage:
    python benchmarks/quick_train_time.py --json benchmarks/setup/quick_train.json
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from big2_env.devtools.records import portable_path, publish_record

REPO = Path(__file__).resolve().parents[1]

COMMANDS: list[tuple[str, str]] = [
    ("train", "big2 train --batches 20 --out runs/ppo"),
    ("plot", "big2 plot runs/ppo"),
    ("eval", "big2 eval --agent runs/ppo --opponent smart --games 200"),
]
"""The README's training example, split at ``&&``, with the keys its steps are recorded under."""


def big2_argv(command: str) -> list[str]:
    """``command`` as a process's arguments: the installed ``big2``, else this Python's ``-m big2_env.cli``.

    Example:
        >>> big2_argv("big2 plot runs/ppo")[-2:]
        ['plot', 'runs/ppo']
    """
    argv = shlex.split(command)
    if argv[0] == "big2" and shutil.which("big2") is None:
        argv = [sys.executable, "-m", "big2_env.cli"] + argv[1:]
    return argv


def time_step(command: str, cwd: Path) -> dict[str, Any]:
    """Run ``command`` in ``cwd``; its seconds, the load average before and after it and its exit status."""
    load = os.getloadavg()[0]
    started = time.perf_counter()
    done = subprocess.run(big2_argv(command), cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{command!r} failed ({done.returncode}):\n{(done.stdout + done.stderr)[-3000:]}")
    lines = done.stdout.strip().splitlines()
    return {"command": command, "seconds": round(seconds, 1), "load_before": round(load, 2),
            "load_after": round(os.getloadavg()[0], 2), "returncode": done.returncode, "last_line": lines[-1] if lines else ""}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default=None, help="write the figures to this JSON file")
    args = parser.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    steps: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for key, command in COMMANDS:
            print(f"[{key}] {command}", flush=True)
            steps[key] = time_step(command, Path(scratch))
            print(f"[{key}] {steps[key]['seconds']:.1f} s", flush=True)
    try:
        import torch

        torch_version = str(torch.__version__)
    except ImportError:  # big2 train would have failed first
        torch_version = ""
    record = {
        "date": datetime.date.today().isoformat(), "commit": commit, "python": platform.python_version(),
        "torch": torch_version, "cores": os.cpu_count(), "steps": steps,
        "seconds": round(sum(step["seconds"] for step in steps.values()), 1),
        "command": "python benchmarks/quick_train_time.py" + (f" --json {portable_path(args.json)}" if args.json else ""),
    }
    publish_record(record, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
