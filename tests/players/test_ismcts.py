"""Information-set MCTS (that it decides from the observation alone is tested beside the search, in
test_search.py): legality under every variant, determinism, budgets, the tree's bookkeeping, a won
position, bad arguments and agent specs."""

from __future__ import annotations

import numpy as np
import pytest
from tests.players.test_search import VARIANTS, leading_position, position

from big2_env import Game, Rules, evaluate
from big2_env.errors import LoadError
from big2_env.evaluation.loading import load_agent
from big2_env.observations.decision import observation_dict
from big2_env.observations.paper import action_cards
from big2_env.players.ismcts import ISMCTSPolicy, _Node


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.straights}-{r.opening}-{r.four_card_plays}")
def test_every_decision_is_legal_under_every_variant(rules):
    result = evaluate(ISMCTSPolicy(rules=rules, budget=6), "random", n_games=2, seed=1, rules=rules)
    assert result.n_games == 2  # evaluate raises on any illegal action


def test_same_seed_same_decisions():
    obs = observation_dict(position(11, 4))
    policy = ISMCTSPolicy(budget=40)
    policy.seed(5)
    first = [policy.act(obs) for _ in range(3)]
    policy.seed(5)
    assert [policy.act(obs) for _ in range(3)] == first


def test_iteration_budget_visits_and_the_choice_of_the_most_visited_child():
    game = leading_position()
    policy = ISMCTSPolicy(budget=120, seed=0)
    choice = policy.act(observation_dict(game))
    stats = policy.last_stats
    assert stats["iterations"] == 120
    legal = set(np.flatnonzero(observation_dict(game)["action_mask"]).tolist())
    assert set(stats["visits"]) <= legal
    # every iteration passes through exactly one root child: the root's visits add up to the budget
    assert sum(stats["visits"].values()) == 120
    assert stats["visits"][choice] == max(stats["visits"].values())
    assert len(stats["visits"]) == min(120, len(legal))  # every root move was expanded before any was revisited


def test_a_time_budget_stops_near_its_limit(monkeypatch):
    """The budget is read off the search's clock; here a fake one that moves only as iterations run
    (1 ms each), so the test checks the stopping rule whatever the machine's load: the search stops at
    the first iteration that ends at or past its deadline."""
    import types

    import big2_env.players.ismcts as ismcts_module

    clock = [0.0]
    monkeypatch.setattr(ismcts_module, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))
    policy = ISMCTSPolicy(budget="0.2s", seed=0)
    real = policy._iterate

    def timed(*args):
        clock[0] += 1e-3
        return real(*args)

    monkeypatch.setattr(policy, "_iterate", timed)
    policy.act(observation_dict(leading_position()))
    assert policy.last_stats["iterations"] == round(policy.last_stats["seconds"] / 1e-3)
    assert 0.2 <= policy.last_stats["seconds"] < 0.2 + 1e-3 + 1e-9


def test_it_takes_the_win_when_its_last_cards_make_one_play():
    """Seat 0 holds a pair and leads: playing the pair ends the game with a win, any single loses
    the lead to three opponents. The tree must find the pair."""
    rules = Rules()
    hands = [[0, 1], list(range(12, 22)), list(range(22, 32)), list(range(32, 42))]  # 0 and 1: a pair of threes
    game = Game.from_hands(hands, rules=rules, current_player=0, opening=False)
    played_by = [list(range(2, 12)) + [42], [43, 44, 45], [46, 47, 48], [49, 50, 51]]  # 11 + 3 x 3: the rest
    game.played_by_mask = [sum(1 << c for c in cards) for cards in played_by]
    game.played_mask = sum(game.played_by_mask)
    assert game.trick is None and len(game.legal_plays()) == 3  # 3D, 3C or the pair
    obs = observation_dict(game)
    choice = ISMCTSPolicy(budget=60, seed=0).act(obs)
    hand = sorted(game.hands[0])
    assert sorted(action_cards(choice, hand)) == [0, 1]


def test_the_node_statistics_are_from_each_movers_side():
    """After a search, a child's total is the sum of its mover's final scores / 13: its mean lies
    within the game's score range, and opponents' nodes are credited to them, not to seat 0."""
    game = position(3, 9)
    policy = ISMCTSPolicy(budget=80, seed=1)
    seen: list[_Node] = []
    original = policy._iterate

    def spy(root, g):
        seen.append(root)
        return original(root, g)

    policy._iterate = spy  # type: ignore[method-assign]
    policy.act(observation_dict(game))
    root = seen[0]
    movers = set()
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.children.values():
            assert child.visits >= 1 and child.available >= child.visits
            assert -3.0 - 1e-9 <= child.total / child.visits <= 9.0 + 1e-9  # scores in [-39, 117] / 13
            movers.add(child.mover)
            stack.append(child)
    assert 0 in movers and movers - {0}  # the opponents' replies are in the tree too


@pytest.mark.parametrize(
    "kwargs, match",
    [({"budget": 0}, "budget must be iterations per decision"), ({"budget": "fast"}, "budget must be"),
     ({"exploration": -1}, "exploration"),
     ({"exploration": float("nan")}, "exploration"), ({"pass_inference": 2}, "pass_inference"),
     ({"rollout": "wizard"}, "unknown policy"), ({"rules": "nope"}, "nope")],
)
def test_bad_arguments_are_rejected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ISMCTSPolicy(**kwargs)


def test_ismcts_agent_specs():
    assert isinstance(load_agent("ismcts"), ISMCTSPolicy)
    assert load_agent("ismcts:64").iterations == 64
    assert load_agent("ismcts:0.1s", rules="charlesworth").seconds == 0.1
    for bad in ("ismcts:zz", "ismcts:"):
        with pytest.raises(LoadError, match=f"'{bad}': budget must be"):
            load_agent(bad)


@pytest.mark.parametrize("rules", [Rules(), Rules.preset("charlesworth"), Rules(pass_locks=True, lone_triples=False)],
                         ids=["default", "charlesworth", "locks-no-triples"])
def test_the_core_ismcts_decides_what_the_python_ismcts_decides(rules):
    from tests.differential.test_search_core import choice_observations

    from tests.reference.rollouts import EngineSmartRollout

    core, python = ISMCTSPolicy(rules, budget=48, seed=5), ISMCTSPolicy(rules, budget=48, seed=5,
                                                                         rollout=EngineSmartRollout(rules))
    observations = choice_observations(rules, range(10))
    for obs in observations:
        assert core.act(obs) == python.act(obs)
        a, b = core.last_stats, python.last_stats
        assert (a["visits"], a["means"], a["nodes"]) == (b["visits"], b["means"], b["nodes"])
    assert len(observations) >= 5 and core.rng.random() == python.rng.random()
