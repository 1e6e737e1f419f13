"""How far training runs went and how healthy their learners were, in one results file.

Reads the train_log CSV of each run named (a ``big2 train`` output folder, or a committed log
file such as ``benchmarks/exit_net/train_log_ppo.csv``) and writes, under each log's name,
:func:`agents.plot.health_summary`: its last batch, games and decisions, the mean KL, clip
fraction, explained variance and entropy over its rows, and for an unthinned log the decisions
learned and the agreement with a teacher. Pages quote the figures from the file it writes.

Usage:
    python benchmarks/health_summary.py benchmarks/exit_net/train_log_exit.csv \\
        benchmarks/exit_net/train_log_ppo.csv --json benchmarks/exit_net/health.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agents.plot import health_summary


def log_name(path: str) -> str:
    """The key a log is stored under: a CSV file's stem, a run folder's name."""
    p = Path(path)
    return p.stem if p.suffix == ".csv" else p.resolve().name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="+", help="run folders or train_log CSV files")
    parser.add_argument("--json", help="write the summaries here (default: print only)")
    options = parser.parse_args(argv)
    names = [log_name(path) for path in options.logs]
    if len(set(names)) != len(names):
        parser.error(f"two logs share a name ({', '.join(names)}): each is stored under its file's stem")
    result = {name: health_summary(path) for name, path in zip(names, options.logs)}
    result["command"] = "python benchmarks/health_summary.py " + " ".join(options.logs) + (
        f" --json {options.json}" if options.json else "")
    text = json.dumps(result, indent=2)
    print(text)
    if options.json:
        Path(options.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
