"""The type-and-range tests that public entries run on their arguments before any work is done.

Every public entry validates its input and raises a clear error naming what was wrong and what
is allowed; these two predicates are the shared test behind those errors, so that a count, a
seat, a seed or a probability is read the same way everywhere. ``bool`` is never a number here
(``True`` is an ``int`` to Python, but a flag passed where a count belongs is a mistake), and a
real number must be finite. The caller keeps its own message: the predicates only answer yes or
no. This module sits below every layer (``python -m tools.imports``) and imports only
numpy.

Example:
    >>> is_int(3, 0, 3), is_int(4, 0, 3), is_int(True, 0, 3), is_int(np.int64(2), 0, 3)
    (True, False, False, True)
    >>> is_int(np.int64(2), 0, 3, numpy=False)
    False
    >>> is_number(0.5, 0, 1), is_number(0, 0, 1, low_open=True), is_number(float("nan"))
    (True, False, False)
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["is_int", "is_number"]


def is_int(value: object, low: int | None = None, high: int | None = None, *, numpy: bool = True) -> bool:
    """True when ``value`` is an integer, not a bool, with ``low <= value <= high``.

    Args:
        value: the argument to test.
        low: the inclusive lower bound (``None``: none).
        high: the inclusive upper bound (``None``: none).
        numpy: whether numpy integers (``np.int64`` ...) count; ``False`` keeps to Python ints,
            for values that are written to JSON or handed on as Python ints.
    """
    kinds: tuple[type, ...] = (int, np.integer) if numpy else (int,)
    if isinstance(value, bool) or not isinstance(value, kinds):
        return False
    return bool((low is None or value >= low) and (high is None or value <= high))  # type: ignore[operator]


def is_number(
    value: object,
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
) -> bool:
    """True when ``value`` is a finite int or float, not a bool, within ``low`` and ``high``.

    Args:
        value: the argument to test (a Python ``int`` or ``float``; ``np.float64`` is a float).
        low: the lower bound (``None``: none).
        high: the upper bound (``None``: none).
        low_open: whether ``low`` itself is excluded.
        high_open: whether ``high`` itself is excluded.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return False
    if low is not None and (value < low or (low_open and value == low)):
        return False
    return bool(high is None or not (value > high or (high_open and value == high)))
