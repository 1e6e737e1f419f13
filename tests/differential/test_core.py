"""The compiled core against the pure-Python reference engine (``tests/reference``), move by move, under every variant."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from big2_env import Game as PackageGame
from big2_env import Rules, parse_cards
from big2_env.engine.cards import mask_to_cards
from big2_env.engine.core import MAX_TURNS, hand_combinations, legal_masks, rules_array
from big2_env.players.kernels import deal, play_random, random_game_trace, smart_play


from tests.reference import Game, enumerate_combos, legal_plays
from tests.differential.test_bruteforce import VARIANT_IDS, VARIANTS


def reference_game(deck: np.ndarray, uniforms: np.ndarray, rules: Rules):
    """The Python engine playing legal play ``floor(u * n)`` at each turn, as the core does."""
    hands = [sorted(int(c) for c in deck[13 * i : 13 * i + 13]) for i in range(4)]
    game = Game.from_hands(hands, rules)
    rows, positions = [], []
    while not game.is_over:
        legal = game.legal_entries()
        pick = min(int(uniforms[game.turn] * len(legal)), len(legal) - 1)
        locked = rules.pass_locks and game.current_player in game.out_of_trick
        positions.append((game.hand(game.current_player), game.trick, game.is_opening, locked, [e[2] for e in legal]))
        rows.append((game.current_player, len(legal), legal[pick][2]))
        game.play_index(pick)
    return np.array(rows, dtype=np.int64), game.scores(), game.winner, positions


@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_match_the_reference_move_by_move(rules, seed):
    rng = np.random.default_rng(seed)
    deck, uniforms = rng.permutation(52), rng.random(MAX_TURNS)
    trace, scores, winner = random_game_trace(deck, uniforms, rules)
    expected, expected_scores, expected_winner, positions = reference_game(deck, uniforms, rules)
    np.testing.assert_array_equal(trace, expected)
    assert scores.tolist() == expected_scores and winner == expected_winner
    for hand, trick, opening, locked, masks in positions:  # the whole legal list, in order, at every decision
        assert legal_masks(hand, trick, rules, opening=opening, locked=locked).tolist() == masks


@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=40, deadline=None)
@given(cards=st.lists(st.integers(0, 51), min_size=1, max_size=13, unique=True))
def test_hand_combinations_match_the_reference_enumeration(rules, cards):
    masks, sizes, strengths, categories = hand_combinations(cards, rules)
    mask = sum(1 << c for c in cards)
    expected = [e for group in enumerate_combos(mask, rules) for e in group]
    assert masks.tolist() == [e[2] for e in expected]
    assert strengths.tolist() == [e[0] for e in expected]
    assert categories.tolist() == [e[3] for e in expected]
    assert sizes.tolist() == [len(e[1]) for e in expected]


def test_thirteen_cards_of_one_suit_fit():
    spades = [r * 4 + 3 for r in range(13)]
    masks, *_ = hand_combinations(spades, Rules(straights="wrap"))
    assert len(masks) == len({int(m) for m in masks}) == 13 + 1287  # singles and every five: flushes and straight flushes


def test_legal_masks_follow_legal_plays():
    hand, trick = parse_cards("3D 3S 5H 6H 6S"), parse_cards("4C 4D")
    expected = [sum(1 << c for c in p) for p in legal_plays(hand, trick)]
    assert legal_masks(hand, trick).tolist() == expected
    assert [mask_to_cards(int(m)) for m in legal_masks(parse_cards("3D 4D"), opening=True, rules="charlesworth")] == [[0]]


def test_play_random_is_seeded_and_replays_in_the_engine(monkeypatch):
    import big2_env.players.kernels as seated

    monkeypatch.setattr(seated, "CHUNK", 7)  # several chunks: the draws run on from chunk to chunk
    a, b = play_random(20, seed=5), play_random(20, seed=5)
    assert np.array_equal(a.scores, b.scores) and np.array_equal(a.turns, b.turns)
    assert not np.array_equal(a.scores, play_random(20, seed=6).scores)
    assert (a.scores.sum(axis=1) == 0).all() and a.decisions == int(a.turns.sum())
    rng = np.random.default_rng(5)
    chunks = [deal(k, rng) for k in (7, 7, 6)]
    decks, uniforms = np.concatenate([c[0] for c in chunks]), np.concatenate([c[1] for c in chunks])
    for g in range(20):
        _, scores, winner, _ = reference_game(decks[g], uniforms[g], Rules())
        assert a.scores[g].tolist() == scores and a.winners[g] == winner


def test_rules_array_names_each_field():
    assert rules_array(None).tolist() == [0, 0, 0, 1, 0, 0, 1, 0]
    assert rules_array({"straights": "wrap", "scoring": "hk"}).tolist() == [1, 0, 0, 1, 1, 0, 1, 0]
    assert rules_array({"lone_triples": False, "pass_locks": True}).tolist() == [0, 0, 0, 1, 0, 0, 0, 1]


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: hand_combinations([52]), "0..51"),
        (lambda: hand_combinations([1.0]), "int"),
        (lambda: hand_combinations(list(range(14))), "13"),
        (lambda: legal_masks([0, 1], trick=[1]), "shares cards"),
        (lambda: legal_masks([0, 5], trick=[1, 9]), "not a legal combination"),
        (lambda: legal_masks([4, 5], opening=True), "3D"),
        (lambda: legal_masks([0, 5], opening=1), "True or False"),
        (lambda: play_random(-1), "n_games"),
        (lambda: play_random(True), "n_games"),
        (lambda: play_random(2, seed=-3), "seed"),
        (lambda: play_random(2, rules="nope"), "nope"),
        (lambda: random_game_trace(np.arange(51), np.zeros(MAX_TURNS)), "permutation"),
        (lambda: random_game_trace(np.zeros(52, dtype=int), np.zeros(MAX_TURNS)), "permutation"),
        (lambda: random_game_trace(np.arange(52.0), np.zeros(MAX_TURNS)), "permutation"),
        (lambda: random_game_trace(np.arange(52), np.ones(MAX_TURNS)), "[0, 1)"),
        (lambda: random_game_trace(np.arange(52), np.zeros(MAX_TURNS - 1)), "[0, 1)"),
        (lambda: random_game_trace(np.arange(52), np.zeros(MAX_TURNS, dtype=int)), "[0, 1)"),
        (lambda: random_game_trace(np.arange(52), np.zeros(MAX_TURNS), smart_seats=[4]), "smart_seats"),
        (lambda: smart_play([]), "1 to 13 cards"),
        (lambda: smart_play([0, 60]), "0..51"),
        (lambda: smart_play(list(range(14))), "13"),
        (lambda: smart_play([0, 1], trick=[1]), "shares cards"),
        (lambda: smart_play([0, 5], trick=[1, 9]), "not a legal combination"),
        (lambda: smart_play([4, 5], opening=True), "3D"),
        (lambda: smart_play([0, 5], rules="nope"), "nope"),
    ],
)
def test_bad_input_never_reaches_compiled_code(call, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        call()


def test_the_kernels_run_unjitted_with_the_same_results():
    import subprocess
    import sys
    from pathlib import Path

    code = "from big2_env.players.kernels import play_random; print(play_random(4, seed=9, rules='charlesworth').scores.tolist())"
    env = dict(__import__("os").environ, NUMBA_DISABLE_JIT="1")
    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=repo, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(play_random(4, seed=9, rules="charlesworth").scores.tolist())


@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_paper_view_matches_the_reference_at_every_decision(rules, seed):
    """The compiled view of each decision (:func:`decision_arrays`: the 277 numbers, the legal plays'
    action indices) against the Python oracle, through a random game of the core."""
    from big2_env import PASS_ACTION, action_index, legal_action_mask
    from big2_env.observations.compiled import decision_arrays
    from tests.reference.paper_view import observation

    rng = np.random.default_rng(seed)
    deck, uniforms = rng.permutation(52), rng.random(MAX_TURNS)
    trace, _, _ = random_game_trace(deck, uniforms, rules)
    hands = [sorted(int(c) for c in deck[13 * i : 13 * i + 13]) for i in range(4)]
    game, package = Game.from_hands(hands, rules), PackageGame.from_hands(hands, rules)
    for player, n_legal, chosen in trace.tolist():
        assert package.current_player == game.current_player == player
        seen, masks, actions = decision_arrays(package)
        np.testing.assert_array_equal(seen, observation(game, player))
        mask = np.zeros(PASS_ACTION + 1, dtype=bool)
        mask[actions] = True
        mask[PASS_ACTION] = package.trick is not None
        np.testing.assert_array_equal(mask, legal_action_mask(game).astype(bool))
        legal = game.legal_entries()
        pick = min(int(uniforms[game.turn] * len(legal)), len(legal) - 1)
        play = legal[pick][1]
        assert (len(legal), legal[pick][2]) == (n_legal, chosen)
        if play:
            assert actions[masks.index(chosen)] == action_index(play, game.hand(player))
        game.play_index(pick)
        package.play(play)
    assert game.is_over and package.is_over


@pytest.mark.parametrize("kind", ["greedy", "smart"])
@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seats=st.sets(st.integers(0, 3), min_size=1))
def test_heuristic_seats_choose_what_their_policy_chooses(kind, rules, seed, seats):
    from big2_env import PASS_ACTION, action_cards
    from big2_env.observations import observation_dict
    from big2_env.players import GreedyPolicy, SmartPolicy

    rng = np.random.default_rng(seed)
    deck, uniforms = rng.permutation(52), rng.random(MAX_TURNS)
    trace, scores, winner = random_game_trace(deck, uniforms, rules, **{f"{kind}_seats": seats})
    policy = GreedyPolicy(rules) if kind == "greedy" else SmartPolicy(rules)
    game = PackageGame.from_hands([sorted(int(c) for c in deck[13 * i : 13 * i + 13]) for i in range(4)], rules)
    for player, n_legal, chosen in trace.tolist():
        legal = game.legal_entries()
        assert (game.current_player, len(legal)) == (player, n_legal)
        if player in seats:
            action = policy.act(observation_dict(game))
            play = () if action == PASS_ACTION else action_cards(action, game.hand(player))
            assert sum(1 << c for c in play) == chosen
            game.play(play)
        else:
            pick = min(int(uniforms[game.turn] * len(legal)), len(legal) - 1)
            assert legal[pick][2] == chosen
            game.play_index(pick)
    assert game.winner == winner and game.scores() == scores.tolist()


@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_smart_play_matches_smart_choice_on_any_hand_and_trick(rules, data):
    """Any hand of 1..13 cards facing any legal trick (or leading) of the other cards."""
    from big2_env.players.kernels import smart_play
    from tests.reference.smart import smart_choice

    cards = data.draw(st.lists(st.integers(0, 51), min_size=1, max_size=13, unique=True))
    hand = sum(1 << c for c in cards)
    others = [c for c in range(52) if not hand >> c & 1]
    trick_plays = [e[1] for group in enumerate_combos(sum(1 << c for c in data.draw(st.permutations(others))[:8]), rules)
                   for e in group]
    trick = data.draw(st.sampled_from([None] + trick_plays))
    plays = [tuple(mask_to_cards(int(m))) for m in legal_masks(cards, trick, rules)]
    expected = plays[smart_choice(sorted(cards), trick, plays, rules)]
    assert smart_play(cards, trick, rules) == sum(1 << c for c in expected)


def test_heuristic_seats_are_checked():
    for bad in (5, [4], [True], ["0"], None):
        with pytest.raises(ValueError, match="greedy_seats"):
            play_random(1, greedy_seats=bad)
        with pytest.raises(ValueError, match="smart_seats"):
            play_random(1, smart_seats=bad)
    with pytest.raises(ValueError, match="both Greedy and Smart"):
        play_random(1, greedy_seats=[1, 2], smart_seats=[2])
    all_greedy = play_random(3, seed=0, greedy_seats=range(4))
    assert np.array_equal(all_greedy.scores, play_random(3, seed=0, greedy_seats=[0, 1, 2, 3, 3]).scores)


def test_the_cache_goes_to_the_user_cache_folder_even_when_numba_was_imported_first(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import numba\n"  # numba loaded (and its config read) before big2_env
        "from big2_env.engine.core import kernels\n"
        "print(kernels.hand_combos._cache._cache_path)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=repo, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().startswith(str(tmp_path / "big2_env" / "numba"))
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "mine")  # the user's choice wins
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=repo, timeout=300)
    assert done.stdout.strip().startswith(str(tmp_path / "mine")), done.stderr


def test_the_core_is_warmed_up_in_the_parent_before_evaluation_workers_start(monkeypatch):
    import big2_env
    import big2_env.players.kernels as kernels
    from big2_env import evaluate

    assert big2_env.warm_up() >= 0
    calls = []
    monkeypatch.setattr(kernels, "warm_up", lambda: calls.append(1) or 0.0)
    evaluate("smart", "greedy", n_games=8, seed=0, jobs=2)
    assert calls == [1]


@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), moves=st.integers(0, 30))
def test_smart_scores_are_the_python_smart_scores(rules, seed, moves):
    """The compiled s(a) of every legal play (what the nested search ranks by) against the reference Smart's."""
    from big2_env.engine.core import kernels
    from big2_env.players.kernels.smart import smart_scores
    from tests.reference.smart import smart_scores as reference_scores

    game = PackageGame(rules, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if game.is_over:
            return
        game.play_index(int(rng.integers(len(game.legal_entries()))))
    if game.is_over:
        return
    hand = game._hand_masks[game.current_player]
    masks, sizes, strengths, categories = hand_combinations(game.hand(game.current_player), rules)
    trick = game.trick
    trick_size = len(trick) if trick else 0
    legal = np.empty(kernels.CAPACITY, dtype=np.int64)
    k = kernels.legal_from(masks, sizes, strengths, len(masks), hand, trick_size, game._trick_strength if trick else 0,
                           game.is_opening, rules_array(rules)[kernels.R_OPENING], game.locked, legal)
    trick_category = 0
    if trick:
        from big2_env import classify

        trick_category = classify(trick, rules).category
    out = np.zeros(kernels.CAPACITY, dtype=np.int64)
    smart_scores(hand, masks, sizes, legal, k, trick_size, trick_category, game._trick_mask if trick else 0,
                 rules_array(rules), out)
    expected = reference_scores(game.hand(game.current_player), trick, game.legal_plays(), rules)
    got = {tuple(mask_to_cards(int(masks[legal[j]]))): out[j] / 10 for j in range(k)}
    assert got == pytest.approx(expected)
