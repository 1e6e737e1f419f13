"""Shared test set-up: make the tests folder importable (``test_game_properties`` reuses the
brute-force model of ``test_bruteforce``) whatever pytest's import mode."""

from __future__ import annotations

import sys
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
