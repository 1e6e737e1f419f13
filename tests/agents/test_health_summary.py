"""A training log's health summary (``agents.plot.health_summary``) and the script that stores it."""

from __future__ import annotations

import json
import math
import shlex
from contextlib import chdir
from pathlib import Path

import pytest

from agents.plot import health_summary
from tests.scripts import load_script

HEADER = "batch,games,decisions,approx_kl,clip_fraction,explained_variance,trained_decisions,accuracy\n"


def write_log(path: Path, rows: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + "".join(row + "\n" for row in rows))
    return path


def test_every_batch_logged_sums_learned_decisions_and_weights_accuracy(tmp_path: Path) -> None:
    log = write_log(tmp_path / "run" / "train_log.csv", [
        "1,16,500,0.01,0.1,0.5,300,0.9",
        "2,32,1000,0.03,,0.7,100,1.0",  # a blank is not a zero
        "3,48,1600,,0.3,,200,",  # nor is a missing accuracy
    ])
    summary = health_summary(log.parent)  # the run folder reads its train_log.csv
    assert summary == health_summary(log)  # and so does the file named directly
    assert (summary["rows"], summary["batch"], summary["games"], summary["decisions"]) == (3, 3, 48, 1600)
    assert summary["thinned"] is False
    assert summary["learned_decisions"] == 600
    assert summary["accuracy"] == pytest.approx((300 * 0.9 + 100 * 1.0) / 400)
    assert summary["mean_approx_kl"] == pytest.approx(0.02)
    assert summary["mean_clip_fraction"] == pytest.approx(0.2)
    assert summary["mean_explained_variance"] == pytest.approx(0.6)
    assert "mean_entropy" not in summary  # not logged, not invented


def test_batches_that_learned_nothing_give_no_accuracy(tmp_path: Path) -> None:
    log = write_log(tmp_path / "idle.csv", ["1,16,500,,,,0,0.9", "2,32,1000,,,,0,1.0"])
    summary = health_summary(log)
    assert summary["learned_decisions"] == 0 and "accuracy" not in summary  # no 0 / 0


def test_a_thinned_log_gives_no_sums(tmp_path: Path) -> None:
    log = write_log(tmp_path / "thin.csv", ["1,16,500,0.01,0.1,0.5,300,0.9", "30,480,15000,0.03,0.3,0.7,300,0.9"])
    summary = health_summary(log)
    assert summary["thinned"] is True and summary["batch"] == 30
    assert "learned_decisions" not in summary and "accuracy" not in summary
    assert summary["mean_approx_kl"] == pytest.approx(0.02)


def test_a_log_that_starts_late_is_not_thinned(tmp_path: Path) -> None:
    """A resumed run's log may start past batch 1: rows 5..7 are every batch from 5 on."""
    log = write_log(tmp_path / "late.csv", [f"{b},{16 * b},{500 * b},0.01,0.1,0.5,10,1.0" for b in (5, 6, 7)])
    assert health_summary(log)["thinned"] is False
    assert health_summary(log)["learned_decisions"] == 30


def test_upto_reads_the_run_as_it_stood_and_last_takes_medians(tmp_path: Path) -> None:
    log = tmp_path / "train_log.csv"
    log.write_text("batch,games,decisions,approx_kl,lr\n" + "".join(
        f"{b},{10 * b},{100 * b},{b / 1000},{1e-3 / b}\n" for b in range(1, 11)))
    summary = health_summary(log, upto=7, last=4)  # batches 4..7 are the last four up to batch 7
    assert (summary["batch"], summary["games"], summary["rows"]) == (7, 70, 7)
    assert summary["mean_approx_kl"] == pytest.approx(0.004)
    assert (summary["last_batches"], summary["last_rows"]) == (4, 4)
    assert summary["median_approx_kl"] == pytest.approx(0.0055)  # (5 + 6) / 2, an even count
    assert summary["median_lr"] == pytest.approx((1e-3 / 5 + 1e-3 / 6) / 2)
    assert health_summary(log, last=3)["median_approx_kl"] == pytest.approx(0.009)
    assert "median_approx_kl" not in health_summary(log)
    for bad in ({"upto": 0}, {"last": -1}, {"last": 2.5}, {"upto": True}):
        with pytest.raises(ValueError, match="positive number of batches"):
            health_summary(log, **bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="up to batch 0|no logged batches"):
        health_summary(write_log(tmp_path / "late.csv", ["5,80,500,,,,,"]), upto=4)


def test_missing_or_empty_logs_are_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="train_log"):
        health_summary(tmp_path)
    empty = write_log(tmp_path / "empty.csv", [])
    with pytest.raises(ValueError, match="no logged batches"):
        health_summary(empty)


def test_the_script_stores_each_log_under_its_name(tmp_path: Path) -> None:
    script = load_script("experiments/scripts/health_summary.py")
    a = write_log(tmp_path / "train_log_exit.csv", ["1,16,500,,,,300,0.9"])
    b = write_log(tmp_path / "ppo" / "train_log.csv", ["1,16,500,0.01,0.1,0.5,,"])
    out = tmp_path / "health.json"
    assert script.main([str(a), str(b.parent), "--json", str(out)]) == 0
    stored = json.loads(out.read_text())
    assert stored["train_log_exit"]["learned_decisions"] == 300
    assert math.isclose(stored["ppo"]["mean_approx_kl"], 0.01)
    assert stored["command"].startswith("python experiments/scripts/health_summary.py ")
    with pytest.raises(SystemExit):  # two logs of one name would overwrite each other
        script.main([str(a), str(a)])


@pytest.mark.parametrize("args, says", [
    (["LOG", "--last", "0"], "last must be a positive number of batches"),
    (["LOG", "--upto", "0"], "upto must be a positive number of batches"),
    (["LOG", "MISSING", "--json", "OUT"], "no train_log.csv"),
    (["LOG", "--upto", "1", "3", "--json", "OUT"], None),  # the control: this one is accepted
])
def test_the_script_refuses_bad_input_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     args: list[str], says: str | None) -> None:
    script = load_script("experiments/scripts/health_summary.py")
    log = write_log(tmp_path / "train_log_a.csv", ["1,16,500,,,,300,0.9", "2,32,1000,,,,100,1.0"])
    places = {"LOG": str(log), "MISSING": str(tmp_path / "missing"), "OUT": str(tmp_path / "out.json")}
    argv = [places.get(a, a) for a in args]
    if says is None:
        assert script.main(argv) == 0
        assert set(json.loads((tmp_path / "out.json").read_text())) == {"train_log_a@1", "train_log_a@3", "command"}
        return
    with pytest.raises(SystemExit) as stopped:
        script.main(argv)
    assert stopped.value.code == 2 and says in capsys.readouterr().err
    assert not (tmp_path / "out.json").exists()  # nothing written on a refusal


def test_the_committed_summaries_match_their_logs(tmp_path: Path) -> None:
    """Pages quote each ``health.json``; run again from its stored command, it gives the same figures."""
    script = load_script("experiments/scripts/health_summary.py")
    repo = Path(__file__).resolve().parents[2]
    files = sorted(repo.glob("experiments/results/**/health.json"))
    assert len(files) >= 3  # the exit runs' two and the long runs'
    for path in files:
        stored = json.loads(path.read_text())
        args = shlex.split(stored["command"])[2:]
        args[args.index("--json") + 1] = str(tmp_path / "again.json")
        with chdir(repo):
            assert script.main(args) == 0
        again = json.loads((tmp_path / "again.json").read_text())
        assert {k: v for k, v in again.items() if k != "command"} == {k: v for k, v in stored.items() if k != "command"}
