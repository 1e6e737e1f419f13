"""Table 2 on both measures: forks of the default recipe's 3M-game network with a bonus for going out first.

Our network beats the paper's mean score against Smart and Greedy but wins less often; both learn
from the score. Each fork continues ``pretrained-default-recipe`` (``pretrained`` when measured; the
paper's rules) for ``--games`` self-play games
with ``--win-bonus W`` (the winner's training reward gets W points more than its score; the scores
played and reported are unchanged), at the long run's final learning rate (1e-4, constant). A fork with
W = 0 is the control: the same further training without a bonus.

* ``train``: the forks, one after another, into ``RUNS/bonus_W`` (``--resume`` continues any that stopped).
* ``measure``: each fork (and ``pretrained-default-recipe`` itself) at argmax against three Random, Greedy and Smart,
  1000 games each on the same deals (seed 2026, as the shipped networks' own figures), written to
  ``experiments/results/learner/win_bonus.json`` and printed as a table beside the paper's Table 2.

Usage:
    python experiments/scripts/win_bonus.py train --runs RUNS [--weights 0,5,15] [--games 100000]
    python experiments/scripts/win_bonus.py measure --runs RUNS [--weights 0,5,15] [--games 1000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

PAPER = {"random": (0.901, 13.10), "greedy": (0.648, 5.40), "smart": (0.435, 2.00)}
"""The paper's Table 2 (PPO, entropy 0.05): win rate and mean score against three of each."""
OPPONENTS = ("random", "greedy", "smart")
GAMES_PER_BATCH = 512


def fork_command(run: Path, weight: float, games: int) -> list[str]:
    batches = max(1, round(games / GAMES_PER_BATCH))
    return ["big2", "train", "--init", "pretrained-default-recipe", "--rules", "paper", "--out", str(run),
            "--win-bonus", f"{weight:g}",
            "--lr", "1e-4", "--min-lr-fraction", "1", "--warmup-fraction", "0", "--batches", str(batches),
            "--eval-every", "0", "--eval-opponents", "smart", "--eval-games", "200", "--threads", "1", "--no-progress",
            "--seed", "1"]


def train(runs: Path, weights: list[float], games: int) -> None:
    for weight in weights:
        run = runs / f"bonus_{weight:g}"
        command = fork_command(run, weight, games)
        if (run / "checkpoint.pt").is_file():
            command.append("--resume")
        print(" ".join(command), flush=True)
        subprocess.run(command, check=True)


def measure(runs: Path, weights: list[float], games: int, out: Path) -> dict:
    from big2_env import evaluate
    from big2_env.evaluation.loading import load_agent

    agents = {"pretrained-default-recipe (3M games)": "pretrained-default-recipe"}
    agents.update({f"fork, win bonus {w:g}": str(runs / f"bonus_{w:g}" / "model.pt") for w in weights})
    rows = []
    for label, spec in agents.items():
        row: dict = {"agent": label, "vs": {}}
        for opponent in OPPONENTS:
            agent = load_agent(spec, "paper", what="--agent")
            agent.deterministic = True  # type: ignore[attr-defined]
            result = evaluate(agent, opponent, n_games=games, seed=2026, rules="paper", progress=True)
            row["vs"][opponent] = result.figures()
            print(f"{label} vs {opponent}: {result.win_rate:.1%} {result.mean_score:+.2f}", flush=True)
        rows.append(row)
    figures = {"rows": rows, "paper": {k: {"win_rate": v[0], "mean_score": v[1]} for k, v in PAPER.items()},
               "games": games, "seed": 2026, "fork_games": fork_games(runs, weights), "date": time.strftime("%Y-%m-%d"),
               "command": "python experiments/scripts/win_bonus.py measure --runs RUNS --weights "
               + ",".join(f"{w:g}" for w in weights)}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(figures, indent=2) + "\n")
    print(table(figures))
    return figures


def fork_games(runs: Path, weights: list[float]) -> dict[str, int]:
    """The self-play games each fork trained (its ``train_log.csv``'s last row)."""
    import csv

    found = {}
    for weight in weights:
        with (runs / f"bonus_{weight:g}" / "train_log.csv").open(newline="") as handle:
            rows = list(csv.DictReader(handle))
        found[f"{weight:g}"] = int(rows[-1]["games"]) if rows else 0
    return found


def table(figures: dict) -> str:
    lines = ["| agent | vs Random | vs Greedy | vs Smart |", "| --- | --- | --- | --- |"]
    paper = figures["paper"]
    lines.append("| the paper's PPO (Table 2) | " + " | ".join(
        f"{paper[o]['win_rate']:.1%}, {paper[o]['mean_score']:+.2f}" for o in OPPONENTS) + " |")
    for row in figures["rows"]:
        lines.append(f"| {row['agent']} | " + " | ".join(
            f"{row['vs'][o]['win_rate']:.1%}, {row['vs'][o]['mean_score']:+.2f}" for o in OPPONENTS) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("train", "measure"):
        s = sub.add_parser(name)
        s.add_argument("--runs", required=True, type=Path)
        s.add_argument("--weights", default="0,5,15", help="bonus points for going out first, comma separated")
        s.add_argument("--games", type=int, default=100_000 if name == "train" else 1000)
    default_json = Path(__file__).resolve().parents[1] / "results" / "learner" / "win_bonus.json"
    parser.add_argument("--json", type=Path, default=default_json)
    args = parser.parse_args(argv)
    try:
        weights = [float(w) for w in args.weights.split(",") if w]
    except ValueError:
        sys.exit(f"--weights must be numbers separated by commas; got {args.weights!r}")
    if not weights or any(w < 0 for w in weights) or args.games < 1:
        sys.exit("--weights must be non-negative numbers and --games at least 1")
    if args.command == "train":
        train(args.runs, weights, args.games)
    else:
        measure(args.runs, weights, args.games, args.json)


if __name__ == "__main__":
    main()
