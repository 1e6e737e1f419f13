"""``big2 arena``: the command line of :func:`~big2_env.evaluation.arena.run.run_arena`, :func:`add_to_arena` and
:func:`refit_arena`.

Example::

    big2 arena random greedy smart search --deals 40 --seed 1 --out runs/arena
    big2 arena random greedy smart search --deals 40 --seed 1 --out runs/arena --resume   # after an interruption
    big2 arena --pool runs/arena --add fast --out runs/arena+fast     # rate a new agent against a stored pool
    big2 arena --refit runs/arena                                     # the ratings again from the games, none played
    big2 arena --pool benchmarks/leaderboard/charlesworth --add fast --out runs/mine \\
        --load charlesworth:PATH=charlesworth:/my/modelParameters136500   # a pool agent that loads from elsewhere

It says how long the games will take, prints the ratings table (best first by the points rating
unless ``--rating`` says otherwise) and the head-to-head matrix, and writes ``ratings.json``,
``head_to_head.json``, ``games.csv`` (``--compress``: ``games.csv.gz``) and ``ratings.png`` into
``--out``.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ...engine.rules import Rules
from ...errors import LoadError
from ...plugins import CommandError, positive_int, seed_int
from ..loading import agent_choices
from .ratings import RATINGS
from .run import GAMES, GAMES_GZ, ArenaError, add_to_arena, refit_arena, run_arena
from .schedule import ADD_TABLE_MODES, MAX_ALL_TABLES, TABLE_MODES

__all__ = ["add_arena_command", "cmd_arena"]


def _refuse_with(args: argparse.Namespace, option: str, others: dict[str, Any]) -> None:
    given = [name for name, value in others.items() if value not in (None, False, [])]
    if given:
        raise CommandError(f"{option} takes {' and '.join(given)} from the stored arena; leave "
                           f"{'it' if len(given) == 1 else 'them'} out")


def _loads(pairs: list[str]) -> dict[str, str]:
    """``--load NAME=SPEC`` pairs as a mapping (split at the first ``=``: ``charlesworth:PATH=charlesworth:/f``)."""
    out = {}
    for pair in pairs:
        name, equals, spec = pair.partition("=")
        if not equals or not name or not spec:
            raise CommandError(f"--load takes NAME=SPEC (a pool agent's name, where to load it from); got {pair!r}")
        out[name] = spec
    return out


def cmd_arena(args: argparse.Namespace) -> int:
    """Run the arena the parsed ``args`` ask for and print its table; refusals become :class:`CommandError`."""
    try:
        if args.refit is not None:
            _refuse_with(args, "--refit", {"agents": args.agents, "--deals": args.deals, "--seed": args.seed,
                                           "--rules": args.rules, "--tables": args.tables, "--pool": args.pool,
                                           "--add": args.add, "--out": args.out, "--resume": args.resume})
            result = refit_arena(args.refit, rating=args.rating)
        elif args.pool is not None or args.add:
            if args.pool is None or not args.add or args.out is None:
                raise CommandError("rating new agents against a stored arena takes --pool DIR --add AGENT [AGENT ...] "
                                   "--out NEW")
            _refuse_with(args, "--pool", {"agents": args.agents, "--deals": args.deals, "--seed": args.seed,
                                          "--rules": args.rules, "--tables": args.tables})
            result = add_to_arena(
                args.pool, args.add, out=args.out, add_tables=args.add_tables, jobs=args.jobs, resume=args.resume,
                progress=not args.no_progress, trust=args.trust_model, rating=args.rating, compress=args.compress,
                load=_loads(args.load),
            )
        elif args.load:
            raise CommandError("--load goes with --pool DIR --add AGENT")
        else:
            if args.out is None:
                raise CommandError("the following arguments are required: --out (or --refit DIR, or --pool DIR --add "
                                   "AGENT --out NEW)")
            result = run_arena(
                args.agents, deals=100 if args.deals is None else args.deals, out=args.out,
                seed=0 if args.seed is None else args.seed, rules=args.rules or "paper", tables=args.tables,
                jobs=args.jobs, resume=args.resume, progress=not args.no_progress, trust=args.trust_model,
                rating=args.rating, compress=args.compress,
            )
    except (ArenaError, LoadError) as err:  # LoadError: an unknown agent, or one that refuses the rules
        raise CommandError(str(err)) from None
    print(result.to_table())
    games = GAMES_GZ if os.path.isfile(os.path.join(result.out, GAMES_GZ)) else GAMES
    written = ["ratings.json", "head_to_head.json"] + ([games] if args.refit is None else []) + (
        ["ratings.png"] if result.picture else [])
    print(f"\nwritten to {result.out}: {', '.join(written)}")
    sys.stdout.flush()
    return 0


def add_arena_command(sub: Any) -> None:
    """Add ``big2 arena`` to the ``big2`` sub-parsers ``sub``."""
    arena = sub.add_parser(
        "arena", help="rate agents at four-seat tables of mixed agents on duplicate deals (points a game)",
        description="Every table seats four agents of the pool and plays each deal in the four seat rotations, so "
        "every agent holds every hand. The ratings are fitted to all the games at once: points (a point a game "
        "against the pool's average, least squares) and placing (Plackett-Luce on the finishing orders), with 95%% "
        "intervals over deals. --pool DIR --add AGENT rates new agents against a stored arena, playing only the "
        "tables that seat them.",
    )
    arena.add_argument("agents", nargs="*", metavar="AGENT", help=f"two or more agents: {agent_choices()}")
    arena.add_argument("--deals", type=positive_int, default=None,
                       help="deals each table plays (with --tables sampled: deals in all, one table each); default 100")
    arena.add_argument("--seed", type=seed_int, default=None, help="seed of deals, seat orders and agents (default 0)")
    arena.add_argument("--out", default=None, metavar="DIR",
                       help="folder for ratings.json, head_to_head.json, games.csv and ratings.png (new or empty; "
                       "an earlier arena's with --resume)")
    arena.add_argument("--rules", default=None, choices=Rules.PRESETS, help="rules preset (default paper)")
    arena.add_argument("--tables", default=None, choices=TABLE_MODES,
                       help=f"all: every table plays every deal; sampled: each deal at one table, in turn "
                       f"(default: all up to {MAX_ALL_TABLES} tables, i.e. seven agents, else sampled)")
    arena.add_argument("--rating", default="points", choices=RATINGS,
                       help="the rating that orders the results (default points; openskill adds OpenSkill's online "
                       "rating)")
    arena.add_argument("--pool", default=None, metavar="DIR",
                       help="a finished arena's folder to add agents to (with --add and --out; it is only read)")
    arena.add_argument("--add", nargs="+", default=[], metavar="AGENT",
                       help="new agents to rate against --pool: only the tables that seat one are played, on the "
                       "pool's deals and seed, and everything is refitted")
    arena.add_argument("--add-tables", default="matched", choices=ADD_TABLE_MODES,
                       help="matched (default): each new agent gets about as many seats as a pool agent held; all: "
                       "every table with a new agent on every deal")
    arena.add_argument("--load", nargs="+", default=[], metavar="NAME=SPEC",
                       help="with --pool: load the pool's agent NAME from SPEC (a stored board's charlesworth:PATH, "
                       "say, as charlesworth:PATH=charlesworth:/your/modelParameters136500)")
    arena.add_argument("--refit", default=None, metavar="DIR",
                       help="rewrite a finished arena's ratings from its games (none played)")
    arena.add_argument("--compress", action="store_true", help="keep the games as games.csv.gz")
    arena.add_argument("--jobs", type=positive_int, default=1,
                       help="worker processes (default 1); the results are the same whatever --jobs")
    arena.add_argument("--resume", action="store_true", help="continue the run in --out from its games.csv")
    arena.add_argument("--no-progress", action="store_true", help="no time estimate, no progress bar")
    arena.add_argument("--trust-model", action="store_true",
                       help="let a .zip model be unpickled by Stable-Baselines3's own loader (only for files you wrote)")
    arena.set_defaults(func=cmd_arena)
