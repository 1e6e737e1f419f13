"""The Random baseline: uniform over the legal actions."""

from __future__ import annotations

import numpy as np

from ..engine.rules import Rules
from .base import Observation, Policy, legal_actions

__all__ = ["RandomPolicy"]


class RandomPolicy(Policy):
    """Uniform over the legal actions (pass included when legal).

    ``rules`` is accepted (and ignored) so every registered policy takes the same
    keywords; legality comes from the observation's mask.
    """

    name = "random"

    def __init__(self, seed: int | None = None, rules: Rules | str | dict | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, obs: Observation) -> int:
        actions = legal_actions(obs)
        if len(actions) == 0:
            raise ValueError("the observation has no legal action: is this agent on move?")
        return int(actions[self.rng.integers(len(actions))])
