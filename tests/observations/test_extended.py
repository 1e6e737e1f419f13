"""The extended observation (277 + 38 numbers of public history): each slice against the engine's own
record of the game, what a pass reveals, the environments' opt-in, and the search's consistent deals."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from big2_env import Game, Rules, env, evaluate
from big2_env.engine.combos import classify, enumerate_combos
from big2_env.observations.decision import Decision
from big2_env.observations.paper import OBS_SIZE, observation
from big2_env.observations.decision import PolicyObservation
from big2_env.observations.extended import (
    EXT_CONTROL,
    EXT_DECLINED,
    EXT_DECLINED_STRENGTH,
    EXT_OWN_CARDS,
    EXT_PASSED_ROUND,
    EXTENDED_SIZE,
    STRENGTH_MAX,
    decode_declined,
    extended_observation,
)
from big2_env.envs.gym import Big2SingleAgentEnv
from big2_env.players.greedy import GreedyPolicy
from big2_env.players.search import PublicState, SearchPolicy, public_state
from tests.reference.dealers import deal_capped, deal_consistent, deal_unseen

VARIANTS = [
    Rules(),
    Rules.preset("charlesworth"),
    Rules(straights="wrap", flush_order="suit_first", scoring="hk"),
    Rules(four_card_plays=True, opening="3D_leads_free"),
]


def expected_history(game: Game, player: int) -> dict:
    """The extension's content by replaying the game move by move on the engine and reading the
    engine's own trick and passes (not the extension's bookkeeping)."""
    replay = Game.from_hands(game.hands_at_start, game.rules)
    declined: dict[int, dict[int, int]] = {s: {} for s in range(4)}
    passed_round = {s: False for s in range(4)}
    for seat, play in game.history:
        if not play:
            size, strength = len(replay.trick), classify(replay.trick, game.rules).strength
            declined[seat][size] = min(declined[seat].get(size, strength), strength)
            passed_round[seat] = True
        replay.play(play)
        if replay.trick is None:  # a new round: control returned
            passed_round = {s: False for s in range(4)}
    return {"declined": declined, "passed_round": passed_round, "trick_player": game.trick_player if game.trick else None}


def game_after(seed: int, moves: int, rules: Rules, policy=None) -> Game:
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    game.hands_at_start = [list(h) for h in game.hands]  # type: ignore[attr-defined]
    while not game.is_over and game.turn < moves:
        if policy is None:
            game.play_index(rng.randrange(len(game.legal_plays())))
        else:
            decision = Decision(game)
            game.play(decision.play_for_action(policy.act(PolicyObservation(decision))))
    return game


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 80), st.sampled_from(range(len(VARIANTS))))
def test_every_slice_matches_the_engines_record(seed, moves, variant):
    rules = VARIANTS[variant]
    game = game_after(seed, moves, rules)
    for player in range(4):
        vector = extended_observation(game, player)
        assert vector.shape == (EXTENDED_SIZE,) and vector.dtype == np.float32
        np.testing.assert_array_equal(vector[:OBS_SIZE], observation(game, player))
        want = expected_history(game, player)
        assert vector[EXT_OWN_CARDS] == pytest.approx(game.cards_left(player) / 13)
        control = 0 if want["trick_player"] is None else (want["trick_player"] - player) % 4
        assert vector[EXT_CONTROL].tolist() == [float(i == control) for i in range(4)]
        others = [(player + k) % 4 for k in (1, 2, 3)]
        assert vector[EXT_PASSED_ROUND].tolist() == [float(want["passed_round"][s]) for s in others]
        decoded = decode_declined(vector)
        for k, seat in enumerate(others):
            for size in range(1, 6):
                assert decoded[k][size - 1] == want["declined"][seat].get(size, -1)
                flag = vector[EXT_DECLINED][5 * k + size - 1]
                assert flag == float(size in want["declined"][seat])
                if flag:
                    assert vector[EXT_DECLINED_STRENGTH][5 * k + size - 1] == pytest.approx(
                        want["declined"][seat][size] / STRENGTH_MAX[size - 1]
                    )
        assert np.all((vector[OBS_SIZE:] >= 0) & (vector[OBS_SIZE:] <= 1))


def test_the_decision_and_the_policy_view_give_the_same_numbers():
    game = game_after(3, 30, Rules())
    decision = Decision(game)
    np.testing.assert_array_equal(decision.extended_observation, extended_observation(game, game.current_player))
    assert PolicyObservation(decision)["observation"].shape == (OBS_SIZE,)
    assert PolicyObservation(decision, extended=True)["observation"].shape == (EXTENDED_SIZE,)
    game.play(game.legal_plays()[0])  # the decision keeps describing its own moment
    np.testing.assert_array_equal(decision.extended_observation[:OBS_SIZE], decision.observation)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.integers(4, 80))
def test_a_greedy_passer_holds_no_play_beating_what_it_passed_on(seed, moves):
    """Greedy passes only when it cannot beat the trick, so what the extension records holds for its hand."""
    game = game_after(seed, moves, Rules(), GreedyPolicy())
    if game.is_over:
        return
    me = game.current_player
    declined = decode_declined(extended_observation(game, me))
    for k in range(3):
        groups = enumerate_combos(sum(1 << c for c in game.hand((me + 1 + k) % 4)))
        for size in range(1, 6):
            weakest = declined[k][size - 1]
            if weakest >= 0:
                assert all(e[0] <= weakest for e in groups[size])


def test_the_environments_offer_it_and_refuse_unknown_kinds():
    from pettingzoo.test import api_test

    api_test(env(observation="extended"), num_cycles=60)
    aec = env(observation="extended")
    aec.reset(seed=0)
    assert aec.observation_space("player_0")["observation"].shape == (EXTENDED_SIZE,)
    assert aec.observe("player_2")["observation"].shape == (EXTENDED_SIZE,)  # off move too
    single = Big2SingleAgentEnv(opponents="greedy", observation="extended")
    obs, _ = single.reset(seed=0)
    assert obs["observation"].shape == (EXTENDED_SIZE,) and single.observation_space["observation"].contains(obs["observation"])
    for bad in ("full", 315, None):
        with pytest.raises(ValueError, match="observation must be one of 'paper', 'extended'"):
            env(observation=bad)
        with pytest.raises(ValueError, match="observation must be one of 'paper', 'extended'"):
            Big2SingleAgentEnv(observation=bad)


# ---------------------------------------------------------------- the search's deals
def greedy_position(seed: int) -> Game:
    return game_after(seed, 10 + seed % 40, Rules(), GreedyPolicy())


@pytest.mark.parametrize("seed", range(12))
def test_consistent_deals_keep_the_public_counts_and_believed_singles_caps(seed):
    game = greedy_position(seed)
    if game.is_over:
        return
    state = public_state(PolicyObservation(Decision(game), extended=True))
    rng = np.random.default_rng(seed)
    for _ in range(20):
        hands = deal_consistent(state, rng, Rules(), 1.0)
        assert hands[0] == state.hand_mask and hands[1] | hands[2] | hands[3] == state.unseen_mask
        assert hands[1] & hands[2] == hands[1] & hands[3] == hands[2] & hands[3] == 0
        for k in (1, 2, 3):
            assert hands[k].bit_count() == state.cards_left[k]
            cap = state.declined[k][0]
            if cap >= 0:  # the real hand meets it (Greedy), so a deal always can
                assert hands[k].bit_length() - 1 <= cap


def test_capped_deals_are_uniform_over_the_deals_that_meet_the_caps():
    hand = tuple(range(0, 47))  # 47 known cards in the searcher's hand is impossible in play, but fine here
    state = PublicState(
        hand=hand, trick=None, trick_player=None, passes=0, played_mask=0, played_by=(0, 0, 0, 0),
        cards_left=(47, 2, 2, 1), opening=False,
    )
    caps = [51, 49, 51, 48]  # seat 1: nothing above 49; seat 3: nothing above 48
    unseen = list(range(47, 52))
    valid = []
    for one in itertools.combinations(unseen, 2):
        for two in itertools.combinations([c for c in unseen if c not in one], 2):
            three = [c for c in unseen if c not in one + two]
            if max(one) <= 49 and max(three) <= 48:
                valid.append((sum(1 << c for c in one), sum(1 << c for c in two), sum(1 << c for c in three)))
    rng = np.random.default_rng(0)
    counts = Counter(tuple(deal_capped(state, caps, rng)[1:]) for _ in range(6000))
    assert set(counts) == set(valid)
    expected = 6000 / len(valid)
    assert all(abs(n - expected) < 5 * expected**0.5 for n in counts.values())


def test_pass_inference_is_validated_and_zero_ignores_passes():
    for bad in (-0.1, 1.5, True, "yes"):
        with pytest.raises(ValueError, match="pass_inference must be a number in"):
            SearchPolicy(pass_inference=bad)
    game = greedy_position(5)
    state = public_state(PolicyObservation(Decision(game), extended=True))
    assert any(x >= 0 for row in state.declined for x in row)
    plain = public_state(PolicyObservation(Decision(game)))
    assert all(x < 0 for row in plain.declined for x in row)
    a, b = np.random.default_rng(1), np.random.default_rng(1)

    assert deal_consistent(state, a, Rules(), 0.0) == deal_unseen(state, b)


def test_the_search_reads_the_extended_view_in_evaluation_and_plays_legal_games():
    search = SearchPolicy(budget=8, seed=0)
    assert search.observation_kind == "extended"
    result = evaluate(search, "greedy", n_games=3, seed=2)
    assert result.n_games == 3
