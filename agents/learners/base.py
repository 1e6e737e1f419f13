"""What every learner is to the trainer: :class:`Learner`, one algorithm's schedule and update step.

The trainer owns what every algorithm shares: the network (``model``, the learner's copy, on the
learner's device), its Adam optimiser, the minibatch stream ``rng`` and the loop. A learner owns what
only its algorithm has (PPO's schedules, the value learners' exploration and target
network), and its part of the checkpoint.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Mapping

import numpy as np
import torch

from ..collect.rollout import Rollout
from ..config import TrainArgs
from ..network import Big2Net


class Learner(ABC):
    """One algorithm's update (a subclass per algorithm family; :data:`agents.learners.registry.LEARNERS`
    names them). Built once by the trainer; :meth:`update` runs once a batch.

    Class attributes:
        samples: the trained policy plays by sampling its softmax (PPO); else by its argmax
            (evaluation plays it so, unless ``--eval-deterministic``).
    """

    samples = False

    def __init__(self, model: Big2Net, optimizer: torch.optim.Optimizer, args: TrainArgs, rng: np.random.Generator) -> None:
        self.model, self.optimizer, self.args, self.rng = model, optimizer, args, rng

    @abstractmethod
    def update(self, rollout: Rollout, batch: int, decisions: int) -> dict[str, float]:
        """Learn from batch ``batch`` (0-based) ``rollout``, ``decisions`` having been played before it; its statistics."""

    def lr_at(self, batch: int) -> float:
        """The learning rate at ``batch``: constant (``--lr``) unless the learner has a schedule."""
        return self.args.algo_default("lr")

    def epsilon_at(self, batch: int) -> float | None:
        """The exploration rate the batch is played with (``None``: the policy is sampled)."""
        return None

    def set_lr(self, lr: float) -> None:
        for group in self.optimizer.param_groups:
            group["lr"] = lr

    def after_batch(self, batch: int) -> None:
        """After the ``batch``-th update (1-based): the learner's own bookkeeping."""

    def progress(self, stats: Mapping[str, float]) -> dict[str, str]:
        """What the progress bar shows of a batch's statistics."""
        return {}

    def state_dict(self) -> dict[str, Any]:
        """The learner's own part of the checkpoint (keys of the trainer's checkpoint dict)."""
        return {}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Take back :meth:`state_dict`'s part of a checkpoint."""


def tensors(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """A copy of ``model``'s state, for a checkpoint."""
    return {k: v.detach().clone() for k, v in model.state_dict().items()}
