"""The search's simulation in the compiled core against its Python reference: the same deals,
the same history replay and the same decisions from the same seed."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from big2_env import Game, Rules
from big2_env.engine.core import rules_array
from big2_env.players.kernels.fast import N_FEATURES
from big2_env.players.kernels.rollouts import deal_hands
from big2_env.observations.decision import Decision, PolicyObservation
from big2_env.observations.paper import PASS_ACTION, action_cards
from big2_env.players.beliefs import MODELS, seat_log_likelihood_table, game_course, seat_log_likelihoods
from big2_env.players.dealers import CoreState
from big2_env.players.search import SearchPolicy, public_state
from tests.reference.dealers import deal_consistent
from tests.reference.rollouts import EngineSmartRollout

from tests.differential.test_bruteforce import VARIANT_IDS, VARIANTS


def played_position(seed: int, rules: Rules, smart_seats: int = 2) -> Game:
    """A real game some moves in: Smart in the first ``smart_seats`` seats, random moves elsewhere
    (so that the history has opponents of both kinds to read)."""
    from big2_env.observations import observation_dict
    from big2_env.players import SmartPolicy

    rng = np.random.default_rng(seed)
    game, smart = Game(rules, seed=seed), SmartPolicy(rules)
    stop = int(rng.integers(0, 45))
    while game.turn < stop:
        trial = game.copy()
        if game.current_player < smart_seats:
            action = smart.act(observation_dict(game))
            trial.play(() if action == PASS_ACTION else action_cards(action, game.hand(game.current_player)))
        else:
            trial.play_index(int(rng.integers(len(game.legal_entries()))))
        if trial.is_over:
            break
        game = trial
    return game


def choice_observations(rules: Rules, seeds: range) -> list[PolicyObservation]:
    """The searchers' view (passes and history included) of :func:`played_position` for each seed, where the
    mover has more than one legal move."""
    games = [played_position(seed, rules) for seed in seeds]
    return [PolicyObservation(Decision(g), extended=True) for g in games if len(g.legal_entries()) > 1]


@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31), belief=st.sampled_from([0.0, 0.5, 1.0]), deal_seed=st.integers(0, 2**31))
def test_the_core_deals_what_deal_consistent_deals(rules, seed, belief, deal_seed):
    state = public_state(PolicyObservation(Decision(played_position(seed, rules)), extended=True))
    core = CoreState.of(state)
    a, b = np.random.default_rng(deal_seed), np.random.default_rng(deal_seed)
    expected = [deal_consistent(state, a, rules, belief) for _ in range(6)]
    out = np.empty((6, 4), dtype=np.int64)
    deal_hands(b, 6, core.hand, core.unseen, core.left, core.declined, belief, rules_array(rules), out)
    assert out.tolist() == expected
    assert a.random() == b.random()  # the generators were left in the same state


def seat_starts(game: Game, seat: int, rng: np.random.Generator, others: int) -> list[int]:
    """``seat``'s true starting hand, then ``others`` hands of its played cards and random unplayed ones (which
    may not explain its moves)."""
    played = sum(1 << c for s, play in game.history if s == seat for c in play)
    free = [c for c in range(52) if not played >> c & 1]
    return [game._hand_masks[seat] | played] + [
        played | sum(1 << int(c) for c in rng.choice(free, len(game.hand(seat)), replace=False)) for _ in range(others)]


@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31), others=st.integers(0, 2**31))
def test_the_core_replays_the_history_as_seat_log_likelihoods_does(rules, seed, others):
    game = played_position(seed, rules, smart_seats=4)
    course = game_course(game.history, rules)
    rng = np.random.default_rng(others)
    for seat in range(4):
        starts = seat_starts(game, seat, rng, 4)
        table = seat_log_likelihood_table(course, seat, starts, rules, MODELS, 0.05)
        for row, start in zip(table.tolist(), starts):
            assert row == seat_log_likelihoods(course, seat, start, rules, MODELS, 0.05)


@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31), others=st.integers(0, 2**31))
def test_the_replay_move_by_move_is_the_difference_of_the_prefixes(rules, seed, others):
    game = played_position(seed, rules, smart_seats=4)
    course = game_course(game.history, rules)
    rng = np.random.default_rng(others)
    for seat in range(4):
        starts = seat_starts(game, seat, rng, 3)
        starts += [1 << int(rng.choice([c for c in range(52) if not starts[0] >> c & 1]))]  # a card it never held
        moves = seat_log_likelihood_table(course, seat, starts, rules, MODELS, 0.05, by_move=True)
        assert moves.shape == (len(starts), len(course), len(MODELS))
        table = seat_log_likelihood_table(course, seat, starts, rules, MODELS, 0.05)
        assert moves.sum(axis=1).tolist() == table.tolist()
        for h, start in enumerate(starts):
            before = [0.0] * len(MODELS)
            for t, move in enumerate(course):
                upto = seat_log_likelihoods(course[: t + 1], seat, start, rules, MODELS, 0.05)
                if move.seat != seat:
                    assert moves[h, t].tolist() == [0.0] * len(MODELS)
                elif math.isinf(upto[0]):
                    assert moves[h, t].tolist() == [-math.inf] * len(MODELS)
                else:
                    assert moves[h, t] == pytest.approx(np.subtract(upto, before), abs=1e-9)
                before = upto
    # seat 3's last start fails at its first play (a card it lacks), and stays -inf from there
    plays = [t for t, m in enumerate(course) if m.seat == 3 and m.mask]
    rows = [t for t, m in enumerate(course) if m.seat == 3 and plays and t >= plays[0]]
    assert moves[-1, rows].tolist() == [[-math.inf] * len(MODELS)] * len(rows)


def test_the_replay_refuses_hands_of_more_than_thirteen_cards():
    with pytest.raises(ValueError, match="at most 13 cards"):
        seat_log_likelihood_table([], 1, [(1 << 14) - 1], Rules(), MODELS, 0.05)
    with pytest.raises(ValueError, match="at most 13 cards"):
        seat_log_likelihood_table([], 1, [1 << 52], Rules(), MODELS, 0.05)


OPTIONS = [
    {},
    {"budget": 40},
    {"budget": 60, "pass_inference": 0.5},
    {"budget": 50, "prior_top": 0, "infer_opponents": 0},
]


@pytest.mark.parametrize("options", OPTIONS, ids=[str(o) or "defaults" for o in OPTIONS])
@pytest.mark.parametrize("rules", [Rules(), Rules.preset("charlesworth"), Rules(four_card_plays=True, straights="wrap")],
                         ids=["default", "charlesworth", "four-card-wrap"])
def test_the_core_search_decides_what_the_python_search_decides(options, rules):
    # the one-ply search (inner=0): nested rollouts exist only in the core
    core = SearchPolicy(rules, seed=7, inner=0, **options)
    python = SearchPolicy(rules, seed=7, rollout=EngineSmartRollout(rules), **options)
    assert core.core and not python.core and python.inner == 0 and SearchPolicy(rules).inner == 4
    for obs in choice_observations(rules, range(8)):
        assert core.act(obs) == python.act(obs)
        assert core.last_stats["rollouts"] == python.last_stats["rollouts"]
    assert core.rng.random() == python.rng.random()


def test_other_rollout_policies_run_on_the_python_engine():
    assert not SearchPolicy(rollout="greedy").core
    assert SearchPolicy().core


@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=40, deadline=None)
@given(cards=st.lists(st.integers(0, 51), min_size=0, max_size=13, unique=True))
def test_strongest_is_the_last_combination_of_each_size(rules, cards):
    from big2_env.engine.combos import enumerate_combos
    from big2_env.engine.core.kernels import CAPACITY
    from big2_env.players.kernels.rollouts import strongest

    hand = sum(1 << c for c in cards)
    work = [np.empty(CAPACITY, dtype=np.int64) for _ in range(4)]
    groups = enumerate_combos(hand, rules)
    for size in range(1, 6):
        expected = groups[size][-1][0] if groups[size] else -1
        assert strongest(hand, size, rules_array(rules), *work) == expected


def test_the_course_array_has_the_cores_columns():
    from big2_env.players.kernels.rollouts import COURSE_FIELDS
    from big2_env.players.beliefs import course_array

    game = played_position(3, Rules())
    assert course_array(game_course(game.history)).shape == (len(game.history), len(COURSE_FIELDS))


def test_import_big2_env_does_not_load_numba():
    import subprocess
    import sys

    code = "import sys, big2_env; big2_env.SearchPolicy(); print('numba' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "False"


@pytest.mark.parametrize("rules", [Rules(), Rules.preset("charlesworth")], ids=["paper", "charlesworth"])
@pytest.mark.parametrize("seed", range(4))
def test_nested_rollouts_search_seat_zeros_own_moves(rules, seed):
    """With ``inner``, the play-outs' own moves of seat 0 are searched on the known deal: with
    Smart opponents and no noise, a nested play-out is never worth less to seat 0 than the plain
    Smart one from the same deal, and the decisions stay legal and reproducible."""
    from big2_env.players.kernels.rollouts import play_outs

    game = played_position(seed, rules)
    state = public_state(PolicyObservation(Decision(game), extended=True))
    rng = np.random.default_rng(seed)
    deals = np.array([game._hand_masks[(game.current_player + i) % 4] for i in range(4)], dtype=np.int64)[None]
    from big2_env.engine.core.games import TABLE_AT
    from big2_env.players.public import game_row, state_game

    table = game_row(state_game(state, [int(m) for m in deals[0]], rules))[TABLE_AT:]
    candidates = np.array([[0, 0, 0, 0]], dtype=np.int64) if state.trick is not None else None
    if candidates is None:  # leading: the weakest single
        low = int(deals[0, 0] & -deals[0, 0])
        candidates = np.array([[low, 1, low.bit_length() - 1, 0]], dtype=np.int64)
    values = {}
    for inner in (0, 3):
        out = np.empty((1, 1))
        play_outs(deals, table, candidates, np.zeros(1, dtype=np.int64), np.zeros(4), rng, rules_array(rules), out,
                  np.zeros(4, dtype=np.int64), np.zeros(N_FEATURES), inner)
        values[inner] = out[0, 0]
    assert values[3] >= values[0] - 1e-9
    policy = SearchPolicy(rules, budget=16, inner=2, seed=seed)
    again = SearchPolicy(rules, budget=16, inner=2, seed=seed)
    obs = PolicyObservation(Decision(game), extended=True)
    action = policy.act(obs)
    assert action in obs["candidate_actions"].tolist() and action == again.act(obs)
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="inner"):
            SearchPolicy(rules, inner=bad)
    with pytest.raises(ValueError, match="inner .nested rollouts. runs in the compiled core"):
        SearchPolicy(rules, inner=2, rollout=EngineSmartRollout(rules))


@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), smart_seats=st.integers(0, 4))
def test_smart_finish_plays_what_the_engines_smart_rollout_plays(rules, seed, smart_seats):
    from big2_env.players.kernels.rollouts import smart_finish
    from big2_env.players.public import game_row
    from big2_env.players.search import SmartRollout, play_out

    game = played_position(seed, rules, smart_seats)
    row = game_row(game)
    scores = np.empty(4, dtype=np.int64)
    winner = smart_finish(row, rules_array(rules), scores)
    play_out([game], SmartRollout(rules))
    assert (winner, scores.tolist()) == (game.winner, game.scores())
    assert row[:4].tolist() == game._hand_masks  # the same cards left in every hand: the same moves to the end


def test_game_row_is_the_cores_table_of_the_game():
    from big2_env.engine.combos import classify
    from big2_env.engine.core.games import TABLE_AT, TABLE_FIELDS
    from big2_env.players.public import game_row

    game = Game(Rules(pass_locks=True), seed=3)
    first = game.current_player
    assert dict(zip(TABLE_FIELDS, game_row(game)[TABLE_AT:].tolist())) == {
        "player": first, "trick_size": 0, "trick_strength": 0, "trick_category": 0, "trick_mask": 0, "passes": 0,
        "opening": 1, "winner": -1, "passed": 0}
    game.play("3D")
    game.play("pass")
    row = game_row(game)
    single = classify([0], game.rules)
    assert single is not None
    assert row[:4].tolist() == game._hand_masks and game._hand_masks[first] & 1 == 0
    assert dict(zip(TABLE_FIELDS, row[TABLE_AT:].tolist())) == {
        "player": (first + 2) % 4, "trick_size": 1, "trick_strength": single.strength,
        "trick_category": single.category, "trick_mask": 1, "passes": 1, "opening": 0, "winner": -1,
        "passed": 1 << (first + 1) % 4}
