"""The arena's results as text: the printed table, ``ratings.json`` and ``head_to_head.json``.

``ratings.json`` is a list, best first (by the rating asked for: ``points`` unless told), one object
per agent: ``rank``, ``agent``, ``points`` and ``points_ci`` (the points rating and its 95%
interval), ``plackett_luce`` and ``plackett_luce_ci`` (the finishing-order rating), ``games``,
``wins``, ``win_rate``, ``win_rate_ci``, ``mean_score``, ``mean_score_ci`` and ``deals``; with
OpenSkill's rating asked for, also ``mu``, ``sigma`` and ``interval`` (``mu +- 1.96 sigma``).

Example:
    >>> from big2_env.evaluation.arena.ratings import AgentRating
    >>> row = AgentRating("smart", 1.5, (0.7, 2.3), 0.31, (0.12, 0.5), 80, 30, 0.375, (0.3, 0.45), 1.2, (0.4, 2.0), 20)
    >>> print(ratings_table([row]))  # doctest: +NORMALIZE_WHITESPACE
    rank  agent  points   95% interval    placing  95% interval    games  wins  win rate  mean score  95% interval
       1  smart   +1.50  [+0.70, +2.30]    +0.31  [+0.12, +0.50]     80    30    37.5%      +1.20    [+0.40, +2.00]
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence

from .ratings import AgentRating, HeadToHead

__all__ = ["head_to_head_table", "ratings_table", "write_json"]


def _width(texts: Sequence[str], header: str) -> int:
    return max([len(header), *(len(t) for t in texts)])


def _interval(low: float, high: float, spec: str = "+.2f") -> str:
    return "-" if math.isnan(low) else f"[{low:{spec}}, {high:{spec}}]"


def _value(value: float, spec: str = "+.2f") -> str:
    return "-" if math.isnan(value) else format(value, spec)


def ratings_table(rows: Sequence[AgentRating]) -> str:
    """One line per agent, in the order given: rank, the points rating and the finishing-order (Plackett-Luce)
    rating ("placing") with their intervals, OpenSkill's ``mu`` when it was computed, games, wins, win rate and
    mean score."""
    names = [r.agent for r in rows]
    width = _width(names, "agent")
    skill = any(r.mu is not None for r in rows)
    lines = [f"rank  {'agent':<{width}}  points   95% interval    placing  95% interval  "
             + ("     mu     95% interval  " if skill else "") + "  games  wins  win rate  mean score  95% interval"]
    for rank, r in enumerate(rows, start=1):
        openskill = ""
        if skill:
            interval = r.interval
            openskill = ("     -          -        " if interval is None
                         else f"  {r.mu:5.2f}  [{interval[0]:5.2f}, {interval[1]:5.2f}]")
        lines.append(
            f"{rank:>4}  {r.agent:<{width}}  {_value(r.points):>6}  {_interval(*r.points_ci):<14}  "
            f"{_value(r.plackett_luce):>7}  {_interval(*r.plackett_luce_ci):<14}{openskill}  {r.games:>5}  "
            f"{r.wins:>4}  {_value(r.win_rate, '.1%'):>8}  {_value(r.mean_score):>10}    {_interval(*r.mean_score_ci)}"
        )
    return "\n".join(lines)


def head_to_head_table(matrix: HeadToHead, order: Sequence[str]) -> str:
    """The head-to-head matrix in ``order`` (best first): row minus column, mean score difference.

    The columns are headed by the agents' places in ``order`` (``#1``, ``#2``...), so long specs keep the table narrow.
    """
    index = {a: i for i, a in enumerate(matrix.agents)}
    labels = [f"#{place} {agent}" for place, agent in enumerate(order, start=1)]
    width = max(len(label) for label in labels)
    lines = ["mean score difference, row minus column, on the deals both played:",
             " " * width + "".join(f"  {f'#{place}':>7}" for place in range(1, len(order) + 1))]
    for label, a in zip(labels, order):
        cells = []
        for b in order:
            value = matrix.mean[index[a]][index[b]]
            cells.append(f"  {'-' if math.isnan(value) else f'{value:+.2f}':>7}")
        lines.append(f"{label:<{width}}" + "".join(cells))
    return "\n".join(lines)


def write_json(path: str | os.PathLike[str], data: object) -> None:
    """``data`` as indented JSON (strict: no NaN), through a temporary file."""
    temporary = f"{os.fspath(path)}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2, allow_nan=False)
        handle.write("\n")
    os.replace(temporary, path)
