"""The package's engine (on the compiled core) against the pure-Python reference engine
(``tests/reference``): the same answers to every rules question, under every rule variant.

Whole games are played move by move in both, with random, first and last legal choices, from
full deals and from hand-built mid-game positions; at every decision the legal plays (in order),
the player on move, the trick, its player, the passes and control must agree, and at the end
the winner and the scores. Classification, enumeration and ``legal_plays`` are compared on
arbitrary card sets, including illegal ones.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tests.reference as ref
from big2_env import Game, IllegalPlayError, beats, classify, legal_plays
from big2_env.engine.combos import enumerate_combos
from big2_env.engine.legal import legal_entries
from tests.differential.test_bruteforce import VARIANT_IDS, VARIANTS

cards_st = st.lists(st.integers(0, 51), min_size=0, max_size=13, unique=True)


def state_of(game) -> tuple:
    return (game.current_player, game.trick, game.trick_player, game.passes, game.winner, game.turn, game.is_opening,
            game.leading, game.hands, game.played_mask, tuple(game.played_by_mask), tuple(game.history))


def play_both(core: Game, reference: ref.Game, choose) -> None:
    """Play ``core`` and ``reference`` to the end with the same choices, comparing at every decision."""
    while not reference.is_over:
        assert state_of(core) == state_of(reference)
        legal = core.legal_entries()
        assert legal == reference.legal_entries()
        pick = choose(len(legal))
        core.play_index(pick)
        reference.play_index(pick)
    assert state_of(core) == state_of(reference)
    assert core.is_over and core.scores() == reference.scores()


@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), style=st.sampled_from(["random", "first", "last"]))
def test_whole_games_agree_move_by_move(rules, seed, style):
    rng = np.random.default_rng(seed)
    choose = {
        "random": lambda n: int(rng.integers(n)),
        "first": lambda n: 0,  # Greedy-like: the weakest plays, the longest games
        "last": lambda n: max(0, n - 2) if n > 1 else 0,  # the strongest non-pass play
    }[style]
    play_both(Game(rules, seed=seed), ref.Game(rules, seed=seed), choose)


@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_mid_game_positions_agree(rules, data):
    """Hand-built positions: hands of 1..13 cards, an active trick of the other cards (or none)."""
    deck = data.draw(st.permutations(range(52)))
    sizes = data.draw(st.lists(st.integers(1, 13), min_size=4, max_size=4))
    hands, at = [], 0
    for n in sizes:
        hands.append(sorted(deck[at : at + n]))
        at += n
    player = data.draw(st.integers(0, 3))
    rest = sum(1 << c for c in deck[at:])
    tricks = [e[1] for group in ref.enumerate_combos(rest, rules) for e in group]
    trick = data.draw(st.sampled_from([None] + tricks)) if tricks else None
    passes = data.draw(st.integers(0, 2)) if trick else 0
    kwargs = dict(current_player=player, trick=trick, passes=passes)
    core, reference = Game.from_hands(hands, rules, **kwargs), ref.Game.from_hands(hands, rules, **kwargs)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    play_both(core, reference, lambda n: int(rng.integers(n)))


@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=60, deadline=None)
@given(cards=st.lists(st.integers(0, 51), min_size=0, max_size=7, unique=True), repeat=st.booleans())
def test_classify_agrees_on_any_card_set(rules, cards, repeat):
    if repeat and cards:
        cards = cards + cards[:1]  # a repeated card: no combination
    assert classify(cards, rules) == ref.classify(cards, rules)


@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=30, deadline=None)
@given(hand=cards_st, data=st.data())
def test_enumeration_legal_plays_and_beats_agree(rules, hand, data):
    mask = sum(1 << c for c in hand)
    assert enumerate_combos(mask, rules) == ref.enumerate_combos(mask, rules)
    others = sum(1 << c for c in range(52) if not mask >> c & 1)
    tricks = [e[1] for group in ref.enumerate_combos(others & ((1 << 52) - 1), rules) for e in group][:200]
    trick = data.draw(st.sampled_from([None] + tricks)) if tricks else None
    must = data.draw(st.sampled_from([None] + hand)) if hand else None
    assert legal_plays(hand, trick, rules, must_include=must) == ref.legal_plays(hand, trick, rules, must_include=must)
    for play in [e[1] for group in ref.enumerate_combos(mask, rules) for e in group][:30]:
        if trick is not None:
            assert beats(play, trick, rules) == ref.beats(play, trick, rules)
    strength = ref.classify(trick, rules).strength if trick else 0
    opening = data.draw(st.booleans()) and trick is None and bool(mask & 1)
    expected = ref.legal_entries_from(ref.enumerate_combos(mask, rules), len(trick) if trick else 0, strength, opening, rules)
    assert legal_entries(mask, len(trick) if trick else 0, strength, opening, rules) == expected


@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cards=cards_st)
def test_illegal_plays_get_the_same_explanation(rules, seed, cards):
    core, reference = Game(rules, seed=seed), ref.Game(rules, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(int(rng.integers(0, 30))):
        if core.is_over:
            break
        pick = int(rng.integers(len(core.legal_entries())))
        core.play_index(pick)
        reference.play_index(pick)
    play = tuple(sorted(cards[:5]))
    outcomes = []
    for game, error in ((core, IllegalPlayError), (reference, ref.IllegalPlayError)):
        try:
            game.play(play)
            outcomes.append(("played", state_of(game)))
        except error as exc:
            outcomes.append(("refused", str(exc)))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_compiled_decision_matches_the_python_encoders(rules, seed):
    """``Decision`` (one compiled call) against the Python encoders at every decision of a game
    played in the reference engine: the 277 numbers (the reference view of ``tests/reference/paper_view.py``),
    the legal actions and their entries in order."""
    from big2_env.observations.decision import Decision
    from big2_env.observations.paper import entry_action_indices
    from tests.reference.paper_view import observation

    rng = np.random.default_rng(seed)
    core, reference = Game(rules, seed=seed), ref.Game(rules, seed=seed)
    while not reference.is_over:
        decision = Decision(core)
        np.testing.assert_array_equal(decision.observation, observation(reference, reference.current_player))
        entries = reference.legal_entries()
        indices = entry_action_indices(entries, reference._hand_masks[reference.current_player])
        order = sorted(range(len(entries)), key=indices.__getitem__)
        assert decision.actions.tolist() == [indices[i] for i in order]
        assert [decision.entry_for_action(a) for a in decision.actions.tolist()] == [entries[i] for i in order]
        assert decision.plays == [entries[i][1] for i in order]
        assert decision.entry_for_action(1695) is None and decision.entry_for_action(int(rng.integers(1695))) in entries + [None]
        pick = int(rng.integers(len(entries)))
        core.play_index(pick)
        reference.play_index(pick)


def test_legal_entries_checks_its_arguments_before_the_core_sees_them():
    from big2_env import Rules

    good = dict(hand_mask=7, trick_size=0, trick_strength=0, opening=False, rules=Rules())
    assert [e[1] for e in legal_entries(**good)][:3] == [(0,), (1,), (2,)]
    for name, bad in [("hand_mask", -1), ("hand_mask", 1 << 52), ("hand_mask", 7.0), ("hand_mask", True),
                      ("trick_size", 6), ("trick_size", -1), ("trick_size", 1.0), ("trick_strength", -5),
                      ("trick_strength", "3"), ("opening", 1), ("rules", "paper")]:
        with pytest.raises(ValueError, match=name if name != "rules" else "rules a Rules"):
            legal_entries(**{**good, name: bad})
