"""``experiments/scripts/versus_pretrained.py``: a paper-rules candidate against the shipped ``pretrained``,
on both deal sets, by the rule fixed before measuring."""

from __future__ import annotations

import json
import shutil

import pytest
from tests.scripts import REPO, load_script

pytest.importorskip("torch")

FIGURES = REPO / "experiments" / "results" / "learner" / "paper_rules"
SHIPPED = load_script("experiments/scripts/versus_pretrained.py").SHIPPED
REFERENCES = ["pretrained_eval_random.json", "pretrained_eval_greedy.json", "pretrained_eval_smart.json", f"{SHIPPED}_seed0.json"]


@pytest.fixture
def folder(tmp_path):
    for name in REFERENCES:
        shutil.copy(FIGURES / name, tmp_path / name)
    return tmp_path


def test_pretrained_figures_are_read_from_its_own_files(folder):
    script = load_script("experiments/scripts/versus_pretrained.py")
    own = script.reference_win_rates(folder, "on_pretrained_deals")
    assert own == {o: json.loads((FIGURES / f"pretrained_eval_{o}.json").read_text())["win_rate"] for o in script.OPPONENTS}
    fresh = script.reference_win_rates(folder, "seed0")
    seed0 = json.loads((FIGURES / f"{SHIPPED}_seed0.json").read_text())["vs"]
    assert fresh == {o: seed0[o]["win_rate"] for o in script.OPPONENTS}


def test_the_shipped_candidates_figures_are_the_shipped_files():
    # pretrained_eval_*.json are big2 eval's figures of the packaged file; the candidate shipped as it (SHIPPED)
    # was measured on the same deals before it was packaged: a file shipped without its record fails here
    script = load_script("experiments/scripts/versus_pretrained.py")
    candidate = json.loads((FIGURES / f"{script.SHIPPED}_on_pretrained_deals.json").read_text())["vs"]
    for opponent in script.OPPONENTS:
        shipped = json.loads((FIGURES / f"pretrained_eval_{opponent}.json").read_text())
        assert shipped["agent"] == "pretrained" and shipped["games"] == candidate[opponent]["games"]
        measured = candidate[opponent]
        assert (shipped["win_rate"], shipped["mean_score"]) == (measured["win_rate"], measured["mean_score"])


def test_a_candidate_is_measured_on_both_deal_sets_and_judged(folder, tmp_path):
    script = load_script("experiments/scripts/versus_pretrained.py")
    run = tmp_path / "run"
    run.mkdir()
    (run / "train_log.csv").write_text("batch,games\n1,28\n2,57\n")
    written = script.measure("pretrained", "probe", "pretrained itself", games=4, folder=folder, run=run, progress=False)
    assert set(written) == {"on_pretrained_deals", "seed0"}
    for deal_set, figures in written.items():
        on_disk = json.loads((folder / f"probe_{deal_set}.json").read_text())
        assert on_disk == figures
        rates = [figures["vs"][o]["win_rate"] for o in script.OPPONENTS]
        assert all(rate in (0, 0.25, 0.5, 0.75, 1) for rate in rates)  # 4 games each
        assert figures["mean_win_rate"] == pytest.approx(sum(rates) / 3)
        reference = sum(script.reference_win_rates(folder, deal_set).values()) / 3
        assert figures["pretrained_mean_win_rate"] == pytest.approx(reference)
        assert figures["higher_than_pretrained"] == (figures["mean_win_rate"] > reference)
        assert figures["fork_games"] == 57 and figures["seed"] == script.DEAL_SETS[deal_set][0]


def test_missing_figures_or_a_bad_tag_are_refused_before_playing(folder):
    script = load_script("experiments/scripts/versus_pretrained.py")
    with pytest.raises(SystemExit, match="TAG"):
        script.measure("pretrained", "a/b", "x", games=1, folder=folder)
    (folder / f"{SHIPPED}_seed0.json").unlink()
    with pytest.raises(SystemExit, match=f"{SHIPPED}_seed0.json"):
        script.measure("pretrained", "probe", "x", games=1, folder=folder)
    assert not list(folder.glob("probe_*"))
