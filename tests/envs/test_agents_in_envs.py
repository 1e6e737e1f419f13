"""Every agent ``load_agent`` names plays from every env's own observation; an illegal move costs the
worst score; masks are int8 everywhere; ``vector_env`` declares its spaces.

The envs put the public move history in their ``Dict`` observation (``"history"``, on by default),
so the agents that read it (the networks on Charlesworth's inputs, ``search-net``, the searches'
pass inference) play in a user's own AEC, Parallel or Gymnasium loop.
"""

from __future__ import annotations

import inspect

import gymnasium
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, parallel_api_test

import big2_env
from big2_env import Game, Rules, load_agent
from big2_env.engine.game import worst_score
from big2_env.envs.gym import Big2SingleAgentEnv
from big2_env.observations.decision import Decision, PolicyObservation, observation_dict
from big2_env.observations.extended import (
    HISTORY_ROWS,
    HistoryRows,
    extended_observation,
    extended_view,
    history_array,
    history_moves,
)
from big2_env.observations.spaces import history_space

HEURISTICS = ["random", "greedy", "smart", "search:4", "ismcts:8", "fast", "fast-sample"]
NETWORKS = ["pretrained", "pretrained-paper", "pretrained-charlesworth", "pretrained-default-recipe", "search-net@4"]


def play_aec(agent, rules: str, seed: int, **kwargs) -> dict:
    """One whole game in ``big2_env.env``, every seat played by ``agent`` from the env's observation."""
    e = big2_env.env(rules=rules, **kwargs)
    e.reset(seed=seed)
    info: dict = {}
    for name in e.agent_iter():
        obs, _, termination, truncation, info = e.last()
        action = None if termination or truncation else int(agent.act(obs))
        e.step(action)
    assert sorted(info) == ["scores", "turns", "winner"], info  # the game ended, not by an illegal move
    return info


def play_parallel(agent, rules: str, seed: int) -> dict:
    p = big2_env.parallel_env(rules=rules)
    observations, _ = p.reset(seed=seed)
    rewards: dict = {}
    while p.agents:
        actions = {a: int(agent.act(o)) if o["action_mask"].any() else 0 for a, o in observations.items()}
        observations, rewards, *_ = p.step(actions)
    assert sum(rewards.values()) == 0 and max(rewards.values()) > 0
    return rewards


def play_gym(agent, rules: str, seed: int) -> float:
    env = gymnasium.make("Big2-v0", rules=rules, opponents="smart")
    obs, _ = env.reset(seed=seed)
    terminated, reward, info = False, 0.0, {}
    while not terminated:
        obs, reward, terminated, _, info = env.step(int(agent.act(obs)))
    assert info["illegal_action"] is False
    return float(reward)


def _charlesworth_file(tmp_path) -> str:
    from big2_env.players.charlesworth import PARAMETER_SHAPES, write_parameters

    rng = np.random.default_rng(0)
    path = tmp_path / "modelParameters136500"
    write_parameters([rng.normal(size=shape).astype(np.float32) * 0.05 for shape in PARAMETER_SHAPES], path)
    return str(path)


def _run_folder(tmp_path) -> str:
    from tests.evaluation.test_loading import save_tiny_network

    run = tmp_path / "run"
    run.mkdir()
    save_tiny_network(run / "model.pt")
    return str(run)


@pytest.mark.parametrize("rules", ["paper", "charlesworth"])
@pytest.mark.parametrize("spec", HEURISTICS)
def test_each_heuristic_and_search_plays_whole_games_in_each_env(spec, rules):
    agent = load_agent(spec, rules=rules, seed=0)
    play_aec(agent, rules, seed=3)
    play_parallel(agent, rules, seed=4)
    play_gym(agent, rules, seed=5)


@pytest.mark.parametrize(
    "spec, rules",
    [(spec, rules) for spec in NETWORKS + ["a .pt file", "a run folder"] for rules in ("paper", "charlesworth")]
    + [("charlesworth:PATH", "charlesworth")],  # his network plays only under his rules
)
def test_each_network_plays_whole_games_in_each_env(spec, rules, tmp_path):
    pytest.importorskip("torch")
    if spec == "a .pt file":
        spec = _run_folder(tmp_path) + "/model.pt"
    elif spec == "a run folder":
        spec = _run_folder(tmp_path)
    elif spec == "charlesworth:PATH":
        spec = "charlesworth:" + _charlesworth_file(tmp_path)
    agent = load_agent(spec, rules=rules, seed=0)
    play_aec(agent, rules, seed=3)
    play_parallel(agent, rules, seed=4)
    play_gym(agent, rules, seed=5)


def _midgame(rules: str, seed: int, moves: int) -> Game:
    game = Game(rules, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        plays = game.legal_plays()
        game.play(plays[int(rng.integers(len(plays)))])
        if game.is_over:
            break
    return game


def _env_at(game_moves: int, rules: str, seed: int):
    """An AEC env ``game_moves`` decisions into a seeded game (random legal moves)."""
    e = big2_env.env(rules=rules)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(game_moves):
        obs, *_ = e.last()
        e.step(int(rng.choice(obs["candidate_actions"])))
    return e


@pytest.mark.parametrize("spec", ["search", "ismcts", "pretrained", "pretrained-charlesworth", "search-net"])
def test_the_agents_that_read_the_history_choose_as_in_evaluate_at_default_settings(spec):
    """At a mid-game decision, the env's observation (277 numbers and the history) gives the same move
    as the view the package's own game loops give them (the 315 numbers and the history)."""
    if spec.startswith(("pretrained", "search-net")):
        pytest.importorskip("torch")
    tested = 0
    for seed, moves in ((1, 14), (2, 23), (3, 9), (4, 30), (5, 17)):
        e = _env_at(moves, "charlesworth", seed)
        obs, *_ = e.last()
        if len(obs["candidate_actions"]) < 3 or tested == 2:
            continue
        tested += 1
        ours = load_agent(spec, rules="charlesworth", seed=7).act(obs)
        view = PolicyObservation(Decision(e.unwrapped.game), extended=True)
        theirs = load_agent(spec, rules="charlesworth", seed=7).act(view)
        assert ours == theirs and obs["action_mask"][ours] == 1
    assert tested == 2  # two decisions with a real choice were compared


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 80), rules=st.sampled_from(["paper", "charlesworth", "hk"]))
def test_the_extended_view_from_the_history_is_the_extended_observation(seed, moves, rules):
    rule_set = Rules(scoring="hk") if rules == "hk" else Rules.preset(rules)
    game = _midgame(rule_set, seed, moves)
    if game.is_over:
        return
    obs = observation_dict(game)
    view = extended_view(obs, rule_set)
    np.testing.assert_array_equal(view["observation"], extended_observation(game, game.current_player))
    assert history_moves(obs["history"]) == [((s - game.current_player) % 4, p) for s, p in game.history]


def test_history_rows_follow_the_game_move_by_move_and_restart_with_a_new_game():
    rows = HistoryRows()
    for seed in (0, 1):
        game = Game(seed=seed)
        while not game.is_over:
            for player in range(4):
                np.testing.assert_array_equal(rows.view(game.history, player), history_array(game.history, player))
            game.play(game.legal_plays()[-1])
    assert history_space().contains(rows.view(game.history, 0))


def test_the_history_is_public_declared_and_can_be_dropped():
    e = big2_env.env()
    e.reset(seed=0)
    obs, *_ = e.last()
    assert obs["history"].shape == (HISTORY_ROWS, 6) and obs["history"].dtype == np.int16
    assert e.observation_space("player_0")["history"] == history_space()
    for agent in e.agents:  # every seat sees the same moves, from its own seat
        assert e.observe(agent)["history"].shape == (HISTORY_ROWS, 6)
    assert "history" not in big2_env.env(history=False).observation_space("player_0").spaces
    assert "history" not in gymnasium.make("Big2-v0", history=False).observation_space.spaces
    assert big2_env.env(candidate_view=False, mask_in_observation=False).unwrapped.history is False
    with pytest.raises(ValueError, match="history=True needs the Dict observation"):
        big2_env.env(candidate_view=False, mask_in_observation=False, history=True)
    with pytest.raises(ValueError, match="history must be None"):
        big2_env.env(history="yes")
    with pytest.raises(ValueError, match="reads the public move history"):
        extended_view(observation_dict(_midgame(Rules(), 0, 5), history=False), Rules())
    no_history = observation_dict(_midgame(Rules(), 0, 5), history=False)
    assert extended_view(no_history, Rules(), required=False) is no_history


def test_the_envs_pass_the_pettingzoo_api_tests_with_the_history():
    api_test(big2_env.env(), num_cycles=200)
    parallel_api_test(big2_env.parallel_env(), num_cycles=200)
    from gymnasium.utils.env_checker import check_env

    check_env(Big2SingleAgentEnv(opponents="random"), skip_render_check=True)


# ------------------------------------------------------------------ illegal moves
@pytest.mark.parametrize("scoring", ["paper", "hk"])
@pytest.mark.parametrize("make", ["env", "parallel_env", "opponents_env"])
def test_an_illegal_move_costs_the_worst_score_under_each_scoring(make, scoring):
    rules = Rules(scoring=scoring)
    worst = worst_score(rules)
    assert worst == {"paper": -13, "hk": -39}[scoring]
    if make == "parallel_env":
        p = big2_env.parallel_env(rules=rules)
        observations, _ = p.reset(seed=0)
        mover = next(a for a, o in observations.items() if o["action_mask"].any())
        bad = int(np.flatnonzero(observations[mover]["action_mask"] == 0)[0])
        _, rewards, terminations, _, _ = p.step({a: bad if a == mover else 0 for a in observations})
        assert rewards[mover] == worst and all(terminations.values())
        return
    e = big2_env.env(rules=rules) if make == "env" else big2_env.opponents_env({"player_1": "smart"}, rules=rules)
    e.reset(seed=0)
    obs, *_ = e.last()
    mover = e.agent_selection
    e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert e.rewards[mover] == worst and all(e.terminations.values())
    assert all(r == 0 for a, r in e.rewards.items() if a != mover)


@pytest.mark.parametrize("scoring", ["paper", "hk"])
def test_no_legal_outcome_is_worse_than_an_illegal_move(scoring):
    """The worst legal score is losing with every card: a seat that never got to play scores it."""
    rules = Rules(scoring=scoring)
    scores = []
    for seed in range(40):
        game = Game(rules, seed=seed)
        while not game.is_over:
            game.play(game.legal_plays()[0])
        scores += game.scores()
    assert min(scores) >= worst_score(rules)
    from big2_env.engine.game import HAND_SIZE
    from tests.reference import hand_penalty

    assert worst_score(rules) == -hand_penalty(HAND_SIZE, scoring) == min(-hand_penalty(n, scoring) for n in range(14))


def test_illegal_reward_keeps_pettingzoos_value_on_request_and_checks_its_input():
    e = big2_env.env(illegal_reward=-1)
    e.reset(seed=0)
    obs, *_ = e.last()
    mover = e.agent_selection
    e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert e.rewards[mover] == -1
    with pytest.raises(ValueError, match="illegal_reward must be None"):
        big2_env.env(illegal_reward="a lot")


# ------------------------------------------------------------------ masks and spaces
def test_every_mask_is_int8_and_samples_an_action():
    e = big2_env.env()
    e.reset(seed=0)
    obs, *_ = e.last()
    assert obs["action_mask"].dtype == np.int8
    assert obs["action_mask"][e.action_space(e.agent_selection).sample(mask=obs["action_mask"])] == 1

    p = big2_env.parallel_env(candidate_view=False)
    observations, _ = p.reset(seed=0)
    for agent, o in observations.items():
        assert o["action_mask"].dtype == np.int8
        if o["action_mask"].any():
            assert o["action_mask"][p.action_space(agent).sample(mask=o["action_mask"])] == 1

    g = gymnasium.make("Big2-v0")
    obs, info = g.reset(seed=0)
    masks = g.unwrapped.action_masks()
    assert masks.dtype == np.int8 and obs["action_mask"].dtype == np.int8
    assert masks[g.action_space.sample(mask=masks)] == 1
    box = gymnasium.make("Big2-v0", mask_in_observation=False)
    _, info = box.reset(seed=0)
    assert info["action_mask"].dtype == np.int8 and box.unwrapped.action_masks().dtype == np.int8

    v = gymnasium.make_vec("Big2-v0", num_envs=3)
    obs, _ = v.reset(seed=0)
    assert obs["action_mask"].dtype == np.int8 and v.unwrapped.action_masks().dtype == np.int8
    actions = [v.single_action_space.sample(mask=m) for m in obs["action_mask"]]
    v.step(np.array(actions))

    venv = big2_env.vector_env(3, seed=0)
    obs, _ = venv.reset()
    assert obs["action_mask"].dtype == np.int8
    actions = [venv.single_action_space.sample(mask=m) for m in obs["action_mask"]]
    venv.step(np.array(actions))


@pytest.mark.parametrize("view", ["paper", "extended", "charlesworth"])
def test_vector_env_declares_its_spaces_and_metadata(view):
    venv = big2_env.vector_env(5, seed=1, observation=view)
    assert venv.single_action_space == gymnasium.spaces.Discrete(1695)
    assert venv.action_space == gymnasium.spaces.MultiDiscrete([1695] * 5)
    assert venv.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    assert venv.metadata["num_players"] == 4 and venv.reward_space.shape == (5, 4)
    obs, _ = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(150):
        assert venv.observation_space.contains(obs)
        obs, rewards, *_ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]]))
        assert venv.reward_space.contains(rewards)


def test_env_and_parallel_env_take_explicit_typed_keywords():
    for function in (big2_env.env, big2_env.parallel_env):
        parameters = inspect.signature(function).parameters
        assert not any(p.kind is p.VAR_KEYWORD for p in parameters.values())
        assert {"rules", "render_mode", "candidate_view", "history", "observation", "illegal_reward"} <= set(parameters)
        assert all(p.annotation is not inspect.Parameter.empty for p in parameters.values())
    with pytest.raises(TypeError):
        big2_env.env(candidate_veiw=False)  # a misspelt keyword is refused, not ignored
