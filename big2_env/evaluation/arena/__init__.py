"""The arena: every agent of a pool rated at four-seat tables of mixed agents, on duplicate deals (``big2 arena``).

Each table seats four agents of the pool and plays each deal in the four seat rotations, so every
agent holds every hand; every game's finishing order updates OpenSkill (Plackett-Luce) ratings, and
beside them come each agent's win rate, mean score and a head-to-head matrix with intervals.

Modules, one job each: :mod:`~big2_env.evaluation.arena.schedule` (tables, rotations, chunks, seeds),
:mod:`~big2_env.evaluation.arena.play` (a chunk's games stepped together, decisions batched per agent),
:mod:`~big2_env.evaluation.arena.records` (a game's record and ``games.csv``),
:mod:`~big2_env.evaluation.arena.ratings` (ratings, win rates, mean scores, head to head),
:mod:`~big2_env.evaluation.arena.report` (the printed table and the JSON files),
:mod:`~big2_env.evaluation.arena.plot` (``ratings.png``), :mod:`~big2_env.evaluation.arena.run`
(:func:`run_arena`: input checks, resume, worker processes, the folder) and
:mod:`~big2_env.evaluation.arena.command` (``big2 arena``).

Example:
    >>> import tempfile
    >>> from big2_env.evaluation.arena import run_arena
    >>> result = run_arena(["random", "greedy", "smart"], deals=2, seed=1, out=tempfile.mkdtemp(), picture=False)
    >>> [row.agent for row in result.ratings], len(result.records)   # 3 tables x 2 deals x 4 rotations
    (['smart', 'greedy', 'random'], 24)
"""

from .ratings import AgentRating, HeadToHead
from .records import GameRecord
from .run import ArenaError, ArenaResult, run_arena
from .schedule import Schedule

__all__ = ["AgentRating", "ArenaError", "ArenaResult", "GameRecord", "HeadToHead", "Schedule", "run_arena"]
