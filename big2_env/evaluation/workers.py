"""How the package's worker processes start: evaluation workers, the arena's, training helpers.

:func:`worker_pool` is the process pool evaluation and the arena play in: each worker shares the cores out
(:func:`threads_per_worker`), so that two workers' torch and numba thread pools (one OpenMP runtime) do not
outnumber the cores and spin-wait on each other's threads.

Example:
    >>> from big2_env.evaluation.workers import START_METHOD, threads_per_worker
    >>> START_METHOD in ("forkserver", "spawn")
    True
    >>> threads_per_worker(1) >= threads_per_worker(2) >= threads_per_worker(10_000) == 1
    True
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

from ..checks import is_int

__all__ = ["START_METHOD", "limit_threads", "set_numba_threads", "threads_as_worker", "threads_per_worker", "worker_pool"]

START_METHOD = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
"""How worker processes start (evaluation and arena workers here, training helpers in :mod:`agents.learners.processes`):
never by forking a process whose torch/OpenMP thread pool may be running, which can deadlock."""


def _cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1  # pragma: no cover - platforms without affinity


def threads_per_worker(jobs: int) -> int:
    """The threads each of ``jobs`` worker processes may run: this process's cores shared out, at least one."""
    if not is_int(jobs, 1, numpy=False):
        raise ValueError(f"jobs must be a positive int; got {jobs!r}")
    return max(1, _cores() // jobs)


def set_numba_threads(threads: int) -> None:
    """Run numba's parallel loops on ``threads`` threads (at most its ``NUMBA_NUM_THREADS``), leaving torch's count
    as it was: numba and torch share one OpenMP runtime, and numba's call resets that runtime's thread count, so
    torch would otherwise go on with every core's threads whatever it was set to."""
    import numba

    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch is not None else None
    numba.set_num_threads(max(1, min(threads, int(getattr(numba.config, "NUMBA_NUM_THREADS", 1)))))
    if torch is not None and torch.get_num_threads() != before:
        torch.set_num_threads(before)


def limit_threads(threads: int) -> None:
    """A worker's initializer: torch's and numba's thread pools run ``threads`` threads (fewer where the
    environment's ``OMP_NUM_THREADS`` already asks for fewer). Set before either library loads in the worker (the
    environment variables they read at import) and on them where they already have."""
    asked = os.environ.get("OMP_NUM_THREADS", "")
    if asked.isdigit() and 0 < int(asked) < threads:
        threads = int(asked)
    os.environ["OMP_NUM_THREADS"] = str(threads)
    os.environ["MKL_NUM_THREADS"] = str(threads)
    if "numba" in sys.modules:
        set_numba_threads(threads)
    else:
        os.environ["NUMBA_NUM_THREADS"] = str(threads)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)


@contextmanager
def threads_as_worker(jobs: int) -> Iterator[int]:
    """Run the block on the threads each of ``jobs`` workers gets (:func:`threads_per_worker`), torch's (where it is
    loaded) and numba's counts put back after: an agent timed here is timed as a worker will play it. Timed on every
    core's threads instead, a search over a network is many times slower a decision on a busy machine than on one
    thread.

    >>> import numba
    >>> before = numba.get_num_threads()
    >>> with threads_as_worker(10_000) as threads:
    ...     threads, numba.get_num_threads()
    (1, 1)
    >>> numba.get_num_threads() == before
    True
    """
    import numba

    threads = threads_per_worker(jobs)
    torch = sys.modules.get("torch")
    torch_before = torch.get_num_threads() if torch is not None else None
    numba_before = numba.get_num_threads()
    set_numba_threads(threads)
    if torch is not None:
        torch.set_num_threads(threads)
    try:
        yield threads
    finally:
        set_numba_threads(numba_before)
        if torch is not None and torch.get_num_threads() != torch_before:
            torch.set_num_threads(torch_before)


def worker_pool(jobs: int) -> ProcessPoolExecutor:
    """``jobs`` worker processes, started by :data:`START_METHOD`, each with :func:`threads_per_worker` threads."""
    return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context(START_METHOD),
                               initializer=limit_threads, initargs=(threads_per_worker(jobs),))
