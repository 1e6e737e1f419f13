"""Reading the move history: the public history array, the replayed course of a game, the
move models' likelihoods from first principles, and the search's use of them
(public information only: swapping hidden cards never changes a decision)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.players.test_search import VARIANTS

from big2_env import Game, Rules
from big2_env.observations.decision import Decision, PolicyObservation
from big2_env.observations.extended import history_array, history_moves
from big2_env.observations.paper import PAD_CARD
from big2_env.players.beliefs import (
    MODELS,
    game_course,
    model_posteriors,
    seat_log_likelihoods,
)
from big2_env.players.greedy import greedy_choice
from big2_env.players.registry import make_policy
from big2_env.players.search import SearchPolicy, public_state
from tests.reference.dealers import deal_consistent
from big2_env.players.smart import smart_choice

TREMBLE = 0.05


def play_game(seed: int, policy: str, rules: Rules = Rules(), stop: int | None = None) -> tuple[Game, list[Game]]:
    """A game played by ``policy`` in all four seats (until ``stop`` moves, or the end), and
    the table before every move."""
    chooser = make_policy(policy, seed=seed, rules=rules)
    game = Game(rules, seed=seed)
    before = []
    while game.winner is None and (stop is None or game.turn < stop):
        before.append(game.copy())
        decision = Decision(game)
        game._apply(decision.require_entry(chooser.act(PolicyObservation(decision)), policy))
    return game, before


def start_masks(game: Game) -> list[int]:
    """Each seat's hand at the start: what it holds now plus what it played."""
    return [game._hand_masks[s] | game.played_by_mask[s] for s in range(4)]


# ----------------------------------------------------------------------------- the public history
def test_history_array_round_trips_in_relative_seats():
    game, _ = play_game(3, "random", stop=30)
    for player in range(4):
        array = history_array(game.history, player)
        assert array.shape == (256, 6) and array.dtype == np.int16
        assert (array[30:] == -1).all()  # no move after the 30th
        moves = history_moves(array)
        assert [((seat + player) % 4, play) for seat, play in moves] == game.history
        assert all((row[1 + len(play):] == PAD_CARD).all() for row, (_, play) in zip(array, moves))
    assert history_array([], 0).shape == (256, 6) and (history_array([], 0) == -1).all()
    assert history_moves(np.zeros((0, 6))) == []


@pytest.mark.parametrize(
    "rows, match",
    [([[0, 1, 2]], "shape"), ([[4, 52, 52, 52, 52, 52]], "seat 0..3"), ([[0, 5, 3, 52, 52, 52]], "ascending"),
     ([[0, 3, 3, 52, 52, 52]], "ascending"), ([[0, 52, 7, 52, 52, 52]], "padded"), ([[1, 60, 52, 52, 52, 52]], "0..51"),
     ([[-1] * 6, [0, 52, 52, 52, 52, 52]], "rows after its last move")],
)
def test_a_bad_history_array_is_refused(rows, match):
    with pytest.raises(ValueError, match=match):
        history_moves(np.array(rows))


def test_both_views_carry_the_history_as_the_envs_do():
    game, _ = play_game(1, "smart", stop=9)
    decision = Decision(game)
    plain, extended = PolicyObservation(decision), PolicyObservation(decision, extended=True)
    for view in (plain, extended):
        assert list(view) == list(PolicyObservation.KEYS) and len(view) == 5 and "history" in view
        np.testing.assert_array_equal(view["history"], history_array(game.history, game.current_player))
    with pytest.raises(KeyError):
        plain["hand"]


# ----------------------------------------------------------------------------- the replayed course
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(range(len(VARIANTS))))
def test_the_course_replays_the_engines_table_before_every_move(seed, variant):
    rules = VARIANTS[variant]
    game, before = play_game(seed, "random", rules)
    course = game_course(game.history, rules)
    assert len(course) == len(before) == len(game.history)
    for move, table, (seat, play) in zip(course, before, game.history):
        assert (move.seat, move.play, move.mask) == (seat, play, sum(1 << c for c in play))
        assert move.trick == table.trick and move.opening == table._opening
        assert move.trick_strength == (table._trick_strength if table.trick else 0)


@pytest.mark.parametrize("seat", [-1, 4])
def test_a_history_seat_outside_the_table_is_refused(seat):
    with pytest.raises(ValueError, match="seats are 0..3"):
        game_course([(0, (0,)), (seat, ())])


def test_a_history_play_that_is_no_combination_is_refused():
    with pytest.raises(ValueError, match="not a legal combination"):
        game_course([(0, (0, 5))])


# ----------------------------------------------------------------------------- likelihoods
def choices(table: Game) -> int:
    return len(table.legal_entries())


@pytest.mark.parametrize("policy", ["smart", "greedy"])
@pytest.mark.parametrize("seed", range(6))
def test_the_true_hands_follow_their_own_rule_at_every_choice(policy, seed):
    """In a game where every seat plays ``policy``, each seat's true starting hand explains every
    one of its moves under that model (no tremble), and Random's likelihood is 1 / choices."""
    rules = VARIANTS[seed % len(VARIANTS)]
    game, before = play_game(seed, policy, rules)
    course = game_course(game.history, rules)
    for seat, start in enumerate(start_masks(game)):
        counts = [choices(t) for t, (s, _) in zip(before, game.history) if s == seat and choices(t) > 1]
        ll = dict(zip(MODELS, seat_log_likelihoods(course, seat, start, rules, MODELS, TREMBLE)))
        assert ll[policy] == pytest.approx(len(counts) * math.log1p(-TREMBLE))
        assert ll["random"] == pytest.approx(-sum(math.log(n) for n in counts))


@pytest.mark.parametrize("seed", range(4))
def test_a_move_off_the_rule_costs_the_tremble_shared_among_the_other_moves(seed):
    """Random players' hands, scored move by move against the models' own choices."""
    game, before = play_game(seed, "random")
    course = game_course(game.history)
    seat = 1
    expected = {"smart": 0.0, "greedy": 0.0}
    for table, (s, play) in zip(before, game.history):
        entries = table.legal_entries()
        if s != seat or len(entries) == 1:
            continue
        plays = [e[1] for e in entries]
        picks = {"smart": smart_choice(table.hand(seat), table.trick, plays, table.rules),
                 "greedy": greedy_choice(plays, table.rules)}
        for model, pick in picks.items():
            expected[model] += math.log1p(-TREMBLE) if plays[pick] == play else math.log(TREMBLE / (len(plays) - 1))
    got = seat_log_likelihoods(course, seat, start_masks(game)[seat], Rules(), ("smart", "greedy"), TREMBLE)
    assert got == pytest.approx([expected["smart"], expected["greedy"]])


def test_a_hand_that_could_not_have_made_the_moves_is_impossible():
    game, _ = play_game(2, "smart", stop=20)
    course = game_course(game.history)
    seat = next(s for s, play in game.history if play and s != 0)
    played = game.played_by_mask[seat]
    lowest_played = played & -played
    start = start_masks(game)[seat] & ~lowest_played  # never held a card it played
    assert seat_log_likelihoods(course, seat, start) == [-math.inf] * 3


@pytest.mark.parametrize("policy", ["smart", "greedy", "random"])
def test_the_history_tells_which_model_the_opponents_follow(policy):
    """Over positions 30 moves into games where everyone plays ``policy``, the opponents'
    posteriors (over 16 deals that respect the passes, as the search draws them) favour
    ``policy``; the searcher's own seat keeps the prior."""
    rng = np.random.default_rng(0)
    posteriors = []
    for seed in range(10):
        game, _ = play_game(seed, policy, stop=30)
        if game.winner is not None:
            continue
        obs = PolicyObservation(Decision(game), extended=True)
        state = public_state(obs)
        deals = [deal_consistent(state, rng, Rules(), 1.0) for _ in range(16)]
        post = model_posteriors(deals, state.played_by, game_course(history_moves(obs["history"])))
        assert post.shape == (4, 3) and np.allclose(post.sum(axis=1), 1)
        np.testing.assert_allclose(post[0], [1 / 3] * 3)
        posteriors.append(post[1:])
    assert len(posteriors) >= 6
    mean = np.concatenate(posteriors).mean(axis=0)
    assert mean.argmax() == MODELS.index(policy), mean


@pytest.mark.parametrize(
    "kwargs, match",
    [({"models": ("smart", "psychic")}, "models must be"), ({"models": "smart"}, "models must be"),
     ({"models": ()}, "models must be"), ({"tremble": 0}, "tremble"), ({"tremble": 1.5}, "tremble"),
     ({"tremble": "low"}, "tremble")],
)
def test_the_likelihoods_refuse_unknown_models_and_bad_trembles(kwargs, match):
    course = game_course(play_game(0, "smart", stop=8)[0].history)
    with pytest.raises(ValueError, match=match):
        seat_log_likelihoods(course, 1, (1 << 13) - 1, **kwargs)
    with pytest.raises(ValueError, match=match):
        model_posteriors([[0, 1 << 20, 1 << 21, 1 << 22]], [0, 0, 0, 0], course, **kwargs)


def test_a_bad_model_prior_is_refused():
    course = game_course(play_game(0, "smart", stop=8)[0].history)
    for prior in ([1, 1], [0, 0, 0], [-1, 1, 1]):
        with pytest.raises(ValueError, match="prior"):
            model_posteriors([[0, 0, 0, 0]], [0, 0, 0, 0], course, prior=prior)


@pytest.mark.parametrize("policy, noisy", [("random", True), ("smart", False)])
def test_the_search_plays_random_like_opponents_randomly_in_its_rollouts(policy, noisy):
    game = next(g for g, _ in (play_game(seed, policy, stop=30) for seed in range(7, 20)) if g.winner is None)
    search = SearchPolicy(budget=8, seed=0)
    search.act(PolicyObservation(Decision(game), extended=True))
    assert search._noisy is not None and search._noisy.seat_noise[0] == 0
    noise = search._noisy.seat_noise[1:]
    assert (np.mean(noise) > 0.6) if noisy else (np.mean(noise) < 0.4), noise
    plain = PolicyObservation(Decision(game))
    search.act({key: plain[key] for key in plain if key != "history"})  # no history: no noise
    assert search._noisy.seat_noise == [0.0, 0.0, 0.0, 0.0]
    assert SearchPolicy(infer_opponents=0)._noisy is None


# ----------------------------------------------------------------------------- the search
def test_the_search_reads_the_history_only_with_infer_opponents_and_without_it_plays_as_before():
    game, _ = play_game(5, "smart", stop=20)
    obs = PolicyObservation(Decision(game), extended=True)
    search = SearchPolicy(budget=16, seed=0)
    search.act(obs)
    assert search._course is not None
    # with infer_opponents=0 the history is not read, and the decisions are those made without it
    without = {k: obs[k] for k in obs if k != "history"}
    for seed in range(3):
        off = SearchPolicy(budget=24, seed=seed, infer_opponents=0)
        assert off.act(obs) == SearchPolicy(budget=24, seed=seed).act(without)
        assert off._course is None
    # before any opponent has moved there is nothing to read
    opening, _ = play_game(5, "smart", stop=0)
    search.act(PolicyObservation(Decision(opening), extended=True))
    assert search._course is None


@pytest.mark.parametrize(
    "kwargs, match",
    [({"infer_opponents": -1}, "infer_opponents"), ({"infer_opponents": 1.5}, "infer_opponents"),
     ({"opponent_models": ()}, "opponent_models"),
     ({"opponent_models": ("smart", "psychic")}, "opponent_models"), ({"opponent_models": "smart"}, "opponent_models"),
     ({"tremble": 0}, "tremble"), ({"tremble": 1}, "tremble"), ({"tremble": "low"}, "tremble")],
)
def test_bad_inference_arguments_are_rejected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SearchPolicy(**kwargs)


# ----------------------------------------------------------------------------- the benchmark
def load_options_benchmark():
    from tests.scripts import load_script

    return load_script("experiments/scripts/search_options.py")


def test_the_options_benchmark_plays_the_same_deals_and_its_oracle_sees_the_true_hands():
    module = load_options_benchmark()
    first = module.run({"budget": 6}, "greedy", games=2, seed=4, oracle=False)
    again = module.run({"budget": 6}, "greedy", games=2, seed=4, oracle=False)
    same = ("win_rate", "mean_score", "score_sd", "games", "opponent", "deal_accuracy")
    assert [first[k] for k in same] == [again[k] for k in same]
    assert 0.2 < first["deal_accuracy"] < 0.8
    oracle = module.run({"budget": 6}, "greedy", games=2, seed=4, oracle=True)
    assert oracle["oracle"] and 0 <= oracle["win_rate"] <= 1 and oracle["deal_accuracy"] == 1.0
    search = module.OracleSearch(budget=4)
    search.true_hands = [1, 2, 4, 8]
    assert search._deal(None) == [1, 2, 4, 8]


@pytest.mark.parametrize("variant", ["noisy-oracle:2", "mcmc:6,2", "model-rollouts"])
def test_the_options_benchmarks_variants_play_legal_games(variant):
    module = load_options_benchmark()
    result = module.run({"budget": 6}, "smart", games=1, seed=3, variant=variant)
    assert result["variant"] == variant and 0 <= result["win_rate"] <= 1
    if variant.startswith("noisy-oracle"):  # two swaps put at most 4 of the hidden cards wrong
        assert 0.5 < result["deal_accuracy"] < 1


@pytest.mark.parametrize("variant", ["bogus", "oracle:1", "noisy-oracle:x", "mcmc:4", "mcmc:a,b"])
def test_the_options_benchmark_refuses_an_unknown_variant(variant):
    with pytest.raises(ValueError, match="unknown variant"):
        load_options_benchmark().make_search(variant, {})


@pytest.mark.parametrize("seed", range(4))
def test_the_benchmarks_deal_chain_keeps_every_public_card_and_count(seed):
    module = load_options_benchmark()
    game, _ = play_game(seed, "smart", stop=14 + seed)
    decision = Decision(game)
    obs = PolicyObservation(decision, extended=True)
    state = public_state(obs)
    course = game_course(history_moves(obs["history"]))
    chain = module.DealChain(state, course, Rules(), np.random.default_rng(seed))
    for _ in range(30):
        chain.step()
        hands = chain.hands
        assert hands[0] == state.hand_mask
        assert [h.bit_count() for h in hands[1:]] == list(state.cards_left[1:])
        assert hands[1] | hands[2] | hands[3] == state.unseen_mask
        assert all(math.isfinite(chain.log_likelihood[s]) or chain.accepted == 0 for s in (1, 2, 3))
    assert chain.steps == 30 and 0 < chain.accepted <= 30


def test_the_benchmarks_model_opponents_play_greedy_where_told():
    module = load_options_benchmark()
    from big2_env.players.search import SmartRollout

    game, _ = play_game(2, "smart", stop=5)
    tables = []
    for seat in range(4):
        table = game.copy()
        table.current_player = seat
        table._legal = None
        tables.append(table)
    rollout = module.ModelOpponents(SmartRollout(), seed=0)
    rollout.seat_greedy = [1.0, 1.0, 1.0, 0.0]
    picks = rollout.choose_batch(tables)
    smart = SmartRollout()
    greedy = [greedy_choice([e[1] for e in table.legal_entries()], Rules()) for table in tables]
    assert greedy[0] != smart.choose(tables[0]) and greedy[2] != smart.choose(tables[2])  # the position tells them apart
    for seat, (table, pick) in enumerate(zip(tables, picks)):  # seat 0, the searcher, is never an opponent
        assert pick == (greedy[seat] if seat in (1, 2) else smart.choose(table))


def test_the_benchmarks_posterior_accuracy_is_a_share_of_the_hidden_cards():
    found = load_options_benchmark().posterior_accuracy(2, seed=1, burn=10, samples=3, thin=2)
    assert found["positions"] == 2 and found["chain_swaps"] == 16
    assert 0 < found["proposal_accuracy"] < 1 and 0 < found["posterior_accuracy"] < 1


@pytest.mark.parametrize("positions", [0, -1, 1.5, True])
def test_the_benchmarks_posterior_accuracy_refuses_a_bad_count(positions):
    with pytest.raises(ValueError, match="positions must be an int >= 1"):
        load_options_benchmark().posterior_accuracy(positions)


@pytest.mark.parametrize(
    "argv, message",
    [(["--variant", "bogus"], "unknown variant 'bogus'"), (["--posterior", "0"], "positions must be an int >= 1"),
     (["--options", "{bad"], "--options must be a JSON object"), (["--options", "[1]"], "--options must be a JSON object"),
     (["--options", '{"budget": -1}'], "budget must be"), (["--agreement", "0"], "positions must be an int >= 1"),
     (["--agreement", "2", "--options", '{"budget": -1}'], "budget must be"),
     (["--posterior", "2", "--agreement", "2"], "not allowed with argument"),
     (["--agreement", "2", "--prior", "pretrained"], "--posterior and --agreement play none"),
     (["--posterior", "2", "--variant", "oracle"], "--posterior and --agreement play none")],
)
def test_the_options_benchmarks_command_line_says_what_was_wrong(argv, message, monkeypatch, capsys):
    module = load_options_benchmark()
    monkeypatch.setattr("sys.argv", ["search_options.py", "--games", "1", *argv])
    with pytest.raises(SystemExit) as exit_info:
        module.main()
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


def test_the_options_benchmark_takes_an_agent_as_everyones_rollout_policy(monkeypatch):
    from big2_env.players.greedy import GreedyPolicy

    module = load_options_benchmark()
    calls = []
    act = GreedyPolicy.act
    monkeypatch.setattr(GreedyPolicy, "act", lambda self, obs: calls.append(1) or act(self, obs))
    found = module.run({"budget": 6}, "random", games=1, seed=4, rollout="greedy")
    assert found["rollout"] == "greedy" and found["options"] == {"budget": 6} and found["games"] == 1
    assert calls  # the rollouts asked Greedy for moves (the random opponents never do)


def test_the_options_benchmark_measures_how_often_two_searches_agree():
    module = load_options_benchmark()
    found = module.self_agreement(3, {"budget": 4}, seed=1)
    assert found["positions"] == 3 and found["agreement"] in (0, 1 / 3, 2 / 3, 1)
    assert module.self_agreement(3, {"budget": 4}, seed=1) == found  # seeded: the same positions and choices
    with pytest.raises(ValueError, match="positions must be an int >= 1; got 0"):
        module.self_agreement(0, {})
