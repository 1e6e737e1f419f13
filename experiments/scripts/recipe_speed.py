"""Training speed of the learner's recipes in one run: the default, the default with the full critic,
Charlesworth's recipe (``--preset charlesworth``) and his recipe with the full critic.

Each setting is a :class:`agents.trainer.Trainer` under his rules, as ``big2 train`` builds it (no
evaluation, no checkpoint). After one warm-up batch each, the settings take turns, a batch at a time,
until each has trained for ``--seconds``, so that they meet the same machine load. Printed and written
to ``experiments/results/learner/speed.json``: decisions/s of each (every move of every game, rollout and
update), its ratio to the default's, and the share of the update.

``--from-log TRAIN_LOG --segment NAME=FIRST-LAST ...`` reads the speed of stretches of one run from
its ``train_log.csv`` instead (for a run that moved between machines: row (c) trained on this CPU, then
on a GPU machine, then here again): decisions/s of each stretch (its decisions over its time), the mean
rollout and update seconds per batch, and each stretch's ratio to the first; written to
``experiments/results/learner/speed_by_machine.json``.

Usage:
    python experiments/scripts/recipe_speed.py [--seconds 60] [--threads 1] [--json experiments/results/learner/speed.json]
    python experiments/scripts/recipe_speed.py --from-log RUN/train_log.csv --segment "cpu=1-7409" --segment "gpu=7410-9687"
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import time
from pathlib import Path

SETTINGS = {
    "default": {},
    "default, --critic full": {"critic": "full"},
    "--preset charlesworth": {"preset": "charlesworth"},
    "--preset charlesworth --critic full": {"preset": "charlesworth", "critic": "full"},
}


def parse_segment(text: str) -> tuple[str, int, int]:
    """``NAME=FIRST-LAST`` (batch numbers of a train_log, both included) as a tuple.

    >>> parse_segment("gpu=7410-9687")
    ('gpu', 7410, 9687)
    """
    name, sep, span = text.partition("=")
    first, dash, last = span.partition("-")
    if not (sep and dash and name and first.isdigit() and last.isdigit() and int(first) <= int(last)):
        raise argparse.ArgumentTypeError(f"a segment is NAME=FIRST-LAST (batch numbers, FIRST <= LAST); got {text!r}")
    return name, int(first), int(last)


def logged_speed(log: Path, segments: list[tuple[str, int, int]]) -> list[dict[str, float | int | str]]:
    """Each segment's decisions/s (its decisions over its training time), mean rollout and update
    seconds per batch, and its ratio to the first segment, from a run's ``train_log.csv``."""
    with log.open() as handle:
        rows = list(csv.DictReader(handle))
    out: list[dict[str, float | int | str]] = []
    for name, first, last in segments:
        part = [r for r in rows if first <= int(r["batch"]) <= last]
        if len(part) != last - first + 1:
            raise SystemExit(f"{log} holds {len(part)} of the {last - first + 1} batches {first}-{last}")
        seconds = sum(float(r["rollout_s"]) + float(r["update_s"]) for r in part)
        decisions = sum(int(r["batch_decisions"]) for r in part)
        out.append({"segment": name, "first_batch": first, "last_batch": last, "decisions": decisions,
                    "decisions_per_s": decisions / seconds,
                    "rollout_s_per_batch": sum(float(r["rollout_s"]) for r in part) / len(part),
                    "update_s_per_batch": sum(float(r["update_s"]) for r in part) / len(part)})
    for row in out:
        row["ratio_to_first"] = float(row["decisions_per_s"]) / float(out[0]["decisions_per_s"])
        print(f"{row['segment']:40s} {row['decisions_per_s']:9,.0f} decisions/s  {row['ratio_to_first']:5.2f}x  "
              f"rollout {row['rollout_s_per_batch']:.3f} s, update {row['update_s_per_batch']:.3f} s a batch")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="training time per setting (after a warm-up batch)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--json", default=None, help="where the figures go (default experiments/results/learner/speed.json, "
                        "or speed_by_machine.json with --from-log)")
    parser.add_argument("--from-log", type=Path, help="a run's train_log.csv: report the speed of its --segment stretches")
    parser.add_argument("--segment", type=parse_segment, action="append", default=[],
                        help="NAME=FIRST-LAST: batches FIRST..LAST of --from-log (repeat; the first is the reference)")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.threads < 1:
        parser.error("--seconds must be positive and --threads at least 1")
    learner = Path(__file__).resolve().parents[1] / "results" / "learner"
    if args.from_log is not None:
        if not args.segment:
            parser.error("--from-log needs at least one --segment NAME=FIRST-LAST")
        if not args.from_log.is_file():
            parser.error(f"--from-log: no such file {str(args.from_log)!r} (a run's train_log.csv)")
        rows = logged_speed(args.from_log, args.segment)
        command = "python experiments/scripts/recipe_speed.py --from-log " + str(args.from_log) + "".join(
            f' --segment "{n}={a}-{b}"' for n, a, b in args.segment)
        path = Path(args.json or learner / "speed_by_machine.json")
        path.write_text(json.dumps({"rows": rows, "log": str(args.from_log), "date": time.strftime("%Y-%m-%d"),
                                    "command": command}, indent=2) + "\n")
        return
    if args.json is None:
        args.json = str(learner / "speed.json")
    import torch

    from agents.config import args_from_mapping
    from agents.trainer import Trainer

    torch.set_num_threads(args.threads)
    trainers = {}
    for name, extra in SETTINGS.items():
        values = {"rules": "charlesworth", "out": "unused", "eval_opponents": [], "progress": False,
                  "threads": args.threads, **extra}
        trainers[name] = Trainer(args_from_mapping(values), cores=args.threads)
        trainers[name].train_batch()  # warm-up: compilation, first allocations
    spent = {name: 0.0 for name in trainers}
    decisions = {name: 0 for name in trainers}
    update = {name: 0.0 for name in trainers}
    while min(spent.values()) < args.seconds:
        for name, trainer in trainers.items():
            if spent[name] >= args.seconds:
                continue
            start = time.perf_counter()
            stats = trainer.train_batch()
            spent[name] += time.perf_counter() - start
            decisions[name] += int(stats["batch_decisions"])
            update[name] += float(stats["update_s"])
    base = decisions["default"] / spent["default"]
    rows = []
    for name in trainers:
        rate = decisions[name] / spent[name]
        rows.append({"setting": name, "decisions_per_s": rate, "ratio_to_default": rate / base,
                     "update_share": update[name] / spent[name], "seconds": spent[name]})
        print(f"{name:40s} {rate:9,.0f} decisions/s  {rate / base:5.2f}x the default  update {update[name] / spent[name]:.0%}")
    figures = {"rows": rows, "threads": args.threads, "seconds_each": args.seconds, "machine": platform.machine(),
               "cores": os.cpu_count(), "date": time.strftime("%Y-%m-%d"),
               "command": f"python experiments/scripts/recipe_speed.py --seconds {args.seconds:g} --threads {args.threads}"}
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
