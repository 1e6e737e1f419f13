"""Bad input: every rejection is a ValueError naming the problem, and leaves the game unchanged."""

from __future__ import annotations

import re

import pytest

from big2_env import Game, IllegalPlayError, Rules, legal_plays, parse_card, parse_cards

# ---------------------------------------------------------------- card text


@pytest.mark.parametrize("token", ["1S", "XX", "3Z", "pass", "11H", "S3", "3", "10", "DD", "3DD", "💩"])
def test_parse_cards_names_the_bad_token(token):
    with pytest.raises(ValueError, match=re.escape(repr(token))):
        parse_cards(f"3D {token} 4C")
    with pytest.raises(ValueError, match="bad card"):
        parse_card(token)


def test_parse_cards_repeated_card():
    with pytest.raises(ValueError, match="3D is given twice"):
        parse_cards("3D 4C 3d")


def test_parse_cards_not_text():
    with pytest.raises(ValueError, match="must be a str"):
        parse_cards([0, 1])  # type: ignore[arg-type]


def test_parse_accepts_the_documented_forms():
    assert parse_cards("3D 10s k♥ 2♠, A♣") == parse_cards("3D TS KH 2S AC")
    assert parse_cards("") == []


# ---------------------------------------------------------------- legal_plays arguments


@pytest.mark.parametrize(
    ("hand", "trick", "rules", "must_include", "fragment"),
    [
        ([0, 0, 5], None, Rules(), None, "is given twice in the hand"),
        ([0, 52], None, Rules(), None, "0..51"),
        ([-1], None, Rules(), None, "0..51"),
        (["3D"], None, Rules(), None, "0..51"),
        ([0, 5], [4, 8], Rules(), None, "not a legal combination"),  # 4D 5D is no play
        ([0, 5], [5], Rules(), None, "shares cards with the hand"),
        ([0, 5], [4, 5, 8, 9], Rules(), None, "not a legal combination"),  # two pair, four-card plays off
        ([0, 5], None, Rules(), 9, "must_include card 5C is not in the hand"),
        ([0, 5], None, "bogus", None, "unknown rules preset 'bogus'"),
    ],
)
def test_legal_plays_bad_arguments(hand, trick, rules, must_include, fragment):
    with pytest.raises(ValueError, match=re.escape(fragment)):
        legal_plays(hand, trick, rules, must_include=must_include)


# ---------------------------------------------------------------- Rules


@pytest.mark.parametrize(
    ("keyword", "value", "fragment"),
    [
        ("straights", "bogus", "Rules.straights must be one of 'no_two', 'wrap', 'to_two'; got 'bogus'"),
        ("straights", None, "Rules.straights must be one of"),
        ("flush_order", "suit", "Rules.flush_order must be one of 'high_card', 'suit_first'; got 'suit'"),
        ("four_card_plays", "yes", "Rules.four_card_plays must be True or False; got 'yes'"),
        ("four_card_plays", 1, "Rules.four_card_plays must be True or False; got 1"),
        ("five_card_quads", None, "Rules.five_card_quads must be True or False; got None"),
        ("scoring", "linear", "Rules.scoring must be one of 'paper', 'hk'; got 'linear'"),
        ("opening", "3D", "Rules.opening must be one of '3D_must_play', '3D_leads_free', '3D_single'; got '3D'"),
    ],
)
def test_bad_rules_option(keyword, value, fragment):
    with pytest.raises(ValueError, match=re.escape(fragment)):
        Rules(**{keyword: value})
    with pytest.raises(ValueError, match=re.escape(fragment)):
        Rules.from_dict({keyword: value})


def test_unknown_preset_and_keyword():
    message = "unknown rules preset 'tournament'; allowed: 'paper', 'charlesworth'"
    with pytest.raises(ValueError, match=re.escape(message)):
        Rules.preset("tournament")
    with pytest.raises(ValueError, match=re.escape("unknown Rules keyword(s) ['straight']")):
        Rules.from_dict({"straight": "wrap"})
    with pytest.raises(ValueError, match="rules must be a Rules"):
        Rules.coerce(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown rules preset 'x'"):
        Game(rules="x", seed=0)
    with pytest.raises(ValueError, match="Rules.scoring must be one of"):
        Game(rules={"scoring": "x"}, seed=0)


def test_rules_are_frozen_hashable_and_serialisable():
    rules = Rules.preset("charlesworth")
    assert Rules.from_json(rules.to_json()) == rules
    assert hash(rules) == hash(Rules.from_dict(rules.to_dict()))
    with pytest.raises(AttributeError):
        rules.scoring = "hk"  # type: ignore[misc]


# ---------------------------------------------------------------- from_hands

FOUR_HANDS = ["3D 4C 5H", "6D 7C", "8D 9C", "TD JC"]


@pytest.mark.parametrize(
    ("hands", "kwargs", "fragment"),
    [
        (["3D 4C", "4C 5D", "6D", "7D"], {}, "4C dealt to more than one player"),
        (["3D 4C 4C", "5D", "6D", "7D"], {}, "4C is given twice"),
        ([[0, 5, 5], [8], [12], [16]], {}, "is given twice in the hand of player 0"),
        (["3D", "5D", "6D"], {}, "need exactly 4 hands, got 3"),
        (["3D", "5D", "6D", "7D", "8D"], {}, "need exactly 4 hands, got 5"),
        (["3D", "", "6D", "7D"], {}, "player 1 must hold 1 to 13 cards, got 0"),
        ([list(range(14)), [20], [21], [22]], {}, "player 0 must hold 1 to 13 cards, got 14"),
        (["3D 1S", "5D", "6D", "7D"], {}, "bad card '1S'"),
        (["3D", "pass", "6D", "7D"], {}, "bad card 'pass'"),
        ([[0, 53], [8], [12], [16]], {}, "0..51"),
        (["4D", "5D", "6D", "7D"], {}, "no player holds 3D"),
        (FOUR_HANDS, {"current_player": 4}, "current_player must be 0..3, got 4"),
        (FOUR_HANDS, {"current_player": 1, "opening": True}, "the opening needs the player on move to hold 3D"),
        (FOUR_HANDS, {"trick": "2S"}, "give current_player when starting facing a trick"),
        (FOUR_HANDS, {"current_player": 1, "trick": "3D"}, "shares cards with a hand"),
        (FOUR_HANDS, {"current_player": 1, "trick": "2S 2H 2D 2C"}, "not a legal combination"),
        (FOUR_HANDS, {"current_player": 1, "trick": "2S", "passes": 3},
         "passes after the trick must be 0, 1 or 2, got 3"),
        (FOUR_HANDS, {"current_player": 1, "passes": 1}, "passes need an active trick"),
        (FOUR_HANDS, {"current_player": 1, "trick": "2S", "trick_player": 2}, "so player 3 is on move, not 1"),
        (FOUR_HANDS, {"current_player": 1, "trick": "2S", "trick_player": 4}, "trick_player must be 0..3, got 4"),
        (FOUR_HANDS, {"current_player": 1, "trick": "2S", "trick_player": -3}, "trick_player must be 0..3, got -3"),
        (FOUR_HANDS, {"current_player": 0, "trick": "2S", "trick_player": -1}, "trick_player must be 0..3, got -1"),
        (FOUR_HANDS, {"rules": "nope"}, "unknown rules preset 'nope'"),
    ],
)
def test_bad_from_hands(hands, kwargs, fragment):
    with pytest.raises(ValueError, match=re.escape(fragment)):
        Game.from_hands(hands, **kwargs)


# ---------------------------------------------------------------- illegal plays


def snapshot(game: Game):
    return (
        game.hands,
        game.current_player,
        game.trick,
        game.trick_player,
        game.passes,
        list(game.history),
        game.winner,
        game.turn,
        game.is_opening,
        game.legal_plays(),
    )


def opening_game(rules: Rules = Rules()) -> Game:
    return Game.from_hands(["3D 3C 4C 5H 6S 7D 9S", "4D 5D 6D", "8D 9D", "TD JD QD"], rules)


def following_game() -> Game:
    # player 1 faces the pair 8D 8C played by player 0
    return Game.from_hands(["3D 4C", "9D 9C 5S 5H 2S AS AH", "6D", "7D"], Rules(),
                           current_player=1, trick="8D 8C", trick_player=0)


def over_game() -> Game:
    game = Game.from_hands(["3D", "5D", "6D", "7D"], Rules())
    game.play("3D")
    assert game.is_over
    return game


ILLEGAL = [
    # (name, game factory, play, error fragment)
    ("opening without 3D", opening_game, "4C", "the opening play must contain 3D"),
    ("opening without 3D (ids)", opening_game, [5], "the opening play must contain 3D"),
    ("opening five without 3D", opening_game, "3C 4C 5H 6S 7D", "the opening play must contain 3D"),
    ("opening 3D_single", lambda: opening_game(Rules(opening="3D_single")), "3D 3C", "must be 3D alone"),
    ("pass while leading", opening_game, "pass", "player 0 has control (no active trick) and cannot pass"),
    ("pass while leading (empty)", opening_game, [], "cannot pass"),
    ("card not in hand", opening_game, "3D 2S", "2S not in player 0's hand"),
    ("card not in hand (follow)", following_game, "8H 8S", "8H 8S not in player 1's hand"),
    ("not a combination", opening_game, "3D 4C", "'3D 4C' is not a legal combination"),
    ("four cards, four-card plays off", opening_game, "3D 3C 4C 5H", "is not a legal combination"),
    ("six cards", opening_game, "3D 4C 5H 6S 7D 9S", "is not a legal combination"),
    ("wrong size", following_game, "2S", "'2S' has 1 cards but the trick '8D 8C' has 2"),
    ("does not beat", following_game, "5S 5H", "'5H 5S' does not beat the trick '8D 8C'"),
    ("bad card text", opening_game, "3D 3X", "bad card '3X'"),
    ("empty text", opening_game, "", "empty play"),
    ("bad card id", opening_game, [0, 52], "0..51"),
    ("repeated card id", opening_game, [0, 0], "given twice"),
    ("game over", over_game, "5D", "the game is over (player 0 won); no more plays"),
    ("game over pass", over_game, "pass", "the game is over"),
]


@pytest.mark.parametrize(("factory", "play", "fragment"), [c[1:] for c in ILLEGAL], ids=[c[0] for c in ILLEGAL])
def test_illegal_play_rejected_state_unchanged(factory, play, fragment):
    game = factory()
    before = snapshot(game)
    with pytest.raises(ValueError, match=re.escape(fragment)):
        game.play(play)
    assert snapshot(game) == before
    # the game still works after the rejection
    if not game.is_over:
        game.play(game.legal_plays()[0])


def test_illegal_play_is_illegal_play_error_and_lists_legal_plays():
    game = following_game()
    with pytest.raises(IllegalPlayError) as info:
        game.play("5S")
    assert isinstance(info.value, ValueError)
    assert "Legal plays: 9D 9C, AH AS, pass" in str(info.value)


def test_play_index_out_of_range():
    game = following_game()
    before = snapshot(game)
    n = len(game.legal_plays())
    for index in (n, n + 5, -1):
        with pytest.raises(IllegalPlayError, match=f"play index {index} out of range: {n} legal plays"):
            game.play_index(index)
    assert snapshot(game) == before


def test_play_index_after_game_over():
    game = over_game()
    before = snapshot(game)
    with pytest.raises(IllegalPlayError, match="the game is over"):
        game.play_index(0)
    assert snapshot(game) == before


def test_copy_is_independent():
    game = following_game()
    before = snapshot(game)
    other = game.copy()
    other.play("AH AS")
    assert snapshot(game) == before
    assert isinstance(other, Game) and other.trick_player == 1
