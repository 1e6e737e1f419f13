"""PPO for the card-aware network (paper appendix C).

* **Per-seat trajectories.** Each seat's own decisions in a game form its
  trajectory (the other players' moves happen "inside the environment" between
  two of them). The reward is 0 at every decision except the seat's last one,
  which gets that seat's final score (times ``reward_scale``, 1 by default: the
  paper's unshaped score); the trajectory ends there (no bootstrap).
* **GAE** with ``gamma`` 0.99 and ``lambda`` 0.95 along each trajectory
  (:func:`gae`); returns = advantages + values.
* **Advantages are normalised** (mean 0, sd 1) over the whole collected batch,
  once, before the epochs.
* **Loss** (minimised): clipped policy surrogate (``clip`` 0.2) + ``value_coef``
  (0.5) x clipped value loss (CleanRL's form: ``0.5 * max((V - R)^2,
  (V_old + clip(V - V_old, -0.2, 0.2) - R)^2)``) - ``entropy_coef`` (paper best
  0.05) x mean entropy of the policy over each state's legal candidates.
* **Optimisation**: ``epochs`` (4) passes over the batch in shuffled minibatches
  of ``minibatch`` (256; the last one of a pass may be smaller) decisions, Adam,
  global gradient-norm clipping at 0.5. The learning rate (3e-5) follows
  :func:`lr_at`: linear warm-up, then cosine decay to ``min_lr_fraction`` of the
  peak at the last planned batch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Iterator, Mapping, Protocol, Sequence

import numpy as np
import torch

from ..config import PPOConfig, TrainArgs
from ..network import Big2Net
from ..collect.rollout import Rollout, candidate_rows, select_rows
from .base import Learner


def lr_at(batch: int, total: int, peak: float, warmup_fraction: float = 0.02, min_fraction: float = 0.0) -> float:
    """Learning rate for 0-based ``batch`` of ``total`` planned batches.

    Linear warm-up over the first ``w = ceil(warmup_fraction * total)`` batches
    (``peak * (batch + 1) / w``), then cosine decay from ``peak`` towards
    ``min_fraction * peak``: ``floor + (peak - floor) * (1 + cos(pi * p)) / 2`` with
    ``p = (batch - w) / (total - w)`` (so it reaches the floor just after the last
    planned batch). Batches past ``total`` stay at the floor.

    >>> [round(lr_at(b, 10, 1.0, 0.2), 3) for b in range(10)]
    [0.5, 1.0, 1.0, 0.962, 0.854, 0.691, 0.5, 0.309, 0.146, 0.038]
    """
    total = max(1, int(total))
    warmup = max(0, math.ceil(warmup_fraction * total))
    if batch < warmup:
        return peak * (batch + 1) / warmup
    floor = min_fraction * peak
    progress = min(1.0, (batch - warmup) / max(1, total - warmup))
    return floor + (peak - floor) * 0.5 * (1.0 + math.cos(math.pi * progress))


def linear_lr_at(batch: int, total: int, peak: float, min_fraction: float = 0.0) -> float:
    """Charlesworth's schedule (``--lr-schedule linear``): ``peak x (1 - batch / total)``, never below
    ``min_fraction x peak``.

    >>> [round(linear_lr_at(b, 4, 1.0, 0.1), 2) for b in range(5)]
    [1.0, 0.75, 0.5, 0.25, 0.1]
    """
    return max(min_fraction * peak, peak * (1.0 - batch / max(1, int(total))))


def scheduled_lr(args: TrainArgs, batch: int, peak: float, warmup_fraction: float, min_fraction: float) -> float:
    """PPO's learning rate at ``batch``: warm-up and cosine decay (:func:`lr_at`), or
    ``--lr-schedule linear`` (:func:`linear_lr_at`), over ``args.batches``."""
    if args.lr_schedule == "linear":
        return linear_lr_at(batch, args.batches, peak, min_fraction)
    return lr_at(batch, args.batches, peak, warmup_fraction, min_fraction)


def entropy_at(batch: int, total: int, coef: float, anneal_fraction: float = 0.0) -> float:
    """Entropy coefficient for 0-based ``batch`` of ``total`` planned batches: ``coef``, then,
    over the last ``a = ceil(anneal_fraction * total)`` batches, linear down to 0
    (``coef * (total - batch) / (a + 1)``, so the last planned batch still explores a little and
    batches past ``total`` get 0).

    >>> [round(entropy_at(b, 10, 0.05, 0.4), 3) for b in range(11)]
    [0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.04, 0.03, 0.02, 0.01, 0.0]
    """
    anneal = math.ceil(anneal_fraction * max(1, int(total)))
    if anneal == 0 or batch < total - anneal:
        return coef
    return coef * max(0, total - batch) / (anneal + 1)


def gae(
    rewards: np.ndarray, values: np.ndarray, dones: np.ndarray, gamma: float = 0.99, lam: float = 0.95,
    cuts: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Generalised advantage estimates over concatenated trajectories.

    ``dones[t]`` is True at the last step of a trajectory (nothing is bootstrapped
    past it); the next step, if any, starts a new trajectory. ``cuts[t]`` (optional) marks a
    trajectory's last step that is not its end: the trajectory goes on past the data, so step
    ``t`` only gives its value to bootstrap the steps before it (its own advantage is 0, unused).
    Returns ``(advantages, returns)`` with ``returns = advantages + values`` (float64).

    >>> adv, ret = gae(np.array([0.0, 1.0]), np.array([0.5, 0.5]), np.array([False, True]), 0.5, 0.5)
    >>> adv.tolist(), ret.tolist()
    ([-0.125, 0.5], [0.375, 1.0])
    >>> gae(np.zeros(2), np.array([0.5, 2.0]), np.array([False, True]), 0.5, 0.5, np.array([False, True]))[0].tolist()
    [0.5, 0.0]
    """
    rewards = np.asarray(rewards, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    dones = np.asarray(dones, dtype=bool)
    cut = np.zeros(len(rewards), dtype=bool) if cuts is None else np.asarray(cuts, dtype=bool)
    n = len(rewards)
    advantages = np.zeros(n, dtype=np.float64)
    next_adv = 0.0
    next_value = 0.0
    for t in range(n - 1, -1, -1):
        if dones[t]:
            next_adv = 0.0
            next_value = 0.0
        if cut[t]:  # the trajectory goes on after the data: this value bootstraps the step before
            next_value = values[t]
            continue
        delta = rewards[t] + gamma * next_value - values[t]
        next_adv = delta + gamma * lam * next_adv
        advantages[t] = next_adv
        next_value = values[t]
    return advantages, advantages + values


def seat_trajectories(rollout: Rollout, reward_scale: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Order the recorded decisions by (game, seat, time) and give each seat its own rewards.

    Returns ``(order, rewards, dones)``: ``order`` indexes the rollout's rows so that
    each (game, seat) trajectory is contiguous and in time order; ``rewards[i]`` and
    ``dones[i]`` belong to row ``order[i]``: the seat's final score (times
    ``reward_scale``) and True at its last decision, 0 and
    False elsewhere (a ``cut`` row, whose game goes on into the next batch, gets no reward).
    """
    order = np.lexsort((rollout.turn, rollout.seat, rollout.game))
    game = rollout.game[order]
    seat = rollout.seat[order]
    n = len(order)
    dones = np.ones(n, dtype=bool)
    if n > 1:
        dones[:-1] = (game[1:] != game[:-1]) | (seat[1:] != seat[:-1])
    rewards = np.zeros(n, dtype=np.float64)
    rewards[dones] = rollout.scores[game[dones], seat[dones]] * reward_scale
    if rollout.cut is not None:
        rewards[rollout.cut[order]] = 0.0
    return order, rewards, dones


def advantages_and_returns(rollout: Rollout, config: PPOConfig) -> tuple[np.ndarray, np.ndarray]:
    """Per-row advantages (not yet normalised) and returns, in the rollout's row order (0 and the
    value itself at ``cut`` rows, which are not learned in this batch)."""
    order, rewards, dones = seat_trajectories(rollout, config.reward_scale)
    cuts = None if rollout.cut is None else rollout.cut[order]
    adv_sorted, ret_sorted = gae(rewards, rollout.value[order], dones, config.gamma, config.gae_lambda, cuts)
    advantages = np.empty(len(order), dtype=np.float64)
    returns = np.empty(len(order), dtype=np.float64)
    advantages[order] = adv_sorted
    returns[order] = ret_sorted
    return advantages, returns


def candidate_keys(features: np.ndarray) -> np.ndarray:
    """One int64 per candidate row naming its combination (its 52 card bits and the pass bit):
    equal keys, equal feature rows (the other features follow from the cards under one rule set)."""
    bits = np.packbits(features[:, :53] > 0, axis=1, bitorder="little")  # (M, 7)
    padded = np.zeros((len(features), 8), dtype=np.uint8)
    padded[:, :7] = bits
    return padded.view("<i8").reshape(-1)


def make_optimizer(model: Big2Net, lr: float) -> torch.optim.Optimizer:
    """Adam; the fused CPU kernel when this torch has it (several times faster for many small tensors)."""
    try:
        return torch.optim.Adam(model.parameters(), lr=lr, fused=True)
    except (RuntimeError, TypeError, ValueError):
        return torch.optim.Adam(model.parameters(), lr=lr, foreach=True)


@dataclass
class UpdateData:
    """What PPO's minibatch loss reads, one row per recorded decision (numpy arrays, so that
    it pickles cheaply to the gradient workers of :mod:`agents.learners.processes`).

    ``obs`` (N, 277), the candidates' ``features`` (M, 80) with their
    :func:`candidate_keys` ``keys`` (M,), ``counts`` / ``offsets`` (N,) locating each
    decision's candidates, ``choice``, behaviour ``old_logp`` and ``old_value``, and the
    normalised ``advantages`` and ``returns`` (N,).
    """

    obs: np.ndarray
    features: np.ndarray
    keys: np.ndarray
    counts: np.ndarray
    offsets: np.ndarray
    choice: np.ndarray
    old_logp: np.ndarray
    old_value: np.ndarray
    advantages: np.ndarray
    returns: np.ndarray

    @classmethod
    def from_rollout(cls, rollout: Rollout, config: PPOConfig) -> "UpdateData":
        """GAE over the rollout's per-seat trajectories, advantages normalised over the batch; the
        ``cut`` rows (learned in the next batch) left out."""
        advantages, returns = advantages_and_returns(rollout, config)
        if rollout.cut is not None and rollout.cut.any():
            keep = np.flatnonzero(~rollout.cut)
            advantages, returns = advantages[keep], returns[keep]
            rollout = select_rows(rollout, keep)
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        return cls(
            obs=rollout.obs,
            features=rollout.features,
            keys=candidate_keys(rollout.features),
            counts=rollout.counts,
            offsets=rollout.offsets,
            choice=rollout.choice,
            old_logp=rollout.logp,
            old_value=rollout.value,
            advantages=advantages.astype(np.float32),
            returns=returns.astype(np.float32),
        )


def split_minibatch(index: np.ndarray, parts: int) -> list[np.ndarray]:
    """``index`` cut into ``parts`` consecutive pieces of nearly equal size, larger ones first.

    >>> [p.tolist() for p in split_minibatch(np.arange(5), 2)]
    [[0, 1, 2], [3, 4]]
    """
    return np.array_split(index, parts)


class GradientHelpers(Protocol):
    """Helper processes that compute parts of each minibatch's gradient (:class:`agents.learners.processes.TrainHelpers`)."""

    def __len__(self) -> int: ...

    def set_data(self, data: Any, config: PPOConfig) -> None: ...

    def start(self, parts: Sequence[np.ndarray], total: int) -> list[int]: ...

    def finish(self, busy: Sequence[int], flat_grad: torch.Tensor) -> list[dict[str, float]]: ...


def minibatches(n: int, epochs: int, size: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Shuffled minibatch indices: ``epochs`` passes over ``range(n)``, each in a fresh random
    order cut into runs of ``size`` (the last one shorter).

    >>> [b.tolist() for b in minibatches(5, 1, 2, np.random.default_rng(0))]
    [[2, 4], [3, 0], [1]]
    """
    for _ in range(epochs):
        permutation = rng.permutation(n)
        for start in range(0, n, size):
            yield permutation[start : start + size]


def loss_terms(
    model: Big2Net, data: UpdateData, index: np.ndarray, config: PPOConfig
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, dict[str, torch.Tensor]]:
    """PPO's loss terms on the decisions ``index`` of ``data`` (means over them):
    ``(policy_loss, value_loss, entropy, stats)``, the first three with their graphs; ``stats``
    holds ``approx_kl`` and ``clip_fraction`` (detached). Each candidate combination is encoded
    once (equal :func:`candidate_keys`)."""
    rows, owner, slot, k = candidate_rows(data.counts, data.offsets, index)
    _, first, inverse = np.unique(data.keys[rows], return_index=True, return_inverse=True)
    idx = model.tensor(index)
    scores, value = model(
        model.tensor(data.obs).index_select(0, idx),
        model.tensor(data.features[rows[first]]),
        model.tensor(owner),
        model.tensor(slot),
        k,
        model.tensor(inverse.reshape(-1)),
    )
    assert value is not None, "PPO needs a network with a value head"
    clip = config.clip
    logp_all = torch.log_softmax(scores, dim=-1)
    logp = logp_all.gather(1, model.tensor(data.choice[index]).unsqueeze(1)).squeeze(1)
    probs = logp_all.exp()
    entropy = -(probs * logp_all.masked_fill(torch.isinf(scores), 0.0)).sum(-1).mean()
    log_ratio = logp - model.tensor(data.old_logp[index])
    ratio = log_ratio.exp()
    adv = model.tensor(data.advantages[index])
    policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1.0 - clip, 1.0 + clip)).mean()
    ret = model.tensor(data.returns[index])
    old_value = model.tensor(data.old_value[index])
    clipped_value = old_value + (value - old_value).clamp(-clip, clip)
    value_loss = 0.5 * torch.max((value - ret).square(), (clipped_value - ret).square()).mean()
    with torch.no_grad():
        stats = {
            "approx_kl": ((ratio - 1.0) - log_ratio).mean(),
            "clip_fraction": ((ratio - 1.0).abs() > clip).float().mean(),
        }
    return policy_loss, value_loss, entropy, stats


def minibatch_loss(
    model: Big2Net, data: UpdateData, index: np.ndarray, config: PPOConfig
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """PPO's loss on the decisions ``index`` of ``data`` (means over them) and its parts.

    Returns ``(loss, stats)``; ``stats`` holds ``policy_loss``, ``value_loss``,
    ``entropy``, ``approx_kl`` and ``clip_fraction`` (detached); see :func:`loss_terms`.
    """
    policy_loss, value_loss, entropy, stats = loss_terms(model, data, index, config)
    loss = policy_loss + config.value_coef * value_loss - config.entropy_coef * entropy
    stats = {"policy_loss": policy_loss.detach(), "value_loss": value_loss.detach(), "entropy": entropy.detach(), **stats}
    return loss, stats


GRADIENT_PROBE = 1024
"""Decisions of a probed batch's first minibatch on which :func:`gradient_ratio` is measured."""

GRADIENT_PROBE_EVERY = 16_384
"""Decisions played between two probes of :func:`gradient_ratio` (see :func:`probe_due`)."""


def probe_due(decisions_before: int, decisions_after: int, every: int = GRADIENT_PROBE_EVERY) -> bool:
    """Whether the batch that takes a run from ``decisions_before`` to ``decisions_after`` decisions
    measures :func:`gradient_ratio`: the first batch, and each batch that crosses a multiple of
    ``every``. Batches of ``every`` decisions or more (the default's 512 games) are all probed; his
    recipe's 1,280-decision batches one in 13 (probing each costs a few percent of its update:
    ``docs/agents.md``, the learner's health).
    It depends on the decision counts alone, so a resumed run probes the same batches.

    >>> [probe_due(0, 1280), probe_due(1280, 2560), probe_due(15360, 16640), probe_due(0, 30000, 16384)]
    [True, False, True, True]
    """
    if every < 1:
        raise ValueError(f"every must be a positive number of decisions; got {every}")
    return decisions_before == 0 or decisions_after // every > decisions_before // every


def gradient_ratio(model: Big2Net, data: UpdateData, index: np.ndarray, config: PPOConfig) -> float:
    """How much harder the value loss pulls on the shared layers than the policy does:
    ``|grad of value_coef x value loss| / |grad of policy loss - entropy_coef x entropy|``, both
    over the parameters that both terms reach (the state encoder), on the decisions ``index``.

    Large ratios mean the value head dominates the shared encoder's updates and, after the
    global gradient clip, shrinks the policy's step (as with raw scores: ``experiments/results/recipe/REPORT.md``). ``nan``
    when the policy's gradient there is zero.
    """
    policy_loss, value_loss, entropy, _ = loss_terms(model, data, index, config)
    params = [p for p in model.parameters() if p.requires_grad]
    policy = torch.autograd.grad(policy_loss - config.entropy_coef * entropy, params, retain_graph=True,
                                 allow_unused=True)
    value = torch.autograd.grad(config.value_coef * value_loss, params, allow_unused=True)
    shared = [(p, v) for p, v in zip(policy, value) if p is not None and v is not None]
    if not shared:
        return float("nan")
    p_norm = float(torch.sqrt(sum((p.square().sum() for p, _ in shared), torch.zeros(()))))
    v_norm = float(torch.sqrt(sum((v.square().sum() for _, v in shared), torch.zeros(()))))
    return v_norm / p_norm if p_norm > 0 else float("nan")


class ClipMonitor:
    """Watches PPO's clip fraction batch by batch and says, once, when the policy is not learning.

    A clip that has not bound (clip fraction below ``threshold``) for ``patience`` batches in a
    row means the policy barely moves, as under the paper's learning rate of 3e-5
    (``experiments/results/recipe/REPORT.md``).

    >>> monitor = ClipMonitor(patience=2)
    >>> [monitor.update(0.0) is None for _ in range(3)]
    [True, False, True]
    """

    def __init__(self, patience: int = 50, threshold: float = 1e-3) -> None:
        self.patience = patience
        self.threshold = threshold
        self.quiet = 0
        self.warned = False

    def update(self, clip_fraction: float, lr: float | None = None) -> str | None:
        """Record one batch's clip fraction; the warning text the first time the patience runs out."""
        self.quiet = self.quiet + 1 if clip_fraction < self.threshold else 0
        if self.quiet < self.patience or self.warned:
            return None
        self.warned = True
        at = "" if lr is None else f" at learning rate {lr:.3g}"
        return (
            f"warning: the policy is not learning: PPO's clip has not bound (clip fraction under {self.threshold:.1%}) "
            f"for {self.quiet} batches in a row{at}. The steps are too small to move the policy: raise --lr, or use "
            f"the default preset (lr {PPOConfig().lr:g}, scores x {PPOConfig().reward_scale:.4g}) instead of --preset paper"
        )


def attach_flat_grad(params: list[torch.nn.Parameter], buffer: torch.Tensor | None = None) -> torch.Tensor:
    """Make every parameter's ``.grad`` a view of one flat tensor (``buffer``, or a new one) and return it.

    Backward passes then accumulate into it in place, so that zeroing, the global
    norm, clipping and adding another process's gradient are one operation each
    instead of one per parameter. Zero it before each backward pass.
    """
    total = sum(p.numel() for p in params)
    if buffer is None:
        buffer = torch.zeros(total, dtype=params[0].dtype, device=params[0].device)
    elif buffer.numel() != total:
        raise ValueError(f"gradient buffer holds {buffer.numel()} numbers; the parameters need {total}")
    for p, view in zip(params, buffer.split([p.numel() for p in params])):
        p.grad = view.view_as(p)
    return buffer


def ppo_update(
    model: Big2Net,
    optimizer: torch.optim.Optimizer,
    rollout: Rollout,
    config: PPOConfig,
    rng: np.random.Generator,
    workers: GradientHelpers | None = None,
    probe: bool = True,
) -> dict[str, float]:
    """Run the PPO epochs on one collected batch; returns mean statistics.

    ``rng`` shuffles the minibatches. With ``workers`` (:class:`agents.learners.processes.TrainHelpers`),
    each minibatch is split between this process and the helpers, which compute
    their parts' gradients at the same time (the same update up to float rounding).
    Statistics: ``policy_loss``, ``value_loss``, ``entropy``, ``approx_kl``
    (``mean((r - 1) - log r)``), ``clip_fraction``, ``grad_norm`` (before
    clipping), ``explained_variance``, ``minibatches`` and ``grad_ratio`` (:func:`gradient_ratio`
    on the first minibatch's first :data:`GRADIENT_PROBE` decisions, before any step; absent
    when ``probe`` is False).
    """
    data = UpdateData.from_rollout(rollout, config)
    n = len(data.obs)
    if n == 0:
        return {"minibatches": 0}
    if workers is not None:
        workers.set_data(data, config)
    parts_per_step = 1 + (len(workers) if workers is not None else 0)
    params = [p for p in model.parameters() if p.requires_grad]
    flat_grad = attach_flat_grad(params)
    sums = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "clip_fraction": 0.0, "grad_norm": 0.0}
    steps = 0
    model.train()
    ratio = float("nan")
    for index in minibatches(n, config.epochs, config.minibatch, rng):
        if steps == 0 and probe:
            ratio = gradient_ratio(model, data, index[:GRADIENT_PROBE], config)
        flat_grad.zero_()
        if workers is None:
            loss, stats = minibatch_loss(model, data, index, config)
            loss.backward()
            shares = [(1.0, {k: float(v) for k, v in stats.items()})]
        else:
            own, *others = split_minibatch(index, parts_per_step)
            busy = workers.start(others, len(index))
            loss, stats = minibatch_loss(model, data, own, config)
            (loss * (len(own) / len(index))).backward()
            shares = [(len(own) / len(index), {k: float(v) for k, v in stats.items()})]
            shares += [(len(others[i]) / len(index), s) for i, s in zip(busy, workers.finish(busy, flat_grad))]
        grad_norm = float(flat_grad.norm())
        if grad_norm > config.max_grad_norm:  # global gradient-norm clipping (as torch.nn.utils.clip_grad_norm_)
            flat_grad.mul_(config.max_grad_norm / (grad_norm + 1e-6))
        optimizer.step()
        for weight, part in shares:
            for key, value in part.items():
                sums[key] += weight * value
        sums["grad_norm"] += grad_norm
        steps += 1
    stats_out = {key: value / steps for key, value in sums.items()}
    returns = data.returns.astype(np.float64)
    var = float(np.var(returns))
    stats_out["explained_variance"] = float(1.0 - np.var(returns - data.old_value) / var) if var > 0 else float("nan")
    stats_out["minibatches"] = steps
    if probe:
        stats_out["grad_ratio"] = ratio
    return stats_out


class PPOLearner(Learner):
    """PPO (``--algo ppo``): :func:`ppo_update` on each batch with the schedules of the learning rate
    (:func:`scheduled_lr`), the entropy coefficient (:func:`entropy_at`) and the clip (``--clip-anneal``).

    :attr:`gradients` (set by the trainer when helper processes collect and the learner is the CPU
    actor itself) share every minibatch's gradient (:class:`agents.learners.processes.TrainHelpers`).
    """

    samples = True

    def __init__(self, model: Big2Net, optimizer: torch.optim.Optimizer, args: TrainArgs, rng: np.random.Generator) -> None:
        super().__init__(model, optimizer, args, rng)
        self.config = args.ppo_config()
        self.gradients: GradientHelpers | None = None

    def lr_at(self, batch: int) -> float:
        return scheduled_lr(self.args, batch, self.config.lr, self.config.warmup_fraction, self.config.min_lr_fraction)

    def entropy_at(self, batch: int) -> float:
        """The entropy coefficient at ``batch``: ``entropy``, then (``entropy_anneal`` > 0) linear
        to 0 over that last fraction of the planned batches."""
        return entropy_at(batch, self.args.batches, self.args.entropy, self.args.entropy_anneal)

    def clip_at(self, batch: int) -> float:
        """The clip at ``batch``: ``clip``, or (``clip_anneal``) ``clip x (1 - batch / batches)`` as his."""
        if not self.args.clip_anneal:
            return self.args.clip
        return self.args.clip * max(0.0, 1.0 - batch / max(1, self.args.batches))

    def update(self, rollout: Rollout, batch: int, decisions: int) -> dict[str, float]:
        config = replace(self.config, entropy_coef=self.entropy_at(batch), clip=self.clip_at(batch))
        probe = probe_due(decisions, decisions + rollout.decisions)
        stats = ppo_update(self.model, self.optimizer, rollout, config, self.rng, self.gradients, probe=probe)
        stats["entropy_coef"] = config.entropy_coef
        return stats

    def progress(self, stats: Mapping[str, float]) -> dict[str, str]:
        return {"ent": f"{stats.get('entropy', float('nan')):.3f}", "kl": f"{stats.get('approx_kl', float('nan')):.4f}"}
