"""Learning from search: ``big2 train --algo distill`` and expert iteration, ``--algo exit``.

The search agent (:mod:`big2_env.players.search`) plays far better than any network here, but
costs a tenth of a second a move. Distillation turns its play into a network that
decides in one forward pass:

1. **Teacher games** (:mod:`agents.collect.teachers`, the run's collector): each batch,
   ``games_per_batch`` games with the teacher (``--teacher``, any agent spec; default
   ``search:64``) in all four seats, every decision with more than one legal action recorded
   (the teacher's choice, what the network reads, the seat's final score), spread over ``workers``
   processes or Ray tasks.
2. **The update** (:func:`distill_update`): ``epochs`` passes of shuffled minibatches
   over the batch's decisions, minimising the cross-entropy between the network's
   softmax over the legal candidates and the teacher's choice, plus ``value_coef`` x the
   squared error of the value head against the final score x ``reward_scale`` (a Monte
   Carlo return, gamma 1). The learning rate follows PPO's warm-up and cosine schedule.

**Expert iteration** (``--algo exit``, the loop of ExIt and AlphaZero): the same, except that
every batch's teacher search ranks its candidates by the network being trained (its
``prior``: the network's ``prior_top`` favourites and pass are searched), so that the better
the network, the better the search's candidate list and the next targets. With the search over
a network as the teacher (``--teacher search-net``, :mod:`agents.net_search`), the network being
trained is the search's whole blueprint: its candidates, its beliefs and every move of its rollouts. The network is
sent to the teacher processes each batch as plain arrays (:func:`agents.collect.teachers.network_payload`).
``--leaf-value W`` makes it the search's leaf value too (AlphaGo's mix): each deal is played
after each candidate until the searcher is next on move, and there the network's value head
judges the position, weighing ``W`` against the rollout's final score (1: no rollouts).
``--replay`` keeps recent batches, ``--soft-targets T`` learns the softmax of the search's
candidate means / T instead of its one move.

Everything else is the trainer's: checkpoints every few minutes, ``--resume``,
progress bar, evaluation, logs. Then **continue with PPO self-play** from the distilled
weights: ``big2 train --algo ppo --init RUN/model.pt ...`` (the model config must match;
distillation trains the value head too, so PPO starts with a critic).

Example::

    big2 train --algo distill --teacher search:64 --model design=plus --batches 100 --out runs/distill
    big2 train --algo ppo --init runs/distill --model design=plus --lr 1e-4 --out runs/distill-ppo
    big2 train --algo exit --teacher search --init pretrained-default-recipe --soft-targets 1 --replay 4 --out runs/exit
    big2 train --algo exit --teacher search:0.03s --leaf-value 0.5 --init pretrained-default-recipe --out runs/exit-value
    big2 train --algo exit --preset charlesworth --teacher search-net@128 --soft-targets 1 --init pretrained-charlesworth \
        --out runs/exit-net
"""

from __future__ import annotations

from collections import deque
from typing import Mapping

import numpy as np
import torch

from ..config import DistillConfig, TrainArgs
from ..network import Big2Net
from .base import Learner
from .ppo import attach_flat_grad, candidate_keys, minibatches, scheduled_lr
from ..collect.rollout import Rollout, concat_rollouts

__all__ = ["DistillLearner", "distill_update", "soft_targets"]


def soft_targets(
    values: np.ndarray, choice: np.ndarray, owner: np.ndarray, slot: np.ndarray, k: int, temperature: float
) -> np.ndarray:
    """The target distribution over each decision's candidates: ``softmax(values / temperature)``
    over the candidates with a value (NaN: not searched, probability 0), or all on the
    teacher's ``choice`` where none has one. ``values`` are per candidate row, laid out by
    ``owner`` (decision) and ``slot`` (position) into ``(len(choice), k)``.

    >>> soft_targets(np.array([1.0, 1.0, np.nan, 0.0]), np.array([0, 0]), np.array([0, 0, 0, 1]),
    ...              np.array([0, 1, 2, 0]), 3, 1.0).astype(float).round(3).tolist()
    [[0.5, 0.5, 0.0], [1.0, 0.0, 0.0]]
    >>> soft_targets(np.array([2.0, 0.0]), np.array([1]), np.array([0, 0]), np.array([0, 1]), 2,
    ...              1.0).astype(float).round(3).tolist()
    [[0.881, 0.119]]
    """
    logits = np.full((len(choice), k), -np.inf)
    logits[owner, slot] = np.where(np.isnan(values), -np.inf, values / temperature)
    top = logits.max(axis=1, keepdims=True)
    known = np.isfinite(top[:, 0])
    weights = np.exp(logits - np.where(np.isfinite(top), top, 0.0))
    out = np.zeros((len(choice), k), dtype=np.float32)
    out[known] = weights[known] / weights[known].sum(axis=1, keepdims=True)
    out[~known, choice[~known]] = 1.0
    return out


def distill_update(
    model: Big2Net, optimizer: torch.optim.Optimizer, rollout: Rollout, config: DistillConfig, rng: np.random.Generator
) -> dict[str, float]:
    """``epochs`` passes of minibatches over the teacher's decisions; returns mean statistics.

    Loss per minibatch: ``cross_entropy`` (``-log p(teacher's choice)`` under the softmax over
    the legal candidates; with ``soft_targets`` T > 0, the cross-entropy to :func:`soft_targets`)
    ``+ value_coef * value_loss`` (``0.5 (V - score x reward_scale)^2``;
    no value term without a value head). Statistics: ``cross_entropy``, ``value_loss``,
    ``accuracy`` (share of decisions whose argmax is the teacher's choice, before each step),
    ``grad_norm`` (before clipping) and ``minibatches``.
    """
    n = len(rollout)
    if n == 0:
        return {"minibatches": 0}
    if config.soft_targets > 0 and rollout.candidate_values is None:
        raise ValueError("soft targets need a search teacher's candidate means (--teacher search...); this batch has none")
    keys = candidate_keys(rollout.features)
    returns = (rollout.scores[rollout.game, rollout.seat] * config.reward_scale).astype(np.float32)
    params = [p for p in model.parameters() if p.requires_grad]
    flat_grad = attach_flat_grad(params)
    sums = {"cross_entropy": 0.0, "value_loss": 0.0, "accuracy": 0.0, "grad_norm": 0.0}
    steps = 0
    model.train()
    for index in minibatches(n, config.epochs, config.minibatch, rng):
        rows, owner, slot, k = rollout.candidate_rows(index)
        _, first, inverse = np.unique(keys[rows], return_index=True, return_inverse=True)
        scores, value = model(
            model.tensor(rollout.obs[index]), model.tensor(rollout.features[rows[first]]),
            model.tensor(owner), model.tensor(slot), k, model.tensor(inverse.reshape(-1)),
        )
        choice = model.tensor(rollout.choice[index])
        logp = torch.log_softmax(scores, dim=-1)
        if config.soft_targets > 0:
            assert rollout.candidate_values is not None  # checked above
            target = model.tensor(soft_targets(rollout.candidate_values[rows], rollout.choice[index], owner, slot, k,
                                               config.soft_targets))
            cross_entropy = -torch.where(target > 0, target * logp, torch.zeros_like(logp)).sum(1).mean()
        else:
            cross_entropy = -logp.gather(1, choice.unsqueeze(1)).mean()
        loss = cross_entropy
        value_loss = torch.zeros(())
        if value is not None:
            value_loss = 0.5 * (value - model.tensor(returns[index])).square().mean()
            loss = loss + config.value_coef * value_loss
        flat_grad.zero_()
        loss.backward()
        grad_norm = flat_grad.norm()
        if float(grad_norm) > config.max_grad_norm:
            flat_grad.mul_(config.max_grad_norm / (float(grad_norm) + 1e-6))
        optimizer.step()
        sums["cross_entropy"] += float(cross_entropy.detach())
        sums["value_loss"] += float(value_loss.detach())
        sums["accuracy"] += float((scores.detach().argmax(1) == choice).float().mean())
        sums["grad_norm"] += float(grad_norm)
        steps += 1
    out = {k: v / steps for k, v in sums.items()}
    out["minibatches"] = steps
    return out


class DistillLearner(Learner):
    """Learning a teacher's moves (``--algo distill``, ``exit``): :func:`distill_update` over this batch
    and the ``replay - 1`` before it (kept in memory, not checkpointed), on PPO's learning-rate schedule."""

    def __init__(self, model: Big2Net, optimizer: torch.optim.Optimizer, args: TrainArgs, rng: np.random.Generator) -> None:
        super().__init__(model, optimizer, args, rng)
        self.config = args.distill_config()
        self.replay: deque[Rollout] = deque(maxlen=self.config.replay)

    def lr_at(self, batch: int) -> float:
        return scheduled_lr(self.args, batch, self.config.lr, self.config.warmup_fraction, self.config.min_lr_fraction)

    def update(self, rollout: Rollout, batch: int, decisions: int) -> dict[str, float]:
        self.replay.append(rollout)
        learned = concat_rollouts(list(self.replay))  # this batch and the replay - 1 before it
        return distill_update(self.model, self.optimizer, learned, self.config, self.rng)

    def progress(self, stats: Mapping[str, float]) -> dict[str, str]:
        return {"acc": f"{stats.get('accuracy', float('nan')):.3f}"}
