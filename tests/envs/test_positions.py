"""Games started from positions (:class:`big2_env.envs.positions.PositionGames`): a position of a real
game, given the same moves, goes on exactly as that game did, in every view."""

from __future__ import annotations

import numpy as np
import pytest

from big2_env import Game, Rules
from big2_env.envs.positions import PositionGames
from big2_env.observations.decision import Decision
from big2_env.observations.extended import extended_observation
from big2_env.observations.paper import PASS_ACTION, action_index
from big2_env.observations import observation_dict
from big2_env.players import GreedyPolicy, SmartPolicy
from tests.reference.charlesworth_view import network_input
from tests.reference.paper_view import observation

RULES = [Rules(), Rules.preset("charlesworth"), Rules(pass_locks=True, lone_triples=False, four_card_plays=True)]


def _mask(cards) -> int:
    return sum(1 << c for c in cards)


def _random_game(rules: Rules, seed: int) -> tuple[Game, list[int], Game]:
    """A finished game of random moves, its starting hands (masks) and a copy of it at the start."""
    game = Game(rules, seed=seed)
    start = game.copy()
    hands = [_mask(h) for h in game.hands]
    rng = np.random.default_rng(seed)
    while not game.is_over:
        game.play_index(int(rng.integers(len(game.legal_plays()))))
    return game, hands, start


def _view(game: Game, player: int, kind: str) -> np.ndarray:
    if kind == "paper":
        return observation(game, player)
    if kind == "extended":
        return extended_observation(game, player)
    history = [((seat - player) % 4, play) for seat, play in game.history]
    return network_input(history, game.hand(player))


@pytest.mark.parametrize("kind", ["paper", "extended", "charlesworth"])
@pytest.mark.parametrize("rules", RULES, ids=["paper", "charlesworth", "house"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_position_of_a_real_game_goes_on_as_that_game_did(rules, kind, seed):
    finished, hands, replay = _random_game(rules, seed)
    cut = len(finished.history) // 3 + seed
    moves = [_mask(play) for _, play in finished.history[:cut]]
    for seat, play in finished.history[:cut]:
        replay.play(list(play))
    games = PositionGames(rules, observation=kind)
    obs = games.start(np.array([hands, hands, hands]), finished.history[0][0], moves)
    for seat, play in finished.history[cut:]:
        player = replay.current_player
        assert (obs["current_player"] == player).all() and games.active.all()
        np.testing.assert_array_equal(obs["observation"][1], _view(replay, player, kind))
        np.testing.assert_array_equal(obs["action_mask"][2], Decision(replay).action_mask())
        action = PASS_ACTION if not play else action_index(play, replay.hand(player))
        replay.play(list(play))
        obs = games.step(np.full(3, action))
    assert not games.active.any() and replay.is_over
    assert (games.scores == replay.scores()).all() and (games.hands() == [_mask(h) for h in replay.hands]).all()


@pytest.mark.parametrize("rules", RULES, ids=["paper", "charlesworth", "house"])
def test_heuristic_actions_are_the_python_heuristics_moves(rules):
    """At every position of a few games, in several games side by side, the compiled Greedy and Smart
    choose what GreedyPolicy and SmartPolicy choose from the same table; an ended game gets 0."""
    policies = {"greedy": GreedyPolicy(rules), "smart": SmartPolicy(rules)}
    checked = left_out = 0
    for seed in range(4):
        finished, hands, replay = _random_game(rules, 10 + seed)
        first = finished.history[0][0]
        games = PositionGames(rules, observation="paper")
        games.start(np.array([hands, hands]), first, [])
        for seat, play in finished.history:
            for kind, policy in policies.items():
                assert (games.heuristic_actions(kind) == policy.act(observation_dict(replay))).all()
                part = games.heuristic_actions(kind, np.array([False, True]))  # game 0 left out
                assert part[0] == 0 and part[1] == policy.act(observation_dict(replay))
                left_out += int(part[1] != 0)
            checked += 1
            action = PASS_ACTION if not play else action_index(play, replay.hand(replay.current_player))
            replay.play(list(play))
            games.step(np.full(2, action))
        assert not games.active.any() and (games.heuristic_actions("smart") == 0).all()
    assert checked > 100 and left_out > 10
    with pytest.raises(ValueError, match="greedy, smart"):
        games.heuristic_actions("random")
    with pytest.raises(ValueError, match="bool array of shape"):
        games.heuristic_actions("smart", np.array([1, 0]))


def test_each_game_plays_its_own_deal_and_ended_games_stay_ended():
    finished, hands, _ = _random_game(Rules(), 5)
    moves = [_mask(play) for _, play in finished.history[:8]]
    played = [0, 0, 0, 0]
    for seat, play in finished.history[:8]:
        played[seat] |= _mask(play)
    rng = np.random.default_rng(0)
    rows = []
    for _ in range(6):  # the unseen cards of seats 1..3 (those not yet played) shuffled among them
        held = [hands[s] & ~played[s] for s in range(4)]
        pool = [c for s in (1, 2, 3) for c in range(52) if held[s] >> c & 1]
        rng.shuffle(pool)
        row, start = [hands[0]], 0
        for s in (1, 2, 3):
            count = held[s].bit_count()
            row.append(_mask(pool[start:start + count]) | played[s])
            start += count
        rows.append(row)
    games = PositionGames("paper")
    obs = games.start(np.array(rows), finished.history[0][0], moves)
    first_views = obs["observation"].copy()
    while games.active.any():
        before = games.scores.copy()
        ended = ~games.active
        obs = games.step(np.where(games.active, obs["action_mask"].argmax(axis=1), 0))
        assert (games.scores[ended] == before[ended]).all()
    assert (games.scores.sum(axis=1) == 0).all() and (games.scores.max(axis=1) > 0).all()
    mover = finished.history[8][0] if len(finished.history) > 8 else 0
    if mover == 0:  # seat 0's hand is the same in every deal: so is its first view
        assert (first_views == first_views[0]).all()


def test_bad_positions_and_actions_are_refused_with_a_message_and_change_nothing():
    finished, hands, _ = _random_game(Rules(), 7)
    moves = [_mask(play) for _, play in finished.history[:6]]
    first = finished.history[0][0]
    games = PositionGames("paper")
    obs = games.start(np.array([hands]), first, moves)
    state = games.hands()
    bad_hands = [[hands[1], hands[0], hands[2], hands[3]], [hands[0] | 1 << 51, hands[1], hands[2], hands[3]]]
    card = (moves[0] & -moves[0]).bit_length() - 1  # a card the first mover played, given to the next seat instead
    other = (hands[(first + 1) % 4] & -hands[(first + 1) % 4]).bit_length() - 1
    moved = list(hands)
    moved[first] ^= 1 << card | 1 << other
    moved[(first + 1) % 4] ^= 1 << card | 1 << other
    for bad, message in [
        (dict(hands=np.array([hands[:3]]), first=first, moves=moves), "shape"),
        (dict(hands=np.array([bad_hands[1]]), first=first, moves=moves), "exactly one seat"),
        (dict(hands=np.array([hands]), first=4, moves=moves), "seat 0..3"),
        (dict(hands=np.array([hands]), first=first, moves=moves[:1] + [moves[5]]), "not a legal move"),
        (dict(hands=np.array([hands]), first=first, moves=[-1]), "card masks"),
        (dict(hands=np.array(bad_hands[:1]), first=first, moves=moves), "3D"),
        (dict(hands=np.array([hands, moved]), first=first, moves=moves), f"hands.1. does not give seat {first}"),
    ]:
        with pytest.raises(ValueError, match=message):
            games.start(**bad)
        assert (games.hands() == state).all()
    illegal = int(np.flatnonzero(~obs["action_mask"][0])[0])
    with pytest.raises(ValueError, match="not legal in game 0"):
        games.step(np.array([illegal]))
    with pytest.raises(ValueError, match="shape"):
        games.step(np.array([1, 2]))
    assert (games.hands() == state).all()
