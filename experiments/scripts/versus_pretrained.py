"""Does a network trained under the paper's rules beat the shipped ``pretrained``? The rule fixed before measuring.

A candidate (a checkpoint of the paper-rules run, a weight average, a fork) replaces ``pretrained``
only if its mean win rate over three Random, Greedy and Smart (at argmax, ``--games`` games each) is
higher than ``pretrained``'s on both of two deal sets:

* ``pretrained``'s own deals (seed 2026, one job, as ``big2 eval --seed 2026``), against
  ``pretrained_eval_{random,greedy,smart}.json``, the shipped file's own figures;
* fresh deals (seed 0, two jobs), against ``SHIPPED_seed0.json``, the shipped file's figures there
  (:data:`SHIPPED` names the candidate that was shipped; the weight average shipped before it was
  measured there as ``swa_seed0.json``).

Argmax against the seeded heuristics is deterministic for a given seed and job count, so a file
written here is reproduced exactly by its command.

Writes ``TAG_on_pretrained_deals.json`` and ``TAG_seed0.json`` under ``--dir`` (each: the three
classes' win rates and mean scores with their 95% intervals, the mean win rate beside
``pretrained``'s, and whether it is higher) and prints the verdict.

Usage:
    python experiments/scripts/versus_pretrained.py MODEL TAG --label "what MODEL is" [--run RUN] [--games 1000]

``--run``: the training run that made MODEL; its last logged game count is kept as ``fork_games``.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path
from typing import Any

OPPONENTS = ("random", "greedy", "smart")
DIR = Path(__file__).resolve().parents[1] / "results" / "learner" / "paper_rules"
SHIPPED = "rand100b"
"""The tag of the candidate shipped as ``pretrained`` (its files, ``SHIPPED_*.json``, hold its figures)."""
DEAL_SETS: dict[str, tuple[int, int, str]] = {
    "on_pretrained_deals": (2026, 1, "pretrained_eval_{opponent}.json"),
    "seed0": (0, 2, f"{SHIPPED}_seed0.json"),
}
"""Each deal set: its evaluation seed, its job count, and the file holding ``pretrained``'s figures on it."""


def reference_win_rates(folder: Path, deal_set: str) -> dict[str, float]:
    """``pretrained``'s win rate against each class on ``deal_set``, read from its figures in ``folder``."""
    pattern = DEAL_SETS[deal_set][2]
    rates = {}
    for opponent in OPPONENTS:
        path = folder / pattern.format(opponent=opponent)
        if not path.is_file():
            raise SystemExit(f"pretrained's figures are missing: no {path}")
        figures = json.loads(path.read_text())
        rates[opponent] = float(figures["vs"][opponent]["win_rate"] if "vs" in figures else figures["win_rate"])
    return rates


def last_games(run: Path) -> int:
    """The self-play games the run at ``run`` had trained (its ``train_log.csv``'s last row)."""
    with (run / "train_log.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    return int(rows[-1]["games"]) if rows else 0


def measure_deal_set(model: str, deal_set: str, games: int, progress: bool = True) -> dict[str, dict[str, Any]]:
    """``model`` at argmax against three of each class, ``games`` games each, on ``deal_set``'s deals."""
    from big2_env import evaluate
    from big2_env.evaluation.loading import load_agent

    seed, jobs, _ = DEAL_SETS[deal_set]
    found: dict[str, dict[str, Any]] = {}
    for opponent in OPPONENTS:
        agent = load_agent(model, "paper", what="MODEL")
        agent.deterministic = True  # type: ignore[attr-defined]
        result = evaluate(agent, opponent, n_games=games, seed=seed, rules="paper", jobs=jobs, progress=progress)
        found[opponent] = {"games": games, **result.figures()}
        print(f"{deal_set} vs {opponent}: {result.win_rate:.1%} {result.mean_score:+.2f}", flush=True)
    return found


def measure(model: str, tag: str, label: str, games: int = 1000, folder: Path = DIR, run: Path | None = None,
            progress: bool = True) -> dict[str, dict]:
    """Measure ``model`` on both deal sets, write ``TAG_*.json`` in ``folder``; returns them by deal set."""
    if not tag or "/" in tag:
        raise SystemExit(f"TAG names the files TAG_*.json: a name without '/'; got {tag!r}")
    references = {deal_set: reference_win_rates(folder, deal_set) for deal_set in DEAL_SETS}
    written = {}
    for deal_set, (seed, jobs, reference_file) in DEAL_SETS.items():
        vs = measure_deal_set(model, deal_set, games, progress)
        mean = sum(float(vs[o]["win_rate"]) for o in OPPONENTS) / len(OPPONENTS)
        reference = sum(references[deal_set].values()) / len(OPPONENTS)
        job_flag = f" --jobs {jobs}" if jobs != 1 else ""
        figures = {
            "agent": label, "rules": "paper", "argmax": True, "seed": seed, "jobs": jobs,
            "command": f"big2 eval --agent MODEL --opponent {{random,greedy,smart}} --argmax --games {games} "
                       f"--seed {seed} --rules paper{job_flag} (python experiments/scripts/versus_pretrained.py MODEL {tag})",
            "date": time.strftime("%Y-%m-%d"),
            "vs": vs, "mean_win_rate": mean, "pretrained_mean_win_rate": reference,
            "pretrained_figures": reference_file.format(opponent="{random,greedy,smart}"),
            "higher_than_pretrained": mean > reference,
        }
        if run is not None:
            figures["fork_games"] = last_games(run)
        path = folder / f"{tag}_{deal_set}.json"
        path.write_text(json.dumps(figures, indent=1) + "\n")
        written[deal_set] = figures
        print(f"{deal_set}: mean win rate {mean:.1%} against pretrained's {reference:.1%} -> {path}", flush=True)
    ships = all(f["higher_than_pretrained"] for f in written.values())
    print("replaces pretrained" if ships else "does not replace pretrained (the rule: a higher mean win rate on both deal sets)")
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("model", help="the candidate: a .pt model file, a run folder or an agent spec")
    parser.add_argument("tag", help="names the files written: TAG_on_pretrained_deals.json and TAG_seed0.json")
    parser.add_argument("--label", required=True, help="what the candidate is, kept in the files")
    parser.add_argument("--run", type=Path, default=None, help="the run that made it (its game count is kept)")
    parser.add_argument("--games", type=int, default=1000, help="games against each class on each deal set")
    parser.add_argument("--dir", type=Path, default=DIR, help="where pretrained's figures are and the files go")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    if args.games < 1:
        sys.exit(f"--games must be at least 1; got {args.games}")
    if args.run is not None and not (args.run / "train_log.csv").is_file():
        sys.exit(f"--run must be a training run folder with a train_log.csv; got {str(args.run)!r}")
    measure(args.model, args.tag, args.label, args.games, args.dir, args.run, not args.no_progress)


if __name__ == "__main__":
    main()
