"""PPO training throughput, end to end (rollout + update), on this machine.

Runs PPO batches of self-play exactly as ``big2 train`` does (same Trainer, no
evaluation or checkpoint writes), for each ``--workers`` setting (default ``1,2``:
the trainer alone, the reference, and the trainer with one helper process, see
:mod:`agents.parallel`). The settings take turns batch by batch, so that they meet
the same machine load, and each gets one warm-up batch first. It prints, per setting:

* decisions/s: every move of every game (forced moves included) divided by the
  wall time of rollout + update, and its ratio to the first setting's;
* trained decisions/s: the decisions that enter the PPO update (by default forced
  moves, a single legal action, are played without a forward pass and not
  trained on: see ``TrainArgs.train_forced``);
* the share of the time spent in the rollout and in the update, and games/s.

Usage:
    python benchmarks/train_speed.py [--batches 5] [--repeats 3] [--workers 1,2] [--threads 2]
                                     [--curriculum self] [--train-forced] [--profile] [--model FIELD=INT ...]

``--profile`` prints the top functions of a cProfile run of the first setting's
measured batches (the trainer process only).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402  (after the sys.path line)

from agents.train import TrainArgs, Trainer, free_cores, process_layout  # noqa: E402


def _workers(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        values = []
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"--workers takes positive ints separated by commas, e.g. 1,2; got {text!r}")
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=5, help="measured batches per run and setting")
    parser.add_argument("--repeats", type=int, default=3, help="runs; the median run of each setting is reported")
    parser.add_argument("--games-per-batch", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2, help="torch threads per process (shared out among the processes)")
    parser.add_argument(
        "--workers", type=_workers, default=[1, 2], help="process counts to compare, e.g. 1,2 (the first is the reference)"
    )
    parser.add_argument("--curriculum", default="self")
    parser.add_argument("--train-forced", action="store_true", help="also train on forced moves (paper-literal, slower)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary of the first setting's measured batches")
    parser.add_argument(
        "--model", action="append", default=[], metavar="FIELD=INT", help="NetworkConfig override, e.g. hand_heads=2"
    )
    args = parser.parse_args(argv)
    if args.batches < 1 or args.repeats < 1:
        parser.error("--batches and --repeats must be at least 1")

    settings = list(dict.fromkeys(args.workers))
    layouts = {w: process_layout(w, args.threads) for w in settings}
    trainers = {}
    for w in settings:
        trainers[w] = Trainer(
            TrainArgs(
                curriculum=args.curriculum,
                batches=5000,  # the schedule of a full run (the rate does not depend on it)
                games_per_batch=args.games_per_batch,
                seed=args.seed,
                threads=args.threads,
                workers=w,
                train_forced=args.train_forced,
                model={k: int(v) for k, v in (item.split("=", 1) for item in args.model)},
                progress=False,
                tensorboard=False,
            )
        )
    for w, trainer in trainers.items():
        torch.set_num_threads(layouts[w][1])
        trainer.train_batch()  # warm-up (feature caches, allocator, lazy init, helper start)
    profiler = cProfile.Profile() if args.profile else None
    runs: dict[int, list[dict]] = {w: [] for w in settings}
    for _ in range(args.repeats):
        totals = {w: {"decisions": 0, "trained": 0, "rollout_s": 0.0, "update_s": 0.0, "games": 0} for w in settings}
        for b in range(args.batches):
            order = settings if b % 2 == 0 else settings[::-1]
            for w in order:
                torch.set_num_threads(layouts[w][1])
                if profiler and w == settings[0]:
                    profiler.enable()
                stats = trainers[w].train_batch()
                if profiler and w == settings[0]:
                    profiler.disable()
                t = totals[w]
                t["decisions"] += stats["batch_decisions"]
                t["trained"] += stats["trained_decisions"]
                t["rollout_s"] += stats["rollout_s"]
                t["update_s"] += stats["update_s"]
                t["games"] += args.games_per_batch
        for w in settings:
            t = totals[w]
            t["busy"] = t["rollout_s"] + t["update_s"]
            t["rate"] = t["decisions"] / t["busy"]
            runs[w].append(t)
    for trainer in trainers.values():
        trainer.close()

    print(
        f"PPO {args.curriculum}: {args.repeats} run(s) of {args.batches} batches x {args.games_per_batch} games per setting, "
        f"settings taking turns batch by batch; {free_cores()} free core(s), train_forced={args.train_forced}, "
        f"torch {torch.__version__}"
    )
    print("  (median run of each setting shown; the machine's speed varies between runs)")
    reference = None
    for w in settings:
        ordered = sorted(runs[w], key=lambda r: r["rate"])
        median = ordered[len(ordered) // 2]
        busy = median["busy"]
        reference = reference or median["rate"]
        processes, threads = layouts[w]
        print(f"workers={w}: {processes} process(es) x {threads} torch thread(s)")
        print(
            f"  decisions/s (all moves)     {median['rate']:8.0f}   ({median['decisions']} decisions; "
            f"{median['rate'] / reference:.2f}x workers={settings[0]})"
        )
        print(f"  trained decisions/s         {median['trained'] / busy:8.0f}   ({median['trained']} trained)")
        print(f"  games/s                     {median['games'] / busy:8.1f}")
        print(
            f"  time: rollout {median['rollout_s']:.2f} s ({median['rollout_s'] / busy:.0%}), "
            f"update {median['update_s']:.2f} s ({median['update_s'] / busy:.0%})"
        )
        rates = ", ".join(f"{r['rate']:.0f}" for r in runs[w])
        print(f"  all runs, decisions/s: {rates}")
        print(f"  per batch: {busy / args.batches:.2f} s -> 5,000 batches take about {busy / args.batches * 5000 / 3600:.1f} h")
    if profiler:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
