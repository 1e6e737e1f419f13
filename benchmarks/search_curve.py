"""The search's strength against time per decision: draw the curve from its measured points.

Each point is one JSON file in ``benchmarks/search/``, written by the command that measured it:

* against three Smart, ``curve_smart_<T>.json``::

      taskset -c 0 python benchmarks/search_paired.py --opponent smart --deals D \\
          --options '{"budget": "<T>"}' --json benchmarks/search/curve_smart_<T>.json

* against three copies of Charlesworth's network, ``curve_charlesworth_<T>.json``::

      taskset -c 1 python benchmarks/charlesworth_duel.py --params PATH --agent search:<T> \\
          --deals D --json benchmarks/search/curve_charlesworth_<T>.json

with ``<T>`` one of 0.05s, 0.25s, 1s, 4s (``taskset`` keeps each run on its own core, so that
a time budget buys the same rollouts as on an idle machine). This script reads them, prints
the table of the docs (docs/opponents.md) and draws ``strength_vs_time.png``: win rate and
mean score against the time per decision, with 95% intervals and the parity lines::

    python benchmarks/search_curve.py [--dir benchmarks/search] [--plot benchmarks/search/strength_vs_time.png]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

OPPONENTS = {"smart": "three Smart", "charlesworth": "three copies of Charlesworth's network"}
PARITY = {"smart": (0.25, 0.0), "charlesworth": (0.25, 0.0)}


def read_points(folder: Path) -> dict[str, list[dict]]:
    """``{opponent: [figures, ...]}`` from ``curve_<opponent>_<T>s.json``, by time per decision."""
    points: dict[str, list[dict]] = {}
    for opponent in OPPONENTS:
        found = []
        for path in folder.glob(f"curve_{opponent}_*s.json"):
            figures = json.loads(path.read_text())
            figures["seconds"] = float(path.stem.rsplit("_", 1)[1][:-1])
            found.append(figures)
        if found:
            points[opponent] = sorted(found, key=lambda f: f["seconds"])
    return points


def table(points: dict[str, list[dict]]) -> str:
    """The Markdown table of the docs."""
    lines = ["| opponents | time a decision | games | win rate [95% CI] | mean score [95% CI] |",
             "| --- | --- | --- | --- | --- |"]
    for opponent, found in points.items():
        for f in found:
            (low, high), (s_low, s_high) = f["win_rate_ci"], f["mean_score_ci"]
            lines.append(f"| {OPPONENTS[opponent]} | {f['seconds']:g} s | {f['games']} | {f['win_rate']:.1%} "
                         f"[{low:.1%}, {high:.1%}] | {f['mean_score']:+.2f} [{s_low:+.2f}, {s_high:+.2f}] |")
    return "\n".join(lines)


def plot(points: dict[str, list[dict]], output: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4.6))
    colours = {"smart": "tab:red", "charlesworth": "tab:blue"}
    for opponent, found in points.items():
        x = [f["seconds"] for f in found]
        for axis, key in ((left, "win_rate"), (right, "mean_score")):
            y = [f[key] for f in found]
            low = [f[key] - f[f"{key}_ci"][0] for f in found]
            high = [f[f"{key}_ci"][1] - f[key] for f in found]
            axis.errorbar(x, y, yerr=[low, high], marker="o", capsize=3, color=colours[opponent],
                          label=f"against {OPPONENTS[opponent]}")
    left.axhline(0.25, color="grey", linestyle=":", label="parity (25%)")
    right.axhline(0.0, color="grey", linestyle=":", label="parity (0)")
    right.axhline(1.84, color="tab:blue", linestyle="--", linewidth=0.8, label="seed 004's DMC against his network (+1.84)")
    for axis, label in ((left, "win rate"), (right, "mean score a game")):
        axis.set_xscale("log")
        seconds = sorted({f["seconds"] for found in points.values() for f in found})
        axis.set_xticks(seconds, [f"{t:g}" for t in seconds])
        axis.minorticks_off()
        axis.set_xlabel("time per decision (s, one core)")
        axis.set_ylabel(label)
        axis.grid(alpha=0.3)
    left.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    labelled: dict = {}
    for axis in (left, right):
        for handle, label in zip(*axis.get_legend_handles_labels()):
            labelled.setdefault(label, handle)
    figure.suptitle("The default search (nested rollouts) against time per decision")
    figure.tight_layout(rect=(0, 0.12, 1, 1))
    figure.legend(labelled.values(), labelled.keys(), loc="lower center", ncol=3, fontsize=8, frameon=False)
    output.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(output, dpi=110)
    plt.close(figure)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default="benchmarks/search", help="where the curve_*.json files are")
    parser.add_argument("--plot", default=None, help="write the picture here (default: DIR/strength_vs_time.png)")
    args = parser.parse_args(argv)
    folder = Path(args.dir)
    points = read_points(folder)
    if not points:
        parser.error(f"no curve_smart_*s.json or curve_charlesworth_*s.json in {folder}")
    print(table(points))
    output = Path(args.plot) if args.plot else folder / "strength_vs_time.png"
    plot(points, output)
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
