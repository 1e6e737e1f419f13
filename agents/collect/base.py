"""What every collector is to the trainer: :class:`Collector`, and :class:`Batch`, what it is asked to play;
and the plainest collector, :class:`EngineCollector` (the Python engine, in this process).

The trainer draws a batch's deal seeds, seat plans and networks the same way whatever plays them
(so that the random streams move alike for every collector) and hands them to the one collector it
chose at start-up; the collector plays the games and returns their :class:`~agents.collect.rollout.Rollout`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Hashable, Mapping, Sequence

import numpy as np

from big2_env.engine.game import Game
from big2_env.engine.rules import Rules

from ..network import Big2Net
from .rollout import Rollout, SeatPlan, collect


@dataclass
class Batch:
    """One batch's games as the trainer drew them.

    Attributes:
        seeds: a deal seed per game (the vector collectors seed their env with the first).
        plans: each game's seats (the curriculum's :class:`~agents.collect.rollout.SeatPlan`).
        models: the networks the plans name (``"current"``: ``actor``).
        actor: the network being trained, on the CPU.
        rng: the action stream (sampled moves, epsilon-greedy draws).
        epsilon: the value learners' exploration rate (``None``: sample the policy).
    """

    seeds: np.ndarray
    plans: Sequence[SeatPlan]
    models: Mapping[Hashable, Big2Net]
    actor: Big2Net
    rng: np.random.Generator
    epsilon: float | None


class Collector(ABC):
    """Plays a :class:`Batch` and returns what was played; it learns nothing."""

    @abstractmethod
    def collect(self, batch: Batch) -> Rollout:
        """The batch's games, played."""

    def timing(self) -> dict[str, float]:
        """How the last batch's work was shared (rollout workers: ``wait_s``, ``worker_decisions_per_s``); else empty."""
        return {}

    def close(self) -> None:
        """Stop whatever processes the collector started (it starts them again when next asked)."""


class EngineCollector(Collector):
    """Every game on the Python engine in this process (:func:`agents.collect.rollout.collect`): any
    curriculum's seats; ``skip_forced`` plays forced moves without recording them."""

    def __init__(self, rules: Rules, skip_forced: bool) -> None:
        self.rules, self.skip_forced = rules, skip_forced

    def collect(self, batch: Batch) -> Rollout:
        games = [Game(self.rules, seed=int(s)) for s in batch.seeds]
        return collect(games, batch.plans, batch.models, batch.rng, skip_forced=self.skip_forced, epsilon=batch.epsilon)
