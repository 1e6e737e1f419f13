"""The search designs' strength against time per decision: draw the curves from their measured points.

Each point is one JSON file in ``experiments/results/search/``, written by the command that measured it:

* the default search (``search``), against three Smart, ``curve_smart_<T>.json``::

      taskset -c 0 python experiments/scripts/search_paired.py --opponent smart --deals D \\
          --options '{"budget": "<T>"}' --json experiments/results/search/curve_smart_<T>.json

* against three copies of Charlesworth's network, ``curve_charlesworth_<T>.json``::

      taskset -c 1 python benchmarks/charlesworth_duel.py --params PATH --agent search:<T> \\
          --deals D --json experiments/results/search/curve_charlesworth_<T>.json

* the other designs (``search-fast``, ``ismcts``; and the default search's later points, on the
  same deals), ``curve_<design>_<opponent>_<T>.json``::

      taskset -c 0 python experiments/scripts/search_designs.py --design DESIGN --opponent smart|charlesworth \\
          [--params PATH] --seconds T --deals D

with ``<T>`` a time such as 0.1s, 0.25s or 1s (``taskset`` keeps each run on its own core, so
that a time budget buys the same rollouts as on an idle machine). This script reads them,
prints the table of experiments/search-strength.md, writes ``curve_summary.json`` (every point, and
the range each design's win rate and mean score span, which the README quotes) and draws
``strength_vs_time.png``: win rate
and mean score against the time per decision, one line per design, one row per opponent, with
95% intervals and the parity lines::

    python experiments/scripts/search_curve.py [--dir experiments/results/search]
        [--plot experiments/results/search/strength_vs_time.png]
        [--json experiments/results/search/curve_summary.json] [--no-plot]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

OPPONENTS = {"smart": "three Smart", "charlesworth": "three copies of Charlesworth's network"}
DESIGNS = {"search": "the search (Smart rollouts, the default)", "search-fast": "the search, fast-model rollouts",
           "ismcts": "ISMCTS"}


def read_points(folder: Path) -> dict[tuple[str, str], list[dict]]:
    """``{(design, opponent): [figures, ...]}`` from the ``curve_*s.json`` files, by time per decision."""
    points: dict[tuple[str, str], list[dict]] = {}
    for path in folder.glob("curve_*s.json"):
        parts = path.stem.split("_")
        if len(parts) == 3:
            parts.insert(1, "search")  # the default search's points: curve_<opponent>_<T>s
        if len(parts) != 4 or parts[1] not in DESIGNS or parts[2] not in OPPONENTS:
            continue
        try:
            seconds = float(parts[3][:-1])
        except ValueError:
            continue
        figures = json.loads(path.read_text())
        figures["seconds"] = seconds
        figures["source"] = path.name
        points.setdefault((parts[1], parts[2]), []).append(figures)
    order = {key: n for n, key in enumerate((d, o) for o in OPPONENTS for d in DESIGNS)}
    return {key: sorted(found, key=lambda f: f["seconds"]) for key, found in sorted(points.items(), key=lambda kv: order[kv[0]])}


def table(points: dict[tuple[str, str], list[dict]], marked: str | None = None) -> str:
    """The Markdown table of the docs; with ``marked`` (the summary's path from the repository root),
    each figure stands in a marker of :mod:`tools.figures` that quotes the summary."""
    lines = ["| opponents | design | time a decision | games | win rate [95% CI] | mean score [95% CI] |",
             "| --- | --- | --- | --- | --- | --- |"]
    for (design, opponent), found in points.items():
        for n, f in enumerate(found):
            def fig(key: str, spec: str, value: object) -> str:
                shown = format(value, spec)
                if marked is None:
                    return shown
                return f"<!-- fig {marked} designs.{design}.{opponent}.points.{n}.{key} {spec} -->{shown}<!-- /fig -->"

            (low, high), (s_low, s_high) = f["win_rate_ci"], f["mean_score_ci"]
            lines.append(f"| {OPPONENTS[opponent]} | {design} | {fig('seconds', 'g', f['seconds'])} s | "
                         f"{fig('games', 'd', f['games'])} | {fig('win_rate', '.1%', f['win_rate'])} "
                         f"[{fig('win_rate_ci.0', '.1%', low)}, {fig('win_rate_ci.1', '.1%', high)}] | "
                         f"{fig('mean_score', '+.2f', f['mean_score'])} "
                         f"[{fig('mean_score_ci.0', '+.2f', s_low)}, {fig('mean_score_ci.1', '+.2f', s_high)}] |")
    return "\n".join(lines)


def summary(points: dict[tuple[str, str], list[dict]], folder: Path) -> dict:
    """The curves in one results file (``DIR/curve_summary.json``, which the pages quote): per design
    and opponent, each point (time, games, win rate and mean score with their intervals, its file) and
    the range the win rate and the mean score span over the times."""
    designs: dict[str, dict[str, dict]] = {}
    for (design, opponent), found in points.items():
        rates, scores = [f["win_rate"] for f in found], [f["mean_score"] for f in found]
        designs.setdefault(design, {})[opponent] = {
            "seconds": [f["seconds"] for f in found],
            "win_rate_min": min(rates), "win_rate_max": max(rates),
            "mean_score_min": min(scores), "mean_score_max": max(scores),
            "games": sum(f["games"] for f in found),
            "points": [{key: f[key] for key in ("seconds", "games", "win_rate", "win_rate_ci", "mean_score",
                                                "mean_score_ci", "source")} for f in found],
        }
    return {"designs": designs, "command": f"python experiments/scripts/search_curve.py --dir {folder.as_posix()}",
            "note": "read from the curve_*s.json files, each written by the command that measured it (the module's docstring)"}


def plot(points: dict[tuple[str, str], list[dict]], output: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [o for o in OPPONENTS if any(key[1] == o for key in points)]
    figure, axes = plt.subplots(len(rows), 2, figsize=(10, 3.9 * len(rows) + 0.6), squeeze=False)
    colours = {"search": "tab:red", "search-fast": "tab:green", "ismcts": "tab:purple"}
    offsets = {"search": 0.94, "search-fast": 1.0, "ismcts": 1.06}  # side by side at each time
    seconds = sorted({f["seconds"] for found in points.values() for f in found})
    for row, opponent in zip(axes, rows):
        for (design, against), found in points.items():
            if against != opponent:
                continue
            x = [f["seconds"] * offsets[design] for f in found]
            for axis, key in zip(row, ("win_rate", "mean_score")):
                y = [f[key] for f in found]
                low = [f[key] - f[f"{key}_ci"][0] for f in found]
                high = [f[f"{key}_ci"][1] - f[key] for f in found]
                axis.errorbar(x, y, yerr=[low, high], marker="o", capsize=3, color=colours[design], label=DESIGNS[design])
        row[0].axhline(0.25, color="grey", linestyle=":", label="parity (25%, 0)")
        row[1].axhline(0.0, color="grey", linestyle=":", label="parity (25%, 0)")
        # (no line for seed 004's "+1.84 a game against his PPO": its code unmasks only the first legal
        # move, so that opponent always played its first legal move; see experiments/search-vs-charlesworth.md)
        for axis, label in zip(row, ("win rate", "mean score a game")):
            axis.set_xscale("log")
            axis.set_xticks(seconds, [f"{t:g}" for t in seconds])
            axis.minorticks_off()
            axis.set_xlabel("time per decision (s, one core)")
            axis.set_ylabel(f"{label}\nagainst {OPPONENTS[opponent]}" if opponent == "smart" else f"{label}\nagainst his network")
            axis.grid(alpha=0.3)
        row[0].yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    labelled: dict = {}
    for axis in axes.flat:
        for handle, label in zip(*axis.get_legend_handles_labels()):
            labelled.setdefault(label, handle)
    figure.suptitle("Search designs against time per decision")
    figure.tight_layout(rect=(0, 0.08, 1, 1))
    figure.legend(labelled.values(), labelled.keys(), loc="lower center", ncol=3, fontsize=8, frameon=False)
    output.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(output, dpi=110)
    plt.close(figure)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default="experiments/results/search", help="where the curve_*.json files are")
    parser.add_argument("--plot", default=None, help="write the picture here (default: DIR/strength_vs_time.png)")
    parser.add_argument("--json", default=None, help="write the summary here (default: DIR/curve_summary.json)")
    parser.add_argument("--marked", default=None, metavar="SUMMARY",
                        help="print the table with figure markers quoting SUMMARY (the summary's path from the "
                        "repository root, as experiments/search-strength.md has it: "
                        "experiments/results/search/curve_summary.json)")
    parser.add_argument("--no-plot", action="store_true", help="the table and the summary only (no matplotlib)")
    args = parser.parse_args(argv)
    folder = Path(args.dir)
    points = read_points(folder)
    if not points:
        parser.error(f"no curve_*s.json points in {folder}")
    print(table(points, marked=args.marked))
    summary_path = Path(args.json) if args.json else folder / "curve_summary.json"
    summary_path.write_text(json.dumps(summary(points, folder), indent=2) + "\n")
    print(f"wrote {summary_path}")
    if args.no_plot:
        return
    output = Path(args.plot) if args.plot else folder / "strength_vs_time.png"
    plot(points, output)
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
