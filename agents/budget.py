"""The search-over-a-network's budget (``search-net@BUDGET``): rollouts a decision or seconds.

Torch-free, so that a spec's budget can be checked without loading a network (``agents.plugin``'s
check, ``big2 serve --opponents``); :mod:`agents.net_search` uses it too.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["parse_budget"]


def parse_budget(budget: Any) -> tuple[float | None, int | None]:
    """``(seconds, rollouts)`` of a budget: ``"0.25s"`` or a float of seconds, or an int of rollouts.

    >>> parse_budget("0.25s"), parse_budget(200), parse_budget("1s")
    ((0.25, None), (None, 200), (1.0, None))
    """
    if isinstance(budget, bool):
        raise ValueError(f"budget must be seconds ('0.25s', 0.25) or a number of rollouts (an int); got {budget!r}")
    if isinstance(budget, (int, np.integer)) and budget >= 1:
        return None, int(budget)
    if isinstance(budget, str) and budget.isdigit() and int(budget) >= 1:
        return None, int(budget)
    text = budget[:-1] if isinstance(budget, str) and budget.endswith("s") else budget
    try:
        seconds = float(text)
    except (TypeError, ValueError):
        seconds = math.nan
    if not 0.001 <= seconds <= 600:
        raise ValueError(f"budget must be seconds in [0.001, 600] ('0.25s', 0.25) or a number of rollouts >= 1; got {budget!r}")
    return seconds, None
