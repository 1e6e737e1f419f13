"""The compiled kernels' disk cache is keyed by the kernel modules' contents (numba checks a cached
kernel against its own file only, so a kernel whose callee moved or changed must not load)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from big2_env.engine.core import kernel_digest

PACKAGE = Path(__file__).resolve().parents[2] / "big2_env"


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_the_digest_follows_the_kernel_modules_and_nothing_else(tmp_path):
    kernels = {"a/k.py": "from numba import njit\n@njit\ndef f(x):\n    return x\n", "b/plain.py": "X = 1\n"}
    first = kernel_digest(write(tmp_path / "one", kernels))
    assert first == kernel_digest(write(tmp_path / "two", kernels))  # the same sources, wherever they are
    assert kernel_digest(write(tmp_path / "two", {"b/plain.py": "X = 2\n"})) == first  # not a kernel module
    assert kernel_digest(write(tmp_path / "two", {"a/k.py": kernels["a/k.py"] + "# edited\n"})) != first
    assert kernel_digest(write(tmp_path / "three", {"a/moved.py": kernels["a/k.py"], "b/plain.py": "X = 1\n"})) != first


def test_the_default_cache_folder_is_named_by_the_packages_digest(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | {"XDG_CACHE_HOME": str(tmp_path)}
    code = "import big2_env.engine.core, numba.core.config as c; print(c.CACHE_DIR)"
    folder = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert Path(folder) == tmp_path / "big2_env" / "numba" / kernel_digest(PACKAGE)
