"""The ``big2`` command-line tool.

Subcommands:
    big2 demo [--seed S] [--rules PRESET] [--view all|none|0..3]   play and render one game between random players
    big2 rules                                                     print the rule variants and presets
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from .cards import format_play
from .game import Game
from .policies import RandomPolicy
from .render import render_table
from .rules import Rules


def _view(text: str) -> str | int:
    if text in ("all", "none", "current"):
        return text
    if text.isdigit() and 0 <= int(text) <= 3:
        return int(text)
    raise argparse.ArgumentTypeError(f"--view must be all, none, current or a seat 0..3; got {text!r}")


def cmd_demo(args: argparse.Namespace) -> int:
    """Play one seeded game between four random players, printing the table after every play."""
    from .encoding import Decision

    game = Game(Rules.preset(args.rules), seed=args.seed)
    players = [RandomPolicy(seed=args.seed * 4 + seat) for seat in range(4)]
    print(render_table(game, args.view))
    while not game.is_over:
        decision = Decision(game)
        obs = {"observation": decision.observation, "action_mask": decision.action_mask(), "candidate_actions": decision.actions}
        action = players[decision.player].act(obs)
        play = decision.play_for_action(action)
        assert play is not None
        print(f"\nplayer_{decision.player} plays {format_play(play)}")
        game.play(play)
        if play or game.trick is None:
            print(render_table(game, args.view))
    scores = game.scores()
    print("\nFinal scores: " + ", ".join(f"player_{i} {s:+d}" for i, s in enumerate(scores)))
    return 0


def cmd_rules(args: argparse.Namespace) -> int:
    from dataclasses import fields

    print("Rules keywords (default first):")
    doc_choices = {
        "straights": "no_two | wrap | to_two",
        "flush_order": "high_card | suit_first",
        "four_card_plays": "False | True",
        "five_card_quads": "True | False",
        "scoring": "paper | hk",
        "opening": "3D_must_play | 3D_leads_free | 3D_single",
    }
    for f in fields(Rules):
        print(f"  {f.name:<16} {doc_choices[f.name]}")
    for name in Rules.PRESETS:
        print(f"preset {name!r}: {Rules.preset(name).to_dict()}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="big2", description="Big 2 environment, agents and tools.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    demo = sub.add_parser("demo", help="play and render one seeded game between random players")
    demo.add_argument("--seed", type=int, default=0, help="deal and players' seed (default 0)")
    demo.add_argument("--rules", default="paper", choices=Rules.PRESETS, help="rules preset (default paper)")
    demo.add_argument("--view", type=_view, default="all", help="whose hands to show: all, none, current or a seat 0..3")
    demo.set_defaults(func=cmd_demo)

    rules = sub.add_parser("rules", help="list the rule variants and presets")
    rules.set_defaults(func=cmd_rules)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
