"""Tests of the heuristic policies: Greedy (paper Algorithm 1) and Smart (Algorithm 2).

Hand-built positions use ``Game.from_hands`` with the acting player in seat 0 and
the other seats holding one spare card each (their cards never matter to the
policies). Scores are compared exactly: Smart keeps them in tenths internally.
"""

from __future__ import annotations

import numpy as np
import pytest

import big2_env
from big2_env import Game, Rules, parse_cards
from big2_env.engine.cards import format_play, parse_play
from big2_env.observations.decision import Decision
from big2_env.observations.paper import PASS_ACTION, action_cards
from big2_env.observations.decision import observation_dict
from big2_env.players.base import Policy, decode_observation
from big2_env.players.greedy import GreedyPolicy
from big2_env.players.random import RandomPolicy
from big2_env.players.registry import POLICIES, make_policy
from big2_env.players.smart import SmartPolicy, _scores10
from tests.reference.smart import break_penalty, broken_structures, game_phase, is_bomb, is_very_strong, low_orphans

# ----------------------------------------------------------------- helpers


def position(hand: str, trick: str | None = None, *, rules: Rules | None = None, candidate_view: bool = True) -> dict:
    """Observation of seat 0 holding ``hand``, leading (``trick=None``) or facing ``trick`` played by seat 3."""
    mine = parse_cards(hand)
    played = parse_cards(trick) if trick else []
    used = set(mine) | set(played)
    spare = [c for c in range(52) if c not in used]
    hands = [mine, spare[0:1], spare[1:2], spare[2:3]]
    if trick:
        game = Game.from_hands(hands, rules, current_player=0, trick=played)
    else:
        game = Game.from_hands(hands, rules, current_player=0)
    return observation_dict(game, candidate_view=candidate_view)


def play_of(obs: dict, action: int) -> str:
    decoded = decode_observation(obs)
    return format_play(action_cards(action, decoded.hand))


def choose(policy: Policy, obs: dict) -> str:
    """The play ``policy`` picks, as text ("pass" for pass), checked to be legal."""
    action = policy.act(obs)
    assert obs["action_mask"][action] == 1
    return play_of(obs, action)


def smart_s(obs: dict, rules: Rules | None = None) -> dict[int, float]:
    """Smart's s(a) for every legal non-pass action a (lower is better), from the compiled scores."""
    decoded = decode_observation(obs)
    scored = _scores10(decoded.hand, decoded.trick, decoded.plays, Rules.coerce(rules))
    return {decoded.actions[i]: score / 10 for i, score in scored}


def smart_scores(obs: dict, rules: Rules | None = None) -> dict[str, float]:
    """Smart's s(a) keyed by the play's text."""
    return {play_of(obs, a): s for a, s in smart_s(obs, rules).items()}


def argmin_without(obs: dict, term) -> set[str]:
    """The plays Smart would pick (lowest score) if ``term(play)`` were removed from s(a)."""
    adjusted = {text: s - term(parse_play(text)) for text, s in smart_scores(obs).items()}
    best = min(adjusted.values())
    return {text for text, s in adjusted.items() if abs(s - best) < 1e-9}


def rank_term(play) -> float:
    return 0.8 * sum(c >> 2 for c in play)


def twos(play) -> int:
    return sum(1 for c in play if c >> 2 == 12)


SMART = SmartPolicy()
GREEDY = GreedyPolicy()


# ------------------------------------------------------ registry and interface


def test_registry_and_make_policy():
    assert {"random", "greedy", "smart"} <= set(POLICIES)
    assert isinstance(make_policy("greedy"), GreedyPolicy)
    assert isinstance(make_policy("smart", seed=3), SmartPolicy)
    assert isinstance(make_policy("random", seed=1), RandomPolicy)
    charlesworth = Rules.preset("charlesworth")
    assert make_policy("smart", rules=charlesworth).rules == charlesworth
    assert make_policy("greedy", rules="charlesworth").rules == charlesworth
    assert make_policy("random", rules=charlesworth).act(position("3D 4D", "2S")) == PASS_ACTION
    with pytest.raises(ValueError, match="unknown policy 'bogus'"):
        make_policy("bogus")
    assert GreedyPolicy().name == "greedy" and SmartPolicy().name == "smart"
    assert "SmartPolicy(rules=Rules(" in repr(SmartPolicy())


def test_observation_dict_matches_env():
    e = big2_env.raw_env()
    e.reset(seed=5)
    obs = e.observe(e.agent_selection)
    mine = observation_dict(e.game)
    assert set(obs) == set(mine)
    for key in obs:
        np.testing.assert_array_equal(obs[key], mine[key])
    assert set(observation_dict(e.game, candidate_view=False)) == {"observation", "action_mask", "history"}


def test_phases():
    assert [game_phase(n) for n in (13, 11, 10, 6, 5, 1)] == ["early", "early", "mid", "mid", "late", "late"]


# ---------------------------------------------- legality over many random positions


def _play_env_games(candidate_view: bool, games: int, seed: int) -> int:
    """Four heuristic seats in the wrapped PettingZoo env; every chosen action must be legal."""
    policies = [GreedyPolicy(), SmartPolicy(), SmartPolicy(), GreedyPolicy()]
    decisions = 0
    e = big2_env.env(candidate_view=candidate_view)
    for g in range(games):
        e.reset(seed=seed + g)
        for agent in e.agent_iter():
            obs, reward, termination, truncation, info = e.last()
            if termination or truncation:
                e.step(None)
                continue
            seat = int(agent.split("_")[1])
            action = policies[seat].act(obs)
            assert obs["action_mask"][action] == 1
            # the other heuristic is legal here too, and the bare view (no candidate keys) gives the same choice
            other = policies[(seat + 1) % 4].act(obs)
            assert obs["action_mask"][other] == 1
            if candidate_view:
                bare = {"observation": obs["observation"], "action_mask": obs["action_mask"]}
                assert policies[seat].act(bare) == action
            decisions += 1
            e.step(action)
        assert "winner" in info
    return decisions


@pytest.mark.parametrize("candidate_view", [True, False])
def test_greedy_and_smart_always_legal_in_env(candidate_view):
    assert _play_env_games(candidate_view, games=25, seed=100) > 25 * 20


@pytest.mark.parametrize("candidate_view", [True, False])
def test_legal_against_random_opponents(candidate_view):
    """Random opponents reach positions the heuristics never create among themselves."""
    e = big2_env.raw_env(candidate_view=candidate_view)
    for g in range(25):
        e.reset(seed=1000 + g)
        policies = [RandomPolicy(seed=g), GreedyPolicy(), RandomPolicy(seed=g + 1), SmartPolicy()]
        for agent in e.agent_iter():
            obs, _, termination, truncation, _ = e.last()
            if termination or truncation:
                e.step(None)
                continue
            for policy in (GREEDY, SMART):
                assert obs["action_mask"][policy.act(obs)] == 1
            e.step(policies[int(agent[-1])].act(obs))


@pytest.mark.parametrize(
    "rules",
    [Rules.preset("charlesworth"), Rules(straights="wrap", flush_order="suit_first"), Rules(four_card_plays=True)],
    ids=["charlesworth", "wrap-suit_first", "four_card_plays"],
)
def test_legal_under_rule_variants(rules):
    policies = [GreedyPolicy(rules), SmartPolicy(rules), RandomPolicy(seed=1, rules=rules), SmartPolicy(rules)]
    for g in range(20):
        game = Game(rules, seed=g)
        while not game.is_over:
            obs = observation_dict(game, candidate_view=g % 2 == 0)
            action = policies[game.current_player].act(obs)
            assert obs["action_mask"][action] == 1
            game.play(Decision(game).play_for_action(action))


def test_policies_are_deterministic():
    e = big2_env.raw_env()
    e.reset(seed=9)
    obs = e.observe(e.agent_selection)
    for cls in (GreedyPolicy, SmartPolicy):
        first = cls().act(obs)
        assert all(cls().act(obs) == first for _ in range(3))
        assert cls().act_batch([obs, obs]) == [first, first]


def test_heuristics_beat_random_seeded():
    """A small, seeded (so deterministic) strength check: Greedy and Smart beat three Random seats."""

    def win_rate(name: str, games: int = 120) -> float:
        rng = np.random.default_rng(2024)
        wins = 0
        for g in range(games):
            game = Game(seed=int(rng.integers(2**31)))
            seat = int(rng.integers(4))
            seats = [RandomPolicy(seed=int(rng.integers(2**31))) for _ in range(4)]
            seats[seat] = make_policy(name)
            while not game.is_over:
                action = seats[game.current_player].act(observation_dict(game, candidate_view=False))
                game.play(Decision(game).play_for_action(action))
            wins += game.winner == seat
        return wins / games

    assert win_rate("greedy") > 0.4
    assert win_rate("smart") > 0.55


# ------------------------------------------------------------------- Greedy


def test_greedy_leading_plays_lowest_single():
    assert choose(GREEDY, position("4C 4D 5H 5S 9S KD")) == "4D"


def test_greedy_opening_plays_three_of_diamonds():
    game = Game(seed=3)
    assert choose(GREEDY, observation_dict(game)) == "3D"


def test_greedy_following_single_plays_weakest_beating_card():
    assert choose(GREEDY, position("8D 8S 9D 2C", "8H")) == "8S"


def test_greedy_following_pair_plays_weakest_beating_pair():
    assert choose(GREEDY, position("5D 5C 7D 7C 7S 9H 9S", "6D 6C")) == "7D 7C"


def test_greedy_orders_by_category_first():
    # a straight (lower category) is weaker than a full house, although the full house has lower ranks
    obs = position("3S 3H 4D 4S 4H 8C 9D TH JS QC", "3D 4C 5H 6S 7D")
    assert choose(GREEDY, obs) == "8C 9D TH JS QC"


def test_greedy_breaks_ties_by_card_tuple():
    # 888 44 and 888 99 have the same comparison key (the triple's rank): the lower card tuple wins
    assert choose(GREEDY, position("4D 4C 8D 8C 8H 9D 9C", "7D 7C 7H 3D 3C")) == "4D 4C 8D 8C 8H"


def test_greedy_forced_single_action():
    obs = position("3S 4S", "2S")  # nothing beats 2S: pass is the only legal action
    assert list(obs["candidate_actions"]) == [PASS_ACTION]
    assert GREEDY.act(obs) == PASS_ACTION
    assert SMART.act(obs) == PASS_ACTION
    obs = position("2D 3C", "AS")  # one play and pass: Greedy never passes when it can play
    assert choose(GREEDY, obs) == "2D"


# -------------------------------------------------------------------- Smart


def test_smart_immediate_win():
    obs = position("2D 2S")  # late, leading
    scores = smart_scores(obs)
    assert scores["2D 2S"] == -1000
    # without the rule the pair would score 0.8*24 - 8 - 10 = 1.2 and the single 2D (-4.4) would be chosen
    assert scores["2D"] == pytest.approx(0.8 * 12 - 4 - 10)
    assert choose(SMART, obs) == "2D 2S"
    assert choose(SMART, position("2S", "AD")) == "2S"  # facing a trick: the last card wins


def test_smart_rank_sum_changes_choice():
    obs = position("8D TC JC QC KC AH")  # mid, leading; TC..AH is the only straight
    scores = smart_scores(obs)
    assert scores["8D"] == pytest.approx(0.8 * 5 - 4)
    assert scores["TC JC QC KC AH"] == pytest.approx(0.8 * 45 - 20)
    assert choose(SMART, obs) == "8D"
    assert argmin_without(obs, rank_term) == {"TC JC QC KC AH"}


@pytest.mark.parametrize(
    "hand, penalty",
    [
        ("3D 4S 5C 7H 9S JD KC AD AC AH 2C", 10),  # 11 cards: early
        ("3D 5C 9S AD AC AH 2C", 5),  # 7 cards: mid
    ],
    ids=["early", "mid"],
)
def test_smart_twos_penalty_changes_choice(hand, penalty):
    # facing KS only the aces (each splits the triple: pair/triple break) and 2C beat it
    obs = position(hand, "KS")
    scores = smart_scores(obs)
    phase = game_phase(len(parse_cards(hand)))
    assert scores["2C"] - scores["AD"] == pytest.approx(0.8 * (12 - 11) + penalty - (8 if phase == "early" else 4))
    assert choose(SMART, obs) == "AD"  # ties between AD, AC, AH go to the weakest
    assert argmin_without(obs, lambda p: penalty * twos(p)) == {"2C"}


def test_smart_twos_penalty_by_phase():
    # the same one-2 play pays +10 early, +5 mid, 0 late
    for hand, penalty in (("3D 4S 5C 7H 9S JD KC 2C 8H 6D QS", 10), ("3D 4S 5C 7H 9S 2C", 5), ("9S 2C", 0)):
        obs = position(hand, "AS")
        n = len(parse_cards(hand))
        orphans = low_orphans([c for c in parse_cards(hand) if c != parse_cards("2C")[0]])
        late = -20 if n <= 5 else 0  # late phase, and AS (a single ace) is a very strong trick
        # facing AS only 2C plays (plus pass)
        assert smart_scores(obs) == {"2C": pytest.approx(0.8 * 12 + penalty + 6 * orphans - 4 + late)}


def test_smart_break_pair_or_triple():
    early = position("3D 4C 5H 6S 8D 9C TH QC QH QS KD", "JD")
    scores = smart_scores(early)
    assert scores["QC"] - scores["KD"] == pytest.approx(0.8 * (9 - 10) + 8)
    assert choose(SMART, early) == "KD"
    assert argmin_without(early, lambda p: 8 if len(p) == 1 and p[0] >> 2 == 9 else 0) == {"QC", "QH", "QS"}
    mid = position("3D 4C 8D QC QH QS KD", "JD")
    assert smart_scores(mid)["QC"] - smart_scores(mid)["KD"] == pytest.approx(0.8 * (9 - 10) + 4)
    assert choose(SMART, mid) == "KD"
    late = position("QC QH QS KD", "JD")  # no pair/triple penalty late: split the triple
    assert choose(SMART, late) == "QC"
    assert broken_structures(parse_cards("QC"), parse_cards("QC QH QS KD")) == ["pair or triple"]


def test_smart_splitting_a_pair_is_not_a_pair_break():
    hand = parse_cards("3D 4C 8D QC QH KD")
    assert broken_structures(parse_cards("QC"), hand) == []
    assert break_penalty(parse_cards("QC"), hand) == 0
    assert choose(SMART, position("3D 4C 8D QC QH KD", "JD")) == "QC"
    # a pair played from a triple leaves one card: not a pair/triple break (no full house here)
    hand = parse_cards("3D 4C 8D QC QH QS")
    assert broken_structures(parse_cards("QC QH"), hand) == []


@pytest.mark.parametrize(
    "hand, trick, broken, spare, kind",
    [
        ("3D 4C 5H 6S 8D 9C QD QC QH QS KD", "JD", "QD", "KD", "four of a kind"),
        ("3D 4C 5H 6S 8D 8C 9C QC QH QS KD", "JD", "QC", "KD", "full house"),  # triple component
        ("3D 4C 5H 6S 8D 9C 9H 9S QC QH KD", "JD", "QC", "KD", "full house"),  # pair component
        ("3D 4C 5H 6S 8D 8H 9C TC QC KC AD", "JD", "QC", "AD", "flush"),
        ("3D 3S 4C 5H 6S 8C 9D TH JS QC AC", "7D", "8C", "AC", "straight"),
    ],
    ids=["four-of-a-kind", "full-house-triple", "full-house-pair", "flush", "straight"],
)
def test_smart_five_card_break_changes_choice(hand, trick, broken, spare, kind):
    cards = parse_cards(hand)
    assert game_phase(len(cards)) == "early"
    assert kind in broken_structures(parse_cards(broken), cards)
    assert broken_structures(parse_cards(spare), cards) == []
    assert break_penalty(parse_cards(broken), cards) == 20
    obs = position(hand, trick)
    scores = smart_scores(obs)
    expected = rank_term(parse_cards(broken)) - rank_term(parse_cards(spare)) + 20
    assert scores[broken] - scores[spare] == pytest.approx(expected)
    assert choose(SMART, obs) == spare
    without = argmin_without(obs, lambda p: break_penalty(p, cards))
    assert spare not in without and broken in without


def test_five_card_break_penalty_by_phase_and_once_only():
    # 3D breaks the diamond flush and splits the triple of 3s (the 34567 window keeps 3C and 3H)
    hand = parse_cards("3D 3C 3H 4D 5D 6D 7D")
    assert broken_structures(parse_cards("3D"), hand) == ["flush", "pair or triple"]
    assert break_penalty(parse_cards("3D"), hand) == 8  # mid: 8 once, not per structure
    early = hand + parse_cards("9S TS JS QS")
    assert break_penalty(parse_cards("3D"), early) == 20
    late = parse_cards("3D 4D 5D 6D 8D")
    assert broken_structures(parse_cards("3D"), late) == ["flush"]
    assert break_penalty(parse_cards("3D"), late) == 4
    assert break_penalty(parse_cards("QC"), parse_cards("QC QH QS KD")) == 0  # pair/triple: 0 late


def test_structure_definitions():
    # a flush of six: playing one card still leaves five
    six = parse_cards("3C 5C 7C 9C JC KC 4D")
    assert broken_structures(parse_cards("3C"), six) == []
    assert broken_structures(parse_cards("3C 4D"), six) == []  # not legal, but the rule is about the suit count
    # a straight window stays whole while a spare card of the played rank remains
    hand = parse_cards("8C 8H 9D TH JS QC")
    assert broken_structures(parse_cards("8C"), hand) == []
    assert broken_structures(parse_cards("9D"), hand) == ["straight"]
    # 2 is never part of a straight window under the default rules; it is under "to_two"
    jqka2 = parse_cards("JD QC KH AS 2D 4C")
    assert broken_structures(parse_cards("2D"), jqka2) == []
    assert broken_structures(parse_cards("2D"), jqka2, Rules(straights="to_two")) == ["straight"]
    # playing the whole pair or triple of a full house does not break it
    fh = parse_cards("9D 9C 9H QC QH 4S")
    assert broken_structures(parse_cards("QC QH"), fh) == []
    assert broken_structures(parse_cards("9D 9C 9H"), fh) == []
    assert broken_structures(parse_cards("9D 9C"), fh) == ["full house"]
    # five-card plays never pay a break penalty
    hand = parse_cards("3D 3C 4D 5H 6S 7C 9H TH JH QH KH")
    assert break_penalty(parse_cards("3D 4D 5H 6S 7C"), hand) == 0
    assert break_penalty(parse_cards("9H TH JH QH KH"), hand) == 0


def test_smart_low_orphans_changes_choice():
    # splitting the 6s leaves a lone 6 (a low orphan): +6
    obs = position("3C 4H 6C 6H 9D JS", "5D")
    scores = smart_scores(obs)
    assert scores["6C"] == pytest.approx(0.8 * 3 - 4 + 6 * 3)
    assert scores["9D"] == pytest.approx(0.8 * 6 - 4 + 6 * 2)
    assert choose(SMART, obs) == "9D"
    hand = parse_cards("3C 4H 6C 6H 9D JS")
    removed = argmin_without(obs, lambda p: 6 * low_orphans([c for c in hand if c not in p]))
    assert removed == {"6C", "6H"}


def test_low_orphans_definition():
    assert low_orphans(parse_cards("3D 4C 5H 6S 7D 8C")) == 5  # ranks 3..7 once each; 8 is not low
    assert low_orphans(parse_cards("3D 3C 7H")) == 1
    assert low_orphans(()) == 0


def test_smart_shed_bonus_changes_choice():
    obs = position("3D 3C 7D 7C 7H 2S")  # mid, leading
    scores = smart_scores(obs)
    assert scores["3D 3C 7D 7C 7H"] == pytest.approx(0.8 * 12 - 20)
    assert scores["3D 3C"] == pytest.approx(-8)
    assert choose(SMART, obs) == "3D 3C 7D 7C 7H"
    assert argmin_without(obs, lambda p: -4 * len(p)) == {"3D 3C"}


def test_smart_late_phase_bonus():
    # -10 for every play in the late phase: all scores shift together, the choice does not change
    obs = position("9S TD QC 2C", "8D")
    scores = smart_scores(obs)
    assert scores["9S"] == pytest.approx(0.8 * 6 - 4 - 10)
    assert scores["2C"] == pytest.approx(0.8 * 12 - 4 - 10)
    assert choose(SMART, obs) == "9S"
    assert argmin_without(obs, lambda p: -10) == {"9S"}


def test_smart_very_strong_trick_bonus():
    hand = "KS AC AD 2H"  # late; against KD or QS the candidates are the same four cards
    strong, plain = smart_scores(position(hand, "KD")), smart_scores(position(hand, "QS"))
    assert set(strong) == set(plain) == {"KS", "AD", "AC", "2H"}
    assert all(strong[k] == pytest.approx(plain[k] - 10) for k in plain)
    assert choose(SMART, position(hand, "KD")) == choose(SMART, position(hand, "QS")) == "KS"
    # only in the late phase
    mid = "KS AC AD 2H 8C 9D"
    assert smart_scores(position(mid, "KD")) == smart_scores(position(mid, "QS"))


def test_very_strong_definition():
    strong = ["KD", "AS", "2D", "2D 2C", "2D 2C 2H", "3D 4C 5H 6S 7D", "3D 5D 7D 9D JD", "3D 3C 3H 4D 4C"]
    weak = ["QS", "AD AS", "KD KC KH", "3D 3C", "3D 3C 3H"]
    assert all(is_very_strong(parse_play(t)) for t in strong)
    assert not any(is_very_strong(parse_play(t)) for t in weak)
    assert not is_very_strong(None)
    assert is_very_strong(parse_play("9D 9C 9H 9S"), Rules(four_card_plays=True))  # four-card quads
    assert is_bomb(parse_play("9D 9C 9H 9S 3D")) and is_bomb(parse_play("3S 4S 5S 6S 7S"))
    assert is_bomb(parse_play("9D 9C 9H 9S"), Rules(four_card_plays=True))
    assert not is_bomb(parse_play("3D 3C 3H 4D 4C")) and not is_bomb(None)


def test_smart_bomb_trick_penalty_and_pass():
    # +25 to every play against a four of a kind; then the pass rule returns PASS
    hand = "3D 4C 5H 6S 8D JD JC JH JS KD AC"  # early
    obs = position(hand, "9D 9C 9H 9S 7C")
    scores = smart_scores(obs)
    orphans = 6 * 4  # 3, 4, 5 and 6 stay single unless the kicker is one of them
    assert scores["JD JC JH JS KD"] == pytest.approx(0.8 * (4 * 8 + 10) + orphans - 20 + 25)
    assert scores["3D JD JC JH JS"] == pytest.approx(0.8 * (4 * 8 + 0) + 6 * 3 - 20 + 25)
    assert choose(SMART, obs) == "pass"
    assert choose(GREEDY, obs) == "3D JD JC JH JS"
    # the same against a straight flush (only a higher straight flush beats it)
    obs = position("3D 4C 5D 6D 8H 9H TH JH QH KD AC", "3S 4S 5S 6S 7S")
    assert smart_scores(obs) == {"8H 9H TH JH QH": pytest.approx(0.8 * 35 + 6 * 4 - 20 + 25)}
    assert choose(SMART, obs) == "pass"
    assert choose(GREEDY, obs) == "8H 9H TH JH QH"
    # and the +25 shifts every score equally: the argmin itself is unchanged by it
    assert argmin_without(position(hand, "9D 9C 9H 9S 7C"), lambda p: 25) == {"3D JD JC JH JS"}


def test_smart_bomb_pass_even_with_a_winning_play():
    obs = position("JD JC JH JS 4C", "9D 9C 9H 9S 7C")  # late; the quads would empty the hand
    assert smart_scores(obs)["4C JD JC JH JS"] == -1000
    assert choose(SMART, obs) == "pass"
    assert choose(GREEDY, obs) == "4C JD JC JH JS"


def test_smart_pass_rule_early_twos():
    # early, facing a pair of aces: only 2D 2C beats it; s = 19.2 + 20 + 4 orphans*6 - 8 = 55.2 > 30
    early = position("2D 2C 3D 4C 5H 6S 8D 9C JH QS KD", "AD AS")
    assert smart_scores(early) == {"2D 2C": pytest.approx(0.8 * 24 + 20 + 24 - 8)}
    assert choose(SMART, early) == "pass"
    # mid phase: the rule does not apply
    mid = position("2D 2C 3D 4C 5H 6S 8D 9C JH QS", "AD AS")
    assert choose(SMART, mid) == "2D 2C"
    # a single 2 early never triggers it
    assert choose(SMART, position("2D 3D 4C 5H 6S 8D 9C JH QS KD KC", "AS")) == "2D"


def test_smart_pass_rule_threshold_is_strict():
    trick = "4D 4C 4H 3D 3C"
    # FH 555 22: 0.8*30 + 20 (two 2s early) + 6 (6S is a low orphan) - 20 = 30, not > 30: play
    at_threshold = position("5D 5C 5H 2D 2C 6S 8D 9C JH QS KD", trick)
    assert smart_scores(at_threshold) == {"5D 5C 5H 2D 2C": 30}
    assert choose(SMART, at_threshold) == "5D 5C 5H 2D 2C"
    # with a second low orphan (7D for 8D) the score is 36 > 30: pass
    above = position("5D 5C 5H 2D 2C 6S 7D 9C JH QS KD", trick)
    assert smart_scores(above) == {"5D 5C 5H 2D 2C": 36}
    assert choose(SMART, above) == "pass"


def test_smart_ties_go_to_the_weakest_play():
    obs = position("QC QH QS KD", "JD")  # QC, QH, QS score the same
    scores = smart_scores(obs)
    assert scores["QC"] == scores["QH"] == scores["QS"] < scores["KD"]
    assert choose(SMART, obs) == "QC"


def test_smart_single_action_and_candidate_view_agree():
    obs = position("3D 4C 8D QC QH QS KD", "JD")
    bare = position("3D 4C 8D QC QH QS KD", "JD", candidate_view=False)
    assert SMART.act(obs) == SMART.act(bare)
    assert smart_s(obs) == smart_s(bare)
    one = position("7S")  # a single card, leading: the only legal action
    assert choose(SMART, one) == "7S"


def test_smart_under_variant_rules():
    rules = Rules(straights="to_two")
    hand = "JD QC KH AS 2D 4C 5H 6S 8D 9C TD"  # early; JQKA2 is a straight window only under to_two
    default, variant = smart_scores(position(hand, "KS")), smart_scores(position(hand, "KS", rules=rules), rules)
    assert variant["2D"] - default["2D"] == pytest.approx(20)


# ------------------------------------- Smart's fast scoring against a plain re-statement


def _plain_break_penalty(play, hand, phase, rules):
    """BreakPenalty restated directly from the SmartPolicy docstring (slow and simple)."""
    if len(play) >= 5:
        return 0
    n_r = {r: sum(1 for c in hand if c >> 2 == r) for r in range(13)}
    k_r = {r: sum(1 for c in play if c >> 2 == r) for r in range(13)}
    m_s = {s: sum(1 for c in hand if c & 3 == s) for s in range(4)}
    j_s = {s: sum(1 for c in play if c & 3 == s) for s in range(4)}
    quads = any(n_r[r] == 4 and 0 < k_r[r] < 4 for r in range(13))
    has_full_house = any(n >= 3 for n in n_r.values()) and sum(n >= 2 for n in n_r.values()) >= 2
    full_house = has_full_house and any(k_r[r] > 0 and 0 < n_r[r] - k_r[r] < min(n_r[r], 3) for r in range(13))
    flush = any(m_s[s] >= 5 and j_s[s] >= 1 and m_s[s] - j_s[s] < 5 for s in range(4))
    from big2_env.engine.combos import straight_shapes

    windows = [w for w in straight_shapes(rules.straights) if all(n_r[r] > 0 for r in w)]
    straight = any(any(k_r[r] > 0 and n_r[r] == k_r[r] for r in w) for w in windows)
    if quads or full_house or flush or straight:
        return {"early": 20, "mid": 8, "late": 4}[phase]
    single_or_pair = any(
        k_r[r] > 0 and ((len(play) == 1 and n_r[r] - k_r[r] >= 2) or (len(play) <= 2 and n_r[r] - k_r[r] >= 3))
        for r in range(13)
    )
    return {"early": 8, "mid": 4, "late": 0}[phase] if single_or_pair else 0


def _plain_score(play, hand, trick, rules):
    if len(play) == len(hand):
        return -1000.0
    phase = game_phase(len(hand))
    rest = [c for c in hand if c not in play]
    s = 0.8 * sum(c >> 2 for c in play)
    s += {"early": 10, "mid": 5, "late": 0}[phase] * twos(play)
    s += _plain_break_penalty(play, hand, phase, rules)
    s += 6 * sum(1 for r in range(5) if sum(1 for c in rest if c >> 2 == r) == 1)
    s -= 4 * len(play)
    if phase == "late":
        s -= 10
        if is_very_strong(trick, rules):
            s -= 10
    if is_bomb(trick, rules):
        s += 25
    return s


@pytest.mark.parametrize("rules", [Rules(), Rules(straights="to_two", four_card_plays=True)], ids=["paper", "variant"])
def test_smart_scores_match_plain_restatement(rules):
    policies = [SmartPolicy(rules), GreedyPolicy(rules), RandomPolicy(seed=7), SmartPolicy(rules)]
    checked = 0
    for g in range(30):
        game = Game(rules, seed=500 + g)
        while not game.is_over:
            obs = observation_dict(game)
            decoded = decode_observation(obs)
            scores = smart_s(obs, rules)
            for action, play in zip(decoded.actions, decoded.plays):
                if play:
                    assert scores[action] == pytest.approx(_plain_score(play, decoded.hand, decoded.trick, rules))
                    checked += 1
            action = policies[game.current_player].act(obs)
            game.play(Decision(game).play_for_action(action))
    assert checked > 1000


@pytest.mark.parametrize("rules", [Rules(), Rules(straights="to_two", four_card_plays=True), Rules.preset("charlesworth")],
                         ids=["paper", "variant", "charlesworth"])
def test_smart_policy_chooses_and_scores_as_the_reference_smart(rules):
    """SmartPolicy (the compiled kernel) against the pure-Python Smart of tests/reference, at every
    decision of games of Smart, Greedy and Random seats, with the plays in the observation's order."""
    from tests.reference.smart import smart_choice, smart_ranking
    from tests.reference.smart import smart_scores as reference_scores

    from big2_env.players.smart import smart_ranking as product_ranking

    policies = [SmartPolicy(rules), GreedyPolicy(rules), RandomPolicy(seed=3), SmartPolicy(rules)]
    decisions = 0
    for g in range(20):
        game = Game(rules, seed=900 + g)
        while not game.is_over:
            obs = observation_dict(game)
            decoded = decode_observation(obs)
            if len(decoded.plays) > 1:
                engine_order = [e[1] for e in game.legal_entries()]  # the order the reference's tie rule reads
                expected = engine_order[smart_choice(decoded.hand, decoded.trick, engine_order, rules)]
                action = SmartPolicy(rules).act(obs)
                assert decoded.plays[decoded.actions.index(action)] == expected
                scores = smart_s(obs, rules)
                oracle = reference_scores(decoded.hand, decoded.trick, decoded.plays, rules)
                assert {decoded.plays[decoded.actions.index(a)]: s for a, s in scores.items()} == pytest.approx(oracle)
                ranked = product_ranking(decoded.hand, decoded.trick, decoded.plays, rules)
                assert ranked == smart_ranking(decoded.hand, decoded.trick, decoded.plays, rules)
                decisions += 1
            game.play(Decision(game).play_for_action(policies[game.current_player].act(obs)))
    assert decisions > 500


def test_decode_rejects_inconsistent_observation():
    obs = position("3D 4D", "2S", candidate_view=False)
    obs["action_mask"] = obs["action_mask"].copy()
    obs["action_mask"][12] = 1  # the single in hand slot 12: the hand has two cards
    with pytest.raises(ValueError, match="slot 12"):
        decode_observation(obs)
    empty = dict(obs, action_mask=np.zeros_like(obs["action_mask"]))
    with pytest.raises(ValueError, match="no legal action"):
        SmartPolicy().act(empty)
