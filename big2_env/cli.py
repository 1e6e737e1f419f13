"""The ``big2`` command-line tool.

Subcommands:
    big2 --version                                                 print ``big2 <version>``
    big2 demo [--seed S] [--rules PRESET] [--view all|none|0..3]   play and render one game between random players
    big2 play [--seat 0..3] [--opponent AGENT] [--trust-model] [--rules PRESET] [--seed S]
                                                                   play one seat against three computer players
    big2 eval --agent AGENT --opponent AGENT [--trust-model] [--games N] [--duplicate] [--seed S]
              [--argmax | --temperature T] [--rho R] [--jobs N]
                                                                   the paper's evaluation protocol, as a table
    big2 arena AGENT AGENT ... --out DIR [--deals N] [--seed S] [--jobs J] [--rules PRESET] [--tables all|sampled]
               [--resume] [--rating points|plackett-luce|openskill] [--compress]
                                                                   rate agents at mixed four-seat tables, duplicate deals
    big2 arena --pool DIR --add AGENT ... --out NEW                rate new agents against a stored arena
    big2 arena --refit DIR                                         an arena's ratings again from its games
    big2 serve [--host 127.0.0.1] [--port 8000] [--opponents AGENT ...] [--rules PRESET] [--no-browser]
                                                                   the web table (big2_env.web), in the browser
    big2 train [--algo ppo|mcq|sarsa|qlearning|dmc] [--curriculum self] [--entropy 0.05] [--batches N]
               [--games-per-batch 64] [--seed S] [--out DIR] [--config FILE] [--resume] [--model design=plus]
               [--teacher search:64] [--init RUN] [--device auto|cpu|cuda] ...
                                                                   train the card-aware agent: PPO, a value learner
                                                                   or learning from search (needs torch)
    big2 plot DIR                                                  draw DIR's learning curves (needs matplotlib)
    big2 rules                                                     print the rule variants and presets

``train`` and ``plot`` come from the ``agents`` package through the ``big2_env.commands``
entry points (:mod:`big2_env.plugins`); other installed packages can add commands the same way.

AGENT (``--agent``, ``--opponent``; resolved by :func:`big2_env.evaluation.loading.load_agent`, as
:func:`big2_env.evaluation.evaluate` does): ``random``, ``greedy``, ``smart``, ``search``,
and the plugins' specs: ``pretrained`` (the shipped PPO agent), ``pretrained-paper`` (the network trained with
the paper's exact settings, for the reproduction), ``pretrained-charlesworth`` (trained under Charlesworth's
rules), a trained model file ``MODEL.pt``, a
``big2 train --out`` run folder (its ``model.pt``) or a saved sb3-contrib MaskablePPO
model ``MODEL.zip``. A ``.zip`` is loaded without unpickling anything from it (a crafted
file could otherwise run code); ``--trust-model`` uses Stable-Baselines3's own loader,
which unpickles: only for files you wrote. ``.pt`` files are always read with
``torch.load(weights_only=True)``.

``big2 play``: the human is "you" in every message, the computer players
``player_1``... by seat; a forced move (the only legal play, e.g. a pass when nothing
beats the trick) is made for you with a note, and a line says when a trick clears and
who leads. Text the terminal cannot encode is escaped rather than crashing, and end of
input (stdin closed) abandons the game with exit status 1.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

from . import __version__
from .engine.cards import format_play
from .engine.game import Game
from .errors import LoadError
from .evaluation.arena.command import add_arena_command
from .evaluation.loading import agent_choices, load_agent
from .players.base import Policy
from .players.random import RandomPolicy
from .plugins import CommandError, command_plugins, positive_int, seed_int
from .render.text import render_table
from .engine.rules import Rules


CliError = CommandError
"""A user error reported as ``big2 COMMAND: error: ...`` with exit status 2 (:class:`big2_env.plugins.CommandError`)."""


def _view(text: str) -> str | int:
    if text in ("all", "none", "current"):
        return text
    if text.isdigit() and 0 <= int(text) <= 3:
        return int(text)
    raise argparse.ArgumentTypeError(f"must be all, none, current or a seat 0..3; got {text!r}")  # argparse names the flag


def cmd_demo(args: argparse.Namespace) -> int:
    """Play one seeded game between four random players, printing the table after every play."""
    from .observations.decision import Decision, PolicyObservation

    seed = args.seed if args.seed is not None else _random_seed()
    if args.seed is None:
        print(f"seed {seed} (big2 demo --seed {seed} replays this game)")
    game = Game(Rules.preset(args.rules), seed=seed)
    players = [RandomPolicy(seed=seed * 4 + seat) for seat in range(4)]
    print(render_table(game, args.view))
    while not game.is_over:
        decision = Decision(game)
        play = decision.play_for_action(players[decision.player].act(PolicyObservation(decision)))
        assert play is not None
        print(f"\nplayer_{decision.player} plays {format_play(play)}")
        game.play(play)
        if play or game.trick is None:
            print(render_table(game, args.view))
    scores = game.scores()
    print("\nFinal scores: " + ", ".join(f"player_{i} {s:+d}" for i, s in enumerate(scores)))
    return 0


def _random_seed() -> int:
    """A fresh seed for a command given none (printed, so that the game can be replayed)."""
    return int.from_bytes(os.urandom(4), "little")


def _check_writable(path: str, flag: str, what: str = "the replay") -> None:
    """Refuse, before a game is played, a file path that cannot be written: its folder missing,
    a file where its folder should be, or no permission."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise CliError(f"cannot write {what} to {path!r}: it is a folder ({flag} takes a file name)")
    if not os.path.isdir(folder):
        why = "is a file, not a folder" if os.path.exists(folder) else "does not exist"
        raise CliError(f"cannot write {what} to {path!r}: {folder!r} {why}")
    if not os.access(folder, os.W_OK | os.X_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise CliError(f"cannot write {what} to {path!r}: no permission to write there")


PLAY_HELP = """Type a play as card text, e.g. '3D' or '8H 8S' (ranks 3-9 T J Q K A 2, suits D C H S),
'pass' to pass, '?' to list your legal plays, 'h' for this help, 'q' to quit.
When you have only one legal play (e.g. a pass: nothing beats the trick), it is made for you."""

HUMAN = "you"


def _seat_names(human: int) -> list[str]:
    """The seat names of ``big2 play``: ``"you"`` for the human, ``"player_k"`` for the computer players."""
    return [HUMAN if seat == human else f"player_{seat}" for seat in range(4)]


def _humanize(text: str, human: int) -> str:
    """The engine's messages (which say "player 2") in ``big2 play``'s names ("you", "player_1")."""
    text = re.sub(rf"\billegal play for player {human}: ", "illegal play: ", text)
    text = re.sub(rf"\bplayer {human}'s\b", "your", text)
    text = re.sub(rf"\bplayer {human} has\b", "you have", text)
    text = re.sub(rf"\bplayer {human}\b", HUMAN, text)
    return re.sub(r"\bplayer ([0-3])\b", r"player_\1", text)


def _table(game: Game, viewer: str | int, names: list[str]) -> str:
    """:func:`render_table` with the human's verbs agreeing with "you" ("you open", "you lead", "you win")."""
    return re.sub(rf"\b{HUMAN} (open|lead|win)s\b", rf"{HUMAN} \1", render_table(game, viewer, names))


def _legal_listing(game: Game) -> str:
    plays = [format_play(p) for p in game.legal_plays()]
    return "Legal plays: " + ", ".join(plays)


def _move_line(game: Game, names: list[str], seat: int, play: tuple[int, ...]) -> str:
    """What a move looks like in the transcript (after it was made)."""
    if names[seat] == HUMAN:
        return "You pass." if not play else f"You play {format_play(play)} ({game.cards_left(seat)} left)."
    if not play:
        return f"{names[seat]} passes"
    return f"{names[seat]} plays {format_play(play)} ({game.cards_left(seat)} left)"


def _trick_cleared(game: Game, names: list[str], play: tuple[int, ...]) -> str | None:
    """The line announcing that everyone passed, once the trick has cleared (``None`` otherwise)."""
    if play or game.trick is not None or game.is_over:
        return None
    leader = names[game.current_player]
    return f"Everyone passed: the trick clears; {leader} {'lead' if leader == HUMAN else 'leads'}."


def _forced_note(game: Game, play: tuple[int, ...]) -> str:
    """The note for a move made for the human because it is the only legal one (before it is made)."""
    if not play:
        assert game.trick is not None
        return f"You cannot beat {format_play(game.trick)}: you pass (forced)."
    left = game.cards_left(game.current_player) - len(play)
    return f"Your only legal play is {format_play(play)}: you play it (forced; {left} left)."


QUIT = "quit"
"""What :func:`_ask_play` returns when the player quits (``q``); ``None`` means the input ended."""


def _ask_play(game: Game, human: int) -> tuple[int, ...] | str | None:
    """Read plays at the prompt until a legal one is made (returned, already played); :data:`QUIT`
    when the player quits, ``None`` when the input ends (stdin closed)."""
    from .engine.cards import parse_play
    from .engine.game import IllegalPlayError

    while True:
        try:
            text = input("Your play> ").strip()
        except EOFError:
            print()
            print(
                "big2 play: end of input (stdin is closed): game abandoned. Run big2 play in an interactive "
                "terminal, or pipe in one play per line.",
                file=sys.stderr,
            )
            return None
        if not text:
            continue
        lowered = text.lower()
        if lowered in ("q", "quit", "exit"):
            print("game abandoned")
            return QUIT
        if lowered in ("?", "l", "legal", "list"):
            print(_legal_listing(game))
            continue
        if lowered in ("h", "help"):
            print(PLAY_HELP)
            continue
        try:
            play = parse_play(text)
            game.play(play)
        except IllegalPlayError as err:
            print(f"Not allowed: {_humanize(str(err), human)}")
            continue
        except ValueError as err:
            print(f"Could not read that: {_humanize(str(err), human)}")
            continue
        return play


def cmd_play(args: argparse.Namespace) -> int:
    """Play one seat at the terminal against three computer opponents."""
    from .observations.decision import Decision, PolicyObservation
    from .observations.paper import action_cards
    from .players.base import policy_actions

    rules = Rules.preset(args.rules)
    seed = args.seed if args.seed is not None else _random_seed()
    human = args.seat
    if args.replay:
        _check_writable(args.replay, "--replay")
    opponents = _play_opponents(args.opponent, seed, rules, human, args.trust_model)
    game = Game(rules, seed=seed)
    names = _seat_names(human)
    others = ", ".join(n for n in names if n != HUMAN)
    print(f"Big 2: you are seat {human}, against {others}; opponents: {args.opponent}; rules: {args.rules}; seed {seed}")
    print(PLAY_HELP)
    while not game.is_over:
        seat = game.current_player
        if seat != human:
            action = policy_actions(opponents[seat], [PolicyObservation(Decision(game))])[0]
            play = action_cards(action, game.hand(seat))
            game.play(play)
            print(_move_line(game, names, seat, play))
        else:
            legal = game.legal_plays()
            if len(legal) == 1:
                play = legal[0]
                print(_forced_note(game, play))
                game.play(play)
            else:
                print()
                print(_table(game, human, names))
                chosen = _ask_play(game, human)
                if chosen is None or chosen == QUIT:
                    _write_play_replay(args, game, seed, human)  # a partial game's replay still loads in big2 serve
                    return 0 if chosen == QUIT else 1  # quitting is no failure; input that ends is
                assert not isinstance(chosen, str)
                play = chosen
                print(_move_line(game, names, seat, play))
        cleared = _trick_cleared(game, names, play)
        if cleared:
            print(cleared)
    print()
    print(_table(game, "all", names))
    scores, winner = game.scores(), game.winner
    assert winner is not None
    verdict = "You win!" if winner == human else f"{names[winner]} wins."
    print(f"\n{verdict} Final scores: " + ", ".join(f"{names[i]} {s:+d}" for i, s in enumerate(scores)))
    _write_play_replay(args, game, seed, human)
    return 0


def _write_play_replay(args: argparse.Namespace, game: Game, seed: int, human: int) -> None:
    """``--replay``: the game so far (the whole game once it is over) as a replay file."""
    if not args.replay:
        return
    from .engine.replay import replay_dict, write_replay

    seats = [HUMAN if i == human else args.opponent for i in range(4)]
    try:
        path = write_replay(args.replay, replay_dict(game, seed, seats))
    except OSError as err:
        raise CliError(f"cannot write the replay to {args.replay!r}: {err}") from None
    print(f"replay written to {path}" + ("" if game.is_over else f" (the game so far: {len(game.history)} moves)"))


def _load_agent(spec: str, rules: Rules, what: str, trust: bool = False, seed: int | None = None) -> Policy:
    """:func:`big2_env.evaluation.loading.load_agent`, its refusals reported as ``big2 COMMAND: error: ...``."""
    try:
        policy = load_agent(spec, rules, trust=trust, what=what, seed=seed)
    except LoadError as err:  # also MissingDependencyError and UntrustedModelError
        raise CliError(str(err)) from None
    _warn_other_rules(policy, spec, rules, what)
    return policy


def _warn_other_rules(policy: Policy, spec: str, rules: Rules, what: str) -> None:
    """A warning (not a refusal) when a network plays under other rules than it was trained under
    (``trained_rules``, which the pretrained specs, ``.pt`` files and run folders carry: a model file's
    ``info["rules"]``, a checkpoint's ``args["rules"]``): it still plays, but its measured strength is
    for its own rules."""
    trained = getattr(policy, "trained_rules", None)
    if trained is None:
        return
    try:
        if Rules.coerce(trained) == rules:
            return
    except (TypeError, ValueError):  # a file naming rules this release does not know: say so all the same
        pass
    print(f"warning: {what} {spec} was trained under the {trained!r} rules and plays here under others "
          f"(--rules {trained} plays it under its own)", file=sys.stderr)


def _play_opponents(spec: str, seed: int, rules: Rules, human: int, trust: bool = False) -> dict[int, Policy]:
    """The three computer players of ``big2 play``: a heuristic per seat (seeded apart) or one model for all."""
    from .players.registry import POLICIES

    if spec in POLICIES:
        return {seat: _load_agent(spec, rules, "--opponent", seed=seed + seat) for seat in range(4) if seat != human}
    policy = _load_agent(spec, rules, "--opponent", trust=trust, seed=seed)
    return {seat: policy for seat in range(4) if seat != human}


def cmd_eval(args: argparse.Namespace) -> int:
    from .evaluation.versus import evaluate

    rules = Rules.preset(args.rules)
    agent = _load_agent(args.agent, rules, "--agent", trust=args.trust_model)
    opponent = _load_agent(args.opponent, rules, "--opponent", trust=args.trust_model)
    if args.argmax and args.temperature is not None:
        raise CliError("--argmax and --temperature exclude each other (--temperature samples)")
    networks = [p for p in (agent, opponent) if hasattr(p, "temperature") and hasattr(p, "deterministic")]
    if (args.argmax or args.temperature is not None) and not networks:
        flag = "--argmax" if args.argmax else "--temperature"
        print(f"warning: {flag} changes nothing here: it applies to trained networks, and neither {args.agent} nor "
              f"{args.opponent} is one (the search and the heuristics have no argmax or temperature)", file=sys.stderr)
    for policy in networks:  # networks (agents.policy.NetworkPolicy)
        if args.argmax:
            setattr(policy, "deterministic", True)
        elif args.temperature is not None:
            setattr(policy, "deterministic", False)
            setattr(policy, "temperature", args.temperature)
    if args.rho is not None:
        config_of = lambda p: getattr(getattr(p, "model", None), "config", None)  # noqa: E731
        wins = [p for p in (agent, opponent) if getattr(config_of(p), "win_head", False)]
        if not wins:
            raise CliError(
                "--rho applies to networks with a win head (trained with --model win_head=true); neither agent has one"
            )
        for policy in wins:
            setattr(policy, "rho", args.rho)
    if args.replays:
        try:
            os.makedirs(args.replays, exist_ok=True)
        except OSError as err:
            raise CliError(f"cannot write the replays to {args.replays!r}: {err}") from None
    if args.json:
        _check_writable(args.json, "--json", "the figures")
    result = evaluate(
        agent, opponent, n_games=args.games, seed=args.seed, rules=rules, duplicate=args.duplicate,
        progress=not args.no_progress, jobs=args.jobs, replays=args.replays,
    )
    print(result.to_table())
    if args.replays:
        print(f"replays written to {args.replays}")
    if args.json:
        _write_json(args.json, eval_figures(args, result))
        print(f"figures written to {args.json}")
    return 0


def eval_command(args: argparse.Namespace) -> str:
    """The ``big2 eval`` command line that repeats an evaluation (its flags that change the games)."""
    import shlex

    words = ["big2", "eval", "--agent", args.agent, "--opponent", args.opponent, "--games", str(args.games),
             "--seed", str(args.seed), "--rules", args.rules]
    words += ["--duplicate"] * bool(args.duplicate) + ["--argmax"] * bool(args.argmax)
    if args.temperature is not None:
        words += ["--temperature", str(args.temperature)]
    if args.rho is not None:
        words += ["--rho", str(args.rho)]
    if args.jobs != 1:  # the same seed and jobs give the same games
        words += ["--jobs", str(args.jobs)]
    return shlex.join(words)


def eval_figures(args: argparse.Namespace, result: Any) -> dict[str, Any]:
    """What ``big2 eval --json`` writes: the agents as given, the rules preset, the games, seed and
    settings, the win rate and mean score with their 95% intervals, per seat, and the command. A file
    outside the repository is named by its name alone, never by this machine's path
    (:func:`~big2_env.records.portable`)."""
    import datetime

    from big2_env.records import portable

    figures = result.to_dict()
    figures.update(
        agent=args.agent, opponent=args.opponent, agent_name=result.agent, opponent_name=result.opponent,
        rules=args.rules, rule_options=result.rules.to_dict(), games=result.n_games, argmax=bool(args.argmax),
        temperature=args.temperature, command=eval_command(args),
        date=datetime.date.today().isoformat(),
    )
    order = ("agent", "opponent", "rules", "games", "seed", "duplicate", "argmax", "temperature", "win_rate",
             "win_rate_ci", "mean_score", "mean_score_ci", "command", "date")
    return portable({key: figures[key] for key in order} | {k: v for k, v in figures.items() if k not in order})


def _strict(value: Any) -> Any:
    """``value`` with every NaN (one game has no spread) as ``None``: strict JSON has no NaN."""
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(v) for v in value]
    return value


def _write_json(path: str, data: dict[str, Any]) -> None:
    import json

    try:
        with open(path, "w") as handle:
            handle.write(json.dumps(_strict(data), indent=2, allow_nan=False) + "\n")
    except OSError as err:
        raise CliError(f"cannot write the figures to {path!r}: {err}") from None


def _number_in(convert: Callable[[str], float], low: float, high: float, what: str, open_low: bool = False
               ) -> Callable[[str], float]:
    """An :mod:`argparse` type: ``convert(text)`` in ``[low, high]`` (``(low, high]`` with ``open_low``), else an
    error saying ``what`` it must be (argparse names the flag)."""

    def parse(text: str) -> float:
        try:
            value = convert(text)
        except ValueError:
            value = math.nan
        if not (low < value <= high if open_low else low <= value <= high):
            raise argparse.ArgumentTypeError(f"{what}; got {text!r}")
        return value

    return parse


_temperature = _number_in(float, 0, 100, "expected a number in (0, 100]", open_low=True)
_rho = _number_in(float, 0, 1, "expected a number in [0, 1]")
_port = _number_in(int, 0, 65535, "must be a port number 0..65535")
_positive_float = _number_in(float, 0, sys.float_info.max, "must be a positive number", open_low=True)
_seat = _number_in(int, 0, 3, "must be 0, 1, 2 or 3")


def cmd_serve(args: argparse.Namespace) -> int:
    """``big2 serve``: the web table (:mod:`big2_env.web`) until Ctrl+C."""
    from .web.server import ListenError, serve
    from .web.tables import DEFAULT_AGENTS

    try:
        serve(args.host, args.port, args.opponents or DEFAULT_AGENTS, args.rules, open_browser=not args.no_browser,
              max_games=args.max_games, idle_minutes=args.idle_minutes, exit_after=args.exit_after)
    except (ListenError, ValueError) as err:  # the address, or an offered agent that can never load
        raise CliError(str(err)) from None
    return 0


def cmd_rules(args: argparse.Namespace) -> int:
    from .engine.rules import RULE_MEANINGS

    print("Rule options (give them as keywords, e.g. Rules(straights='wrap'); the default first):")
    for name, meanings in RULE_MEANINGS.items():
        print(f"  {name}")
        for value, meaning in meanings.items():
            print(f"    {value!s:<14} {meaning}")
    for preset in Rules.PRESETS:
        print(f"\npreset {preset!r} (--rules {preset}):")
        for line in Rules.preset(preset).explain():
            print(f"  {line}")
    return 0


TRUST_HELP = (
    "let a .zip model be loaded by Stable-Baselines3's own loader, which unpickles it and so can run code "
    "from the file: only for files you wrote (without it, .zip files are loaded without unpickling)"
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="big2", description="Big 2 environment, agents and tools.")
    parser.add_argument("--version", action="version", version=f"big2 {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    demo = sub.add_parser("demo", help="play and render one seeded game between random players")
    demo.add_argument("--seed", type=seed_int, default=None,
                      help="deal and players' seed, a non-negative integer (default: a random one, printed)")
    demo.add_argument("--rules", default="paper", choices=Rules.PRESETS, help="rules preset (default paper)")
    demo.add_argument("--view", type=_view, default="all", help="whose hands to show: all, none, current or a seat 0..3")
    demo.set_defaults(func=cmd_demo)

    play = sub.add_parser("play", help="play one seat against three computer opponents in the terminal")
    play.add_argument("--seat", type=_seat, default=0, help="your seat 0..3 (default 0)")
    play.add_argument(
        "--opponent", default="smart", metavar="AGENT", help=f"the three opponents: {agent_choices()} (default smart)"
    )
    play.add_argument("--trust-model", action="store_true", help=TRUST_HELP)
    play.add_argument("--rules", default="paper", choices=Rules.PRESETS, help="rules preset (default paper)")
    play.add_argument("--seed", type=seed_int, default=None, help="deal seed, a non-negative integer (default: random)")
    play.add_argument("--replay", default=None, metavar="FILE",
                      help="write the game's replay (JSON; big2 serve loads it) to FILE at the end")
    play.set_defaults(func=cmd_play)

    ev = sub.add_parser("eval", help="evaluate an agent against three opponents (the paper's protocol)")
    ev.add_argument("--agent", required=True, metavar="AGENT", help=f"the evaluated agent: {agent_choices()}")
    ev.add_argument("--opponent", required=True, metavar="AGENT", help="the three opponents, same forms as --agent")
    ev.add_argument("--trust-model", action="store_true", help=TRUST_HELP)
    ev.add_argument("--games", type=positive_int, default=1000, help="games (deals with --duplicate), default 1000")
    ev.add_argument("--duplicate", action="store_true", help="replay every deal with the agent in each of the four seats")
    ev.add_argument("--seed", type=seed_int, default=0,
                    help="seed of deals, seats and policies, a non-negative integer (default 0)")
    ev.add_argument("--rules", default="paper", choices=Rules.PRESETS, help="rules preset (default paper)")
    ev.add_argument("--no-progress", action="store_true", help="no progress bar")
    ev.add_argument(
        "--argmax", action="store_true",
        help="trained networks play their highest-scoring move (default: PPO networks sample, pretrained and the others "
        "play argmax)",
    )
    ev.add_argument(
        "--temperature", type=_temperature, default=None, metavar="T",
        help="trained networks sample from softmax(scores / T) (T in (0, 100]; below 1 is sharper)",
    )
    ev.add_argument(
        "--rho", type=_rho, default=None, metavar="R",
        help="networks with a win head: AlphaDou's band, play the likeliest winner among the moves whose expected score "
        "is within R x |best| of the best (R in [0, 1]; default the network's own, 0.05; 0: by expected score alone)",
    )
    ev.add_argument(
        "--jobs", type=positive_int, default=1,
        help="processes to spread the games over (default 1); the same --seed and --jobs give the same result",
    )
    ev.add_argument("--replays", default=None, metavar="DIR",
                    help="write every game's replay into DIR as game-NNNNN.json (big2 serve loads them)")
    ev.add_argument("--json", default=None, metavar="FILE",
                    help="also write the figures to FILE as JSON: agent, opponent, rules, games, seed, win rate and "
                    "mean score with their 95%% intervals, per seat, and the command that repeats the run")
    ev.set_defaults(func=cmd_eval)
    add_arena_command(sub)  # big2 arena (big2_env.evaluation.arena.command)

    for name, add in command_plugins().items():  # big2 train, big2 plot (the agents package) and other plugins'
        if name not in sub.choices:
            add(sub)

    web = sub.add_parser("serve", help="the local web table: play against any agent, watch four play, step through replays")
    web.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    web.add_argument("--port", type=_port, default=8000, help="port (default 8000; 0: any free port)")
    web.add_argument(
        "--opponents", nargs="+", default=None, metavar="AGENT",
        help=f"the agents the page offers ({agent_choices()}; default random greedy smart search pretrained search-net)",
    )
    web.add_argument("--rules", default="paper", choices=Rules.PRESETS, help="the page's default rules preset (default paper)")
    web.add_argument("--no-browser", action="store_true", help="do not open a browser")
    web.add_argument("--max-games", type=positive_int, default=100, help="games held at once (default 100)")
    web.add_argument("--idle-minutes", type=_positive_float, default=30.0, help="a game idle this long is forgotten (default 30)")
    web.add_argument("--exit-after", type=_positive_float, default=None, metavar="SECONDS",
                     help="stop after this many seconds (for scripts and tests; default: run until Ctrl+C)")
    web.set_defaults(func=cmd_serve)

    rules = sub.add_parser("rules", help="list the rule variants and presets")
    rules.set_defaults(func=cmd_rules)
    return parser


def _tolerant_streams() -> None:
    """Escape what the terminal's encoding cannot show (e.g. suit symbols with ``LANG=C``) instead of crashing."""
    for stream, errors in ((sys.stdout, "backslashreplace"), (sys.stderr, "backslashreplace"), (sys.stdin, "replace")):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", None) == "strict":
            try:
                reconfigure(errors=errors)
            except (AttributeError, ValueError, OSError):
                pass


def main(argv: Sequence[str] | None = None) -> int:
    _tolerant_streams()
    parser = build_parser()
    args = parser.parse_args(argv)
    from .engine.compile_notice import command_line_notice

    with command_line_notice():  # the first run after an install compiles the core: say so, and for how long
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
