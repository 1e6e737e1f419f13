"""``ratings.png``: the arena's ratings with their intervals beside the head-to-head heatmap (matplotlib).

Example (with matplotlib installed)::

    from big2_env.evaluation.arena.plot import draw_ratings
    draw_ratings("arena/ratings.png", ratings, matrix, title="paper rules, 40 deals")
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

from ...errors import MissingDependencyError
from .ratings import AgentRating, HeadToHead

__all__ = ["draw_ratings"]


def draw_ratings(path: str | os.PathLike[str], ratings: Sequence[AgentRating], matrix: HeadToHead, title: str = "") -> None:
    """Draw ``ratings`` (best at the top, ``mu`` with its 95% interval) and the head-to-head matrix into ``path``.

    Raises:
        MissingDependencyError: matplotlib is not installed.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        raise MissingDependencyError("drawing ratings.png needs matplotlib: pip install matplotlib") from None
    order = [r.agent for r in ratings]
    n = len(order)
    figure, (left, right) = plt.subplots(1, 2, figsize=(7 + 0.9 * n, 1.6 + 0.55 * n), gridspec_kw={"width_ratios": [1, 1.2]})
    y = list(range(n))[::-1]
    mus = [r.mu for r in ratings]
    errors = [1.96 * r.sigma for r in ratings]
    left.errorbar(mus, y, xerr=errors, fmt="o", color="tab:blue", capsize=4)
    left.set_yticks(y, order)
    left.set_xlabel("OpenSkill rating mu (95% interval)")
    left.set_title("ratings (Plackett-Luce)")
    left.grid(axis="x", alpha=0.3)

    index = {a: i for i, a in enumerate(matrix.agents)}
    values = [[matrix.mean[index[a]][index[b]] for b in order] for a in order]
    finite = [abs(v) for row in values for v in row if not math.isnan(v)]
    limit = max(finite) if finite else 1.0
    image = right.imshow(values, cmap="RdBu", vmin=-limit, vmax=limit)
    right.set_xticks(range(n), order, rotation=45, ha="right")
    right.set_yticks(range(n), order)
    for i in range(n):
        for j in range(n):
            value = values[i][j]
            if not math.isnan(value):
                low, high = matrix.low[index[order[i]]][index[order[j]]], matrix.high[index[order[i]]][index[order[j]]]
                half = "" if math.isnan(low) else f"\n±{(high - low) / 2:.1f}"
                right.text(j, i, f"{value:+.1f}{half}", ha="center", va="center", fontsize=7)
    right.set_title("head to head: row's mean score - column's")
    figure.colorbar(image, ax=right, fraction=0.046, pad=0.04)
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
