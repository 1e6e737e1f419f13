"""KL and clip fraction batch by batch: the paper's settings against the default recipe.

Reads the ``train_log.csv`` of two ``big2 train`` runs and draws, against training games, the
approximate KL per minibatch and the share of ratios clipped, each run's raw values faint and
a rolling mean over 10 batches on top. The dashed line is where the trainer warns that the
policy is not learning (clip fraction under 0.1% for 50 batches in a row).

Usage:
    python experiments/results/recipe/kl_clip.py PAPER_RUN DEFAULT_RUN [--output experiments/results/recipe/kl_clip.png]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agents.plot import read_train_log, rolling_mean


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paper_run", help="a run with --preset paper")
    parser.add_argument("default_run", help="a run with the defaults")
    parser.add_argument("--output", default=str(Path(__file__).with_name("kl_clip.png")))
    parser.add_argument("--max-games", type=float, default=0, help="draw only up to this many games (0: all)")
    options = parser.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = {"--preset paper (lr 3e-5, raw scores, 4 x 256)": (options.paper_run, "tab:red"),
            "default (lr 1e-3, scores / 13, 2 x 4096)": (options.default_run, "tab:blue")}
    fig, (ax_kl, ax_clip) = plt.subplots(1, 2, figsize=(12, 4.2))
    for label, (run, colour) in runs.items():
        log = read_train_log(run)
        rows = [i for i, g in enumerate(log["games"]) if not options.max_games or g <= options.max_games]
        games = [log["games"][i] for i in rows]
        for ax, key in ((ax_kl, "approx_kl"), (ax_clip, "clip_fraction")):
            values = [max(log[key][i], 1e-9) for i in rows]
            ax.plot(games, values, color=colour, alpha=0.2, linewidth=0.7)
            ax.plot(games, rolling_mean(values, 10), color=colour, linewidth=1.6, label=label)
    ax_clip.axhline(1e-3, color="grey", linestyle="--", linewidth=0.8, label="the trainer's warning")
    for ax, title in ((ax_kl, "approximate KL per minibatch"), (ax_clip, "share of ratios clipped")):
        ax.set(xscale="log", yscale="log", xlabel="training games", title=title)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("How far each PPO update moves the policy")
    fig.tight_layout()
    fig.savefig(options.output, dpi=110)
    print(options.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
