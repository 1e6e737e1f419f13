"""The arena: every agent of a pool rated at four-seat tables of mixed agents, on duplicate deals (``big2 arena``).

Each table seats four agents of the pool and plays each deal in the four seat rotations, so every
agent holds every hand. The ratings are fitted to all the games at once: points (a point a game
against the pool's average, by least squares on the scores; the headline) and the finishing-order
Plackett-Luce rating, each with a bootstrap interval over deals; beside them come each agent's win
rate, mean score and a head-to-head matrix with intervals. New agents can be rated against a
stored arena, playing only the tables that seat them (:func:`add_to_arena`).

Modules, one job each: :mod:`~big2_env.evaluation.arena.schedule` (tables, rotations, chunks, seeds,
additions), :mod:`~big2_env.evaluation.arena.play` (a chunk's games stepped together, decisions
batched per agent), :mod:`~big2_env.evaluation.arena.records` (a game's record and ``games.csv``),
:mod:`~big2_env.evaluation.arena.timing` (what each chunk cost, ``timing.csv``),
:mod:`~big2_env.evaluation.arena.fits` (the points and Plackett-Luce fits and their bootstrap),
:mod:`~big2_env.evaluation.arena.ratings` (the ratings, win rates, mean scores, head to head),
:mod:`~big2_env.evaluation.arena.report` (the printed table and the JSON files),
:mod:`~big2_env.evaluation.arena.plot` (``ratings.png``), :mod:`~big2_env.evaluation.arena.estimate`
(the time a run will take, said before it starts), :mod:`~big2_env.evaluation.arena.run`
(:func:`run_arena`, :func:`add_to_arena`, :func:`refit_arena`: input checks, resume, worker
processes, the folder) and :mod:`~big2_env.evaluation.arena.command` (``big2 arena``).

Example:
    >>> import tempfile
    >>> from big2_env.evaluation.arena import run_arena
    >>> result = run_arena(["random", "greedy", "smart"], deals=2, seed=1, out=tempfile.mkdtemp(), picture=False)
    >>> [row.agent for row in result.ratings], len(result.records)   # 3 tables x 2 deals x 4 rotations
    (['smart', 'greedy', 'random'], 24)
"""

from .ratings import AgentRating, HeadToHead
from .records import GameRecord
from .run import ArenaError, ArenaResult, add_to_arena, refit_arena, run_arena
from .schedule import Schedule

__all__ = ["AgentRating", "ArenaError", "ArenaResult", "GameRecord", "HeadToHead", "Schedule", "add_to_arena",
           "refit_arena", "run_arena"]
