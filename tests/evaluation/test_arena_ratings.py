"""The arena's ratings are right, not only running: known strengths recovered, no dependence on game order, both
scorings, and agreement with the head-to-head matrix (big2_env.evaluation.arena.fits and .ratings)."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from big2_env.evaluation.arena import run_arena
from big2_env.evaluation.arena.fits import deal_resamples, plackett_luce_fit, points_fit
from big2_env.evaluation.arena.ratings import head_to_head, order_conflicts, rate
from big2_env.evaluation.arena.records import GameRecord

THETA = (3.0, 1.5, 0.5, 0.0, -1.0, -4.0)
"""Points strengths of six synthetic agents (summing to zero)."""
STRENGTH = (0.8, 0.4, 0.1, 0.0, -0.3, -1.0)
"""Plackett-Luce log strengths of six synthetic agents (mean zero)."""
NAMES = tuple(f"agent{i}" for i in range(len(THETA)))


def _seatings(n: int, deals: int):
    """(deal, rotation, agents by seat) for every table of n agents on every deal, in the four rotations."""
    for deal in range(deals):
        for table in itertools.combinations(range(n), 4):
            for rotation in range(4):
                yield deal, rotation, [table[(seat - rotation) % 4] for seat in range(4)]


def _record(number: int, deal: int, rotation: int, seats: list[int], order: list[int], scores: list[int]) -> GameRecord:
    return GameRecord(number, deal, 1000 + deal, 0, rotation, tuple(NAMES[a] for a in seats), tuple(order),
                      tuple(scores), 50)


def points_games(deals: int, seed: int, pairwise: np.ndarray | None = None) -> list[GameRecord]:
    """Games from the points model: a seat's expected score is its agent's theta minus the table's mean theta (or,
    given an antisymmetric ``pairwise``, the sum of its row against the other seats' agents over 4), plus the deal's
    hand values (shared by its games: the luck of the cards) and noise, the four scores summing to zero."""
    rng = np.random.default_rng(seed)
    hands = {}
    games = []
    for deal, rotation, seats in _seatings(len(THETA), deals):
        if deal not in hands:
            hand = rng.normal(0.0, 4.0, 4)
            hands[deal] = hand - hand.mean()
        if pairwise is None:
            theta = np.array([THETA[a] for a in seats])
            expected = theta - theta.mean()
        else:
            expected = np.array([sum(pairwise[a][b] for b in seats) / 4 for a in seats])
        value = expected + hands[deal] + rng.normal(0.0, 5.0, 4)
        value -= value.mean()
        scores = np.round(value).astype(int)
        scores[3] = -scores[:3].sum()
        order = sorted(range(4), key=lambda s: (-scores[s], s))
        games.append(_record(len(games), deal, rotation, seats, order, [int(v) for v in scores]))
    return games


def plackett_luce_games(deals: int, seed: int) -> list[GameRecord]:
    """Games whose finishing orders are drawn from the Plackett-Luce model with strengths ``STRENGTH`` (scores
    that agree with the order, for the records' sake)."""
    rng = np.random.default_rng(seed)
    games = []
    for deal, rotation, seats in _seatings(len(STRENGTH), deals):
        left = list(range(4))
        order = []
        while left:
            weights = np.exp([STRENGTH[seats[s]] for s in left])
            pick = left[int(rng.choice(len(left), p=weights / weights.sum()))]
            order.append(pick)
            left.remove(pick)
        scores = [0] * 4
        for place, seat in enumerate(order[1:], start=1):
            scores[seat] = -place
        scores[order[0]] = 6
        games.append(_record(len(games), deal, rotation, seats, order, scores))
    return games


def _inside(fit, truth) -> list[bool]:
    return [lo <= t <= hi for lo, hi, t in zip(fit.low, fit.high, truth)]


# ---------------------------------------------------------------- known strengths


def test_the_points_fit_recovers_known_strengths_inside_its_intervals():
    games = points_games(deals=40, seed=0)  # 15 tables x 40 deals x 4 rotations
    fit = points_fit(NAMES, games)
    assert sum(fit.value) == pytest.approx(0.0, abs=1e-9)
    assert all(_inside(fit, THETA)), (fit.value, fit.low, fit.high)
    assert max(h - lo for lo, h in zip(fit.low, fit.high)) < 1.0  # and narrow enough to mean something
    assert np.argsort(fit.value).tolist() == np.argsort(THETA).tolist()


def test_the_plackett_luce_fit_recovers_known_strengths_inside_its_intervals():
    games = plackett_luce_games(deals=40, seed=0)
    fit = plackett_luce_fit(NAMES, games)
    assert sum(fit.value) == pytest.approx(0.0, abs=1e-9)
    assert all(_inside(fit, STRENGTH)), (fit.value, fit.low, fit.high)
    assert np.argsort(fit.value).tolist() == np.argsort(STRENGTH).tolist()


def test_the_intervals_cover_the_truth_about_95_times_in_100():
    """Over many synthetic boards, the 95% bootstrap intervals hold the true strength about 95% of the time."""
    points_hits, placing_hits = [], []
    for seed in range(1, 13):
        points_hits += _inside(points_fit(NAMES, points_games(deals=20, seed=seed), draws=400), THETA)
        placing_hits += _inside(plackett_luce_fit(NAMES, plackett_luce_games(deals=20, seed=seed), draws=400), STRENGTH)
    assert 0.85 <= np.mean(points_hits) <= 1.0 and 0.85 <= np.mean(placing_hits) <= 1.0, (
        np.mean(points_hits), np.mean(placing_hits))


def test_the_points_fit_is_least_squares_over_every_seat():
    """Against a direct least-squares solve of the model (one row per seat of every game), with agents in two
    seats of a game (a pool of three): the thetas minimise the squared error and sum to zero."""
    rng = random.Random(4)
    names = ("a", "b", "c")
    games = []
    for number in range(60):
        seats = tuple(rng.choice(names) for _ in range(4))
        scores = [rng.randint(-12, 0) for _ in range(3)]
        scores.append(-sum(scores))
        order = tuple(sorted(range(4), key=lambda s: -scores[s]))
        games.append(GameRecord(number, number // 4, number, 0, number % 4, seats, order, tuple(scores), 40))
    rows, targets = [], []
    for game in games:
        counts = np.array([game.agents.count(a) for a in names], dtype=float)
        for seat, agent in enumerate(game.agents):
            rows.append(np.eye(3)[names.index(agent)] - counts / 4)
            targets.append(game.scores[seat])
    rows.append(np.ones(3))  # the thetas sum to zero
    targets.append(0.0)
    direct = np.linalg.lstsq(np.array(rows), np.array(targets), rcond=None)[0]
    assert points_fit(names, games).value == pytest.approx(direct.tolist(), abs=1e-9)


# ---------------------------------------------------------------- order, scorings, head to head


def test_shuffling_the_games_changes_no_rating():
    games = points_games(deals=6, seed=3)
    shuffled = games[:]
    random.Random(0).shuffle(shuffled)
    assert shuffled != games
    assert rate(NAMES, shuffled) == rate(NAMES, games)
    assert rate(NAMES, shuffled, rating="plackett-luce") == rate(NAMES, games, rating="plackett-luce")


def test_the_bootstrap_resamples_whole_deals():
    counts = deal_resamples(7, draws=50)
    assert counts.shape == (50, 7) and set(counts.sum(axis=1)) == {7}
    assert (deal_resamples(7, draws=50) == counts).all()  # seeded: the same games, the same intervals


@pytest.mark.parametrize("scoring", ["paper", "hk"])
def test_the_points_rating_under_each_scoring(tmp_path, scoring):
    """Both scorings are zero-sum, so the points fit holds under each. Five agents, every table every deal: the
    design is balanced, and theta is the mean score times 4 (n - 1) / (3 n), exactly."""
    agents = ["random", "greedy", "smart", "search:4", "search:16"]
    result = run_arena(agents, deals=2, seed=3, out=tmp_path, rules={"scoring": scoring}, picture=False)
    assert all(sum(r.scores) == 0 for r in result.records)
    assert sum(r.points for r in result.ratings) == pytest.approx(0.0, abs=1e-9)
    for row in result.ratings:
        assert row.points == pytest.approx(row.mean_score * 4 * 4 / (3 * 5), abs=1e-9)
    assert result.conflicts == []  # the real games: separated intervals agree with the head to head
    losers = {score for r in result.records for seat, score in enumerate(r.scores) if seat != r.order[0]}
    allowed = set(range(-13, 0)) if scoring == "paper" else set(range(-9, 0)) | {-20, -22, -24, -39}
    assert losers <= allowed
    if scoring == "hk":  # the Hong Kong multipliers are in play: a loser left with 10 or more cards pays double
        assert min(losers) <= -20


def test_where_intervals_separate_the_order_agrees_with_the_head_to_head():
    games = points_games(deals=30, seed=5)
    rows = rate(NAMES, games)
    matrix = head_to_head(NAMES, games)
    separated = [(a.agent, b.agent) for a in rows for b in rows if a.points_ci[0] > b.points_ci[1]]
    assert len(separated) >= 10  # most pairs of the six are told apart
    assert order_conflicts(rows, matrix) == []
    index = {a: i for i, a in enumerate(NAMES)}
    assert all(matrix.mean[index[a]][index[b]] > 0 for a, b in separated)


def test_a_head_to_head_against_the_order_is_reported():
    """Non-transitive strengths: agent0 beats the other four by 8 points and agent1 beats them by 1, but agent1
    beats agent0 by 10. Against the pool agent0 is the stronger (rows: 22 against 14), yet at a table with both
    agent0 scores (-20 + 2 * 7) / 4 = -1.5 a game less than agent1: order_conflicts says so."""
    pairwise = np.zeros((6, 6))
    for other in range(2, 6):
        pairwise[0][other], pairwise[1][other] = 8.0, 1.0
    pairwise[1][0] = 10.0
    pairwise -= pairwise.T
    games = points_games(deals=30, seed=6, pairwise=pairwise)
    rows = rate(NAMES, games)
    assert rows[0].agent == "agent0" and rows[0].points_ci[0] > next(r for r in rows if r.agent == "agent1").points_ci[1]
    assert ("agent0", "agent1") in order_conflicts(rows, head_to_head(NAMES, games))


def test_ratings_refuse_an_unknown_rating_or_agent():
    games = points_games(deals=1, seed=0)
    with pytest.raises(ValueError, match="rating must be one of points, plackett-luce, openskill; got 'elo'"):
        rate(NAMES, games, rating="elo")
    with pytest.raises(ValueError, match="seats 'agent5', which is not among the agents"):
        points_fit(NAMES[:5], games)
