"""Ratings fitted to all the arena's games at once, with bootstrap intervals over deals (numpy only).

* **Points** (:func:`points_fit`): each agent gets a strength ``theta`` such that its expected score
  in a game is ``theta`` minus the mean ``theta`` of the four seats (an agent in two seats counts
  twice), fitted by least squares to every seat's score of every game, the ``theta`` summing to
  zero. The game's own unit: a point a game against the pool's average. The four scores of a game
  sum to zero under both of the engine's scorings (``paper`` and ``hk``), and so do the model's,
  so nothing else is needed. At a pool where every table plays every deal, ``theta`` is the mean
  score scaled by ``4 (n - 1) / (3 n)``: the same order.
* **Finishing order** (:func:`plackett_luce_fit`): the Plackett-Luce model, in which the winner of
  a game is drawn among its four seats with chances proportional to ``exp(strength)``, the second
  among the other three the same way, and so on; its maximum-likelihood strengths, found by
  Hunter's (2004) minorization-maximization (MM) iterations, with a prior of one win and one loss
  for each agent, shared among the others as pairwise games (it keeps an agent that never finished
  ahead of anyone finite, and is negligible after a few dozen games), centred to mean zero.

Neither depends on the order of the games: both are fits to all the games at once.

**Intervals**: 95% percentile intervals over :data:`BOOTSTRAP_DRAWS` bootstrap resamples of the
deals (the deal is the unit: its games share its cards, so they are resampled together), drawn
from :data:`BOOTSTRAP_SEED` so that the same games give the same intervals. Fewer than two deals
give no interval (NaN); an agent with no games gets NaN throughout.

Example:
    >>> from big2_env.evaluation.arena.records import GameRecord
    >>> games = [GameRecord(0, 0, 1, 0, 0, ("a", "b", "c", "d"), (0, 1, 2, 3), (6, -1, -2, -3), 40),
    ...          GameRecord(1, 1, 2, 0, 0, ("b", "a", "d", "c"), (1, 0, 2, 3), (-1, 5, -1, -3), 40)]
    >>> fit = points_fit(["a", "b", "c", "d"], games)
    >>> [round(v, 2) for v in fit.value]   # one table of four: each agent's mean score
    [5.5, -1.0, -2.5, -2.0]
    >>> [round(v, 2) for v in plackett_luce_fit(["a", "b", "c", "d"], games).value]   # c and d each last once
    [1.43, 0.41, -0.92, -0.92]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .records import SEATS, GameRecord

__all__ = ["BOOTSTRAP_DRAWS", "BOOTSTRAP_SEED", "Fit", "deal_resamples", "plackett_luce_fit", "points_fit"]

BOOTSTRAP_DRAWS = 1000
"""Bootstrap resamples of the deals behind each interval."""
BOOTSTRAP_SEED = 0
"""The resamples' seed: a fit is a function of the games alone."""
PRIOR_GAMES = 1.0
"""Plackett-Luce's prior: this many wins and as many losses for each agent, against the others."""
MM_TOLERANCE = 1e-9
MM_MAX_ITERATIONS = 10_000
MM_BLOCK = 125
"""Bootstrap resamples fitted together (their arrays are ``MM_BLOCK`` x the distinct finishing orders)."""


@dataclass(frozen=True)
class Fit:
    """One rating of every agent: ``value[i]`` is agent ``agents[i]``'s, ``low[i]``/``high[i]`` its 95% interval."""

    agents: tuple[str, ...]
    value: tuple[float, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]

    def interval(self, agent: str) -> tuple[float, float]:
        i = self.agents.index(agent)
        return (self.low[i], self.high[i])

    def __getitem__(self, agent: str) -> float:
        return self.value[self.agents.index(agent)]


def _check(agents: Sequence[str], records: Sequence[GameRecord]) -> tuple[dict[str, int], list[GameRecord]]:
    index = {agent: i for i, agent in enumerate(agents)}
    if len(index) != len(agents):
        raise ValueError(f"each agent may be named once; got {list(agents)}")
    for record in records:
        unknown = [a for a in record.agents if a not in index]
        if unknown:
            raise ValueError(f"game {record.game} seats {unknown[0]!r}, which is not among the agents {list(agents)}")
    return index, sorted(records, key=lambda r: (r.game, r.deal))  # a fixed order: the same sums bit for bit


def deal_resamples(deals: int, draws: int = BOOTSTRAP_DRAWS, seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """``(draws, deals)`` counts: how often each deal is drawn in each bootstrap resample of the deals.

    >>> counts = deal_resamples(5, draws=3)
    >>> counts.shape, counts.sum(axis=1).tolist()
    ((3, 5), [5, 5, 5])
    """
    if draws < 1:
        raise ValueError(f"draws must be a positive integer; got {draws!r}")
    rng = np.random.default_rng(seed)
    return rng.multinomial(deals, np.full(deals, 1.0 / deals), size=draws)


def _percentiles(samples: np.ndarray, played: np.ndarray, deals: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    n = samples.shape[1]
    if deals < 2:
        nan = (math.nan,) * n
        return nan, nan
    low, high = np.nanpercentile(samples, [2.5, 97.5], axis=0)
    low = np.where(played, low, np.nan)
    high = np.where(played, high, np.nan)
    return tuple(float(v) for v in low), tuple(float(v) for v in high)


def _empty(agents: Sequence[str]) -> Fit:
    nan = (math.nan,) * len(agents)
    return Fit(tuple(agents), nan, nan, nan)


def _prepare(
    agents: Sequence[str], records: Sequence[GameRecord]
) -> tuple[dict[str, int], list[GameRecord], np.ndarray, int] | None:
    """What both fits start from: each agent's index, the games checked and in a fixed order, each game's deal as an
    index into the sorted distinct deals, and how many deals there are; ``None`` when there are no games."""
    index, ordered = _check(agents, records)
    if not ordered:
        return None
    deals = sorted({r.deal for r in ordered})
    where = {deal: i for i, deal in enumerate(deals)}
    return index, ordered, np.array([where[r.deal] for r in ordered], dtype=np.int64), len(deals)


# ------------------------------------------------------------------------------------------ points


def _solve_points(normal: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``theta`` (stacked) from the normal equations ``A theta = b``, summing to zero over the agents that played.

    ``A`` has the vector of ones in its null space (a table's predictions sum to zero whatever the common level),
    so the pseudo-inverse gives the solution that sums to zero; an agent with no games (a zero row) gets NaN.
    """
    theta = np.einsum("...ij,...j->...i", np.linalg.pinv(normal, hermitian=True), right)
    return np.where(np.diagonal(normal, axis1=-2, axis2=-1) > 0, theta, np.nan)


def points_fit(
    agents: Sequence[str], records: Sequence[GameRecord], draws: int = BOOTSTRAP_DRAWS, seed: int = BOOTSTRAP_SEED
) -> Fit:
    """The points rating of ``agents`` from ``records`` (see the module docstring), with its bootstrap intervals."""
    prepared = _prepare(agents, records)
    if prepared is None:
        return _empty(agents)
    index, records, deal_of, deals = prepared
    n = len(agents)
    seats = np.array([[index[a] for a in r.agents] for r in records], dtype=np.int64).reshape(-1, SEATS)
    scores = np.array([r.scores for r in records], dtype=float).reshape(-1, SEATS)
    rows = np.arange(len(records))
    counts = np.zeros((len(records), n))  # seats each agent holds in each game
    points = np.zeros((len(records), n))  # points each agent scores in each game (its seats together)
    for seat in range(SEATS):
        np.add.at(counts, (rows, seats[:, seat]), 1.0)
        np.add.at(points, (rows, seats[:, seat]), scores[:, seat])
    # one game's least-squares terms: rows x_s = e(agent of seat s) - m / 4, with m the seat counts, so
    # sum_s x_s x_s^T = diag(m) - m m^T / 4 and sum_s y_s x_s = points - m * mean(y)
    right_by_deal = np.zeros((deals, n))
    np.add.at(right_by_deal, deal_of, points - counts * scores.mean(axis=1, keepdims=True))
    normal_by_deal = np.zeros((deals, n, n))
    by_deal = np.argsort(deal_of, kind="stable")
    bounds = np.searchsorted(deal_of[by_deal], np.arange(deals + 1))
    for deal in range(deals):
        held = counts[by_deal[bounds[deal]:bounds[deal + 1]]]
        normal_by_deal[deal] = np.diag(held.sum(axis=0)) - held.T @ held / 4
    theta = _solve_points(normal_by_deal.sum(axis=0), right_by_deal.sum(axis=0))
    weights = deal_resamples(deals, draws, seed)
    samples = _solve_points(np.einsum("bd,dij->bij", weights, normal_by_deal), weights @ right_by_deal)
    low, high = _percentiles(samples, ~np.isnan(theta), deals)
    return Fit(tuple(agents), tuple(float(v) for v in theta), low, high)


# ------------------------------------------------------------------------------------------ Plackett-Luce


def _mm(orders: np.ndarray, weights: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Plackett-Luce strengths ``gamma`` (stacked over the rows of ``weights``) by Hunter's MM iterations.

    ``orders`` (P, 4): the agents of each distinct finishing order, best first; ``weights`` (B, P): how often each
    occurs in each data set; ``start`` (B, n): the first ``gamma``. Each stage ``k`` of a game (the best of the
    seats from place ``k`` on) is a choice among those seats; an agent's ``gamma`` becomes its choices won over
    the sum, over the stages it stood in, of ``1 / (the stage's total gamma)``. The prior is :data:`PRIOR_GAMES`
    wins and as many losses for each agent, shared evenly among the others as pairwise games: it does not pin the
    scale, so each step is rescaled to a geometric mean of one, which keeps the iterations fast.
    """
    n = start.shape[1]
    onehot = [np.eye(n)[orders[:, place]] for place in range(SEATS)]  # (P, n) each
    won = weights @ (onehot[0] + onehot[1] + onehot[2]) + PRIOR_GAMES  # the last place chooses nothing
    pair = 2 * PRIOR_GAMES / (n - 1)  # prior games a pair of agents plays, half won by each
    gamma = start / np.exp(np.mean(np.log(start), axis=1, keepdims=True))
    for _ in range(MM_MAX_ITERATIONS):
        at = [gamma[:, orders[:, place]] for place in range(SEATS)]  # (B, P) each
        left2 = at[2] + at[3]
        left1 = at[1] + left2
        left0 = at[0] + left1
        stage0, stage1, stage2 = weights / left0, weights / left1, weights / left2
        through1 = stage0 + stage1
        through2 = through1 + stage2
        stood = stage0 @ onehot[0] + through1 @ onehot[1] + through2 @ (onehot[2] + onehot[3])
        prior = pair * ((1.0 / (gamma[:, :, None] + gamma[:, None, :])).sum(axis=2) - 0.5 / gamma)
        new = won / (stood + prior)
        new /= np.exp(np.mean(np.log(new), axis=1, keepdims=True))
        if np.max(np.abs(np.log(new) - np.log(gamma))) < MM_TOLERANCE:
            return new
        gamma = new
    return gamma


def plackett_luce_fit(
    agents: Sequence[str], records: Sequence[GameRecord], draws: int = BOOTSTRAP_DRAWS, seed: int = BOOTSTRAP_SEED
) -> Fit:
    """The Plackett-Luce finishing-order rating (log strengths, mean zero) with its bootstrap intervals."""
    prepared = _prepare(agents, records)
    if prepared is None:
        return _empty(agents)
    index, records, deal_of, deals = prepared
    n = len(agents)
    finishing = np.array([[index[r.agents[seat]] for seat in r.order] for r in records], dtype=np.int64).reshape(-1, SEATS)
    orders, pattern = np.unique(finishing, axis=0, return_inverse=True)
    by_deal = np.zeros((deals, len(orders)))
    np.add.at(by_deal, (deal_of, pattern.reshape(-1)), 1.0)
    played = np.isin(np.arange(n), finishing)

    def strengths(gamma: np.ndarray) -> np.ndarray:
        logs = np.where(played, np.log(gamma), np.nan)
        return logs - np.nanmean(logs, axis=-1, keepdims=True) if played.any() else logs

    gamma = _mm(orders, by_deal.sum(axis=0, keepdims=True), np.ones((1, n)))
    weights = deal_resamples(deals, draws, seed)
    samples = np.concatenate([  # in blocks of resamples, to bound the memory of a large arena's fit
        strengths(_mm(orders, block @ by_deal, np.repeat(gamma, len(block), axis=0)))
        for block in np.array_split(weights, max(1, math.ceil(draws / MM_BLOCK)))
    ])
    low, high = _percentiles(samples, played, deals)
    return Fit(tuple(agents), tuple(float(v) for v in strengths(gamma)[0]), low, high)
