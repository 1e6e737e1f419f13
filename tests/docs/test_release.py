"""Ready to publish: one version everywhere it is declared, a license that ships, a citation and a changelog."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import big2_env

REPO = Path(__file__).resolve().parents[2]


def _cff_scalar(text: str, key: str) -> str:
    """A top-level scalar of CITATION.cff (no YAML library needed: the file keeps them on one line)."""
    found = re.search(rf"^{key}:\s*(.+?)\s*$", text, re.M)
    assert found, f"CITATION.cff has no top-level {key}"
    return found.group(1).strip("\"'")


def _latest_release(changelog: str) -> tuple[str, str]:
    """The version and date of the first dated ``## [X.Y.Z] - DATE`` heading (Unreleased skipped)."""
    found = re.search(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d\d-\d\d)\s*$", changelog, re.M)
    assert found, "CHANGELOG.md has no dated release heading"
    return found.group(1), found.group(2)


def test_the_version_is_the_same_everywhere():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    citation = (REPO / "CITATION.cff").read_text()
    changelog = (REPO / "CHANGELOG.md").read_text()
    version, date = _latest_release(changelog)
    assert project["version"] == big2_env.__version__ == _cff_scalar(citation, "version") == version, (
        project["version"], big2_env.__version__, _cff_scalar(citation, "version"), version)
    assert _cff_scalar(citation, "date-released") == date


def test_the_license_is_mit_and_ships():
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Permission is hereby granted, free of charge" in text
    assert re.search(r"Copyright \(c\) \d{4} ", text)
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT" and "LICENSE" in project["license-files"]
    assert _cff_scalar((REPO / "CITATION.cff").read_text(), "license") == "MIT"


def test_the_citation_names_the_package_and_the_paper():
    text = (REPO / "CITATION.cff").read_text()
    assert _cff_scalar(text, "cff-version") == "1.2.0" and _cff_scalar(text, "title") == "big2-env"
    assert _cff_scalar(text, "type") == "software" and "\nauthors:\n  - name: " in text
    references = text.split("\nreferences:\n", 1)[1]
    assert "Self-Play Reinforcement Learning under Imperfect Information in Big 2" in references
    assert "Charlesworth" in references


def test_the_changelog_keeps_a_changelog():
    text = (REPO / "CHANGELOG.md").read_text()
    assert "https://keepachangelog.com/en/1.1.0/" in text and "## [Unreleased]" in text and "## [0.1.0]" in text
    headings = re.findall(r"^### (.+)$", text, re.M)
    assert set(headings) <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, headings
