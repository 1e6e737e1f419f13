"""The training state and one batch of it: :class:`Trainer` (the loop is :mod:`agents.train`).

A trainer holds what every algorithm shares: the network (the CPU actor and, on a GPU, the
learner), the optimiser, the random streams and the curriculum. At start-up it picks the run's
learner (:data:`agents.learners.registry.LEARNERS`: the algorithm's update step and schedules) and
its collector (:meth:`Trainer.make_collector`: the compiled vector env, the Python engine or rollout
workers, each a :class:`agents.collect.base.Collector`).
:meth:`Trainer.train_batch` draws a batch's deals and seats, has the collector play them and the
learner learn from them. It also evaluates, and gives and takes its whole state for the
checkpoints. :func:`process_layout` and :func:`idle_cores` decide processes and threads.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import random
import time
from copy import deepcopy
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import torch

from big2_env.engine.rules import Rules

from .checkpoint import CHECKPOINT_KIND, FORMAT_VERSION, atomic_save, check_config, policy_info, weights_payload
from .collect.base import Batch, Collector, EngineCollector
from .collect.parallel import PoolCollector, RolloutPool
from .collect.rollout import Rollout
from .collect.vector import VectorCollector
from .config import (
    EVAL_CLASSES, NetworkConfig, TrainArgs, check_device, check_eval_opponent, duel_deals, eval_opponent_name,
)
from .curriculum import make_curriculum
from .learners.ppo import PPOLearner, make_optimizer
from .learners.processes import TrainHelpers
from .learners.registry import LEARNERS
from .network import Big2Net, count_parameters
from .policy import NetworkPolicy

CHECKPOINT_NAME = "checkpoint.pt"
MODEL_NAME = "model.pt"
MODELS_DIR = "models"  # OUT/models/model_BATCH.pt: the snapshots --keep-models-every keeps
LEARNER_STATE = ("target_state",)
"""The learners' parts of a checkpoint (``None`` where the run's learner has none)."""


def free_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def busy_cores(window: float = 0.25) -> float:
    """How many cores other programs keep busy now: the machine's busy share over ``window``
    seconds (from ``/proc/stat``) times its cores; where there is no ``/proc/stat``, the one-minute
    load average (which lags a minute behind)."""
    def sample() -> tuple[int, int]:
        with open("/proc/stat") as handle:
            values = [int(v) for v in handle.readline().split()[1:]]
        idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle + iowait
        return idle, sum(values[:8])

    try:
        idle0, total0 = sample()
        time.sleep(window)
        idle1, total1 = sample()
        share = 1.0 - (idle1 - idle0) / max(1, total1 - total0)
        return max(0.0, share) * (os.cpu_count() or 1)
    except (OSError, ValueError, IndexError):
        try:
            return float(os.getloadavg()[0])
        except (AttributeError, OSError):  # no load average on this platform
            return 0.0


def idle_cores() -> int:
    """The cores this process may use less those other programs keep busy (:func:`busy_cores`,
    rounded), at least 1: what ``--threads 0`` (the default) takes, so that a run started beside
    other work does not oversubscribe the machine."""
    cores = free_cores()
    return max(1, min(cores, cores - int(round(busy_cores()))))


def process_layout(workers: int, threads: int) -> tuple[int, int]:
    """``(processes, torch threads per process)`` for ``--workers`` and ``--threads``: at
    most one process per free core, and the free cores shared out so that the processes
    together never run more threads than there are cores. ``threads`` 0 shares out the
    :func:`idle_cores` instead.

    >>> process_layout(1, 1)
    (1, 1)
    """
    cores = free_cores()
    processes = max(1, min(workers, cores))
    if threads <= 0:
        threads = max(1, idle_cores() // processes)
    return processes, max(1, min(threads, cores // processes))


# ----------------------------------------------------------------------------- state


class Trainer:
    """The training state and loop (see the module docstring); :func:`train` drives it.

    :attr:`learner` is the algorithm's (:data:`agents.learners.registry.LEARNERS`), :attr:`collector`
    the one that plays the batches (:meth:`make_collector`), both chosen here once.
    ``single_process`` collects in this process whatever ``workers`` says (a value learner's run
    saved before they shared self-play games with helpers).
    """

    def __init__(self, args: TrainArgs, cores: int | None = None, single_process: bool = False) -> None:
        args = args.validate().resolved()  # the defaults of the algorithm, preset and env made concrete
        self.args = args
        # the cores to share out: --threads, or (0) the idle cores, read once here unless the caller read them
        if cores is None:
            cores = args.threads if args.threads > 0 else idle_cores()
        self.rules = Rules.preset(args.rules)
        self.config = args.network_config()
        root = np.random.SeedSequence(args.seed)
        init_seq, game_seq, seat_seq, action_seq, shuffle_seq = root.spawn(5)
        random.seed(args.seed)
        np.random.seed(args.seed % 2**32)
        torch.manual_seed(int(init_seq.generate_state(1, np.uint64)[0] % 2**63))
        self.game_rng = np.random.default_rng(game_seq)
        self.action_rng = np.random.default_rng(action_seq)
        self.shuffle_rng = np.random.default_rng(shuffle_seq)
        self.device = resolve_device(args.device)
        self.actor = Big2Net(self.config)  # acts in the rollouts, the helpers and evaluation: always on the CPU
        if args.init:
            self.actor.load_state_dict(initial_weights(args.init, self.config))
        self.model = self.actor if self.device.type == "cpu" else deepcopy(self.actor).to(self.device)  # the learner
        self.optimizer = make_optimizer(self.model, args.algo_default("lr"))
        self.learner = LEARNERS[args.algo](self.model, self.optimizer, args, self.shuffle_rng)
        self.curriculum = make_curriculum(
            args.curriculum,
            seat_seq,
            rules=self.rules,
            snapshot_every=args.snapshot_every,
            pool_size=args.pool_size,
            current_prob=args.snapshot_current_prob,
            self_prob=args.mixed_self_prob,
        )
        if args.env == "vector":  # one process: the compiled env plays every game, the network batched over them
            self.processes, self.process_threads = process_layout(1, cores)
        elif args.backend == "ray":  # actors run on the cluster's CPUs, one thread each: no cap from this machine
            self.processes, self.process_threads = args.workers, 1
        else:
            self.processes, self.process_threads = process_layout(args.workers, cores)
            if multiprocessing.current_process().daemon:  # e.g. a multiprocessing.Pool worker: it may not start helpers
                self.processes = 1
        if single_process:
            self.processes = 1
        # while local workers wait for the next batch (they do unless they share PPO's gradient), the
        # learner's update may use every core this process may use, up to --threads
        self.update_threads = process_layout(1, cores)[1]
        self._vector_env: Any = None  # --env vector: the compiled vector env, made at the first batch
        self.collector = self.make_collector()
        self.last_rollout: Rollout | None = None
        self.batch = 0
        self.games = 0
        self.decisions = 0
        self.elapsed_s = 0.0
        self.lr = self.learner.lr_at(0)
        self.epsilon = self.learner.epsilon_at(0)

    def make_collector(self) -> Collector:
        """The collector of this run's batches: the compiled vector env (``--env vector``), rollout workers
        sharing the engine's games (more than one process), or
        the engine in this process."""
        args = self.args
        skip_forced = not args.train_forced
        if args.env == "vector":
            return VectorCollector(self.vector_env, skip_forced, args.steps_per_batch, args.random_opponent_prob)
        if self.processes > 1:
            return PoolCollector(self.start_workers, self.rules, skip_forced)
        return EngineCollector(self.rules, skip_forced)

    @property
    def rollout_split(self) -> str:
        """Which games the rollout workers share: ``"all"``, or ``"self"`` in runs saved before they
        shared every curriculum's (see :class:`agents.collect.parallel.PoolCollector`)."""
        return self.collector.split if isinstance(self.collector, PoolCollector) else "all"

    @rollout_split.setter
    def rollout_split(self, split: str) -> None:
        if isinstance(self.collector, PoolCollector):
            self.collector.split = split

    @property
    def process_count(self) -> int:
        """Processes that share each batch's work: ``workers``, laid out on this machine's free
        cores for the process backend (see :func:`process_layout`)."""
        return self.processes

    # ------------------------------------------------------------ one batch
    def train_batch(self) -> dict[str, float]:
        """Collect one batch of games and run the update; returns the batch's statistics."""
        args = self.args
        self.lr = self.learner.lr_at(self.batch)
        self.epsilon = self.learner.epsilon_at(self.batch)
        self.learner.set_lr(self.lr)
        start = time.perf_counter()
        seeds = self.game_rng.integers(0, 2**63, size=args.games_in_batch())
        plans = self.curriculum.plan(args.games_in_batch())
        models = self.curriculum.models(self.actor)
        rollout = self.collector.collect(Batch(seeds, plans, models, self.actor, self.action_rng, self.epsilon))
        timing = self.collector.timing()
        collected = time.perf_counter()
        self.last_rollout = rollout  # what this batch played (benchmarks read it)
        gradients = self.gradient_helpers()
        if isinstance(self.learner, PPOLearner):
            self.learner.gradients = gradients
        rollout_threads = torch.get_num_threads()
        if gradients is None and self.process_count > 1 and self.args.ray_address is None:
            torch.set_num_threads(self.update_threads)  # the local workers are idle: the learner takes their cores
        try:
            stats = self.learner.update(rollout, self.batch, self.decisions)
        finally:
            torch.set_num_threads(rollout_threads)
        done = time.perf_counter()
        _check_finite(self.model, stats, self.batch + 1, self.lr)
        self.sync_actor()
        self.batch += 1
        self.learner.after_batch(self.batch)
        self.curriculum.after_batch(self.batch, self.actor)
        ended = rollout.ended if rollout.ended is not None else np.ones(len(rollout.turns), dtype=bool)
        self.games += int(ended.sum()) if rollout.ended is not None else args.games_in_batch()
        self.decisions += rollout.decisions
        self.elapsed_s += done - start
        stats.update(
            lr=self.lr,
            batch_decisions=rollout.decisions,
            trained_decisions=len(rollout) - (0 if rollout.cut is None else int(rollout.cut.sum())),
            mean_game_turns=float(rollout.turns[ended].mean()) if ended.any() else float("nan"),
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

    def gradient_helpers(self) -> TrainHelpers | None:
        """The helper processes that share PPO's gradients: the collector's, when it collects with
        helper processes (not Ray actors) and the learner is the CPU actor itself; else ``None``."""
        pool = self.collector.pool if isinstance(self.collector, PoolCollector) else None
        if isinstance(pool, TrainHelpers) and isinstance(self.learner, PPOLearner) and self.model is self.actor:
            return pool
        return None

    def start_workers(self) -> RolloutPool:
        """The rollout workers of :class:`~agents.collect.parallel.PoolCollector`: helper processes
        (:mod:`agents.learners.processes`, which also share PPO's gradients) or Ray actors
        (:mod:`agents.collect.ray_workers`, ``backend="ray"``), ``processes - 1`` of them."""
        if self.args.backend == "ray":
            from .collect.ray_workers import RayWorkers

            return RayWorkers(self.actor, self.processes - 1, self.process_threads, self.args.ray_address)
        return TrainHelpers(self.actor, self.processes - 1, threads=self.process_threads)

    def vector_env(self) -> Any:
        """The compiled vector env of ``--env vector`` (``games_per_batch`` games, one thread per free core)."""
        if self._vector_env is None:
            from big2_env.envs.vector import Big2VectorEnv
            from big2_env.evaluation.workers import set_numba_threads

            # the compiled env's threads match torch's: two OpenMP pools spinning on the same cores make
            # collection several times slower under load (docs/performance.md, "Threads").
            # numba's first set_num_threads resets the OpenMP runtime both share, and set_numba_threads puts
            # torch's count back: without that, torch runs on every core whatever --threads says, and runs
            # side by side at --threads 1 slow each other down
            set_numba_threads(self.process_threads)
            view = "charlesworth" if self.config.observation == "charlesworth" else "paper"
            self._vector_env = Big2VectorEnv(self.args.games_in_batch(), rules=self.rules, observation=view)
        return self._vector_env

    def close(self) -> None:
        """Stop the collector's processes, if any (the trainer stays usable: they restart on demand)."""
        self.collector.close()

    # ------------------------------------------------------------ evaluation
    def evaluate(self, opponents: list[str], n_games: int, seed: int, deterministic: bool) -> dict[str, Any]:
        from big2_env.evaluation.versus import evaluate

        greedy = deterministic or not self.learner.samples  # the value learners play their argmax, as from a file
        policy = NetworkPolicy(self.actor, deterministic=greedy, rules=self.rules, name=self.args.algo)
        results = {}
        for opponent in opponents:
            if opponent in EVAL_CLASSES:
                results[opponent] = evaluate(policy, opponent, n_games=n_games, seed=seed, rules=self.rules)
            elif str(opponent).startswith("charlesworth:"):  # the duel, each deal played in all four seats
                results[eval_opponent_name(opponent)] = evaluate(
                    policy, opponent, n_games=duel_deals(n_games), seed=seed, rules=self.rules, duplicate=True
                )
            else:
                check_eval_opponent(opponent, self.args.rules)  # raises: no other opponent is played
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
            **{key: None for key in LEARNER_STATE},
            **self.learner.state_dict(),
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
        self.learner.load_state_dict(state)

    def save(self, out: Path, state: Mapping[str, Any] | None = None) -> None:
        """Write ``model.pt`` and then ``checkpoint.pt`` (each atomically) from ``state``
        (default: the current :meth:`state_dict`). In that order, a crash between the two
        leaves a model at least as new as the checkpoint, and a resume rewrites both."""
        state = self.state_dict() if state is None else state
        save_model_file(out, state)
        atomic_save(state, out / CHECKPOINT_NAME)


def initial_weights(path: str, config: NetworkConfig) -> dict[str, torch.Tensor]:
    """The weights of the model file or run folder ``path`` (``--init``), which must have been
    made with ``config`` (``CheckpointError`` naming the differences otherwise); the packaged
    networks' specs (``pretrained``, ``pretrained-default-recipe``...: :data:`agents.shipped.SHIPPED`)
    name their files."""
    from .checkpoint import CheckpointError, load_model
    from .pretrained import shipped_path
    from .shipped import SHIPPED

    folder = shipped_path(path) if path in SHIPPED and not Path(path).exists() else Path(path)
    file = folder / MODEL_NAME if folder.is_dir() else folder
    model, data = load_model(file)
    try:
        check_config(data, config, file)
    except CheckpointError as err:
        if path not in SHIPPED:
            raise
        designs = ", ".join(f"{spec}: {SHIPPED[spec].design}" for spec in SHIPPED)
        raise CheckpointError(f"--init {path}: {err} (the shipped networks' designs: {designs}; "
                              "--preset charlesworth trains his)") from None
    return model.state_dict()


def resolve_device(device: str) -> torch.device:
    """The learner's device: ``auto`` is ``cuda`` when torch sees a GPU, else ``cpu``; ``cuda``
    without one is a ``ValueError`` saying so."""
    if check_device(device) == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} asked for, but torch sees no CUDA GPU (torch {torch.__version__}); use cpu or auto")
    return torch.device(device)


def save_model_file(out: Path, state: Mapping[str, Any], name: str = MODEL_NAME) -> None:
    """``OUT/model.pt`` (or ``OUT/name``: config, weights and a summary) from a training checkpoint's dict."""
    atomic_save(weights_payload(state["model_config"], state["model_state"], policy_info(state)), out / name)


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
