"""Strict inputs: card ids, hands, seats, seeds and actions are checked in one place.

Every public entry point accepts a card id only as a Python int or numpy integer in
0..51 (no bools, floats or strings), a hand only as distinct card ids (at most 13),
and the envs accept an action only as an int in 0..1694 (or ``None`` for an agent
that is done), with explicit checks that hold under ``python -O`` too. Every
rejection is a ``ValueError`` (``RuntimeError`` for use before ``reset()``) naming
the value, its type and what is allowed, and leaves the state unchanged.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import big2_env
from big2_env import (
    NUM_ACTIONS,
    PASS_ACTION,
    Game,
    IllegalPlayError,
    action_cards,
    action_index,
    beats,
    card_rank,
    card_str,
    card_suit,
    classify,
    env,
    format_cards,
    format_play,
    legal_plays,
    parse_card,
    parse_cards,
    parse_play,
    play_features,
    raw_env,
)
from big2_env.engine import cards as cards_module
from big2_env.engine.cards import cards_to_mask, check_card, make_card

# ---------------------------------------------------------------- the card-id validator

BAD_CARDS = [
    5.0,
    np.float64(5.0),
    True,
    False,
    np.True_,
    np.False_,
    "3",
    "3D",
    None,
    52,
    -1,
    np.int64(52),
    np.int8(-1),
    1.5,
    complex(1, 0),
]
GOOD_CARDS = [0, 51, np.int8(5), np.uint8(51), np.int32(51), np.int64(17), np.uint64(3)]


def _ids(values):
    return [f"{type(v).__name__}({v!r})" for v in values]


@pytest.mark.parametrize("bad", BAD_CARDS, ids=_ids(BAD_CARDS))
def test_check_card_rejects_with_value_type_and_range(bad):
    with pytest.raises(ValueError) as info:
        check_card(bad)
    message = str(info.value)
    assert "0..51" in message
    assert repr(bad) in message and f"({type(bad).__name__})" in message


@pytest.mark.parametrize("good", GOOD_CARDS, ids=_ids(GOOD_CARDS))
def test_check_card_accepts_ints_and_numpy_integers(good):
    value = check_card(good)
    assert type(value) is int and value == int(good)
    assert card_str(good) == card_str(int(good))
    assert card_rank(good) == int(good) >> 2 and card_suit(good) == int(good) & 3


def test_card_str_rejects_float_and_numpy_bool():
    # accepted silently before: card_str(5.0) == '4C', card_str(np.True_) == '3C'
    with pytest.raises(ValueError, match=re.escape("got 5.0 (float)")):
        card_str(5.0)
    with pytest.raises(ValueError, match=r"got (np\.)?True_? \((numpy\.)?bool_?\)"):
        card_str(np.True_)
    with pytest.raises(ValueError, match=re.escape("got True (bool)")):
        card_str(True)


def test_card_rank_and_suit_check_their_argument():
    # accepted silently before: card_rank(52) == 13, card_suit(-1) == 3
    with pytest.raises(ValueError, match=re.escape("must be an int in 0..51, got 52 (int)")):
        card_rank(52)
    with pytest.raises(ValueError, match=re.escape("must be an int in 0..51, got -1 (int)")):
        card_suit(-1)
    for bad in (5.0, True, "7"):
        with pytest.raises(ValueError, match="0..51"):
            card_rank(bad)
        with pytest.raises(ValueError, match="0..51"):
            card_suit(bad)


def test_make_card_takes_int_rank_and_suit():
    assert make_card(12, 3) == 51
    assert make_card(np.int64(1), np.int8(2)) == 6
    for rank, suit, fragment in [
        (True, 0, "rank must be 0..12, got True (bool)"),
        (1.0, 0, "rank must be 0..12, got 1.0 (float)"),
        (13, 0, "rank must be 0..12, got 13 (int)"),
        (0, False, "suit must be 0..3, got False (bool)"),
        (0, 4, "suit must be 0..3, got 4 (int)"),
        (0, "D", "suit must be 0..3, got 'D' (str)"),
    ]:
        with pytest.raises(ValueError, match=re.escape(fragment)):
            make_card(rank, suit)  # type: ignore[arg-type]


# Every public entry point that takes card ids, with the bad card put where a card goes.
ENTRY_POINTS = {
    "card_str": lambda c: card_str(c),
    "card_rank": lambda c: card_rank(c),
    "card_suit": lambda c: card_suit(c),
    "format_cards": lambda c: format_cards([0, c]),
    "format_play": lambda c: format_play([c]),
    "cards_to_mask": lambda c: cards_to_mask([c]),
    "check_hand": lambda c: cards_module.check_hand([1, c]),
    "legal_plays hand": lambda c: legal_plays([1, c]),
    "legal_plays trick": lambda c: legal_plays([1], trick=[c]),
    "legal_plays must_include": lambda c: legal_plays([1], must_include=c),
    "Game.play": lambda c: _opening_game().play([c]),
    "Game.from_hands hands": lambda c: Game.from_hands([[0, c], [8], [12], [16]]),
    "Game.from_hands trick": lambda c: Game.from_hands([[0], [8], [12], [16]], current_player=1, trick=[c]),
    "action_index play": lambda c: action_index([c], [0, 1, 2]),
    "action_index hand": lambda c: action_index([0], [0, c]),
    "action_index pass, bad hand": lambda c: action_index((), [0, c]),
    "action_cards": lambda c: action_cards(0, [c]),
    "play_features": lambda c: play_features([c]),
    "classify": lambda c: classify([c]),
    "beats play": lambda c: beats([c], [0]),
    "beats trick": lambda c: beats([1], [c]),
}


def _opening_game() -> Game:
    return Game.from_hands(["3D 3C 4C 5H 6S 7D 9S", "4D 5D 6D", "8D 9D", "TD JD QD"])


@pytest.mark.parametrize("bad", [5.0, True, np.True_, 52, -1, "3"], ids=_ids([5.0, True, np.True_, 52, -1, "3"]))
@pytest.mark.parametrize("name", list(ENTRY_POINTS))
def test_every_entry_point_uses_the_card_validator(name, bad):
    with pytest.raises(ValueError, match=re.escape("must be an int in 0..51, got " + repr(bad))):
        ENTRY_POINTS[name](bad)


def test_game_play_rejects_float_card_ids_state_unchanged():
    # accepted silently before: Game.play([5.0]) played 4C
    game = _opening_game()
    before = (game.hands, list(game.history), game.turn, game.current_player)
    for bad in ([5.0], [0.0], [np.float64(0)], [True], [np.True_], [0, 5.0], ["3D"], 5, None):
        with pytest.raises(ValueError, match="0..51|collection of card ids"):
            game.play(bad)
        assert (game.hands, list(game.history), game.turn, game.current_player) == before
    game.play([np.int64(0)])  # numpy integers are card ids
    assert game.history == [(0, (0,))] and type(game.history[0][1][0]) is int


# ---------------------------------------------------------------- the hand validator


def test_legal_plays_rejects_more_than_13_cards():
    # accepted silently before: legal_plays(range(52)) listed 17,858 plays
    with pytest.raises(ValueError, match=re.escape("the hand must hold at most 13 cards, got 52")):
        legal_plays(range(52))
    with pytest.raises(ValueError, match=re.escape("at most 13 cards, got 14")):
        legal_plays(list(range(14)))
    assert len(legal_plays(range(13))) > 0
    assert legal_plays(np.array([0, 3], dtype=np.int16)) == [(0,), (3,), (0, 3)]


def test_hand_validator_rejects_text_non_iterables_and_repeats():
    with pytest.raises(ValueError, match=re.escape("parse card text with parse_cards()")):
        legal_plays("3D 4C")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=re.escape("got 7 (int)")):
        legal_plays(7)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=re.escape("card 3D is given twice in the play")):
        format_play([0, np.int64(0)])
    with pytest.raises(ValueError, match="given twice in the hand"):
        action_index([0], [0, 0])
    with pytest.raises(ValueError, match="at most 13"):
        _opening_game().play(range(14))


def test_action_cards_checks_the_hand():
    # accepted silently before: action_cards(0, [52]) == (52,)
    with pytest.raises(ValueError, match=re.escape("0..51, got 52 (int)")):
        action_cards(0, [52])
    with pytest.raises(ValueError, match=re.escape("action must be an int in 0..1694, got True (bool)")):
        action_cards(True, [0])  # type: ignore[arg-type]
    assert action_cards(np.int64(0), np.array([9, 4])) == (4,)


def test_action_index_accepts_numpy_integer_card_ids():
    # raised OverflowError before (1 << np.int32(51) overflows)
    assert action_index([np.int32(51)], [0, 5, 51]) == 2
    assert action_index([np.int32(51)], np.array([0, 5, 51], dtype=np.int32)) == 2
    assert action_index(np.array([0, 5], dtype=np.int8), [0, 5, 51]) == 13
    assert action_index((), np.array([51], dtype=np.int32)) == PASS_ACTION
    assert type(action_index([np.int64(5)], [0, 5])) is int


def test_play_features_and_classify_accept_numpy_ids():
    assert np.array_equal(play_features([np.int32(0), np.int32(3)]), play_features([0, 3]))
    assert classify(np.array([0, 3], dtype=np.int32)) == classify([0, 3])
    assert beats([np.int8(51)], [np.int64(0)])


# ---------------------------------------------------------------- card text


@pytest.mark.parametrize(
    ("func", "value", "fragment"),
    [
        (parse_card, None, "card text must be a str, got None (NoneType)"),
        (parse_card, 3, "card text must be a str, got 3 (int)"),
        (parse_play, 3, "play text must be a str, got 3 (int)"),
        (parse_play, None, "play text must be a str, got None (NoneType)"),
        (parse_cards, b"3D", "card text must be a str, got b'3D' (bytes)"),
    ],
)
def test_parsers_reject_non_text_with_value_error(func, value, fragment):
    # parse_card(None) and parse_play(3) raised AttributeError before
    with pytest.raises(ValueError, match=re.escape(fragment)):
        func(value)


# ---------------------------------------------------------------- Game arguments


def test_play_index_rejects_bools_and_floats_state_unchanged():
    # Game.play_index(True) played legal play 1 before
    game = _opening_game()
    before = (game.hands, list(game.history), game.turn)
    for bad in (True, False, np.True_, 1.0, 0.0, "0", None):
        with pytest.raises(ValueError, match=re.escape(f"play index must be an int, got {bad!r}")):
            game.play_index(bad)  # type: ignore[arg-type]
        assert (game.hands, list(game.history), game.turn) == before
    with pytest.raises(IllegalPlayError, match="out of range"):
        game.play_index(np.int64(-1))
    game.play_index(np.int64(0))
    assert game.turn == 1


FOUR_HANDS = ["3D 4C 5H", "6D 7C", "8D 9C", "TD JC"]


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        # accepted silently before: current_player=True started player 1
        ({"current_player": True}, "current_player must be 0..3, got True (bool)"),
        ({"current_player": np.True_}, "current_player must be 0..3, got"),
        ({"current_player": 1.0}, "current_player must be 0..3, got 1.0 (float)"),
        ({"current_player": "1"}, "current_player must be 0..3, got '1' (str)"),
        ({"current_player": 1, "trick": "2S", "trick_player": True}, "trick_player must be 0..3, got True (bool)"),
        ({"current_player": 1, "trick": "2S", "trick_player": 0.0}, "trick_player must be 0..3, got 0.0 (float)"),
        # "list indices must be integers" before
        ({"current_player": 1, "trick": "2S", "passes": 1.5}, "passes after the trick must be 0, 1 or 2, got 1.5 (float)"),
        ({"current_player": 1, "trick": "2S", "passes": True}, "passes after the trick must be 0, 1 or 2, got True (bool)"),
        ({"current_player": 1, "trick": "2S", "passes": -1}, "passes after the trick must be 0, 1 or 2, got -1 (int)"),
        ({"current_player": 1, "passes": 1.0}, "passes after the trick must be 0, 1 or 2, got 1.0 (float)"),
        ({"opening": 1}, "opening must be True, False or None, got 1 (int)"),
        ({"opening": "yes"}, "opening must be True, False or None, got 'yes' (str)"),
        ({"current_player": 1, "trick": 5}, "the trick must be a collection of card ids (ints 0..51), got 5 (int)"),
        ({"current_player": 1, "trick": [51.0]}, "0..51, got 51.0 (float)"),
    ],
)
def test_from_hands_checks_every_argument(kwargs, fragment):
    with pytest.raises(ValueError, match=re.escape(fragment)):
        Game.from_hands(FOUR_HANDS, **kwargs)


@pytest.mark.parametrize(
    ("hands", "fragment"),
    [
        ([[0.0], [8], [12], [16]], "0..51, got 0.0 (float)"),
        ([[0, True], [8], [12], [16]], "0..51, got True (bool)"),
        ([[0], [8], [12], 16], "the hand of player 3 must be a collection of card ids (ints 0..51), got 16 (int)"),
        ("3D 4D 5D 6D", "hands must be a list of 4 hands"),
        (None, "hands must be a list of 4 hands, got None"),
    ],
)
def test_from_hands_checks_the_hands(hands, fragment):
    with pytest.raises(ValueError, match=re.escape(fragment)):
        Game.from_hands(hands)


def test_from_hands_accepts_numpy_integers():
    game = Game.from_hands(
        [np.array([0, 5], dtype=np.int8), [np.int64(8)], (12,), "7D"],
        current_player=np.int64(1),
        trick=[np.int32(51)],
        trick_player=np.int8(0),
        passes=np.int64(0),
        opening=False,
    )
    assert game.current_player == 1 and type(game.current_player) is int
    assert game.trick == (51,) and game.trick_player == 0 and type(game.trick_player) is int
    assert game.hands[0] == (0, 5) and all(type(c) is int for h in game.hands for c in h)


@pytest.mark.parametrize("seed", [True, False, np.True_, 1.0, 3.5, -1, np.int64(-2), "7", [1, 2]],
                         ids=_ids([True, False, np.True_, 1.0, 3.5, -1, np.int64(-2), "7", [1, 2]]))
def test_game_seed_must_be_none_non_negative_int_or_generator(seed):
    with pytest.raises(ValueError, match=re.escape("seed must be None, a non-negative int")) as info:
        Game(seed=seed)
    assert repr(seed) in str(info.value) and f"({type(seed).__name__})" in str(info.value)


def test_game_seed_accepted_forms():
    assert Game(seed=np.int64(3)).hands == Game(seed=3).hands
    assert Game(seed=np.random.default_rng(3)).hands == Game(seed=np.random.default_rng(3)).hands
    assert len(Game(seed=None).hands) == 4
    assert Game(seed=0).hands != Game(seed=1).hands


# ---------------------------------------------------------------- env: before reset


def test_raw_env_before_reset_is_a_runtime_error():
    # raw_env().step(0) raised AttributeError ('agent_selection') before
    e = raw_env(render_mode="ansi")
    with pytest.raises(RuntimeError, match=re.escape("call reset() before step()")):
        e.step(0)
    with pytest.raises(RuntimeError, match=re.escape("call reset() before last()")):
        e.last()
    with pytest.raises(RuntimeError, match=re.escape("call reset() before observe()")):
        e.observe("player_0")
    with pytest.raises(RuntimeError, match=re.escape("call reset() before render()")):
        e.render()
    e.reset(seed=0)
    assert isinstance(e.render(), str)
    obs, *_ = e.last()
    assert obs["action_mask"].sum() > 0


def test_wrapped_env_before_reset_is_an_error():
    e = env()
    for call in (lambda: e.step(0), lambda: e.observe("player_0"), lambda: e.last(), lambda: e.step(-1)):
        with pytest.raises((AssertionError, AttributeError, RuntimeError), match="reset"):
            call()


def test_raw_env_observe_unknown_agent():
    e = raw_env()
    e.reset(seed=0)
    with pytest.raises(ValueError, match=re.escape("unknown agent 'player_4'")):
        e.observe("player_4")


# ---------------------------------------------------------------- env: actions

BAD_ACTIONS = [-1, NUM_ACTIONS, 1695, 10**20, 2.0, 0.0, np.float32(3), "3", True, False, np.True_, np.int64(-1),
               np.array(2000), np.array([3]), [3], (3,)]


def _env_state(e):
    raw = e.unwrapped
    return (raw.game.hands, raw.game.turn, raw.agent_selection, dict(raw.terminations), dict(raw.truncations),
            dict(raw._cumulative_rewards))


@pytest.mark.parametrize("make", [raw_env, env, big2_env.env], ids=["raw_env", "env", "big2_env.env"])
@pytest.mark.parametrize("bad", BAD_ACTIONS, ids=_ids(BAD_ACTIONS))
def test_bad_action_type_or_range_raises_value_error_state_unchanged(make, bad):
    # env().step(True) said "truth value of an array is ambiguous"; env().step(-1) hit PettingZoo's assert
    e = make()
    e.reset(seed=3)
    e.last()
    before = _env_state(e)
    with pytest.raises(ValueError) as info:
        e.step(bad)
    message = str(info.value)
    assert "0..1694" in message and "action" in message
    assert _env_state(e) == before
    # the env still plays on
    obs, *_ = e.last()
    e.step(int(obs["candidate_actions"][0]))
    assert e.unwrapped.game.turn == 1


@pytest.mark.parametrize("make", [raw_env, env], ids=["raw_env", "env"])
def test_bad_action_message_names_the_action_and_its_type(make):
    e = make()
    e.reset(seed=3)
    e.last()
    for bad, shown in ((-1, "-1 (int)"), (1695, "1695 (int)"), (2.0, "2.0 (float)"), ("3", "'3' (str)"),
                       (True, "True (bool)")):
        with pytest.raises(ValueError, match=re.escape(f"action must be an int in 0..1694, got {shown}")):
            e.step(bad)


@pytest.mark.parametrize("make", [raw_env, env], ids=["raw_env", "env"])
def test_none_only_for_an_agent_that_is_done(make):
    e = make()
    e.reset(seed=3)
    e.last()
    before = _env_state(e)
    with pytest.raises(ValueError, match=re.escape("action None is only for an agent that is done")):
        e.step(None)
    assert _env_state(e) == before
    for agent in e.agent_iter():  # None still finishes off the agents at the end
        obs, _, termination, truncation, _ = e.last()
        e.step(None if termination or truncation else int(obs["candidate_actions"][0]))
    assert not e.agents


NUMPY_ACTIONS = [np.int64(0), np.int32(0), np.array(0), np.uint16(0)]


@pytest.mark.parametrize("action", NUMPY_ACTIONS, ids=_ids(NUMPY_ACTIONS))
@pytest.mark.parametrize("make", [raw_env, env], ids=["raw_env", "env"])
def test_numpy_integer_actions_are_accepted(make, action):
    e = make()
    e.reset(seed=3)
    obs, *_ = e.last()
    legal = int(obs["candidate_actions"][0])
    e.step(type(action)(legal) if not isinstance(action, np.ndarray) else np.array(legal))
    assert e.unwrapped.game.turn == 1


def test_wrapped_env_legal_range_illegal_move_still_terminates():
    e = env()
    e.reset(seed=1)
    agent = e.agent_selection
    e.last()
    e.step(PASS_ACTION)  # in range, illegal at the opening: PettingZoo's TerminateIllegalWrapper convention
    assert all(e.terminations.values())
    assert e.rewards[agent] == -13  # the worst score under the paper's scoring


OPTIMISED_SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import big2_env

    assert not __debug__, "run me with python -O"
    for make in (big2_env.env, big2_env.raw_env):
        e = make()
        e.reset(seed=1)
        e.last()
        turn = e.unwrapped.game.turn
        for bad in (-1, 1695, 2.0, "3", True, np.True_, None, 10**30, np.int64(-1)):
            try:
                e.step(bad)
            except ValueError as err:
                assert "0..1694" in str(err), (make, bad, err)
            else:
                sys.exit(f"{make.__name__} accepted {bad!r} under -O")
            assert not any(e.terminations.values()), (make, bad)
            assert e.unwrapped.game.turn == turn, (make, bad)
    e = big2_env.env()
    e.reset(seed=1)
    agent = e.agent_selection
    e.last()
    e.step(1694)  # in range but illegal at the opening: the game ends, the offender gets the worst score
    assert all(e.terminations.values()) and e.rewards[agent] == -13
    print("strict under -O")
    """
)


def test_action_checks_hold_under_python_optimise(tmp_path):
    script = tmp_path / "strict_o.py"
    script.write_text(OPTIMISED_SCRIPT)
    result = subprocess.run([sys.executable, "-O", str(script)], check=False, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "strict under -O" in result.stdout


# ---------------------------------------------------------------- one validator, no checks on hot paths


def test_internal_code_does_not_call_the_public_card_helpers():
    """card_rank/card_suit validate; the engine and encodings use ``>> 2`` / ``& 3`` directly."""
    import inspect

    from big2_env.engine import combos, game, legal
    from big2_env.observations import paper as encoding

    for module in (combos, encoding, game, legal):
        source = inspect.getsource(module)
        assert "card_rank(" not in source and "card_suit(" not in source, module.__name__


def test_parse_cards_output_round_trips_through_the_validators():
    cards = parse_cards("3D 10s K♥ 2S")
    assert cards_module.check_hand(cards) == cards_to_mask(cards)
    assert format_cards(cards) == "3D TS KH 2S"
