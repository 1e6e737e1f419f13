"""How the package's worker processes start: evaluation workers, the arena's, training helpers.

Example:
    >>> from big2_env.evaluation.workers import START_METHOD
    >>> START_METHOD in ("forkserver", "spawn")
    True
"""

from __future__ import annotations

import multiprocessing

__all__ = ["START_METHOD"]

START_METHOD = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
"""How worker processes start (evaluation and arena workers here, training helpers in :mod:`agents.collect.parallel`):
never by forking a process whose torch/OpenMP thread pool may be running, which can deadlock."""
