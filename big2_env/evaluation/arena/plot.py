"""``ratings.png``: the arena's ratings with their intervals, points first, beside the head-to-head heatmap (matplotlib).

Panels, left to right: the points rating (a point a game against the pool's average), the
finishing-order (Plackett-Luce) rating, OpenSkill's ``mu`` when it was computed, each with its 95%
interval and the agents best first from the top, then the head-to-head matrix when one is given.

Example (with matplotlib installed)::

    from big2_env.evaluation.arena.plot import draw_ratings
    draw_ratings("arena/ratings.png", ratings, matrix, title="paper rules, 40 deals")
    draw_ratings("board.png", ratings)            # the ratings alone, no heatmap
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

from ...errors import MissingDependencyError
from .ratings import AgentRating, HeadToHead

__all__ = ["draw_ratings"]

PANELS = (
    ("points", "points a game against the pool\n(95% interval)", "points"),
    ("plackett-luce", "finishing-order strength, log\n(95% interval)", "placing (Plackett-Luce)"),
    ("openskill", "OpenSkill mu\n(95% interval)", "OpenSkill (online)"),
)


def _interval_panel(axis: Any, ratings: Sequence[AgentRating], rating: str, label: str, title: str,
                    names: bool) -> None:
    from matplotlib.ticker import MaxNLocator

    y = list(range(len(ratings)))[::-1]
    values = [r.value(rating) for r in ratings]
    below = [v - r.ci(rating)[0] if not math.isnan(r.ci(rating)[0]) else 0.0 for v, r in zip(values, ratings)]
    above = [r.ci(rating)[1] - v if not math.isnan(r.ci(rating)[1]) else 0.0 for v, r in zip(values, ratings)]
    axis.errorbar(values, y, xerr=[below, above], fmt="o", color="tab:blue", capsize=4)
    axis.set_yticks(y, [r.agent for r in ratings] if names else [""] * len(ratings))
    if rating != "openskill":
        axis.axvline(0.0, color="grey", linewidth=0.8, alpha=0.6)
    axis.xaxis.set_major_locator(MaxNLocator(5))  # few ticks: the labels never run into each other
    axis.set_xlabel(label)
    axis.set_title(title)
    axis.grid(axis="x", alpha=0.3)


def _heatmap(axis: Any, figure: Any, order: Sequence[str], matrix: HeadToHead) -> None:
    n = len(order)
    index = {a: i for i, a in enumerate(matrix.agents)}
    values = [[matrix.mean[index[a]][index[b]] for b in order] for a in order]
    finite = [abs(v) for row in values for v in row if not math.isnan(v)]
    limit = max(finite) if finite else 1.0
    image = axis.imshow(values, cmap="RdBu", vmin=-limit, vmax=limit)
    axis.set_xticks(range(n), order, rotation=45, ha="right")
    axis.set_yticks(range(n), order)
    for i in range(n):
        for j in range(n):
            value = values[i][j]
            if not math.isnan(value):
                low, high = matrix.low[index[order[i]]][index[order[j]]], matrix.high[index[order[i]]][index[order[j]]]
                half = "" if math.isnan(low) else f"\n±{(high - low) / 2:.1f}"
                axis.text(j, i, f"{value:+.1f}{half}", ha="center", va="center", fontsize=7)
    axis.set_title("head to head: row's mean score - column's")
    figure.colorbar(image, ax=axis, fraction=0.046, pad=0.04)


def draw_ratings(
    path: str | os.PathLike[str], ratings: Sequence[AgentRating], matrix: HeadToHead | None = None, title: str = ""
) -> None:
    """Draw ``ratings`` (in their order, the first at the top) and, given one, the head-to-head matrix into ``path``.

    Raises:
        MissingDependencyError: matplotlib is not installed.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        raise MissingDependencyError("drawing ratings.png needs matplotlib: pip install matplotlib") from None
    n = len(ratings)
    panels = [p for p in PANELS if p[0] != "openskill" or any(r.mu is not None for r in ratings)]
    ratios = [1.0] * len(panels) + ([1.3] if matrix is not None else [])
    figure, axes = plt.subplots(1, len(ratios), figsize=(3.2 * len(panels) + (0.9 * n + 1.5 if matrix is not None else 0) + 1.5,
                                                         1.8 + 0.5 * n), gridspec_kw={"width_ratios": ratios})
    for place, (rating, label, heading) in enumerate(panels):
        _interval_panel(axes[place], ratings, rating, label, heading, names=place == 0)
    if matrix is not None:
        _heatmap(axes[-1], figure, [r.agent for r in ratings], matrix)
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
