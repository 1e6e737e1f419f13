"""Learning from search: ``big2 train --algo distill`` and expert iteration, ``--algo exit``.

The search agent (:mod:`big2_env.players.search`) plays far better than any network here, but
costs a tenth of a second a move. Distillation turns its play into a network that
decides in one forward pass:

1. **Teacher games** (:func:`teacher_rollout`): each batch, ``games_per_batch`` games
   with the teacher (``--teacher``, any agent spec; default ``search:64``) in all four
   seats. Every decision with more than one legal action is recorded: the observation
   the network reads (277 numbers, the 315 of the extended observation, or Charlesworth's 412), the
   candidates' features, the teacher's choice and, once the game ends, that seat's final
   score. Each game is played by a teacher seeded with the game's seed, so the data do
   not depend on how the games are spread over processes.
2. **Spread over processes** (:class:`TeacherPool`): the games of a batch are cut into
   consecutive chunks played by ``workers`` processes (started with forkserver/spawn,
   never by forking a running torch), or by Ray tasks (``--backend ray``), gathered in order.
3. **The update** (:func:`distill_update`): ``epochs`` passes of shuffled minibatches
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
sent to the teacher processes each batch as plain arrays (:func:`network_payload`).
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

import multiprocessing
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import torch

from big2_env.observations.decision import Decision
from big2_env.evaluation.workers import worker_pool
from big2_env.observations.decision import PolicyObservation
from big2_env.players.base import policy_actions
from big2_env.observations.extended import EXTENDED_SIZE
from big2_env.players.charlesworth import INPUT_SIZE as CHARLESWORTH_SIZE, observation_input
from big2_env.engine.game import NUM_PLAYERS, Game
from big2_env.engine.rules import Rules

from ..config import DistillConfig, NetworkConfig, TrainArgs
from ..network import OBS_SIZE, Big2Net
from .base import Learner
from .ppo import attach_flat_grad, candidate_keys, minibatches, scheduled_lr
from ..collect.base import Batch, Collector
from ..collect.rollout import Rollout, _Recorder, concat_rollouts

__all__ = ["NO_LEAF_VALUE", "OBSERVATIONS", "DistillLearner", "Payload", "TeacherCollector", "TeacherPool", "check_teacher",
           "distill_update", "network_payload", "payload_network", "soft_targets", "teacher_observation", "teacher_rollout"]

OBSERVATIONS = {"paper": OBS_SIZE, "extended": EXTENDED_SIZE, "charlesworth": CHARLESWORTH_SIZE}
"""The views a teacher's games are recorded in (a network's ``NetworkConfig.observation``), and their widths."""
NO_LEAF_VALUE = "--leaf-value is the search's (search:N); search-net plays every rollout to the end with the network"
"""The refusal of a leaf value for search-net, by the trainer at start and by a teacher process alike."""


Payload = tuple[dict, dict[str, np.ndarray]]
"""A network as plain data, for a teacher in another process: its config dict and its weights."""


def network_payload(model: Big2Net) -> Payload:
    """``model`` as :data:`Payload` (numpy copies of its weights): what ``--algo exit`` sends its
    teacher games each batch, so that the search's prior is the network as it is now."""
    return model.config.to_dict(), {name: t.detach().cpu().numpy().copy() for name, t in model.state_dict().items()}


def payload_network(payload: Payload) -> Big2Net:
    """The :class:`~agents.network.Big2Net` of a :data:`Payload`, in eval mode."""
    config, weights = payload
    model = Big2Net(NetworkConfig.from_dict(config))
    model.load_state_dict({name: torch.from_numpy(array) for name, array in weights.items()})
    return model.eval()


def _bad_observation(observation: str) -> ValueError:
    """The error for an ``observation`` that is not a key of :data:`OBSERVATIONS`."""
    return ValueError(f"observation must be one of {', '.join(OBSERVATIONS)}; got {observation!r}")


def teacher_observation(decision: Decision, observation: str) -> np.ndarray:
    """What a network of ``observation`` (a key of :data:`OBSERVATIONS`) reads at ``decision``.

    >>> from big2_env import Game, Rules
    >>> decision = Decision(Game(Rules(), seed=0))
    >>> [teacher_observation(decision, view).shape for view in OBSERVATIONS]
    [(277,), (315,), (412,)]
    """
    if observation == "paper":
        return decision.observation
    if observation == "extended":
        return decision.extended_observation
    if observation == "charlesworth":
        return observation_input(PolicyObservation(decision, extended=True))
    raise _bad_observation(observation)


def _give_network(policy: Any, teacher: str, rules: Rules, prior: Payload, leaf_value: float, value_scale: float) -> None:
    """Make the network of ``prior`` the search teacher's: a search's prior (and, with ``leaf_value``, its leaf value),
    or the blueprint of a search over a network."""
    from big2_env.players.search import SearchPolicy

    from ..net_search import NetworkSearch
    from ..policy import NetworkPolicy

    if not isinstance(policy, (SearchPolicy, NetworkSearch)):
        raise ValueError(f"a network prior needs a search teacher (search or search-net); got {teacher!r}")
    if multiprocessing.parent_process() is not None:
        torch.set_num_threads(1)  # a teacher process: one forward pass at a time, one core each
    network = NetworkPolicy(payload_network(prior), deterministic=True, rules=rules)
    if isinstance(policy, NetworkSearch):
        if leaf_value > 0:
            raise ValueError(NO_LEAF_VALUE)
        policy.use_network(network)
        return
    policy.prior = network
    if leaf_value > 0:
        policy.set_value(policy.prior, leaf_value, value_scale)


def teacher_rollout(
    rules: Rules | str | dict, seeds: Sequence[int], teacher: str, observation: str = "paper",
    prior: Payload | None = None, leaf_value: float = 0.0, value_scale: float = 13.0,
) -> Rollout:
    """Play one game per seed with ``teacher`` (an agent spec) in all four seats; record every
    decision with more than one legal action (forced moves are played, not recorded).

    The :class:`~agents.collect.rollout.Rollout`'s ``choice`` is the teacher's pick (its position in the
    ascending legal list), ``obs`` what a network of ``observation`` reads (:func:`teacher_observation`:
    277, 315 or 412 numbers); ``logp`` and ``value`` are 0 (no network played). For a search teacher
    (``search`` or ``search-net``), ``candidate_values`` holds its mean final score of every candidate
    (``last_stats["means"]``; NaN where it searched none), the soft targets' source; ``None`` for other teachers.

    ``prior`` (expert iteration, ``--algo exit``): the search teacher ranks its candidates by
    this network's probabilities (its ``prior``; it searches the network's ``prior_top``
    favourites and pass) instead of by Smart's score; ``search-net`` takes it as its blueprint (its
    candidates, beliefs and rollouts). ``leaf_value`` > 0 (``search`` only): the same network's
    value head also judges the search's leaves, with this weight against the rollouts (the
    search's ``value`` and ``value_weight``); ``value_scale`` turns the value head's output into
    points (1 / the reward scale it learns with: 13 for distillation's default).
    """
    from big2_env.evaluation.loading import load_agent  # here: a worker process builds its own teacher
    from big2_env.players.search import SearchPolicy

    from ..net_search import NetworkSearch

    if observation not in OBSERVATIONS:  # before any game is played
        raise _bad_observation(observation)
    rules = Rules.coerce(rules)
    policy = load_agent(teacher, rules, what="--teacher")
    if prior is not None:
        _give_network(policy, teacher, rules, prior, leaf_value, value_scale)
    elif leaf_value > 0:
        raise ValueError("a leaf value comes with the network prior (expert iteration)")
    recorder = _Recorder(OBSERVATIONS[observation])
    n = len(seeds)
    scores = np.zeros((n, NUM_PLAYERS), dtype=np.int64)
    turns = np.zeros(n, dtype=np.int64)
    winners = np.zeros(n, dtype=np.int64)
    decisions = 0
    searches = isinstance(policy, (SearchPolicy, NetworkSearch))
    values: list[np.ndarray] | None = [] if searches else None  # its means, per decision
    for g, seed in enumerate(seeds):
        game = Game(rules, seed=int(seed))
        if hasattr(policy, "seed"):
            policy.seed(int(seed))
        while game.winner is None:
            decision = Decision(game)
            decisions += 1
            if len(decision.actions) == 1:
                game._apply(decision.require_entry(int(decision.actions[0]), "the only legal action"))
                continue
            [action] = policy_actions(policy, [PolicyObservation(decision)])
            entry = decision.require_entry(action, f"teacher {teacher!r}")
            choice = int(np.searchsorted(decision.actions, int(action)))
            obs = teacher_observation(decision, observation)
            recorder.add(
                obs[None], decision.features, decision.actions, np.array([len(decision.actions)]), np.array([choice]),
                np.array([int(action)]), np.array([g]), np.array([decision.player]), np.array([game.turn]),
                np.zeros(1), np.zeros(1),
            )
            if values is not None:
                stats = policy.last_stats  # type: ignore[attr-defined]
                means = {} if stats is None else stats["means"]  # search-net: None where it kept a lone candidate
                values.append(np.array([means.get(int(a), np.nan) for a in decision.actions], dtype=np.float32))
            game._apply(entry)
        scores[g], turns[g], winners[g] = game.scores(), game.turn, game.winner
    rollout = recorder.build(scores, turns, winners, decisions, 0, [])
    if values is not None:
        rollout.candidate_values = np.concatenate(values) if values else np.zeros(0, np.float32)
    return rollout


class TeacherPool:
    """Teacher games spread over ``processes`` worker processes (1: played in this process).

    :meth:`collect` cuts the seeds into ``4 x processes`` consecutive chunks, plays them in
    the workers and joins the results in seed order: the same seeds give the same
    :class:`~agents.collect.rollout.Rollout` whatever the process count. :meth:`close` stops the
    workers (also on errors: the trainer closes it in a ``finally``).
    """

    def __init__(
        self, processes: int, rules: Rules, teacher: str, observation: str = "paper", backend: str = "process",
        address: str | None = None,
        leaf_value: float = 0.0, value_scale: float = 13.0,
    ) -> None:
        self.processes, self.rules, self.teacher, self.observation = processes, rules, teacher, observation
        self.leaf_value, self.value_scale = float(leaf_value), float(value_scale)
        self._pool: ProcessPoolExecutor | None = None
        self._ray: Any = None
        self._started_ray = False
        if processes > 1 and backend == "ray":
            from ..collect.ray_workers import import_ray, start_ray

            self._ray = import_ray()
            self._started_ray = start_ray(address, processes)
            try:
                self._task = self._ray.remote(num_cpus=1, max_retries=2)(teacher_rollout)
            except BaseException:
                self.close()
                raise
        elif processes > 1:
            from big2_env.engine.core import warm_up

            warm_up()  # once here, not racing in every helper
            self._pool = worker_pool(processes)  # each worker with its share of the cores' threads

    def collect(self, seeds: Sequence[int], prior: Payload | None = None) -> Rollout:
        """The teacher games of ``seeds`` (with ``prior``: the search's prior network, as in
        :func:`teacher_rollout`)."""
        seeds = [int(s) for s in seeds]
        if self._pool is None and self._ray is None:
            return teacher_rollout(self.rules, seeds, self.teacher, self.observation, prior, self.leaf_value, self.value_scale)
        pieces = 4 * self.processes
        cuts = [len(seeds) * k // pieces for k in range(pieces + 1)]
        chunks = [seeds[lo:hi] for lo, hi in zip(cuts, cuts[1:]) if hi > lo]
        rules = self.rules.to_dict()
        if self._ray is not None:  # Ray tasks: a task whose worker dies is retried (max_retries), same result
            shared = self._ray.put(prior)  # once, not once per task
            refs = [self._task.remote(rules, chunk, self.teacher, self.observation, shared, self.leaf_value, self.value_scale)
                    for chunk in chunks]
            try:
                return concat_rollouts(self._ray.get(refs))
            except self._ray.exceptions.RayError as err:
                raise RuntimeError(f"a Ray teacher-game task failed:\n{err}") from None
        assert self._pool is not None
        futures: list[Future] = [
            self._pool.submit(teacher_rollout, rules, chunk, self.teacher, self.observation, prior, self.leaf_value,
                              self.value_scale)
            for chunk in chunks
        ]
        return concat_rollouts([f.result() for f in futures])

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._started_ray:
            self._ray.shutdown()
            self._started_ray = False
        self._ray = None


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


def check_teacher(args: TrainArgs, rules: Rules) -> None:
    """Refuse (``ValueError``) a ``--teacher`` that cannot teach this run, before a batch is played:
    one that does not load, a ``search-net`` asked for ``--leaf-value``, and a teacher that is no
    search for ``--algo exit`` or ``--soft-targets``."""
    from big2_env.evaluation.loading import load_agent
    from big2_env.players.search import SearchPolicy

    from ..net_search import NetworkSearch

    teacher = load_agent(args.teacher, rules, what="--teacher")
    if isinstance(teacher, NetworkSearch) and args.leaf_value > 0:
        raise ValueError(NO_LEAF_VALUE)
    if not isinstance(teacher, (SearchPolicy, NetworkSearch)):
        if args.algo == "exit":
            raise ValueError(
                f"--algo exit needs a search --teacher (search, search:N or search:0.1s, or search-net@N) to give "
                f"the network to; got {args.teacher!r}"
            )
        if args.soft_targets > 0:
            raise ValueError(
                f"--soft-targets learns a search teacher's candidate means; --teacher {args.teacher!r} is not a search"
            )


class TeacherCollector(Collector):
    """The trainer's collector for distill and exit: the teacher's games of the batch's seeds, on the
    :class:`TeacherPool` that ``start`` starts at the first batch; for expert iteration (``expert``)
    the search's prior is the network being trained, as it is at this batch."""

    def __init__(self, start: Callable[[], TeacherPool], expert: bool) -> None:
        self.start, self.expert = start, expert
        self.pool: TeacherPool | None = None

    def collect(self, batch: Batch) -> Rollout:
        if self.pool is None:
            self.pool = self.start()
        prior = network_payload(batch.actor) if self.expert else None
        return self.pool.collect(batch.seeds.tolist(), prior)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None


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
