"""Issue 46's mends in the agents package: an evaluation during training shows its own progress, not
the training counter; the policy's doctests run without numpy warnings."""

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
