"""The paper's heuristics played in the compiled core: how fast, and how Random fares against Greedy.

Two measurements of :func:`big2_env.players.kernels.play_random` on one core, each after a warm-up
game (the kernels compile once):

* Smart in all four seats (``smart_seats=range(4)``): games and decisions a second;
* Random in seat 0 against three Greedy (``greedy_seats=[1, 2, 3]``): decisions a second, and
  seat 0's win rate and mean score, beside the Python evaluation's figure for the same pairing
  (``benchmarks/core/heuristics_table.json``).

Usage:
    taskset -c 1 python experiments/scripts/core_heuristics.py [--games 20000] \\
        [--json experiments/results/core/heuristics_core.json]
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import time

import numpy as np

from big2_env.players.kernels import play_random


def timed(n_games: int, seed: int, **seats: object) -> dict:
    """Play ``n_games`` in the core with the given seats; the speed and seat 0's results."""
    play_random(1, seed=seed, **seats)  # compile (or load) the kernels first
    start = time.perf_counter()
    games = play_random(n_games, seed=seed, **seats)
    seconds = time.perf_counter() - start
    decisions = int(np.sum(games.turns))
    return {"games": n_games, "seconds": round(seconds, 3), "games_per_s": n_games / seconds,
            "decisions_per_s": decisions / seconds, "decisions_per_game": decisions / n_games,
            "seat0_win_rate": float(np.mean(games.winners == 0)), "seat0_mean_score": float(np.mean(games.scores[:, 0]))}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000, help="games per measurement (default 20,000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None, help="write the figures to this JSON file")
    args = parser.parse_args(argv)
    if args.games < 1 or args.seed < 0:
        parser.error("--games must be positive and --seed non-negative")
    rows = {"smart_all": timed(args.games, args.seed, smart_seats=range(4)),
            "random_vs_greedy": timed(args.games, args.seed, greedy_seats=[1, 2, 3])}
    for name, row in rows.items():
        print(f"{name}: {row['games_per_s']:,.0f} games/s, {row['decisions_per_s'] / 1e6:.2f} M decisions/s; "
              f"seat 0 wins {row['seat0_win_rate']:.1%}, mean score {row['seat0_mean_score']:+.2f}")
    if args.json:
        record = {"date": datetime.date.today().isoformat(), "python": platform.python_version(),
                  "seed": args.seed, "rows": rows}
        with open(args.json, "w") as f:
            f.write(json.dumps(record, indent=1) + "\n")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
