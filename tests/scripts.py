"""Load a repository script that is not a package module (``benchmarks/*.py``, ``docs/hooks.py``) for a test.

>>> load_script("benchmarks/leaderboard.py").BOARDS
('paper', 'charlesworth')
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]


def load_script(relative: str) -> ModuleType:
    """The module at ``REPO/relative``, executed afresh, named after its file and registered in
    ``sys.modules`` while it runs (dataclasses look their module up there)."""
    path = REPO / relative
    if not path.is_file():
        raise FileNotFoundError(f"no script {relative!r} under {REPO}")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
