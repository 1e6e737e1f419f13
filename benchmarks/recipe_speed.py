"""Training speed of the learner's recipes in one run: the default, the default with the full critic,
Charlesworth's recipe (``--preset charlesworth``) and his recipe with the full critic.

Each setting is a :class:`agents.trainer.Trainer` under his rules, as ``big2 train`` builds it (no
evaluation, no checkpoint). After one warm-up batch each, the settings take turns, a batch at a time,
until each has trained for ``--seconds``, so that they meet the same machine load. Printed and written
to ``benchmarks/learner/speed.json``: decisions/s of each (every move of every game, rollout and
update), its ratio to the default's, and the share of the update.

Usage:
    python benchmarks/recipe_speed.py [--seconds 60] [--threads 1] [--json benchmarks/learner/speed.json]
"""

from __future__ import annotations

import argparse
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="training time per setting (after a warm-up batch)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--json", default=str(Path(__file__).resolve().parent / "learner" / "speed.json"))
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.threads < 1:
        parser.error("--seconds must be positive and --threads at least 1")
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
               "command": f"python benchmarks/recipe_speed.py --seconds {args.seconds:g} --threads {args.threads}"}
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
