"""The agents package's first hour: an evaluation during training shows its own progress, not the
training counter; the policy's doctests run without numpy warnings."""

from __future__ import annotations

import doctest
import io
import sys
import warnings

import pytest


# ------------------------------------------------------------------ training's progress bar
def test_an_evaluation_during_training_does_not_show_the_training_counter(monkeypatch):
    pytest.importorskip("tqdm")
    from agents.runlog import Progress

    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    bar = Progress(total=2_560_000, initial=0, enabled=True)
    assert bar.bar is not None
    bar.phase("eval vs smart (200 games)")
    shown = stream.getvalue().split("\r")[-1]
    bar.phase("train")
    bar.close()
    assert shown.startswith("eval vs smart (200 games)") and "2560000" not in shown
    assert "/2560000" in stream.getvalue().split("\r")[-1]  # the training bar comes back with its counter


def test_a_run_with_step_based_batches_counts_batches_not_game_slots(tmp_path, monkeypatch):
    """His cadence (--steps-per-batch) ends about 27 games a batch, not the 64 that run at once:
    its bar counts batches, in the unit it says, and the line printed without tqdm says so too."""
    pytest.importorskip("torch")
    from agents.runlog import Progress
    from agents.train import TrainArgs, train

    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    train(TrainArgs(batches=3, games_per_batch=4, steps_per_batch=5, minibatch=16,
                    model={"card_dim": 8, "hand_heads": 2, "hand_ff": 16, "field_dim": 8, "count_dim": 8, "state_dim": 16,
                           "state_ff": 16, "action_hidden": 16, "action_dim": 8, "value_hidden": 16},
                    out=str(tmp_path / "run"), eval_opponents=[], progress=True, tensorboard=False))
    last = stream.getvalue().split("\r")[-1]
    assert "3/3" in last and "batch" in last and "/12" not in last
    plain = Progress(total=10, initial=0, enabled=True, unit="batch")
    plain.bar = None  # as without tqdm
    plain.update(10, {})
    assert "10/10 batches, " in stream.getvalue()


# ------------------------------------------------------------------ doctests run quietly
def test_the_policy_doctests_warn_nothing():
    pytest.importorskip("torch")
    import agents.policy

    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for test in doctest.DocTestFinder().find(agents.policy):
            runner.run(test, out=lambda _: None)
    assert runner.failures == 0 and runner.tries > 0
