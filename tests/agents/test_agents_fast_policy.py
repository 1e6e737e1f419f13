"""Fitting the fast move model to a network (:mod:`agents.learners.fast_policy`)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.learners.fast_policy import agreement, fit, main, teacher_decisions  # noqa: E402
from agents.config import NetworkConfig  # noqa: E402
from agents.network import Big2Net  # noqa: E402
from agents.policy import NetworkPolicy  # noqa: E402
from big2_env import Rules  # noqa: E402
from big2_env.players.kernels.fast import N_FEATURES  # noqa: E402
from big2_env.players.fast import FastModel  # noqa: E402

from tests.agents.test_agents_train import SMALL  # noqa: E402


@pytest.fixture(scope="module")
def decisions():
    torch.manual_seed(0)
    teacher = NetworkPolicy(Big2Net(NetworkConfig(**SMALL)))
    return teacher_decisions(teacher, Rules(), games=6, seed=0, batch=4)


def test_teacher_games_record_a_distribution_over_each_decisions_legal_moves(decisions):
    n = len(decisions)
    assert n > 6 * 4  # several choices a game
    counts = np.diff(decisions.offsets)
    assert (counts >= 2).all() and decisions.features.shape == (counts.sum(), N_FEATURES)
    sums = np.add.reduceat(decisions.probs, decisions.offsets[:-1])
    assert np.allclose(sums, 1.0)
    assert ((decisions.made >= 0) & (decisions.made < counts)).all()


def test_the_fit_predicts_the_teacher_better_than_its_start(decisions):
    start = FastModel.smart().weights
    weights = fit(decisions, l2=1e-4, steps=50)
    assert weights.shape == (N_FEATURES,) and np.all(np.isfinite(weights))
    before, after = agreement(start, decisions), agreement(weights, decisions)
    assert after["log_lik"] > before["log_lik"]
    assert all(0 <= after[k] <= 1 for k in ("agrees", "agrees_made"))


def test_the_fit_refuses_charlesworths_network(tmp_path):
    with pytest.raises(SystemExit):
        main(["--teacher", "charlesworth:/nowhere", "--rules", "charlesworth", "--out", str(tmp_path / "m.json")])


def test_a_teacher_on_charlesworths_inputs_gets_the_move_history():
    # the shipped pretrained reads his 412 inputs, rebuilt from the extended view's history
    from agents.pretrained import load_pretrained

    found = teacher_decisions(load_pretrained(), Rules(), games=1, seed=0, batch=1)
    assert len(found) > 4 and np.allclose(np.add.reduceat(found.probs, found.offsets[:-1]), 1.0)
