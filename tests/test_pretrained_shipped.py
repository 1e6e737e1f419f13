"""The pretrained agent shipped in the package: it loads from the packaged file and plays well.

Measured when shipped (1000 games each, seed 0, sampling): 80.4% against three Random
players, 46.2% against Greedy, 29.0% against Smart (see agents/data/README.md).
"""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from agents.checkpoint import read_file  # noqa: E402
from agents.pretrained import PAPER_SETTINGS_PATH, PRETRAINED_PATH, load_pretrained  # noqa: E402
from big2_env import evaluate  # noqa: E402
from big2_env.evaluation.loading import load_agent  # noqa: E402


def test_the_shipped_file_is_a_small_ppo_policy_trained_by_self_play(monkeypatch):
    monkeypatch.delenv("BIG2_PRETRAINED", raising=False)
    assert PRETRAINED_PATH.is_file() and PRETRAINED_PATH.stat().st_size < 2_000_000
    info = read_file(PRETRAINED_PATH)["info"]
    assert info["algo"] == "ppo" and info["curriculum"] == "self" and info["rules"] == "paper"
    # the long default-recipe run at the end of its 3M-game plan (agents/data/README.md)
    assert info["batch"] == 5860 and info["games"] == 3000320 and info["entropy"] == 0.05 and info["seed"] == 0


def test_the_shipped_agent_clearly_beats_random_play(monkeypatch):
    monkeypatch.delenv("BIG2_PRETRAINED", raising=False)
    policy = load_pretrained(seed=0)
    result = evaluate(policy, "random", n_games=200, seed=1)
    # Random wins 25% of seats against itself; the agent measured 80% over 1000 games
    assert result.win_rate > 0.5 and result.mean_score > 4.0


def test_the_paper_settings_network_stays_loadable_under_its_own_name(monkeypatch):
    # issue 12: the shipped agent is the strongest network; the paper-settings run (5,000
    # batches of 64 self-play games, measured 73.4% / 40.0% / 26.0%) ships beside it
    monkeypatch.setenv("BIG2_PRETRAINED", "/nonexistent/elsewhere.pt")  # overrides the shipped file only
    info = read_file(PAPER_SETTINGS_PATH)["info"]  # written before the info named the algorithm (PPO)
    assert info["curriculum"] == "self" and info["rules"] == "paper"
    assert info["batch"] == 5000 and info["games"] == 320000 and info["entropy"] == 0.05
    paper = load_agent("pretrained-paper", seed=0)
    assert paper.name == "pretrained-paper"
    assert load_pretrained(which="paper").name == "pretrained-paper"
    assert PAPER_SETTINGS_PATH.read_bytes() != PRETRAINED_PATH.read_bytes()
    result = evaluate(paper, "random", n_games=100, seed=1)
    assert result.win_rate > 0.5


def test_load_pretrained_names_the_allowed_choices():
    with pytest.raises(ValueError, match="which must be one of 'shipped', 'paper', 'charlesworth'; got 'best'"):
        load_pretrained(which="best")


def test_the_shipped_network_plays_its_argmax_by_default_and_other_files_sample(monkeypatch, tmp_path):
    # issue 28: measured stronger at argmax against all three classes on the same deals
    monkeypatch.delenv("BIG2_PRETRAINED", raising=False)
    assert load_pretrained().deterministic is True
    assert load_agent("pretrained", seed=0).deterministic is True
    assert load_pretrained(deterministic=False).deterministic is False
    assert load_pretrained(which="paper").deterministic is False  # the paper evaluates it sampled
    copy = tmp_path / "mine.pt"
    copy.write_bytes(PRETRAINED_PATH.read_bytes())
    monkeypatch.setenv("BIG2_PRETRAINED", str(copy))
    assert load_pretrained().deterministic is False  # another file is played as PPO networks are


def test_the_charlesworth_rules_network_ships_under_its_own_name(monkeypatch):
    # issues 36 and 44: his recipe trained by self-play under Charlesworth's rules, played at its argmax
    from agents.pretrained import CHARLESWORTH_RULES_PATH
    from big2_env import Rules

    monkeypatch.delenv("BIG2_PRETRAINED", raising=False)
    # his network's 909,984 weights in float32 (3.6 MB)
    assert CHARLESWORTH_RULES_PATH.is_file() and CHARLESWORTH_RULES_PATH.stat().st_size < 4_000_000
    data = read_file(CHARLESWORTH_RULES_PATH)
    info = data["info"]
    assert info["algo"] == "ppo" and info["curriculum"] == "self" and info["rules"] == "charlesworth"
    assert data["model_config"]["design"] == "charlesworth" and not info.get("init")  # never started from his moves
    policy = load_agent("pretrained-charlesworth", rules=Rules.preset("charlesworth"), seed=0)
    assert policy.name == "pretrained-charlesworth" and policy.deterministic is True
    assert load_pretrained(which="charlesworth").name == "pretrained-charlesworth"
    result = evaluate(policy, "random", n_games=100, seed=1, rules=Rules.preset("charlesworth"))
    assert result.win_rate > 0.5
