"""The examples run as scripts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_pettingzoo_random_example():
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "pettingzoo_random.py"), "--games", "2", "--render"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("winner player_") == 2
