"""``big2 play`` for a newcomer: seat names, forced moves, trick clears, closed stdin, plain-ASCII terminals."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

import big2_env.cli as cli
from big2_env import Game

PLAYER_N = re.compile(r"\bplayer \d\b")  # the engine's wording, never shown by big2 play


def run_big2(*args: str, input_bytes: bytes | None = b"", env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "big2_env.cli", *args], input=input_bytes, capture_output=True, timeout=120,
        env={**os.environ, **(env or {})},
    )


ASCII_ENV = {"PYTHONIOENCODING": "ascii", "LANG": "C", "LC_ALL": "C"}


def _opening_seed(seat: int) -> int:
    """A deal where ``seat`` opens with more than one legal play (so big2 play prompts at once)."""
    for seed in range(200):
        game = Game(seed=seed)
        if game.current_player == seat and len(game.legal_plays()) > 1:
            return seed
    raise AssertionError("no such deal")


def test_closed_stdin_is_a_clear_error():
    result = subprocess.run(
        [sys.executable, "-m", "big2_env.cli", "play", "--seed", "1", "--opponent", "random"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 1
    assert "end of input (stdin is closed): game abandoned" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_seat_names_in_messages_and_errors():
    seed = _opening_seed(0)
    result = run_big2("play", "--seed", str(seed), "--seat", "0", "--opponent", "greedy", input_bytes=b"pass\n9D 9D 9D\nq\n")
    out = result.stdout.decode()
    assert result.returncode == 0  # quit with q
    assert "you are seat 0, against player_1, player_2, player_3" in out
    refusals = [line for line in out.splitlines() if "Not allowed:" in line or "Could not read" in line]
    assert len(refusals) == 2 and "you" in refusals[0]
    assert "you to move" in out and not PLAYER_N.search(out) and "you (player" not in out
    assert "Trick: none, you open (" in out and "you opens" not in out


def test_humanize_rewrites_the_engines_names():
    text = "illegal play for player 2: '3D' does not beat the trick '4S' by player 1. Legal plays: pass"
    assert cli._humanize(text, 2) == "illegal play: '3D' does not beat the trick '4S' by player_1. Legal plays: pass"
    assert cli._humanize("3D not in player 0's hand (4C)", 0) == "3D not in your hand (4C)"
    assert cli._humanize("player 3 has control (no active trick) and cannot pass", 3) == (
        "you have control (no active trick) and cannot pass"
    )
    assert cli._humanize("the game is over (player 1 won); no more plays", 1) == "the game is over (you won); no more plays"


def test_forced_moves_and_trick_clears(monkeypatch, capsys):
    """Whole games with a scripted human (highest play): forced moves are made with a note, clears announced."""

    def scripted(game, human):
        plays = game.legal_plays()
        play = plays[-1] if plays[-1] else plays[0]
        game.play(play)
        return play

    monkeypatch.setattr(cli, "_ask_play", scripted)
    transcripts = []
    for seed in range(6):
        assert cli.main(["play", "--seed", str(seed), "--seat", str(seed % 4), "--opponent", "greedy"]) == 0
        transcripts.append(capsys.readouterr().out)
        if any("(forced)" in t for t in transcripts) and any("you lead." in t for t in transcripts):
            break
    text = "\n".join(transcripts)
    forced = [line for line in text.splitlines() if "(forced" in line]
    assert forced, "some deal forces a move"
    for line in forced:
        assert re.fullmatch(r"You cannot beat [2-9TJQKA][DCHS]( [2-9TJQKA][DCHS])*: you pass \(forced\)\.", line) or re.fullmatch(
            r"Your only legal play is .+: you play it \(forced; \d+ left\)\.", line
        ), line
    clears = [line for line in text.splitlines() if line.startswith("Everyone passed")]
    assert clears and all(re.fullmatch(r"Everyone passed: the trick clears; (you lead|player_\d leads)\.", c) for c in clears)
    assert any(c.endswith("you lead.") for c in clears)
    for transcript in transcripts:
        final = transcript.strip().splitlines()[-1]
        assert re.fullmatch(r"(You win!|player_\d wins\.) Final scores: .*", final), final
        assert "you +" in final or "you -" in final
        assert "game over: you win" in transcript or re.search(r"game over: player_\d wins", transcript)
    assert not PLAYER_N.search(text) and "you (player" not in text
    assert not re.search(r"\byou (opens|leads|wins)\b", text)


def test_forced_note_wording():
    game = Game(seed=0)
    game.play(game.legal_plays()[0])
    assert cli._forced_note(game, ()) == f"You cannot beat {cli.format_play(game.trick)}: you pass (forced)."
    only = Game(seed=0)
    left = only.cards_left(only.current_player) - 1
    assert cli._forced_note(only, (0,)) == f"Your only legal play is 3D: you play it (forced; {left} left)."


def test_plain_ascii_terminal_does_not_crash():
    """With an ASCII-only stdout, text with suit symbols is escaped, not a UnicodeEncodeError."""
    seed = _opening_seed(0)
    result = run_big2("play", "--seed", str(seed), "--seat", "0", input_bytes="zz\n3\u2666 3\u2666\nq\n".encode(), env=ASCII_ENV)
    out, err = result.stdout.decode("ascii"), result.stderr.decode("ascii")
    assert result.returncode == 0, err  # quit with q
    assert "Traceback" not in err and "UnicodeEncodeError" not in err
    assert "Could not read that" in out and "\\u2666" in out  # the suit hint, escaped
    demo = run_big2("demo", "--seed", "2", env=ASCII_ENV)
    assert demo.returncode == 0 and "Final scores:" in demo.stdout.decode("ascii")
    closed = run_big2("play", "--seed", "1", input_bytes=b"", env=ASCII_ENV)
    assert closed.returncode == 1 and b"Traceback" not in closed.stderr


def test_play_against_models(tmp_path):
    """--opponent takes every agent form; a .zip is loaded safely (and refused when crafted)."""
    pytest.importorskip("sb3_contrib")
    from tests.evaluation.test_loading import save_maskable_ppo, save_tiny_network

    save_tiny_network(tmp_path / "run" / "model.pt")
    sb3 = save_maskable_ppo(tmp_path / "mine.zip")
    for spec in (str(tmp_path / "run"), str(sb3)):
        result = run_big2("play", "--opponent", spec, "--seed", "3", "--seat", "1", input_bytes=b"?\nq\n")
        out = result.stdout.decode()
        assert result.returncode == 0, result.stderr.decode()  # quit with q
        assert f"opponents: {spec}" in out and "game abandoned" in out
