"""The ``big2`` command-line tool.

Subcommands:
    big2 demo [--seed S] [--rules PRESET] [--view all|none|0..3]   play and render one game between random players
    big2 play [--seat 0..3] [--opponent random|greedy|smart|pretrained|MODEL.pt] [--rules PRESET] [--seed S]
                                                                   play one seat against three computer players
    big2 eval --agent NAME|pretrained|MODEL.pt|MODEL.zip --opponent random|greedy|smart [--games N] [--duplicate] [--seed S]
                                                                   the paper's evaluation protocol, as a table
    big2 train [--algo ppo|mcq|sarsa|qlearning] [--curriculum self] [--entropy 0.05] [--batches N]
               [--games-per-batch 64] [--seed S] [--out DIR] [--config FILE] [--resume] ...
                                                                   train the card-aware agent: PPO or a value learner (needs torch)
    big2 plot DIR                                                  draw DIR's learning curves (needs matplotlib)
    big2 rules                                                     print the rule variants and presets
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Sequence

from .cards import format_play
from .game import Game
from .policies import RandomPolicy
from .render import render_table
from .rules import Rules


class CliError(Exception):
    """A user error reported as ``big2 COMMAND: error: ...`` with exit status 2."""


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


PLAY_HELP = """Type a play as card text, e.g. '3D' or '8H 8S' (ranks 3-9 T J Q K A 2, suits D C H S),
'pass' to pass, '?' to list your legal plays, 'h' for this help, 'q' to quit."""


def _legal_listing(game: Game) -> str:
    plays = [format_play(p) for p in game.legal_plays()]
    return "Legal plays: " + ", ".join(plays)


def cmd_play(args: argparse.Namespace) -> int:
    """Play one seat at the terminal against three computer opponents."""
    from .cards import parse_play
    from .encoding import action_cards
    from .game import IllegalPlayError
    from .policies import observation_dict

    rules = Rules.preset(args.rules)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    game = Game(rules, seed=seed)
    human = args.seat
    names = [f"player_{i}" for i in range(4)]
    names[human] = f"you ({names[human]})"
    opponents = _play_opponents(args.opponent, seed, rules, human)
    print(f"Big 2: you hold seat {human}; opponents: {args.opponent}; rules: {args.rules}; seed {seed}")
    print(PLAY_HELP)
    while not game.is_over:
        seat = game.current_player
        if seat != human:
            action = opponents[seat].act(observation_dict(game, candidate_view=True))
            play = action_cards(action, game.hand(seat))
            game.play(play)
            print(f"{names[seat]} plays {format_play(play)} ({game.cards_left(seat)} left)")
            continue
        print()
        print(render_table(game, human, names))
        while True:
            try:
                text = input("Your play> ").strip()
            except EOFError:
                print("\nend of input: game abandoned")
                return 1
            if not text:
                continue
            lowered = text.lower()
            if lowered in ("q", "quit", "exit"):
                print("game abandoned")
                return 1
            if lowered in ("?", "l", "legal", "list"):
                print(_legal_listing(game))
                continue
            if lowered in ("h", "help"):
                print(PLAY_HELP)
                continue
            try:
                game.play(parse_play(text))
            except IllegalPlayError as err:
                print(f"Not allowed: {err}")
                continue
            except ValueError as err:
                print(f"Could not read that: {err}")
                continue
            break
    print()
    print(render_table(game, "all", names))
    scores, winner = game.scores(), game.winner
    assert winner is not None
    verdict = "You win!" if winner == human else f"{names[winner]} wins."
    print(f"\n{verdict} Final scores: " + ", ".join(f"{names[i]} {s:+d}" for i, s in enumerate(scores)))
    return 0


def _seat(text: str) -> int:
    if text.isdigit() and 0 <= int(text) <= 3:
        return int(text)
    raise argparse.ArgumentTypeError(f"--seat must be 0, 1, 2 or 3; got {text!r}")


def _load_network(spec: str, rules: Rules, what: str):
    """A :class:`agents.policy.NetworkPolicy` from ``"pretrained"`` or a ``.pt`` file (imports torch lazily)."""
    try:
        from agents.checkpoint import CheckpointError
        from agents.policy import NetworkPolicy
        from agents.pretrained import load_pretrained
    except ImportError as err:
        raise CliError(f"{what}: {spec!r} needs torch (pip install torch==2.13.0, then pip install -e '.[agents]'): {err}") from None
    try:
        if spec == "pretrained":
            policy = load_pretrained()
        else:
            if not Path(spec).is_file():
                raise CliError(f"{what}: no such model file {spec!r}")
            policy = NetworkPolicy.from_file(spec, rules=rules, name=Path(spec).stem)
    except (FileNotFoundError, CheckpointError) as err:
        raise CliError(f"{what}: {err}") from None
    policy.rules = rules
    return policy


def load_agent(spec: str, rules: Rules, what: str = "--agent"):
    """A policy from a name (random, greedy, smart), ``pretrained`` (the shipped PPO agent), a
    ``big2 train`` checkpoint or model file (``.pt``), or a saved sb3-contrib MaskablePPO model (``.zip``)."""
    from .policies import POLICIES, make_policy

    if spec in POLICIES:
        return make_policy(spec, rules=rules)
    path = Path(spec)
    if spec == "pretrained" or path.suffix == ".pt":
        return _load_network(spec, rules, what)
    if path.suffix == ".zip":
        if not path.is_file():
            raise CliError(f"{what}: no such model file {spec!r}")
        try:
            from sb3_contrib import MaskablePPO
        except ImportError:
            raise CliError(f"{what}: loading a .zip model needs sb3-contrib (pip install -e '.[sb3]')") from None
        from .sb3_adapter import SB3Policy

        try:
            model = MaskablePPO.load(str(path), device="cpu")
        except Exception as err:  # corrupt or foreign file
            raise CliError(f"{what}: could not load {spec!r} as a MaskablePPO model: {err}") from None
        return SB3Policy(model)
    raise CliError(
        f"{what} must be one of {', '.join(sorted(POLICIES))}, pretrained, a trained model file (.pt) "
        f"or a MaskablePPO model file (.zip); got {spec!r}"
    )


def _play_opponents(spec: str, seed: int, rules: Rules, human: int) -> dict:
    """The three computer players of ``big2 play``: a heuristic per seat (seeded apart) or one network for all."""
    from .policies import POLICIES, make_policy

    if spec in POLICIES:
        return {seat: make_policy(spec, seed=seed + seat, rules=rules) for seat in range(4) if seat != human}
    policy = load_agent(spec, rules, what="--opponent")
    policy.seed(seed)
    return {seat: policy for seat in range(4) if seat != human}


def _train_flag_type(kind: type):
    def parse(text: str):
        try:
            return kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {kind.__name__}, got {text!r}") from None

    return parse


def _model_override(text: str) -> tuple[str, int | bool]:
    name, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"--model takes FIELD=VALUE, got {text!r}")
    if value.lower() in ("true", "false"):
        return name, value.lower() == "true"
    try:
        return name, int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--model {name}: expected an integer, got {value!r}") from None


def _add_train_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per :class:`agents.train.TrainArgs` field (defaults shown from the dataclass; the parsed
    namespace holds only the flags given, so ``--resume`` knows what was asked to change)."""
    from dataclasses import MISSING, fields

    from agents.config import TrainArgs

    for f in fields(TrainArgs):
        flag = "--" + f.name.replace("_", "-")
        default = f.default if f.default is not MISSING else f.default_factory()  # type: ignore[misc,operator]
        text = f"{f.metadata.get('help', '')} (default: {default!r})".replace("%", "%%")
        if f.name == "eval_opponents":
            parser.add_argument(flag, type=lambda t: [x for x in t.split(",") if x], default=argparse.SUPPRESS, help=text)
        elif f.name == "model":
            parser.add_argument(
                flag, type=_model_override, action="append", default=argparse.SUPPRESS, metavar="FIELD=VALUE", help=text
            )
        elif isinstance(default, bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=argparse.SUPPRESS, help=text)
        else:
            kind = f.metadata.get("type", type(default))  # fields defaulting to None name their type
            parser.add_argument(flag, type=_train_flag_type(kind), default=argparse.SUPPRESS, help=text)
    parser.add_argument("--config", help="JSON or TOML file of training arguments (flags given here override it)")
    parser.add_argument("--resume", action="store_true", help="continue the run in --out from its checkpoint, exactly")


def cmd_train(args: argparse.Namespace) -> int:
    """Train the card-aware agent, PPO or a value learner (torch is imported here, never by ``import big2_env``)."""
    try:
        from agents.checkpoint import CheckpointError
        from agents.config import args_from_mapping, load_config_file
        from agents.train import train
    except ImportError as err:
        raise CliError(f"training needs torch (pip install torch==2.13.0, then pip install -e '.[agents]'): {err}") from None
    given = {k: v for k, v in vars(args).items() if k not in ("command", "func", "config", "resume")}
    if "model" in given:
        given["model"] = dict(given["model"])
    try:
        values = load_config_file(args.config) if args.config else {}
        if "model" in given and "model" in values:  # --model FIELD=VALUE refines the file's model table
            given["model"] = {**values["model"], **given["model"]}
        values.update(given)
        train_args = args_from_mapping(values)
        if not args.resume:
            train_args.validate()
        result = train(train_args, resume=args.resume, explicit=set(values))
    except (CheckpointError, ValueError) as err:
        raise CliError(str(err)) from None
    state = "finished" if result.finished else f"stopped at batch {result.batch} (resume with --resume)"
    print(f"{state}: {result.batch} batches, {result.games} games, {result.decisions} decisions in {result.elapsed_s:.0f} s")
    print(f"model: {result.out / 'model.pt'}  checkpoint: {result.out / 'checkpoint.pt'}  metrics: {result.out / 'metrics.csv'}")
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    try:
        from agents.plot import plot_run
    except ImportError as err:
        raise CliError(str(err)) from None
    try:
        path = plot_run(args.run_dir, args.output)
    except (FileNotFoundError, ValueError, ImportError) as err:
        raise CliError(str(err)) from None
    print(path)
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from .evaluation import evaluate

    rules = Rules.preset(args.rules)
    agent = load_agent(args.agent, rules)
    result = evaluate(
        agent, args.opponent, n_games=args.games, seed=args.seed, rules=rules, duplicate=args.duplicate, progress=not args.no_progress
    )
    print(result.to_table())
    return 0


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


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

    play = sub.add_parser("play", help="play one seat against three computer opponents in the terminal")
    play.add_argument("--seat", type=_seat, default=0, help="your seat 0..3 (default 0)")
    play.add_argument(
        "--opponent", default="smart", help="opponents: random, greedy, smart, pretrained or a trained model file .pt (default smart)"
    )
    play.add_argument("--rules", default="paper", choices=Rules.PRESETS, help="rules preset (default paper)")
    play.add_argument("--seed", type=int, default=None, help="deal seed (default: random)")
    play.set_defaults(func=cmd_play)

    ev = sub.add_parser("eval", help="evaluate an agent against three opponents (the paper's protocol)")
    ev.add_argument(
        "--agent", required=True, help="random, greedy, smart, pretrained, a trained model file (.pt) or a MaskablePPO model file (.zip)"
    )
    ev.add_argument("--opponent", required=True, choices=("random", "greedy", "smart"), help="the opponent class")
    ev.add_argument("--games", type=_positive_int, default=1000, help="games (deals with --duplicate), default 1000")
    ev.add_argument("--duplicate", action="store_true", help="replay every deal with the agent in each of the four seats")
    ev.add_argument("--seed", type=int, default=0, help="seed of deals, seats and policies (default 0)")
    ev.add_argument("--rules", default="paper", choices=Rules.PRESETS, help="rules preset (default paper)")
    ev.add_argument("--no-progress", action="store_true", help="no progress bar")
    ev.set_defaults(func=cmd_eval)

    tr = sub.add_parser(
        "train",
        help="train the card-aware agent by self-play: PPO, Monte Carlo Q, SARSA or Q-learning (needs torch)",
        description="Train the card-aware agent by self-play, PPO or a value learner (paper sections 3-5). Flags override --config; "
        "with --resume the run's own arguments are used and only budget, logging and thread flags may change.",
    )
    _add_train_arguments(tr)
    tr.set_defaults(func=cmd_train)

    pl = sub.add_parser("plot", help="draw a training run's learning curves (win rate and mean score vs batches)")
    pl.add_argument("run_dir", help="the --out folder of big2 train")
    pl.add_argument("--output", default=None, help="PNG path (default RUN_DIR/learning_curves.png)")
    pl.set_defaults(func=cmd_plot)

    rules = sub.add_parser("rules", help="list the rule variants and presets")
    rules.set_defaults(func=cmd_rules)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except CliError as err:
        parser.exit(2, f"big2 {args.command}: error: {err}\n")
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
