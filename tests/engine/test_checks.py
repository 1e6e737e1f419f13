"""The shared argument predicates (big2_env.checks): what counts as an int or a number, and the bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from big2_env.checks import is_int, is_number


@pytest.mark.parametrize("value", [True, False, np.bool_(True), 1.0, "1", None, [1], 1 + 0j])
def test_is_int_refuses_what_is_not_an_int(value):
    assert not is_int(value)
    assert not is_int(value, numpy=False)


def test_is_int_numpy_integers_only_when_allowed():
    for kind in (np.int8, np.int64, np.uint64):
        assert is_int(kind(3), 0, 3)
        assert not is_int(kind(3), 0, 3, numpy=False)


@given(st.integers(-1000, 1000), st.one_of(st.none(), st.integers(-50, 50)), st.one_of(st.none(), st.integers(-50, 50)))
def test_is_int_bounds_are_inclusive(value, low, high):
    expected = (low is None or value >= low) and (high is None or value <= high)
    assert is_int(value, low, high) is expected
    assert is_int(np.int64(value), low, high) is expected


@pytest.mark.parametrize(
    "value", [True, np.bool_(False), "0.5", None, np.float32(0.5), np.int64(1), math.nan, math.inf, -math.inf]
)
def test_is_number_refuses_non_numbers_and_non_finite(value):
    assert not is_number(value)


@given(
    st.floats(-10, 10, allow_nan=False),
    st.one_of(st.none(), st.floats(-5, 5, allow_nan=False)),
    st.one_of(st.none(), st.floats(-5, 5, allow_nan=False)),
    st.booleans(),
    st.booleans(),
)
def test_is_number_bounds(value, low, high, low_open, high_open):
    above = low is None or (value > low if low_open else value >= low)
    below = high is None or (value < high if high_open else value <= high)
    assert is_number(value, low, high, low_open=low_open, high_open=high_open) is (above and below)


def test_is_number_ends():
    assert is_number(0, 0, 1) and is_number(1, 0, 1) and is_number(np.float64(0.25), 0, 1)
    assert not is_number(0, 0, 1, low_open=True) and not is_number(1, 0, 1, high_open=True)
    assert is_number(1e-300, 0, 1, low_open=True)
