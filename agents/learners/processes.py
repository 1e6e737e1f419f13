"""Helper processes that share a PPO batch's work with the trainer: rollouts and gradients.

On a small CPU model like :class:`~agents.network.Big2Net`, more torch threads do
not make training faster (the operations are too small to split well), but other
*processes* can work at the same time. :class:`TrainHelpers` starts ``n`` helper
processes (``TrainArgs.workers - 1``) that share the trainer's network weights
(``model.share_memory()``: a helper always sees the weights the trainer's optimiser
just wrote; nothing is copied per step) and do two things:

* **Rollouts** (every curriculum): each helper is a rollout worker of the
  :class:`~agents.collect.parallel.RolloutPool` (its :class:`~agents.collect.parallel.RolloutWorker`
  plays its part of the batch's games on the shared weights).
* **Gradients**: every PPO minibatch is split into ``n + 1`` nearly equal parts
  (:func:`agents.learners.ppo.split_minibatch`, the trainer's first); each process computes its
  part's loss weighted by its share of the minibatch (``loss_i * n_i / n``) and the
  gradient; the helpers' gradients (shared-memory buffers) are added to the
  trainer's, giving the gradient of the whole minibatch's mean loss, the same as
  one process computes up to float rounding; the trainer then clips and steps. The
  batch's decisions (:class:`agents.learners.ppo.UpdateData`) go to the helpers once per update.

With more than one process a run's results differ from a one-process run's (other
sampling streams, float rounding) but a run stays exactly reproducible, and
resumable, for a given ``workers`` value.

Helpers are started with ``forkserver`` where the platform has it (Linux), else
``spawn``, never by forking the trainer: forking a process whose torch/OpenMP
thread pool is already running can deadlock the child, and a forked child would also inherit
the trainer's end of every pipe. So, as with torch's ``DataLoader`` workers, a script that trains with
``workers > 1`` must guard its entry point with ``if __name__ == "__main__":``
(``big2 train`` does). Each helper runs torch with ``threads`` intra-op threads.
They stop with :meth:`TrainHelpers.close` (also called when the object is
garbage-collected and at interpreter exit), and they never outlive the trainer,
however it dies (even by ``SIGKILL``): a helper exits when its pipe to the trainer
closes, and a watchdog thread (plus ``PR_SET_PDEATHSIG`` on Linux) ends it as soon
as the process that started it is gone.
"""

from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
import traceback
import weakref
from typing import Any, Sequence

import numpy as np
import torch

from big2_env.checks import is_int
from big2_env.evaluation.workers import START_METHOD

from ..collect.parallel import CollectRequest, RolloutPool, RolloutWorker
from ..collect.rollout import Rollout
from ..config import NetworkConfig, PPOConfig
from ..network import Big2Net
from .ppo import attach_flat_grad, minibatch_loss

__all__ = ["TrainHelpers"]

WATCHDOG_S = 0.5
"""How often a helper checks that the process that started it is still there."""


def _context() -> Any:
    """The start method's context for the helpers, after warming the compiled core up here (numba's
    cache has races when several processes build it at once)."""
    from big2_env import warm_up

    warm_up()
    context = mp.get_context(START_METHOD)
    if START_METHOD == "forkserver":  # the server imports torch and this module once; helpers fork from it
        context.set_forkserver_preload(["__main__", __name__])
    return context


def _die_with_parent() -> None:
    """End this process as soon as its parent (the trainer, or the forkserver that exits
    with the trainer) is gone: ``PR_SET_PDEATHSIG`` where Linux offers it, and a watchdog
    thread everywhere (it also covers a parent that died before the ``prctl`` call)."""
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(0)
            time.sleep(WATCHDOG_S)

    threading.Thread(target=watch, name="big2-helper-watchdog", daemon=True).start()


class _Helper:
    """The state of one helper process: the network on the trainer's shared weights, the batch's data."""

    def __init__(self, config: dict, shared: Sequence[torch.Tensor], grad_buffer: torch.Tensor) -> None:
        self.model = Big2Net(NetworkConfig.from_dict(config))
        params = [p for p in self.model.parameters() if p.requires_grad]
        with torch.no_grad():
            for p, s in zip(params, shared):
                p.data = s  # the trainer's weights, in shared memory
        attach_flat_grad(params, grad_buffer)
        self.grad_buffer = grad_buffer
        self.model.train()
        self.worker = RolloutWorker(self.model)
        self.data: Any = None
        self.ppo_config: Any = None

    def handle(self, message: tuple) -> Any:
        """The reply payload to one message (see :func:`_worker_main`)."""
        kind = message[0]
        if kind == "collect":
            return self.worker.collect(message[1])
        if kind == "data":
            self.data, self.ppo_config = message[1], message[2]
            return None
        if kind == "step":
            index, weight = message[1], message[2]
            self.grad_buffer.zero_()
            loss, stats = minibatch_loss(self.model, self.data, index, self.ppo_config)
            (loss * weight).backward()  # accumulates into the shared buffer (attach_flat_grad)
            return {k: float(v) for k, v in stats.items()}
        raise ValueError(f"unknown message {kind!r}")


def _worker_main(conn: Any, config: dict, shared: Sequence[torch.Tensor], grad_buffer: torch.Tensor, threads: int) -> None:
    """A helper's loop over messages: ``("collect", CollectRequest)``,
    ``("data", UpdateData, PPOConfig)``, ``("step", index, weight)``, ``("close",)``. Each but the last
    is answered ``("ok", payload)`` or ``("error", traceback)``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the trainer's to handle; it then closes its helpers
    _die_with_parent()
    torch.set_num_threads(threads)
    helper = _Helper(config, shared, grad_buffer)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):  # the trainer is gone
            return
        if message[0] == "close":
            return
        try:
            reply: tuple[str, Any] = ("ok", helper.handle(message))
        except Exception:
            reply = ("error", traceback.format_exc())
        try:
            conn.send(reply)
        except OSError:  # the trainer is gone (BrokenPipeError and friends)
            return


def _shutdown(conns: list, processes: list) -> None:
    for conn in conns:
        try:
            conn.send(("close",))
        except Exception:
            pass
    for process in processes:
        process.join(timeout=5)
        if process.is_alive():
            process.terminate()
            process.join(timeout=5)
    for conn in conns:
        conn.close()


class TrainHelpers(RolloutPool):
    """``n`` helper processes sharing ``model``'s parameters (see the module docstring).

    Args:
        model: the trainer's network; its parameters are moved to shared memory
            (in place: the optimiser and every other reference keep working).
        n: helper processes (at least 1).
        threads: torch intra-op threads in each helper.
    """

    def __init__(self, model: Big2Net, n: int, threads: int = 1) -> None:
        if not is_int(n, 1, numpy=False):
            raise ValueError(f"TrainHelpers needs at least one helper process; got n={n!r}")
        super().__init__(n)
        model.share_memory()
        params = [p for p in model.parameters() if p.requires_grad]
        total = sum(p.numel() for p in params)
        context = _context()
        self.conns: list = []
        self.processes: list = []
        self.buffers: list[torch.Tensor] = []
        shared = [p.detach() for p in params]
        for _ in range(n):
            buffer = torch.zeros(total, dtype=torch.float32).share_memory_()
            parent, child = context.Pipe()
            process = context.Process(
                target=_worker_main,
                args=(child, model.config.to_dict(), shared, buffer, int(threads)),
                daemon=True,
                name="big2-gradient-worker",
            )
            process.start()
            child.close()
            self.conns.append(parent)
            self.processes.append(process)
            self.buffers.append(buffer)
        self._finalizer = weakref.finalize(self, _shutdown, self.conns, self.processes)

    def _died(self, conn: Any) -> RuntimeError:
        process = self.processes[self.conns.index(conn)]
        process.join(timeout=1)
        code = process.exitcode
        how = "is gone" if code is None else (f"was killed by signal {-code}" if code < 0 else f"exited with code {code}")
        return RuntimeError(
            f"a training helper process (pid {process.pid}) {how} (see its error output above). Helpers start with "
            f"{START_METHOD!r}: a script that trains with workers > 1 must guard its entry point with "
            "`if __name__ == \"__main__\":`; or train in one process with --workers 1"
        )

    def _receive(self, conn: Any) -> Any:
        try:
            status, payload = conn.recv()
        except (EOFError, OSError):
            raise self._died(conn) from None
        if status == "error":
            raise RuntimeError(f"a training helper process failed:\n{payload}")
        return payload

    # ------------------------------------------------------------ rollouts
    def _submit(self, i: int, request: CollectRequest) -> None:
        try:
            self.conns[i].send(("collect", request))
        except OSError:  # BrokenPipeError: the helper is gone
            raise self._died(self.conns[i]) from None

    def _result(self, i: int) -> tuple[Rollout, float]:
        return self._receive(self.conns[i])

    # ------------------------------------------------------------ gradients
    def set_data(self, data: Any, config: PPOConfig) -> None:
        """Send the batch's decisions (an :class:`agents.learners.ppo.UpdateData`) to every helper."""
        for conn in self.conns:
            conn.send(("data", data, config))
        for conn in self.conns:
            self._receive(conn)

    def start(self, parts: Sequence[np.ndarray], total: int) -> list[int]:
        """Start one step: helper ``i`` computes ``parts[i]`` (weight ``len / total``).
        Returns the helpers that got a non-empty part (to pass to :meth:`finish`)."""
        busy = []
        for i, (conn, part) in enumerate(zip(self.conns, parts)):
            if len(part):
                conn.send(("step", part, len(part) / total))
                busy.append(i)
        return busy

    def finish(self, busy: Sequence[int], flat_grad: torch.Tensor) -> list[dict[str, float]]:
        """Wait for the helpers of :meth:`start` and add their gradients to ``flat_grad``, the
        flat gradient the trainer's parameters' ``.grad`` are views of (see
        :func:`agents.learners.ppo.attach_flat_grad`); returns their statistics (each a mean over its part)."""
        stats = [self._receive(self.conns[i]) for i in busy]
        for i in busy:
            flat_grad.add_(self.buffers[i])
        return stats

    def close(self) -> None:
        """Stop the helper processes (idempotent)."""
        self._finalizer()
