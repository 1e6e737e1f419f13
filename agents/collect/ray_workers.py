"""Rollout workers as Ray actors: ``big2 train --backend ray [--ray-address ADDR] --workers N``.

The same :class:`agents.collect.parallel.RolloutWorker` that a helper process runs, wrapped
in a Ray actor, so that a run spreads over the machines of a Ray cluster with no
code change. The trainer (the learner, on ``--device``) plays the first part of
every batch itself, as with the process backend, and ``N - 1`` actors (one CPU
each) play the others:

* **Weights.** Actors act on CPU copies of the current policy: its weights go
  into Ray's object store once per batch (``ray.put``) and every actor loads
  them before playing. A snapshot opponent's weights travel to an actor once and
  stay cached there until the pool drops it (:class:`agents.collect.parallel.RolloutPool`).
* **Reproducibility.** A part's games depend only on its request (deals, seat
  plans, a seed drawn from the trainer's action RNG, the weights), so a run is
  exactly reproducible and resumable for a given ``--workers``; the rollouts are
  the ones the process backend plays with the same ``--workers``. (PPO's update
  differs: with processes the helpers also share the gradient, here the learner
  computes it alone, so floats round differently.)
* **Failures.** An actor that dies (its process killed, its node lost) is
  restarted by Ray (``max_restarts``) and its part is played again from the same
  request, with every snapshot it should hold, and the same result; an actor that
  died while idle (during the update) and comes back without its snapshots says so
  and gets them the same way. A second failure of the same part, an error inside
  the worker's code or any other Ray error raises a ``RuntimeError`` naming it.
  Actors that cannot be placed (a cluster with too few free CPUs) raise a
  ``RuntimeError`` at once when Ray knows it has too few, else after
  ``start_timeout_s``, instead of waiting forever. (An actor that is alive but
  never answers is not detected: Ray gives no way to tell it from a slow one.)
* **Ray itself.** Without ``--ray-address`` the trainer starts a local Ray with
  at least as many CPUs as actors (so it never waits for a CPU that does not
  exist) and shuts it down when training ends; with an address it connects to
  that cluster and leaves it running. Every node must have big2-env installed
  (``pip install "big2-env[ray]"``), as for any Ray application.
* **Niceness.** Ray renices each of its worker processes by ``RAY_worker_niceness``
  (15 by default) above the niceness it inherits, so on a busy machine its actors
  starve behind everything else while the trainer waits on them. A local Ray started
  here (:func:`init_local_ray`) sets it to 0, so the actors run at the trainer's own
  niceness, unless ``RAY_worker_niceness`` is already in the environment. A Ray started
  elsewhere (``ray.init`` in your code, ``ray start`` on a cluster's nodes) takes the
  variable from the environment it starts in: ``RAY_worker_niceness=0 ray start ...``.

``ray`` is an optional extra (``pip install -e ".[ray]"``); nothing else in the
package imports it.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from typing import Any, Hashable, Mapping

import numpy as np
import torch

from ..curriculum import CURRENT
from ..config import NetworkConfig
from ..network import Big2Net
from big2_env.checks import is_int
from .parallel import CollectRequest, MissingSnapshots, RolloutPool, RolloutWorker, numpy_weights
from .rollout import Rollout

__all__ = ["RAY_WORKER_NICENESS", "RayWorkers", "import_ray", "init_local_ray", "start_ray"]

START_TIMEOUT_S = 120.0
"""How long the actors may take to start (be placed on a node with a free CPU)."""

RAY_WORKER_NICENESS = "RAY_worker_niceness"
"""The environment variable Ray's processes read for the niceness its workers add to the one they inherit
(Ray's default: 15)."""


def import_ray() -> Any:
    """The ``ray`` module, or an ``ImportError`` that says how to install it."""
    try:
        import ray
    except ImportError as err:
        raise ImportError(
            f"--backend ray needs Ray, which is not installed ({err}); install the extra: pip install -e \".[ray]\" "
            "(or pip install \"big2-env[ray]\"), or train with the default --backend process"
        ) from None
    return ray


def start_ray(address: str | None, cpus: int) -> bool:
    """Connect to Ray unless already connected: to the cluster at ``address``, or a local Ray
    with at least ``cpus`` CPUs (never fewer than the tasks that must run at once). Returns
    whether this call started the connection (so the caller shuts it down)."""
    ray = import_ray()
    if ray.is_initialized():
        return False
    from big2_env import warm_up

    warm_up()  # local workers then load numba's cache instead of building it at once
    if address is None:
        init_local_ray(num_cpus=max(cpus, os.cpu_count() or 1), include_dashboard=False, logging_level="warning")
    else:
        ray.init(address=address, logging_level="warning")
    return True


def init_local_ray(**kwargs: Any) -> None:
    """``ray.init(**kwargs)`` starting Ray on this machine with its workers at this process's niceness.

    Ray's workers add ``RAY_worker_niceness`` (15 by default) to the niceness they inherit from the
    Ray this call starts, itself at the caller's; so it is set to 0 for the call, unless the environment
    already sets it (that value is kept). The environment is as before once Ray has started.
    """
    ray = import_ray()
    if RAY_WORKER_NICENESS in os.environ:
        ray.init(**kwargs)
        return
    os.environ[RAY_WORKER_NICENESS] = "0"  # read by the processes ray.init starts, which the workers inherit
    try:
        ray.init(**kwargs)
    finally:
        os.environ.pop(RAY_WORKER_NICENESS, None)


class _ActorWorker:
    """The body of one Ray actor: a :class:`RolloutWorker` on its own CPU copy of the network."""

    def __init__(self, config: dict, threads: int) -> None:
        torch.set_num_threads(max(1, int(threads)))
        self.worker = RolloutWorker(Big2Net(NetworkConfig.from_dict(config)).train())

    def ready(self) -> int:
        return os.getpid()

    def collect(self, request: CollectRequest, weights: Mapping[str, np.ndarray]) -> tuple[Rollout, float]:
        self.worker.set_weights(weights)
        return self.worker.collect(request)


class RayWorkers(RolloutPool):
    """``n`` rollout workers as Ray actors (see the module docstring).

    Args:
        model: the trainer's CPU network (the current policy the actors copy).
        n: actors (at least 1).
        threads: torch threads in each actor.
        address: a Ray cluster's address (``ray.init(address=...)``); ``None`` starts Ray locally.
        max_restarts: how often Ray restarts each actor that dies.
        start_timeout_s: how long the actors may take to start.
    """

    def __init__(
        self,
        model: Big2Net,
        n: int,
        threads: int = 1,
        address: str | None = None,
        max_restarts: int = 2,
        start_timeout_s: float = START_TIMEOUT_S,
    ) -> None:
        if not is_int(n, 1, numpy=False):
            raise ValueError(f"RayWorkers needs at least one actor; got n={n!r}")
        ray = import_ray()
        super().__init__(n)
        self.ray = ray
        self.model = model
        self.actors: list = []
        self.pending: dict[int, Any] = {}
        self.requests: dict[int, CollectRequest] = {}
        self.weights_ref: Any = None
        self.models: Mapping[Hashable, Big2Net] = {}
        self.started_ray = start_ray(address, n)
        try:
            total = ray.cluster_resources().get("CPU", 0)
            if address is None and total < n:  # a Ray started before with fewer CPUs: say so now, not in two minutes
                raise RuntimeError(
                    f"{n} Ray rollout actors need {n} CPUs, but the running Ray has {total:g}; "
                    "start Ray with more (ray.init(num_cpus=...)) or use fewer --workers"
                )
            remote = ray.remote(num_cpus=1, max_restarts=int(max_restarts), max_task_retries=0)(_ActorWorker)
            self.actors = [remote.remote(model.config.to_dict(), int(threads)) for _ in range(n)]
            ready, waiting = ray.wait([a.ready.remote() for a in self.actors], num_returns=n, timeout=start_timeout_s)
            if waiting:
                raise RuntimeError(
                    f"only {len(ready)} of {n} Ray rollout actors (1 CPU each) started within {start_timeout_s:.0f} s; "
                    f"the cluster has {ray.cluster_resources().get('CPU', 0):g} CPUs: use fewer --workers or a larger cluster"
                )
            ray.get(ready)
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------ RolloutPool
    def collect(self, rules, seeds, plans, models, rng, skip_forced, epsilon) -> Rollout:  # type: ignore[no-untyped-def]
        self.weights_ref = self.ray.put(numpy_weights(models[CURRENT]))
        self.models = models
        try:
            return super().collect(rules, seeds, plans, models, rng, skip_forced, epsilon)
        finally:
            self.pending.clear()
            self.requests.clear()
            self.weights_ref = None
            self.models = {}

    def _submit(self, i: int, request: CollectRequest) -> None:
        self.requests[i] = request
        self.pending[i] = self.actors[i].collect.remote(request, self.weights_ref)

    def _resubmit(self, i: int) -> None:
        """Send actor ``i`` (just restarted, holding nothing) its part again, with every snapshot it should hold."""
        held = {key: numpy_weights(self.models[key]) for key in self.held[i] if key in self.models}
        request = replace(self.requests[i], snapshots=held, drop=())
        self.pending[i] = self.actors[i].collect.remote(request, self.weights_ref)

    def _result(self, i: int) -> tuple[Rollout, float]:
        ray = self.ray
        for attempt in (1, 2):
            try:
                return ray.get(self.pending[i])
            except (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError) as err:
                if attempt == 2:
                    raise RuntimeError(
                        f"Ray rollout actor {i} died twice while playing its part of the batch ({type(err).__name__}: "
                        f"{err}); stopping rather than waiting on it"
                    ) from None
                self._wait_alive(i)
                self._resubmit(i)
            except ray.exceptions.RayTaskError as err:
                if attempt == 1 and isinstance(getattr(err, "cause", None), MissingSnapshots):
                    self._resubmit(i)  # restarted while idle: it lost its snapshots
                    continue
                raise RuntimeError(f"a Ray rollout actor failed:\n{err}") from None
            except ray.exceptions.RayError as err:
                raise RuntimeError(f"Ray failed while actor {i} played its part ({type(err).__name__}: {err})") from None
        raise AssertionError("unreachable")

    def _wait_alive(self, i: int, timeout_s: float = START_TIMEOUT_S) -> None:
        """Wait until Ray has restarted actor ``i`` (or raise when it cannot)."""
        ray = self.ray
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                ray.get(self.actors[i].ready.remote(), timeout=max(1.0, deadline - time.monotonic()))
                return
            except ray.exceptions.ActorUnavailableError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"Ray rollout actor {i} did not come back within {timeout_s:.0f} s") from None
                time.sleep(0.2)
            except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError) as err:
                raise RuntimeError(
                    f"Ray rollout actor {i} died and could not be restarted ({type(err).__name__}: {err})"
                ) from None

    def close(self) -> None:
        """Stop the actors, and Ray itself when this object started it (idempotent)."""
        for actor in getattr(self, "actors", []):
            try:
                self.ray.kill(actor)
            except Exception:
                pass
        self.actors = []
        if getattr(self, "started_ray", False):
            self.ray.shutdown()
            self.started_ray = False
