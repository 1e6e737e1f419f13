"""What a new user waits for: the README's set-up, step by step, on a fresh clone in a fresh environment.

Runs the README's "Set up and run" commands as written (``STEPS``; ``tests/benchmarks/test_setup_time.py``
checks that they are the README's) in a temporary folder: a shallow clone of this checkout (git's
own transport, as from a server), a new virtual environment, ``pip install -e .``, the first
``big2 demo --seed 0`` (the game's core compiles: nothing is cached in a fresh clone) and a second
one (loaded from the disk cache), then torch and the ``[test]`` extra, and the test suite: counted
(``pytest --collect-only``), and with ``--suite quick`` / ``full`` / ``both`` also run (the quick
run is the README's ``-m "not slow" -n 2``, the full one its ``python -m pytest``). pip runs
without its download cache (``--pip-cache`` allows it), as on a fresh machine; where the
packages come from (the index, a local mirror) is the machine's own pip configuration.

Each step's seconds, the machine's load average before it, and the suites' counts go to ``--json``;
the README's set-up section and the testing page quote that file. Run it on a quiet machine: every
step uses what the cores give it.

With ``--measure quick-train`` it times the README's short training run instead (``TRAIN_COMMANDS``:
its ``big2 train``, ``big2 plot`` and ``big2 eval``; ``tests/benchmarks/test_quick_train_time.py`` checks that
they are the README's), in a scratch folder, each as its own ``big2`` process (the installed command, or
``python -m big2_env.cli`` when ``big2`` is not on the path), with the load average before and after each
step; the README quotes ``steps.train.seconds``. With ``--measure clone`` it measures what a new user
downloads: the checkout cloned through git's own transport (``git clone --no-local file://REPO``, as a
clone from a server would pack it), once whole and once with ``--depth 1``, each clone's ``.git`` folder
(every file in it), its pack (``git count-objects -v``'s ``size-pack``) and the tracked files checked out.

Usage:
    python benchmarks/setup_time.py --suite both --json benchmarks/setup/times.json
    python benchmarks/setup_time.py --measure quick-train --json benchmarks/setup/quick_train.json
    python benchmarks/setup_time.py --measure clone --json benchmarks/clone/sizes.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from big2_env.records import portable_path, publish_record

REPO = Path(__file__).resolve().parents[1]
MIB = 1 << 20

# The README's set-up commands, in its order, with the keys they are recorded under. The clone and the
# venv's activation are done by this script itself (the clone through git's transport; activation by
# running the venv's own executables), so each is given here as the README writes it and marked.
STEPS: list[tuple[str, str]] = [
    ("clone", "git clone --depth 1 REPOSITORY_URL big2-env"),
    ("cd", "cd big2-env"),
    ("venv", "python -m venv .venv"),
    ("activate", ". .venv/bin/activate"),
    ("install", "pip install -e ."),
    ("demo_cold", "big2 demo --seed 0"),
    ("torch", "pip install torch==2.13.0"),
    ("test_extra", 'pip install -e ".[test]"'),
    ("suite_full", "python -m pytest"),
]
QUICK = 'python -m pytest -m "not slow" -n 2'
"""The README's quick run (its prose, not its code block)."""

SUMMARY = re.compile(r"=+ (?P<body>.*?) in (?P<seconds>[\d.]+)s")
COLLECTED = re.compile(r"(?P<selected>\d+)(?:/(?P<total>\d+))? tests? collected(?: \((?P<deselected>\d+) deselected\))?")


def suite_counts(output: str) -> dict[str, int]:
    """The counts in pytest's last summary line (``12 passed, 2 skipped, 1 xfailed in 3.2s``)."""
    lines = [line for line in output.splitlines() if SUMMARY.search(line)]
    if not lines:
        raise ValueError(f"no pytest summary line in its output (last lines: {output.splitlines()[-3:]!r})")
    found = SUMMARY.search(lines[-1])
    assert found is not None
    counts = {}
    for part in found["body"].split(", "):
        number, _, what = part.strip().partition(" ")
        if number.isdigit():
            counts[what.rstrip("s") if what in ("errors", "warnings") else what] = int(number)
    return counts


SKIP = re.compile(r"^SKIPPED \[(?P<count>\d+)\] (?P<where>[^:]+):\d+: (?P<reason>.*)$")


def skipped(output: str) -> list[dict[str, Any]]:
    """The skips that pytest's ``-ra`` summary lists: how many, in which file, and the reason each gives."""
    found = [SKIP.match(line.strip()) for line in output.splitlines()]
    return [{"count": int(hit["count"]), "file": hit["where"], "reason": hit["reason"]} for hit in found if hit]


FAILURE = re.compile(r"^(?P<kind>FAILED|ERROR) (?P<test>\S+)(?: - (?P<message>.*))?$")


def failures(output: str) -> list[dict[str, str]]:
    """The failures and errors that pytest's ``-ra`` summary lists: the test and the first words of its message."""
    found = [FAILURE.match(line.strip()) for line in output.splitlines()]
    return [{"kind": hit["kind"], "test": hit["test"], "message": (hit["message"] or "")[:300]} for hit in found if hit]


def collected(output: str) -> int:
    """How many tests ``pytest --collect-only -q`` selected (``1768/2446 tests collected (678 deselected)``)."""
    found = [COLLECTED.search(line) for line in output.splitlines()]
    hits = [hit for hit in found if hit]
    if not hits:
        raise ValueError(f"no 'tests collected' line in pytest's output (last lines: {output.splitlines()[-3:]!r})")
    return int(hits[-1]["selected"])


class Runner:
    """Runs the steps in the clone with the venv first on the path, timing each."""

    def __init__(self, clone: Path, pip_cache: bool) -> None:
        self.clone = clone
        venv = clone / ".venv"
        self.env = {key: value for key, value in os.environ.items()
                    if key not in ("PYTHONPATH", "NUMBA_CACHE_DIR", "VIRTUAL_ENV", "PYTHONHOME")}
        self.env.update(VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
        if not pip_cache:
            self.env["PIP_NO_CACHE_DIR"] = "1"
        self.times: dict[str, dict[str, Any]] = {}

    def run(self, key: str, command: str, check: bool = True, argv: list[str] | None = None) -> str:
        """Run ``command`` (or ``argv`` where the README's words are done another way) in the clone; time it."""
        load = os.getloadavg()[0]
        started = time.perf_counter()
        print(f"[{key}] {command}", flush=True)
        returncode, output = self.execute(argv or shlex.split(command), self.clone if self.clone.exists() else None)
        seconds = time.perf_counter() - started
        if check and returncode != 0:
            raise RuntimeError(f"{command!r} failed ({returncode}):\n{output[-3000:]}")
        self.times[key] = {"command": command, "seconds": round(seconds, 1), "load_before": round(load, 2),
                           "returncode": returncode}
        print(f"[{key}] {seconds:.1f} s", flush=True)
        return output

    def execute(self, argv: list[str], cwd: Path | None) -> tuple[int, str]:
        """One process, its exit status and its output (stdout then stderr)."""
        done = subprocess.run(argv, cwd=cwd, env=self.env, capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr


# ----------------------------------------------------------------------------- --measure quick-train
TRAIN_COMMANDS: list[tuple[str, str]] = [
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


def quick_train(json_path: str | None) -> int:
    """Time the README's training example in a scratch folder and write the record to ``json_path``."""
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    steps: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for key, command in TRAIN_COMMANDS:
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
        "command": "python benchmarks/setup_time.py --measure quick-train"
        + (f" --json {portable_path(json_path)}" if json_path else ""),
    }
    publish_record(record, json_path)
    return 0


# ----------------------------------------------------------------------------- --measure clone
def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def folder_bytes(path: Path) -> int:
    """Every file's size under ``path`` (links not followed)."""
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def clone_size(clone: Path) -> dict[str, float]:
    """A clone's ``.git`` folder, its pack and its checked-out tracked files, in MiB."""
    counts = dict(line.split(": ", 1) for line in git("count-objects", "-v", cwd=clone).splitlines())
    tracked = [name for name in git("ls-files", "-z", cwd=clone).split("\0") if name]
    checkout = sum((clone / name).lstat().st_size for name in tracked if (clone / name).is_file())
    return {"git_mib": folder_bytes(clone / ".git") / MIB, "pack_mib": int(counts["size-pack"]) / 1024,
            "checkout_mib": checkout / MIB, "files": len(tracked)}


def clone_sizes(parser: argparse.ArgumentParser, repo: Path, json_path: str | None) -> int:
    """A full and a shallow clone of ``repo`` measured; the sizes printed and written to ``json_path``."""
    if not repo.is_dir():
        parser.error(f"--repo {str(repo)!r} is not a folder")
    try:
        result: dict[str, object] = {"commit": git("rev-parse", "HEAD", cwd=repo).strip(),
                                     "date": datetime.date.today().isoformat()}
        with tempfile.TemporaryDirectory() as scratch:
            for name, extra in (("full", []), ("shallow", ["--depth", "1"])):
                target = Path(scratch) / name
                git("clone", "-q", "--no-local", *extra, f"file://{repo}", str(target))
                result[name] = clone_size(target)
    except subprocess.CalledProcessError as error:
        parser.error(f"git failed on {str(repo)!r} (is it a repository with a commit?): {error.stderr.strip()}")
    result["command"] = "python benchmarks/setup_time.py --measure clone" + (f" --json {json_path}" if json_path else "")
    text = json.dumps(result, indent=2)
    print(text)
    if json_path:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(json_path).write_text(text + "\n")
    return 0


# ----------------------------------------------------------------------------- the command
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--measure", choices=["setup", "quick-train", "clone"], default="setup",
                        help="the README's set-up step by step (default), its short training run, or a clone's size")
    parser.add_argument("--repo", default=str(REPO), help="the repository to clone (default: this checkout)")
    parser.add_argument("--suite", choices=["none", "quick", "full", "both"], default="none",
                        help="run the test suite too: the quick run, the full one, or both (default: count only)")
    parser.add_argument("--pip-cache", action="store_true", help="let pip use its download cache (default: not)")
    parser.add_argument("--keep", default=None, help="make the clone here and keep it (default: a temporary folder)")
    parser.add_argument("--json", default=None, help="write the figures to this JSON file")
    args = parser.parse_args(argv)
    repo = Path(args.repo).resolve()
    if args.measure == "quick-train":
        return quick_train(args.json)
    if args.measure == "clone":
        return clone_sizes(parser, repo, args.json)
    if not (repo / ".git").exists():
        parser.error(f"--repo {args.repo!r} is not a git checkout")
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True,
                            check=True).stdout.strip()
    with tempfile.TemporaryDirectory() as scratch:
        where = Path(args.keep) if args.keep else Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        clone = where / "big2-env"
        if clone.exists():
            parser.error(f"{clone} exists already: give --keep an empty folder")
        runner = Runner(clone, args.pip_cache)
        commands = dict(STEPS)
        runner.run("clone", commands["clone"],
                   argv=["git", "clone", "-q", "--no-local", "--depth", "1", f"file://{repo}", str(clone)])
        runner.run("venv", commands["venv"], argv=[sys.executable, "-m", "venv", str(clone / ".venv")])
        runner.run("install", commands["install"])
        demo = runner.run("demo_cold", commands["demo_cold"])
        runner.run("demo_warm", commands["demo_cold"])
        runner.run("torch", commands["torch"])
        runner.run("test_extra", commands["test_extra"])
        counts = {"all": collected(runner.run("collect_all", "python -m pytest --collect-only -q")),
                  "quick": collected(runner.run("collect_quick", 'python -m pytest --collect-only -q -m "not slow"'))}
        suites: dict[str, dict[str, int]] = {}
        skips: dict[str, list[dict[str, Any]]] = {}
        failed: dict[str, list[dict[str, str]]] = {}
        for name, key, command in (("quick", "suite_quick", QUICK), ("full", "suite_full", commands["suite_full"])):
            if args.suite in (name, "both"):
                output = runner.run(key, command, check=False)
                suites[name], skips[name], failed[name] = suite_counts(output), skipped(output), failures(output)
    record = {
        "date": datetime.date.today().isoformat(), "commit": commit, "python": platform.python_version(),
        "cores": os.cpu_count(), "pip_cache": args.pip_cache, "steps": runner.times, "tests": counts,
        "suites": suites, "skips": skips, "failures": failed, "demo_says_it_compiled": "compil" in demo.lower(),
        "command": "python benchmarks/setup_time.py" + (f" --suite {args.suite}" if args.suite != "none" else "")
        + (" --pip-cache" if args.pip_cache else "") + (f" --json {portable_path(args.json)}" if args.json else ""),
    }
    steps = runner.times
    record["minutes"] = {
        "install_and_demo": round((steps["install"]["seconds"] + steps["demo_cold"]["seconds"]) / 60, 1),
        "test_installs": round((steps["torch"]["seconds"] + steps["test_extra"]["seconds"]) / 60, 1),
    }
    for name in suites:
        record["minutes"][f"suite_{name}"] = round(steps[f"suite_{name}"]["seconds"] / 60, 1)
    text = json.dumps(record, indent=1)
    print(text)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(text + "\n")
    red = [name for name in suites if suites[name].get("failed") or suites[name].get("error")]
    if red:
        print(f"the {' and '.join(red)} suite had failures: see 'failures'", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
