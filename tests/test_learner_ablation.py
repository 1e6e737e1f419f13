"""``benchmarks/learner_ablation.py``: each row is measured under the rules its run trained on."""

from __future__ import annotations

import json

import pytest
from scripts import load_script


def _run(tmp_path, rules: str | None):
    run = tmp_path / "run"
    run.mkdir()
    if rules is not None:
        (run / "args.json").write_text(json.dumps({"preset": "charlesworth", "rules": rules}))
    return run


def test_the_rules_come_from_the_run(tmp_path):
    ablation = load_script("benchmarks/learner_ablation.py")
    assert ablation.run_rules(_run(tmp_path, "paper")) == "paper"
    assert ablation.run_rules(tmp_path) == "charlesworth"  # no args.json: his, as every row of the ablation


def test_no_duel_for_a_run_under_the_papers_rules(tmp_path):
    ablation = load_script("benchmarks/learner_ablation.py")
    run = _run(tmp_path, "paper")
    with pytest.raises(SystemExit, match="the duel against his network is under his rules"):
        ablation.measure("c", run, "PATH", games=1, deals=1, jobs=1, out=tmp_path / "out")
    assert not (tmp_path / "out").exists()
