"""The learners by algorithm name: :data:`LEARNERS` (``--algo``)."""

from __future__ import annotations

from .base import Learner
from .ppo import PPOLearner
from .value import ValueLearner

LEARNERS: dict[str, type[Learner]] = {
    "ppo": PPOLearner,
    "mcq": ValueLearner,
    "sarsa": ValueLearner,
    "qlearning": ValueLearner,
    "dmc": ValueLearner,
}
"""Each algorithm's :class:`~agents.learners.base.Learner` (its config: ``TrainArgs.ppo_config``,
``value_config``)."""
