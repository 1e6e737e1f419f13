"""How long an arena will take, said before it starts: each agent's speed measured on a handful of decisions.

:func:`decision_seconds` times an agent, after one decision to warm it up, on batches of 1, 2, 4,
8 then :data:`SAMPLE_GAMES` decisions from games stepped together (batched, as the arena batches
them) until about :data:`BUDGET_S` seconds have passed, and takes the speed of the largest batch:
a slow agent is timed on a handful of decisions, a network on a batch as the arena gives it.
The time numba spends compiling (or loading its cache) is left out: on a fresh install the
searchers compile at their first real search, which the warm-up decision may not reach (a forced
opening).
:func:`estimate_seconds` prices each game to play at :data:`~big2_env.evaluation.versus.EXPECTED_TURNS`
moves, a quarter of them in each seat, and divides by the worker processes that will share the
chunks. It is a forecast: the progress bar's time left takes over once the games start.

Example:
    >>> from big2_env.engine.rules import Rules
    >>> from big2_env.evaluation.arena.schedule import Schedule
    >>> from big2_env.evaluation.loading import load_agent
    >>> speed = decision_seconds(load_agent("random"), Rules())
    >>> 0 < speed < 0.01
    True
    >>> schedule = Schedule.build(n_agents=5, deals=10, seed=0)   # 5 tables x 10 deals x 4 rotations
    >>> round(estimate_seconds(schedule.games(), [0.001] * 5, jobs=1), 3)    # 200 games x 60 moves x 1 ms
    12.0
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ...engine.game import Game
from ...engine.rules import Rules
from ...observations.decision import Decision, PolicyObservation
from ...players.base import policy_actions
from ..versus import EXPECTED_TURNS
from .schedule import SEATS, ScheduledGame

__all__ = ["BUDGET_S", "SAMPLE_GAMES", "compiling", "decision_seconds", "describe_estimate", "estimate_seconds"]

SAMPLE_GAMES = 16
"""Games stepped together while an agent is timed (about the batch an agent gets in an arena chunk)."""
BUDGET_S = 0.5
"""About how long each agent is timed for."""


@contextmanager
def compiling() -> Iterator[list[float]]:
    """A list that receives, on leaving the block, the seconds numba spent compiling (or loading compiled code from
    its cache) inside it: nested compiles counted once.

    >>> import numba
    >>> with compiling() as seconds:
    ...     numba.njit(lambda x: x + 1)(1)
    2
    >>> len(seconds), seconds[0] > 0
    (1, True)
    """
    from numba.core import event

    seconds: list[float] = []
    with event.install_timer("numba:compile", seconds.append):
        yield seconds


def decision_seconds(policy: Any, rules: Rules, seed: int = 0, budget_s: float = BUDGET_S) -> float:
    """Seconds ``policy`` takes a decision (the engine's share included), timed on a handful of decisions."""
    games = [Game(rules, seed=seed + i) for i in range(SAMPLE_GAMES)]
    dealt = SAMPLE_GAMES

    def step(count: int) -> float:
        nonlocal dealt
        start = time.perf_counter()
        with compiling() as compile_s:
            decisions = [Decision(game) for game in games[:count]]
            actions = policy_actions(policy, [PolicyObservation(d) for d in decisions])
            for game, decision, action in zip(games, decisions, actions):
                game._apply(decision.require_entry(action, "the agent being timed"))
        elapsed = max(0.0, time.perf_counter() - start - sum(compile_s))
        for i in range(count):
            if games[i].winner is not None:
                games[i] = Game(rules, seed=seed + dealt)
                dealt += 1
        return elapsed

    step(1)  # a warm-up: a network's first call loads and compiles
    size = 1
    timed = [(size, step(size))]
    while sum(s for _, s in timed) < budget_s and sum(count for count, _ in timed) < 4 * SAMPLE_GAMES:
        size = min(2 * size, SAMPLE_GAMES)  # batches of 1, 2, 4 ... 16: a slow agent is timed on a handful
        timed.append((size, step(size)))
    largest = [(count, seconds) for count, seconds in timed if count == size]
    return sum(seconds for _, seconds in largest) / sum(count for count, _ in largest)


def estimate_seconds(games: Sequence[ScheduledGame], speeds: Sequence[float], jobs: int = 1) -> float:
    """Seconds to play ``games`` with agent ``i`` taking ``speeds[i]`` seconds a decision, on ``jobs`` processes
    (at most one a chunk)."""
    moves = EXPECTED_TURNS / SEATS
    total = sum(moves * speeds[agent] for game in games for agent in game.seats)
    chunks = len({game.chunk for game in games})
    return total / max(1, min(jobs, chunks))


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, math.ceil(seconds))} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 90 else f"{minutes // 60} h {minutes % 60:02d} min"


def describe_estimate(
    games: Sequence[ScheduledGame], names: Sequence[str], speeds: Sequence[float], jobs: int, deals: int
) -> str:
    """The sentence printed before the games start: how many, how long, at what speeds.

    >>> from big2_env.evaluation.arena.schedule import Schedule
    >>> games = Schedule.build(n_agents=5, deals=10, seed=0).games()
    >>> text = describe_estimate(games, list("abcde"), [0.001, 0.0001, 0.03, 0.001, 0.001], jobs=2, deals=10)
    >>> for part in text.split(" at the "):
    ...     print(part)
    200 games to play (5 tables x 10 deals x 4 seat rotations): about 40 s with 2 processes
    agents' measured speed (ms a decision: a 1.00, b 0.10, c 30.00, d 1.00, e 1.00)
    """
    matches = len(games) // SEATS
    tables = len({game.table for game in games})
    shape = (f"{tables} table{'s' * (tables != 1)} x {deals} deal{'s' * (deals != 1)}" if matches == tables * deals
             else f"{matches} matches of a deal at a table")
    used = sorted({agent for game in games for agent in game.seats})
    processes = max(1, min(jobs, len({game.chunk for game in games})))
    speeds_text = ", ".join(f"{names[a]} {1000 * speeds[a]:.2f}" for a in used)
    return (f"{len(games)} games to play ({shape} x 4 seat rotations): about "
            f"{_duration(estimate_seconds(games, speeds, jobs))} with {processes} process{'es' * (processes != 1)} "
            f"at the agents' measured speed (ms a decision: {speeds_text})")
