"""The 3x3 table of Random / Greedy / Smart evaluated against each other (the paper's protocol).

    python benchmarks/heuristics_table.py [--games 1000] [--seed 0] [--json benchmarks/core/heuristics_table.json]

Each cell: the row policy in one seat (randomised per game), three copies of the
column policy in the others; win rate and mean score with 95% CIs, and the time taken.
``--json PATH`` writes the cells (``cells.AGENT.OPPONENT``: games, win rate, mean score and their
intervals, seconds), which docs/evaluation.md quotes.
"""

from __future__ import annotations

import argparse
import datetime
import json
import time
from pathlib import Path

from big2_env.evaluation.versus import evaluate

NAMES = ("random", "greedy", "smart")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="write the cells here")
    args = parser.parse_args(argv)
    if args.games <= 0:
        parser.error("--games must be positive")
    start = time.perf_counter()
    print(f"| agent \\ opponents | {' | '.join(NAMES)} |")
    print("| --- | --- | --- | --- |")
    timings = []
    figures: dict[str, dict[str, dict]] = {}
    for agent in NAMES:
        cells = []
        for opponent in NAMES:
            r = evaluate(agent, opponent, n_games=args.games, seed=args.seed)
            lo, hi = r.win_rate_ci
            slo, shi = r.mean_score_ci
            cells.append(f"{r.win_rate:.1%} [{lo:.1%}, {hi:.1%}] / {r.mean_score:+.2f} [{slo:+.2f}, {shi:+.2f}]")
            timings.append(f"{agent} vs {opponent}: {r.elapsed_s:.1f} s")
            figures.setdefault(agent, {})[opponent] = {
                "games": r.n_games, **r.figures(), "elapsed_s": r.elapsed_s,
            }
        print(f"| {agent} | {' | '.join(cells)} |")
    print(f"\n{args.games} games per cell, seed {args.seed}; total {time.perf_counter() - start:.1f} s")
    print("; ".join(timings))
    if args.json:
        command = f"python benchmarks/heuristics_table.py --games {args.games} --seed {args.seed} --json {args.json}"
        args.json.write_text(json.dumps({
            "games": args.games, "seed": args.seed, "cells": figures,
            "elapsed_s": time.perf_counter() - start, "date": datetime.date.today().isoformat(), "command": command,
        }, indent=2) + "\n")


if __name__ == "__main__":
    main()
