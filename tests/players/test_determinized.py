"""The determinised search's parts: the loop's schedule (budget, batches, halving, first deals), how it
chooses (best mean, leaving the blueprint), which candidates it keeps, and the dealers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from big2_env.engine.cards import mask_to_cards
from big2_env.observations.decision import observation_dict
from big2_env.players.dealers import PassConsistentDealer, UniformDealer
from big2_env.players.determinized import best_mean, determinized_search, leave_blueprint, top_candidates
from big2_env.players.search import public_state
from big2_env.engine.rules import Rules
from tests.reference.dealers import deal_consistent, deal_unseen

from .test_search import position


class CountingDealer:
    """Deals ``n`` rows numbered on from the last (seat 1 holds the row's number), recording each call's ``n``."""

    def __init__(self) -> None:
        self.calls: list[int] = []
        self.dealt = 0

    def deal(self, n: int) -> np.ndarray:
        self.calls.append(n)
        rows = np.zeros((n, 4), dtype=np.int64)
        rows[:, 1] = np.arange(self.dealt, self.dealt + n)
        self.dealt += n
        return rows


class IndexValuer:
    """Candidate ``i`` is worth ``i`` on every deal; records the deals and the alive candidates it was asked about."""

    def __init__(self) -> None:
        self.asked: list[tuple[list[int], list[int]]] = []

    def values(self, deals: np.ndarray, alive: list[int]) -> np.ndarray:
        self.asked.append((deals[:, 1].tolist(), list(alive)))
        return np.tile(np.array(alive, dtype=np.float64), (len(deals), 1))


def test_without_halving_every_candidate_gets_the_same_deals_in_batches_of_at_most_batch():
    dealer, valuer = CountingDealer(), IndexValuer()
    tally = determinized_search(3, dealer, valuer, rollouts=40, batch=5)
    assert dealer.calls == [5, 5, 3]  # 40 // 3 = 13 deals
    assert tally.counts == [13, 13, 13] and tally.rollouts == 39 and tally.rounds == 1
    assert tally.table().shape == (13, 3) and tally.means() == [0.0, 1.0, 2.0]
    assert all(alive == [0, 1, 2] for _, alive in valuer.asked)


def test_a_budget_below_the_candidates_still_plays_one_deal():
    dealer = CountingDealer()
    tally = determinized_search(5, dealer, IndexValuer(), rollouts=3)
    assert dealer.calls == [1] and tally.counts == [1] * 5


def test_halving_keeps_the_better_half_for_the_next_round():
    dealer, valuer = CountingDealer(), IndexValuer()
    tally = determinized_search(4, dealer, valuer, rollouts=40, halving=True)
    assert tally.rounds == 2 and dealer.calls == [5, 10]  # 20 rollouts over 4, then 20 over the 2 best
    assert [alive for _, alive in valuer.asked] == [[0, 1, 2, 3], [2, 3]]
    assert tally.counts == [5, 5, 15, 15] and tally.alive == [2, 3]
    assert best_mean(tally) == 3
    assert tally.table().shape == (5, 4)  # only the first round valued every candidate


def test_the_deals_already_made_are_used_first():
    dealer, valuer = CountingDealer(), IndexValuer()
    first = [[0, 99, 0, 0]]
    determinized_search(2, dealer, valuer, rollouts=8, first=first)
    assert valuer.asked[0][0] == [99, 0, 1, 2] and dealer.calls == [3]


def test_a_time_budget_deals_fixed_batches_until_the_next_would_not_fit():
    clock = [0.0]

    class TimedValuer(IndexValuer):
        def values(self, deals: np.ndarray, alive: list[int]) -> np.ndarray:
            clock[0] += 0.01 * len(deals)
            return super().values(deals, alive)

    dealer = CountingDealer()
    tally = determinized_search(2, dealer, TimedValuer(), seconds=0.35, batch=10, started=0.0, clock=lambda: clock[0])
    assert dealer.calls == [10, 10, 10]  # a fourth batch of 0.1 s would end at 0.4 s
    assert tally.counts == [30, 30]


@pytest.mark.parametrize("kwargs", [{}, {"rollouts": 10, "seconds": 1.0}, {"rollouts": 10, "batch": 0}])
def test_the_loop_refuses_a_missing_or_double_budget_and_empty_batches(kwargs):
    with pytest.raises(ValueError, match="one budget"):
        determinized_search(2, CountingDealer(), IndexValuer(), **kwargs)


def test_leaving_the_blueprint_needs_a_paired_gain_past_the_margin():
    rng = np.random.default_rng(0)
    base = rng.normal(0, 5, 200)  # the deal's luck, shared by both candidates
    values = np.stack([base, base + 1 + rng.normal(0, 0.5, 200)], axis=1)
    chosen, gain, error = leave_blueprint(values, 0, margin=4)
    assert chosen == 1 and gain == pytest.approx(1, abs=0.2) and gain > 4 * error
    assert leave_blueprint(values, 0, margin=100)[0] == 0  # not past 100 standard errors
    assert leave_blueprint(values, 1, margin=4) == (1, 0.0, 0.0)  # the blueprint is the best
    assert leave_blueprint(np.array([[0.0, 5.0]]), 0, margin=0) == (0, 5.0, math.inf)  # one deal: no error to measure


def test_top_candidates_keep_the_favourites_and_pass():
    assert top_candidates([5, 3, 9, 1], 2, pass_action=0) == [5, 3, 0]
    assert top_candidates([5, 0, 9], 2, pass_action=0) == [5, 0]  # pass among them already
    assert top_candidates([5, 3, 9], 0) == [5, 3, 9]  # 0: all of them


@pytest.mark.parametrize("seed", range(6))
def test_the_uniform_dealer_deals_what_deal_unseen_deals(seed):
    state = public_state(observation_dict(position(seed, 3 + 5 * seed)))
    rng = np.random.default_rng(seed)
    expected = [deal_unseen(state, rng) for _ in range(4)]
    dealer = UniformDealer(np.random.default_rng(seed), mask_to_cards(state.unseen_mask), (0,) + state.cards_left[1:],
                           (state.hand_mask, 0, 0, 0))
    assert dealer.deal(4).tolist() == expected
    starting = UniformDealer(np.random.default_rng(seed), mask_to_cards(state.unseen_mask), (0,) + state.cards_left[1:],
                             (state.hand_mask, 0, 0, 0), state.played_by)
    assert (starting.deal(4) == np.array(expected) | np.array(state.played_by)).all()
    with pytest.raises(ValueError, match="must share out"):
        UniformDealer(np.random.default_rng(0), [1, 2], (0, 1, 0, 0), (0, 0, 0, 0))


@pytest.mark.parametrize("seed", range(4))
def test_the_pass_consistent_dealer_deals_what_deal_consistent_deals(seed):
    state = public_state(observation_dict(position(seed, 8 + 4 * seed)))
    rng = np.random.default_rng(seed)
    expected = [deal_consistent(state, rng, Rules(), 1.0) for _ in range(5)]
    dealer = PassConsistentDealer(state, np.random.default_rng(seed), Rules(), 1.0)
    assert dealer.deal(2).tolist() + dealer.deal(3).tolist() == expected
