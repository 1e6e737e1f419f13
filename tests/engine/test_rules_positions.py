"""Hand-built positions with exact expected legal-play sets, and scripted games.

Every expected set is written out by hand as card text (in any order inside a
play); ``"pass"`` is the pass. Covers every combination type, every comparison,
every ``Rules`` option, leading vs following, the opening, trick clearing, game
end and both scoring rules (SPEC.md section 2).
"""

from __future__ import annotations

import pytest

from big2_env import Game, IllegalPlayError, Rules, beats, classify, format_cards, format_play, legal_plays, parse_cards

PAPER = Rules()
WRAP = Rules(straights="wrap")
TO_TWO = Rules(straights="to_two")
SUIT_FIRST = Rules(flush_order="suit_first")
FOUR = Rules(four_card_plays=True)
NO_FIVE_QUADS = Rules(five_card_quads=False)
CHARLESWORTH = Rules.preset("charlesworth")


def norm(text: str) -> str:
    """Canonical text of a play: its cards ascending, or ``'pass'``."""
    return "pass" if text.strip().lower() == "pass" else format_play(sorted(parse_cards(text)))


def expect(*plays: str) -> set[str]:
    return {norm(p) for p in plays}


def legal(hand: str, trick: str | None = None, rules: Rules = PAPER, must_include: str | None = None) -> set[str]:
    plays = legal_plays(
        parse_cards(hand),
        parse_cards(trick) if trick else None,
        rules,
        must_include=parse_cards(must_include)[0] if must_include else None,
    )
    shown = [format_play(p) for p in plays]
    assert len(shown) == len(set(shown)), f"duplicate plays in {shown}"
    return set(shown)


def game_legal(game: Game) -> set[str]:
    return {format_play(p) for p in game.legal_plays()}


def singles(hand: str) -> set[str]:
    return set(hand.split())


def name(cards: str, rules: Rules = PAPER) -> str | None:
    combo = classify(parse_cards(cards), rules)
    return None if combo is None else combo.name


# ---------------------------------------------------------------- leading: every type


def test_lead_singles_pairs_triple():
    assert legal("3D 3C 3H 5S") == expect(
        "3D", "3C", "3H", "5S", "3D 3C", "3D 3H", "3C 3H", "3D 3C 3H"
    )


def test_lead_straight():
    assert legal("3D 4C 5H 6S 7D 8C") == singles("3D 4C 5H 6S 7D 8C") | expect(
        "3D 4C 5H 6S 7D", "4C 5H 6S 7D 8C"
    )
    assert name("3D 4C 5H 6S 7D") == "straight"


def test_lead_flush():
    assert legal("3H 6H 8H TH KH") == singles("3H 6H 8H TH KH") | expect("3H 6H 8H TH KH")
    assert name("3H 6H 8H TH KH") == "flush"


def test_lead_full_house():
    assert legal("5D 5C 5H 9S 9D") == singles("5D 5C 5H 9S 9D") | expect(
        "5D 5C", "5D 5H", "5C 5H", "9D 9S", "5D 5C 5H", "5D 5C 5H 9D 9S"
    )
    assert name("5D 5C 5H 9S 9D") == "full house"


def test_lead_four_of_a_kind_with_kicker():
    pairs = expect("7D 7C", "7D 7H", "7D 7S", "7C 7H", "7C 7S", "7H 7S")
    triples = expect("7D 7C 7H", "7D 7C 7S", "7D 7H 7S", "7C 7H 7S")
    base = singles("7D 7C 7H 7S 2S") | pairs | triples
    assert legal("7D 7C 7H 7S 2S") == base | expect("7D 7C 7H 7S 2S")
    assert name("7D 7C 7H 7S 2S") == "four of a kind"
    # four-card plays add the bare quads
    assert legal("7D 7C 7H 7S 2S", rules=FOUR) == base | expect("7D 7C 7H 7S 2S", "7D 7C 7H 7S")
    # no five-card quads: only the smaller plays are left
    assert legal("7D 7C 7H 7S 2S", rules=NO_FIVE_QUADS) == base
    assert name("7D 7C 7H 7S 2S", NO_FIVE_QUADS) is None
    # charlesworth: four-card quads on, five-card quads off
    assert legal("7D 7C 7H 7S 2S", rules=CHARLESWORTH) == base | expect("7D 7C 7H 7S")


def test_lead_straight_flush():
    assert legal("9S TS JS QS KS") == singles("9S TS JS QS KS") | expect("9S TS JS QS KS")
    assert name("9S TS JS QS KS") == "straight flush"


def test_lead_two_pair_only_with_four_card_plays():
    base = singles("3D 3C 4D 4C 5H") | expect("3D 3C", "4D 4C")
    assert legal("3D 3C 4D 4C 5H") == base
    assert legal("3D 3C 4D 4C 5H", rules=FOUR) == base | expect("3D 3C 4D 4C")
    assert name("3D 3C 4D 4C", FOUR) == "two pair"
    assert name("3D 3C 4D 4C") is None
    assert name("3D 3C 3H 4C", FOUR) is None  # three and one is nothing


def test_non_combinations_are_not_played():
    assert name("3D 4D") is None
    assert name("3D 3C 4D") is None
    assert name("3D 4C 5H 6S 8D") is None  # gap
    assert name("3D 3C 3H 4D 5C") is None  # triple + two singles
    assert name("3D 3C 4D 4C 5H") is None  # two pair + single is no five-card hand
    assert name("3D 4C 5H 6S 7D 8C") is None  # six cards
    assert legal("3D 4D 6C 8H 9S") == singles("3D 4D 6C 8H 9S")


# ---------------------------------------------------------------- following: comparisons

FOLLOW_CASES = [
    # singles compare by card id (suit breaks rank ties)
    ("single", PAPER, "4S 5D 5H 2S", "5C", ["5H", "2S", "pass"]),
    ("single vs 2S", PAPER, "3D AS 2H", "2S", ["pass"]),
    ("single vs 3D", PAPER, "3C 4D", "3D", ["3C", "4D", "pass"]),
    # pairs and triples compare by their highest card id
    ("pair", PAPER, "6H 6S 7D 7S 8D 8C", "7C 7H", ["7D 7S", "8D 8C", "pass"]),
    ("pair same rank lower", PAPER, "7D 7C 4S", "7H 7S", ["pass"]),
    ("pair only answers pair", PAPER, "AD 2D 2S KC", "3D 3C", ["2D 2S", "pass"]),
    ("triple", PAPER, "8D 8C 8H 9S TD TC TH", "9D 9C 9H", ["TD TC TH", "pass"]),
    ("triples from a four", PAPER, "JD JC JH JS", "TD TC TS", ["JD JC JH", "JD JC JS", "JD JH JS", "JC JH JS", "pass"]),
    ("size mismatch", PAPER, "AD AC 2S", "KD KC KH", ["pass"]),
    # straights compare by highest card id
    ("straight by top card", PAPER, "3C 4C 5D 6D 7D 7S", "3D 4D 5C 6C 7H", ["3C 4C 5D 6D 7S", "pass"]),
    ("straight higher rank", PAPER, "4D 5D 6C 7C 8D", "3S 4S 5S 6S 7H", ["4D 5D 6C 7C 8D", "pass"]),
    ("straight lower top", PAPER, "3C 4D 5D 6D 7D", "3D 4C 5H 6S 7C", ["pass"]),
    # flushes: highest card id (default) vs suit first
    ("flush high_card", PAPER, "4S 5S 6S 8S 9S 3D 5D 7D 9D 2D", "3H 6H 8H TH AH", ["3D 5D 7D 9D 2D", "pass"]),
    ("flush suit_first", SUIT_FIRST, "4S 5S 6S 8S 9S 3D 5D 7D 9D 2D", "3H 6H 8H TH AH", ["4S 5S 6S 8S 9S", "pass"]),
    ("flush same suit", SUIT_FIRST, "4H 6H 8H TH QH", "3H 5H 7H 9H JH", ["4H 6H 8H TH QH", "pass"]),
    ("flush same suit lower", SUIT_FIRST, "4H 6H 8H TH QH", "3H 5H 7H 9H KH", ["pass"]),
    # full houses by the rank of the triple (the pair does not matter)
    ("full house", PAPER, "3D 3C 3H 5D 5C 5H", "4D 4C 4H 2D 2C",
     ["5D 5C 5H 3D 3C", "5D 5C 5H 3D 3H", "5D 5C 5H 3C 3H", "pass"]),
    ("full house low triple", PAPER, "3D 3C 3H AD AC", "4D 4C 4H 5D 5C", ["pass"]),
    # four of a kind (+ kicker) by the rank of the four
    ("quads", PAPER, "4D 4C 4H 4S 6D 6C 6H 6S", "5D 5C 5H 5S 3C",
     ["6D 6C 6H 6S 4D", "6D 6C 6H 6S 4C", "6D 6C 6H 6S 4H", "6D 6C 6H 6S 4S", "pass"]),
    ("quads lower", PAPER, "4D 4C 4H 4S 6D", "5D 5C 5H 5S 3C", ["pass"]),
    ("quads disabled", NO_FIVE_QUADS, "7D 7C 7H 7S 2S", "3D 3C 3H 4D 4C", ["pass"]),
    ("quads vs full house", PAPER, "7D 7C 7H 7S 2S", "3D 3C 3H 4D 4C", ["7D 7C 7H 7S 2S", "pass"]),
    # straight flushes by highest card id
    ("straight flush higher suit", PAPER, "3S 4S 5S 6S 7S", "3H 4H 5H 6H 7H", ["3S 4S 5S 6S 7S", "pass"]),
    ("straight flush lower suit", PAPER, "3C 4C 5C 6C 7C", "3H 4H 5H 6H 7H", ["pass"]),
    ("straight flush higher rank", PAPER, "4C 5C 6C 7C 8C", "3S 4S 5S 6S 7S", ["4C 5C 6C 7C 8C", "pass"]),
    # four-card plays: two pair by the highest card of the higher pair; quads by rank, above two pair
    ("two pair", FOUR, "4D 4C 8D 8S 9H 9S", "3D 3C 9D 9C", ["4D 4C 9H 9S", "8D 8S 9H 9S", "pass"]),
    ("two pair same top rank", FOUR, "4D 4C 9C 9S", "3D 3C 9D 9H", ["4D 4C 9C 9S", "pass"]),
    ("two pair lower", FOUR, "KD KS 2D 2C", "AD AC 2H 2S", ["pass"]),
    ("quads beat two pair", FOUR, "4D 4C 4H 4S", "KD KC AD AC", ["4D 4C 4H 4S", "pass"]),
    ("four-card quads by rank", FOUR, "4D 4C 4H 4S 6D 6C 6H 6S", "5D 5C 5H 5S", ["6D 6C 6H 6S", "pass"]),
    ("two pair never beats quads", FOUR, "AD AC 2D 2C", "3D 3C 3H 3S", ["pass"]),
    ("charlesworth quads", CHARLESWORTH, "8D 8C 8H 8S 9D", "5D 5C 6D 6C", ["8D 8C 8H 8S", "pass"]),
    # straights variants: ordering TJQKA < 23456 < A2345 (wrap), JQKA2 highest (to_two)
    ("wrap 23456 over TJQKA", WRAP, "2D 3C 4H 5S 6D", "TD JC QH KS AS", ["2D 3C 4H 5S 6D", "pass"]),
    ("wrap A2345 over 23456", WRAP, "AD 2C 3H 4S 5D", "2D 3C 4H 5S 6D", ["AD 2C 3H 4S 5D", "pass"]),
    ("wrap shape before top card", WRAP, "2S 3S 4H 5H 6D", "AD 2C 3H 4S 5D", ["pass"]),
    ("wrap same shape by top card", WRAP, "2H 3D 4C 5C 6C", "2D 3C 4H 5S 6D", ["2H 3D 4C 5C 6C", "pass"]),
    ("wrap TJQKA below 23456", WRAP, "TC JH QS KD AS", "2D 3C 4H 5S 6D", ["pass"]),
    ("to_two JQKA2 highest", TO_TWO, "JD QS KS AC 2D", "TD JH QH KH AS", ["JD QS KS AC 2D", "pass"]),
    ("to_two TJQKA below JQKA2", TO_TWO, "TC JC QD KD AH", "JS QC KC AD 2D", ["pass"]),
    ("to_two JQKA2 same shape", TO_TWO, "JD QS KS AC 2H", "JC QC KC AD 2D", ["JD QS KS AC 2H", "pass"]),
]


@pytest.mark.parametrize(("rules", "hand", "trick", "expected"), [c[1:] for c in FOLLOW_CASES],
                         ids=[c[0] for c in FOLLOW_CASES])
def test_following(rules, hand, trick, expected):
    assert legal(hand, trick, rules) == expect(*expected)


# The five-card categories: straight < flush < full house < four of a kind < straight flush.
CATEGORY_HANDS = [
    ("straight", "4D 5C 6H 7S 8D"),
    ("flush", "3H 5H 7H 9H JH"),
    ("full house", "TD TC TH JD JC"),
    ("four of a kind", "AD AC AH AS 3D"),
    ("straight flush", "9S TS JS QS KS"),
]


@pytest.mark.parametrize("low", range(5), ids=[c[0] for c in CATEGORY_HANDS])
@pytest.mark.parametrize("high", range(5), ids=[c[0] for c in CATEGORY_HANDS])
def test_five_card_category_order(low, high):
    (low_name, low_cards), (high_name, high_cards) = CATEGORY_HANDS[low], CATEGORY_HANDS[high]
    assert name(low_cards) == low_name and name(high_cards) == high_name
    if high > low:
        assert legal(high_cards, low_cards) == expect(high_cards, "pass")
        assert beats(parse_cards(high_cards), parse_cards(low_cards))
    elif high < low:
        assert legal(high_cards, low_cards) == {"pass"}
        assert not beats(parse_cards(high_cards), parse_cards(low_cards))


def test_beats_needs_same_size():
    assert not beats(parse_cards("2S 2H"), parse_cards("3D"))
    assert not beats(parse_cards("2S"), parse_cards("3D 3C"))
    assert beats(parse_cards("3C"), parse_cards("3D"))
    assert not beats(parse_cards("3D"), parse_cards("3D"))


# ---------------------------------------------------------------- straights variants


STRAIGHT_SHAPES = [
    # hand, straight under (no_two, wrap, to_two)
    ("2D 3D 4C 5H 6S", (False, True, False)),
    ("AD 2D 3C 4H 5S", (False, True, False)),
    ("JD QC KH AS 2C", (False, False, True)),
    ("TD JC QH KS AD", (True, True, True)),
    ("3D 4C 5H 6S 7D", (True, True, True)),
    ("QD KC AH 2S 3D", (False, False, False)),  # never wraps round
    ("KD AC 2H 3S 4D", (False, False, False)),
    ("KD AC 2H 3S 5D", (False, False, False)),
]


@pytest.mark.parametrize(("hand", "flags"), STRAIGHT_SHAPES)
def test_straight_shapes_per_variant(hand, flags):
    for rules, is_straight in zip((PAPER, WRAP, TO_TWO), flags):
        expected = singles(hand) | (expect(hand) if is_straight else set())
        assert legal(hand, rules=rules) == expected, rules.straights
        assert name(hand, rules) == ("straight" if is_straight else None)


def test_two_never_in_straight_by_default():
    # six consecutive ranks ending with 2: only TJQKA is a straight under no_two
    hand = "TD JD QC KH AS 2C"
    fives = {p for p in legal(hand) if len(p.split()) == 5}
    assert fives == expect("TD JD QC KH AS")
    assert {p for p in legal(hand, rules=TO_TWO) if len(p.split()) == 5} == expect("TD JD QC KH AS", "JD QC KH AS 2C")
    assert {p for p in legal(hand, rules=WRAP) if len(p.split()) == 5} == expect("TD JD QC KH AS")


def test_straight_flush_shapes_per_variant():
    assert name("2H 3H 4H 5H 6H", WRAP) == "straight flush"
    assert name("2H 3H 4H 5H 6H") == "flush"
    assert name("AH 2H 3H 4H 5H", WRAP) == "straight flush"
    assert name("JS QS KS AS 2S", TO_TWO) == "straight flush"
    assert name("JS QS KS AS 2S") == "flush"
    assert name("QS KS AS 2S 3S", WRAP) == "flush"
    # a wrap straight flush beats the TJQKA straight flush
    assert legal("2H 3H 4H 5H 6H", "TS JS QS KS AS", WRAP) == expect("2H 3H 4H 5H 6H", "pass")
    assert legal("2H 3H 4H 5H 6H", "TS JS QS KS AS") == {"pass"}  # a flush under no_two


# ---------------------------------------------------------------- leading vs following


def test_pass_only_when_following():
    assert "pass" not in legal("3D 4C")
    assert legal("3D 4C", "2S") == {"pass"}  # nothing beats 2S: pass is still there
    assert "pass" in legal("3D 4C", "3C")
    assert legal("3D 4C", "3C") == expect("4C", "pass")


def test_must_include():
    assert legal("3D 3C 4C 5H 6S 7D", must_include="3D") == expect("3D", "3D 3C", "3D 4C 5H 6S 7D")


# ---------------------------------------------------------------- the opening


def opening_game(rules: Rules) -> Game:
    hands = ["4D 5D 6D", "3D 3C 4C 5H 6S 7D", "8D 9D", "TD JD"]
    return Game.from_hands(hands, rules)


def test_opening_3d_must_play():
    game = opening_game(PAPER)
    assert game.current_player == 1 and game.is_opening and game.trick is None
    assert game_legal(game) == expect("3D", "3D 3C", "3D 4C 5H 6S 7D")
    with pytest.raises(IllegalPlayError, match="must contain 3D"):
        game.play("3C")
    game.play("3D 3C")
    assert not game.is_opening
    assert game.current_player == 2 and game.trick == tuple(parse_cards("3D 3C"))


def test_opening_3d_single():
    game = opening_game(Rules(opening="3D_single"))
    assert game_legal(game) == {"3D"}
    with pytest.raises(IllegalPlayError, match="3D alone"):
        game.play("3D 3C")
    game.play("3D")
    assert game.trick == (0,)


def test_opening_3d_leads_free():
    game = opening_game(Rules(opening="3D_leads_free"))
    assert game.current_player == 1
    assert game_legal(game) == singles("3D 3C 4C 5H 6S 7D") | expect(
        "3D 3C", "3D 4C 5H 6S 7D", "3C 4C 5H 6S 7D"
    )
    game.play("4C")
    assert game.trick == tuple(parse_cards("4C"))


def test_opening_rule_ends_after_first_play():
    # after the opening trick clears, the leader plays freely
    game = Game.from_hands(["3D 4C", "5D", "6D", "7D"], PAPER)
    assert game_legal(game) == {"3D"}
    game.play("3D")
    for _ in range(3):
        assert game.legal_plays()[-1] == ()
        game.play("pass")
    assert game.current_player == 0 and game.trick is None
    assert game_legal(game) == {"4C"}


def test_full_deal_opening():
    game = Game(PAPER, seed=3)
    holder = next(p for p in range(4) if 0 in game.hands[p])
    assert game.current_player == holder
    assert all(0 in p for p in game.legal_plays())
    assert () not in game.legal_plays()


# ---------------------------------------------------------------- tricks and turns


def test_trick_clears_after_three_passes():
    game = Game.from_hands(["5D 9C KD", "4D 6D", "3C 7D", "4C 8H"], PAPER, current_player=0)
    assert not game.is_opening
    assert game_legal(game) == singles("5D 9C KD")  # leading: no pass
    game.play("KD")
    assert game_legal(game) == {"pass"}
    game.play("pass")
    assert (game.current_player, game.trick, game.passes) == (2, (parse_cards("KD")[0],), 1)
    game.play("pass")
    assert (game.current_player, game.trick, game.passes) == (3, (parse_cards("KD")[0],), 2)
    game.play("pass")
    # the trick clears and the player who made it leads
    assert game.current_player == 0 and game.trick is None
    assert game_legal(game) == singles("5D 9C")


def test_two_passes_do_not_clear():
    game = Game.from_hands(["5D 9C KD", "4D 6D", "3C 7D", "4C 8H 2S"], PAPER, current_player=0)
    game.play("KD")
    game.play("pass")
    game.play("pass")
    assert game.trick == (parse_cards("KD")[0],) and game.current_player == 3
    game.play("2S")  # a play resets the pass count
    assert game.passes == 0 and game.trick_player == 3 and game.current_player == 0


def test_start_facing_a_trick():
    hands = ["5D 9C", "4D 6D", "3C 7D", "4C 8H"]
    game = Game.from_hands(hands, PAPER, current_player=3, trick="6C", trick_player=0, passes=2)
    assert game_legal(game) == expect("8H", "pass")
    game.play("pass")
    assert game.current_player == 0 and game.trick is None
    assert game_legal(game) == singles("5D 9C")


def scripted_game(rules: Rules) -> Game:
    """p0 leads 5D; p1 passes; p2 and p3 follow; p0 plays; p1, who passed, plays again and later wins."""
    game = Game.from_hands(["5D 9C KD", "4D 2S", "3C 7D", "4C 8H"], rules, current_player=0)
    game.play("5D")
    assert game_legal(game) == expect("2S", "pass")
    game.play("pass")
    game.play("7D")
    game.play("8H")
    game.play("9C")
    assert game.current_player == 1 and game.passes == 0
    assert game_legal(game) == expect("2S", "pass")  # passing earlier did not lock p1 out
    game.play("2S")
    for seat in (2, 3, 0):
        assert game.current_player == seat
        assert game_legal(game) == {"pass"}
        game.play("pass")
    assert game.current_player == 1 and game.trick is None
    assert game_legal(game) == {"4D"}
    game.play("4D")
    return game


def test_passer_plays_again_and_game_end():
    game = scripted_game(PAPER)
    assert game.is_over and game.winner == 1
    assert game.hands == ((parse_cards("KD")[0],), (), (parse_cards("3C")[0],), (parse_cards("4C")[0],))
    assert [(p, format_play(c)) for p, c in game.history] == [
        (0, "5D"), (1, "pass"), (2, "7D"), (3, "8H"), (0, "9C"), (1, "2S"),
        (2, "pass"), (3, "pass"), (0, "pass"), (1, "4D"),
    ]
    assert game.scores() == [-1, 3, -1, -1]
    # the game stops: no legal plays, nothing more can be played
    assert game.legal_plays() == []
    with pytest.raises(IllegalPlayError, match="game is over"):
        game.play("KD")
    with pytest.raises(IllegalPlayError, match="game is over"):
        game.play("pass")
    with pytest.raises(IllegalPlayError, match="game is over"):
        game.play_index(0)
    assert game.winner == 1 and len(game.history) == 10


def test_game_ends_at_once_when_a_hand_empties():
    # p0 wins with a five-card play in the middle of a trick
    game = Game.from_hands(["4D 5C 6H 7S 8D", "3D 4C 5H 6S 7D 2S", "9D", "TD"], PAPER,
                           current_player=0, trick="3C 4H 5S 6D 7C", trick_player=3)
    game.play("4D 5C 6H 7S 8D")
    assert game.is_over and game.winner == 0 and game.current_player == 0
    assert game.scores() == [8, -6, -1, -1]


def test_scores_not_available_before_the_end():
    game = Game(PAPER, seed=0)
    with pytest.raises(ValueError, match="not over"):
        game.scores()


# ---------------------------------------------------------------- scoring


def winner_takes_all(sizes: list[int], rules: Rules, winner: int = 0) -> list[int]:
    """Deal hands of the given sizes (the winner holds one card), let the winner go out."""
    hands, next_card = [], 1
    for seat, size in enumerate(sizes):
        if seat == winner:
            hands.append([0])
        else:
            hands.append(list(range(next_card, next_card + size)))
            next_card += size
    game = Game.from_hands([format_cards(h) for h in hands], rules, current_player=winner)
    game.play("3D")
    assert game.is_over and game.winner == winner
    return game.scores()


@pytest.mark.parametrize(
    ("sizes", "winner", "paper", "hk"),
    [
        ([1, 9, 10, 13], 0, [32, -9, -10, -13], [68, -9, -20, -39]),
        ([1, 12, 11, 1], 0, [24, -12, -11, -1], [47, -24, -22, -1]),
        ([13, 13, 1, 13], 2, [-13, -13, 39, -13], [-39, -39, 117, -39]),
        ([2, 1, 5, 8], 1, [-2, 15, -5, -8], [-2, 15, -5, -8]),
        ([1, 9, 9, 9], 0, [27, -9, -9, -9], [27, -9, -9, -9]),
        ([10, 11, 12, 1], 3, [-10, -11, -12, 33], [-20, -22, -24, 66]),
    ],
)
def test_scoring(sizes, winner, paper, hk):
    assert winner_takes_all(sizes, PAPER, winner) == paper
    assert winner_takes_all(sizes, Rules(scoring="hk"), winner) == hk
    assert sum(paper) == sum(hk) == 0


def test_charlesworth_preset():
    assert CHARLESWORTH == Rules(four_card_plays=True, five_card_quads=False, straights="to_two", opening="3D_single")
    assert Rules.preset("paper") == Rules()
    assert Rules() == Rules(straights="no_two", flush_order="high_card", four_card_plays=False,
                            five_card_quads=True, scoring="paper", opening="3D_must_play")


# ----------------------------------------------------------------------------- house rules
NO_LONE_TRIPLES = Rules(lone_triples=False)
PASS_LOCKS = Rules(pass_locks=True)


def test_without_lone_triples_three_of_a_kind_is_no_play_but_full_houses_are():
    hand = "3D 3C 3H 4D 4S 9C"
    assert legal(hand, rules=PAPER) >= expect("3D 3C 3H")
    assert legal(hand, rules=NO_LONE_TRIPLES) == legal(hand, rules=PAPER) - expect(
        "3D 3C 3H"
    )  # only the lone triple goes: the full houses 333-44 stay
    assert expect("3D 3C 3H 4D 4S") <= legal(hand, rules=NO_LONE_TRIPLES)
    assert classify(parse_cards("3D 3C 3H"), NO_LONE_TRIPLES) is None
    assert classify(parse_cards("3D 3C 3H 4D 4S"), NO_LONE_TRIPLES).name == "full house"
    with pytest.raises(ValueError, match="not a legal combination"):
        legal_plays(parse_cards("5D 5C 5H"), parse_cards("4D 4C 4H"), NO_LONE_TRIPLES)
    game = Game.from_hands(["3D 3C 3H 9S", "4D", "5D", "6D"], NO_LONE_TRIPLES)
    with pytest.raises(IllegalPlayError, match="not a legal combination under these rules"):
        game.play("3D 3C 3H")


def test_pass_locks_keeps_a_passer_out_until_the_trick_ends():
    """The scripted game of the soft pass, under pass_locks: p1 passed on 5D, so when the trick comes
    back round (p0 plays 9C) its only play is pass, although it holds 2S; the trick still ends after
    three passes in a row, and everyone may play in the next one."""
    game = Game.from_hands(["5D 9C JD KD", "4D 2S", "3C 7D", "4C 8H"], PASS_LOCKS, current_player=0)
    game.play("5D")
    assert game_legal(game) == expect("2S", "pass")
    game.play("pass")
    assert game.passed_mask == 0b0010
    game.play("7D")
    game.play("8H")
    game.play("9C")
    assert game.current_player == 1 and game.passes == 0 and game.locked
    assert game_legal(game) == {"pass"}  # the soft pass would allow 2S here
    with pytest.raises(IllegalPlayError, match="passed earlier in this trick"):
        game.play("2S")
    game.play("pass")
    assert game.current_player == 2 and not game.locked
    game.play("pass")
    game.play("pass")  # p1, p2, p3: three passes in a row end the trick, p0 leads
    assert game.trick is None and game.current_player == 0 and game.passed_mask == 0
    game.play("JD")
    assert game.current_player == 1 and not game.locked  # a new trick: p1 may play again
    assert game_legal(game) == expect("2S", "pass")


def test_pass_locks_changes_nothing_for_a_player_who_never_passed():
    game = Game.from_hands(["5D 9C KD", "4D 2S", "3C 7D", "4C 8H"], PASS_LOCKS, current_player=0)
    soft = Game.from_hands(["5D 9C KD", "4D 2S", "3C 7D", "4C 8H"], PAPER, current_player=0)
    for play in ("5D", "pass", "7D", "8H", "9C"):
        game.play(play)
        soft.play(play)
        assert game.current_player == soft.current_player and game.trick == soft.trick
        if game.current_player != 1:
            assert game_legal(game) == game_legal(soft)


def test_a_mid_game_start_can_name_who_passed():
    hands = ["5D 9C", "4D 6D 2S", "3C 7C", "4C 8H"]
    # p1 passed earlier in this trick, then p2 played 7D, p3 passed: p0 is on move after one pass
    game = Game.from_hands(hands, PASS_LOCKS, current_player=0, trick="7D", trick_player=2, passes=1, passed=[1])
    assert game.passed_mask == 0b1010 and not game.locked
    game.play("9C")
    assert game.current_player == 1 and game_legal(game) == {"pass"}
    with pytest.raises(ValueError, match="made the trick"):
        Game.from_hands(hands, PASS_LOCKS, current_player=0, trick="7D", trick_player=2, passes=1, passed=[2])
    with pytest.raises(ValueError, match="needs an active trick"):
        Game.from_hands(hands, PASS_LOCKS, current_player=0, passed=[1])
    with pytest.raises(ValueError, match="seat"):
        Game.from_hands(hands, PASS_LOCKS, current_player=0, trick="7D", trick_player=2, passes=1, passed=[4])
