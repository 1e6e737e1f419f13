"""Shared test set-up: make the tests folder importable (``test_game_properties`` reuses the
brute-force model of ``test_bruteforce``) whatever pytest's import mode."""

from __future__ import annotations

import sys
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)


import pytest  # noqa: E402


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
