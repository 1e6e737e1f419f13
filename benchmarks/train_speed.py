"""PPO training throughput, end to end (rollout + update), on this machine.

Runs a few PPO batches of self-play exactly as ``big2 train`` does (same Trainer,
no evaluation or checkpoint writes) after one warm-up batch, and prints:

* decisions/s: every move of every game (forced moves included) divided by the
  wall time of rollout + update;
* trained decisions/s: the decisions that enter the PPO update (by default forced
  moves, a single legal action, are played without a forward pass and not
  trained on: see ``TrainArgs.train_forced``);
* the share of the time spent in the rollout and in the update, and games/s.

Usage:
    python benchmarks/train_speed.py [--batches 5] [--repeats 3] [--threads 2] [--curriculum self]
                                     [--train-forced] [--profile] [--model FIELD=INT ...]

``--profile`` prints the top functions of a cProfile run of the measured batches.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402  (after the sys.path line)

from agents.train import TrainArgs, Trainer, free_cores  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=5, help="measured batches per run (after one warm-up batch)")
    parser.add_argument("--repeats", type=int, default=3, help="runs; the median run is reported")
    parser.add_argument("--games-per-batch", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--curriculum", default="self")
    parser.add_argument("--train-forced", action="store_true", help="also train on forced moves (paper-literal, slower)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary of the measured batches")
    parser.add_argument("--model", action="append", default=[], metavar="FIELD=INT", help="NetworkConfig override, e.g. hand_heads=2")
    args = parser.parse_args(argv)

    threads = min(args.threads, free_cores())
    torch.set_num_threads(threads)
    trainer = Trainer(
        TrainArgs(
            curriculum=args.curriculum,
            batches=5000,  # the schedule of a full run (the rate does not depend on it)
            games_per_batch=args.games_per_batch,
            seed=args.seed,
            train_forced=args.train_forced,
            model={k: int(v) for k, v in (item.split("=", 1) for item in args.model)},
            progress=False,
            tensorboard=False,
        )
    )
    trainer.train_batch()  # warm-up (feature caches, allocator, lazy init)
    profiler = cProfile.Profile() if args.profile else None
    runs = []
    for _ in range(args.repeats):
        totals = {"decisions": 0, "trained": 0, "rollout_s": 0.0, "update_s": 0.0, "games": 0}
        if profiler:
            profiler.enable()
        for _ in range(args.batches):
            stats = trainer.train_batch()
            totals["decisions"] += stats["batch_decisions"]
            totals["trained"] += stats["trained_decisions"]
            totals["rollout_s"] += stats["rollout_s"]
            totals["update_s"] += stats["update_s"]
            totals["games"] += args.games_per_batch
        if profiler:
            profiler.disable()
        totals["busy"] = totals["rollout_s"] + totals["update_s"]
        totals["rate"] = totals["decisions"] / totals["busy"]
        runs.append(totals)
    runs.sort(key=lambda r: r["rate"])
    median = runs[len(runs) // 2]
    print(
        f"PPO {args.curriculum}: {args.repeats} run(s) of {args.batches} batches x {args.games_per_batch} games, "
        f"{threads} torch thread(s), train_forced={args.train_forced}, torch {torch.__version__}"
    )
    print("  (median run shown; the machine's speed varies between runs)")
    busy = median["busy"]
    print(f"  decisions/s (all moves)     {median['decisions'] / busy:8.0f}   ({median['decisions']} decisions)")
    print(f"  trained decisions/s         {median['trained'] / busy:8.0f}   ({median['trained']} trained)")
    print(f"  games/s                     {median['games'] / busy:8.1f}")
    print(
        f"  time: rollout {median['rollout_s']:.2f} s ({median['rollout_s'] / busy:.0%}), "
        f"update {median['update_s']:.2f} s ({median['update_s'] / busy:.0%})"
    )
    rates = ", ".join(f"{r['rate']:.0f}" for r in runs)
    print(f"  all runs, decisions/s: {rates}")
    print(f"  per batch: {busy / args.batches:.2f} s -> 5,000 batches take about {busy / args.batches * 5000 / 3600:.1f} h")
    if profiler:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
