"""Search settings on paired, seat-rotated deals: one search seat against three copies of an opponent.

Every deal is played four times, the search once in each seat (``evaluate(..., duplicate=True)``),
and every run with the same ``--deals`` and ``--seed`` plays the same deals, so two settings
differ only by what the settings change. This is how the nested rollouts were compared with
the one-ply search (experiments/search-strength.md):

    python experiments/scripts/search_paired.py --opponent smart --deals 150 --options '{"inner": 0, "budget": 320}'
    python experiments/scripts/search_paired.py --opponent smart --deals 150 --options '{"inner": 4, "budget": 320}'
    python experiments/scripts/search_paired.py --opponent random --deals 250      # the default search, 1000 games

``--network AGENT`` puts a network (``pretrained-default-recipe``, a model file or a run folder) into the search:
``--network-as prior`` ranks the candidates by it, ``value`` judges the leaves by its value head
(``--options '{"value_weight": W}'`` mixes it with the rollouts), ``both`` does both. Equal time
a decision is a budget in seconds for both sides, e.g. ``--options '{"budget": "0.03s"}'``.

Prints the win rate and mean score with 95% intervals and the time; ``--json`` writes them.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from typing import Any

from big2_env import evaluate
from big2_env.records import portable
from big2_env.evaluation.loading import load_agent
from big2_env.players.search import SearchPolicy

NETWORK_ROLES = ("prior", "value", "both")


def network_options(spec: str | None, role: str) -> dict[str, Any]:
    """The search's keyword arguments that put the network ``spec`` names in ``role`` (none without one)."""
    if spec is None:
        return {}
    network = load_agent(spec, what="--network", seed=0)
    if not callable(getattr(network, "state_values", None)):
        raise ValueError(f"--network must name a network (a model file, run folder or pretrained-default-recipe); got {spec!r}")
    network.deterministic = True
    roles = ("prior", "value") if role == "both" else (role,)
    return {name: network for name in roles}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponent", default="smart", help="the three opponents (any agent spec; default smart)")
    parser.add_argument("--deals", type=int, default=150, help="deals, each played in all four seats (default 150)")
    parser.add_argument("--options", default="{}", help="SearchPolicy keyword arguments as JSON (default: the defaults)")
    parser.add_argument("--rules", default="paper", help="rules preset (default paper)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--network", metavar="AGENT",
                        help="a network in the search (pretrained-default-recipe, a .pt file, a run folder; "
                        "as the value, a network of the paper's design)")
    parser.add_argument("--network-as", choices=NETWORK_ROLES, default="both", help="its role (default both)")
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    options = json.loads(args.options)
    try:
        search = SearchPolicy(args.rules, seed=0, **options, **network_options(args.network, args.network_as))
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    started = time.perf_counter()
    result = evaluate(search, args.opponent, n_games=args.deals, duplicate=True, seed=args.seed, rules=args.rules)
    elapsed = time.perf_counter() - started
    (low, high), (score_low, score_high) = result.win_rate_ci, result.mean_score_ci
    network = f" with {args.network} as {args.network_as}" if args.network else ""
    print(f"search {options or '(defaults)'}{network} (inner={search.inner}, budget={search.budget}) "
          f"against three {args.opponent}, "
          f"{args.deals} deals x 4 seats: win rate {result.win_rate:.1%} [{low:.1%}, {high:.1%}], mean score "
          f"{result.mean_score:+.2f} [{score_low:+.2f}, {score_high:+.2f}] ({elapsed:.0f} s)")
    if args.json:
        figures = portable({  # the network's file by its name, not this machine's path
            "options": options, "network": args.network, "network_as": args.network_as if args.network else None,
            "inner": search.inner, "budget": search.budget, "opponent": args.opponent,
            "deals": args.deals, "games": result.n_games, "seed": args.seed, "rules": args.rules,
            "win_rate": result.win_rate, "win_rate_ci": [low, high], "mean_score": result.mean_score,
            "mean_score_ci": [score_low, score_high], "elapsed_s": elapsed,
            "command": f"python experiments/scripts/search_paired.py --opponent {args.opponent} --deals {args.deals} "
                       f"--options '{args.options}' --rules {args.rules} --seed {args.seed}"
                       + (f" --network {args.network} --network-as {args.network_as}" if args.network else ""),
        })
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
