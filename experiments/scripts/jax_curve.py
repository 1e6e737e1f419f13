"""The curve of a long JAX PPO run: each policy snapshot against three copies of Charlesworth's network.

``examples/jax_ppo.py --snapshot-every D`` keeps ``snapshots/model_<decisions>.pt`` in its run folder
(in each spell's folder when the run goes in spells). Every snapshot plays the same duel as
``benchmarks/charlesworth_duel.py``: his rules, each deal played four times with the snapshot once in
each seat, the same deals (``--seed``) for every point. Each point keeps the duel's figures with their
95% intervals and the health of the chunk that ended there (read from the run's ``log.json``: entropy,
approximate KL, clip fraction, explained variance, the losses). The snapshots play their argmax, as
``pretrained-charlesworth`` does (``--sample`` samples instead).

The points already in ``--json`` with the same deals, seed and play are kept, so the curve grows as
spells come back. His parameter file is not part of this package: download ``modelParameters136500``
from github.com/henrycharlesworth/big2_PPOalgorithm and pass its path.

Usage:
    python experiments/scripts/jax_curve.py RUN [RUN ...] --params PATH --json experiments/results/jax/curve_a.json
        [--deals 250] [--seed 0] [--jobs 2] [--sample]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from big2_env import evaluate
from big2_env.evaluation.loading import load_agent
from big2_env.records import portable

SNAPSHOT = re.compile(r"model_(\d+)\.pt")
HEALTH = ("update", "entropy", "approx_kl", "clip_fraction", "explained_variance", "policy_loss", "value_loss",
          "grad_norm", "lr", "win_rate_vs_random")


def snapshots(runs: list[Path]) -> dict[int, Path]:
    """Every run folder's ``snapshots/model_<decisions>.pt``, by decisions."""
    found: dict[int, Path] = {}
    for run in runs:
        for path in sorted((run / "snapshots").glob("model_*.pt")):
            match = SNAPSHOT.fullmatch(path.name)
            if match:
                found[int(match[1])] = path
    return dict(sorted(found.items()))


def health(runs: list[Path]) -> dict[int, dict[str, Any]]:
    """Each chunk's health by decisions, from the longest ``log.json`` of the runs (a spell's log holds the earlier ones')."""
    logs = [json.loads((run / "log.json").read_text()) for run in runs if (run / "log.json").is_file()]
    if not logs:
        return {}
    log = max(logs, key=lambda summary: summary["decisions"])["log"]
    return {row["decisions"]: {k: row[k] for k in HEALTH if k in row} for row in log}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run folders (each with snapshots/ and log.json)")
    parser.add_argument("--params", required=True, help="Charlesworth's parameter file (modelParameters136500)")
    parser.add_argument("--deals", type=int, default=250, help="deals, each played in all four seats (default 250)")
    parser.add_argument("--seed", type=int, default=0, help="the deals' seed, the same for every point (default 0)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--sample", action="store_true", help="the snapshots sample their moves (default: argmax)")
    parser.add_argument("--json", required=True, type=Path, help="the curve's results file (its points are kept)")
    args = parser.parse_args(argv)
    if args.deals < 1 or args.jobs < 1:
        parser.error("--deals and --jobs must be at least 1")
    if not Path(args.params).is_file():
        sys.exit(f"no such file {args.params!r}: download modelParameters136500 from his repository")
    found = snapshots(args.runs)
    if not found:
        sys.exit(f"no snapshots/model_<decisions>.pt in {', '.join(map(str, args.runs))}")
    setting = {"opponent": "charlesworth", "deals": args.deals, "seed": args.seed, "rules": "charlesworth",
               "argmax": not args.sample}
    points: dict[int, dict[str, Any]] = {}
    if args.json.is_file():
        kept = json.loads(args.json.read_text())
        if {k: kept.get(k) for k in setting} == setting:
            points = {point["decisions"]: point for point in kept["points"]}
    chunks = health(args.runs)
    for decisions, path in found.items():
        if decisions in points:
            continue
        agent = load_agent(str(path), "charlesworth", what="a snapshot")
        if not args.sample and hasattr(agent, "deterministic"):
            agent.deterministic = True
        result = evaluate(agent, f"charlesworth:{args.params}", n_games=args.deals, seed=args.seed, rules="charlesworth",
                          duplicate=True, jobs=args.jobs)
        low, high = result.win_rate_ci
        print(f"{decisions:>13,d} decisions: win rate {result.win_rate:.1%} [{low:.1%}, {high:.1%}], "
              f"mean score {result.mean_score:+.2f} ({result.elapsed_s:.0f} s)", flush=True)
        points[decisions] = {"decisions": decisions, "snapshot": portable(str(path)), "games": result.n_games,
                             **result.figures(), "ci_method": result.ci_method, "elapsed_s": result.elapsed_s,
                             "health": chunks.get(decisions, {})}
    curve = {
        **setting,
        "points": [points[d] for d in sorted(points)],
        "command": f"python experiments/scripts/jax_curve.py RUN --params PATH --json {portable(str(args.json))} "
                   f"--deals {args.deals} --seed {args.seed}" + (" --sample" if args.sample else ""),
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(portable(curve), indent=1) + "\n")
    return curve


if __name__ == "__main__":
    main()
