"""Property tests: whole random games under every rule variant.

A seed drives both the deal (``Game(rules, seed)``) and a ``random.Random`` that
picks uniformly from ``legal_plays()``. Every decision is checked against an
independent reference: the brute-force legal set of ``test_bruteforce`` and a
hand-written model of turns, tricks and passes (SPEC.md section 2).

Termination bound: a pass never ends a game and never removes a card; after a
play at most three passes follow (the third clears the trick and the player on
move then leads, and a leader cannot pass). So every run of passes has length
at most 3 and is followed by a play, and every play removes at least one card:
decisions <= 4 * plays <= 4 * cards played <= 4 * 52.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from big2_env import Game, Rules, format_play
from tests.differential.test_bruteforce import VARIANTS, bf_all_combos, bf_is_legal, bf_select

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
RULES = st.sampled_from(VARIANTS)
FAST = settings(max_examples=80, deadline=None)

MAX_DECISIONS = 4 * 52


def penalty(cards_left: int, scoring: str) -> int:
    if scoring == "hk":
        return cards_left * (3 if cards_left == 13 else 2 if cards_left >= 10 else 1)
    return cards_left


def check_deal(game: Game) -> None:
    hands = game.hands
    assert [len(h) for h in hands] == [13] * 4
    assert all(list(h) == sorted(h) for h in hands)
    assert sorted(c for h in hands for c in h) == list(range(52))


def play_checked_game(rules: Rules, seed: int, how: str = "mixed") -> Game:
    """Play a uniformly random game, checking every decision against the reference model."""
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    check_deal(game)
    tables = [bf_all_combos(h, rules) for h in game.hands]

    # reference model of the table
    holder = next(p for p in range(4) if 0 in game.hands[p])
    to_move, trick, trick_player, passes, opening = holder, None, None, 0, True
    passed_this_trick: set[int] = set()  # under pass_locks these seats may only pass until the trick ends
    played: list[int] = []
    history: list[tuple[int, tuple[int, ...]]] = []
    plays_made = 0

    while not game.is_over:
        assert len(history) < MAX_DECISIONS, "the game did not end within 4 decisions per card"
        # bookkeeping matches the model
        assert game.current_player == to_move
        assert game.trick == trick
        if trick is not None:
            assert game.passes == passes and game.trick_player == trick_player
        assert game.history == history and game.turn == len(history)
        # cards are conserved: hands + played = 52, all disjoint
        hands = game.hands
        everything = [c for h in hands for c in h] + played
        assert sorted(everything) == list(range(52))

        player = to_move
        hand = hands[player]
        legal = game.legal_plays()
        # exactly the brute-force legal set
        if rules.pass_locks and player in passed_this_trick:
            expected = {()}
        elif opening and rules.opening == "3D_single":
            expected = {(0,)}
        else:
            must = 0 if opening and rules.opening == "3D_must_play" else None
            expected = bf_select(tables[player], trick, rules, must_include=must)
        assert len(legal) == len(set(legal))
        assert set(legal) == expected, (
            f"seed={seed} rules={rules} player={player} trick={trick}: "
            f"extra={sorted(map(format_play, set(legal) - expected))} "
            f"missing={sorted(map(format_play, expected - set(legal)))}"
        )
        if trick is None:
            assert () not in legal  # no pass while leading
        else:
            assert legal[-1] == ()  # pass is always there when following

        index = rng.randrange(len(legal))
        play = legal[index]
        if play:
            must = 0 if opening and rules.opening == "3D_must_play" else None
            assert bf_is_legal(play, hand, trick, rules, must_include=must)
        mode = how if how != "mixed" else rng.choice(("index", "ids", "text"))
        if mode == "index":
            game.play_index(index)
        elif mode == "ids":
            game.play(list(play))
        else:
            game.play(format_play(play))

        # advance the reference model
        history.append((player, play))
        if play:
            plays_made += 1
            played.extend(play)
            tables[player] = {p: info for p, info in tables[player].items() if not set(p) & set(play)}
            trick, trick_player, passes, opening = play, player, 0, False
            if len(hand) == len(play):
                assert game.is_over and game.winner == player
                break
        else:
            passes += 1
            passed_this_trick.add(player)
            assert passes <= 3
            if passes == 3:
                # three passes in a row: the trick clears and its player leads
                assert (player + 1) % 4 == trick_player
                trick = None
                passed_this_trick = set()
        to_move = (player + 1) % 4

    # the end: one empty hand, the game stops
    assert game.is_over and game.winner == history[-1][0]
    assert game.history == history
    hands = game.hands
    assert hands[game.winner] == ()
    assert all(len(hands[p]) >= 1 for p in range(4) if p != game.winner)
    assert sorted([c for h in hands for c in h] + played) == list(range(52))
    assert game.legal_plays() == []
    # termination bound
    assert len(history) <= 4 * plays_made <= 4 * len(played) <= MAX_DECISIONS
    # scores: losers pay their penalty, the winner gets the sum
    scores = game.scores()
    assert sum(scores) == 0
    for p in range(4):
        if p != game.winner:
            assert scores[p] == -penalty(len(hands[p]), rules.scoring)
    assert scores[game.winner] == sum(penalty(len(hands[p]), rules.scoring) for p in range(4) if p != game.winner)
    return game


@FAST
@given(seed=SEEDS, rules=RULES)
def test_random_games_follow_the_rules(seed, rules):
    play_checked_game(rules, seed)


@settings(max_examples=25, deadline=None)
@given(seed=SEEDS)
def test_charlesworth_and_paper_games(seed):
    for rules in (Rules(), Rules.preset("charlesworth")):
        play_checked_game(rules, seed, how="index")


def random_game(rules: Rules, seed: int) -> Game:
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    while not game.is_over:
        game.play_index(rng.randrange(len(game.legal_plays())))
    return game


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS)
def test_scoring_modes(seed):
    """Scoring does not change play; the two modes score the same final hands."""
    paper = random_game(Rules(), seed)
    hk = random_game(Rules(scoring="hk"), seed)
    assert paper.history == hk.history and paper.hands == hk.hands and paper.winner == hk.winner
    left = [len(h) for h in paper.hands]
    losers = [p for p in range(4) if p != paper.winner]
    assert paper.scores() == [sum(left) if p == paper.winner else -left[p] for p in range(4)]
    hk_penalty = {p: left[p] * (3 if left[p] == 13 else 2 if left[p] >= 10 else 1) for p in losers}
    assert hk.scores() == [sum(hk_penalty.values()) if p == hk.winner else -hk_penalty[p] for p in range(4)]
    assert sum(hk.scores()) == 0


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, rules=RULES)
def test_same_seed_same_game(seed, rules):
    first, second = Game(rules, seed=seed), Game(rules, seed=seed)
    assert first.hands == second.hands
    check_deal(first)
    # the deal does not depend on the rule variant
    assert Game(Rules(), seed=seed).hands == first.hands
    # same seed and same choices: the same game
    a, b = random_game(rules, seed), random_game(rules, seed)
    assert a.history == b.history and a.scores() == b.scores()


def test_different_seeds_different_deals():
    deals = {Game(Rules(), seed=s).hands for s in range(50)}
    assert len(deals) == 50
    holders = {Game(Rules(), seed=s).current_player for s in range(50)}
    assert holders == {0, 1, 2, 3}


@settings(max_examples=20, deadline=None)
@given(seed=SEEDS, rules=RULES, cut=st.integers(min_value=0, max_value=200))
def test_copy_is_independent(seed, rules, cut):
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    for _ in range(cut):
        if game.is_over:
            break
        game.play_index(rng.randrange(len(game.legal_plays())))
    state = (game.hands, game.current_player, game.trick, game.passes, list(game.history), game.winner)
    legal = game.legal_plays()
    other = game.copy()
    assert other.legal_plays() == legal
    while not other.is_over:
        other.play_index(rng.randrange(len(other.legal_plays())))
    assert (game.hands, game.current_player, game.trick, game.passes, list(game.history), game.winner) == state
    assert game.legal_plays() == legal
