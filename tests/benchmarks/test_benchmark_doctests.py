"""The examples in the benchmark scripts' docstrings run: ``benchmarks/`` lies outside the suite's
``--doctest-modules`` paths (its scripts are not package modules), so they are run here."""

from __future__ import annotations

import doctest

import pytest

from tests.scripts import REPO, load_script

WITH_EXAMPLES = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "benchmarks").glob("*.py") if ">>>" in p.read_text())


def test_the_benchmark_scripts_with_examples_are_found():
    assert "benchmarks/leaderboard.py" in WITH_EXAMPLES


@pytest.mark.parametrize("script", WITH_EXAMPLES)
def test_a_benchmark_scripts_examples_run(script):
    result = doctest.testmod(load_script(script), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
