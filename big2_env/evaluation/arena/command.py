"""``big2 arena``: the command line of :func:`~big2_env.evaluation.arena.run.run_arena`.

Example::

    big2 arena random greedy smart search --deals 40 --seed 1 --out runs/arena
    big2 arena random greedy smart search --deals 40 --seed 1 --out runs/arena --resume   # after an interruption

It prints the ratings table and the head-to-head matrix, and writes ``ratings.json``,
``head_to_head.json``, ``games.csv`` and ``ratings.png`` into ``--out``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ...engine.rules import Rules
from ...errors import LoadError
from ...plugins import CommandError, positive_int, seed_int
from ..loading import agent_choices
from .run import ArenaError, run_arena
from .schedule import MAX_ALL_TABLES, TABLE_MODES

__all__ = ["add_arena_command", "cmd_arena"]




def cmd_arena(args: argparse.Namespace) -> int:
    """Run the arena the parsed ``args`` ask for and print its table; refusals become :class:`CommandError`."""
    try:
        result = run_arena(
            args.agents, deals=args.deals, out=args.out, seed=args.seed, rules=args.rules, tables=args.tables,
            jobs=args.jobs, resume=args.resume, progress=not args.no_progress, trust=args.trust_model,
        )
    except (ArenaError, LoadError) as err:  # LoadError: an unknown agent, or one that refuses the rules
        raise CommandError(str(err)) from None
    print(result.to_table())
    written = ["ratings.json", "head_to_head.json", "games.csv"] + (["ratings.png"] if result.picture else [])
    print(f"\nwritten to {result.out}: {', '.join(written)}")
    sys.stdout.flush()
    return 0


def add_arena_command(sub: Any) -> None:
    """Add ``big2 arena`` to the ``big2`` sub-parsers ``sub``."""
    arena = sub.add_parser(
        "arena", help="rate agents at four-seat tables of mixed agents on duplicate deals (OpenSkill ratings)",
        description="Every table seats four agents of the pool and plays each deal in the four seat rotations, so "
        "every agent holds every hand; the finishing orders give OpenSkill (Plackett-Luce) ratings.",
    )
    arena.add_argument("agents", nargs="+", metavar="AGENT", help=f"two or more agents: {agent_choices()}")
    arena.add_argument("--deals", type=positive_int, default=100,
                       help="deals each table plays (with --tables sampled: deals in all, one table each); default 100")
    arena.add_argument("--seed", type=seed_int, default=0, help="seed of deals, seat orders and agents (default 0)")
    arena.add_argument("--out", required=True, metavar="DIR",
                       help="folder for ratings.json, head_to_head.json, games.csv and ratings.png (new or empty; "
                       "an earlier arena's with --resume)")
    arena.add_argument("--rules", default="paper", choices=Rules.PRESETS, help="rules preset (default paper)")
    arena.add_argument("--tables", default=None, choices=TABLE_MODES,
                       help=f"all: every table plays every deal; sampled: each deal at one table, in turn "
                       f"(default: all up to {MAX_ALL_TABLES} tables, i.e. seven agents, else sampled)")
    arena.add_argument("--jobs", type=positive_int, default=1,
                       help="worker processes (default 1); the results are the same whatever --jobs")
    arena.add_argument("--resume", action="store_true", help="continue the run in --out from its games.csv")
    arena.add_argument("--no-progress", action="store_true", help="no progress bar")
    arena.add_argument("--trust-model", action="store_true",
                       help="let a .zip model be unpickled by Stable-Baselines3's own loader (only for files you wrote)")
    arena.set_defaults(func=cmd_arena)
