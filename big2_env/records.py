"""Results files that do not hold the machine they were made on.

A run's ``args.json``, a leaderboard's JSON or a benchmark's figures name the files they used: his
parameter file, a model, a run folder. Given as absolute paths, those would put the machine's layout
(``/work/runs/...``, ``/home/NAME/...``) into every committed record. The writers pass what they record
through :func:`portable` first:

* a path inside the repository becomes relative to it (``experiments/results/learner/c/model.pt``);
* any other absolute path becomes the file's name (``modelParameters136500``), with its folder's name
  for a run folder's generic files (``c_run/model.pt``, not ``model.pt`` alone);
* a relative path, a name or an agent spec without a path is left as it is; an agent spec keeps its
  form (``charlesworth:/work/charlesworth/modelParameters136500`` becomes
  ``charlesworth:modelParameters136500``).

:func:`machine_paths` finds what is left to mend in a text (``tests/docs/test_records.py`` scans the
committed results files with it).

Example:
    >>> portable("charlesworth:/work/charlesworth/modelParameters136500")
    'charlesworth:modelParameters136500'
    >>> portable({"out": "/work/runs/long_paper", "init": "/tmp/swa/c_run/model.pt", "games": 512})
    {'out': 'long_paper', 'init': 'c_run/model.pt', 'games': 512}
    >>> portable(["runs/ppo", "pretrained", "--agent /home/ann/m.pt --games 10"])
    ['runs/ppo', 'pretrained', '--agent m.pt --games 10']
    >>> machine_paths('"agent": "/work/runs/c_run/model.pt", "url": "https://example.org/home/x"')
    ['/work/runs/c_run/model.pt']
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import Any

__all__ = ["MACHINE_ROOTS", "REPO_ROOT", "machine_paths", "portable", "portable_path", "publish_record"]

REPO_ROOT = Path(__file__).resolve().parents[1]
"""The folder that holds this ``big2_env`` (the checkout, for an editable install)."""

RUN_FILES = frozenset({"model.pt", "checkpoint.pt", "args.json", "metrics.csv", "train_log.csv"})
"""The files every ``big2 train`` run folder has: their name alone would not say which run."""

MACHINE_ROOTS = ("work", "root", "home", "tmp", "Users", "mnt", "scratch", "private", "var/folders")
"""The top folders whose paths are a machine's own (a home, a scratch disk, a temporary folder)."""

_ABSOLUTE = re.compile(r"(?<![\w.~/\\-])/(?:[\w.+@%-]+/)+[\w.+@%-]+/?")
"""An absolute POSIX path of two parts or more, standing alone or after ``:``, ``=``, a quote or a space
(not a URL's path, nor a lone ``/1e6``)."""

_MACHINE = re.compile(
    r"(?<![\w.~/\\-])/(?:" + "|".join(re.escape(root) for root in MACHINE_ROOTS) + r")/[^\s\"'`,;)\]]*"
    r"|\b[A-Za-z]:(?:\\\\|\\|/)(?:Users|Documents and Settings)(?:\\\\|\\|/)[^\s\"'`,;)\]]*"
)
"""A path of one of :data:`MACHINE_ROOTS`, or a Windows user folder."""


def portable_path(path: str) -> str:
    """``path`` without the machine's layout: relative to the repository when inside it, else the
    file's name (with its folder's for a run folder's files); a relative path unchanged.

    >>> portable_path("/work/runs/rand100/model.pt"), portable_path("runs/x"), portable_path("/tmp/exp/d96/")
    ('rand100/model.pt', 'runs/x', 'd96')
    """
    if not path.startswith("/"):
        return path
    pure = PurePosixPath(path)
    try:
        return str(Path(path).resolve().relative_to(REPO_ROOT))
    except ValueError:
        pass
    if pure.name in RUN_FILES and pure.parent.name:
        return f"{pure.parent.name}/{pure.name}"
    return pure.name


def portable(value: Any) -> Any:
    """``value`` (a string, or a JSON-like dict, list or tuple of them) with every absolute path in its
    strings replaced by :func:`portable_path`'s form; dict keys are mended too, other values kept."""
    if isinstance(value, str):
        return _ABSOLUTE.sub(lambda match: portable_path(match.group(0)), value)
    if isinstance(value, dict):
        return {portable(key): portable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(portable(item) for item in value)
    return value


def machine_paths(text: str) -> list[str]:
    """The paths of a machine's own folders (:data:`MACHINE_ROOTS`, a Windows user folder) in ``text``,
    in order; URLs and relative paths are not counted."""
    return [match.group(0) for match in _MACHINE.finditer(text)]


def publish_record(record: Any, path: str | Path | None = None) -> None:
    """Print a benchmark's results ``record`` as JSON and, given ``path``, write it there too (its
    folder made as needed): what the benchmarks that time the README's commands end with."""
    import json

    text = json.dumps(record, indent=1)
    print(text)
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text + "\n")
