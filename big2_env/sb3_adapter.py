"""Use a Stable-Baselines3 / sb3-contrib model as a :class:`big2_env.policies.Policy`.

The model must have been trained on the single-agent env with ``candidate_view=False``
(observation keys ``"observation"`` and ``"action_mask"``). Nothing here imports
Stable-Baselines3: any object with SB3's ``predict`` signature works.

Example (needs ``pip install sb3-contrib``)::

    from sb3_contrib import MaskablePPO
    from big2_env.evaluation import evaluate
    from big2_env.sb3_adapter import SB3Policy

    model = MaskablePPO.load("big2_maskable_ppo.zip")
    print(evaluate(SB3Policy(model), "greedy", n_games=1000, seed=0))
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .policies import Observation, Policy

_KEYS = ("observation", "action_mask")


class SB3Policy(Policy):
    """Adapter: ``act(obs)`` calls ``model.predict`` with the legal-action mask.

    Args:
        model: a trained SB3 model (``MaskablePPO`` uses the mask; other algorithms get it too
            but may ignore it, so an illegal choice falls back to the first legal action
            when ``fallback_to_legal`` is true).
        deterministic: take the most likely action (default) or sample.
        fallback_to_legal: replace an illegal prediction by the lowest legal action instead of
            raising ``ValueError``.
    """

    name = "sb3"

    def __init__(self, model: Any, deterministic: bool = True, fallback_to_legal: bool = False) -> None:
        if not hasattr(model, "predict"):
            raise TypeError(f"model must have a predict() method like Stable-Baselines3 models; got {type(model).__name__}")
        self.model = model
        self.deterministic = deterministic
        self.fallback_to_legal = fallback_to_legal

    def act(self, obs: Observation) -> int:
        return self.act_batch([obs])[0]

    def act_batch(self, observations: Sequence[Observation]) -> list[int]:
        batch = {k: np.stack([np.asarray(o[k]) for o in observations]) for k in _KEYS}
        masks = batch["action_mask"].astype(bool)
        actions, _ = self.model.predict(batch, action_masks=masks, deterministic=self.deterministic) if _takes_masks(
            self.model
        ) else self.model.predict(batch, deterministic=self.deterministic)
        result = []
        for action, mask in zip(np.asarray(actions).reshape(-1).tolist(), masks):
            if not mask[action]:
                if not self.fallback_to_legal:
                    legal = np.flatnonzero(mask).tolist()
                    raise ValueError(f"the model chose illegal action {action}; legal actions: {legal}")
                action = int(np.flatnonzero(mask)[0])
            result.append(int(action))
        return result

    def seed(self, seed: int | None = None) -> None:
        """Seed the model's sampling (SB3 seeds the global numpy/torch streams; skipped when deterministic)."""
        if seed is not None and not self.deterministic and hasattr(self.model, "set_random_seed"):
            self.model.set_random_seed(seed % 2**32)

    def __repr__(self) -> str:
        return f"SB3Policy({type(self.model).__name__}, deterministic={self.deterministic})"


def _takes_masks(model: Any) -> bool:
    import inspect

    try:
        return "action_masks" in inspect.signature(model.predict).parameters
    except (TypeError, ValueError):
        return False
