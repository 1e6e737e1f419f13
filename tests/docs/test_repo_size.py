"""The repository's size budget: every clone carries the tracked tree, and so does every
copy of the working tree sent to a lent GPU machine, which takes at most 64 MiB.

* The tracked tree stays under :data:`TREE_BUDGET` (30 MiB).
* No tracked file over :data:`FILE_LIMIT` (4 MiB) lies outside ``agents/data/`` (the shipped networks):
  a finished run's checkpoint and model copies leave the tree when it ends, and its README gives the
  ``git show COMMIT:PATH > PATH`` that brings each back (``experiments/results/learner/README.md``,
  ``experiments/results/long/README.md``).

Sizes are those of the tracked files in the working tree (``git ls-files``), so a big file fails here
as soon as it is added, before it is committed. Outside a git checkout (an sdist, an installed copy)
there is no tracked tree to measure, and the tests skip.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MIB = 1 << 20
TREE_BUDGET = 30 * MIB
"""The most the tracked tree may weigh."""
FILE_LIMIT = 4 * MIB
"""The most one tracked file outside :data:`LARGE_FILES_HOME` may weigh."""
LARGE_FILES_HOME = "agents/data/"
"""Where the shipped networks live: the only place a file over :data:`FILE_LIMIT` may be tracked."""


def tracked_sizes() -> dict[str, int]:
    """Each tracked file's size in bytes, by its path in the repository (a file deleted but not yet
    ``git rm``-ed is left out); skips the test outside a git checkout."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed: no tracked tree to measure")
    inside = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if inside.returncode != 0 or Path(inside.stdout.strip()).resolve() != REPO:
        pytest.skip(f"{REPO} is not a git checkout (an sdist or an installed copy): no tracked tree to measure")
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True).stdout
    sizes = {}
    for name in listed.decode().split("\0"):
        path = REPO / name
        if name and (path.is_file() or path.is_symlink()):
            sizes[name] = path.lstat().st_size
    return sizes


def test_the_tracked_tree_stays_under_its_budget():
    sizes = tracked_sizes()
    total = sum(sizes.values())
    biggest = sorted(sizes.items(), key=lambda item: -item[1])[:8]
    assert total <= TREE_BUDGET, (
        f"the tracked tree weighs {total / MIB:.1f} MiB, over its {TREE_BUDGET // MIB} MiB budget; the biggest files: "
        + ", ".join(f"{name} ({size / MIB:.1f} MiB)" for name, size in biggest)
        + ". A finished run's checkpoint and model leave the tree (its README gives the git show that restores them)"
    )


def test_no_big_file_lies_outside_the_shipped_networks():
    big = {name: size for name, size in tracked_sizes().items()
           if size > FILE_LIMIT and not name.startswith(LARGE_FILES_HOME)}
    assert not big, (
        f"tracked files over {FILE_LIMIT // MIB} MiB outside {LARGE_FILES_HOME}: "
        + ", ".join(f"{name} ({size / MIB:.1f} MiB)" for name, size in sorted(big.items()))
        + ". A run's checkpoint is committed only while the run is going on, replacing the previous one"
    )


def test_the_budget_is_checked_against_real_sizes():
    # the two tests above pass on an empty listing too: the shipped networks are listed, at their size on disk
    sizes = tracked_sizes()
    shipped = REPO / "agents" / "data" / "pretrained.pt"
    assert sizes["agents/data/pretrained.pt"] == shipped.stat().st_size > 0
    assert "README.md" in sizes and all(size >= 0 for size in sizes.values())
