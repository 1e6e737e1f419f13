"""Play one chunk of arena games: all its games stepped together, each agent's decisions batched.

Each round every unfinished game of the chunk makes one move; the decisions of all games where an
agent is on move (in any of its seats) go to that agent in one ``act_batch`` call, so a network
runs one forward pass per round. Before the chunk each agent is reseeded
(:func:`~big2_env.evaluation.arena.schedule.chunk_seed`), so a chunk gives the same games in any
process and after any other chunk.

Worker processes (``jobs > 1``) load each agent once, from its spec, and keep it for their next
chunks (:func:`play_chunk_in_worker`).

Example:
    >>> from big2_env.engine.rules import Rules
    >>> from big2_env.evaluation.arena.schedule import Schedule
    >>> from big2_env.evaluation.loading import load_agent
    >>> schedule = Schedule.build(n_agents=2, deals=1, seed=0)
    >>> records = play_chunk(["random", "greedy"], [load_agent("random"), load_agent("greedy")], Rules(),
    ...                      schedule.chunks()[0], schedule.deal_seeds, seed=0, chunk=0)
    >>> len(records), all(sum(r.scores) == 0 for r in records)
    (12, True)
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from ...engine.game import Game
from ...engine.rules import Rules
from ..loading import load_agent
from ..versus import play_round, report_progress
from .records import GameRecord, finishing_order
from .schedule import ScheduledGame, chunk_seed

__all__ = ["play_chunk", "play_chunk_in_worker"]


def play_chunk(
    names: Sequence[str],
    policies: Sequence[Any],
    rules: Rules,
    games: Sequence[ScheduledGame],
    deal_seeds: Sequence[int],
    seed: int,
    chunk: int,
    report: Callable[[int], None] | None = None,
) -> list[GameRecord]:
    """Play ``games`` (one chunk; ``policies[i]`` is agent ``names[i]``), reseeding each agent first.

    ``report(n)`` is called as the games progress (``n`` games' worth; ``len(games)`` in all by the end).
    Returns the records in game-number order.
    """
    for agent, policy in enumerate(policies):
        if hasattr(policy, "seed"):
            policy.seed(chunk_seed(seed, chunk, agent))
    dealt: dict[int, Game] = {}
    active: list[tuple[ScheduledGame, Game]] = []
    for scheduled in games:
        if scheduled.deal not in dealt:
            dealt[scheduled.deal] = Game(rules, seed=deal_seeds[scheduled.deal])
        active.append((scheduled, dealt[scheduled.deal].copy()))  # duplicate play: the same cards in every rotation
    records: dict[int, GameRecord] = {}
    reported = 0  # whole games reported so far
    while active:
        finished = play_round(active, lambda scheduled, player: scheduled.seats[player], policies,
                              lambda agent, scheduled: f"agent {names[agent]!r} in game {scheduled.game}")
        for scheduled, game in finished:
            records[scheduled.game] = _record(scheduled, game, names, deal_seeds)
        if finished:
            active = [(s, g) for s, g in active if g.winner is None]
        reported = report_progress(report, len(records), active, reported)
    return [records[g.game] for g in games]


def _record(scheduled: ScheduledGame, game: Game, names: Sequence[str], deal_seeds: Sequence[int]) -> GameRecord:
    winner = game.winner
    assert winner is not None
    return GameRecord(
        game=scheduled.game, deal=scheduled.deal, deal_seed=int(deal_seeds[scheduled.deal]), table=scheduled.table,
        rotation=scheduled.rotation, agents=tuple(names[a] for a in scheduled.seats),
        order=finishing_order(winner, [game.cards_left(s) for s in range(4)]), scores=tuple(game.scores()),
        turns=game.turn,
    )


_LOADED: dict[tuple[str, str, bool], Any] = {}
"""A worker process's agents, loaded once: (spec, rules as JSON, trust) -> policy."""


def play_chunk_in_worker(task: tuple[Any, ...]) -> tuple[int, list[GameRecord], float]:
    """One chunk in a worker process: ``(names, specs, rules, trust, games, deal_seeds, seed, chunk)`` ->
    ``(chunk, records, seconds)`` (the seconds its games took, the agents' loading left out); agent ``names[i]``
    is loaded from ``specs[i]`` (the same but for a stored pool's agent that loads from elsewhere here)."""
    names, specs, rules, trust, games, deal_seeds, seed, chunk = task
    key = json.dumps(rules.to_dict(), sort_keys=True)
    policies = []
    for spec in specs:
        if (spec, key, trust) not in _LOADED:
            _LOADED[(spec, key, trust)] = load_agent(spec, rules, trust=trust)
        policies.append(_LOADED[(spec, key, trust)])
    start = time.perf_counter()
    records = play_chunk(names, policies, rules, games, deal_seeds, seed, chunk)
    return chunk, records, time.perf_counter() - start
