"""The ``big2`` command line, driven as a real subprocess."""

from __future__ import annotations

import os
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
    from big2_env.engine import rules as rules_module

    choices = {"straights": rules_module.STRAIGHTS, "flush_order": rules_module.FLUSH_ORDERS, "four_card_plays": (True, False),
               "five_card_quads": (True, False), "scoring": rules_module.SCORINGS, "opening": rules_module.OPENINGS,
               "lone_triples": (True, False), "pass_locks": (True, False)}
    assert set(rules_module.RULE_MEANINGS) == set(choices)
    for name, meanings in rules_module.RULE_MEANINGS.items():  # every option and value explained, none missing
        assert set(meanings) == set(choices[name]), name
        assert all(meaning in out for meaning in meanings.values())
    assert "opening 3D_single: the holder of the 3 of diamonds opens with that card alone" in out
    assert "pass locks them out" in out and "three of a kind is a play on its own" in out


def test_the_table_explains_the_opening_rule(capsys):
    assert main(["demo", "--seed", "1"]) == 0
    assert "opens (the first play must contain 3D)" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        (["demo", "--view", "9"], "argument --view: must be all, none, current or a seat"),
        (["demo", "--rules", "house"], "invalid choice"),
        (["demo", "--seed", "x"], "argument --seed: must be a non-negative integer; got 'x'"),
        (["demo", "--seed", "-1"], "argument --seed: must be a non-negative integer; got '-1'"),
        (["play", "--seed", "-1"], "argument --seed: must be a non-negative integer; got '-1'"),
        (["eval", "--agent", "random", "--opponent", "random", "--seed", "-1"], "must be a non-negative integer"),
        (["bogus"], "invalid choice"),
        ([], "required"),
    ],
)
def test_bad_arguments_are_reported(args, message):
    result = run_big2(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_version(capsys):
    from big2_env import __version__

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"big2 {__version__}\n"


def test_play_against_the_computer_through_a_terminal():
    """Drive ``big2 play`` in a pseudo-terminal: ask for legal plays, make mistakes, finish the game."""
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(
        sys.executable, ["-m", "big2_env.cli", "play", "--seed", "4", "--opponent", "greedy", "--seat", "2"],
        encoding="utf-8", timeout=30,
    )
    mistakes = ["zz", "2S 2S", "3D 4C 5H", "pass"]
    seen = {"read": False, "illegal": False}
    while True:
        index = child.expect([r"Your play> ", r"Final scores: ([^\r\n]*)", pexpect.EOF])
        if index == 1:
            final = child.match.group(1)
            break
        assert index == 0, child.before
        child.sendline("?")
        child.expect(r"Legal plays: ([^\r\n]*)")
        legal = [p.strip() for p in child.match.group(1).split(",")]
        child.expect("Your play> ")
        if mistakes:
            bad = mistakes.pop(0)
            if bad == "pass" and "pass" in legal:
                bad = "7D 8D"  # a non-combination instead
            child.sendline(bad)
            child.expect([r"Could not read that: ([^\r\n]*)", r"Not allowed: ([^\r\n]*)"])
            message = child.match.group(1)
            if child.match.re.pattern.startswith("Could"):
                seen["read"] = True
            else:
                seen["illegal"] = True
                assert "Legal plays" in message or "not in your hand" in message
                assert "player 2" not in message
            child.expect("Your play> ")
        child.sendline(legal[0])
    child.expect(pexpect.EOF)
    assert seen == {"read": True, "illegal": True}
    scores = [int(part.split()[-1]) for part in final.split(",")]
    assert len(scores) == 4 and sum(scores) == 0
    child.close()
    assert child.exitstatus == 0


def test_quitting_play_is_no_failure_and_keeps_the_partial_replay(tmp_path):
    replay = tmp_path / "partial.json"
    result = run_big2("play", "--seed", "1", "--opponent", "random", "--replay", str(replay), input_text="q\n")
    assert result.returncode == 0, result.stderr
    assert "game abandoned" in result.stdout and "the game so far" in result.stdout
    from big2_env.engine.replay import read_replay, replay_positions

    data = read_replay(replay)
    assert "scores" not in data and len(replay_positions(data)) == len(data["moves"]) + 1  # it loads, unfinished


def test_eval_prints_the_protocol_table():
    result = run_big2("eval", "--agent", "greedy", "--opponent", "random", "--games", "60", "--seed", "3", "--no-progress")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("greedy vs 3 x random: 60 games, seed 3")
    assert "win rate" in out and "95% CI" in out and "mean score" in out
    seat_rows = [line.split() for line in out.splitlines() if line.strip()[:1].isdigit()]
    assert [row[0] for row in seat_rows] == ["0", "1", "2", "3"]
    assert sum(int(row[1]) for row in seat_rows) == 60
    duplicate = run_big2("eval", "--agent", "random", "--opponent", "smart", "--games", "10", "--duplicate", "--no-progress")
    assert duplicate.returncode == 0, duplicate.stderr
    assert "40 games" in duplicate.stdout


def test_eval_loads_a_maskable_ppo_model(tmp_path):
    pytest.importorskip("sb3_contrib")
    import gymnasium
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MultiInputPolicy", gymnasium.make("Big2-v0"), n_steps=64, batch_size=64, seed=0, device="cpu")
    path = tmp_path / "model.zip"
    model.save(str(path))
    result = run_big2("eval", "--agent", str(path), "--opponent", "random", "--games", "4", "--no-progress")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"sb3({tmp_path.name}/model) vs 3 x random: 4 games")  # model.zip: named with its folder


@pytest.mark.parametrize(
    "args, message",
    [
        (["--agent", "foo", "--opponent", "random"], "--agent must be one of greedy, random, search, smart"),
        (["--agent", "missing.zip", "--opponent", "random"], "no such model file"),
        (["--agent", "random", "--opponent", "genius"], "--opponent must be one of greedy, random, search, smart, pretrained"),
        (["--agent", "random", "--opponent", "absent.pt"], "--opponent: no such model file 'absent.pt'"),
        (["--agent", "random", "--opponent", "random", "--games", "0"], "must be a positive integer; got '0'"),
        (["--opponent", "random"], "required"),
    ],
)
def test_eval_bad_arguments(args, message):
    result = run_big2("eval", *args)
    assert result.returncode == 2
    assert message in result.stderr


def test_eval_rejects_a_corrupt_model_file(tmp_path):
    pytest.importorskip("sb3_contrib")
    bad = tmp_path / "bad.zip"
    bad.write_text("not a model")
    result = run_big2("eval", "--agent", str(bad), "--opponent", "random")
    assert result.returncode == 2
    assert "could not load" in result.stderr


def test_eval_opponent_takes_every_agent_form(tmp_path):
    """--opponent accepts what --agent does: a .pt file, a run folder, a .zip, pretrained (model against model)."""
    pytest.importorskip("sb3_contrib")
    from tests.evaluation.test_loading import save_maskable_ppo, save_tiny_network

    tiny = save_tiny_network(tmp_path / "tiny.pt")
    save_tiny_network(tmp_path / "run" / "model.pt", seed=1)
    sb3 = save_maskable_ppo(tmp_path / "mine.zip")
    result = run_big2("eval", "--agent", str(tiny), "--opponent", str(tmp_path / "run"), "--games", "2", "--no-progress")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("tiny vs 3 x run: 2 games")
    result = run_big2("eval", "--agent", "greedy", "--opponent", str(sb3), "--games", "2", "--no-progress")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("greedy vs 3 x sb3(mine): 2 games")
    env = {**os.environ, "BIG2_PRETRAINED": str(tiny)}
    result = subprocess.run(
        [sys.executable, "-m", "big2_env.cli", "eval", "--agent", str(sb3), "--opponent", "pretrained", "--games", "2",
         "--no-progress", "--trust-model"], capture_output=True, text=True, timeout=120, env=env,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("sb3(mine) vs 3 x pretrained: 2 games")


def test_eval_and_play_refuse_a_crafted_zip_without_running_it(tmp_path):
    """The reproducer: a zip whose pickled policy_class runs `touch MARKER` when SB3 unpickles it."""
    pytest.importorskip("sb3_contrib")
    from tests.evaluation.test_loading import malicious_zip

    marker = tmp_path / "MARKER"
    evil = malicious_zip(tmp_path / "evil.zip", marker)
    for args in (["eval", "--agent", str(evil), "--opponent", "random"], ["eval", "--agent", "random", "--opponent", str(evil)],
                 ["play", "--opponent", str(evil), "--seed", "1"]):
        result = run_big2(*args, input_text="q\n")
        assert result.returncode == 2, result.stdout
        assert "policy_class" in result.stderr and "--trust-model" in result.stderr and "Traceback" not in result.stderr
        assert not marker.exists()
    trusted = run_big2("eval", "--agent", str(evil), "--opponent", "random", "--trust-model")
    assert trusted.returncode == 2 and "could not load" in trusted.stderr
    assert marker.exists(), "--trust-model uses Stable-Baselines3's own (unpickling) loader"


def test_eval_refuses_a_pt_file_with_a_pickle_payload(tmp_path):
    """.pt files are read with torch.load(weights_only=True): the payload is refused, never run."""
    torch = pytest.importorskip("torch")
    from tests.evaluation.test_loading import Payload

    marker = tmp_path / "MARKER"
    torch.save({"kind": "big2-agents/policy", "x": Payload(marker)}, tmp_path / "evil.pt")
    result = run_big2("eval", "--agent", str(tmp_path / "evil.pt"), "--opponent", "random", "--games", "1")
    assert result.returncode == 2 and "is not a big2 agents checkpoint" in result.stderr
    assert "weights_only" not in result.stderr and "options" not in result.stderr  # never torch's advice to unpickle
    assert not marker.exists()
