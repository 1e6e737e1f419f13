"""The networks shipped in the package (agents.shipped.SHIPPED): each loads from its packaged file
under its own name, was trained as its record says (agents/data/README.md), and plays well."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from agents.checkpoint import read_file  # noqa: E402
from agents.pretrained import DEFAULT_RECIPE_PATH, PAPER_SETTINGS_PATH, PRETRAINED_PATH, load_pretrained  # noqa: E402
from agents.shipped import SHIPPED  # noqa: E402
from big2_env import evaluate  # noqa: E402
from big2_env.evaluation.loading import load_agent  # noqa: E402


def test_the_shipped_file_is_his_recipe_under_the_paper_rules_finished_with_games_against_random(monkeypatch):
    # issue 44: the weight average of four of the paper-rules run's models (big2 average, self-play), trained on
    # for twice 3,600 batches with every new game against three Random players (--random-opponent-prob 1)
    monkeypatch.delenv("BIG2_PRETRAINED", raising=False)
    assert PRETRAINED_PATH.is_file() and PRETRAINED_PATH.stat().st_size < 4_000_000  # 909,984 float32 weights
    data = read_file(PRETRAINED_PATH)
    info = data["info"]
    assert info["algo"] == "ppo" and info["rules"] == "paper" and info["entropy"] == 0.01
    assert info["random_opponent_prob"] == 1.0 and info["batch"] == 3600 and info["games"] == 80657
    assert info["init_games"] == 80367  # the first finishing step, from the weight average
    assert data["model_config"]["design"] == "charlesworth"
    assert info["init"].startswith("rand100: the weight average")  # never started from his moves
    assert info["init_averaged_games"] == [505797, 605838, 697771, 769685]


def test_the_default_recipes_3m_network_ships_under_its_own_name(monkeypatch):
    # pretrained until issue 44: the paper's design on the paper's observation, the search's prior and value
    monkeypatch.setenv("BIG2_PRETRAINED", "/nonexistent/elsewhere.pt")  # overrides the shipped file only
    assert DEFAULT_RECIPE_PATH.is_file() and DEFAULT_RECIPE_PATH.stat().st_size < 2_000_000
    data = read_file(DEFAULT_RECIPE_PATH)
    info = data["info"]
    assert info["algo"] == "ppo" and info["curriculum"] == "self" and info["rules"] == "paper"
    assert data["model_config"]["design"] == "paper" and data["model_config"]["observation"] == "paper"
    assert info["batch"] == 5860 and info["games"] == 3000320 and info["entropy"] == 0.05 and info["seed"] == 0
    policy = load_agent("pretrained-default-recipe", seed=0)
    assert policy.name == "pretrained-default-recipe" and policy.deterministic is True
    assert policy.observation_kind == "paper"  # what the search's value and prior need
    assert load_pretrained(which="default-recipe").name == "pretrained-default-recipe"


def test_every_shipped_network_loads_under_its_spec_with_its_rules_and_play():
    from big2_env import Rules

    for spec, entry in SHIPPED.items():
        policy = load_agent(spec, rules=Rules.preset(entry.rules), seed=0)
        assert policy.name == spec and policy.deterministic is entry.argmax
        data = read_file(policy_file(entry))
        assert getattr(policy, "trained_rules") == entry.rules == data["info"]["rules"]
        assert entry.design == data["model_config"].get("design", "paper")  # paper_settings.pt predates the field


def policy_file(entry):
    return PRETRAINED_PATH.parent / entry.file


def test_the_shipped_agent_clearly_beats_random_play(monkeypatch):
    monkeypatch.delenv("BIG2_PRETRAINED", raising=False)
    policy = load_pretrained(seed=0)
    result = evaluate(policy, "random", n_games=200, seed=1)
    # Random wins 25% of seats against itself; the agent measured 91% over 1000 games
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
    with pytest.raises(ValueError, match="which must be one of 'shipped', 'paper', 'charlesworth', 'default-recipe'; got 'best'"):
        load_pretrained(which="best")


def test_the_shipped_network_plays_its_argmax_by_default_and_other_files_sample(monkeypatch, tmp_path):
    # issue 28: measured stronger at argmax against all three classes on the same deals
    monkeypatch.delenv("BIG2_PRETRAINED", raising=False)
    assert load_pretrained().deterministic is True
    assert load_agent("pretrained", seed=0).deterministic is True
    assert load_pretrained(deterministic=False).deterministic is False
    assert load_pretrained(which="paper").deterministic is False  # the paper evaluates it sampled
    assert load_pretrained(which="default-recipe").deterministic is True
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
    # since 2026-11-27 (fifth session): the mean of two annealed forks of row (c), named without local paths
    assert info["averaged_games"] == [209482, 211010] and len(info["averaged_from"]) == 2
    assert not any("/work/" in source or "/tmp/" in source for source in info["averaged_from"])
    policy = load_agent("pretrained-charlesworth", rules=Rules.preset("charlesworth"), seed=0)
    assert policy.name == "pretrained-charlesworth" and policy.deterministic is True
    assert load_pretrained(which="charlesworth").name == "pretrained-charlesworth"
    result = evaluate(policy, "random", n_games=100, seed=1, rules=Rules.preset("charlesworth"))
    assert result.win_rate > 0.5
