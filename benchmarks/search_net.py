"""The search over our network (``search-net``) measured beside the network alone, on the same deals.

Every deal is played four times, the agent once in each seat, against three copies of an opponent:
his published network under his rules (``--opponent charlesworth``, the duel of
``benchmarks/charlesworth_duel.py``), or Smart, Greedy or Random under the paper's rules. For the
search it also records how often its move left the network's argmax and the mean paired gain of
those departures (what its own rollouts measured), its time a decision, and its stranded losses
(games lost with 10 or more cards left). One process: the search's counters are its own.

Usage:
    python benchmarks/search_net.py --agent search-net@0.25s --opponent charlesworth --params PATH \\
        --deals 250 --seed 0 --json benchmarks/search_net/duel_0.25s.json
    python benchmarks/search_net.py --agent search-net@0.25s --opponent smart --deals 250 --json ...
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path

import numpy as np

from big2_env import evaluate
from big2_env.devtools.records import portable
from big2_env.evaluation.loading import load_agent

STRANDED = 10
"""A loss with this many cards or more left is *stranded* (it pays ten points or more)."""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="search-net", help="the agent spec (default: search-net)")
    parser.add_argument("--opponent", default="charlesworth",
                        help="charlesworth (his network, his rules; needs --params), or smart, greedy, random (paper rules)")
    parser.add_argument("--params", help="Charlesworth's parameter file (modelParameters136500)")
    parser.add_argument("--deals", type=int, default=250, help="deals, each played in all four seats (default 250)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--options", default="{}",
                        help='the search\'s keywords as JSON, e.g. \'{"margin": 3, "sample": true}\' (search-net agents)')
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    options = json.loads(args.options)
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    if args.opponent == "charlesworth":
        if not args.params or not Path(args.params).is_file():
            sys.exit("the duel needs --params PATH: modelParameters136500 from github.com/henrycharlesworth/big2_PPOalgorithm")
        rules, opponent = "charlesworth", f"charlesworth:{args.params}"
    elif args.opponent in ("smart", "greedy", "random"):
        rules, opponent = "paper", args.opponent
    else:
        parser.error("--opponent must be charlesworth, smart, greedy or random")
    agent = load_agent(args.agent, rules, what="--agent")
    if options:
        from agents.net_search import NetworkSearch

        if not isinstance(agent, NetworkSearch):
            parser.error("--options applies to search-net agents")
        agent = NetworkSearch(agent.network, agent.rules, budget=agent.budget, name=agent.name, **options)
    if hasattr(agent, "deterministic"):
        agent.deterministic = True  # a network plays its argmax, as the search's blueprint does
    result = evaluate(agent, opponent, n_games=args.deals, seed=args.seed, rules=rules, duplicate=True, progress=True)
    scores = np.asarray(result.scores)
    losses = scores < 0
    stranded = scores <= -STRANDED
    figures = {
        "agent": portable(args.agent), "opponent": args.opponent, "rules": rules, "deals": args.deals,
        "games": result.n_games, "seed": args.seed, "options": options, **result.figures(),
        "stranded_losses": int(stranded.sum()), "losses": int(losses.sum()),
        "stranded_share_of_losses": float(stranded.sum() / max(1, losses.sum())),
        "elapsed_s": result.elapsed_s, "machine": platform.machine(),
        "command": f"python benchmarks/search_net.py --agent {portable(args.agent)} --opponent {args.opponent}"
                   + (" --params PATH" if args.opponent == "charlesworth" else "") + f" --deals {args.deals} --seed {args.seed}"
                   + (f" --options '{json.dumps(options)}'" if options else ""),
    }
    stats = getattr(agent, "stats", None)
    if stats is not None:
        figures["search"] = stats.to_dict()
    print(f"{args.agent} against three {args.opponent}, {args.deals} deals x 4 seats: win rate {result.win_rate:.1%} "
          f"[{result.win_rate_ci[0]:.1%}, {result.win_rate_ci[1]:.1%}], mean score {result.mean_score:+.2f} "
          f"[{result.mean_score_ci[0]:+.2f}, {result.mean_score_ci[1]:+.2f}], stranded {figures['stranded_share_of_losses']:.0%} "
          f"of losses" + (f"; search {figures['search']}" if stats is not None else ""))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
