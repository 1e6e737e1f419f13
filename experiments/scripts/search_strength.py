"""How strong the search agent is: the paper's protocol against every opponent class, and a budget curve.

Cells (1000 seat-randomised games each by default, 95% CIs, ``big2_env.evaluate``):
search against three Random, Greedy, Smart and pretrained players, and one pretrained
agent against three search players. Seconds per decision are measured on one core,
in this process alone, over positions sampled from Smart-vs-Smart games
(``benchmarks/search_speed.py``). ``--curve`` adds strength against budget (rollouts
per decision) versus one opponent class, with a plot.

    python experiments/scripts/search_strength.py --games 1000 --jobs 2
    python experiments/scripts/search_strength.py --cells smart --curve 48,96,192,384 --curve-games 300 --plot curve.png

Targets of the search issue, at the default budget and at most 0.25 s per decision: against
three Smart at least 50% wins and +4.5 mean score; against Greedy 70% and +8; against Random 92%.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))  # the speed benchmark, a script, not a package

from search_speed import sample_positions, seconds_per_decision  # noqa: E402

from big2_env import Rules, evaluate  # noqa: E402
from big2_env.players.search import DEFAULT_BUDGET  # noqa: E402

CELLS = ("random", "greedy", "smart", "pretrained", "vs-pretrained")


def cell(name: str, budget: int | str, games: int, seed: int, jobs: int, rules: Rules) -> dict:
    search = f"search:{budget}"
    agent, opponent = ("pretrained", search) if name == "vs-pretrained" else (search, name)
    result = evaluate(agent, opponent, n_games=games, seed=seed, rules=rules, jobs=jobs, progress=True)
    return {
        "cell": name, "agent": agent, "opponent": opponent, "games": result.n_games, "budget": budget,
        **result.figures(), "elapsed_s": result.elapsed_s,
    }


def row(r: dict, spd: float | None) -> str:
    lo, hi = r["win_rate_ci"]
    slo, shi = r["mean_score_ci"]
    who = "pretrained vs 3 x search" if r["cell"] == "vs-pretrained" else f"search vs 3 x {r['cell']}"
    time_text = f"{spd * 1000:.0f} ms" if spd is not None else "-"
    return (f"| {who} | {r['budget']} | {r['games']} | {r['win_rate']:.1%} [{lo:.1%}, {hi:.1%}] | "
            f"{r['mean_score']:+.2f} [{slo:+.2f}, {shi:+.2f}] | {time_text} | {r['elapsed_s']:.0f} s |")


HEADER = ("| cell | budget (rollouts/decision) | games | win rate [95% CI] | mean score [95% CI] | s per decision | wall |\n"
          "| --- | --- | --- | --- | --- | --- | --- |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--budget", default=str(DEFAULT_BUDGET), help="rollouts per decision (or '0.25s')")
    parser.add_argument("--cells", default=",".join(CELLS), help=f"comma-separated, from {', '.join(CELLS)}")
    parser.add_argument("--curve", default="", help="comma-separated budgets for a strength-vs-budget curve")
    parser.add_argument("--curve-opponent", default="smart")
    parser.add_argument("--curve-games", type=int, default=300)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timing-positions", type=int, default=100)
    parser.add_argument("--json", default=None, help="write the results here")
    parser.add_argument("--plot", default=None, help="PNG of the curve")
    args = parser.parse_args()
    rules = Rules()
    budget: int | str = int(args.budget) if args.budget.isdigit() else args.budget
    positions = sample_positions(args.timing_positions, rules, args.seed + 1)

    def timing(b: int | str) -> float | None:
        return seconds_per_decision(positions, b, args.seed)[0] if isinstance(b, int) else None

    results: dict = {"cells": [], "curve": []}
    cells = [c for c in args.cells.split(",") if c]
    if cells:
        spd = timing(budget)
        print(HEADER)
        for name in cells:
            r = cell(name, budget, args.games, args.seed, args.jobs, rules)
            r["seconds_per_decision"] = spd
            results["cells"].append(r)
            print(row(r, spd), flush=True)
    budgets = [int(b) for b in args.curve.split(",") if b]
    if budgets:
        print(f"\nstrength against budget, vs 3 x {args.curve_opponent}:\n" + HEADER)
        for b in budgets:
            spd = timing(b)
            r = cell(args.curve_opponent, b, args.curve_games, args.seed, args.jobs, rules)
            r["seconds_per_decision"] = spd
            results["curve"].append(r)
            print(row(r, spd), flush=True)
        if args.plot:
            plot_curve(results["curve"], args.curve_opponent, args.plot)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


def plot_curve(curve: list[dict], opponent: str, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    budgets = [r["budget"] for r in curve]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    win = [100 * r["win_rate"] for r in curve]
    err = [[100 * (r["win_rate"] - r["win_rate_ci"][0]) for r in curve],
           [100 * (r["win_rate_ci"][1] - r["win_rate"]) for r in curve]]
    left.errorbar(budgets, win, yerr=err, marker="o", capsize=3)
    left.set_xscale("log", base=2)
    left.set_xlabel("rollouts per decision")
    left.set_ylabel(f"win rate vs 3 x {opponent} (%)")
    left.axhline(25, color="grey", lw=0.8, ls="--")
    for r in curve:
        if r.get("seconds_per_decision"):
            left.annotate(f"{r['seconds_per_decision'] * 1000:.0f} ms", (r["budget"], 100 * r["win_rate"]),
                          textcoords="offset points", xytext=(4, -12), fontsize=8)
    score_err = [[r["mean_score"] - r["mean_score_ci"][0] for r in curve],
                 [r["mean_score_ci"][1] - r["mean_score"] for r in curve]]
    right.errorbar(budgets, [r["mean_score"] for r in curve], yerr=score_err, marker="o", capsize=3)
    right.set_xscale("log", base=2)
    right.set_xlabel("rollouts per decision")
    right.set_ylabel("mean score")
    right.axhline(0, color="grey", lw=0.8, ls="--")
    fig.suptitle("Search (Smart rollouts, successive halving): strength against budget")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot: {path}")


if __name__ == "__main__":
    t = time.perf_counter()
    main()
    print(f"total {time.perf_counter() - t:.0f} s")
