"""Training throughput, end to end (rollout + update), on this machine, and how it scales.

Runs training batches exactly as ``big2 train`` does (same Trainer, no evaluation
or checkpoint writes), for each setting: a backend (``--backends``: ``process``,
the helper processes of :mod:`agents.learners.processes`; ``ray``, the Ray actors of
:mod:`agents.collect.ray_workers`; ``legacy``, the process backend as it was before workers
played every curriculum: only all-current-policy games are shared, the rest play in
the trainer) and a worker count (``--workers``). The settings take turns batch by
batch, so that they meet the same machine load, and each gets one warm-up batch
first. It prints, per setting:

* decisions/s: every move of every game (forced moves included) divided by the
  wall time of rollout + update, and its ratio to the first setting's;
* trained decisions/s: the decisions that enter the update (by default forced
  moves, a single legal action, are played without a forward pass and not
  trained on: see ``TrainArgs.train_forced``);
* the share of the time spent in the rollout, waiting on workers, and in the update.

Then the **scaling table**: one process's rollout rate ``r`` (decisions/s, the
trainer alone), the learner's ceiling ``L`` (the update alone on one batch:
decisions/s and minibatch updates/s, in the trainer process), and the throughput
the synchronous design predicts for ``W`` workers, ``1 / (1/(W r) + 1/L)`` (a
batch is played by all workers, then learned by one learner), beside the measured
figures and at 16 and 64 workers.

Usage:
    python experiments/scripts/train_speed.py [--batches 5] [--repeats 3] [--workers 1,2] [--backends process]
                                     [--threads 2] [--algo ppo] [--curriculum self] [--train-forced]
                                     [--profile] [--model FIELD=INT ...]

``--profile`` prints the top functions of a cProfile run of the first setting's
measured batches (the trainer process only).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from copy import deepcopy


import numpy as np
import torch

from agents.learners.ppo import PPOLearner, ppo_update
from agents.config import TrainArgs
from agents.train import Trainer, free_cores, process_layout
from agents.learners.value import ValueLearner, value_update

BACKENDS = ("process", "ray", "legacy")


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
    parser.add_argument(
        "--backends", default="process",
        help=f"comma-separated, from {', '.join(BACKENDS)}; ray and legacy run the worker counts above 1 only",
    )
    parser.add_argument("--algo", default="ppo", help="ppo or a value learner (mcq, sarsa, qlearning, dmc)")
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

    backends = [b for b in args.backends.split(",") if b]
    if not backends or any(b not in BACKENDS for b in backends):
        parser.error(f"--backends takes {', '.join(BACKENDS)} separated by commas; got {args.backends!r}")
    workers = list(dict.fromkeys(args.workers))
    settings = [(b, w) for b in backends for w in workers if b == "process" or w > 1]
    if not settings:
        parser.error("no setting to run: ray and legacy need a worker count above 1")
    layouts = {(b, w): (w, 1) if b == "ray" else process_layout(w, args.threads) for b, w in settings}
    actors = sum(w - 1 for b, w in settings if b == "ray")
    if actors:  # one local Ray for every ray setting, with a CPU for each of their actors
        from agents.collect.ray_workers import import_ray, start_ray

        start_ray(None, actors)
    trainers = {}
    for b, w in settings:
        trainers[b, w] = Trainer(
            TrainArgs(
                preset="paper",  # the settings these figures were first measured with (64 games, minibatches of 256)
                env="engine",  # the Python engine: this benchmark measures its worker processes and Ray actors
                algo=args.algo,
                curriculum=args.curriculum,
                batches=5000,  # the schedule of a full run (the rate does not depend on it)
                games_per_batch=args.games_per_batch,
                seed=args.seed,
                threads=args.threads,
                workers=w,
                backend="ray" if b == "ray" else "process",
                snapshot_every=1,  # snapshot curricula meet a full pool from the first measured batch
                train_forced=args.train_forced,
                model={k: int(v) for k, v in (item.split("=", 1) for item in args.model)},
                progress=False,
                tensorboard=False,
            )
        )
        if b == "legacy":
            trainers[b, w].rollout_split = "self"
    for key, trainer in trainers.items():
        torch.set_num_threads(layouts[key][1])
        trainer.train_batch()  # warm-up (feature caches, allocator, lazy init, helper start)
    profiler = cProfile.Profile() if args.profile else None
    runs: dict[tuple, list[dict]] = {key: [] for key in settings}
    fields = ("decisions", "trained", "rollout_s", "update_s", "wait_s", "games")
    for _ in range(args.repeats):
        totals = {key: dict.fromkeys(fields, 0.0) for key in settings}
        for b in range(args.batches):
            order = settings if b % 2 == 0 else settings[::-1]
            for key in order:
                torch.set_num_threads(layouts[key][1])
                if profiler and key == settings[0]:
                    profiler.enable()
                stats = trainers[key].train_batch()
                if profiler and key == settings[0]:
                    profiler.disable()
                t = totals[key]
                t["decisions"] += stats["batch_decisions"]
                t["trained"] += stats["trained_decisions"]
                t["rollout_s"] += stats["rollout_s"]
                t["update_s"] += stats["update_s"]
                t["wait_s"] += stats.get("wait_s", 0.0)
                t["games"] += args.games_per_batch
        for key in settings:
            t = totals[key]
            t["busy"] = t["rollout_s"] + t["update_s"]
            t["rate"] = t["decisions"] / t["busy"]
            runs[key].append(t)
    torch.set_num_threads(process_layout(1, args.threads)[1])  # the learner alone, as one process runs it
    ceiling = learner_ceiling(trainers[settings[0]], args.repeats)
    for trainer in trainers.values():
        trainer.close()
    if actors:
        import_ray().shutdown()

    print(
        f"{args.algo} {args.curriculum}: {args.repeats} run(s) of {args.batches} batches x {args.games_per_batch} games per "
        f"setting, settings taking turns batch by batch; {free_cores()} free core(s), train_forced={args.train_forced}, "
        f"torch {torch.__version__}"
    )
    print("  (median run of each setting shown; the machine's speed varies between runs)")
    reference = None
    medians = {}
    for key in settings:
        ordered = sorted(runs[key], key=lambda r: r["rate"])
        median = medians[key] = ordered[len(ordered) // 2]
        busy = median["busy"]
        reference = reference or median["rate"]
        processes, threads = layouts[key]
        backend, w = key
        print(f"{backend} workers={w}: {processes} process(es) x {threads} torch thread(s)")
        print(
            f"  decisions/s (all moves)     {median['rate']:8.0f}   ({median['decisions']:.0f} decisions; "
            f"{median['rate'] / reference:.2f}x {settings[0][0]} workers={settings[0][1]})"
        )
        print(f"  trained decisions/s         {median['trained'] / busy:8.0f}   ({median['trained']:.0f} trained)")
        print(f"  games/s                     {median['games'] / busy:8.1f}")
        print(
            f"  time: rollout {median['rollout_s']:.2f} s ({median['rollout_s'] / busy:.0%}; waiting on workers "
            f"{median['wait_s'] / busy:.0%}), update {median['update_s']:.2f} s ({median['update_s'] / busy:.0%})"
        )
        rates = ", ".join(f"{r['rate']:.0f}" for r in runs[key])
        print(f"  all runs, decisions/s: {rates}")
        print(f"  per batch: {busy / args.batches:.2f} s -> 5,000 batches take about {busy / args.batches * 5000 / 3600:.1f} h")
    scaling_table(settings, medians, ceiling)
    if profiler:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    return 0


def learner_ceiling(trainer: Trainer, repeats: int) -> dict[str, float]:
    """The update alone, on a copy of the trainer's network, over one freshly collected batch
    (in this process with the torch threads one process gets, no helpers): decisions of play
    learned per second and minibatch updates/s (median of ``repeats``)."""
    model = deepcopy(trainer.model)
    optimizer = type(trainer.optimizer)(model.parameters(), **trainer.optimizer.defaults)
    rng = np.random.default_rng(0)
    from agents.collect.rollout import collect
    from big2_env.engine.game import Game

    plans = trainer.curriculum.plan(trainer.args.games_per_batch)
    games = [Game(trainer.rules, seed=s) for s in range(trainer.args.games_per_batch)]
    rollout = collect(games, plans, trainer.curriculum.models(trainer.actor), rng, skip_forced=not trainer.args.train_forced,
                      epsilon=trainer.epsilon)
    times, steps = [], 0.0
    for _ in range(repeats + 1):  # the first is a warm-up (allocator, optimiser state), not counted
        start = time.perf_counter()
        learner = trainer.learner
        if isinstance(learner, PPOLearner):
            stats = ppo_update(model, optimizer, rollout, learner.config, rng)
        else:
            assert isinstance(learner, ValueLearner)
            target = deepcopy(model) if learner.target is not None else None
            stats = value_update(model, optimizer, rollout, learner.config, target, rng)
        times.append(time.perf_counter() - start)
        steps = float(stats.get("minibatches", 0.0))
    times = times[1:]
    seconds = sorted(times)[len(times) // 2]
    return {"decisions_per_s": rollout.decisions / seconds, "trained_per_s": len(rollout) / seconds,
            "updates_per_s": steps / seconds, "minibatches": steps, "decisions": rollout.decisions}


def scaling_table(settings: list, medians: dict, ceiling: dict[str, float]) -> None:
    """Measured decisions/s per setting beside the synchronous model's prediction, and 16 and 64 workers."""
    one = medians.get(("process", 1))
    print()
    print(
        f"learner ceiling (update alone, one process): {ceiling['decisions_per_s']:.0f} decisions/s of play "
        f"({ceiling['trained_per_s']:.0f} trained/s; {ceiling['updates_per_s']:.1f} minibatch updates/s, "
        f"{ceiling['minibatches']:.0f} per batch of {ceiling['decisions']:.0f} decisions)"
    )
    if one is None:
        print("(run --workers 1 with the process backend for the one-process rollout rate and the predictions)")
        return
    r = one["decisions"] / one["rollout_s"]  # one process playing alone
    learner = ceiling["decisions_per_s"]
    print(f"one process's rollout rate r: {r:.0f} decisions/s")
    print("predicted decisions/s for W workers: 1 / (1/(W r) + 1/L), L the learner ceiling")
    print("| backend | workers | measured decisions/s | predicted |")
    print("| --- | --- | --- | --- |")
    for key in settings:
        backend, w = key
        predicted = 1.0 / (1.0 / (w * r) + 1.0 / learner)
        print(f"| {backend} | {w} | {medians[key]['rate']:.0f} | {predicted:.0f} |")
    for w in (16, 64):
        predicted = 1.0 / (1.0 / (w * r) + 1.0 / learner)
        print(f"| (predicted) | {w} | - | {predicted:.0f} ({predicted / (1.0 / (1.0 / r + 1.0 / learner)):.1f}x one worker) |")
    print(f"bound: the learner, {learner:.0f} decisions/s, however many workers play")
    print("(the model's learner works alone, as with Ray or a GPU; the process backend also splits PPO's gradient)")


if __name__ == "__main__":
    sys.exit(main())
