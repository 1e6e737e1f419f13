"""The stated figures have one source: each marked figure of the README and the docs equals what its
results file gives (:mod:`tools.figures`), and the site fills them in from the files."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from tests.scripts import load_script

from tools import figures
from tools.figures import FigureError, check, fill, main, render_value, write

REPO = Path(__file__).resolve().parents[2]


def test_every_marked_figure_agrees_with_its_results_file():
    assert not check(), "\n".join(check())


def test_the_headline_tables_are_marked():
    # the README's and the home page's headline figures come from results files, not from typing
    for page, least in (("README.md", 20), ("docs/index.md", 8)):
        found = figures.figures((REPO / page).read_text(), REPO / page)
        assert len(found) >= least, f"{page}: {len(found)} marked figures"


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "speed.json").write_text(json.dumps({"rows": [{"rate": 190418.49}], "ratio": 3.3801}))
    (tmp_path / "docs").mkdir()
    page = tmp_path / "README.md"
    page.write_text(
        "speed <!-- fig bench/speed.json rows.0.rate ,.0f -->190,418<!-- /fig --> a second, "
        "<!-- fig bench/speed.json ratio .2f -->2.25<!-- /fig -->x\n"
    )
    return tmp_path, page


def test_a_figure_that_drifted_from_its_file_is_reported(tree):
    root, page = tree
    problems = check(root)
    assert len(problems) == 1 and problems[0].endswith(":1: states '2.25', bench/speed.json gives '3.38'")
    assert main(["--root", str(root)]) == 1


def test_write_refreshes_the_stale_figure_in_place(tree):
    root, page = tree
    assert write(root) == [page]
    assert "-->3.38<!-- /fig -->x" in page.read_text()
    assert check(root) == [] and main(["--root", str(root)]) == 0


def test_a_figure_from_a_csv_log_names_its_row_by_its_fields(tree):
    root, page = tree
    (root / "bench" / "metrics.csv").write_text(
        "batch,games,opponent,win_rate\n0,0,smart,0.03\n2000,52215,smart,0.3667\n2000,52215,greedy,0.525\n")
    page.write_text("<!-- fig bench/metrics.csv games=52215,opponent=smart.win_rate .1% -->36.7%<!-- /fig --> at "
                    "<!-- fig bench/metrics.csv games=52215,opponent=smart.games ,d -->52,215<!-- /fig --> games\n")
    assert check(root) == []
    page.write_text("<!-- fig bench/metrics.csv games=52215.win_rate .1% -->36.7%<!-- /fig -->\n"
                    "<!-- fig bench/metrics.csv games=7.win_rate .1% -->1%<!-- /fig -->\n"
                    "<!-- fig bench/metrics.csv opponent.win_rate -->1<!-- /fig -->\n")
    problems = check(root)
    assert "2 items match 'games=52215'; a figure names exactly one" in problems[0]
    assert "0 items match 'games=7'" in problems[1]
    assert "no 'opponent'" in problems[2]


def test_a_missing_file_or_key_is_named(tree):
    root, page = tree
    page.write_text("<!-- fig bench/gone.json rate -->1<!-- /fig --> <!-- fig bench/speed.json rows.3.rate -->1<!-- /fig -->")
    problems = check(root)
    assert "no results file 'bench/gone.json'" in problems[0]
    assert "index 3 is outside a list of 1" in problems[1]


def test_scalings_and_formats():
    assert render_value({"x": 6573090.4}, "x", ["/1e6", ".2f"]) == "6.57"
    assert render_value({"x": 0.55}, "x", ["*100", ".0f"]) == "55"
    assert render_value({"x": -0.528}, "x", ["+.2f"]) == "-0.53"
    assert render_value({"x": {"e/a": 33.5}}, "x.e/a", [".0f"]) == "34"
    with pytest.raises(FigureError, match="cannot format"):
        render_value({"x": "fast"}, "x", [".1%"])


def test_fill_without_markers_is_what_the_site_shows(tree):
    root, page = tree
    assert fill(page.read_text(), root, keep_markers=False) == "speed 190,418 a second, 3.38x\n"


def _hooks():
    return load_script("docs/hooks.py")


def test_the_site_hook_fills_each_page_from_the_files():
    pytest.importorskip("mkdocs")
    hooks = _hooks()
    text = (REPO / "docs" / "index.md").read_text()
    page = SimpleNamespace(file=SimpleNamespace(abs_src_path=str(REPO / "docs" / "index.md"), src_uri="index.md"))
    speed = json.loads((REPO / "benchmarks" / "core" / "env_speed.json").read_text())["rows"][8]["decisions_per_s"]
    shown = f"{speed:,.0f}"  # the home page's figure for Game's speed, as its tag formats it
    assert f"-->{shown}<" in text
    built = hooks.on_page_markdown(text.replace(f"-->{shown}<", "-->1<"), page, None, None)
    assert "<!-- fig" not in built and f"{shown} decisions/s" in built


def test_the_hook_file_is_not_published():
    pytest.importorskip("mkdocs")
    from mkdocs.config import load_config
    from mkdocs.structure.files import get_files

    config = load_config(str(REPO / "mkdocs.yml"))
    found = get_files(config).get_file_from_path("hooks.py")
    assert found is None or found.inclusion.is_excluded()


def _strip_markers(text: str) -> str:
    return figures.MARKER.sub("", text)


def test_the_readme_headline_table_types_no_measured_figure():
    # every win rate, time and speed of the headline table stands in a marker; parity is a definition
    section = (REPO / "README.md").read_text().split("## Headline figures", 1)[1].split("\n## ", 1)[0]
    for row in _strip_markers(section).splitlines():
        if row.startswith("|"):
            typed = re.findall(r"\d[\d,.]*\s*(?:%|ms\b|x\b|k\b)", row.replace("parity 25%", ""))
            assert not typed, f"README.md's headline table types {typed} by hand: {row[:80]}"


def test_the_search_curve_summary_is_what_search_curve_writes():
    # the README quotes curve_summary.json: it must be today's reading of the curve_*s.json points
    curve = load_script("experiments/scripts/search_curve.py")
    folder = REPO / "experiments" / "results" / "search"
    written = json.loads((folder / "curve_summary.json").read_text())
    expected = json.loads(json.dumps(curve.summary(curve.read_points(folder), Path("experiments/results/search"))))
    assert written == expected, (
        "python experiments/scripts/search_curve.py rewrites experiments/results/search/curve_summary.json")


SEARCH_PAGES = ("docs/opponents.md", "experiments/search-*.md")
"""The search's pages: the agents' page and its studies in the research record (``experiments/``)."""


def _search_pages() -> list[Path]:
    return [path for pattern in SEARCH_PAGES for path in sorted(REPO.glob(pattern))]


def test_the_result_pages_quote_their_results_files():
    # the measured tables of these pages stand in markers wherever a results file holds them
    for page, least in (("docs/opponents.md", 60), ("docs/performance.md", 60), ("docs/evaluation.md", 36)):
        found = figures.figures((REPO / page).read_text(), REPO / page)
        assert len(found) >= least, f"{page}: {len(found)} marked figures"
    # the search's studies moved from the opponents page to the research record, their figures with them
    found = [f for page in _search_pages() for f in figures.figures(page.read_text(), page)]
    assert len(found) >= 1500, f"the search's pages: {len(found)} marked figures"


def test_the_research_record_is_checked():
    # every study page is among the pages whose figures are checked, and the site shows each of them
    checked = set(figures.pages())
    studies = sorted((REPO / "experiments").glob("*.md"))
    assert len(studies) > 10 and all(study in checked for study in studies)
    assert sum(len(figures.figures(s.read_text(), s)) for s in studies) >= 1500


def test_the_search_time_per_decision_is_quoted_or_dated():
    # docs/opponents.md once gave 27, 2.8 and 214 ms as if one figure: the default's time is quoted from
    # benchmarks/core/search_speed.json, and each other time says what it measured and when, on the
    # opponents page and on the search's studies alike
    texts = {page: page.read_text() for page in _search_pages()}
    quoted = "benchmarks/core/search_speed.json default_nested_search_ms_per_decision"
    assert texts[REPO / "docs" / "opponents.md"].count(quoted) >= 2
    assert sum(text.count(quoted) for text in texts.values()) >= 4
    for page, text in texts.items():
        bare = _strip_markers(text)
        assert not re.search(r"\b27 ms", bare) and not re.search(r"\b214 ms", bare), page
        for paragraph in re.split(r"\n\s*\n", bare):
            for typed in re.findall(r"\b\d[\d.]* ms (?:a|per) decision", paragraph):
                assert re.search(r"20\d\d-\d\d-\d\d", paragraph), f"{page}: {typed!r} in a paragraph without a date"


def test_the_pages_a_user_reads_state_few_untagged_measured_numbers():
    # every measured number on the README and docs/ is a figure tag read from its results file, or sits on a page a
    # script writes (its first lines say so); settings and versions go in code spans. A few may stand as prose.
    from tools.figures import untagged_numbers, user_pages

    found = {str(page.relative_to(REPO)): untagged_numbers(page.read_text()) for page in user_pages(REPO)}
    total = sum(len(numbers) for numbers in found.values())
    assert total < 60, {page: numbers for page, numbers in found.items() if numbers}


def test_the_untagged_count_sees_typed_figures_and_skips_tags_code_and_written_pages():
    from tools.figures import WRITTEN, untagged_numbers

    assert untagged_numbers("won 47.3% and +0.55 a game at 12,700 decisions/s") == ["47.3%", "+0.55", "12,700"]
    assert untagged_numbers("<!-- fig a.json x .1% -->47.3%<!-- /fig --> `gamma 0.99`\n```text\n3.38\n```\n") == []
    assert untagged_numbers(f"# Board\n\n{WRITTEN}benchmarks/x.py -->\n\n47.3% +0.55") == []
