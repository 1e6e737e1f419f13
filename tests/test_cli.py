"""The ``big2`` command line, driven as a real subprocess."""

from __future__ import annotations

import subprocess
import sys

import pytest

from big2_env.cli import main


def run_big2(*args: str, input_text: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "big2_env.cli", *args], input=input_text, capture_output=True, text=True, timeout=120
    )


def test_demo_plays_a_seeded_game_to_the_end():
    first = run_big2("demo", "--seed", "3")
    assert first.returncode == 0, first.stderr
    assert "game over" in first.stdout and "Final scores:" in first.stdout
    scores = first.stdout.rsplit("Final scores:", 1)[1]
    assert sum(int(part.split()[1]) for part in scores.split(",")) == 0
    again = run_big2("demo", "--seed", "3")
    assert again.stdout == first.stdout, "same seed, same game"


def test_demo_hides_hands_when_asked(capsys):
    assert main(["demo", "--seed", "1", "--view", "none"]) == 0
    out = capsys.readouterr().out
    first_table = out.split("\n\n")[0]
    assert first_table.count("(hidden)") == 4


def test_rules_lists_presets(capsys):
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert "charlesworth" in out and "3D_single" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["demo", "--view", "9"], "--view must be"),
        (["demo", "--rules", "house"], "invalid choice"),
        (["demo", "--seed", "x"], "invalid int value"),
        (["bogus"], "invalid choice"),
        ([], "required"),
    ],
)
def test_bad_arguments_are_reported(args, message):
    result = run_big2(*args)
    assert result.returncode == 2
    assert message in result.stderr
