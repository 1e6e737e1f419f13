"""Encodings: the 277-number state, the 1695-action hand-slot index, the mask and the 80 features."""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from big2_env import (
    NUM_ACTIONS,
    PASS_ACTION,
    Decision,
    Game,
    Rules,
    action_cards,
    action_index,
    legal_action_mask,
    observation,
    parse_cards,
    play_features,
)
from big2_env.observations.paper import ACTION_SLOTS, BLOCK_STARTS

VARIANTS = [
    Rules(),
    Rules.preset("charlesworth"),
    Rules(straights="wrap", flush_order="suit_first", scoring="hk", opening="3D_leads_free"),
    Rules(four_card_plays=True, opening="3D_single"),
]


def random_game(seed: int, rules: Rules = Rules(), stop_after: int | None = None) -> Game:
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    while not game.is_over and (stop_after is None or game.turn < stop_after):
        game.play_index(rng.randrange(len(game.legal_plays())))
    return game


# ---------------------------------------------------------------- action index
def test_block_sizes_and_order():
    sizes = [len(s) for s in ACTION_SLOTS]
    assert len(ACTION_SLOTS) == NUM_ACTIONS == 1695
    assert [sizes.count(k) for k in range(6)] == [1, 13, 33, 31, 330, 1287]
    assert ACTION_SLOTS[PASS_ACTION] == ()
    assert BLOCK_STARTS == {1: 0, 2: 13, 3: 46, 4: 77, 5: 407}
    for size, start in BLOCK_STARTS.items():
        block = [s for s in ACTION_SLOTS if len(s) == size]
        assert ACTION_SLOTS[start : start + len(block)] == tuple(block)
        assert block == sorted(block), "each block is lexicographic"
    # the slot constraints of the scheme
    assert all(j <= i + 3 for i, j in (s for s in ACTION_SLOTS if len(s) == 2))
    assert all(k <= i + 3 for i, _, k in (s for s in ACTION_SLOTS if len(s) == 3))
    assert all(b <= a + 3 and d <= c + 3 for a, b, c, d in (s for s in ACTION_SLOTS if len(s) == 4))
    assert [s for s in ACTION_SLOTS if len(s) == 5] == list(combinations(range(13), 5))


def test_known_indices():
    hand = parse_cards("3D 3C 3H 3S 4D 5D 6D 7D 8D 9D TD JD QD")
    assert action_index(parse_cards("3D"), hand) == 0
    assert action_index(parse_cards("QD"), hand) == 12
    assert action_index(parse_cards("3D 3C"), hand) == 13
    assert action_index(parse_cards("3D 3S"), hand) == 15  # slots (0, 3)
    assert action_index(parse_cards("3D 3C 3H"), hand) == 46
    assert action_index(parse_cards("3D 3C 3H 3S"), hand) == 77
    assert action_index(parse_cards("3D 3C 3H 3S 4D"), hand) == 407
    assert action_index(parse_cards("9D TD JD QD 8D"), hand) == 1693
    assert action_index((), hand) == PASS_ACTION
    assert action_cards(1693, hand) == tuple(parse_cards("8D 9D TD JD QD"))
    assert action_cards(PASS_ACTION, hand) == ()


def test_every_index_round_trips_on_a_full_hand():
    hand = sorted(random.Random(3).sample(range(52), 13))
    for index in range(NUM_ACTIONS):
        cards = action_cards(index, hand)
        assert action_index(cards, hand) == index


def test_index_errors():
    hand = parse_cards("3D 4D 5D")
    with pytest.raises(ValueError, match="hand slot 3"):
        action_cards(3, hand)
    with pytest.raises(ValueError, match="0..1694"):
        action_cards(1695, hand)
    with pytest.raises(ValueError, match="0..1694"):
        action_cards(-1, hand)
    with pytest.raises(ValueError, match="not in the hand"):
        action_index(parse_cards("6D"), hand)
    far = parse_cards("3D 3C 4D 5D 6D 7D")
    with pytest.raises(ValueError, match="no action index"):
        action_index(parse_cards("3D 7D"), far)  # slots (0, 5): not a pair slot set


# ---------------------------------------------------------------- observation
def test_observation_layout_hand_built():
    game = Game.from_hands(
        ["3C 4D 9S", "5H 6H", "7C 7D 8S", "AS"], current_player=1, trick="4C", trick_player=0, passes=0
    )
    obs = observation(game, 1)
    assert obs.shape == (277,) and obs.dtype == np.float32
    assert obs[0:2].tolist() == parse_cards("5H 6H") and (obs[2:13] == 52).all()
    assert np.flatnonzero(obs[13:65]).tolist() == parse_cards("4C")
    assert np.flatnonzero(obs[65:117]).tolist() == parse_cards("4C")
    assert obs[117:120].tolist() == [3, 1, 3]  # next (2), across (3), previous (0)
    assert obs[120] == 0
    assert np.flatnonzero(obs[121 + 2 * 52 : 277]).tolist() == parse_cards("4C")  # previous player played it
    assert obs[121 : 121 + 2 * 52].sum() == 0
    game.play("pass")
    obs2 = observation(game, 2)
    assert obs2[120] == 1
    assert np.flatnonzero(obs2[121 + 52 : 121 + 104]).tolist() == parse_cards("4C")  # player 0 is across from 2


def test_passes_three_when_control_returns():
    game = Game.from_hands(["3C 4D", "5H 6H", "7C 7D", "AS 2S"], current_player=2, trick="2D", trick_player=3, passes=2)
    game.play("pass")
    assert game.current_player == 3 and game.trick is None
    obs = observation(game, 3)
    assert obs[120] == 3 and obs[13:65].sum() == 0


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), stop=st.integers(1, 60), rules=st.sampled_from(VARIANTS))
def test_observation_hides_unplayed_opponent_cards(seed, stop, rules):
    """Swapping unplayed cards between two opponents before the deal changes nothing the player sees."""
    played = random_game(seed, rules, stop_after=stop)
    if played.is_over:
        return
    player = played.current_player
    opponents = [p for p in range(4) if p != player]
    rng = random.Random(seed)
    o1, o2 = rng.sample(opponents, 2)
    # 3D is excluded: who opens reveals who held it (it can stay unplayed under 3D_leads_free)
    hand1, hand2 = [c for c in played.hand(o1) if c != 0], [c for c in played.hand(o2) if c != 0]
    if not hand1 or not hand2:
        return
    c1, c2 = rng.choice(hand1), rng.choice(hand2)
    start = Game(rules, seed=seed).hands
    swapped = [list(h) for h in start]
    swapped[o1] = [c2 if c == c1 else c for c in swapped[o1]]
    swapped[o2] = [c1 if c == c2 else c for c in swapped[o2]]
    replay = Game.from_hands(swapped, rules)
    for _, play in played.history:
        replay.play(play)
    a, b = Decision(played), Decision(replay)
    assert a.player == b.player == player
    np.testing.assert_array_equal(a.observation, b.observation)
    np.testing.assert_array_equal(a.extended_observation, b.extended_observation)  # who passed on what is public too
    np.testing.assert_array_equal(a.actions, b.actions)
    np.testing.assert_array_equal(a.features, b.features)
    # the swapped opponent's own view does change: a check that the swap happened
    assert not np.array_equal(observation(played, o1), observation(replay, o1))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), rules=st.sampled_from(VARIANTS))
def test_observation_matches_the_reference_view_at_every_position(seed, rules):
    """The compiled 277 numbers against the pure-Python view of ``tests/reference/paper_view.py``,
    for every seat at every position of a random game."""
    from tests.reference.paper_view import observation as reference_observation

    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    while True:
        for player in range(4):
            np.testing.assert_array_equal(observation(game, player), reference_observation(game, player))
        if game.is_over:
            break
        game.play_index(rng.randrange(len(game.legal_plays())))


# ---------------------------------------------------------------- mask and features
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), rules=st.sampled_from(VARIANTS))
def test_mask_marks_exactly_the_legal_plays(seed, rules):
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    while not game.is_over:
        hand = game.hand(game.current_player)
        legal = set(game.legal_plays())
        mask = legal_action_mask(game)
        assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
        assert {action_cards(a, hand) for a in np.flatnonzero(mask)} == legal
        assert int(mask.sum()) == len(legal)
        decision = Decision(game)
        assert decision.actions.tolist() == sorted(decision.actions.tolist())
        assert [action_index(p, hand) for p in decision.plays] == decision.actions.tolist()
        np.testing.assert_array_equal(decision.action_mask(), mask)
        np.testing.assert_array_equal(decision.features, np.stack([play_features(p, rules) for p in decision.plays]))
        game.play_index(rng.randrange(len(legal)))


def feature_parts(row: np.ndarray) -> dict:
    return {
        "cards": np.flatnonzero(row[:52]).tolist(),
        "pass": row[52],
        "category": np.flatnonzero(row[53:61]).tolist(),
        "rank": np.flatnonzero(row[61:74]).tolist(),
        "suit": np.flatnonzero(row[74:78]).tolist(),
        "n": round(float(row[78]) * 5),
        "rank_scaled": float(row[79]),
    }


@pytest.mark.parametrize(
    "text, rules, category, comparison",
    [
        ("7H", Rules(), 0, "7H"),
        ("8D 8S", Rules(), 1, "8S"),
        ("QC QH QS", Rules(), 2, "QS"),
        ("3D 4C 5H 6S 7D", Rules(), 3, "7D"),
        ("3H 7H 9H JH KH", Rules(), 4, "KH"),
        ("3D 3C 3S 9D 9H", Rules(), 5, "3S"),
        ("9D 9H 9S 3D 3C", Rules(), 5, "9S"),
        ("5D 5C 5H 5S 2D", Rules(), 6, "5S"),
        ("4S 5S 6S 7S 8S", Rules(), 7, "8S"),
        ("2D 3C 4H 5S 6D", Rules(straights="wrap"), 3, "2D"),
        ("JD QC KH AS 2C", Rules(straights="to_two"), 3, "2C"),
        ("9D 9C KH KS", Rules(four_card_plays=True), 1, "KS"),  # two pair -> pair
        ("6D 6C 6H 6S", Rules(four_card_plays=True), 6, "6S"),  # 4-card quads -> four of a kind
    ],
)
def test_feature_rows(text, rules, category, comparison):
    cards = parse_cards(text)
    parts = feature_parts(play_features(cards, rules))
    comp = parse_cards(comparison)[0]
    assert parts["cards"] == sorted(cards)
    assert parts["pass"] == 0
    assert parts["category"] == [category]
    assert parts["rank"] == [comp >> 2] and parts["suit"] == [comp & 3]
    assert parts["n"] == len(cards)
    assert parts["rank_scaled"] == pytest.approx((comp >> 2) / 12)


def test_pass_features_only_pass_bit():
    row = play_features(())
    assert row.shape == (80,) and row.dtype == np.float32
    assert row[52] == 1 and row.sum() == 1


def test_features_reject_non_combinations():
    with pytest.raises(ValueError, match="not a legal combination"):
        play_features(parse_cards("3D 4D"))
    with pytest.raises(ValueError, match="not a legal combination"):
        play_features(parse_cards("9D 9C KH KS"))  # two pair needs four_card_plays
