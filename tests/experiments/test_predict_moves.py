"""experiments/scripts/predict_moves.py: how well each model predicts a strong player, and a network's fit at other
temperatures."""

from __future__ import annotations

import json
import math

import pytest

from tests.scripts import load_script

pytest.importorskip("torch")

bench = load_script("experiments/scripts/predict_moves.py")


def test_each_model_is_scored_and_a_networks_temperatures_rescale_its_own_fit(tmp_path):
    out = tmp_path / "predict.json"
    assert bench.main(["--teacher", "smart", "--games", "1", "--models", "random,pretrained",
                       "--temperatures", "1,2", "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    assert figures["temperatures"] == [1.0, 2.0]
    rows = figures["models"]
    assert set(rows) == {"random", "pretrained"} and rows["random"]["decisions"] == rows["pretrained"]["decisions"] > 0
    assert "log_likelihood_at" not in rows["random"]  # no probabilities to temper
    tempered = rows["pretrained"]["log_likelihood_at"]
    assert tempered[0] == pytest.approx(rows["pretrained"]["log_likelihood"], abs=1e-6)  # T=1 is the network itself
    assert len(tempered) == 2 and tempered[1] != tempered[0] and all(math.isfinite(v) and v <= 0 for v in tempered)


def test_one_decisions_tempered_log_likelihood_is_the_softmax_of_the_log_probabilities_over_t():
    score = bench.Score((1.0, 2.0))
    probs = {3: 0.7, 5: 0.2, 9: 0.1}
    score.add(3, 0.2, 5, None, probs)
    z = [math.log(p) / 2 for p in probs.values()]
    expected = z[1] - math.log(sum(math.exp(v) for v in z))
    assert score.summary()["log_likelihood_at"] == pytest.approx([math.log(0.2), expected])


@pytest.mark.parametrize("bad", ["0", "x", "1,-2", "200"])
def test_bad_temperatures_are_refused(bad, capsys):
    with pytest.raises(SystemExit):
        bench.main(["--teacher", "smart", "--games", "1", "--temperatures", bad])
    assert "--temperatures must list numbers in [0.05, 100]" in capsys.readouterr().err
