"""What a training run writes as it goes: the CSV logs, TensorBoard scalars and the progress bar.

:class:`CsvLog` appends rows (``metrics.csv``, ``train_log.csv``; a resumed run drops the
rows past its checkpoint), :func:`tensorboard_writer` opens ``OUT/tb`` when the package is
installed, :class:`Progress` is the tqdm bar (or a line every 30 s without tqdm).
"""

from __future__ import annotations

import csv
import math
import os
import sys
import time
from pathlib import Path
from typing import Any, Mapping

METRICS_NAME = "metrics.csv"
TRAIN_LOG_NAME = "train_log.csv"
PLOT_NAME = "learning_curves.png"

METRICS_FIELDS = (
    "batch",
    "games",
    "decisions",
    "elapsed_s",
    "opponent",
    "eval_games",
    "win_rate",
    "win_rate_lo",
    "win_rate_hi",
    "mean_score",
    "mean_score_lo",
    "mean_score_hi",
)
TRAIN_LOG_FIELDS = (
    "batch",
    "games",
    "decisions",
    "elapsed_s",
    "lr",
    "policy_loss",
    "value_loss",
    "entropy",
    "entropy_coef",
    "approx_kl",
    "clip_fraction",
    "grad_norm",
    "explained_variance",
    "grad_ratio",
    "epsilon",
    "q_loss",
    "mean_q",
    "mean_target",
    "win_loss",
    "batch_decisions",
    "trained_decisions",
    "mean_game_turns",
    "rollout_s",
    "update_s",
    "decisions_per_s",
    "wait_s",
    "wait_share",
    "worker_decisions_per_s",
    "learner_decisions_per_s",
)


class CsvLog:
    """Append rows to a CSV file (header written once; rows past a resumed batch dropped)."""

    def __init__(self, path: Path, columns: tuple[str, ...], keep_until_batch: int | None) -> None:
        self.path, self.columns = path, columns
        if keep_until_batch is not None and path.is_file():
            with path.open(newline="") as handle:
                rows = [r for r in csv.DictReader(handle) if int(float(r["batch"])) <= keep_until_batch]
            self._rewrite(rows)
        elif keep_until_batch is None or not path.is_file():
            self._rewrite([])

    def _rewrite(self, rows: list[dict]) -> None:
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        with tmp.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, self.columns, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(rows)
        os.replace(tmp, self.path)

    def append(self, row: Mapping[str, Any]) -> None:
        with self.path.open("a", newline="") as handle:
            csv.DictWriter(handle, self.columns, extrasaction="ignore").writerow(
                {k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()}
            )


def tensorboard_writer(out: Path, enabled: bool, purge_step: int | None):
    if not enabled:
        return None
    try:
        from torch.utils.tensorboard import SummaryWriter
    except Exception:  # the tensorboard package is not installed
        return None
    return SummaryWriter(str(out / "tb"), purge_step=purge_step)


class Progress:
    """tqdm bar over games (rate = games/s, with ETA), or a line every ~2% without tqdm.

    ``unit`` names what it counts: ``game``, or ``batch`` for runs whose batches are a number of
    steps (``--steps-per-batch``), where games run on across batches and a batch ends no fixed
    number of them."""

    def __init__(self, total: int, initial: int, enabled: bool, unit: str = "game") -> None:
        self.bar = None
        self.plural = "batches" if unit == "batch" else f"{unit}s"
        self.enabled = enabled
        self.total = total
        self.done = initial
        self.start = time.perf_counter()
        self.start_done = initial
        self.next_print = 0.0
        if enabled:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                pass
            else:
                self.bar = tqdm(total=total, initial=initial, unit=unit, desc="train", dynamic_ncols=True, smoothing=0.05)

    def update(self, n: int, postfix: Mapping[str, Any]) -> None:
        self.done += n
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.set_postfix(postfix, refresh=False)
            self.bar.update(n)
            return
        now = time.perf_counter()
        if now >= self.next_print or self.done >= self.total:
            rate = (self.done - self.start_done) / max(now - self.start, 1e-9)
            eta = (self.total - self.done) / rate if rate > 0 else math.inf
            extra = " ".join(f"{k}={v}" for k, v in postfix.items())
            print(f"train: {self.done}/{self.total} {self.plural}, {rate:.1f} {self.plural}/s, ETA {eta / 60:.1f} min {extra}",
                  file=sys.stderr)
            self.next_print = now + 30.0

    def phase(self, text: str) -> None:
        """Name what the run is doing now (``train``, ``eval vs smart (200 games)``) in the bar, or on a line."""
        if not self.enabled:
            return
        if self.bar is not None:
            # an evaluation shows its name and the time it has taken, not the training's game counter
            self.bar.bar_format = None if text == "train" else "{desc}: {elapsed}"
            self.bar.set_description_str(text)  # redraws at once, so an evaluation does not look like a frozen bar
        elif text != "train":
            print(f"train: {text} ...", file=sys.stderr)

    def write(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text)
        else:
            print(text, file=sys.stderr)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
