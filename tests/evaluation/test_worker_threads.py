"""Evaluation and arena workers share the cores out: two workers' torch and numba thread pools (one OpenMP runtime)
never outnumber the cores, where they spin-wait on each other's threads (a search-net decision ran 25 times
slower side by side with two threads each on two cores)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from big2_env.evaluation.workers import set_numba_threads, threads_per_worker, worker_pool


def _threads_in_worker() -> tuple[int, int, str]:
    import numba
    import torch

    return torch.get_num_threads(), numba.get_num_threads(), os.environ["OMP_NUM_THREADS"]


def test_each_worker_runs_its_share_of_the_cores():
    pytest.importorskip("torch")
    share = threads_per_worker(2)
    with worker_pool(2) as pool:
        torch_threads, numba_threads, omp = pool.submit(_threads_in_worker).result()
    assert (torch_threads, omp) == (share, str(share))
    assert numba_threads <= share


def test_the_share_is_the_cores_divided_and_at_least_one():
    cores = len(os.sched_getaffinity(0))
    assert threads_per_worker(1) == cores and threads_per_worker(cores + 1) == 1
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="jobs must be a positive int"):
            threads_per_worker(bad)  # type: ignore[arg-type]


def test_limit_threads_keeps_a_lower_request_and_sets_libraries_already_loaded():
    pytest.importorskip("torch")
    code = ("import os, torch, numba; from big2_env.evaluation.workers import limit_threads; "
            "torch.set_num_threads(2); limit_threads(4); a = (torch.get_num_threads(), os.environ['OMP_NUM_THREADS']); "
            "os.environ['OMP_NUM_THREADS'] = ''; limit_threads(1); print(a, torch.get_num_threads(), numba.get_num_threads())")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["(1,", "'1')", "1", "1"]



def test_set_numba_threads_leaves_torch_as_it_was(monkeypatch):
    """Under numba's OpenMP layer, its set_num_threads resets the runtime torch shares (here played by a stand-in, as
    this machine's layer may not); set_numba_threads puts torch's count back and clamps numba's to its maximum."""
    torch = pytest.importorskip("torch")
    import numba

    before = torch.get_num_threads()
    asked: list[int] = []

    def openmp_like(n: int) -> None:
        asked.append(n)
        torch.set_num_threads(len(os.sched_getaffinity(0)) + 1)  # the runtime's count, not torch's

    monkeypatch.setattr(numba, "set_num_threads", openmp_like)
    try:
        torch.set_num_threads(1)
        set_numba_threads(10_000)
        assert torch.get_num_threads() == 1
        assert asked == [int(numba.config.NUMBA_NUM_THREADS)]
    finally:
        torch.set_num_threads(before)
