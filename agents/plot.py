"""Learning curves and learner health of a training run.

:func:`plot_run` reads ``DIR/metrics.csv`` (written by :mod:`agents.train`) and
draws two panels, win rate and mean score against training games (a log axis once
the run spans a decade; the paper's Figure 2 used batches), one line per opponent
class with its 95% confidence band, plus the paper's success thresholds (25% win
rate, score 0). :func:`plot_health` reads ``DIR/train_log.csv`` and draws what
says whether a learner is healthy: PPO's approximate KL, clip fraction, explained
variance, entropy, the value/policy gradient ratio and the learning rate (a value
learner's loss, Q and epsilon). ``big2 plot DIR`` draws both. A series of fewer than
:data:`FEW_POINTS` points (a short run's few evaluations) is drawn as markers, its intervals as
error bars, and ``note`` is told so.
"""

from __future__ import annotations

import csv
import math
import statistics
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from big2_env.checks import is_int

PLOT_NAME = "learning_curves.png"
HEALTH_NAME = "training_health.png"
_COLOURS = {"random": "tab:green", "greedy": "tab:orange", "smart": "tab:red"}
FEW_POINTS = 5
"""A plot whose longest series has fewer points than this draws them as markers: a line through two or
three points (a short run's evaluations) would read as a trend."""


def read_metrics(run_dir: str | Path) -> dict[str, dict[str, list[float]]]:
    """``{opponent: {column: values}}`` from ``run_dir/metrics.csv``, sorted by batch."""
    path = Path(run_dir) / "metrics.csv"
    if not path.is_file():
        raise FileNotFoundError(f"no metrics.csv in {str(run_dir)!r}: is it a `big2 train` output folder?")
    series: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    with path.open(newline="") as handle:
        rows = sorted(csv.DictReader(handle), key=lambda r: int(float(r["batch"])))
    for row in rows:
        data = series[row["opponent"]]
        for key, value in row.items():
            if key != "opponent":
                data[key].append(float(value) if value not in ("", None) else float("nan"))
    return {k: dict(v) for k, v in series.items()}


def few_points_note(points: int, what: str = "points") -> str:
    """What a plot of only ``points`` points says about itself.

    Example:
        >>> few_points_note(3)
        'only 3 points logged; drawing them as markers'
    """
    return f"only {points} {what} logged; drawing them as markers"


def plot_run(run_dir: str | Path, output: str | Path | None = None, title: str | None = None,
             note: Callable[[str], None] | None = None) -> Path:
    """Draw the learning curves of ``run_dir`` to ``output`` (default ``run_dir/learning_curves.png``).

    With fewer than :data:`FEW_POINTS` evaluations of any opponent, each is a marker with its 95%
    interval as an error bar (no line, no band), and ``note`` (if given) is told so.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("plotting needs matplotlib: pip install matplotlib (or the [agents] extra)") from None
    series = read_metrics(run_dir)
    if not series:
        raise ValueError(f"{str(run_dir)!r}/metrics.csv has no evaluation rows yet")
    output = Path(output) if output is not None else Path(run_dir) / PLOT_NAME
    points = max(len(data["games"]) for data in series.values())
    if points < FEW_POINTS and note is not None:
        note(few_points_note(points))
    fig, (ax_win, ax_score) = plt.subplots(1, 2, figsize=(11, 4.2))
    for opponent, data in series.items():
        colour = _COLOURS.get(opponent)
        batches = data["games"]
        if points < FEW_POINTS:
            for ax, scale, key in ((ax_win, 100, "win_rate"), (ax_score, 1, "mean_score")):
                values = [scale * v for v in data[key]]
                # an interval's ends, as distances (an unknown end, nan, draws no bar; rounding none below 0)
                below = [max(0.0, v - scale * lo) for v, lo in zip(values, data[f"{key}_lo"])]
                above = [max(0.0, scale * hi - v) for v, hi in zip(values, data[f"{key}_hi"])]
                ax.errorbar(batches, values, yerr=[below, above], fmt="o", markersize=6, capsize=4, color=colour,
                            label=opponent)
            continue
        ax_win.plot(batches, [100 * v for v in data["win_rate"]], marker=".", color=colour, label=opponent)
        ax_win.fill_between(
            batches, [100 * v for v in data["win_rate_lo"]], [100 * v for v in data["win_rate_hi"]], color=colour, alpha=0.15
        )
        ax_score.plot(batches, data["mean_score"], marker=".", color=colour, label=opponent)
        ax_score.fill_between(batches, data["mean_score_lo"], data["mean_score_hi"], color=colour, alpha=0.15)
    ax_win.axhline(25, color="grey", linestyle="--", linewidth=0.8)
    ax_score.axhline(0, color="grey", linestyle="--", linewidth=0.8)
    ax_win.set(xlabel="training games", ylabel="win rate (%)", title="Win rate vs opponent class")
    ax_score.set(xlabel="training games", ylabel="mean score", title="Mean score vs opponent class")
    games = [g for data in series.values() for g in data["games"]]
    for ax in (ax_win, ax_score):
        _games_axis(ax, games)
        ax.grid(alpha=0.3)
        ax.legend(title="opponents")
    fig.suptitle(title or f"Learning curves: {Path(run_dir).resolve().name}")
    return _save(fig, plt, output)


def _games_axis(ax: Any, games: list[float]) -> None:
    """A log axis (linear near 0, so that the untrained start shows) once the games span a decade."""
    positive = [g for g in games if g > 0]
    if not positive or max(positive) < 10 * min(positive):
        return
    if len(positive) == len(games):
        ax.set_xscale("log")
    else:
        ax.set_xscale("symlog", linthresh=min(positive))
        ax.set_xlim(left=0)


def _save(fig: Any, plt: Any, output: Path) -> Path:
    fig.tight_layout()
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.with_name(f".{output.name}.tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    tmp.replace(output)
    return output


_HEALTH = (
    ("approx_kl", "approximate KL per minibatch", True),
    ("clip_fraction", "clip fraction", False),
    ("explained_variance", "explained variance of the advantages' critic", False),
    ("entropy", "entropy over legal moves (nats)", False),
    ("grad_ratio", "value / policy gradient on the shared layers", True),
    ("lr", "learning rate", True),
    ("q_loss", "value learner's loss", True),
    ("mean_q", "mean Q", False),
    ("epsilon", "exploration epsilon", False),
    ("cross_entropy", "cross-entropy to the teacher", False),
    ("accuracy", "agreement with the teacher", False),
)


def read_train_log(run_dir: str | Path) -> dict[str, list[float]]:
    """``{column: values}`` from ``run_dir/train_log.csv``, or from a CSV file of that form named
    directly (a committed, renamed log), one row per batch; blanks are nan."""
    path = Path(run_dir)
    if not (path.suffix == ".csv" and path.is_file()):
        path = path / "train_log.csv"
    if not path.is_file():
        raise FileNotFoundError(f"no train_log.csv in {str(run_dir)!r}: is it a `big2 train` output folder "
                                f"or a train_log CSV file?")
    columns: dict[str, list[float]] = defaultdict(list)
    with path.open(newline="") as handle:
        for row in csv.DictReader(handle):
            for key, value in row.items():
                try:
                    columns[key].append(float(value) if value not in ("", None) else float("nan"))
                except ValueError:
                    columns[key].append(float("nan"))
    return dict(columns)


def plot_health(run_dir: str | Path, output: str | Path | None = None, title: str | None = None,
                note: Callable[[str], None] | None = None) -> Path:
    """Draw the learner's health of ``run_dir`` (see the module docstring) to ``output`` (default
    ``run_dir/training_health.png``): one panel per logged statistic, against training games, with
    a rolling mean over 2% of the batches on top of the raw values. A log of fewer than
    :data:`FEW_POINTS` batches is drawn as markers alone, and ``note`` (if given) is told so."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("plotting needs matplotlib: pip install matplotlib (or the [agents] extra)") from None
    log = read_train_log(run_dir)
    games = log.get("games", [])
    if not games:
        raise ValueError(f"{str(run_dir)!r}/train_log.csv has no rows yet")
    few = len(games) < FEW_POINTS
    if few and note is not None:
        note(few_points_note(len(games), "batches"))
    panels = [(k, label, logy) for k, label, logy in _HEALTH if any(math.isfinite(v) for v in log.get(k, []))]
    cols = 3
    rows = max(1, -(-len(panels) // cols))
    fig, axes = plt.subplots(rows, cols, figsize=(13, 3.3 * rows), squeeze=False)
    window = max(1, len(games) // 50)
    for ax, (key, label, logy) in zip(axes.flat, panels):
        values = log[key]
        seen = [(g, v) for g, v in zip(games, values) if math.isfinite(v)]  # sparse series (grad_ratio) joined up
        if few:
            ax.plot([g for g, _ in seen], [v for _, v in seen], "o", color="tab:blue", markersize=6)
        else:
            ax.plot([g for g, _ in seen], [v for _, v in seen], color="tab:blue", alpha=0.25, linewidth=0.8)
            ax.plot(games, rolling_mean(values, window), color="tab:blue", linewidth=1.5)
        if key == "clip_fraction":
            ax.axhline(1e-3, color="tab:red", linestyle="--", linewidth=0.8, label="not learning below")
            ax.legend(loc="best", fontsize=8)
        if logy and all(v > 0 for v in values if math.isfinite(v)):
            ax.set_yscale("log")
        _games_axis(ax, games)
        ax.set(title=label, xlabel="training games")
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.suptitle(title or f"Learner health: {Path(run_dir).resolve().name}")
    output = Path(output) if output is not None else Path(run_dir) / HEALTH_NAME
    return _save(fig, plt, output)


HEALTH_MEANS = ("approx_kl", "clip_fraction", "explained_variance", "entropy", "cross_entropy")
"""The learner's statistics that :func:`health_summary` averages over a log's rows."""


def health_summary(run_dir: str | Path, upto: int | None = None, last: int | None = None) -> dict[str, Any]:
    """What a training log says in a few numbers: how far it ran and how healthy it was.

    ``run_dir`` is a run folder or a train_log CSV file; ``upto`` reads only its rows up to that
    batch (the run as it stood then). The summary holds the rows' count (``rows``), the last
    ``batch``, ``games`` and ``decisions``, whether the log was ``thinned`` (fewer rows than
    batches: a committed log keeps every n-th row), the mean over its rows of each of
    :data:`HEALTH_MEANS` that it logs (``mean_approx_kl``, ...), and for a log of every batch the
    ``learned_decisions`` (the sum of ``trained_decisions``) with the ``accuracy`` over them
    (agreement with a teacher, weighted by each batch's learned decisions); a thinned log's sums
    would miss rows, so it gives neither. With ``last``, it adds the median of each of
    :data:`HEALTH_MEANS` and the learning rate over the rows of the last ``last`` batches
    (``median_approx_kl``, ..., ``median_lr``; ``last_rows`` of them): where a run stood lately.

    Example:
        >>> import tempfile, pathlib
        >>> log = pathlib.Path(tempfile.mkdtemp()) / "train_log.csv"
        >>> _ = log.write_text("batch,games,decisions,trained_decisions,accuracy\\n1,16,500,300,0.9\\n2,32,1000,100,1.0\\n")
        >>> summary = health_summary(log)
        >>> summary["learned_decisions"], round(summary["accuracy"], 3), summary["thinned"]
        (400, 0.925, False)
    """
    for what, value in (("upto", upto), ("last", last)):
        if value is not None and not is_int(value, 1, numpy=False):
            raise ValueError(f"{what} must be a positive number of batches or None; got {value!r}")
    log = read_train_log(run_dir)
    if upto is not None:
        keep = [i for i, b in enumerate(log.get("batch", [])) if math.isfinite(b) and b <= upto]
        log = {key: [values[i] for i in keep] for key, values in log.items()}
    batches = [b for b in log.get("batch", []) if math.isfinite(b)]
    if not batches:
        raise ValueError(f"{str(run_dir)!r} has no logged batches" + (f" up to batch {upto}" if upto else " yet"))

    def finite(key: str, rows: list[int] | None = None) -> list[float]:
        """The logged values of ``key`` (of the ``rows`` given, else every row), blanks left out."""
        if key not in log:
            return []
        values = log[key] if rows is None else [log[key][i] for i in rows]
        return [v for v in values if math.isfinite(v)]

    def final(key: str) -> int | None:
        values = finite(key)
        return int(values[-1]) if values else None

    thinned = len(batches) < int(batches[-1] - batches[0]) + 1
    summary: dict[str, Any] = {"rows": len(batches), "batch": int(batches[-1]), "games": final("games"),
                               "decisions": final("decisions"), "thinned": thinned}
    for key in HEALTH_MEANS:
        values = finite(key)
        if values:
            summary[f"mean_{key}"] = sum(values) / len(values)
    learned = log.get("trained_decisions", [])
    if not thinned and any(math.isfinite(v) for v in learned):
        pairs = [(n, a) for n, a in zip(learned, log.get("accuracy", [math.nan] * len(learned))) if math.isfinite(n)]
        total = sum(n for n, _ in pairs)
        summary["learned_decisions"] = int(round(total))
        weighted = [(n, a) for n, a in pairs if math.isfinite(a)]
        if sum(n for n, _ in weighted) > 0:
            summary["accuracy"] = sum(n * a for n, a in weighted) / sum(n for n, _ in weighted)
    if last is not None:
        recent = [i for i, b in enumerate(log["batch"]) if math.isfinite(b) and b > batches[-1] - last]
        summary["last_batches"], summary["last_rows"] = last, len(recent)
        for key in HEALTH_MEANS + ("lr",):
            values = finite(key, recent)
            if values:
                summary[f"median_{key}"] = statistics.median(values)
    return summary


def rolling_mean(values: list[float], window: int) -> list[float]:
    """The mean of the last ``window`` finite values at each point (nan until one is seen)."""
    out, recent = [], []
    for v in values:
        if math.isfinite(v):
            recent.append(v)
            if len(recent) > window:
                recent.pop(0)
        out.append(sum(recent) / len(recent) if recent else float("nan"))
    return out
