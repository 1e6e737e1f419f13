"""How far training runs went and how healthy their learners were, in one results file.

Reads the train_log CSV of each run named (a ``big2 train`` output folder, or a committed log
file such as ``experiments/results/exit_net/train_log_ppo.csv``) and writes, under each log's name,
:func:`agents.plot.health_summary`: its last batch, games and decisions, the mean KL, clip
fraction, explained variance and entropy over its rows, and for an unthinned log the decisions
learned and the agreement with a teacher. With ``--upto B [B ...]`` each log is read as it stood at
each batch ``B`` (stored as ``NAME@B``), and ``--last N`` adds the medians over the last ``N``
batches. Pages quote the figures from the file it writes.

Usage:
    python experiments/scripts/health_summary.py experiments/results/exit_net/train_log_exit.csv \\
        experiments/results/exit_net/train_log_ppo.csv --json experiments/results/exit_net/health.json
    python experiments/scripts/health_summary.py experiments/results/long/paper experiments/results/long/charlesworth \\
        --upto 1075 2149 --last 300 --json experiments/results/long/health.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from agents.plot import health_summary


def log_name(path: str) -> str:
    """The key a log is stored under: a CSV file's stem, a run folder's name."""
    p = Path(path)
    return p.stem if p.suffix == ".csv" else p.resolve().name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="+", help="run folders or train_log CSV files")
    parser.add_argument("--upto", type=int, nargs="+", metavar="BATCH",
                        help="summarise each log as it stood at each of these batches (stored as NAME@BATCH)")
    parser.add_argument("--last", type=int, metavar="N", help="add the medians over the last N batches")
    parser.add_argument("--json", help="write the summaries here (default: print only)")
    options = parser.parse_args(argv)
    names = [log_name(path) for path in options.logs]
    if len(set(names)) != len(names):
        parser.error(f"two logs share a name ({', '.join(names)}): each is stored under its file's stem")
    result: dict[str, object] = {}
    try:  # health_summary checks the bounds and names a missing or empty log
        for name, path in zip(names, options.logs):
            for batch in options.upto or [None]:
                key = name if batch is None else f"{name}@{batch}"
                result[key] = health_summary(path, upto=batch, last=options.last)
    except (ValueError, FileNotFoundError) as error:
        parser.error(str(error))
    result["command"] = "python experiments/scripts/health_summary.py " + " ".join(argv if argv is not None else sys.argv[1:])
    text = json.dumps(result, indent=2)
    print(text)
    if options.json:
        Path(options.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
