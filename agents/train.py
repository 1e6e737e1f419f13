"""Self-play training (PPO or a value learner), CleanRL style: one dataclass of arguments, one loop you can read.

Run it as ``big2 train`` (see ``big2 train --help``) or from Python::

    from agents.train import TrainArgs, train
    train(TrainArgs(algo="ppo", curriculum="self", entropy=0.05, batches=5000, out="runs/ppo"))
    train(TrainArgs(algo="mcq", curriculum="self", batches=5000, out="runs/mcq"))

Each batch: the curriculum seats ``games_per_batch`` fresh deals
(:mod:`agents.curriculum`), :func:`agents.rollout.collect` plays them with one
batched forward pass per step (PPO samples from its policy, the value learners
play epsilon-greedy), then :func:`agents.learners.ppo.ppo_update` runs the PPO epochs or
:func:`agents.learners.value.value_update` takes the value learner's one step (``mcq``,
``sarsa``, ``qlearning``; the last two also keep a target network, copied every
``target_sync`` batches). PPO's learning rate follows warm-up and cosine decay;
the value learners' is constant and their epsilon decays linearly (the paper's
settings). Evaluation samples PPO's policy and plays the value learners greedily.

What a run writes in ``out``:

* ``checkpoint.pt``: the full training state (model, optimiser, schedule position,
  random states of Python / numpy / torch, the game-seed, seat, action and
  minibatch streams, batch counter, curriculum incl. its snapshot pool, the
  target network of SARSA and Q-learning, the number of processes), written
  atomically every ``checkpoint_every`` batches, whenever ``checkpoint_minutes``
  have passed since the last one, at the end, and when the run is interrupted
  (Ctrl-C or ``SIGTERM``: the state of the last finished batch). So a run killed
  even by ``SIGKILL`` loses at most a couple of minutes. ``resume=True``
  continues from it exactly: a run interrupted and resumed ends with the same
  parameters, bit for bit, as one that ran straight through (same machine,
  thread count and number of processes; resuming with another number of
  processes is refused). Resuming a finished run trains nothing (extend it with a
  larger ``batches``). Stale temporary files of an interrupted write are removed
  when a run starts or resumes. A loss or weight that becomes non-finite stops the
  run with :class:`TrainingDiverged`, leaving the checkpoint on disk as it was;
* ``model.pt``: the policy alone (config + weights, under 1 MB; written just
  before each checkpoint), for
  ``big2 eval --agent``, ``big2 play --opponent`` and :mod:`agents.pretrained`;
* ``metrics.csv``: evaluations every ``eval_every`` batches (and at batch 0 and
  the end) against each of ``eval_opponents`` with
  :func:`big2_env.evaluation.evaluate` (``eval_games`` games, fixed seed
  ``eval_seed`` so every checkpoint meets the same deals);
* ``train_log.csv``: one row per batch (learning rate, PPO's losses, entropy, KL
  and clip fraction or the value learner's epsilon, loss, mean Q and target,
  decisions, rollout and update seconds, decisions/s);
* ``tb/``: the same as TensorBoard scalars (when the ``tensorboard`` package is
  installed);
* ``learning_curves.png``: win rate and mean score vs batches, one line per
  opponent (like the paper's Figure 2), written at the end (``big2 plot DIR``
  redraws it at any time);
* ``args.json``: the arguments of the run.
"""

from __future__ import annotations

import csv
import json
import math
import multiprocessing
import os
import random
import signal
import sys
import threading
import time
from collections import deque
from copy import deepcopy
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Collection, Mapping

import numpy as np
import torch

from big2_env.engine.game import Game
from big2_env.engine.rules import Rules

from .checkpoint import (
    CHECKPOINT_KIND,
    FORMAT_VERSION,
    CheckpointError,
    atomic_save,
    check_config,
    read_file,
    remove_stale_temporaries,
    weights_payload,
)
from .config import ALGO_DEFAULTS, DISTILLING, RESUME_MUTABLE, VALUE_ALGOS, TrainArgs, args_from_mapping, check_device
from .curriculum import make_curriculum
from .vector_rollout import collect_vector
from .learners.distill import TeacherPool, distill_update, network_payload
from .config import NetworkConfig
from .network import Big2Net, count_parameters
from .parallel import RolloutPool, TrainHelpers, parallel_plans
from .policy import NetworkPolicy
from .learners.ppo import entropy_at, lr_at, make_optimizer, ppo_update
from .rollout import Rollout, collect, concat_rollouts
from .learners.value import epsilon_at, value_update

CHECKPOINT_NAME = "checkpoint.pt"
MODEL_NAME = "model.pt"
METRICS_NAME = "metrics.csv"
TRAIN_LOG_NAME = "train_log.csv"
PLOT_NAME = "learning_curves.png"

METRICS_FIELDS = (
    "batch",
    "games",
    "decisions",
    "elapsed_s",
    "opponent",
    "eval_games",
    "win_rate",
    "win_rate_lo",
    "win_rate_hi",
    "mean_score",
    "mean_score_lo",
    "mean_score_hi",
)
TRAIN_LOG_FIELDS = (
    "batch",
    "games",
    "decisions",
    "elapsed_s",
    "lr",
    "policy_loss",
    "value_loss",
    "entropy",
    "entropy_coef",
    "approx_kl",
    "clip_fraction",
    "grad_norm",
    "explained_variance",
    "epsilon",
    "q_loss",
    "mean_q",
    "mean_target",
    "win_loss",
    "cross_entropy",
    "accuracy",
    "batch_decisions",
    "trained_decisions",
    "mean_game_turns",
    "rollout_s",
    "update_s",
    "decisions_per_s",
    "wait_s",
    "wait_share",
    "worker_decisions_per_s",
    "learner_decisions_per_s",
)


def free_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def process_layout(workers: int, threads: int) -> tuple[int, int]:
    """``(processes, torch threads per process)`` for ``--workers`` and ``--threads``: at
    most one process per free core, and the free cores shared out so that the processes
    together never run more threads than there are cores.

    >>> process_layout(1, 1)
    (1, 1)
    """
    cores = free_cores()
    processes = max(1, min(workers, cores))
    return processes, max(1, min(threads, cores // processes))


# ----------------------------------------------------------------------------- state
class Trainer:
    """The training state and loop (see the module docstring); :func:`train` drives it.

    ``ppo`` (PPO's settings) or ``value`` (a value learner's) is set, the other ``None``;
    ``target`` is the delayed network of SARSA and Q-learning (``None`` otherwise).
    """

    def __init__(self, args: TrainArgs) -> None:
        self.args = args.validate()
        self.rules = Rules.preset(args.rules)
        self.ppo = args.ppo_config() if args.algo == "ppo" else None
        self.distill = args.distill_config() if args.algo in DISTILLING else None
        self.value = args.value_config() if args.algo in VALUE_ALGOS else None
        self.config = args.network_config()
        root = np.random.SeedSequence(args.seed)
        init_seq, game_seq, seat_seq, action_seq, shuffle_seq = root.spawn(5)
        random.seed(args.seed)
        np.random.seed(args.seed % 2**32)
        torch.manual_seed(int(init_seq.generate_state(1, np.uint64)[0] % 2**63))
        self.device = resolve_device(args.device)
        self.actor = Big2Net(self.config)  # acts in the rollouts, the helpers and evaluation: always on the CPU
        if args.init:
            self.actor.load_state_dict(initial_weights(args.init, self.config))
        self.model = self.actor if self.device.type == "cpu" else deepcopy(self.actor).to(self.device)  # the learner
        self.target = deepcopy(self.model).eval() if self.value is not None and self.value.uses_target else None
        self.optimizer = make_optimizer(self.model, args.lr)
        self.game_rng = np.random.default_rng(game_seq)
        self.action_rng = np.random.default_rng(action_seq)
        self.shuffle_rng = np.random.default_rng(shuffle_seq)
        if self.distill is not None:  # fail now, not in a worker at the first batch
            from big2_env.evaluation.loading import load_agent

            teacher = load_agent(args.teacher, self.rules, what="--teacher")
            from big2_env.players.search import SearchPolicy

            if not isinstance(teacher, SearchPolicy):
                if args.algo == "exit":
                    raise ValueError(
                        f"--algo exit needs a search --teacher (search, search:N or search:0.1s) to give the network to as "
                        f"its prior; got {args.teacher!r}"
                    )
                if args.soft_targets > 0:
                    raise ValueError(
                        f"--soft-targets learns a search teacher's candidate means; --teacher {args.teacher!r} is not a search"
                    )
        self._replay: deque[Rollout] = deque(maxlen=args.replay)  # distill's recent batches (not checkpointed)
        self.curriculum = make_curriculum(
            args.curriculum,
            seat_seq,
            rules=self.rules,
            snapshot_every=args.snapshot_every,
            pool_size=args.pool_size,
            current_prob=args.snapshot_current_prob,
            self_prob=args.mixed_self_prob,
        )
        if args.backend == "ray":  # actors run on the cluster's CPUs, one thread each: no cap from this machine
            self.processes, self.process_threads = args.workers, 1
        else:
            self.processes, self.process_threads = process_layout(args.workers, args.threads)
            if multiprocessing.current_process().daemon:  # e.g. a multiprocessing.Pool worker: it may not start helpers
                self.processes = 1
        # while local workers wait for the next batch (they do unless they share PPO's gradient), the
        # learner's update may use every core this process may use, up to --threads
        self.update_threads = process_layout(1, args.threads)[1]
        # "all": workers play every curriculum's games; "self": only all-current-policy games, as runs
        # saved before that did (kept so that they resume exactly)
        self.rollout_split = "all"
        self._helpers: RolloutPool | None = None
        self._teachers: TeacherPool | None = None
        self._vector_env: Any = None  # --env vector: the compiled vector env, made at the first batch
        self.batch = 0
        self.games = 0
        self.decisions = 0
        self.elapsed_s = 0.0
        self.lr = self.lr_at(0)
        self.epsilon = self.epsilon_at(0)

    def entropy_at(self, batch: int) -> float:
        """PPO's entropy coefficient at ``batch``: ``entropy``, then (``entropy_anneal`` > 0) linear
        to 0 over that last fraction of the planned batches."""
        return entropy_at(batch, self.args.batches, self.args.entropy, self.args.entropy_anneal)

    def lr_at(self, batch: int) -> float:
        """PPO: warm-up and cosine decay (:func:`agents.learners.ppo.lr_at`); value learners: constant."""
        schedule = self.ppo or self.distill
        if schedule is None:
            return self.args.lr
        return lr_at(batch, self.args.batches, schedule.lr, schedule.warmup_fraction, schedule.min_lr_fraction)

    @property
    def process_count(self) -> int:
        """Processes that share each batch's work: ``workers``, laid out on this machine's free
        cores for the process backend (see :func:`process_layout`)."""
        return self.processes

    def epsilon_at(self, batch: int) -> float | None:
        """The value learners' exploration rate at ``batch`` (``None`` for PPO, which samples its policy)."""
        if self.value is None:
            return None
        return epsilon_at(batch, self.args.batches, self.value.epsilon_start, self.value.epsilon_end)

    # ------------------------------------------------------------ one batch
    def train_batch(self) -> dict[str, float]:
        """Collect one batch of games and run the update; returns the batch's statistics."""
        args = self.args
        self.lr = self.lr_at(self.batch)
        self.epsilon = self.epsilon_at(self.batch)
        for group in self.optimizer.param_groups:
            group["lr"] = self.lr
        start = time.perf_counter()
        timing: dict[str, float] = {}
        seeds = self.game_rng.integers(0, 2**63, size=args.games_per_batch)
        plans = self.curriculum.plan(args.games_per_batch)
        helpers = self.helpers()
        skip_forced = not args.train_forced
        models = self.curriculum.models(self.actor)
        if args.env == "vector":
            rollout = collect_vector(self.vector_env(), self.actor, self.action_rng, int(seeds[0]),
                                     skip_forced=skip_forced, epsilon=self.epsilon)
        elif self.distill is not None:
            prior = network_payload(self.actor) if self.args.algo == "exit" else None  # expert iteration
            rollout = self.teachers().collect(seeds.tolist(), prior)
            self._replay.append(rollout)
        elif helpers is not None and (self.rollout_split == "all" or parallel_plans(plans)):
            rollout = helpers.collect(self.rules, seeds, plans, models, self.action_rng, skip_forced, self.epsilon)
            timing = helpers.last
        else:
            games = [Game(self.rules, seed=int(s)) for s in seeds]
            rollout = collect(games, plans, models, self.action_rng, skip_forced=skip_forced, epsilon=self.epsilon)
        collected = time.perf_counter()
        # helper processes add CPU gradients to PPO's (not Ray actors, nor with the learner on a GPU)
        gradient_helpers = helpers if isinstance(helpers, TrainHelpers) and self.ppo and self.model is self.actor else None
        rollout_threads = torch.get_num_threads()
        if gradient_helpers is None and self.process_count > 1 and self.args.ray_address is None:
            torch.set_num_threads(self.update_threads)  # the local workers are idle: the learner takes their cores
        try:
            if self.ppo is not None:
                config = replace(self.ppo, entropy_coef=self.entropy_at(self.batch))
                stats = ppo_update(self.model, self.optimizer, rollout, config, self.shuffle_rng, gradient_helpers)
                stats["entropy_coef"] = config.entropy_coef
            elif self.distill is not None:
                learned = concat_rollouts(list(self._replay))  # this batch and the replay - 1 before it
                stats = distill_update(self.model, self.optimizer, learned, self.distill, self.shuffle_rng)
            else:
                assert self.value is not None and self.epsilon is not None
                stats = value_update(self.model, self.optimizer, rollout, self.value, self.target, self.shuffle_rng)
                stats["epsilon"] = self.epsilon
        finally:
            torch.set_num_threads(rollout_threads)
        done = time.perf_counter()
        _check_finite(self.model, stats, self.batch + 1, self.lr)
        self.sync_actor()
        self.batch += 1
        if self.target is not None and self.value is not None and self.batch % self.value.target_sync == 0:
            self.target.load_state_dict(self.model.state_dict())
        self.curriculum.after_batch(self.batch, self.actor)
        self.games += args.games_per_batch
        self.decisions += rollout.decisions
        self.elapsed_s += done - start
        stats.update(
            lr=self.lr,
            batch_decisions=rollout.decisions,
            trained_decisions=len(rollout),
            mean_game_turns=float(rollout.turns.mean()),
            rollout_s=collected - start,
            update_s=done - collected,
            decisions_per_s=rollout.decisions / max(done - start, 1e-9),
            learner_decisions_per_s=rollout.decisions / max(done - collected, 1e-9),  # moves of play learned per second
        )
        if timing:
            stats.update(
                wait_s=timing["wait_s"],
                wait_share=timing["wait_s"] / max(done - start, 1e-9),
                worker_decisions_per_s=timing["worker_decisions_per_s"],
            )
        return stats

    def helpers(self) -> RolloutPool | None:
        """The rollout workers (started on first use) when more than one process shares the batch
        (:attr:`process_count`), else ``None``: helper processes (:mod:`agents.parallel`, which also
        share PPO's gradients) or Ray actors (:mod:`agents.ray_workers`, ``backend="ray"``). They
        play their share of every batch's games."""
        if self.distill is not None or self.process_count <= 1 or self.args.env == "vector":
            return None
        if self._helpers is None:
            if self.args.backend == "ray":
                from .ray_workers import RayWorkers

                self._helpers = RayWorkers(self.actor, self.processes - 1, self.process_threads, self.args.ray_address)
            else:
                self._helpers = TrainHelpers(self.actor, self.processes - 1, threads=self.process_threads)
        return self._helpers

    def vector_env(self) -> Any:
        """The compiled vector env of ``--env vector`` (``games_per_batch`` games, one thread per free core)."""
        if self._vector_env is None:
            from big2_env.envs.vector import Big2VectorEnv

            self._vector_env = Big2VectorEnv(self.args.games_per_batch, rules=self.rules)
        return self._vector_env

    def teachers(self) -> TeacherPool:
        """distill's teacher games, spread over ``workers`` processes (started on first use)."""
        if self._teachers is None:
            assert self.distill is not None  # teachers play for distill and exit only
            extended = self.config.observation == "extended"
            self._teachers = TeacherPool(
                self.processes, self.rules, self.args.teacher, extended, self.args.backend, self.args.ray_address,
                self.args.leaf_value, 1.0 / self.distill.reward_scale,  # the value head learns score x reward_scale
            )
        return self._teachers

    def close(self) -> None:
        """Stop the helper processes, if any (the trainer stays usable: they restart on demand)."""
        if self._helpers is not None:
            self._helpers.close()
            self._helpers = None
        if self._teachers is not None:
            self._teachers.close()
            self._teachers = None

    # ------------------------------------------------------------ evaluation
    def evaluate(self, opponents: list[str], n_games: int, seed: int, deterministic: bool) -> dict[str, Any]:
        from big2_env.evaluation.arena import evaluate

        greedy = deterministic or self.ppo is None  # the value learners and distill play their argmax, as from a file
        policy = NetworkPolicy(self.actor, deterministic=greedy, rules=self.rules, name=self.args.algo)
        results = {}
        for opponent in opponents:
            results[opponent] = evaluate(policy, opponent, n_games=n_games, seed=seed, rules=self.rules)
        self.actor.train()
        return results

    # ------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict[str, Any]:
        np_state: Any = np.random.get_state()
        return {
            "kind": CHECKPOINT_KIND,
            "format_version": FORMAT_VERSION,
            "model_config": self.config.to_dict(),
            "model_state": {k: v.detach().clone() for k, v in self.actor.state_dict().items()},
            "optimizer_state": self.optimizer.state_dict(),
            "args": self.args.to_dict(),
            "batch": self.batch,
            "games": self.games,
            "decisions": self.decisions,
            "elapsed_s": self.elapsed_s,
            "lr": self.lr,
            "rng": {
                "python": random.getstate(),
                "numpy_global": [np_state[0], np_state[1].tolist(), int(np_state[2]), int(np_state[3]), float(np_state[4])],
                "torch": torch.get_rng_state(),
                "games": self.game_rng.bit_generator.state,
                "actions": self.action_rng.bit_generator.state,
                "shuffle": self.shuffle_rng.bit_generator.state,
            },
            "curriculum": self.curriculum.state_dict(),
            "target_state": (
                None if self.target is None else {k: v.detach().clone() for k, v in self.target.state_dict().items()}
            ),
            "processes": self.process_count,
            "rollout_split": self.rollout_split,
            "info": {"parameters": count_parameters(self.model), "torch": str(torch.__version__)},
        }

    def snapshot(self) -> dict[str, Any]:
        """:meth:`state_dict` with everything that later batches change in place copied (the
        optimiser's moment tensors), so that it can be saved after training has moved on."""
        state = self.state_dict()
        state["optimizer_state"] = deepcopy(state["optimizer_state"])
        return state

    def sync_actor(self) -> None:
        """Copy the learner's weights to the CPU actor (nothing to do when both are the CPU model)."""
        if self.actor is not self.model:
            with torch.no_grad():
                for mine, learned in zip(self.actor.parameters(), self.model.parameters()):
                    mine.copy_(learned)

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.model.load_state_dict(state["model_state"])
        self.sync_actor()
        self.optimizer.load_state_dict(state["optimizer_state"])
        self.batch = int(state["batch"])
        self.games = int(state["games"])
        self.decisions = int(state["decisions"])
        self.elapsed_s = float(state["elapsed_s"])
        self.lr = float(state["lr"])
        rng = state["rng"]
        random.setstate(rng["python"])
        kind, keys, pos, has_gauss, cached = rng["numpy_global"]
        np.random.set_state((kind, np.array(keys, dtype=np.uint32), pos, has_gauss, cached))
        torch.set_rng_state(rng["torch"])
        self.game_rng.bit_generator.state = rng["games"]
        self.action_rng.bit_generator.state = rng["actions"]
        self.shuffle_rng.bit_generator.state = rng["shuffle"]
        self.curriculum.load_state_dict(state["curriculum"])
        self.rollout_split = str(state.get("rollout_split", "self"))
        if self.target is not None:
            self.target.load_state_dict(state["target_state"])

    def save(self, out: Path, state: Mapping[str, Any] | None = None) -> None:
        """Write ``model.pt`` and then ``checkpoint.pt`` (each atomically) from ``state``
        (default: the current :meth:`state_dict`). In that order, a crash between the two
        leaves a model at least as new as the checkpoint, and a resume rewrites both."""
        state = self.state_dict() if state is None else state
        save_model_file(out, state)
        atomic_save(state, out / CHECKPOINT_NAME)


def initial_weights(path: str, config: NetworkConfig) -> dict[str, torch.Tensor]:
    """The weights of the model file or run folder ``path`` (``--init``), which must have been
    made with ``config`` (``CheckpointError`` naming the differences otherwise); ``pretrained``
    and ``pretrained-paper`` name the shipped networks."""
    from .checkpoint import load_model
    from .pretrained import PAPER_SETTINGS_PATH, pretrained_path

    shipped = {"pretrained": pretrained_path(), "pretrained-paper": PAPER_SETTINGS_PATH}
    folder = shipped[path] if path in shipped and not Path(path).exists() else Path(path)
    file = folder / MODEL_NAME if folder.is_dir() else folder
    model, data = load_model(file)
    check_config(data, config, file)
    return model.state_dict()


def resolve_device(device: str) -> torch.device:
    """The learner's device: ``auto`` is ``cuda`` when torch sees a GPU, else ``cpu``; ``cuda``
    without one is a ``ValueError`` saying so."""
    if check_device(device) == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} asked for, but torch sees no CUDA GPU (torch {torch.__version__}); use cpu or auto")
    return torch.device(device)


def save_model_file(out: Path, state: Mapping[str, Any]) -> None:
    """``OUT/model.pt`` (config, weights and a summary) from a training checkpoint's dict."""
    args = state["args"]
    info = {"algo": args["algo"], "batch": state["batch"], "games": state["games"], "curriculum": args["curriculum"],
            "entropy": args["entropy"], "seed": args["seed"], "rules": args["rules"]}
    atomic_save(weights_payload(state["model_config"], state["model_state"], info), out / MODEL_NAME)


class TrainingDiverged(ValueError):
    """A loss or parameter became non-finite: the batch is dropped and nothing is saved."""


def _check_finite(model: Big2Net, stats: Mapping[str, float], batch: int, lr: float) -> None:
    watched = ("policy_loss", "value_loss", "entropy", "q_loss", "grad_norm")
    bad = [k for k in watched if k in stats and not math.isfinite(stats[k])]
    with torch.no_grad():
        finite = all(bool(torch.isfinite(p).all()) for p in model.parameters())
    if bad or not finite:
        what = ", ".join(f"{k}={stats[k]}" for k in bad) + ("" if finite else (", " if bad else "") + "the network's weights")
        raise TrainingDiverged(
            f"training diverged in batch {batch}: {what} became non-finite (nan or inf). Nothing of this batch was "
            f"saved. Lower the learning rate (--lr, {lr:g} at this batch) or --max-grad-norm and start again"
        )


# ----------------------------------------------------------------------------- logging
class _CsvLog:
    """Append rows to a CSV file (header written once; rows past a resumed batch dropped)."""

    def __init__(self, path: Path, columns: tuple[str, ...], keep_until_batch: int | None) -> None:
        self.path, self.columns = path, columns
        if keep_until_batch is not None and path.is_file():
            with path.open(newline="") as handle:
                rows = [r for r in csv.DictReader(handle) if int(float(r["batch"])) <= keep_until_batch]
            self._rewrite(rows)
        elif keep_until_batch is None or not path.is_file():
            self._rewrite([])

    def _rewrite(self, rows: list[dict]) -> None:
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        with tmp.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, self.columns, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(rows)
        os.replace(tmp, self.path)

    def append(self, row: Mapping[str, Any]) -> None:
        with self.path.open("a", newline="") as handle:
            csv.DictWriter(handle, self.columns, extrasaction="ignore").writerow(
                {k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()}
            )


def _tensorboard(out: Path, enabled: bool, purge_step: int | None):
    if not enabled:
        return None
    try:
        from torch.utils.tensorboard import SummaryWriter
    except Exception:  # the tensorboard package is not installed
        return None
    return SummaryWriter(str(out / "tb"), purge_step=purge_step)


class _Progress:
    """tqdm bar over games (rate = games/s, with ETA), or a line every ~2% without tqdm."""

    def __init__(self, total: int, initial: int, enabled: bool) -> None:
        self.bar = None
        self.enabled = enabled
        self.total = total
        self.done = initial
        self.start = time.perf_counter()
        self.start_done = initial
        self.next_print = 0.0
        if enabled:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                pass
            else:
                self.bar = tqdm(total=total, initial=initial, unit="game", desc="train", dynamic_ncols=True, smoothing=0.05)

    def update(self, n: int, postfix: Mapping[str, Any]) -> None:
        self.done += n
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.set_postfix(postfix, refresh=False)
            self.bar.update(n)
            return
        now = time.perf_counter()
        if now >= self.next_print or self.done >= self.total:
            rate = (self.done - self.start_done) / max(now - self.start, 1e-9)
            eta = (self.total - self.done) / rate if rate > 0 else math.inf
            extra = " ".join(f"{k}={v}" for k, v in postfix.items())
            print(f"train: {self.done}/{self.total} games, {rate:.1f} games/s, ETA {eta / 60:.1f} min {extra}", file=sys.stderr)
            self.next_print = now + 30.0

    def phase(self, text: str) -> None:
        """Name what the run is doing now (``train``, ``eval vs smart (200 games)``) in the bar, or on a line."""
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.set_description_str(text)  # redraws at once: an evaluation no longer looks like a frozen bar
        elif text != "train":
            print(f"train: {text} ...", file=sys.stderr)

    def write(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text)
        else:
            print(text, file=sys.stderr)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# ----------------------------------------------------------------------------- the loop
@dataclass
class TrainResult:
    """What :func:`train` returns."""

    out: Path
    batch: int
    games: int
    decisions: int
    elapsed_s: float
    finished: bool
    last_eval: dict[str, Any]
    model: Big2Net
    wall_s: float = 0.0
    eval_s: float = 0.0
    already_finished: bool = False


def resolve_resume_args(saved: Mapping[str, Any], given: TrainArgs, explicit: Collection[str] | None) -> TrainArgs:
    """The arguments of a resumed run: the checkpoint's, with the ``explicit`` fields of
    ``given`` applied; refuses (``ValueError``) a change of a field that defines the experiment."""
    base = args_from_mapping({"workers": 1, **saved})  # runs from before `workers` existed trained in one process
    names = [f.name for f in fields(TrainArgs)] if explicit is None else list(explicit)
    changed = {}
    for name in names:
        new, old = getattr(given, name), getattr(base, name)
        if new == old:
            continue
        if name in ALGO_DEFAULTS["ppo"] and given.algo == base.algo and (
            new is None or given.algo_default(name) == base.algo_default(name)
        ):
            continue  # None is the algorithm's default: only the value in effect counts
        if name not in RESUME_MUTABLE:
            raise ValueError(
                f"cannot resume with {name}={new!r}: the run was started with {name}={old!r} "
                "(only the budget, logging, evaluation and thread settings may change on --resume)"
            )
        changed[name] = new
    values = base.to_dict()
    values.update(changed)
    values["stop_after"] = given.stop_after  # an interruption point belongs to one invocation, never inherited
    return TrainArgs(**values)


def train(args: TrainArgs, resume: bool = False, explicit: Collection[str] | None = None) -> TrainResult:
    """Run (or resume) a training run; see the module docstring for what it writes.

    Args:
        args: the run's arguments.
        resume: continue from ``args.out/checkpoint.pt`` (its arguments are used;
            the fields named in ``explicit``, or all of ``args`` when ``explicit`` is
            ``None``, must not change anything that defines the experiment).
        explicit: the argument names the user set (``big2 train`` passes those given
            on the command line or in ``--config``).

    Interruptions: Ctrl-C (``KeyboardInterrupt``) or ``SIGTERM`` saves the state of the
    last finished batch before the exception propagates; a checkpoint is also written every
    ``checkpoint_every`` batches and every ``checkpoint_minutes`` minutes, so even a
    ``SIGKILL`` loses at most that much work. Resuming a finished run writes a missing
    ``model.pt`` and returns at once (``already_finished``).

    Raises:
        CheckpointError: nothing to resume, a foreign or damaged checkpoint, another model
            config, or another number of processes than the run was trained with.
        ValueError: a bad argument; :class:`TrainingDiverged` when the loss or weights
            become non-finite (the checkpoint on disk is then left as it was).
    """
    wall_start = time.perf_counter()
    out = Path(args.out)
    checkpoint_path = out / CHECKPOINT_NAME
    state = None
    if resume:
        if not checkpoint_path.is_file():
            raise CheckpointError(
                f"nothing to resume: no {CHECKPOINT_NAME} in {str(out)!r} (a run writes its first one after "
                f"{args.checkpoint_every} batches or {args.checkpoint_minutes:g} minutes, and when interrupted)"
            )
        state = read_file(checkpoint_path, kinds=(CHECKPOINT_KIND,))
        args = resolve_resume_args(state["args"], args, explicit)
        args.out = str(out)
        check_config(state, args.network_config(), checkpoint_path)
    elif checkpoint_path.exists():
        raise CheckpointError(
            f"{str(out)!r} already holds a training run ({CHECKPOINT_NAME}); resume it with --resume, "
            "or choose another --out folder"
        )
    args.validate()
    out.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(out)
    if state is not None and state["batch"] >= args.batches:
        return _already_finished(args, out, state, wall_start)
    # the learner's threads: the free cores shared with the local workers (none on this machine with a Ray cluster)
    remote = args.backend == "ray" and args.ray_address is not None
    _, threads = process_layout(1 if remote else args.workers, args.threads)
    previous_threads = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        with _sigterm_as_interrupt():
            return _run(args, out, state, threads, wall_start)
    finally:
        torch.set_num_threads(previous_threads)


def _already_finished(args: TrainArgs, out: Path, state: Mapping[str, Any], wall_start: float) -> TrainResult:
    """Resuming a run that has done its batches: make sure ``model.pt`` exists, train nothing."""
    model_path = out / MODEL_NAME
    if not model_path.is_file():
        save_model_file(out, state)
    model = Big2Net(NetworkConfig.from_dict(state["model_config"]))
    try:
        model.load_state_dict(state["model_state"])
    except (RuntimeError, KeyError, TypeError) as err:
        raise CheckpointError(f"{str(out / CHECKPOINT_NAME)!r}: the weights do not fit its model config: {err}") from None
    return TrainResult(
        out, int(state["batch"]), int(state["games"]), int(state["decisions"]), float(state["elapsed_s"]), True, {},
        model.eval(), wall_s=time.perf_counter() - wall_start, already_finished=True,
    )


class _sigterm_as_interrupt:
    """Within the block, ``SIGTERM`` (a cluster's pre-emption, ``kill PID``) raises ``KeyboardInterrupt``
    like Ctrl-C, so that the trainer saves its last finished batch; only in the main thread."""

    def __enter__(self) -> None:
        self.previous = None
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGTERM, self._raise)

    @staticmethod
    def _raise(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    def __exit__(self, *exc: Any) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGTERM, self.previous)


def _run(args: TrainArgs, out: Path, state: Mapping[str, Any] | None, threads: int, wall_start: float) -> TrainResult:
    trainer = Trainer(args)
    if state is not None:
        saved = state.get("processes")  # absent in checkpoints written before it was recorded
        if saved == 1 and trainer.value is not None:
            # Value learners collected in one process before they shared self-play games with helpers:
            # such a run continues exactly in one process, whatever --workers says.
            trainer.processes = 1
        if saved is not None and saved != trainer.process_count:
            raise CheckpointError(
                f"this run trained with {saved} process(es) per batch and would resume with {trainer.process_count} "
                f"(--workers {args.workers} on {free_cores()} free core(s)): the processes share each batch's games and "
                f"gradients, so the run would not continue exactly. Resume with --workers {saved}"
                + ("" if args.backend == "ray" else f" on a machine with at least {saved} free cores")
            )
    try:
        return _loop(trainer, args, out, state, threads, wall_start)
    finally:
        trainer.close()


def _loop(
    trainer: Trainer, args: TrainArgs, out: Path, state: Mapping[str, Any] | None, threads: int, wall_start: float
) -> TrainResult:
    if state is not None:
        trainer.load_state_dict(state)
    start_batch = trainer.batch
    (out / "args.json").write_text(json.dumps(args.to_dict(), indent=2) + "\n")
    keep = start_batch if state is not None else None
    metrics = _CsvLog(out / METRICS_NAME, METRICS_FIELDS, keep)
    train_log = _CsvLog(out / TRAIN_LOG_NAME, TRAIN_LOG_FIELDS, keep)
    writer = _tensorboard(out, args.tensorboard, purge_step=start_batch if state is not None else None)
    stop = min(args.batches, args.stop_after) if args.stop_after else args.batches
    bar = _Progress(args.batches * args.games_per_batch, start_batch * args.games_per_batch, args.progress)
    if start_batch == 0:
        who = f"teacher {args.teacher} in all four seats" if trainer.distill else f"curriculum {trainer.curriculum.describe()}"
        bar.write(
            f"big2 train: {args.algo}, {who}; "
            f"{count_parameters(trainer.model):,} parameters; {trainer.process_count} process(es) x {threads} torch thread(s); "
            f"learner on {trainer.device}; out {out}"
        )
    last_eval: dict[str, Any] = {}
    eval_s = 0.0

    def run_eval() -> None:
        nonlocal last_eval, eval_s
        if not args.eval_opponents:
            return
        started = time.perf_counter()
        results = {}
        for opponent in args.eval_opponents:
            bar.phase(f"eval vs {opponent} ({args.eval_games} games)")
            results.update(trainer.evaluate([opponent], args.eval_games, args.eval_seed, args.eval_deterministic))
        bar.phase("train")
        eval_s += time.perf_counter() - started
        summary = []
        for opponent, r in results.items():
            metrics.append(
                {
                    "batch": trainer.batch,
                    "games": trainer.games,
                    "decisions": trainer.decisions,
                    "elapsed_s": trainer.elapsed_s,
                    "opponent": opponent,
                    "eval_games": r.n_games,
                    "win_rate": r.win_rate,
                    "win_rate_lo": r.win_rate_ci[0],
                    "win_rate_hi": r.win_rate_ci[1],
                    "mean_score": r.mean_score,
                    "mean_score_lo": r.mean_score_ci[0],
                    "mean_score_hi": r.mean_score_ci[1],
                }
            )
            if writer is not None:
                writer.add_scalar(f"eval/{opponent}/win_rate", r.win_rate, trainer.batch)
                writer.add_scalar(f"eval/{opponent}/mean_score", r.mean_score, trainer.batch)
            summary.append(f"{opponent} {r.win_rate:.1%} ({r.mean_score:+.2f})")
        last_eval = {k: {"win_rate": r.win_rate, "mean_score": r.mean_score} for k, r in results.items()}
        bar.write(f"batch {trainer.batch}: " + ", ".join(summary))

    saved_batch = start_batch
    last_save = time.monotonic()
    unsaved: dict[str, Any] | None = None  # the state after the last finished batch, until it is on disk
    try:
        if start_batch == 0:
            run_eval()
        while trainer.batch < stop:
            try:
                stats = trainer.train_batch()
            except TrainingDiverged as err:
                raise TrainingDiverged(
                    f"{err}; the checkpoint in {str(out)!r} is untouched"
                    + (f" (batch {saved_batch}: --resume continues from there)" if saved_batch else "")
                ) from None
            unsaved = trainer.snapshot()  # evaluation never changes the trainer's state: this is what a save writes
            row = {
                "batch": trainer.batch,
                "games": trainer.games,
                "decisions": trainer.decisions,
                "elapsed_s": trainer.elapsed_s,
                **stats,
            }
            train_log.append(row)
            if writer is not None:
                for key in TRAIN_LOG_FIELDS[4:]:
                    if key in stats:
                        writer.add_scalar(f"train/{key}", stats[key], trainer.batch)
            if trainer.ppo:
                shown = {"ent": f"{stats.get('entropy', float('nan')):.3f}"}
            elif trainer.distill:
                shown = {"acc": f"{stats.get('accuracy', float('nan')):.3f}"}
            else:
                shown = {"eps": f"{trainer.epsilon:.3f}"}
            if "wait_share" in stats:  # the share of the batch spent waiting on workers
                shown["wait"] = f"{stats['wait_share']:.0%}"
            bar.update(args.games_per_batch, {"dec/s": f"{stats['decisions_per_s']:.0f}"} | shown)
            final = trainer.batch == stop
            if (args.eval_every and trainer.batch % args.eval_every == 0) or (trainer.batch == args.batches):
                run_eval()
            by_time = args.checkpoint_minutes > 0 and time.monotonic() - last_save >= 60.0 * args.checkpoint_minutes
            if (args.checkpoint_every and trainer.batch % args.checkpoint_every == 0) or final or by_time:
                trainer.save(out, unsaved)
                saved_batch, last_save, unsaved = trainer.batch, time.monotonic(), None
    except KeyboardInterrupt:
        if unsaved is not None:
            trainer.save(out, unsaved)
            saved_batch = int(unsaved["batch"])
        bar.write(
            f"interrupted during batch {trainer.batch + 1}; "
            + (f"the checkpoint in {out} is at batch {saved_batch}: continue with --resume" if saved_batch
               else "no batch had finished, so nothing was saved")
        )
        raise
    finally:
        bar.close()
        if writer is not None:
            writer.close()
    finished = trainer.batch >= args.batches
    if finished and last_eval:
        try:
            from .plot import plot_run

            plot_run(out)
        except ImportError:  # no matplotlib: `big2 plot DIR` says how to get it
            pass
    return TrainResult(
        out, trainer.batch, trainer.games, trainer.decisions, trainer.elapsed_s, finished, last_eval, trainer.model,
        wall_s=time.perf_counter() - wall_start, eval_s=eval_s,
    )
