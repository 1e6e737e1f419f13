r"""One source for every stated figure: the pages quote the results files that benchmarks write.

A figure in the README, a documentation page or a study of the research record (``experiments/``)
stands between two HTML comments that name its source, which GitHub and the site both hide::

    <!-- fig benchmarks/core/env_speed.json rows.8.decisions_per_s ,.0f -->190,418<!-- /fig -->

The opening comment holds the results file (relative to the repository root; JSON, or a CSV
log such as a run's ``metrics.csv``, read as a list of rows), the key (dotted:
``rows.8.decisions_per_s`` is ``data["rows"][8]["decisions_per_s"]``; a number picks a list
item, ``FIELD=VALUE[,FIELD=VALUE]`` the one list item whose fields have those values, a word a
mapping key; ``\.`` is a dot inside a key, as in ``forks.entropy_0\.01.win_rate``) and,
optionally, scalings (``*100``, ``/1e6``) then one Python format spec (``,.0f``, ``.2f``,
``.1%``, ``+.2f``; without one the value is written as ``str`` would).
Between the comments stands the figure as the file gives it.

* ``python -m tools.figures`` checks every page and exits 1 listing each figure
  that disagrees with its file (``tests/docs/test_figures.py`` runs the same check);
* ``python -m tools.figures --write`` rewrites the stale figures in place, after a
  benchmark has written new results;
* the site's hook (``docs/hooks.py``) fills every page from the files when the site is built.

Example:
    >>> data = {"rows": [{"decisions_per_s": 190418.496}], "ratio": 3.38}
    >>> render_value(data, "rows.0.decisions_per_s", [",.0f"])
    '190,418'
    >>> render_value({"win_rate": 0.2712}, "win_rate", [".1%"])
    '27.1%'
    >>> render_value({"rate": 6573090.4}, "rate", ["/1e6", ".2f"])
    '6.57'
    >>> rows = [{"games": 512, "opponent": "smart", "win_rate": 0.3}, {"games": 512, "opponent": "greedy", "win_rate": 0.5}]
    >>> render_value(rows, "games=512,opponent=greedy.win_rate", [".0%"])
    '50%'
    >>> render_value({"entropy_0.01": {"win_rate": 0.25}}, r"entropy_0\.01.win_rate", [".0%"])
    '25%'
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["MARKER", "Figure", "FigureError", "PAGES", "check", "figures", "fill", "main", "render_value", "write"]

REPO = Path(__file__).resolve().parents[1]
"""The checkout (this module sits in ``tools``)."""

PAGES = ("README.md", "docs/*.md", "experiments/*.md", "experiments/results/*/README.md", "agents/data/README.md",
         "benchmarks/README.md", "benchmarks/*/README.md")
"""The pages whose figures are checked, as globs relative to the repository root."""

MARKER = re.compile(r"<!-- fig (?P<spec>[^>]*?) -->(?P<shown>.*?)<!-- /fig -->", re.S)
"""A marked figure: the source in the opening comment, the stated figure up to ``<!-- /fig -->``."""


class FigureError(ValueError):
    """A marker that names no readable figure: a missing file or key, a bad scaling or format."""


@dataclass(frozen=True)
class Figure:
    """One marked figure of a page: where it stands, what it names and what the page states."""

    page: Path
    line: int
    spec: str
    shown: str

    def expected(self, load: Callable[[str], Any]) -> str:
        """The figure as its results file gives it (``load`` reads a file by its repository path)."""
        parts = self.spec.split()
        if len(parts) < 2:
            raise FigureError(f"{self.where}: a figure marker needs a file and a key, got {self.spec!r}")
        return render_value(load(parts[0]), parts[1], parts[2:], source=parts[0])

    @property
    def where(self) -> str:
        try:
            name = str(self.page.relative_to(REPO))
        except ValueError:
            name = str(self.page)
        return f"{name}:{self.line}"


def _lookup(data: Any, key: str, source: str) -> Any:
    value = data
    for part in (piece.replace("\\.", ".") for piece in re.split(r"(?<!\\)\.", key)):
        if isinstance(value, list) and "=" in part:
            value = _select(value, part, key, source)
        elif isinstance(value, list) and part.lstrip("-").isdigit():
            index = int(part)
            if not -len(value) <= index < len(value):
                raise FigureError(f"{source}: {key!r}: index {index} is outside a list of {len(value)}")
            value = value[index]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            raise FigureError(f"{source}: no {part!r} at {key!r}")
    return value


def _select(items: list[Any], part: str, key: str, source: str) -> Any:
    """The one item of ``items`` whose fields equal ``part``'s ``FIELD=VALUE`` pairs (compared as text)."""
    try:
        wanted = dict(pair.split("=", 1) for pair in part.split(","))
    except ValueError:
        raise FigureError(f"{source}: {key!r}: {part!r} is not FIELD=VALUE[,FIELD=VALUE]") from None
    found = [item for item in items
             if isinstance(item, dict) and all(k in item and str(item[k]) == v for k, v in wanted.items())]
    if len(found) != 1:
        raise FigureError(f"{source}: {key!r}: {len(found)} items match {part!r}; a figure names exactly one")
    return found[0]


def _number(text: str) -> Any:
    """A CSV cell as the number it writes (int, else float), else the text."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _read(path: Path) -> Any:
    if path.suffix == ".csv":
        with path.open(newline="") as handle:
            return [{k: _number(v) for k, v in row.items()} for row in csv.DictReader(handle)]
    return json.loads(path.read_text())


def render_value(data: Any, key: str, ops: Iterable[str] = (), source: str = "the results") -> str:
    """The value at ``key`` of ``data``, scaled by each ``*X`` / ``/X`` in ``ops`` and formatted by
    the last other op (a Python format spec)."""
    value = _lookup(data, key, source)
    spec = None
    for op in ops:
        if op[:1] in ("*", "/") and len(op) > 1:
            try:
                factor = float(op[1:])
                value = value * factor if op[0] == "*" else value / factor
            except (TypeError, ValueError, ZeroDivisionError):
                raise FigureError(f"{source}: {key!r}: cannot scale {value!r} by {op!r}") from None
        elif spec is None:
            spec = op
        else:
            raise FigureError(f"{source}: {key!r}: two format specs, {spec!r} and {op!r}")
    if spec is None:
        return str(value)
    try:
        return format(value, spec)
    except (TypeError, ValueError):
        raise FigureError(f"{source}: {key!r}: cannot format {value!r} with {spec!r}") from None


def _reader(root: Path) -> Callable[[str], Any]:
    cache: dict[str, Any] = {}

    def load(name: str) -> Any:
        if name not in cache:
            path = root / name
            try:
                cache[name] = _read(path)
            except FileNotFoundError:
                raise FigureError(f"no results file {name!r}") from None
            except json.JSONDecodeError as err:
                raise FigureError(f"{name}: not JSON: {err}") from None
        return cache[name]

    return load


def figures(text: str, page: Path) -> list[Figure]:
    """The marked figures of a page's text, in order."""
    return [
        Figure(page, text.count("\n", 0, m.start()) + 1, m.group("spec").strip(), m.group("shown"))
        for m in MARKER.finditer(text)
    ]


def pages(root: Path = REPO) -> list[Path]:
    """The pages that :data:`PAGES` names, in a fixed order."""
    found: list[Path] = []
    for pattern in PAGES:
        found += sorted(p for p in root.glob(pattern) if p.is_file())
    return found


def fill(text: str, root: Path = REPO, keep_markers: bool = True, page: Path | None = None) -> str:
    """``text`` with every marked figure replaced by its file's value; without ``keep_markers``
    the comments go too (what the site shows)."""
    load = _reader(root)
    where = page or Path("<text>")

    def replace(match: re.Match[str]) -> str:
        figure = Figure(where, text.count("\n", 0, match.start()) + 1, match.group("spec").strip(), match.group("shown"))
        value = figure.expected(load)
        return f"<!-- fig {figure.spec} -->{value}<!-- /fig -->" if keep_markers else value

    return MARKER.sub(replace, text)


def check(root: Path = REPO, paths: Iterable[Path] | None = None) -> list[str]:
    """One line per figure that disagrees with its file (or names none); empty when all agree."""
    load = _reader(root)
    problems = []
    for path in pages(root) if paths is None else paths:
        for figure in figures(path.read_text(), path):
            try:
                expected = figure.expected(load)
            except FigureError as err:
                problems.append(f"{figure.where}: {err}")
                continue
            if figure.shown != expected:
                problems.append(f"{figure.where}: states {figure.shown!r}, {figure.spec.split()[0]} gives {expected!r}")
    return problems


def write(root: Path = REPO, paths: Iterable[Path] | None = None) -> list[Path]:
    """Rewrite each page's stale figures from their files; returns the pages changed."""
    changed = []
    for path in pages(root) if paths is None else paths:
        text = path.read_text()
        new = fill(text, root, page=path)
        if new != text:
            path.write_text(new)
            changed.append(path)
    return changed


def user_pages(root: Path = REPO) -> list[Path]:
    """The pages a user reads: the README and the documentation pages (not the research record)."""
    return [root / "README.md"] + sorted((root / "docs").glob("*.md"))


_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"\]\([^)]*\)|https?://\S+")
_MEASURED = re.compile(r"(?<![\w.])[+-]?(?:\d+(?:\.\d+)?\s?%|\d{1,3}(?:,\d{3})+|\d+\.\d+)(?![\w.])")
CONVENTIONS = frozenset({"95%", "25%", "50%", "100%"})
"""Percentages that are choices, not measurements: the intervals' level, the four-seat parity."""
WRITTEN = "<!-- written by "
"""The first-lines mark of a page that a script writes from results files (its numbers are read, not typed)."""


def untagged_numbers(text: str) -> list[str]:
    """The measured-looking numbers of a page's prose that no figure tag holds: decimals, percentages and
    thousands (``3.38``, ``47.3%``, ``+0.55``, ``12,700``), outside code blocks, code spans, links and
    comments; :data:`CONVENTIONS` and version numbers (``Python 3.11``) do not count.

    >>> untagged_numbers("won 47.3% (<!-- fig a.json x .1% -->55.0%<!-- /fig -->), `lr 3e-4`, 95% intervals, Python 3.11")
    ['47.3%']
    """
    if WRITTEN in text[:500]:
        return []
    for pattern in (_FENCE, MARKER, _COMMENT, _CODE_SPAN, _LINK):
        text = pattern.sub(" ", text)
    text = re.sub(r"(?i)\b(python|pettingzoo|gymnasium|numpy|torch|jax|version|v)\s+\d+(\.\d+)+", " ", text)
    return [n for n in _MEASURED.findall(text) if n.replace(" ", "") not in CONVENTIONS]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.figures",
        description="Check (or --write) the figures the README and the docs quote from the benchmarks' results files.",
    )
    parser.add_argument("--write", action="store_true", help="rewrite stale figures in place from their files")
    parser.add_argument("--untagged", action="store_true",
                        help="list the measured-looking numbers each page states without a figure tag")
    parser.add_argument("--root", type=Path, default=REPO, help="the repository root (default: this checkout)")
    args = parser.parse_args(argv)
    if args.untagged:
        total = 0
        for path in user_pages(args.root):
            found = untagged_numbers(path.read_text())
            total += len(found)
            if found:
                print(f"{path.relative_to(args.root)}: {len(found)}: {' '.join(found)}")
        print(f"{total} untagged measured number(s)")
        return 0
    if args.write:
        try:
            changed = write(args.root)
        except FigureError as err:
            print(f"figures: {err}", file=sys.stderr)
            return 1
        for path in changed:
            print(f"updated {path.relative_to(args.root)}")
        return 0
    problems = check(args.root)
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        print(f"{len(problems)} figure(s) disagree with their files: python -m tools.figures --write",
              file=sys.stderr)
        return 1
    print(f"every marked figure agrees with its file ({sum(len(figures(p.read_text(), p)) for p in pages(args.root))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
