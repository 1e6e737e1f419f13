"""Check the import graph: no circles (imports inside functions included), big2_env never imports
``agents``, and each big2_env subpackage imports only the layers below it.

Run it from the repository root (exit status 1 and a report when anything is wrong)::

    python -m tools.imports            # big2_env and agents, beside this big2_env
    python -m tools.imports --root DIR big2_env agents

How the graph is read (from the source files, with :mod:`ast`; nothing is imported):

* every ``import`` and ``from ... import`` statement counts, wherever it stands: at module
  level, inside a function, under ``if TYPE_CHECKING:``, in a ``try``;
* ``from package import name`` is an edge to ``package.name`` when that is a module, else to
  ``package`` (its ``__init__``); ``import a.b.c`` is an edge to ``a.b.c``. Importing a
  submodule also runs its parents' ``__init__`` files, but that is not counted as an edge
  (otherwise every package that re-exports its modules' names would be a circle);
* only modules of the scanned packages are nodes: the standard library and third-party
  packages are not.

The layer contracts (:data:`LAYERS`, :data:`AGENT_LAYERS`) are the architecture of big2_env and
agents. big2_env's: the engine at the bottom, then observations, render, players, evaluation, envs,
the JAX core and the web table, with the command line at the top. agents': settings, networks and
policies, collection, learners, the training loop. A module may import its own layer and those
below it. :data:`SHARED` modules (checks, errors, plugins, records) import no layer and may be imported from anywhere.

Example:
    >>> report = check(SOURCE_ROOT)
    >>> report.ok, report.cycles, report.upward
    (True, [], [])
"""

from __future__ import annotations

import argparse
import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["AGENT_LAYERS", "Edge", "LAYERS", "Report", "SHARED", "check", "find_cycles", "import_graph", "main"]

LAYERS = ("engine", "observations", "render", "players", "evaluation", "envs", "jax", "web", "cli")
"""big2_env's subpackages (and ``cli``), lowest first: each may import only itself and those before it."""

AGENT_LAYERS = (
    ("config", "runlog", "shipped", "plot"),
    ("network", "checkpoint", "policy", "average", "pretrained", "net_search"),
    ("collect", "curriculum"),
    ("learners",),
    ("trainer", "train", "plugin"),
)
"""agents' modules and subpackages in layers, lowest first: settings and files; the networks and the
policies and searches over them; collection (it only plays games); the learners (they may use the
collectors, and run the helper processes that share PPO's gradients); the training loop and the
``big2_env`` plugin. Each may import only its own layer and those before it."""

SHARED = ("checks", "errors", "plugins", "records")
"""big2_env modules outside the layers: they import no layer, and any layer may import them."""

SOURCE_ROOT = Path(__file__).resolve().parents[1]
"""The folder that holds this ``big2_env`` (the checkout, for an editable install)."""

FORBIDDEN = (("big2_env", "agents"),)
"""(importer package, imported package) pairs that must never appear: the environment never knows its learners."""


@dataclass(frozen=True)
class Edge:
    """One import: ``source`` imports ``target`` at ``path:line``."""

    source: str
    target: str
    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.source} -> {self.target} ({self.path}:{self.line})"


@dataclass
class Report:
    """What :func:`check` found."""

    modules: int
    edges: int
    cycles: list[list[Edge]] = field(default_factory=list)
    forbidden: list[Edge] = field(default_factory=list)
    upward: list[Edge] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.cycles or self.forbidden or self.upward)

    def text(self) -> str:
        lines = [f"{self.modules} modules, {self.edges} imports between them"]
        for cycle in self.cycles:
            lines.append("import circle: " + " -> ".join([cycle[0].source] + [e.target for e in cycle]))
            lines += [f"    {e}" for e in cycle]
        for edge in self.forbidden:
            lines.append(f"forbidden import: {edge}")
        for edge in self.upward:
            lines.append(f"layer broken (a lower layer imports a higher one): {edge}")
        if self.ok:
            lines.append("no import circles; big2_env imports nothing of agents; every layer of each imports only those below it")
        return "\n".join(lines)


def _modules(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in packages:
        base = root / package
        if not (base / "__init__.py").is_file():
            raise FileNotFoundError(f"no package {package!r} under {root} (no {base / '__init__.py'})")
        for path in sorted(base.rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if any(not p.isidentifier() for p in parts):
                continue  # not importable (e.g. a data folder with a dash)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def import_graph(root: Path, packages: tuple[str, ...] = ("big2_env", "agents")) -> tuple[dict[str, Path], list[Edge]]:
    """The modules of ``packages`` under ``root`` and every import between them."""
    modules = _modules(root, packages)
    edges: list[Edge] = []
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        package_parts = name.split(".") if is_package else name.split(".")[:-1]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        shown = str(path.relative_to(root))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [_deepest(alias.name, modules) for alias in node.names]
            else:
                if node.level:
                    keep = len(package_parts) - (node.level - 1)
                    if keep <= 0:
                        continue
                    base = ".".join(package_parts[:keep] + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append(sub if sub in modules else _deepest(base, modules))
            for target in dict.fromkeys(targets):  # once per statement and target
                if target and target in modules and target != name:
                    edges.append(Edge(name, target, shown, node.lineno))
    return modules, edges


def _deepest(dotted: str, modules: dict[str, Path]) -> str:
    """The longest prefix of ``dotted`` that is a scanned module ('' if none)."""
    parts = dotted.split(".")
    for n in range(len(parts), 0, -1):
        candidate = ".".join(parts[:n])
        if candidate in modules:
            return candidate
    return ""


def find_cycles(edges: list[Edge]) -> list[list[Edge]]:
    """One circle (as its edges) for every strongly connected group of modules (Tarjan's algorithm)."""
    graph: dict[str, list[Edge]] = {}
    for edge in edges:
        graph.setdefault(edge.source, []).append(edge)
        graph.setdefault(edge.target, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:  # iterative, so deep graphs cannot overflow the recursion limit
        nonlocal counter
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for edge in children:
                child = edge.target
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_circle_in(group, graph) for group in groups]


def _circle_in(group: list[str], graph: dict[str, list[Edge]]) -> list[Edge]:
    """A shortest circle through the group's first module (breadth-first within the group)."""
    members, start = set(group), group[0]
    previous: dict[str, Edge] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for edge in graph[node]:
                if edge.target not in members:
                    continue
                if edge.target == start:
                    path = [edge]
                    while path[0].source != start:
                        path.insert(0, previous[path[0].source])
                    return path
                if edge.target not in previous:
                    previous[edge.target] = edge
                    following.append(edge.target)
        frontier = following
    raise AssertionError("a strongly connected group always holds a circle")


def _layer(module: str) -> tuple[str, int] | None:
    """``(package, layer index)`` of a module of big2_env's :data:`LAYERS` or agents' :data:`AGENT_LAYERS`."""
    parts = module.split(".")
    if len(parts) < 2:
        return None
    if parts[0] == "big2_env":
        return ("big2_env", LAYERS.index(parts[1])) if parts[1] in LAYERS else None
    if parts[0] == "agents":
        found = [i for i, layer in enumerate(AGENT_LAYERS) if parts[1] in layer]
        return ("agents", found[0]) if found else None
    return None


def check(root: Path, packages: tuple[str, ...] = ("big2_env", "agents")) -> Report:
    """Read the import graph of ``packages`` under ``root`` and report circles, forbidden and upward imports."""
    modules, edges = import_graph(Path(root), packages)
    report = Report(modules=len(modules), edges=len(edges), cycles=find_cycles(edges))
    for edge in edges:
        source_top, target_top = edge.source.split(".")[0], edge.target.split(".")[0]
        if (source_top, target_top) in FORBIDDEN:
            report.forbidden.append(edge)
        source_layer, target_layer = _layer(edge.source), _layer(edge.target)
        shared_source = source_top == "big2_env" and edge.source.split(".")[1:2] and edge.source.split(".")[1] in SHARED
        if source_layer is not None and target_layer is not None and source_layer[0] == target_layer[0] and (
            target_layer[1] > source_layer[1]
        ):
            report.upward.append(edge)
        elif shared_source and target_layer is not None:
            report.upward.append(edge)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.imports",
        description="Fail on any import circle, any import of agents from big2_env, and any upward import between "
        "big2_env's layers.",
    )
    parser.add_argument("packages", nargs="*", default=["big2_env", "agents"], help="packages to scan (default both)")
    parser.add_argument(
        "--root", type=Path, default=SOURCE_ROOT, help=f"the folder holding the packages (default: this checkout, {SOURCE_ROOT})"
    )
    args = parser.parse_args(argv)
    try:
        report = check(args.root, tuple(args.packages))
    except (FileNotFoundError, SyntaxError) as err:
        parser.exit(2, f"{parser.prog}: error: {err}\n")
    print(report.text())
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
