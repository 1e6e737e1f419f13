"""The learner ablation under Charlesworth's rules (issue 44): each row's run measured the same way.

Each row is a ``big2 train`` run under his rules at an equal budget of games:

* ``measure``: the row's model at argmax against three Random, Greedy and Smart (``--games`` each, seed 0)
  and in the duel against three copies of his network (``--deals`` deals x 4 seats, seed 0, as
  ``benchmarks/charlesworth_duel.py``); written to ``DIR/ROW.json`` with the run's games, decisions/s and
  the explained variance of its critic over its last tenth. Under the rules the run trained on (its
  ``args.json``): his recipe's run under the paper's rules (``--dir experiments/results/learner/paper_rules``) is
  measured against the three heuristics under those, and has no duel, which is under his rules.
  ``--model FILE`` measures another model of the run (a snapshot, a weight average of its snapshots,
  ``big2 average``) beside the run's health; ``--seed S`` plays other deals (a check on fresh deals).
  The batches and games written are the measured file's own (its ``info``; :func:`model_counters`),
  the log's last row only where the file states none, as a weight average does.
* ``collect``: the run's logs, curves, health plot and latest checkpoint copied to ``DIR/ROW/`` (so any
  machine can ``--resume`` it). The health plot is drawn from the whole ``train_log.csv``; the copy keeps
  at most ``LOG_ROWS`` rows, each the mean of as many consecutive batches as that takes (his recipe logs
  a row every 1,280 decisions: about 100,000 rows, 20 MB, over 3M games). Beside them ``pace.json``: the
  run's games a minute over the last tenth of its log and the hours it needs, at that pace and on the lent
  GPU machine, to his file's budget and to 3M games (:func:`pace`).
* ``plot``: every row's evaluation curves against games (win rate and mean score against Smart, from
  each run's ``metrics.csv``, and the duel where a run logs it) in ``DIR/curves.png``, and the table of
  ``DIR/*.json`` printed.

Usage:
    python experiments/scripts/learner_ablation.py measure --row b --run RUN --params PATH [--games 1000] [--deals 1000]
    python experiments/scripts/learner_ablation.py measure --row c_1m --label "(c) at 1M games" --run RUN --params PATH
    python experiments/scripts/learner_ablation.py measure --row swa_c --run RUN --model swa.pt --params PATH [--seed 1]
    python experiments/scripts/learner_ablation.py collect --row b --run RUN
    python experiments/scripts/learner_ablation.py collect --row anneal --run RUN --logs-only --log-rows 2000
    python experiments/scripts/learner_ablation.py plot [--dir experiments/results/learner]
    python experiments/scripts/learner_ablation.py plot --dir experiments/results/learner/paper_rules \\
        --also "the default=experiments/results/long/paper"
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1] / "results" / "learner"
LOG_ROWS = 2000  # the committed logs stay small (the size budget: tests/docs/test_repo_size.py)
FORK_LOG_ROWS = 2000  # a finished fork's log (a few thousand batches): its health plot is drawn from the whole log
LOG_LAST = ("batch", "games", "decisions", "elapsed_s")  # counters: a thinned row keeps its window's last
OPPONENTS = ("random", "greedy", "smart")
HIS_BUDGET = 136_500 * 1_280  # his file's decisions: update 136,500 of 1,280 decisions
GOALS = {"his_budget": ("decisions", HIS_BUDGET), "3m_games": ("games", 3_000_000)}  # a run's pace: hours to these
ROWS = {
    "a": "(a) the default recipe",
    "b": "(b) the default with the full critic",
    "c": "(c) his recipe (--preset charlesworth)",
    "d": "(d) his features in our network",
    "e": "(e) the full critic with the best recipe",
}


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def run_health(run: Path) -> dict[str, float]:
    """The run's games and decisions (and their ratio: a game's decisions, every forced pass counted), its
    decisions/s and the critic's explained variance (mean of its last tenth of batches)."""
    rows = read_csv(run / "train_log.csv")
    tail = rows[-max(1, len(rows) // 10):]

    def mean(key: str) -> float:
        values = [float(r[key]) for r in tail if r.get(key) not in (None, "")]
        return sum(values) / len(values) if values else float("nan")

    games, decisions = int(rows[-1]["games"]), int(rows[-1]["decisions"])
    return {"batches": int(rows[-1]["batch"]), "games": games, "decisions": decisions,
            "decisions_per_game": decisions / games if games else float("nan"),
            "decisions_per_s": mean("decisions_per_s"), "explained_variance": mean("explained_variance"),
            "policy_explained_variance": mean("policy_explained_variance"), "entropy": mean("entropy"),
            "approx_kl": mean("approx_kl"), "clip_fraction": mean("clip_fraction")}


def model_counters(model: Path, run: Path) -> dict[str, Any]:
    """The batch, games and decisions of the model file measured, as the file states them: a policy file's
    ``info`` (``batch``, ``games``), a checkpoint's counters. A policy file states no decisions: they come from
    the run's row at that batch and games (``train_log.csv``, else ``metrics.csv``), ``None`` where neither
    has one. Empty where the file states no batch and games (a weight average: its ``info`` lists its
    members' games): the run's log then speaks for it."""
    from agents.checkpoint import CHECKPOINT_KIND, read_file

    data = read_file(model)
    info = data if data["kind"] == CHECKPOINT_KIND else (data.get("info") or {})
    if not isinstance(info.get("batch"), int) or not isinstance(info.get("games"), int):
        return {}
    batch, games = int(info["batch"]), int(info["games"])
    decisions = info.get("decisions")
    if not isinstance(decisions, int):
        decisions = logged_decisions(run, batch, games)
    return {"batches": batch, "games": games, "decisions": decisions,
            "decisions_per_game": decisions / games if decisions is not None and games else float("nan")}


def logged_decisions(run: Path, batch: int, games: int) -> int | None:
    """The decisions the run's logs give at ``batch`` with ``games`` (``train_log.csv`` row by row, then the
    evaluations of ``metrics.csv``); ``None`` where neither holds that row (a thinned log may not)."""
    for name in ("train_log.csv", "metrics.csv"):
        if (run / name).is_file():
            for r in read_csv(run / name):
                if r.get("batch") == str(batch) and r.get("games") == str(games) and r.get("decisions"):
                    return int(r["decisions"])
    return None


def pace(rows: list[dict[str, str]], gpu_decisions_per_s: float) -> dict:
    """How fast a run trained over the last tenth of its log's rows (``rows``, a ``train_log.csv``, thinned or
    not), and the hours it needs at that pace to reach each of ``GOALS``, here and on the lent GPU machine at
    ``gpu_decisions_per_s``. Training time only: the log's clock leaves out the evaluations between batches.

    >>> log = [{"batch": str(b), "games": str(30 * b), "decisions": str(1350 * b), "elapsed_s": str(0.3 * b)}
    ...        for b in range(1, 1001)]
    >>> p = pace(log, 9000.0)
    >>> round(p["games_per_minute"]), round(p["hours_to"]["3m_games"]["here"], 2)
    (6000, 8.25)
    """
    tail = rows[-max(2, len(rows) // 10):]
    first, last = tail[0], tail[-1]
    seconds = float(last["elapsed_s"]) - float(first["elapsed_s"])
    if seconds <= 0:
        raise ValueError(f"no training time between the log's rows at batches {first['batch']} and {last['batch']}: "
                         "no pace to measure")
    games, decisions = int(last["games"]), int(last["decisions"])
    decisions_per_s = (decisions - int(first["decisions"])) / seconds
    figures: dict = {"batches": int(last["batch"]), "games": games, "decisions": decisions,
                     "over_batches": [int(first["batch"]), int(last["batch"])],
                     "games_per_minute": 60 * (games - int(first["games"])) / seconds,
                     "decisions_per_s": decisions_per_s, "gpu_decisions_per_s": gpu_decisions_per_s, "hours_to": {}}
    for goal, (unit, target) in GOALS.items():
        to_go = max(0.0, target - decisions if unit == "decisions" else (target - games) * decisions / games)
        figures["hours_to"][goal] = {"target": f"{target:,} {unit}", "here": to_go / decisions_per_s / 3600,
                                     "gpu": to_go / gpu_decisions_per_s / 3600}
    return figures


def measure(row: str, run: Path, params: str, games: int, deals: int, jobs: int, out: Path, label: str = "",
            model: Path | None = None, seed: int = 0) -> dict:
    """The row's figures, written to ``OUT/ROW.json``: ``model`` (default ``RUN/model.pt``; another file of the
    run, such as a snapshot or its weight average) at argmax against the heuristics and in the duel, on the deals of
    ``seed``, beside the run's health. Its batches, games and decisions are the model's (:func:`model_counters`),
    not the log's last row, which may have run on past it; the rest of the health is the log's last tenth."""
    from big2_env import evaluate
    from big2_env.evaluation.loading import load_agent

    model = run / "model.pt" if model is None else model
    rules = run_rules(run)
    if params and rules != "charlesworth":
        raise SystemExit(f"the duel against his network is under his rules; {str(run)!r} trained under {rules!r}: "
                         "leave out --params")
    figures: dict = {"row": row, "label": label or ROWS.get(row, row), "run": run.name, "rules": rules, **run_health(run),
                     **model_counters(model, run), "seed": seed, "vs": {}}
    if model != run / "model.pt":
        figures["model"] = model.name
    for opponent in OPPONENTS:
        agent = load_agent(str(model), rules, what="--agent")
        agent.deterministic = True  # type: ignore[attr-defined]
        result = evaluate(agent, opponent, n_games=games, seed=seed, rules=rules, jobs=jobs, progress=True)
        figures["vs"][opponent] = {"games": games, **result.figures()}
        print(f"{row} vs {opponent}: {result.win_rate:.1%} {result.mean_score:+.2f}", flush=True)
    if params:
        agent = load_agent(str(model), "charlesworth", what="--agent")
        agent.deterministic = True  # type: ignore[attr-defined]
        result = evaluate(agent, f"charlesworth:{params}", n_games=deals, seed=seed, rules="charlesworth", duplicate=True,
                          jobs=jobs, progress=True)
        figures["vs"]["charlesworth"] = {"deals": deals, "games": result.n_games, **result.figures()}
        print(f"{row} vs his network: {result.win_rate:.1%} {result.mean_score:+.2f}", flush=True)
    root, folder = HERE.parents[2], out.resolve()
    where = "" if folder == HERE else f" --dir {folder.relative_to(root) if folder.is_relative_to(root) else out}"
    figures["command"] = (f"python experiments/scripts/learner_ablation.py measure --row {row} --run RUN "
                          + ("--model FILE " if "model" in figures else "") + (f"--seed {seed} " if seed else "")
                          + (f"--params PATH --games {games} --deals {deals}" if params else f"--games {games}") + where
                          + (f' --label "{label}"' if label else ""))
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{row}.json").write_text(json.dumps(figures, indent=2) + "\n")
    return figures


def run_rules(run: Path) -> str:
    """The rules a run trained under, from its ``args.json`` (his, for a run folder without one)."""
    path = run / "args.json"
    return str(json.loads(path.read_text()).get("rules", "charlesworth")) if path.is_file() else "charlesworth"


def collect(row: str, run: Path, out: Path, weights: bool = True, log_rows: int = LOG_ROWS) -> Path:
    """Copy ``run`` to ``OUT/ROW/`` (see the module docstring), its log thinned to ``log_rows`` rows; ``weights=False``
    (``--logs-only``) leaves out the checkpoint, the model and the pace, for a finished fork whose record is its logs
    and measurement."""
    subprocess.run(["big2", "plot", str(run)], check=True, stdout=subprocess.DEVNULL)
    target = out / row
    target.mkdir(parents=True, exist_ok=True)
    for name in ("args.json", "metrics.csv", "learning_curves.png", "training_health.png", "checkpoint.pt", "model.pt"):
        if name.endswith(".pt") and not weights:
            continue
        if (run / name).is_file():
            shutil.copy2(run / name, target / name)
    rows = read_csv(run / "train_log.csv")
    with (target / "train_log.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]) if rows else [], lineterminator="\n")
        writer.writeheader()
        writer.writerows(thinned(rows, log_rows))
    if weights and len(rows) >= 2:
        gpu = json.loads((HERE / "speed_by_machine.json").read_text())["rows"]
        figures = pace(rows, next(r["decisions_per_s"] for r in gpu if "H200" in r["segment"]))
        figures["command"] = f"python experiments/scripts/learner_ablation.py collect --row {row} --run RUN"
        (target / "pace.json").write_text(json.dumps(figures, indent=2) + "\n")
    return target


def thinned(rows: list[dict[str, str]], max_rows: int) -> list[dict[str, str]]:
    """``rows`` (a ``train_log.csv``) in at most ``max_rows`` rows: each the mean of ``k`` consecutive rows
    (``k`` the fewest that fit; the last window may be shorter), the counters (``LOG_LAST``) its last row's
    and a column blank (a probe not run) or ``nan`` (no game ended) in every row of the window left blank."""
    k = max(1, -(-len(rows) // max_rows))
    if k == 1:
        return list(rows)
    out = []
    for start in range(0, len(rows), k):
        window = rows[start:start + k]
        row = {}
        for key in window[0]:
            if key in LOG_LAST:
                row[key] = window[-1][key]
                continue
            values = [float(r[key]) for r in window if r.get(key) not in ("", None, "nan")]
            row[key] = f"{sum(values) / len(values):.6g}" if values else ""
        out.append(row)
    return out


def curves(folder: Path, opponent: str = "smart") -> dict[str, list[dict[str, str]]]:
    """Each row's evaluation rows against ``opponent`` (``charlesworth``: the duel some runs log), from
    ``metrics.csv`` in its collected folder ``DIR/ROW`` or, for a row kept elsewhere (the default's long
    run), in the folder its JSON names; rows with none left out."""
    found = {}
    for row in sorted(ROWS):
        path = folder / row / "metrics.csv"
        if not path.is_file() and (folder / f"{row}.json").is_file():
            path = HERE.parents[2] / json.loads((folder / f"{row}.json").read_text())["run"] / "metrics.csv"
        rows = evaluations(path, opponent) if path.is_file() else None
        if rows is not None:
            found[row] = rows
    return found


def evaluations(metrics: Path, opponent: str) -> list[dict[str, str]] | None:
    """The rows of a run's ``metrics.csv`` against ``opponent``; ``None`` where it logs none (every run
    is evaluated against Smart: its rows are kept, even none)."""
    rows = [r for r in read_csv(metrics) if r["opponent"] == opponent]
    return rows if rows or opponent == "smart" else None


def plot(folder: Path, output: Path, limit: int, also: tuple[tuple[str, Path], ...] = ()) -> Path:
    """Each row's curve against Smart, and each ``also`` (a label and a run folder: another run to set
    beside them, such as the default's long run under the same rules); a third panel draws the duel
    against three copies of his network where a run logs it (``--eval-opponents ...,charlesworth:PATH``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def series(opponent: str) -> dict[str, list[dict[str, str]]]:
        found = {ROWS[row]: rows for row, rows in curves(folder, opponent).items()}
        for label, run in also:
            rows = evaluations(run / "metrics.csv", opponent)
            if rows is not None:
                found[label] = rows
        return {label: [r for r in rows if int(r["games"]) <= limit] for label, rows in found.items()}

    smart, duel = series("smart"), series("charlesworth")
    rules = {run_rules(folder / row) for row in ROWS if (folder / row).is_dir()} | {run_rules(run) for _, run in also}
    panels = [(smart, "win_rate", "win rate against three Smart\n(argmax, 600 games, seed 12345)"),
              (smart, "mean_score", "mean score a game against three Smart")]
    measured = [point for point in duel_points(folder) if point[1] <= limit]
    if duel or measured:
        deals = "/".join(str(n) for n in sorted({int(r["eval_games"]) // 4 for rows in duel.values() for r in rows}))
        panels.append((duel, "win_rate", "win rate against three of his network\n(lines: each run's own duel, "
                       f"{deals or '-'} deals x 4;\npoints: measured, 1000 deals x 4, 95% interval)"))
    figure, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4), sharex=True)
    colours = {label: f"C{i}" for i, label in enumerate(smart)}
    for axis, (found, key, ylabel) in zip(axes, panels):
        for label, rows in found.items():
            axis.plot([int(r["games"]) for r in rows], [float(r[key]) for r in rows], marker="o", markersize=3,
                      label=label, color=colours.get(label))
        if found is duel:
            for row, at, rate, (lo, hi) in measured:
                label = ROWS.get(row, row)
                axis.errorbar([at], [rate], yerr=[[rate - lo], [hi - rate]], fmt="s", markersize=4, capsize=3,
                              color=colours.get(label, "black"), label=None if row in ROWS else f"{row} (a fork, measured)")
            axis.axhline(0.25, color="grey", linestyle="--", linewidth=0.8, label="parity (25%)")
            axis.legend(fontsize=8)
        axis.set_xlabel("games of self-play")
        axis.set_ylabel(ylabel)
        axis.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    named = {"charlesworth": "Charlesworth's rules", "paper": "the paper's rules"}
    figure.suptitle("The learner under " + " and ".join(named.get(r, r) for r in sorted(rules)))
    figure.tight_layout()
    figure.savefig(output, dpi=110)
    plt.close(figure)
    return output


def duel_points(folder: Path) -> list[tuple[str, int, float, tuple[float, float]]]:
    """``(row, games, win rate, interval)`` of each ``DIR/*.json`` measured in the duel (its row's letter:
    ``c_latest`` and ``c@200k`` are points of row ``c``), at the games its duel was played; measurements on
    other deals than every row's (``--seed``), and of another model than the run's own (``--model``), are left out.
    A fork's measurement (``init_games``: the games of the model it started from) stands at its games in all."""
    points = []
    for path in sorted(folder.glob("*.json")):
        f = json.loads(path.read_text())
        v = f.get("vs", {}).get("charlesworth") if "row" in f and f.get("seed", 0) == 0 and "model" not in f else None
        if v is not None:
            ci = v["win_rate_ci"]
            at = int(v.get("at_games", f["games"])) + int(f.get("init_games", 0))
            points.append((re.split(r"[_@]", f["row"])[0], at, float(v["win_rate"]),
                           (float(ci[0]), float(ci[1]))))
    return points


def table(folder: Path) -> str:
    lines = ["| row | games | vs Random | vs Greedy | vs Smart | vs three of his network (duel) | critic's explained variance |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for path in sorted(folder.glob("*.json")):
        f = json.loads(path.read_text())
        if "row" not in f:
            continue
        cells = []
        for opponent in (*OPPONENTS, "charlesworth"):
            v = f["vs"].get(opponent)
            cells.append("-" if v is None else f"{v['win_rate']:.1%} [{v['win_rate_ci'][0]:.1%}, {v['win_rate_ci'][1]:.1%}], "
                                               f"{v['mean_score']:+.2f}")
        lines.append(f"| {f['label']} | {f['games']:,} | " + " | ".join(cells) + f" | {f['explained_variance']:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--row", required=True)
    m.add_argument("--run", required=True, type=Path)
    m.add_argument("--params", default="", help="his parameter file (modelParameters136500) for the duel")
    m.add_argument("--games", type=int, default=1000)
    m.add_argument("--deals", type=int, default=1000)
    m.add_argument("--jobs", type=int, default=1)
    m.add_argument("--label", default="", help="the row's name in the table (default: the ablation's name of --row)")
    m.add_argument("--model", type=Path, default=None,
                   help="measure this model file instead of RUN/model.pt (a weight average of the run's snapshots)")
    m.add_argument("--seed", type=int, default=0, help="the deals (default 0, every row's)")
    c = sub.add_parser("collect")
    c.add_argument("--row", required=True)
    c.add_argument("--run", required=True, type=Path)
    c.add_argument("--logs-only", action="store_true",
                   help="leave out the checkpoint, the model and pace.json (a finished fork: its logs are its record)")
    c.add_argument("--log-rows", type=int, default=LOG_ROWS,
                   help=f"the most rows the copied train_log.csv keeps (default {LOG_ROWS}; {FORK_LOG_ROWS} for a fork)")
    p = sub.add_parser("plot")
    p.add_argument("--limit", type=int, default=10**9, help="leave out evaluations past this many games")
    p.add_argument("--also", action="append", default=[], metavar="LABEL=RUN",
                   help="another run's curve beside the rows' (its metrics.csv), "
                        "e.g. 'the default=experiments/results/long/paper'")
    p.add_argument("--output", type=Path, default=None, help="the figure (default DIR/curves.png)")
    for s in (m, c, p):
        s.add_argument("--dir", type=Path, default=HERE)
    args = parser.parse_args(argv)
    if args.command == "measure":
        if not (args.run / "model.pt").is_file():
            sys.exit(f"no model.pt in {str(args.run)!r}: is it a big2 train run folder?")
        if args.games < 1 or args.deals < 1 or args.jobs < 1:
            parser.error("--games, --deals and --jobs must be at least 1")
        measure(args.row, args.run, args.params, args.games, args.deals, args.jobs, args.dir, args.label, args.model,
                args.seed)
    elif args.command == "collect":
        if args.log_rows < 1:
            parser.error("--log-rows must be at least 1")
        print(collect(args.row, args.run, args.dir, weights=not args.logs_only, log_rows=args.log_rows))
    else:
        also = []
        for item in args.also:
            label, sep, run = item.partition("=")
            if not sep or not (Path(run) / "metrics.csv").is_file():
                parser.error(f"--also takes LABEL=RUN, a run folder with a metrics.csv; got {item!r}")
            also.append((label, Path(run)))
        print(plot(args.dir, args.output or args.dir / "curves.png", args.limit, tuple(also)))
        print(table(args.dir))


if __name__ == "__main__":
    main()
