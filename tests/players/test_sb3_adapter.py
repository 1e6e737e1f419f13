"""The Stable-Baselines3 adapter, with stand-in models (no SB3 needed)."""

from __future__ import annotations

import numpy as np
import pytest

from big2_env import Game
from big2_env.observations.decision import observation_dict
from big2_env.players.sb3 import SB3Policy


class FixedModel:
    """Predicts a fixed action; records what it was given."""

    def __init__(self, action: int, takes_masks: bool = True):
        self.action = action
        self.calls = []
        if not takes_masks:
            self.predict = self._predict_no_masks

    def predict(self, obs, action_masks=None, deterministic=True):
        self.calls.append((obs, action_masks))
        return np.full(len(obs["observation"]), self.action), None

    def _predict_no_masks(self, obs, deterministic=True):
        self.calls.append((obs, None))
        return np.full(len(obs["observation"]), self.action), None


def opening_obs():
    game = Game(seed=0)
    return observation_dict(game, candidate_view=False), game


def test_batches_and_passes_masks():
    obs, game = opening_obs()
    legal = int(np.flatnonzero(obs["action_mask"])[0])
    model = FixedModel(legal)
    assert SB3Policy(model).act_batch([obs, obs]) == [legal, legal]
    batch, masks = model.calls[0]
    assert batch["observation"].shape == (2, 277) and set(batch) == {"observation", "action_mask"}
    assert masks.dtype == bool and masks.shape == (2, 1695)


def test_illegal_prediction_raises():
    obs, _ = opening_obs()
    model = FixedModel(1694, takes_masks=False)  # pass is illegal at the opening
    with pytest.raises(ValueError, match="illegal action 1694"):
        SB3Policy(model).act(obs)


def test_rejects_objects_without_predict():
    with pytest.raises(TypeError, match="predict"):
        SB3Policy(object())


def test_display_name():
    assert SB3Policy(FixedModel(0)).name == "sb3"
    assert SB3Policy(FixedModel(0), name="mine").name == "mine"


def test_from_file_is_safe_by_default(tmp_path):
    """SB3Policy.from_file never unpickles without trust=True (see tests/evaluation/test_loading.py for the loader)."""
    pytest.importorskip("sb3_contrib")
    from tests.evaluation.test_loading import malicious_zip, save_maskable_ppo

    from big2_env.errors import UntrustedModelError

    marker = tmp_path / "MARKER"
    with pytest.raises(UntrustedModelError, match="trust=True"):
        SB3Policy.from_file(malicious_zip(tmp_path / "evil.zip", marker))
    assert not marker.exists()
    path = save_maskable_ppo(tmp_path / "model.zip")
    policy = SB3Policy.from_file(path)
    trusted = SB3Policy.from_file(str(path), trust=True)
    obs, _ = opening_obs()
    assert obs["action_mask"][policy.act(obs)] == 1
    assert policy.act(obs) == trusted.act(obs)
