"""The search with the fast learned model in its rollouts, against three copies of Charlesworth's network.

Two designs, on the same paired, seat-rotated deals as ``experiments/scripts/search_paired.py --seed 7``
(so the default search's figure there is the baseline):

* ``nested``: the opponents play the fast model sampled (its shipped weights for his rules), the
  searcher's own later moves Smart's with the default nested search (``rollout="fast-sample"``);
* ``own``: the searcher's own later moves are the fast model's too, with no nested search
  (``FastRollout(own=True)``, ``inner=0``).

Usage:
    python experiments/scripts/search_fast_rollouts.py nested|own --params PATH [--deals 100] [--seed 7]
"""

from __future__ import annotations

import argparse

from big2_env import evaluate
from big2_env.players.search import FastRollout, SearchPolicy


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("design", choices=("nested", "own"))
    parser.add_argument("--params", required=True, help="Charlesworth's parameter file (modelParameters136500)")
    parser.add_argument("--deals", type=int, default=100, help="deals, each played in all four seats (default 100)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    own = args.design == "own"
    search = SearchPolicy("charlesworth", rollout=FastRollout(rules="charlesworth", sample=True, own=own),
                          inner=0 if own else None, seed=0)
    result = evaluate(search, f"charlesworth:{args.params}", n_games=args.deals, seed=args.seed, rules="charlesworth",
                      duplicate=True)
    (low, high), (s_low, s_high) = result.win_rate_ci, result.mean_score_ci
    print(f"{args.design} (inner={search.inner}), {args.deals} deals x 4 seats: win rate {result.win_rate:.1%} "
          f"[{low:.1%}, {high:.1%}], mean score {result.mean_score:+.2f} [{s_low:+.2f}, {s_high:+.2f}] "
          f"({result.elapsed_s:.0f} s)")


if __name__ == "__main__":
    main()
