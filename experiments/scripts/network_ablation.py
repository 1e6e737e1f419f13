"""The network ablation of issue 12: each component added one at a time, same budget, same deals.

Rows (every PPO row: current-policy self-play, entropy 0.05, lr 3e-4, scores / 13, the
shipped agent's recipe, ``--batches`` batches of 64 games, seed 0):

1. ``paper``: the paper's network;
2. ``plus``: the stronger design (``--model design=plus``: MLP scorer over state, candidate
   and the hand it leaves; full-rank card sets; own hand size);
3. ``plusext``: ``plus`` reading the extended observation (``observation=extended``);
4. ``distill``: ``plusext`` learned from the search agent alone (``--algo distill --teacher
   search:64``, ``--distill-batches`` batches of 48 teacher games, lr 5e-4);
5. ``distill_ppo``: PPO from the ``distill`` weights (``--init``), ``--batches`` batches at lr 1e-4
   (a smaller rate, not to wash out what was distilled in the first batches).

Every row's final model is evaluated with the paper's protocol on the same deals
(``--eval-games`` seat-randomised games per opponent class, seed ``--eval-seed``),
sampling from its policy and at its argmax: the argmax column is the fourth component.

Usage::

    python experiments/scripts/network_ablation.py --runs runs/ablation --batches 500 --distill-batches 30

Resumable: each run trains in ``RUNS/NAME`` and continues from its checkpoint; finished runs
are evaluated (and their evaluation reused from ``final_eval.json``). The table goes to
``--report`` (default ``experiments/results/ablation/REPORT.md``) with a ``results.json`` beside it.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

OPPONENTS = ("random", "greedy", "smart")
PLUS = {"design": "plus"}
PLUS_EXT = {"design": "plus", "observation": "extended"}
ROWS: dict[str, tuple[str, dict[str, Any]]] = {
    "paper": ("paper network, PPO", {"model": {}}),
    "plus": ("+ plus scorer (design=plus), PPO", {"model": PLUS}),
    "plusext": ("+ extended observation, PPO", {"model": PLUS_EXT}),
    "distill": ("+ distillation alone", {"model": PLUS_EXT, "algo": "distill"}),
    "distill_ppo": ("+ distillation, then PPO", {"model": PLUS_EXT, "init": "distill", "lr": 1e-4}),
}
PPO_RECIPE = {"algo": "ppo", "preset": "paper", "env": "engine", "lr": 3e-4, "reward_scale": 0.0769230769,
              "games_per_batch": 64}  # the recipe of its report: the paper's minibatches and epochs, 10x its lr
DISTILL_RECIPE = {"teacher": "search:64", "lr": 5e-4, "games_per_batch": 48}


def train_row(name: str, runs: Path, options: argparse.Namespace) -> dict[str, Any]:
    """Train (or resume, or reuse) one row; returns its training summary."""
    from agents.config import TrainArgs
    from agents.train import train

    label, spec = ROWS[name]
    distill = {**DISTILL_RECIPE, "teacher": options.teacher, "games_per_batch": options.distill_games}
    recipe = dict(distill if spec.get("algo") == "distill" else {**PPO_RECIPE, "games_per_batch": options.games_per_batch})
    recipe.update({k: v for k, v in spec.items() if k != "init"})
    if "init" in spec:
        recipe["init"] = str(runs / spec["init"])
    out = runs / name
    budget = options.distill_batches if recipe["algo"] == "distill" else options.batches
    args = TrainArgs(**recipe, batches=budget, seed=0, out=str(out), eval_every=0, eval_games=200, threads=1, workers=1,
                     progress=False, tensorboard=False, device="cpu")
    resume = (out / "checkpoint.pt").is_file()
    mutable = {"batches", "eval_every", "eval_games", "threads", "workers", "progress", "tensorboard", "device"}
    print(f"[{time.strftime('%H:%M:%S')}] {name}: {budget} batches", flush=True)
    result = train(args, resume=resume, explicit=mutable)
    return {"label": label, "batches": result.batch, "games": result.games, "decisions": result.decisions,
            "train_s": result.elapsed_s}


def evaluate_row(name: str, runs: Path, eval_games: int, eval_seed: int) -> dict[str, Any]:
    """Sampled and argmax results against each opponent class, on the same deals."""
    from agents.policy import NetworkPolicy
    from big2_env.evaluation.versus import evaluate

    results: dict[str, Any] = {}
    for mode in ("sampled", "argmax"):
        policy = NetworkPolicy.from_file(str(runs / name / "model.pt"), name=name, deterministic=mode == "argmax")
        for opponent in OPPONENTS:
            r = evaluate(policy, opponent, n_games=eval_games, seed=eval_seed)
            results[f"{mode}/{opponent}"] = r.figures()
    return results


def write_report(records: dict[str, dict[str, Any]], path: Path, options: argparse.Namespace) -> None:
    lines = [
        "# Network ablation (issue 12)",
        "",
        f"`python experiments/scripts/network_ablation.py --batches {options.batches} "
        f"--distill-batches {options.distill_batches}`: "
        f"PPO rows {options.batches} batches of 64 games (current self-play, entropy 0.05, lr 3e-4, scores / 13, seed 0); "
        f"{options.eval_games} seat-randomised games per opponent class, seed {options.eval_seed}, the same deals for "
        "every row. Win rate [95% CI], mean score. Training time on one core of the 2-core machine.",
        "",
        "| row | training | mode | vs Random | vs Greedy | vs Smart |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, record in records.items():
        train_note = f"{record['batches']} batches, {record['train_s'] / 60:.0f} min"
        if name == "distill_ppo" and "distill" in records:
            total = (record["train_s"] + records["distill"]["train_s"]) / 60
            train_note += f" ({total:.0f} min with distill)"
        for mode in ("sampled", "argmax"):
            cells = []
            for opponent in OPPONENTS:
                r = record["results"][f"{mode}/{opponent}"]
                lo, hi = r["win_rate_ci"]
                cells.append(f"{r['win_rate']:.1%} [{lo:.1%}, {hi:.1%}], {r['mean_score']:+.2f}")
            lines.append(f"| {record['label']} | {train_note} | {mode} | " + " | ".join(cells) + " |")
    lines += ["", "The paper's PPO (entropy 0.05, 5,000 batches): 90.1% / 64.8% / 43.5%.", ""]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines))
    (path.parent / "results.json").write_text(json.dumps(records, indent=2) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="runs/ablation", help="folder of the training runs")
    parser.add_argument("--batches", type=int, default=500, help="PPO batches per row")
    parser.add_argument("--distill-batches", type=int, default=30, help="distill batches (48 teacher games each)")
    parser.add_argument("--games-per-batch", type=int, default=64, help="PPO games per batch")
    parser.add_argument("--teacher", default="search:64", help="distill's teacher")
    parser.add_argument("--distill-games", type=int, default=48, help="teacher games per distill batch")
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--eval-seed", type=int, default=2026)
    parser.add_argument("--rows", default=",".join(ROWS), help=f"comma-separated subset of {', '.join(ROWS)}")
    parser.add_argument("--report", default=str(ROOT / "experiments" / "results" / "ablation" / "REPORT.md"))
    options = parser.parse_args()
    rows = [r for r in options.rows.split(",") if r]
    unknown = sorted(set(rows) - set(ROWS))
    budgets = (options.batches, options.distill_batches, options.eval_games, options.games_per_batch, options.distill_games)
    if unknown or min(budgets) <= 0:
        parser.error(f"unknown rows {unknown} or a non-positive budget" if unknown else "budgets must be positive")
    import torch

    torch.set_num_threads(1)
    runs = Path(options.runs)
    records: dict[str, dict[str, Any]] = {}
    for name in rows:
        record = train_row(name, runs, options)
        saved = runs / name / "final_eval.json"
        cached = json.loads(saved.read_text()) if saved.is_file() else {}
        if cached.get("batches") == record["batches"] and cached.get("eval") == [options.eval_games, options.eval_seed]:
            record["results"] = cached["results"]
        else:
            record["results"] = evaluate_row(name, runs, options.eval_games, options.eval_seed)
            saved.write_text(json.dumps({**record, "eval": [options.eval_games, options.eval_seed]}, indent=2) + "\n")
        records[name] = record
        print(f"[{time.strftime('%H:%M:%S')}] {name}: " + ", ".join(
            f"{k} {v['win_rate']:.1%}" for k, v in record["results"].items()), flush=True)
        write_report(records, Path(options.report), options)
    print(Path(options.report).read_text())


if __name__ == "__main__":
    main()
