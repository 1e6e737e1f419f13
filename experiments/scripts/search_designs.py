"""One point of a search design's strength-against-time curve: a time per decision, seat-rotated deals.

The designs (issue 37), each given the same time per decision on one core:

* ``search``: the shipped search (nested determinised rollouts, Smart in every rollout seat);
* ``search-fast``: the same search with the fast learned model (sampled) playing the opponents'
  seats of every rollout (``SearchPolicy(rollout="fast-sample")``, the shipped weights for the rules);
* ``ismcts``: information-set MCTS (:class:`~big2_env.players.ismcts.ISMCTSPolicy`, Smart below the tree).

Against three Smart (paper rules, the deals of ``search_paired.py --seed 7``) or three copies of
Charlesworth's network (his rules, the deals of ``charlesworth_duel.py --seed 0``), so that every
design at every time plays the same deals as the default search's points. Each run writes
``DIR/curve_<design>_<opponent>_<T>s.json``, which ``experiments/scripts/search_curve.py`` reads and
draws::

    taskset -c 0 python experiments/scripts/search_designs.py --design search-fast --opponent smart --seconds 0.25 --deals 50
    taskset -c 0 python experiments/scripts/search_designs.py --design ismcts --opponent charlesworth --params PATH \\
        --seconds 1 --deals 25

``taskset`` keeps the run on one core, so a time budget buys what it buys on an idle core. The
default search's own points keep their older names (``curve_<opponent>_<T>s.json``).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

from big2_env import evaluate
from big2_env.players.base import Policy

DESIGNS = ("search", "search-fast", "ismcts")
OPPONENTS = {"smart": ("paper", 7), "charlesworth": ("charlesworth", 0)}  # rules and deal seed of each


def make_design(design: str, seconds: float, rules: str) -> Policy:
    """The design's policy with ``seconds`` a decision, seeded 0 as the other benchmarks seed it."""
    budget = f"{seconds:g}s"
    if design == "ismcts":
        from big2_env.players.ismcts import ISMCTSPolicy

        return ISMCTSPolicy(rules, budget=budget, seed=0)
    from big2_env.players.search import SearchPolicy

    rollout = "fast-sample" if design == "search-fast" else "smart"
    return SearchPolicy(rules, budget=budget, rollout=rollout, seed=0)


def curve_path(folder: Path, design: str, opponent: str, seconds: float) -> Path:
    """Where the point goes (the default search's points keep their older names)."""
    prefix = "curve" if design == "search" else f"curve_{design}"
    return folder / f"{prefix}_{opponent}_{seconds:g}s.json"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--design", choices=DESIGNS, required=True)
    parser.add_argument("--opponent", choices=sorted(OPPONENTS), required=True)
    parser.add_argument("--seconds", type=float, required=True, help="time per decision (s)")
    parser.add_argument("--deals", type=int, required=True, help="deals, each played in all four seats")
    parser.add_argument("--params", help="Charlesworth's parameter file (modelParameters136500), for --opponent charlesworth")
    parser.add_argument("--dir", default="experiments/results/search",
                        help="where to write the point (default experiments/results/search)")
    args = parser.parse_args(argv)
    if args.deals < 1 or not 0 < args.seconds <= 60:
        parser.error("--deals must be at least 1 and --seconds in (0, 60]")
    rules, seed = OPPONENTS[args.opponent]
    if args.opponent == "charlesworth":
        if not args.params or not Path(args.params).is_file():
            sys.exit("--opponent charlesworth needs --params PATH, his modelParameters136500 file")
        opponent = f"charlesworth:{args.params}"
    else:
        opponent = "smart"
    agent = make_design(args.design, args.seconds, rules)
    started = time.perf_counter()
    result = evaluate(agent, opponent, n_games=args.deals, duplicate=True, seed=seed, rules=rules, progress=True)
    elapsed = time.perf_counter() - started
    (low, high), (s_low, s_high) = result.win_rate_ci, result.mean_score_ci
    print(f"{args.design} at {args.seconds:g} s a decision against three {args.opponent}, {args.deals} deals x 4 "
          f"seats: win rate {result.win_rate:.1%} [{low:.1%}, {high:.1%}], mean score {result.mean_score:+.2f} "
          f"[{s_low:+.2f}, {s_high:+.2f}] ({elapsed:.0f} s)")
    figures = {
        "design": args.design, "seconds": args.seconds, "opponent": args.opponent, "rules": rules,
        "deals": args.deals, "games": result.n_games, "seed": seed, "win_rate": result.win_rate,
        "win_rate_ci": [low, high], "mean_score": result.mean_score, "mean_score_ci": [s_low, s_high],
        "elapsed_s": elapsed, "machine": platform.machine(),
        "command": f"python experiments/scripts/search_designs.py --design {args.design} --opponent {args.opponent} "
                   f"--seconds {args.seconds:g} --deals {args.deals}" + (" --params PATH" if args.params else ""),
    }
    output = curve_path(Path(args.dir), args.design, args.opponent, args.seconds)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(figures, indent=2) + "\n")
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
