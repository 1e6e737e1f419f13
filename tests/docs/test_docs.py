"""Every code block of the README and of the documentation pages (docs/*.md) runs, and the
outputs they show are the outputs they print. The site itself builds with ``mkdocs build --strict``
in .ci/run; here, what the pages claim is checked.

* ```` ```python ```` blocks run in a fresh namespace; when the next block is a
  ```` ```text ```` block introduced by a line ending in "prints:" (nothing else in
  between), what the code printed must equal it exactly.
* ```` ```bash ```` blocks: ``pip install`` steps are what ``.ci/run`` itself runs (checked
  here: the README's test command is in it); every ``big2`` / ``python`` command runs in a
  scratch folder (one per page, the page's commands in order). Long runs are cut short by appending flags that only bound their
  budget (``--stop-after``, fewer evaluation games); everything else is as written.
* ```` ```text ```` blocks are output or synopses, ```` ```mermaid ```` blocks diagrams; any other fence is refused, so that
  nothing executable hides from this test.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import re
import shlex
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
PAGES = [README] + sorted((REPO / "docs").glob("*.md"))
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)


def blocks(page: Path = README) -> list[tuple[str, str, int, str]]:
    """(language, code, line number, the text between this block and the next) for each fenced block."""
    text = page.read_text()
    found = list(FENCE.finditer(text))
    out = []
    for i, match in enumerate(found):
        between = text[match.end() : found[i + 1].start()] if i + 1 < len(found) else ""
        out.append((match.group(1), match.group(2), text.count("\n", 0, match.start()) + 1, between))
    return out


def _name(page: Path) -> str:
    return str(page.relative_to(REPO))


def test_every_block_has_a_known_language():
    assert blocks(), "no code blocks found"
    for page in PAGES:
        for language, _, line, _ in blocks(page):
            assert language in ("python", "bash", "text", "mermaid"), f"{_name(page)} line {line}: fence language {language!r}"


def test_the_readme_is_a_newcomers_page():
    assert len(README.read_text().splitlines()) <= 300, "README.md must stay at most 300 lines (the details go in docs/)"


PYTHON = [
    (page, code, line, i)
    for page in PAGES
    for i, (language, code, line, _) in enumerate(blocks(page))
    if language == "python"
]


def _shown_output(page: Path, index: int) -> str | None:
    all_blocks = blocks(page)
    _, _, _, between = all_blocks[index]
    if index + 1 < len(all_blocks) and all_blocks[index + 1][0] == "text" and between.strip().endswith("prints:"):
        return all_blocks[index + 1][1]
    return None


OPTIONAL = {"jax": "the [jax] extra"}
"""Modules of extras that the ``[test]`` extra does not bring: a block that imports one runs only where it is installed."""


def _missing_optional(code: str) -> list[str]:
    """The :data:`OPTIONAL` modules that ``code`` imports and this environment lacks."""
    imported = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    return sorted(m for m in imported if m in OPTIONAL and find_spec(m) is None)


@pytest.mark.parametrize("page, code, line, index", PYTHON, ids=[f"{_name(p)}:{line}" for p, _, line, _ in PYTHON])
def test_python_block_runs_and_prints_what_the_page_shows(page, code, line, index, tmp_path, monkeypatch):
    missing = _missing_optional(code)
    if missing:
        pytest.skip(f"{_name(page)} line {line} needs {missing[0]} ({OPTIONAL[missing[0]]})")
    monkeypatch.chdir(tmp_path)
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        exec(compile(code, f"{_name(page)}:{line}", "exec"), {"__name__": "__docs__"})
    shown = _shown_output(page, index)
    if shown is not None:
        assert captured.getvalue() == shown, f"{_name(page)} line {line}: the output shown differs from what the code prints"


BUDGET = {  # flags appended to long commands; they bound the budget and change nothing else
    "train": ["--stop-after", "1", "--eval-games", "10", "--no-progress"],
    "eval": ["--games", "20", "--no-progress"],
    "serve": ["--no-browser", "--port", "0", "--exit-after", "1"],
}


def _commands(page: Path = README) -> list[tuple[str, int]]:
    found = []
    for language, code, line, _ in blocks(page):
        if language != "bash":
            continue
        for text in code.splitlines():
            text = text.split("#", 1)[0].strip()
            for part in (p.strip() for p in text.split("&&")):
                if part:
                    found.append((part, line))
    return found


def test_the_setup_commands_are_what_ci_runs():
    ci = (REPO / ".ci" / "run").read_text()
    setup = [c for c, _ in _commands() if c.startswith("pip install")]
    assert setup, "the README names no set-up command"
    test_line = next(code for language, code, _, _ in blocks() if language == "bash" and "pytest" in code)
    test_command = next(line.split("#")[0].strip() for line in test_line.splitlines() if "pytest" in line)
    assert test_command in ci, f".ci/run must run the README's test command {test_command!r}"
    for page in PAGES:  # the pages repeat the set-up commands as the README gives them
        for command, line in _commands(page):
            if command.startswith("pip install") or "pytest" in command:
                assert command in ci or command in {c for c, _ in _commands()} or "[docs]" in command, (
                    f"{_name(page)} line {line}: {command!r} is neither the README's nor CI's"
                )


SETUP = ("git clone ", "cd big2-env", "pip install", "python -m venv", ". .venv/bin/activate")
"""The set-up steps: the test runs in the checkout and the environment they make, so it does not repeat
them (a clone needs the network and the project's address, which the page leaves to the reader)."""


def _runnable(page: Path) -> list[tuple[str, int]]:
    return [(c, line) for c, line in _commands(page) if not c.startswith(SETUP) and "pytest" not in c]


def test_the_setup_clones_shallow_then_starts_from_a_virtual_environment():
    # the history holds finished runs' checkpoints: the README clones the latest commit only, says why with
    # the sizes it measured, then makes a venv (a fresh machine's Python may be externally managed)
    sizes = json.loads((REPO / "benchmarks" / "clone" / "sizes.json").read_text())
    for page in (README, REPO / "docs" / "getting-started.md"):
        commands = [command for command, _ in _commands(page)]
        commands = commands[next(i for i, c in enumerate(commands) if c.startswith("git clone")):]  # the set-up's
        assert re.fullmatch(r"git clone --depth 1 \S+ big2-env", commands[0]), (_name(page), commands[0])
        assert commands[1:4] == ["cd big2-env", "python -m venv .venv", ". .venv/bin/activate"], (_name(page), commands)
        block = next(code for language, code, _, _ in blocks(page) if language == "bash" and "git clone" in code)
        said = re.search(r"(\d+) MiB download where the whole history is (\d+) MiB", block)
        assert said, _name(page)
        # a code block cannot carry figure markers: its sizes are checked against the file the README quotes
        assert (int(said[1]), int(said[2])) == (round(sizes["shallow"]["git_mib"]), round(sizes["full"]["git_mib"])), (
            _name(page), said[0],
            "python benchmarks/setup_time.py --measure clone --json benchmarks/clone/sizes.json measured otherwise")
    measured = r"measured on (<!-- fig [^>]*-->)?\d{4}-\d\d-\d\d(<!-- /fig -->)? by cloning"
    testing = (REPO / "docs" / "testing.md").read_text()
    assert re.search(measured, testing), "the testing page says how the set-up was measured"
    assert "docs/testing.md#setting-up-measured" in README.read_text(), "the README links to the measurements"


def test_the_readme_training_example_is_short_and_timed():
    # the example's run finishes in minutes and says how long, right after its block, as a figure read from what
    # benchmarks/setup_time.py --measure quick-train measured (tests/benchmarks/test_quick_train_time.py: the same
    # commands); the full run comes after it, with its time
    train = next((c, line) for c, line in _commands() if c.startswith("big2 train"))
    argv = shlex.split(train[0])
    assert "--batches" in argv and int(argv[argv.index("--batches") + 1]) <= 50, train
    text = README.read_text()
    _, _, _, after = next(found for found in blocks() if found[0] == "bash" and "big2 train" in found[1])
    timed = r"\s*The training took <!-- fig benchmarks/setup/quick_train\.json steps\.train\.seconds [^>]*-->\d+<!-- /fig --> s\b"
    assert re.match(timed, after), "the training example is not followed by its measured time"
    assert re.search(r"full run is `big2 train[^`]*`[\s\S]{0,300}?hours", text), "the full run and its time follow the example"


def test_training_command_order_is_kept():
    # the training block's commands depend on each other (train, resume, plot, eval); they run in order below
    agents_page = REPO / "docs" / "agents.md"
    assert [c.split()[1] for c, _ in _runnable(agents_page) if c.startswith("big2 ")][:3] == ["train", "train", "plot"]


@pytest.mark.parametrize("page", [p for p in PAGES if _runnable(p)], ids=_name)
def test_bash_blocks_run(page, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO), MPLBACKEND="Agg")
    for command, line in _runnable(page):
        argv = shlex.split(command)
        if argv[0] == "big2":
            argv = [sys.executable, "-m", "big2_env.cli"] + argv[1:]
            subcommand = argv[3]
            if subcommand == "eval" and "--games" in argv:
                at = argv.index("--games")
                del argv[at : at + 2]
            argv += BUDGET.get(subcommand, [])
        elif argv[0] == "python":
            argv[0] = sys.executable
        elif argv[0] == "mkdocs":
            continue  # the site is built by .ci/run (mkdocs build --strict), not by the tests
        done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, (
            f"{_name(page)} line {line}: {command!r} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        )
