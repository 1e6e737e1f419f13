"""The evaluation protocol: statistics, seats, duplicate mode, determinism, batching, bad input."""

from __future__ import annotations

import dataclasses
import json
import math
import sys

import numpy as np
import pytest

import big2_env.evaluation.versus as evaluation
from big2_env import PASS_ACTION, Decision, Game, Rules
from big2_env.evaluation.versus import EvaluationResult, evaluate, wilson_interval
from big2_env.observations.decision import PolicyObservation
from big2_env.players.base import Policy
from big2_env.players.random import RandomPolicy
from big2_env.players.registry import POLICIES


class FirstLegal(Policy):
    """Deterministic: the lowest legal action index."""

    name = "first_legal"

    def act(self, obs):
        return int(obs["candidate_actions"][0])


class Recorder(Policy):
    """Random over the legal actions; records batch sizes and checks the observations it gets."""

    name = "recorder"

    def __init__(self):
        self.batches = []
        self.seeds = []
        self.rng = np.random.default_rng(0)

    def seed(self, seed=None):
        self.seeds.append(seed)
        self.rng = np.random.default_rng(seed)

    def act(self, obs):
        actions = obs["candidate_actions"]
        return int(actions[self.rng.integers(len(actions))])

    def act_batch(self, observations):
        self.batches.append(len(observations))
        return [self.act(o) for o in observations]


def _comparable(result: EvaluationResult) -> dict:
    out = result.to_dict()
    out.pop("elapsed_s")
    out["games"] = [result.seats.tolist(), result.scores.tolist(), result.winners.tolist(), result.turns.tolist()]
    return out


def _check_consistent(result: EvaluationResult) -> None:
    assert 0.0 <= result.win_rate <= 1.0
    lo, hi = result.win_rate_ci
    assert 0.0 <= lo <= result.win_rate <= hi <= 1.0
    slo, shi = result.mean_score_ci
    assert slo <= result.mean_score <= shi
    assert sum(s.games for s in result.per_seat) == result.n_games == len(result.scores)
    assert sum(s.wins for s in result.per_seat) == result.wins == int((result.winners == result.seats).sum())
    assert result.win_rate == result.wins / result.n_games
    weighted = sum(s.games * s.mean_score for s in result.per_seat if s.games) / result.n_games
    assert math.isclose(weighted, result.mean_score, abs_tol=1e-9)
    for s in result.per_seat:
        if s.games:
            assert 0.0 <= s.win_rate <= 1.0
    assert np.all(result.turns > 0)
    assert result.elapsed_s > 0


# ---------------------------------------------------------------- the protocol
def test_random_vs_random_near_a_quarter():
    result = evaluate("random", "random", n_games=1000, seed=0)
    _check_consistent(result)
    assert result.n_games == result.n_deals == 1000 and not result.duplicate
    assert 0.20 <= result.win_rate <= 0.30
    assert abs(result.mean_score) < 1.5
    assert all(200 <= s.games <= 300 for s in result.per_seat)  # seats drawn uniformly per game


def test_scores_are_the_agents_final_scores():
    result = evaluate(FirstLegal(), "random", n_games=60, seed=3)
    _check_consistent(result)
    won = result.winners == result.seats
    assert np.all(result.scores[won] > 0) and np.all(result.scores[~won] < 0)
    assert np.all(result.scores[~won] >= -13) and np.all(result.scores[won] <= 39)


def test_hk_scoring_rules_are_used():
    result = evaluate("random", "random", n_games=100, seed=2, rules=Rules(scoring="hk"))
    _check_consistent(result)
    assert result.rules == Rules(scoring="hk")
    assert result.scores.min() >= -39 and result.scores.max() <= 117
    assert evaluate("random", "random", n_games=3, seed=2, rules="charlesworth").rules == Rules.preset("charlesworth")


@pytest.mark.parametrize("opponent", sorted(POLICIES))
def test_every_registered_policy_can_be_evaluated(opponent):
    result = evaluate("random", opponent, n_games=20, seed=1)
    _check_consistent(result)
    assert result.opponent == opponent


def test_same_seed_same_result():
    first = evaluate("random", "random", n_games=150, seed=42, batch_size=32)
    again = evaluate("random", "random", n_games=150, seed=42, batch_size=32)
    assert _comparable(first) == _comparable(again)
    other = evaluate("random", "random", n_games=150, seed=43, batch_size=32)
    assert _comparable(other) != _comparable(first)


def test_policy_objects_are_seeded():
    agent, opponent = Recorder(), Recorder()
    a = evaluate(agent, opponent, n_games=40, seed=9)
    b = evaluate(agent, opponent, n_games=40, seed=9)  # same objects, reused: reseeded, same result
    assert _comparable(a) == _comparable(b)
    assert len(agent.seeds) == len(opponent.seeds) == 2 and agent.seeds[0] != opponent.seeds[0]


def test_seed_none_runs():
    _check_consistent(evaluate("random", "random", n_games=10, seed=None))


# ---------------------------------------------------------------- duplicate mode
def test_duplicate_mode_plays_each_deal_in_all_four_seats(monkeypatch):
    created, copied = [], []
    real_game = evaluation.Game

    class CountingGame(real_game):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            created.append(self.hands)

        def copy(self):
            copied.append(self.hands)
            return super().copy()

    monkeypatch.setattr(evaluation, "Game", CountingGame)
    result = evaluate("random", "random", n_games=25, seed=4, duplicate=True)
    _check_consistent(result)
    assert (result.n_deals, result.n_games) == (25, 100) and result.duplicate
    assert [s.games for s in result.per_seat] == [25, 25, 25, 25]
    assert result.seats.tolist() == [0, 1, 2, 3] * 25
    assert len(created) == 25 and len(set(created)) == 25  # 25 distinct deals ...
    assert len(copied) == 100 and all(copied.count(h) == 4 for h in created)  # ... each played 4 times


def test_duplicate_with_identical_deterministic_policies_is_exactly_even():
    """Same deterministic policy in all seats: every replay of a deal is the same game,
    so the agent wins exactly one of the four and its scores over the four sum to zero."""
    result = evaluate(FirstLegal(), FirstLegal(), n_games=30, seed=5, duplicate=True)
    _check_consistent(result)
    assert result.win_rate == 0.25 and result.mean_score == 0.0
    winners = result.winners.reshape(30, 4)
    assert np.all(winners == winners[:, :1])
    assert np.all(result.scores.reshape(30, 4).sum(axis=1) == 0)
    assert result.win_rate_ci == (0.25, 0.25) and result.mean_score_ci == (0.0, 0.0)
    assert "duplicate" in result.ci_method


def test_duplicate_uses_the_same_deals_as_plain_mode(monkeypatch):
    deals = {}
    real_game = evaluation.Game

    class RecordingGame(real_game):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            deals.setdefault(mode, []).append(self.hands)

    monkeypatch.setattr(evaluation, "Game", RecordingGame)
    mode = "plain"
    evaluate("random", "random", n_games=10, seed=8)
    mode = "duplicate"
    evaluate("random", "random", n_games=10, seed=8, duplicate=True)
    assert deals["plain"] == deals["duplicate"]


# ---------------------------------------------------------------- batching and observations
def test_first_deal_splits_one_evaluation_into_parts_with_the_same_deals():
    whole = evaluate("smart", "greedy", n_games=6, seed=3, duplicate=True)
    first = evaluate("smart", "greedy", n_games=2, seed=3, duplicate=True)
    rest = evaluate("smart", "greedy", n_games=4, seed=3, duplicate=True, first_deal=2)
    assert np.array_equal(whole.scores, np.concatenate([first.scores, rest.scores]))
    assert np.array_equal(whole.winners, np.concatenate([first.winners, rest.winners]))
    shifted = evaluate("smart", "greedy", n_games=4, seed=3, duplicate=True, first_deal=1)
    assert not np.array_equal(shifted.scores, rest.scores)
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="first_deal"):
            evaluate("smart", "greedy", n_games=1, first_deal=bad)


def test_act_batch_steps_many_games_together():
    agent, opponent = Recorder(), Recorder()
    result = evaluate(agent, opponent, n_games=200, seed=0, batch_size=64)
    _check_consistent(result)
    assert max(agent.batches) <= 64 and max(opponent.batches) <= 64
    assert max(agent.batches) > 10 and max(opponent.batches) > 40
    # one decision per game per round: never more calls than needed
    assert len(agent.batches) < sum(agent.batches) / 5


def test_policy_observations_are_candidate_view_mappings():
    seen = []

    class Checker(Policy):
        def act(self, obs):
            assert isinstance(obs, PolicyObservation)
            assert list(obs) == ["observation", "action_mask", "candidate_actions", "candidate_features", "history"]
            assert "candidate_features" in obs and "nope" not in obs and len(obs) == 5
            actions = obs["candidate_actions"]
            assert np.flatnonzero(obs["action_mask"]).tolist() == actions.tolist()
            assert obs["observation"].shape == (277,) and obs["observation"].dtype == np.float32
            features = obs["candidate_features"]
            assert features.shape == (len(actions), 80)
            assert np.array_equal(features[:, 52] == 1, actions == PASS_ACTION)
            plain = dict(obs)
            assert set(plain) == set(obs) and plain["candidate_features"] is features
            seen.append(len(actions))
            return int(actions[-1])

    with pytest.raises(KeyError):
        PolicyObservation(Decision(Game(seed=0)))["nope"]
    result = evaluate(Checker(), "random", n_games=10, seed=0)
    assert seen and result.agent == "Checker"


def test_illegal_action_from_a_policy_raises():
    class Bad(Policy):
        def act(self, obs):
            return PASS_ACTION if obs["action_mask"][PASS_ACTION] == 0 else 0

    with pytest.raises(ValueError, match="agent policy .* illegal action"):
        evaluate(Bad(), "random", n_games=2, seed=0)
    with pytest.raises(ValueError, match="opponent policy .* illegal action"):
        evaluate("random", Bad(), n_games=2, seed=0)


def test_same_object_as_agent_and_opponent():
    policy = RandomPolicy()
    _check_consistent(evaluate(policy, policy, n_games=20, seed=0))


# ---------------------------------------------------------------- results
def test_result_table_dict_and_success():
    result = evaluate("random", "random", n_games=40, seed=1)
    text = str(result)
    assert text == result.to_table()
    for needle in ("random vs 3 x random", "win rate", "mean score", "95% CI", "success", "seat"):
        assert needle in text
    data = result.to_dict()
    json.dumps(data)
    assert data["n_games"] == 40 and len(data["per_seat"]) == 4 and "games" not in data
    assert len(result.scores) == 40
    assert "scores=" not in repr(result)  # per-game arrays stay out of the repr
    figures = result.figures()
    assert figures == {"win_rate": result.win_rate, "win_rate_ci": list(result.win_rate_ci),
                       "mean_score": result.mean_score, "mean_score_ci": list(result.mean_score_ci)}
    assert all(data[key] == value for key, value in figures.items())  # the same figures in the full dict

    good = dataclasses.replace(result, win_rate=0.30, mean_score=0.5, win_rate_ci=(0.27, 0.33), mean_score_ci=(0.1, 0.9))
    assert good.success and good.significant_success and "success     yes" in str(good)
    lucky = dataclasses.replace(good, win_rate_ci=(0.2, 0.4))
    assert lucky.success and not lucky.significant_success
    assert not dataclasses.replace(good, mean_score=0.0).success
    assert not dataclasses.replace(good, win_rate=0.25).success


def test_wilson_interval():
    lo, hi = wilson_interval(50, 100)
    assert math.isclose(lo, 0.4038, abs_tol=1e-4) and math.isclose(hi, 0.5962, abs_tol=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    assert all(math.isnan(x) for x in wilson_interval(0, 0))


def test_single_game():
    result = evaluate("random", "random", n_games=1, seed=0)
    assert result.n_games == 1 and sum(s.games for s in result.per_seat) == 1
    assert all(math.isnan(x) for x in result.mean_score_ci)  # no sd from one game
    assert 0.0 <= result.win_rate_ci[0] <= result.win_rate_ci[1] <= 1.0


# ---------------------------------------------------------------- progress
def test_progress_with_tqdm(capsys):
    pytest.importorskip("tqdm")
    evaluate("random", "random", n_games=5, seed=0, progress=True)
    assert "5/5" in capsys.readouterr().err


def test_progress_without_tqdm(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    evaluate("random", "random", n_games=20, seed=0, progress=True)
    err = capsys.readouterr().err
    assert "random vs random: 20/20 games" in err and err.count("\n") <= 12


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("n_games", [0, -5, 1.5, "10", True, None])
def test_bad_n_games(n_games):
    with pytest.raises(ValueError, match="n_games must be a positive int"):
        evaluate("random", "random", n_games=n_games)


def test_unknown_policy_names():
    with pytest.raises(ValueError, match=r"^agent must be one of greedy, random, search, smart, pretrained, .*; got 'nobody'"):
        evaluate("nobody", "random", n_games=1)
    with pytest.raises(ValueError, match=r"^opponent must be one of .*; got 'nobody'"):
        evaluate("random", "nobody", n_games=1)
    with pytest.raises(ValueError, match=r"opponent: no such model file 'absent\.pt'"):
        evaluate("random", "absent.pt", n_games=1)


def test_other_bad_input():
    with pytest.raises(TypeError, match="agent must be a policy name, a model path or an object with an act"):
        evaluate(42, "random", n_games=1)
    with pytest.raises(ValueError, match="batch_size"):
        evaluate("random", "random", n_games=1, batch_size=0)
    with pytest.raises(ValueError, match="seed"):
        evaluate("random", "random", n_games=1, seed=-1)
    with pytest.raises(ValueError, match="scoring"):
        evaluate("random", "random", n_games=1, rules={"scoring": "bogus"})


# ---------------------------------------------------------------- agents by spec (big2_env.evaluation.loading)
def test_models_by_spec_as_agent_and_opponent(tmp_path, monkeypatch):
    """evaluate() takes the same specs as the CLI: pretrained, a .pt file, a run folder, for either side."""
    pytest.importorskip("torch")
    from tests.evaluation.test_loading import save_tiny_network

    tiny = save_tiny_network(tmp_path / "tiny.pt", seed=0)
    save_tiny_network(tmp_path / "run" / "model.pt", seed=1)
    monkeypatch.setenv("BIG2_PRETRAINED", str(tiny))
    result = evaluate("pretrained", "smart", n_games=4, seed=1)
    assert (result.agent, result.opponent, result.n_games) == ("pretrained", "smart", 4)
    _check_consistent(result)
    result = evaluate(str(tiny), tmp_path / "run", n_games=3, seed=1)  # model against model, folder as a Path
    assert (result.agent, result.opponent) == ("tiny", "run")
    _check_consistent(result)
    assert evaluate("greedy", "pretrained", n_games=2, seed=2).opponent == "pretrained"


def test_sb3_zip_by_spec_loads_safely(tmp_path):
    pytest.importorskip("sb3_contrib")
    from tests.evaluation.test_loading import malicious_zip, save_maskable_ppo

    from big2_env.errors import UntrustedModelError

    model = save_maskable_ppo(tmp_path / "mine.zip")
    result = evaluate(str(model), "random", n_games=4, seed=0)
    assert result.agent == "sb3(mine)" and result.n_games == 4
    assert evaluate("smart", str(model), n_games=2, seed=0).opponent == "sb3(mine)"
    marker = tmp_path / "MARKER"
    with pytest.raises(UntrustedModelError, match="policy_class"):
        evaluate("random", str(malicious_zip(tmp_path / "evil.zip", marker)), n_games=1)
    assert not marker.exists()


def test_a_seat_with_no_games_shows_no_rate():
    result = evaluate("greedy", "random", n_games=2, seed=0)
    empty = [s for s in result.per_seat if s.games == 0]
    assert empty  # two games cannot fill four seats
    assert "nan" not in result.to_table().lower()
    for seat in json.loads(json.dumps(result.to_dict(), allow_nan=False))["per_seat"]:
        assert (seat["win_rate"] is None) == (seat["games"] == 0)


def test_the_progress_bar_moves_before_the_first_game_ends():
    """Games step together, so most end near the end: the bar counts moves within unfinished games
    too (a slow policy's bar used to sit at 0% and then jump), and ends at exactly the games played."""
    from big2_env.evaluation.versus import _play_games

    calls = [0]

    class Counting(RandomPolicy):
        def act_batch(self, observations):
            calls[0] += 1
            return [self.act(o) for o in observations]

    policy = Counting(seed=1)
    reports: list[tuple[int, int]] = []
    n = 6
    _, _, turns = _play_games(policy, policy, Rules(), np.arange(n, dtype=np.int64), np.zeros(n, dtype=np.int64), False,
                              0, n, n, report=lambda k: reports.append((calls[0], k)))
    assert sum(k for _, k in reports) == n and all(k > 0 for _, k in reports)
    first_end = int(turns.min())  # every round makes one move in every game, with at most two calls
    assert reports[0][0] < first_end, (reports, first_end)
