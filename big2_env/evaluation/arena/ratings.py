"""The arena's results from its game records: ratings, win rates, mean scores and the head-to-head matrix.

* **Ratings**, fitted to all the games at once (:mod:`~big2_env.evaluation.arena.fits`), so that
  the order of the games does not matter, each with a 95% bootstrap interval over deals:

  - ``points``, the headline: a point a game against the pool's average (an agent's expected
    score at a table is its ``points`` minus the mean ``points`` of the four seats), by least
    squares on every seat's score;
  - ``plackett_luce``: the finishing-order rating, the log strength of a Plackett-Luce model
    fitted by maximum likelihood to every game's finishing order (mean zero);
  - ``mu`` and ``sigma``, only when asked (``rating="openskill"``): OpenSkill's Plackett-Luce
    rating updated online with every game's finishing order, one team per seat, the games taken
    in game-number order (an agent that fills two seats of one game gets the sum of their changes
    of ``mu`` and the product of their shrinkings of ``sigma**2``). Its interval ``mu +- 1.96
    sigma`` takes the games as independent, and its value depends on their order.

  :data:`RATINGS` names them; the rows come best first by the one asked for (``points`` unless
  told), then by mean score and name.
* **Win rate and mean score** over the seats an agent held (``games`` counts seats: an agent in two
  seats of a game counts two), each with a 95% normal interval over the per-deal means (the deal is
  the unit: its games share its cards).
* **Head to head**: for each pair, the mean of ``score(A) - score(B)`` over the games where both
  sat (an agent in two seats: the mean of its seats), with a 95% normal interval over the per-deal
  means of the deals they shared. :func:`order_conflicts` lists the pairs whose rating intervals
  separate yet whose head to head goes the other way.

Example:
    >>> from big2_env.evaluation.arena.records import GameRecord
    >>> games = [GameRecord(0, 0, 1, 0, r, ("a", "b", "c", "d"), (0, 1, 2, 3), (6, -1, -2, -3), 40) for r in range(2)]
    >>> rows = rate(["d", "c", "b", "a"], games)
    >>> [row.agent for row in rows], rows[0].points   # best first
    (['a', 'b', 'c', 'd'], 6.0)
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
from .fits import BOOTSTRAP_DRAWS, plackett_luce_fit, points_fit
from .records import GameRecord

__all__ = ["AgentRating", "HeadToHead", "RATINGS", "head_to_head", "order_conflicts", "rate"]

RATINGS = ("points", "plackett-luce", "openskill")
"""The ratings :func:`rate` can order by: ``points`` (the default), ``plackett-luce`` and ``openskill``
(computed only when asked for)."""


def _clean(value: float) -> float | None:
    return None if math.isnan(value) else value


@dataclass(frozen=True)
class AgentRating:
    """One agent's line of the arena's results (see the module docstring); ``mu``/``sigma`` are ``None`` unless
    OpenSkill's rating was asked for."""

    agent: str
    points: float
    points_ci: tuple[float, float]
    plackett_luce: float
    plackett_luce_ci: tuple[float, float]
    games: int
    wins: int
    win_rate: float
    win_rate_ci: tuple[float, float]
    mean_score: float
    mean_score_ci: tuple[float, float]
    deals: int
    mu: float | None = None
    sigma: float | None = None

    @property
    def interval(self) -> tuple[float, float] | None:
        """OpenSkill's ``mu +- 1.96 sigma`` (``None`` without it)."""
        if self.mu is None or self.sigma is None:
            return None
        return (self.mu - Z95 * self.sigma, self.mu + Z95 * self.sigma)

    def value(self, rating: str) -> float:
        """The rating ``rating`` (one of :data:`RATINGS`); NaN when it was not computed."""
        if rating == "points":
            return self.points
        if rating == "plackett-luce":
            return self.plackett_luce
        if rating == "openskill":
            return math.nan if self.mu is None else self.mu
        raise ValueError(f"rating must be one of {', '.join(RATINGS)}; got {rating!r}")

    def ci(self, rating: str) -> tuple[float, float]:
        """The 95% interval of the rating ``rating`` (NaN when not computed)."""
        if rating == "points":
            return self.points_ci
        if rating == "plackett-luce":
            return self.plackett_luce_ci
        if rating == "openskill":
            return self.interval or (math.nan, math.nan)
        raise ValueError(f"rating must be one of {', '.join(RATINGS)}; got {rating!r}")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON (NaN, which strict JSON lacks, as ``None``); ``mu``, ``sigma`` and ``interval`` only with them."""
        out: dict[str, Any] = {
            "agent": self.agent, "points": _clean(self.points), "points_ci": [_clean(v) for v in self.points_ci],
            "plackett_luce": _clean(self.plackett_luce),
            "plackett_luce_ci": [_clean(v) for v in self.plackett_luce_ci],
            "games": self.games, "wins": self.wins, "win_rate": _clean(self.win_rate),
            "win_rate_ci": [_clean(v) for v in self.win_rate_ci], "mean_score": _clean(self.mean_score),
            "mean_score_ci": [_clean(v) for v in self.mean_score_ci], "deals": self.deals,
        }
        if self.interval is not None:
            out.update(mu=self.mu, sigma=self.sigma, interval=list(self.interval))
        return out

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> "AgentRating":
        """The rating of a ``ratings.json`` row (``None`` back to NaN); ``ValueError`` for a row that is not one."""
        def num(value: Any) -> float:
            return math.nan if value is None else float(value)

        def pair(value: Any) -> tuple[float, float]:
            return (num(value[0]), num(value[1]))

        try:
            return cls(
                agent=str(row["agent"]), points=num(row["points"]), points_ci=pair(row["points_ci"]),
                plackett_luce=num(row["plackett_luce"]), plackett_luce_ci=pair(row["plackett_luce_ci"]),
                games=int(row["games"]), wins=int(row["wins"]), win_rate=num(row["win_rate"]),
                win_rate_ci=pair(row["win_rate_ci"]), mean_score=num(row["mean_score"]),
                mean_score_ci=pair(row["mean_score_ci"]), deals=int(row["deals"]),
                mu=None if row.get("mu") is None else float(row["mu"]),
                sigma=None if row.get("sigma") is None else float(row["sigma"]),
            )
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise ValueError(f"not a ratings.json row ({err!r}): {row!r}") from None


def _model() -> Any:
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        raise MissingDependencyError(
            "OpenSkill's rating needs the openskill package: pip install openskill (a dependency of big2-env)"
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


def check_rating(rating: Any) -> str:
    """``rating`` when it is one of :data:`RATINGS`, else a ``ValueError`` naming them."""
    if rating not in RATINGS:
        raise ValueError(f"rating must be one of {', '.join(RATINGS)}; got {rating!r}")
    return str(rating)


def best_first(rows: Sequence[AgentRating], rating: str = "points") -> list[AgentRating]:
    """``rows`` best first by ``rating``, then by mean score, then by name (an agent with no games last)."""
    check_rating(rating)

    def key(row: AgentRating) -> tuple[float, float, str]:
        value, score = row.value(rating), row.mean_score
        return (-value if not math.isnan(value) else math.inf, -score if not math.isnan(score) else math.inf, row.agent)

    return sorted(rows, key=key)


def rate(
    agents: Sequence[str], records: Sequence[GameRecord], rating: str = "points", draws: int = BOOTSTRAP_DRAWS
) -> list[AgentRating]:
    """Every agent's ratings and figures, best first by ``rating`` (one of :data:`RATINGS`).

    ``draws``: the bootstrap resamples of the deals behind the intervals of ``points`` and ``plackett_luce``.
    """
    check_rating(rating)
    points = points_fit(agents, records, draws=draws)
    placing = plackett_luce_fit(agents, records, draws=draws)
    skill = _openskill(agents, records) if rating == "openskill" else {}
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
        mu, sigma = skill.get(agent, (None, None))
        rows.append(AgentRating(
            agent=agent, points=points[agent], points_ci=points.interval(agent),
            plackett_luce=placing[agent], plackett_luce_ci=placing.interval(agent),
            games=games, wins=int(sum(all_wins)),
            win_rate=float(np.mean(all_wins)) if games else math.nan,
            win_rate_ci=_clip01(normal_interval(deal_win_means)),
            mean_score=float(np.mean(all_scores)) if games else math.nan,
            mean_score_ci=normal_interval(deal_score_means), deals=len(wins_by_deal), mu=mu, sigma=sigma,
        ))
    return best_first(rows, rating)


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


def order_conflicts(rows: Sequence[AgentRating], matrix: HeadToHead, rating: str = "points") -> list[tuple[str, str]]:
    """The pairs ``(a, b)`` whose ``rating`` intervals separate with ``a`` above ``b``, yet whose head to head has
    ``a`` scoring less than ``b`` where both sat: where the rating's order and the games disagree.

    >>> from big2_env.evaluation.arena.records import GameRecord
    >>> games = [GameRecord(g, g, g, 0, 0, ("a", "b", "c", "d"), (0, 1, 2, 3), (6 + g % 2, -1, -2, -3 - g % 2), 40)
    ...          for g in range(4)]
    >>> order_conflicts(rate(list("abcd"), games), head_to_head(list("abcd"), games))
    []
    """
    check_rating(rating)
    index = {agent: i for i, agent in enumerate(matrix.agents)}
    conflicts = []
    for upper in rows:
        for lower in rows:
            if upper.ci(rating)[0] > lower.ci(rating)[1]:  # NaN compares False: no interval, no claim
                difference = matrix.mean[index[upper.agent]][index[lower.agent]]
                if difference < 0:
                    conflicts.append((upper.agent, lower.agent))
    return conflicts
