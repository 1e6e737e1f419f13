"""The examples in the benchmark and study scripts' docstrings run: ``benchmarks/`` and ``experiments/scripts/``
lie outside the suite's ``--doctest-modules`` paths (their scripts are not package modules), so they are run here."""

from __future__ import annotations

import doctest

import pytest

from tests.scripts import REPO, load_script

SCRIPTS = [*(REPO / "benchmarks").glob("*.py"), *(REPO / "experiments" / "scripts").glob("*.py")]
WITH_EXAMPLES = sorted(p.relative_to(REPO).as_posix() for p in SCRIPTS if ">>>" in p.read_text())


def test_the_benchmark_scripts_with_examples_are_found():
    assert {"benchmarks/leaderboard.py", "experiments/scripts/search_options.py"} <= set(WITH_EXAMPLES)


@pytest.mark.parametrize("script", WITH_EXAMPLES)
def test_a_benchmark_scripts_examples_run(script):
    result = doctest.testmod(load_script(script), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
