"""``big2 plot`` on a run of few logged points (a short run's two evaluations): it says so on stderr and draws
markers, not lines through two or three points; with five points or more it draws lines as before."""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")

import agents.plot as plot  # noqa: E402
from big2_env.cli import main  # noqa: E402

METRICS = ("batch,games,decisions,elapsed_s,opponent,eval_games,win_rate,win_rate_lo,win_rate_hi,mean_score,mean_score_lo,"
           "mean_score_hi\n")
TRAIN_LOG = "batch,games,decisions,approx_kl,clip_fraction,entropy,lr\n"


def _run(folder, points: int):
    """A synthetic run folder: ``points`` evaluations against two opponents and ``points`` logged batches."""
    folder.mkdir()
    rows = "".join(f"{b},{512 * b},{40000 * b},{3 * b},{opponent},100,0.3,0.22,0.4,0.5,-0.5,1.5\n"
                   for b in range(points) for opponent in ("random", "smart"))
    (folder / "metrics.csv").write_text(METRICS + rows)
    (folder / "train_log.csv").write_text(TRAIN_LOG + "".join(
        f"{b},{512 * (b + 1)},{40000 * (b + 1)},0.01,0.1,1.5,0.001\n" for b in range(points)))
    return folder


@pytest.fixture
def drawn(monkeypatch):
    """The figures ``big2 plot`` draws, kept instead of saved."""
    figures = []

    def keep(fig, plt, output):
        figures.append(fig)
        return output

    monkeypatch.setattr(plot, "_save", keep)
    return figures


def _data_lines(fig):
    """The lines that carry data (not the threshold lines, which span the axes)."""
    return [line for ax in fig.axes for line in ax.get_lines() if len(line.get_xdata()) and line.get_linestyle() != "--"]


def test_few_points_are_said_and_drawn_as_markers(tmp_path, drawn, capsys):
    run = _run(tmp_path / "run", 2)
    assert main(["plot", str(run)]) == 0
    err = capsys.readouterr().err
    assert "big2 plot: only 2 points logged; drawing them as markers" in err
    assert "big2 plot: only 2 batches logged; drawing them as markers" in err
    curves, health = drawn
    for fig in (curves, health):
        drawn_as = {(line.get_marker(), line.get_linestyle()) for line in _data_lines(fig)}
        # points as markers, error bars' caps as "_": no line joins anything
        assert ("o", "None") in drawn_as and drawn_as <= {("o", "None"), ("_", "None")}, drawn_as


def test_five_points_or_more_are_lines_as_before(tmp_path, drawn, capsys):
    run = _run(tmp_path / "run", 5)
    assert main(["plot", str(run)]) == 0
    assert "big2 plot:" not in capsys.readouterr().err
    curves, health = drawn
    for fig in (curves, health):
        assert all(line.get_linestyle() == "-" for line in _data_lines(fig))
