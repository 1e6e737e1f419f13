"""What search-net's model check sees: the other seats' log-likelihood ratio, by opponent.

The model check (``NetworkSearch(model_check=NATS)``, docs/opponents.md) keeps the blueprint's
move while the other seats' moves so far are on average more than ``NATS`` a move less likely
under the network than under a uniform choice among their legal moves. This script plays the
network alone (argmax; ``pretrained-charlesworth`` under his rules against his network,
``pretrained`` under the paper's against Smart, Greedy and Random) and, at each of its
decisions with a choice, computes that ratio as the check would (:meth:`NetworkSearch.model_ratio`).
It prints, for each opponent, the ratio's quantiles over the decisions where the check judges,
and the share of them that each threshold would keep the blueprint's move on (``kept``, in the
order of ``thresholds``):

    python benchmarks/model_check.py --params PATH --games 60 --seed 5 --json benchmarks/search_net/model_check.json

The threshold of the measured runs (1.5 nats) was read from this table: it keeps the move on most
of the decisions against Random, on fewer against his network.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from big2_env import evaluate

OPPONENTS = ("charlesworth", "smart", "greedy", "random")
THRESHOLDS = (1.0, 1.5, 2.0)
QUANTILES = (10, 25, 50, 75, 90)


def ratios(opponent: str, params: str | None, games: int, seed: int) -> list[float]:
    """The model check's ratio at every decision with a choice of the network alone against three ``opponent``."""
    import torch

    from agents.net_search import NetworkSearch, _Position

    torch.set_num_threads(1)
    if opponent == "charlesworth":
        rules, spec = "charlesworth", f"charlesworth:{params}"
    else:
        rules, spec = "paper", opponent
    seen: list[float] = []

    class Watch(NetworkSearch):
        """The network's argmax, with the check's ratio noted at each decision with a choice."""

        def _act(self, obs: Mapping[str, Any]) -> int:
            probabilities = self.network.probabilities(obs)
            if len(probabilities) > 1:
                ratio = self.model_ratio(_Position.of(obs, self.rules))
                if ratio is not None:
                    seen.append(ratio)
            return int(max(probabilities, key=lambda a: probabilities[a]))

    watch = Watch.from_spec(None, rules=rules, budget=16, model_check=0.0, seed=seed)
    evaluate(watch, spec, n_games=games, seed=seed, rules=rules, progress=True)
    return seen


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params",
                        help="Charlesworth's parameter file (modelParameters136500); without it his network is left out")
    parser.add_argument("--games", type=int, default=60, help="games against each opponent (default 60)")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.params and not Path(args.params).is_file():
        parser.error(f"--params {args.params!r} is not a file")
    figures: dict[str, Any] = {"games": args.games, "seed": args.seed, "thresholds": list(THRESHOLDS),
                               "quantiles": list(QUANTILES), "opponents": {},
                               "command": f"python benchmarks/model_check.py{' --params PATH' if args.params else ''} "
                                          f"--games {args.games} --seed {args.seed}"}
    for opponent in OPPONENTS:
        if opponent == "charlesworth" and not args.params:
            print("his network left out: no --params", file=sys.stderr)
            continue
        values = np.asarray(ratios(opponent, args.params, args.games, args.seed))
        row: dict[str, Any] = {"decisions": int(len(values)),
               "quantiles": [float(x) for x in np.percentile(values, QUANTILES)] if len(values) else [],
               "kept": [float((values < -t).mean()) if len(values) else 0.0 for t in THRESHOLDS]}
        figures["opponents"][opponent] = row
        print(f"{opponent:12s} {row['decisions']:5d} decisions judged; ratio quantiles {QUANTILES}: "
              + " ".join(f"{x:+.2f}" for x in row["quantiles"])
              + "; kept below -T: " + " ".join(f"{t}: {k:.0%}" for t, k in zip(THRESHOLDS, row["kept"])))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
