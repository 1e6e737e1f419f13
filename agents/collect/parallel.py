"""Rollout workers: the games of one batch played in parts, by the trainer and by other processes.

:class:`RolloutWorker` plays a part of a batch's games (a :class:`CollectRequest`: deal seeds, seat
plans, an action seed) with the current policy, the snapshot networks its games need (each
snapshot's weights travel once, then stay cached until the pool drops it) and copies of the
heuristic opponents. :class:`RolloutPool` splits a batch's games into ``n + 1`` parts: the trainer
plays the first with its action RNG while each worker plays another with its own RNG (seeded from
the trainer's, so a run stays reproducible); the parts are concatenated
(:func:`agents.collect.rollout.concat_rollouts`). Where the workers run is the pool's subclass:
helper processes on this machine (:class:`agents.learners.processes.TrainHelpers`, which also share
PPO's gradients) or Ray actors (:mod:`agents.collect.ray_workers`). This module only collects.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Mapping, Sequence

import numpy as np
import torch

from big2_env.engine.game import Game
from big2_env.engine.rules import Rules

from ..curriculum import CURRENT
from ..network import Big2Net
from .base import Batch, Collector, EngineCollector
from .rollout import ModelSeat, PolicySeat, Rollout, SeatPlan, collect, concat_rollouts

__all__ = ["CollectRequest", "MissingSnapshots", "PoolCollector", "RolloutPool", "RolloutWorker", "numpy_weights",
           "parallel_plans", "snapshot_keys"]


def parallel_plans(plans: Sequence[SeatPlan]) -> bool:
    """Whether every seat of these games is the current policy (``ModelSeat("current")``): the
    games that runs saved before workers played every curriculum shared with their helpers."""
    return all(isinstance(seat, ModelSeat) and seat.key == CURRENT for plan in plans for seat in plan)


def snapshot_keys(plans: Sequence[SeatPlan]) -> set[Hashable]:
    """The networks other than the current policy that these games need (snapshot keys)."""
    return {seat.key for plan in plans for seat in plan if isinstance(seat, ModelSeat) and seat.key != CURRENT}


def numpy_weights(model: Big2Net) -> dict[str, np.ndarray]:
    """``model``'s state as numpy arrays (plain pickles: nothing rides on torch's shared-memory reductions)."""
    return {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}


class MissingSnapshots(RuntimeError):
    """A worker was asked to play snapshots it does not hold (e.g. a Ray actor restarted while idle)."""


@dataclass
class CollectRequest:
    """One worker's share of a batch: the games dealt from ``seeds`` with their seat ``plans``,
    the network actions drawn from ``default_rng(action_seed)``, plus the snapshot networks
    the worker does not hold yet (``snapshots``: key -> weights) and those it may forget (``drop``)."""

    rules: Rules
    seeds: list[int]
    plans: list
    action_seed: int
    skip_forced: bool
    epsilon: float | None
    snapshots: dict = field(default_factory=dict)
    drop: tuple = ()


class RolloutWorker:
    """Plays :class:`CollectRequest` s: the current policy ``model`` (shared memory in a helper
    process, a copy updated by :meth:`set_weights` in a Ray actor) and cached snapshots.

    Heuristic seats arrive as copies of the trainer's policy objects; every distinct one is
    reseeded from the request's ``action_seed`` (a random policy would otherwise replay the
    trainer's own stream), so a part's games depend only on the request.
    """

    def __init__(self, model: Big2Net) -> None:
        self.model = model
        self.snapshots: dict[Hashable, Big2Net] = {}

    def set_weights(self, weights: Mapping[str, np.ndarray]) -> None:
        """Load the current policy's weights (from :func:`numpy_weights`)."""
        self.model.load_state_dict({k: torch.tensor(v) for k, v in weights.items()})  # Ray's arrays are read-only

    def collect(self, request: CollectRequest) -> tuple[Rollout, float]:
        """``(rollout, seconds)``: the request's games played to the end (seat plans left out: the trainer has them)."""
        for key in request.drop:
            self.snapshots.pop(key, None)
        for key, weights in request.snapshots.items():
            net = Big2Net(self.model.config)
            net.load_state_dict({k: torch.tensor(v) for k, v in weights.items()})
            self.snapshots[key] = net.eval()
        policies: dict[int, Any] = {}
        for plan in request.plans:
            for seat in plan:
                if isinstance(seat, PolicySeat) and id(seat.policy) not in policies:
                    policies[id(seat.policy)] = seat.policy
        for i, policy in enumerate(policies.values()):
            policy.seed(int(np.random.SeedSequence([request.action_seed, i]).generate_state(1, np.uint64)[0] % 2**63))
        missing = snapshot_keys(request.plans) - set(self.snapshots)
        if missing:
            raise MissingSnapshots(f"a rollout worker was asked to play snapshots it does not hold: {sorted(map(str, missing))}")
        start = time.perf_counter()
        games = [Game(request.rules, seed=int(seed)) for seed in request.seeds]
        models = {CURRENT: self.model, **self.snapshots}
        rollout = collect(games, request.plans, models, np.random.default_rng(request.action_seed), request.skip_forced,
                          request.epsilon)
        rollout.seat_plans = []
        return rollout, time.perf_counter() - start


class RolloutPool:
    """What the process helpers and the Ray actors share: how a batch is cut into parts,
    which snapshot weights each worker still needs, and the timing of the last batch.

    Subclasses send a worker its :class:`CollectRequest` (:meth:`_submit`) and wait for its
    ``(rollout, seconds)`` (:meth:`_result`).
    """

    def __init__(self, n: int) -> None:
        self.held: list[set[Hashable]] = [set() for _ in range(n)]  # the snapshots each worker holds
        self.last: dict[str, float] = {}

    def __len__(self) -> int:
        return len(self.held)

    def _submit(self, i: int, request: CollectRequest) -> None:
        raise NotImplementedError

    def _result(self, i: int) -> tuple[Rollout, float]:
        raise NotImplementedError

    def close(self) -> None:
        """Stop the workers (idempotent)."""
        raise NotImplementedError

    def request(self, i: int, base: CollectRequest, models: Mapping[Hashable, Big2Net]) -> CollectRequest:
        """``base`` for worker ``i``, with the snapshot weights it lacks and the ones it may drop."""
        needed = snapshot_keys(base.plans)
        drop = tuple(key for key in self.held[i] if key not in models)
        snapshots = {key: numpy_weights(models[key]) for key in needed - self.held[i]}
        self.held[i] = (self.held[i] - set(drop)) | needed
        base.snapshots, base.drop = snapshots, drop
        return base

    def collect(
        self,
        rules: Rules,
        seeds: Sequence[int] | np.ndarray,
        plans: Sequence[SeatPlan],
        models: Mapping[Hashable, Big2Net],
        rng: np.random.Generator,
        skip_forced: bool,
        epsilon: float | None,
    ) -> Rollout:
        """:func:`agents.collect.rollout.collect` of fresh games dealt from ``seeds``, shared with the
        workers; ``models`` maps the plans' keys to networks (``"current"`` is the trainer's
        actor, whose weights the workers act with). The trainer plays the first part with ``rng``.

        After it, :attr:`last` holds the batch's timing: ``own_s`` (the trainer's part),
        ``wait_s`` (waiting for the workers after it), ``worker_decisions_per_s`` (the workers'
        decisions per second of their own playing time, mean over workers).
        """
        parts = np.array_split(np.arange(len(seeds)), len(self) + 1)
        busy = []
        for i, part in enumerate(parts[1:]):
            if len(part):
                action_seed = int(rng.integers(2**63))
                base = CollectRequest(rules, [int(seeds[g]) for g in part], [plans[g] for g in part], action_seed,
                                      skip_forced, epsilon)
                self._submit(i, self.request(i, base, models))
                busy.append(i)
        start = time.perf_counter()
        own = parts[0]
        games = [Game(rules, seed=int(seeds[g])) for g in own]
        rollouts = [collect(games, [plans[g] for g in own], models, rng, skip_forced, epsilon)]
        own_done = time.perf_counter()
        results = [self._result(i) for i in busy]
        waited = time.perf_counter()
        rollouts += [rollout for rollout, _ in results]
        rates = [rollout.decisions / max(seconds, 1e-9) for rollout, seconds in results]
        self.last = {
            "own_s": own_done - start,
            "wait_s": waited - own_done,
            "worker_decisions_per_s": float(np.mean(rates)) if rates else float("nan"),
        }
        merged = concat_rollouts(rollouts)
        merged.seat_plans = list(plans)
        return merged


class PoolCollector(Collector):
    """The trainer's collector with rollout workers: each batch's games shared between this process
    and a :class:`RolloutPool` (``start`` starts it, at the first batch: helper processes or Ray actors).

    ``split`` ``"all"``: the workers share every curriculum's games; ``"self"``: only batches of
    all-current-policy games (:func:`parallel_plans`), the others played here on the engine, as runs
    saved before the workers played every curriculum did (kept so that they resume exactly).
    """

    def __init__(self, start: Callable[[], RolloutPool], rules: Rules, skip_forced: bool, split: str = "all") -> None:
        self.start, self.rules, self.skip_forced, self.split = start, rules, skip_forced, split
        self.engine = EngineCollector(rules, skip_forced)
        self.pool: RolloutPool | None = None
        self._timing: dict[str, float] = {}

    def workers(self) -> RolloutPool:
        """The pool, started on first use."""
        if self.pool is None:
            self.pool = self.start()
        return self.pool

    def collect(self, batch: Batch) -> Rollout:
        pool = self.workers()  # started at the first batch whichever plays it
        self._timing = {}
        if self.split != "all" and not parallel_plans(batch.plans):
            return self.engine.collect(batch)
        rollout = pool.collect(self.rules, batch.seeds, batch.plans, batch.models, batch.rng, self.skip_forced,
                               batch.epsilon)
        self._timing = pool.last
        return rollout

    def timing(self) -> dict[str, float]:
        return self._timing

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None
