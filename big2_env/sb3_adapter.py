"""Use a Stable-Baselines3 / sb3-contrib model as a :class:`big2_env.policies.Policy`.

The model must have been trained on the single-agent env with ``candidate_view=False``:
a ``Dict`` observation (keys ``"observation"`` and ``"action_mask"``) or, with
``mask_in_observation=False``, the ``Box`` of numbers alone (``MaskablePPO("MlpPolicy", env)``),
of the paper's 277 numbers or the extended 315 (the adapter asks for the view the model
was trained on, from its ``observation_space``). Nothing here imports
Stable-Baselines3: any object with SB3's ``predict`` signature works.

Example (needs ``pip install sb3-contrib``)::

    from big2_env.evaluation import evaluate
    from big2_env.sb3_adapter import SB3Policy

    policy = SB3Policy.from_file("big2_maskable_ppo.zip")  # never unpickles code from the file
    print(evaluate(policy, "greedy", n_games=1000, seed=0))
    print(evaluate("big2_maskable_ppo.zip", "smart", n_games=1000, seed=0))  # the same, by path

Loading a file: ``MaskablePPO.load(path)`` unpickles parts of the file and so runs any
code a crafted file holds; :meth:`SB3Policy.from_file` (and
:func:`big2_env.loading.load_agent`) load a ``MaskablePPO`` save without unpickling
anything unless ``trust=True`` (see :mod:`big2_env.loading`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from .extended import EXTENDED_SIZE
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
        name: display name (e.g. in evaluation tables); ``"sb3"`` by default.
    """

    name = "sb3"

    def __init__(
        self, model: Any, deterministic: bool = True, fallback_to_legal: bool = False, name: str | None = None
    ) -> None:
        if not hasattr(model, "predict"):
            raise TypeError(f"model must have a predict() method like Stable-Baselines3 models; got {type(model).__name__}")
        self.model = model
        space = getattr(model, "observation_space", None)
        self._box = space is not None and not hasattr(space, "spaces")  # the numbers alone, no mask
        numbers = space if self._box else (getattr(space, "spaces", None) or {}).get("observation")
        if getattr(numbers, "shape", None) == (EXTENDED_SIZE,):
            self.observation_kind = "extended"
        self.deterministic = deterministic
        self.fallback_to_legal = fallback_to_legal
        if name is not None:
            self.name = name

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], trust: bool = False, **kwargs: Any) -> SB3Policy:
        """Load a saved sb3-contrib ``MaskablePPO`` model (``.zip``) safely.

        Without ``trust`` nothing in the file is unpickled (see
        :func:`big2_env.loading.load_sb3_model`; a file that would need it raises
        :class:`big2_env.loading.UntrustedModelError`); ``trust=True`` uses
        ``MaskablePPO.load``, which can run code from the file: only for files you wrote.
        ``kwargs`` go to the constructor.
        """
        from .loading import load_sb3_model

        return cls(load_sb3_model(path, trust=trust, what="model"), **kwargs)

    def act(self, obs: Observation) -> int:
        return self.act_batch([obs])[0]

    def act_batch(self, observations: Sequence[Observation]) -> list[int]:
        batch = {k: np.stack([np.asarray(o[k]) for o in observations]) for k in _KEYS}
        masks = batch["action_mask"].astype(bool)
        model_input = batch["observation"] if self._box else batch
        actions, _ = self.model.predict(model_input, action_masks=masks, deterministic=self.deterministic) if _takes_masks(
            self.model
        ) else self.model.predict(model_input, deterministic=self.deterministic)
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
