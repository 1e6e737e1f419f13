"""The arena's results from its game records: OpenSkill ratings, win rates, mean scores and the head-to-head matrix.

* **Ratings**: OpenSkill's Plackett-Luce model (the ``openskill`` package) updated with every game's
  finishing order, one team per seat, the games taken in game-number order (deal by deal), so the
  result does not depend on how the games were shared among processes. An agent that fills two
  seats of one game (a pool of two or three) gets both seats' updates: the sum of their changes of
  ``mu`` and the product of their shrinkings of ``sigma**2``. The interval is ``mu +- 1.96 sigma``.
  The model takes the games as independent; the games of one deal are not (they share its
  cards), so read the intervals as a little narrow.
* **Win rate and mean score** over the seats an agent held (``games`` counts seats: an agent in two
  seats of a game counts two), each with a 95% normal interval over the per-deal means (the deal is
  the unit: its games share its cards).
* **Head to head**: for each pair, the mean of ``score(A) - score(B)`` over the games where both
  sat (an agent in two seats: the mean of its seats), with a 95% normal interval over the per-deal
  means of the deals they shared.

Example:
    >>> from big2_env.evaluation.arena.records import GameRecord
    >>> games = [GameRecord(0, 0, 1, 0, r, ("a", "b", "c", "d"), (0, 1, 2, 3), (6, -1, -2, -3), 40) for r in range(2)]
    >>> [row.agent for row in rate(["d", "c", "b", "a"], games)]   # best first
    ['a', 'b', 'c', 'd']
    >>> matrix = head_to_head(["a", "b", "c", "d"], games)
    >>> matrix.mean[0][1], matrix.mean[1][0], matrix.deals[0][1]
    (7.0, -7.0, 1)
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import MissingDependencyError
from ..versus import Z95, normal_interval
from .records import GameRecord

__all__ = ["AgentRating", "HeadToHead", "head_to_head", "rate"]


@dataclass(frozen=True)
class AgentRating:
    """One agent's line of the arena's results (see the module docstring)."""

    agent: str
    mu: float
    sigma: float
    games: int
    wins: int
    win_rate: float
    win_rate_ci: tuple[float, float]
    mean_score: float
    mean_score_ci: tuple[float, float]
    deals: int

    @property
    def interval(self) -> tuple[float, float]:
        """``mu +- 1.96 sigma``."""
        return (self.mu - Z95 * self.sigma, self.mu + Z95 * self.sigma)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON (NaN, which strict JSON lacks, as ``None``)."""
        def clean(value: float) -> float | None:
            return None if math.isnan(value) else value

        return {
            "agent": self.agent, "mu": self.mu, "sigma": self.sigma, "interval": list(self.interval),
            "games": self.games, "wins": self.wins, "win_rate": clean(self.win_rate),
            "win_rate_ci": [clean(v) for v in self.win_rate_ci], "mean_score": clean(self.mean_score),
            "mean_score_ci": [clean(v) for v in self.mean_score_ci], "deals": self.deals,
        }


def _model() -> Any:
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        raise MissingDependencyError(
            "the arena's ratings need the openskill package: pip install openskill (a dependency of big2-env)"
        ) from None
    return PlackettLuce(tau=0.0)  # no drift: an agent's skill does not change between games


def _openskill(agents: Sequence[str], records: Sequence[GameRecord]) -> dict[str, tuple[float, float]]:
    """Each agent's (mu, sigma) after every game's finishing order, in game-number order."""
    model = _model()
    ratings = {agent: model.rating(name=agent) for agent in agents}
    for record in sorted(records, key=lambda r: r.game):
        place = {seat: rank for rank, seat in enumerate(record.order, start=1)}
        teams = [[model.rating(mu=ratings[a].mu, sigma=ratings[a].sigma)] for a in record.agents]
        updated = model.rate(teams, ranks=[place[seat] for seat in range(4)])
        changes: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for seat, agent in enumerate(record.agents):
            changes[agent].append((updated[seat][0].mu, updated[seat][0].sigma))
        for agent, seats in changes.items():
            old = ratings[agent]
            mu = old.mu + sum(m - old.mu for m, _ in seats)
            variance = old.sigma**2 * math.prod((s / old.sigma) ** 2 for _, s in seats)
            ratings[agent] = model.rating(mu=mu, sigma=math.sqrt(variance), name=agent)
    return {agent: (float(r.mu), float(r.sigma)) for agent, r in ratings.items()}


def _clip01(interval: tuple[float, float]) -> tuple[float, float]:
    """The interval clipped to [0, 1] (NaN, for fewer than two deals, kept)."""
    if math.isnan(interval[0]):
        return interval
    return (max(0.0, interval[0]), min(1.0, interval[1]))


def rate(agents: Sequence[str], records: Sequence[GameRecord]) -> list[AgentRating]:
    """Every agent's rating and figures, best first (by ``mu``, then mean score, then name)."""
    skill = _openskill(agents, records)
    per_deal_wins: dict[str, dict[int, list[float]]] = {a: defaultdict(list) for a in agents}
    per_deal_scores: dict[str, dict[int, list[float]]] = {a: defaultdict(list) for a in agents}
    for record in records:
        for seat, agent in enumerate(record.agents):
            per_deal_wins[agent][record.deal].append(1.0 if record.order[0] == seat else 0.0)
            per_deal_scores[agent][record.deal].append(float(record.scores[seat]))
    rows = []
    for agent in agents:
        wins_by_deal, scores_by_deal = per_deal_wins[agent], per_deal_scores[agent]
        all_wins = [w for deal in sorted(wins_by_deal) for w in wins_by_deal[deal]]
        all_scores = [s for deal in sorted(scores_by_deal) for s in scores_by_deal[deal]]
        games = len(all_wins)
        deal_win_means = np.array([np.mean(wins_by_deal[d]) for d in sorted(wins_by_deal)])
        deal_score_means = np.array([np.mean(scores_by_deal[d]) for d in sorted(scores_by_deal)])
        mu, sigma = skill[agent]
        rows.append(AgentRating(
            agent=agent, mu=mu, sigma=sigma, games=games, wins=int(sum(all_wins)),
            win_rate=float(np.mean(all_wins)) if games else math.nan,
            win_rate_ci=_clip01(normal_interval(deal_win_means)),
            mean_score=float(np.mean(all_scores)) if games else math.nan,
            mean_score_ci=normal_interval(deal_score_means), deals=len(wins_by_deal),
        ))
    return sorted(rows, key=lambda r: (-r.mu, -(r.mean_score if r.games else -math.inf), r.agent))


@dataclass(frozen=True)
class HeadToHead:
    """``mean[i][j]``: agent ``i``'s mean score minus agent ``j``'s where both sat (NaN on the diagonal and for
    pairs that never met); ``low``/``high``: its 95% interval; ``deals[i][j]``: the deals they shared."""

    agents: tuple[str, ...]
    mean: list[list[float]]
    low: list[list[float]]
    high: list[list[float]]
    deals: list[list[int]]

    def to_dict(self) -> dict[str, Any]:
        def clean(rows: list[list[float]]) -> list[list[float | None]]:
            return [[None if math.isnan(v) else v for v in row] for row in rows]

        return {"agents": list(self.agents), "mean_score_difference": clean(self.mean), "low": clean(self.low),
                "high": clean(self.high), "deals": self.deals}


def head_to_head(agents: Sequence[str], records: Sequence[GameRecord]) -> HeadToHead:
    """The head-to-head matrix of ``agents`` (in that order) from ``records``."""
    index = {agent: i for i, agent in enumerate(agents)}
    n = len(agents)
    by_deal: list[list[dict[int, list[float]]]] = [[defaultdict(list) for _ in range(n)] for _ in range(n)]
    for record in records:
        seats: dict[int, list[int]] = defaultdict(list)
        for seat, agent in enumerate(record.agents):
            seats[index[agent]].append(record.scores[seat])
        means = {i: float(np.mean(s)) for i, s in seats.items()}
        for i in means:
            for j in means:
                if i != j:
                    by_deal[i][j][record.deal].append(means[i] - means[j])
    nan = math.nan
    mean = [[nan] * n for _ in range(n)]
    low = [[nan] * n for _ in range(n)]
    high = [[nan] * n for _ in range(n)]
    deals = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            shared = by_deal[i][j]
            if i == j or not shared:
                continue
            values = [v for d in sorted(shared) for v in shared[d]]
            mean[i][j] = float(np.mean(values))
            low[i][j], high[i][j] = normal_interval(np.array([np.mean(shared[d]) for d in sorted(shared)]))
            deals[i][j] = len(shared)
    return HeadToHead(tuple(agents), mean, low, high, deals)
