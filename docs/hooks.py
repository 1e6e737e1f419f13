"""mkdocs hook: the benchmark reports and their figures become pages of the site, read from where they live.

``benchmarks/reproduction/REPORT.md`` is the reproduction report, ``experiments/results/ablation/REPORT.md``
the network ablation; both stay the one copy (the benchmark scripts write them), and their
pictures come along. The search's strength curve pictures are added for the opponents page and its studies,
the leaderboard boards' pictures (``benchmarks/leaderboard/*.png``) for the leaderboard, and the
training tutorial's learning curve (``benchmarks/tutorial/learning_curves.png``). The research
record, ``experiments/*.md`` (one page a study, ``experiments/README.md`` its index), becomes the
site's ``experiments/`` section.

Every figure a page marks (``<!-- fig FILE KEY FORMAT -->...<!-- /fig -->``,
:mod:`tools.figures`) is filled in from its results file as the page is built, so the
site always shows what the benchmarks wrote. This file itself is kept out of the site
(``exclude_docs`` in ``mkdocs.yml``).
"""

from __future__ import annotations

import posixpath
import re
import sys
from pathlib import Path

from mkdocs.structure.files import File, Files

REPO = Path(__file__).resolve().parents[1]

PAGES = {  # site path -> file in the repository
    "reproduction/index.md": "benchmarks/reproduction/REPORT.md",
    "ablation/index.md": "experiments/results/ablation/REPORT.md",
    "search/strength_vs_budget.png": "experiments/results/search/strength_vs_budget.png",
    "search/strength_vs_time.png": "experiments/results/search/strength_vs_time.png",
    "ablation/distill_curve/learning_curves.png": "experiments/results/ablation/distill_curve/learning_curves.png",
    "experiments/index.md": "experiments/README.md",
    "tutorial/learning_curves.png": "benchmarks/tutorial/learning_curves.png",  # the training tutorial's run
    "performance/env_speed.png": "benchmarks/core/env_speed.png",  # tools.pictures draws these two
    "jax/speed.png": "benchmarks/jax/speed.png",
    "agents/learning_curves.png": "experiments/results/long/paper/learning_curves.png",  # the default recipe's long run
}


def site_uri(path: Path) -> str | None:
    """The site path of a repository file that the site shows (a docs page, a mapped file, a study), or None."""
    relative = path.resolve().relative_to(REPO).as_posix() if path.resolve().is_relative_to(REPO) else None
    if relative is None:
        return None
    if relative.startswith("docs/"):
        return relative[len("docs/"):]
    if relative.startswith("experiments/") and relative.endswith(".md"):
        return "experiments/index.md" if relative == "experiments/README.md" else relative
    return next((uri for uri, source in PAGES.items() if source == relative), None)


LINK = re.compile(r"\]\(([^)#\s:]+\.md)(#[^)\s]*)?\)")


def relink(markdown: str, source: Path, uri: str) -> str:
    """A page kept outside ``docs/`` links as it does in the repository; on the site each such link
    points at the site path of the same file."""

    def fix(match: re.Match[str]) -> str:
        target = site_uri(source.parent / match.group(1))
        if target is None:
            return match.group(0)
        link = posixpath.relpath(target, posixpath.dirname(uri) or ".")
        return f"]({link}{match.group(2) or ''})"

    return LINK.sub(fix, markdown)


def on_page_markdown(markdown: str, page, config, files) -> str:
    """The page with each marked figure replaced by its results file's value (the comments go), and
    the links of a page kept outside ``docs/`` pointed at the site's copies."""
    if str(REPO) not in sys.path:  # the checkout's tools (mkdocs does not put the working folder on the path)
        sys.path.insert(0, str(REPO))
    from tools.figures import fill

    source = Path(page.file.abs_src_path or page.file.src_uri)
    if source.is_absolute() and source.resolve().is_relative_to(REPO) and not source.resolve().is_relative_to(REPO / "docs"):
        markdown = relink(markdown, source, page.file.src_uri)
    return fill(markdown, REPO, keep_markers=False, page=source)


def on_files(files: Files, config) -> Files:
    wanted = dict(PAGES)
    for picture in sorted((REPO / "benchmarks" / "reproduction").glob("*.png")):
        wanted[f"reproduction/{picture.name}"] = str(picture.relative_to(REPO))
    for picture in sorted((REPO / "benchmarks" / "leaderboard").glob("*.png")):  # the boards' pictures
        wanted[f"leaderboard/{picture.name}"] = str(picture.relative_to(REPO))
    for study in sorted((REPO / "experiments").glob("*.md")):  # the research record, a page a study
        if study.name != "README.md":
            wanted[f"experiments/{study.name}"] = str(study.relative_to(REPO))
    for uri, source in wanted.items():
        path = REPO / source
        if not path.is_file():
            raise FileNotFoundError(f"docs/hooks.py: {source} is missing (the site shows it as {uri})")
        files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


# ------------------------------------------------------------------ doctests in docstrings
# The docstrings are written for both pytest's doctests and plain reading: interactive examples
# (">>> ...") stand in the text. Markdown would read them as block quotes and "[a][b]" in their
# output as reference links, so this extension fences each run of them as a Python console block.

from markdown import Extension  # noqa: E402
from markdown.preprocessors import Preprocessor  # noqa: E402


class _DoctestBlocks(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        fenced = False
        i = 0
        while i < len(lines):
            line = lines[i]
            stripped = line.lstrip()
            if stripped.startswith(("```", "~~~")):
                fenced = not fenced
            if not fenced and stripped.startswith(">>>"):
                indent = line[: len(line) - len(stripped)]
                block = []
                while i < len(lines) and lines[i].strip():
                    block.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
                    i += 1
                out += ["", indent + "```pycon"] + [indent + b for b in block] + [indent + "```", ""]
                continue
            out.append(line)
            i += 1
        return out


class DoctestBlocks(Extension):
    def extendMarkdown(self, md) -> None:  # noqa: N802 - Python-Markdown's name
        md.preprocessors.register(_DoctestBlocks(md), "big2_doctest_blocks", 40)


def on_config(config):
    config.markdown_extensions.append(DoctestBlocks())
    return config
