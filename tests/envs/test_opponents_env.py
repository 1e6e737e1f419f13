"""Opponent policies as a PettingZoo wrapper: only the remaining seats are agents, the opponents'
turns are played inside, rewards are final scores, PettingZoo's checks pass, options compose."""

from __future__ import annotations

import pytest
from pettingzoo.test import api_test, seed_test

from big2_env import Game, Rules, opponents_env
from big2_env.envs.aec import AGENTS
from big2_env.observations.decision import Decision
from big2_env.observations.decision import PolicyObservation
from big2_env.observations.extended import EXTENDED_SIZE
from big2_env.envs.opponents import OpponentsEnv
from big2_env.players.smart import SmartPolicy


def play(e, choose) -> tuple[dict, dict, list[str]]:
    """Run one game; ``choose(agent, obs)`` picks the action. Returns rewards, the last info, the agents seen."""
    totals: dict[str, float] = {}
    seen: list[str] = []
    info: dict = {}
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        totals[agent] = totals.get(agent, 0.0) + reward
        seen.append(agent)
        e.step(None if termination or truncation else choose(agent, obs))
    return totals, info, seen


def test_two_learners_against_two_smart_players_get_their_final_scores():
    e = opponents_env({"player_1": "smart", "player_3": "smart"})
    e.reset(seed=3)
    assert e.possible_agents == ["player_0", "player_2"]
    totals, info, seen = play(e, lambda agent, obs: int(obs["candidate_actions"][0]))
    assert set(seen) == {"player_0", "player_2"}
    assert totals == {a: float(info["scores"][a]) for a in ("player_0", "player_2")}
    assert sum(info["scores"].values()) == 0 and info["turns"] == e.unwrapped.game.turn


@pytest.mark.parametrize("seed", range(4))
def test_learners_that_play_like_smart_reproduce_an_all_smart_game(seed):
    """Smart is deterministic: learners choosing Smart's moves must give the all-Smart game of the same deal."""
    e = opponents_env({1: "smart", 2: "smart"})
    e.reset(seed=seed)
    smart = SmartPolicy()
    game = e.unwrapped.game
    dealt = [sorted(game.hand(s) + [c for c in range(52) if game.played_by_mask[s] >> c & 1]) for s in range(4)]
    reference = Game.from_hands(dealt, game.rules)  # the deal (opponents may have moved already)
    while not reference.is_over:
        decision = Decision(reference)
        reference.play(decision.play_for_action(smart.act(PolicyObservation(decision))))
    _, info, _ = play(e, lambda agent, obs: smart.act(obs))
    assert info["scores"] == dict(zip(AGENTS, reference.scores())) and info["turns"] == reference.turn


def test_pettingzoo_api_and_seed_tests_pass_and_options_compose():
    api_test(opponents_env({"player_1": "smart", "player_3": "greedy"}), num_cycles=200)
    api_test(opponents_env({0: "random", 1: "random", 2: "random"}, candidate_view=False, observation="extended"), num_cycles=200)
    seed_test(lambda: opponents_env({"player_1": "random", "player_2": "random"}), num_cycles=200)
    e = opponents_env({"player_0": "greedy"}, rules=Rules.preset("charlesworth"), observation="extended", candidate_view=False)
    e.reset(seed=1)
    obs = e.observe(e.agent_selection)
    assert obs["observation"].shape == (EXTENDED_SIZE,) and set(obs) == {"observation", "action_mask", "history"}
    assert e.unwrapped.game.rules == Rules.preset("charlesworth")


def test_the_same_seed_gives_the_same_game_with_random_opponents():
    def transcript(seed):
        e = opponents_env({1: "random", 3: "random"})
        e.reset(seed=seed)
        play(e, lambda agent, obs: int(obs["candidate_actions"][-1]))
        return e.unwrapped.game.history

    assert transcript(5) == transcript(5)
    assert transcript(5) != transcript(6)


def test_an_illegal_learner_action_ends_the_game_with_minus_one():
    e = opponents_env({"player_1": "smart"})
    e.reset(seed=0)
    agent = e.agent_selection
    obs = e.observe(agent)
    illegal = next(a for a in range(1695) if not obs["action_mask"][a])
    e.step(illegal)
    assert e.rewards[agent] == -13 and all(e.terminations.values())  # the worst score


def test_the_raw_wrapper_refuses_an_illegal_action_and_keeps_its_state():
    e = OpponentsEnv({"player_1": "smart"})
    e.reset(seed=0)
    before = list(e.game.history)
    with pytest.raises(ValueError, match="illegal action"):
        e.step(1693 if not e.observe(e.agent_selection)["action_mask"][1693] else 1692)
    assert e.game.history == before


@pytest.mark.parametrize(
    "opponents, match",
    [({}, "1 to 3 distinct seats"), ({0: "smart", 1: "smart", 2: "smart", 3: "smart"}, "1 to 3 distinct seats"),
     ({0: "smart", "player_0": "greedy"}, "1 to 3 distinct seats"), ({4: "smart"}, "seats 0..3"),
     ({"north": "smart"}, "seats 0..3"), ({True: "smart"}, "seats 0..3"), (["smart"], "a dict from seat to policy"),
     ({1: "wizard"}, "wizard")],
)
def test_bad_opponents_are_refused_with_what_is_allowed(opponents, match):
    with pytest.raises(ValueError, match=match):
        opponents_env(opponents)


def test_an_opponent_choosing_an_illegal_action_is_named():
    class Stubborn:
        def act(self, obs):
            return 1693  # a five-card play nobody can make at the start

    e = opponents_env({0: Stubborn(), 1: Stubborn(), 2: Stubborn()})
    with pytest.raises(ValueError, match="opponent policy .*Stubborn"):
        e.reset(seed=0)
        for agent in e.agent_iter():
            obs, _, termination, truncation, _ = e.last()
            e.step(None if termination or truncation else int(obs["candidate_actions"][0]))
