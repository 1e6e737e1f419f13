"""Learning curves of a training run, like the paper's Figure 2.

:func:`plot_run` reads ``DIR/metrics.csv`` (written by :mod:`agents.train`) and
draws two panels, win rate and mean score against training batches, one line per
opponent class with its 95% confidence band, plus the paper's success thresholds
(25% win rate, score 0). ``big2 plot DIR`` calls it.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

PLOT_NAME = "learning_curves.png"
_COLOURS = {"random": "tab:green", "greedy": "tab:orange", "smart": "tab:red"}


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


def plot_run(run_dir: str | Path, output: str | Path | None = None, title: str | None = None) -> Path:
    """Draw the learning curves of ``run_dir`` to ``output`` (default ``run_dir/learning_curves.png``)."""
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
    fig, (ax_win, ax_score) = plt.subplots(1, 2, figsize=(11, 4.2))
    for opponent, data in series.items():
        colour = _COLOURS.get(opponent)
        batches = data["batch"]
        ax_win.plot(batches, [100 * v for v in data["win_rate"]], marker=".", color=colour, label=opponent)
        ax_win.fill_between(
            batches, [100 * v for v in data["win_rate_lo"]], [100 * v for v in data["win_rate_hi"]], color=colour, alpha=0.15
        )
        ax_score.plot(batches, data["mean_score"], marker=".", color=colour, label=opponent)
        ax_score.fill_between(batches, data["mean_score_lo"], data["mean_score_hi"], color=colour, alpha=0.15)
    ax_win.axhline(25, color="grey", linestyle="--", linewidth=0.8)
    ax_score.axhline(0, color="grey", linestyle="--", linewidth=0.8)
    ax_win.set(xlabel="training batches", ylabel="win rate (%)", title="Win rate vs opponent class")
    ax_score.set(xlabel="training batches", ylabel="mean score", title="Mean score vs opponent class")
    for ax in (ax_win, ax_score):
        ax.grid(alpha=0.3)
        ax.legend(title="opponents")
    fig.suptitle(title or f"Learning curves: {Path(run_dir).resolve().name}")
    fig.tight_layout()
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.with_name(f".{output.name}.tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    tmp.replace(output)
    return output
