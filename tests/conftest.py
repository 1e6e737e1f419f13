"""Shared test set-up. ``tests`` is a package with a folder per layer; a test module imports
another's helpers by its full name (``from tests.engine.test_bruteforce import VARIANTS``)."""

from __future__ import annotations

import sys

import pytest


@pytest.fixture(autouse=True)
def _quiet_machine(request, monkeypatch):
    """Every test sees a quiet machine: ``--threads 0`` (the trainer's default) shares out the idle
    cores, which other work on the machine changes from one run to the next, and two runs with
    different torch thread counts differ in the last bits of their sums. So that runs compared for
    equality (a resumed run against an uninterrupted one) take the same layout whatever else runs,
    the trainer reads no load here; a test marked ``machine_load`` reads the real one."""
    trainer = sys.modules.get("agents.trainer")
    if trainer is not None and request.node.get_closest_marker("machine_load") is None:
        monkeypatch.setattr(trainer, "busy_cores", lambda window=0.25: 0.0)


SLOW_MODULES = frozenset({
    # whole training runs, example scripts, Ray, the browser and the docs' commands: most of the suite's
    # time in `python -m pytest --durations=0` (docs/testing.md)
    "test_agents_ray.py", "test_agents_safety.py", "test_docs.py", "test_reproduce.py",
    "test_agents_recipe.py", "test_agents_train.py", "test_agents_cli.py", "test_agents_rollout.py",
    "test_agents_parallel.py", "test_agents_workers.py", "test_examples.py", "test_examples_libraries.py",
    "test_examples_rllib.py", "test_examples_agilerl.py", "test_web_browser.py",
})
"""Test files marked ``slow``: ``python -m pytest -m "not slow" -n 2`` runs the rest (docs/testing.md)."""


@pytest.hookimpl(tryfirst=True)  # before -m reads the markers
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
