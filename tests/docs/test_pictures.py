"""The docs' speed pictures (:mod:`tools.pictures`): each is drawn from its results file,
committed, and shown on the site."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools import pictures

REPO = Path(__file__).resolve().parents[2]


def test_every_picture_is_drawn_from_its_results_file(tmp_path):
    pytest.importorskip("matplotlib")
    written = pictures.draw(tmp_path)
    assert [p.name for p in written] == [p.name for p in pictures.PICTURES]
    for path in written:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


def test_every_picture_is_committed_and_on_the_site():
    hooks = (REPO / "docs" / "hooks.py").read_text()
    for picture, (results, _) in pictures.PICTURES.items():
        assert picture.is_file() and results.is_file()
        assert f'"{picture.relative_to(REPO).as_posix()}"' in hooks  # mapped into the site
