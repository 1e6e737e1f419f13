"""A teacher's games, the batches ``big2 train --algo distill`` and ``--algo exit`` learn from
(:mod:`agents.learners.distill`).

1. **Teacher games** (:func:`teacher_rollout`): games with the teacher (``--teacher``, any agent
   spec; default ``search:64``) in all four seats. Every decision with more than one legal action is
   recorded: the observation the network reads (277 numbers, the 315 of the extended observation, or
   Charlesworth's 412), the candidates' features, the teacher's choice and, once the game ends, that
   seat's final score. Each game is played by a teacher seeded with the game's seed, so the data do
   not depend on how the games are spread over processes.
2. **Spread over processes** (:class:`TeacherPool`): the games of a batch are cut into consecutive
   chunks played by ``workers`` processes (started with forkserver/spawn, never by forking a running
   torch), or by Ray tasks (``--backend ray``), gathered in order.
3. **The trainer's collector** (:class:`TeacherCollector`): a batch's seeds played on the pool; for
   expert iteration the search's prior is the network being trained, sent each batch as plain arrays
   (:func:`network_payload`). :func:`check_teacher` refuses a teacher that cannot teach the run.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Callable, Sequence

import numpy as np
import torch

from big2_env.engine.game import NUM_PLAYERS, Game
from big2_env.engine.rules import Rules
from big2_env.evaluation.workers import worker_pool
from big2_env.observations.decision import Decision, PolicyObservation
from big2_env.observations.extended import EXTENDED_SIZE
from big2_env.players.base import policy_actions
from big2_env.players.charlesworth import INPUT_SIZE as CHARLESWORTH_SIZE, observation_input

from ..config import NetworkConfig, TrainArgs
from ..network import OBS_SIZE, Big2Net
from .base import Batch, Collector
from .rollout import Rollout, _Recorder, concat_rollouts

__all__ = ["NO_LEAF_VALUE", "OBSERVATIONS", "Payload", "TeacherCollector", "TeacherPool", "check_teacher", "network_payload",
           "payload_network", "teacher_observation", "teacher_rollout"]

OBSERVATIONS = {"paper": OBS_SIZE, "extended": EXTENDED_SIZE, "charlesworth": CHARLESWORTH_SIZE}
"""The views a teacher's games are recorded in (a network's ``NetworkConfig.observation``), and their widths."""
NO_LEAF_VALUE = ("--leaf-value must be 0: the searches judge no leaves (search-net plays every rollout to the end with "
                 "the network, search with its rollout policy)")
"""The refusal of a leaf value, by the trainer at start and by a teacher process alike."""


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
    """Make the network of ``prior`` the search teacher's: a search's prior, or the blueprint of a search over a
    network (``leaf_value`` > 0 is refused)."""
    from big2_env.players.search import SearchPolicy

    from ..net_search import NetworkSearch
    from ..policy import NetworkPolicy

    if not isinstance(policy, (SearchPolicy, NetworkSearch)):
        raise ValueError(f"a network prior needs a search teacher (search or search-net); got {teacher!r}")
    if multiprocessing.parent_process() is not None:
        torch.set_num_threads(1)  # a teacher process: one forward pass at a time, one core each
    network = NetworkPolicy(payload_network(prior), deterministic=True, rules=rules)
    if leaf_value > 0:
        raise ValueError(NO_LEAF_VALUE)
    if isinstance(policy, NetworkSearch):
        policy.use_network(network)
        return
    policy.prior = network


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
    candidates and rollouts). ``leaf_value`` > 0 is refused (:data:`NO_LEAF_VALUE`).
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
            from .ray_workers import import_ray, start_ray

            self._ray = import_ray()
            self._started_ray = start_ray(address, processes)
            try:
                self._task = self._ray.remote(num_cpus=1, max_retries=2)(teacher_rollout)
            except BaseException:
                self.close()
                raise
        elif processes > 1:
            from big2_env.players.kernels import warm_up

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




def check_teacher(args: TrainArgs, rules: Rules) -> None:
    """Refuse (``ValueError``) a ``--teacher`` that cannot teach this run, before a batch is played:
    one that does not load, a ``search-net`` asked for ``--leaf-value``, and a teacher that is no
    search for ``--algo exit`` or ``--soft-targets``."""
    from big2_env.evaluation.loading import load_agent
    from big2_env.players.search import SearchPolicy

    from ..net_search import NetworkSearch

    teacher = load_agent(args.teacher, rules, what="--teacher")
    if args.leaf_value > 0:
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
