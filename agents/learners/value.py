"""The value learners: Monte Carlo Q, SARSA and Q-learning (paper section 3.3, appendix C),
and Deep Monte Carlo (``dmc``, seed ``004``; DouZero's recipe).

They share PPO's network (:class:`agents.network.Big2Net`, built without the value
head): the dot-product score of a legal candidate is read as ``Q(o, a)``.

* **Collection**: epsilon-greedy over the legal actions (:func:`agents.policy.choose`),
  epsilon linear from ``epsilon_start`` (0.5) at the first batch to ``epsilon_end``
  (0) at the last planned one (:func:`epsilon_at`). Every network seat of a training
  game plays this way (in checkpoint self-play also the current-policy and snapshot
  opponents); heuristic opponents play their own rules. Evaluation plays greedily.
* **Per-seat trajectories**, as in PPO (:func:`agents.learners.ppo.seat_trajectories`): a seat's
  own recorded decisions of one game, in time order; the reward is 0 except at
  the seat's last decision, which gets its final score times ``reward_scale``
  (1/13: the paper divides the value learners' rewards by 13). "The next
  decision" of a seat is its next *recorded* decision: by default forced moves
  (a single legal action) are played without the network and not recorded (see
  ``TrainArgs.train_forced``), so they count as part of the environment's
  transition, like the other players' moves.
* **Targets** (:func:`q_targets`), for a seat's decision ``t`` with reward ``r_t``:

  - ``mcq``: the discounted return ``y_t = sum_k gamma^(k-t) r_k`` to the end of the
    seat's trajectory;
  - ``sarsa``: ``y_t = r_t + gamma * Q_target(o_t+1, a_t+1)``, ``a_t+1`` the action the
    behaviour policy actually took at the seat's next decision;
  - ``qlearning``: ``y_t = r_t + gamma * max_a Q_target(o_t+1, a)`` over the legal
    actions of that next decision;

  at the seat's last decision both bootstrap terms are 0 (the game is over).
  ``Q_target`` is a delayed copy of the network, synchronised every
  ``target_sync`` (10) batches by the trainer.
* **Update** (:func:`value_update`): one Adam step per collected batch on the mean
  squared error between ``Q(o_t, a_t)`` of the chosen actions and their targets
  over every recorded decision of the batch; no replay buffer; global gradient-norm
  clipping at ``max_grad_norm`` (1.0); learning rate 3e-5, constant.

**Deep Monte Carlo** (``dmc``; the Big 2 DMC study, seed ``004``, after DouZero): the
``mcq`` target with no discount (``gamma`` 1: the Monte Carlo return of each chosen action
is the seat's final score x ``reward_scale``), a small constant exploration (epsilon 0.01,
``004``'s), and more learning per batch: ``epochs`` shuffled passes over the batch in
minibatches of ``minibatch`` decisions, one Adam step each (``mcq`` takes one step per
batch). Its network is any :class:`~agents.network.NetworkConfig`; ``004``'s best model
(state and candidate concatenated into a stack of wide fully connected layers with
residual connections) is ``--model design=plus scorer_blocks=2 scorer_hidden=512``: the
plus scorer concatenates the state, the candidate and the hand it leaves. ``004`` feeds the
public play history through an LSTM; a network here decides from an observation dict alone
(so that it can play in every env and evaluation), so the history it reads is the extended
observation's (``observation=extended``: who passed on what, in the round and in the
game, and the cards each seat has played), not the move sequence. Collection uses the
training helper processes (``--workers``) in self-play, like PPO.

**Win probability** (``NetworkConfig(win_head=True)``, AlphaDou, seed ``003``): every
learner above can also predict, per candidate, the probability that the seat wins the
game: its logit is trained by binary cross-entropy (weight ``win_coef``, default 1) against
whether the seat went out first, the Monte Carlo outcome for every algorithm. The network
then plays by :func:`agents.policy.alphadou_scores`: among the candidates whose expected
score is within ``win_rho`` x ``|max|`` of the best, the one most likely to win. (``003``
also splits Q into a winning and a losing part; here Q stays the expected score.)
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any, Mapping

import numpy as np
import torch

from ..config import TrainArgs, ValueConfig
from ..network import Big2Net
from .base import Learner, tensors
from .ppo import minibatches, seat_trajectories
from ..collect.rollout import Rollout

TARGET_CHUNK = 4096
"""Decisions per no-grad forward pass when computing bootstrap targets."""


def epsilon_at(batch: int, total: int, start: float = 0.5, end: float = 0.0) -> float:
    """Exploration rate of 0-based ``batch`` of ``total`` planned batches: linear from
    ``start`` (first batch) to ``end`` (last batch), ``end`` after it.

    >>> [epsilon_at(b, 5) for b in range(6)]
    [0.5, 0.375, 0.25, 0.125, 0.0, 0.0]
    """
    if total <= 1:
        return float(end)
    progress = min(1.0, batch / (total - 1))
    return float(start + (end - start) * progress)


def chosen_rows(rollout: Rollout, index: np.ndarray) -> np.ndarray:
    """Rows of ``rollout.features`` holding the chosen candidate of decisions ``index``."""
    return rollout.offsets[index] + rollout.choice[index]


@torch.no_grad()
def chosen_q(model: Big2Net, rollout: Rollout, index: np.ndarray) -> np.ndarray:
    """``Q(o, a)`` of the action taken at decisions ``index`` (float64, no gradient)."""
    out = np.empty(len(index), dtype=np.float64)
    for start in range(0, len(index), TARGET_CHUNK):
        part = index[start : start + TARGET_CHUNK]
        q = model.score_pairs(
            model.tensor(rollout.obs[part]), model.tensor(rollout.features[chosen_rows(rollout, part)])
        )
        out[start : start + len(part)] = q.double().cpu().numpy()
    return out


@torch.no_grad()
def max_q(model: Big2Net, rollout: Rollout, index: np.ndarray) -> np.ndarray:
    """``max_a Q(o, a)`` over the legal actions of decisions ``index`` (float64, no gradient)."""
    out = np.empty(len(index), dtype=np.float64)
    for start in range(0, len(index), TARGET_CHUNK):
        part = index[start : start + TARGET_CHUNK]
        rows, owner, slot, k = rollout.candidate_rows(part)
        scores, _ = model(
            model.tensor(rollout.obs[part]),
            model.tensor(rollout.features[rows]),
            model.tensor(owner),
            model.tensor(slot),
            k,
        )
        out[start : start + len(part)] = scores.max(dim=1).values.double().cpu().numpy()
    return out


def q_targets(rollout: Rollout, config: ValueConfig, target: Big2Net | None = None) -> np.ndarray:
    """The regression target of every recorded decision, in the rollout's row order (float64).

    See the module docstring for the three targets. ``target`` (the delayed network)
    is needed by ``sarsa`` and ``qlearning`` only.
    """
    order, rewards, dones = seat_trajectories(rollout, config.reward_scale)
    n = len(order)
    if config.algo in ("mcq", "dmc"):
        sorted_targets = np.empty(n, dtype=np.float64)
        following = 0.0
        for i in range(n - 1, -1, -1):
            following = rewards[i] + (0.0 if dones[i] else config.gamma * following)
            sorted_targets[i] = following
    else:
        if target is None:
            raise ValueError(f"{config.algo} bootstraps from a target network; none was given")
        has_next = np.flatnonzero(~dones)  # sorted positions whose seat decides again in that game
        next_rows = order[has_next + 1]
        bootstrap = np.zeros(n, dtype=np.float64)
        if len(next_rows):
            q = chosen_q if config.algo == "sarsa" else max_q
            bootstrap[has_next] = q(target, rollout, next_rows)
        sorted_targets = rewards + config.gamma * bootstrap
    targets = np.empty(n, dtype=np.float64)
    targets[order] = sorted_targets
    return targets


def won_games(rollout: Rollout) -> np.ndarray:
    """Per recorded decision: 1.0 if its seat won that game (went out first), else 0.0 (float32)."""
    return (rollout.winners[rollout.game] == rollout.seat).astype(np.float32)


def value_update(
    model: Big2Net,
    optimizer: torch.optim.Optimizer,
    rollout: Rollout,
    config: ValueConfig,
    target: Big2Net | None = None,
    rng: np.random.Generator | None = None,
) -> dict[str, float]:
    """The batch's optimiser steps on the squared TD / Monte Carlo error; returns statistics.

    ``mcq``, ``sarsa``, ``qlearning``: one step on all the batch's decisions. ``dmc``:
    ``config.epochs`` passes of shuffled minibatches of ``config.minibatch`` (drawn from
    ``rng``), one step each. A ``win_head`` network adds ``config.win_coef`` x the binary
    cross-entropy of its win logit against :func:`won_games`.

    Statistics (means over the steps): ``q_loss`` (the MSE), ``mean_q`` (of the chosen
    actions, before each step), ``mean_target``, ``grad_norm`` (before clipping),
    ``win_loss`` (win head only) and ``minibatches`` (the number of steps).
    """
    n = len(rollout)
    if n == 0:
        return {"minibatches": 0}
    targets = q_targets(rollout, config, target).astype(np.float32)
    won = won_games(rollout) if model.config.win_head else None
    if config.algo == "dmc":
        if rng is None:
            raise ValueError("dmc shuffles its minibatches: give value_update an rng")
        batches = list(minibatches(n, config.epochs, config.minibatch, rng))
    else:
        batches = [np.arange(n)]
    totals: dict[str, float] = {}
    model.train()
    for index in batches:
        for key, value in _value_step(model, optimizer, rollout, index, targets, won, config).items():
            totals[key] = totals.get(key, 0.0) + value
    stats = {key: value / len(batches) for key, value in totals.items()}
    stats["minibatches"] = len(batches)
    return stats


def _value_step(
    model: Big2Net,
    optimizer: torch.optim.Optimizer,
    rollout: Rollout,
    index: np.ndarray,
    targets: np.ndarray,
    won: np.ndarray | None,
    config: ValueConfig,
) -> dict[str, float]:
    """One optimiser step on the decisions ``index``."""
    target = model.tensor(targets[index])
    outputs = model.pair_outputs(model.tensor(rollout.obs[index]), model.tensor(rollout.features[chosen_rows(rollout, index)]))
    q = outputs if won is None else outputs[:, 0]
    loss = torch.nn.functional.mse_loss(q, target)
    stats = {"q_loss": float(loss.detach())}
    if won is not None:
        win_loss = torch.nn.functional.binary_cross_entropy_with_logits(outputs[:, 1], model.tensor(won[index]))
        loss = loss + config.win_coef * win_loss
        stats["win_loss"] = float(win_loss.detach())
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    params = [p for p in model.parameters() if p.requires_grad]
    grad_norm = torch.nn.utils.clip_grad_norm_(params, config.max_grad_norm, foreach=True)
    optimizer.step()
    stats.update(mean_q=float(q.detach().mean()), mean_target=float(target.mean()), grad_norm=float(grad_norm))
    return stats


class ValueLearner(Learner):
    """A value learner (``--algo mcq``, ``sarsa``, ``qlearning`` or ``dmc``): :func:`value_update` on each
    batch, played epsilon-greedy (:func:`epsilon_at`) at a constant learning rate; SARSA and
    Q-learning bootstrap from :attr:`target`, the network copied every ``target_sync`` batches."""

    def __init__(self, model: Big2Net, optimizer: torch.optim.Optimizer, args: TrainArgs, rng: np.random.Generator) -> None:
        super().__init__(model, optimizer, args, rng)
        self.config = args.value_config()
        self.target = deepcopy(model).eval() if self.config.uses_target else None

    def epsilon_at(self, batch: int) -> float:
        return epsilon_at(batch, self.args.batches, self.config.epsilon_start, self.config.epsilon_end)

    def update(self, rollout: Rollout, batch: int, decisions: int) -> dict[str, float]:
        stats = value_update(self.model, self.optimizer, rollout, self.config, self.target, self.rng)
        stats["epsilon"] = self.epsilon_at(batch)
        return stats

    def after_batch(self, batch: int) -> None:
        if self.target is not None and batch % self.config.target_sync == 0:
            self.target.load_state_dict(self.model.state_dict())

    def progress(self, stats: Mapping[str, float]) -> dict[str, str]:
        return {"eps": f"{stats.get('epsilon', float('nan')):.3f}"}

    def state_dict(self) -> dict[str, Any]:
        return {} if self.target is None else {"target_state": tensors(self.target)}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        if self.target is not None:
            self.target.load_state_dict(state["target_state"])
