"""A duel with Charlesworth's published network: one agent against three copies of it, seat-rotated.

Every deal is played four times, the agent once in each seat (``evaluate(..., duplicate=True)``),
as seed paper 004 evaluates against the same network, under his rules (the ``charlesworth``
preset). Prints the agent's win rate (parity 25%) and mean score a game (parity 0) with 95%
intervals, and writes them as JSON with ``--json``.

His parameter file is not part of this package (his repository has no licence): download
``modelParameters136500`` from github.com/henrycharlesworth/big2_PPOalgorithm and pass its
path. It is read without unpickling (:mod:`big2_env.players.charlesworth`).

Usage:
    python benchmarks/charlesworth_duel.py --params PATH [--agent search] [--deals 1000] [--jobs 2]
        [--greedy] [--argmax] [--seed 0] [--json benchmarks/charlesworth/search.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path

from big2_env import evaluate
from big2_env.records import portable
from big2_env.evaluation.loading import load_agent


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params", required=True, help="Charlesworth's parameter file (modelParameters136500)")
    parser.add_argument("--agent", default="search", help="the agent spec (default: search)")
    parser.add_argument("--deals", type=int, default=1000, help="deals, each played in all four seats (default 1000)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--greedy", action="store_true",
                        help="his network takes its most likely action (default: it samples, as his agent does)")
    parser.add_argument("--argmax", action="store_true",
                        help="a network agent plays its argmax (as `big2 eval --argmax`; pretrained-charlesworth does anyway)")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    if args.deals < 1 or args.jobs < 1:
        parser.error("--deals and --jobs must be at least 1")
    if not Path(args.params).is_file():
        sys.exit(f"no such file {args.params!r}: download modelParameters136500 from his repository")
    opponent = f"charlesworth{'-greedy' if args.greedy else ''}:{args.params}"
    agent = load_agent(args.agent, "charlesworth", what="--agent")
    if args.argmax and hasattr(agent, "deterministic"):
        agent.deterministic = True
    result = evaluate(agent, opponent, n_games=args.deals, seed=args.seed, rules="charlesworth",
                      duplicate=True, jobs=args.jobs, progress=True)
    print(result)
    low, high = result.win_rate_ci
    score_low, score_high = result.mean_score_ci
    print(f"{args.agent} against three copies of Charlesworth's network, {args.deals} deals x 4 seats: "
          f"win rate {result.win_rate:.1%} [{low:.1%}, {high:.1%}], mean score {result.mean_score:+.2f} "
          f"[{score_low:+.2f}, {score_high:+.2f}] ({result.elapsed_s:.0f} s)")
    if args.json:
        figures = {
            "agent": portable(args.agent), "argmax": args.argmax,
            "opponent": "charlesworth" + ("-greedy" if args.greedy else ""), "deals": args.deals,
            "games": result.n_games, "seed": args.seed, "rules": "charlesworth", **result.figures(),
            "ci_method": result.ci_method, "elapsed_s": result.elapsed_s,
            "machine": platform.machine(),
            "command": f"python benchmarks/charlesworth_duel.py --params PATH --agent {portable(args.agent)} "
                       f"--deals {args.deals} --jobs {args.jobs} --seed {args.seed}" + (" --greedy" if args.greedy else "")
                       + (" --argmax" if args.argmax else ""),
        }
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
