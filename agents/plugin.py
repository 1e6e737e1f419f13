"""The ``agents`` package's plugins for big2_env: agent specs and the ``big2 train`` / ``big2 plot`` commands.

big2_env never imports ``agents``; it finds these through the entry points that
``pyproject.toml`` declares (see :mod:`big2_env.plugins`):

* :data:`AGENT_SPECS` (group ``big2_env.agent_specs``): the packaged networks (``"pretrained"``,
  ``"pretrained-paper"``, ``"pretrained-charlesworth"``, ``"pretrained-default-recipe"``:
  :data:`agents.shipped.SHIPPED`), a ``.pt`` policy file or training checkpoint, and a
  ``big2 train --out`` run folder;
* :func:`add_train_command`, :func:`add_plot_command` and :func:`add_average_command` (group
  ``big2_env.commands``).

This module imports neither torch nor matplotlib: they are imported when a spec or a
command needs them, and a missing one is reported with the extra to install
(``pip install torch==2.13.0``, then ``pip install -e '.[agents]'``).

Example:
    >>> from agents.plugin import AGENT_SPECS
    >>> AGENT_SPECS.load("smart", rules=None, what="agent", seed=None) is None  # not one of its forms
    True
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any

from big2_env.engine.rules import Rules
from big2_env.errors import LoadError, MissingDependencyError
from big2_env.evaluation.loading import display_name
from big2_env.players.base import Policy
from big2_env.players.determinized import parse_budget
from big2_env.plugins import AgentSpecs, CommandError

from .config import TrainArgs
from .shipped import SHIPPED

__all__ = ["AGENT_SPECS", "PRETRAINED_SPECS", "TORCH_HINT", "add_average_command", "add_plot_command", "add_train_command",
           "check_spec", "load_spec"]

TORCH_HINT = "pip install torch==2.13.0, then pip install -e '.[agents]'"
"""How to install what the networks need: the ``[agents]`` extra, torch first and pinned (on Linux, the
public index's build is the CUDA one; the README gives PyTorch's CPU index for the CPU build)."""

RUN_MODEL_FILE = "model.pt"

PRETRAINED_SPECS = {spec: entry.which for spec, entry in SHIPPED.items()}
"""The packaged networks' agent specs and their ``load_pretrained(which=...)``."""


def load_spec(spec: str | os.PathLike[str], rules: Rules | None, what: str, seed: int | None) -> Policy | None:
    """The network a spec names (``"pretrained"``, ``"pretrained-paper"``, a ``.pt`` file, a run folder),
    or ``None`` when ``spec`` is none of these forms.

    Raises:
        LoadError: a missing file, a folder without ``model.pt``, a corrupt or foreign file.
        MissingDependencyError: torch is not installed (the message names the ``[agents]`` extra).
    """
    rules = Rules.coerce(rules)
    text = os.fspath(spec)
    if isinstance(spec, str) and text in PRETRAINED_SPECS:
        return _load_pretrained(rules, what, seed, text)
    if isinstance(spec, str) and (text == SEARCH_NET or text.startswith((SEARCH_NET + ":", SEARCH_NET + "@"))):
        return _load_search_net(text, rules, what, seed)
    path = Path(text)
    if path.is_dir():
        model = path / RUN_MODEL_FILE
        if not model.is_file():
            if (path / "checkpoint.pt").is_file():
                hint = f"; pass {str(path / 'checkpoint.pt')!r} to use its training checkpoint"
            else:
                hint = " (a `big2 train --out` folder has one once training has saved)"
            raise LoadError(f"{what}: the folder {text!r} has no {RUN_MODEL_FILE}{hint}")
        return _load_network(model, rules, what, seed, name=path.resolve().name or path.name)
    if path.suffix == ".pt":
        if not path.is_file():
            raise LoadError(f"{what}: no such model file {text!r}")
        return _load_network(path, rules, what, seed, name=display_name(path))
    return None


def check_spec(spec: str, what: str = "agent") -> None:
    """Raise :class:`LoadError` if ``spec``, one of the named forms (a shipped network's name,
    ``search-net[:NETWORK][@BUDGET]``), can never load: a malformed ``search-net`` spec, a bad budget,
    a network that is neither shipped nor an existing file or run folder. Loads nothing (torch stays
    unloaded); ``big2 serve`` calls it for the agents it offers.

    >>> check_spec("search-net:pretrained@1s")
    >>> check_spec("search-net@0")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    big2_env.errors.LoadError: agent 'search-net@0': budget must be rollouts per decision ... got '0'
    """
    if spec in PRETRAINED_SPECS:
        return
    if not (spec == SEARCH_NET or spec.startswith((SEARCH_NET + ":", SEARCH_NET + "@"))):
        raise LoadError(f"{what} {spec!r}: not one of {', '.join(AGENT_SPECS.names)} (with search-net's :NETWORK@BUDGET)")
    network, budget = _parse_search_net(spec, what)
    try:
        parse_budget(budget if budget else 1)
    except ValueError as err:
        raise LoadError(f"{what} {spec!r}: {err}") from None
    if network is not None and network not in PRETRAINED_SPECS:
        path = Path(network)
        if not (path.suffix == ".pt" and path.is_file() or (path / RUN_MODEL_FILE).is_file()):
            raise LoadError(f"{what} {spec!r}: its network {network!r} is neither a shipped network "
                            f"({', '.join(SHIPPED)}) nor a .pt file or a run folder with {RUN_MODEL_FILE}")


AGENT_SPECS = AgentSpecs(
    describe=", ".join(SHIPPED) + ", a trained model file (.pt), a run folder, search-net[:NETWORK][@BUDGET]",
    load=load_spec,
    names=tuple(SHIPPED) + ("search-net",),
    check=check_spec,
)
"""The ``big2_env.agent_specs`` entry point of the ``agents`` package."""


SEARCH_NET = "search-net"
"""The search over a network (:mod:`agents.net_search`): ``search-net``, ``search-net:NETWORK``, each with
an optional ``@BUDGET`` (``@640``: rollouts a decision, 640 by default; ``@0.25s``, ``@1s``: seconds)."""


def _parse_search_net(text: str, what: str) -> tuple[str | None, str]:
    """``(network or None, budget or "")`` of a ``search-net[:NETWORK][@BUDGET]`` spec; its form checked."""
    body, at, budget = text[len(SEARCH_NET):].partition("@")
    network = body[1:] if body.startswith(":") else None
    if body and network is None or network == "" or (at and not budget):
        raise LoadError(f"{what} {text!r}: the search over a network is search-net[:NETWORK][@BUDGET], "
                        "e.g. search-net, search-net@1s, search-net:pretrained@200")
    return network, budget


def _load_search_net(text: str, rules: Rules, what: str, seed: int | None) -> Policy:
    """The search over the network a ``search-net[:NETWORK][@BUDGET]`` spec names."""
    network, budget = _parse_search_net(text, what)
    _import_agents(what, text)
    from .net_search import DEFAULT_BUDGET, NetworkSearch

    try:
        return NetworkSearch.from_spec(network, rules, budget=budget or DEFAULT_BUDGET, seed=seed, name=text)
    except ValueError as err:
        raise LoadError(f"{what} {text!r}: {err}") from None


def _import_agents(what: str, spec: str) -> tuple[Any, Any, Any]:
    try:
        from .checkpoint import CheckpointError
        from .policy import NetworkPolicy
        from .pretrained import load_pretrained
    except ImportError as err:
        raise MissingDependencyError(f"{what}: {spec!r} needs torch ({TORCH_HINT}): {err}") from None
    return CheckpointError, NetworkPolicy, load_pretrained


def _load_pretrained(rules: Rules, what: str, seed: int | None, spec: str = "pretrained") -> Policy:
    checkpoint_error, _, load_pretrained = _import_agents(what, spec)
    try:
        policy = load_pretrained(seed=seed, which=PRETRAINED_SPECS[spec])
    except (FileNotFoundError, checkpoint_error) as err:
        raise LoadError(f"{what}: {err}") from None
    policy.rules = rules
    # the command line warns when rules differ (.pt files and run folders say it in their own file)
    setattr(policy, "trained_rules", SHIPPED[spec].rules)
    return policy


def _load_network(path: Path, rules: Rules, what: str, seed: int | None, name: str) -> Policy:
    checkpoint_error, network_policy, _ = _import_agents(what, str(path))
    try:
        policy = network_policy.from_file(str(path), rules=rules, name=name, seed=seed)
    except (FileNotFoundError, checkpoint_error) as err:
        raise LoadError(f"{what}: {err}") from None
    return policy


# ------------------------------------------------------------------ big2 train, big2 plot
def add_train_command(sub: Any) -> None:
    """``big2 train``: one flag per :class:`~agents.config.TrainArgs` field, ``--config`` and ``--resume``."""
    parser = sub.add_parser(
        "train",
        help="train the card-aware agent: PPO, Monte Carlo Q, SARSA, Q-learning or Deep Monte Carlo (needs torch)",
        description="Train the card-aware agent by self-play, PPO or a value learner (paper sections 3-5). "
        "Flags override --config; "
        "with --resume the run's own arguments are used and only budget, logging and thread flags may change.",
    )
    _add_train_arguments(parser)
    parser.set_defaults(func=cmd_train)


def add_plot_command(sub: Any) -> None:
    """``big2 plot RUN_DIR [--output PNG]``: a run's learning curves and its learner's health."""
    parser = sub.add_parser(
        "plot", help="draw a training run's learning curves (win rate and mean score vs games) and its learner's health "
        "(KL, clip fraction, explained variance, entropy, gradient ratio)"
    )
    parser.add_argument("run_dir", help="the --out folder of big2 train")
    parser.add_argument(
        "--output", default=None,
        help="PNG path of the curves (default RUN_DIR/learning_curves.png; the health plot goes beside it, "
        "RUN_DIR/training_health.png or NAME_health.png)",
    )
    parser.set_defaults(func=cmd_plot)


def add_average_command(sub: Any) -> None:
    """``big2 average MODEL MODEL [...] --out PATH``: a policy file of the models' mean weights."""
    parser = sub.add_parser(
        "average", help="average the weights of several model files of one network (snapshots of a run: stochastic "
        "weight averaging) into one policy file (needs torch)",
        description="Write a policy file whose weights are the mean of the given policy files' or checkpoints' weights. "
        "They must hold the same network config and rules; typically the models one run saved along its way.",
    )
    parser.add_argument("models", nargs="+", metavar="MODEL", help="policy files (.pt) or training checkpoints, two or more")
    parser.add_argument("--out", required=True, help="the policy file to write (.pt)")
    parser.set_defaults(func=cmd_average)


def cmd_average(args: argparse.Namespace) -> int:
    try:
        from agents.average import average_files
        from agents.checkpoint import CheckpointError
    except ImportError as err:
        raise CommandError(f"averaging needs torch ({TORCH_HINT}): {err}") from None
    out = Path(args.out)
    if out.is_dir():
        raise CommandError(f"--out {args.out!r} is a folder: give the policy file to write (a path ending in .pt)")
    if out.suffix != ".pt":
        raise CommandError(f"--out {args.out!r}: a policy file's name ends in .pt; got {out.suffix or 'no suffix'!r}")
    if any(Path(model).resolve() == out.resolve() for model in args.models):
        raise CommandError(f"--out {args.out!r} is one of the models being averaged: write to a new file")
    try:
        data = average_files(args.models, out)
    except CheckpointError as err:
        raise CommandError(str(err)) from None
    except OSError as err:  # the folder cannot be made or written
        raise CommandError(f"--out {args.out!r}: cannot write there ({err.strerror or err})") from None
    print(f"{out}: the mean of {len(args.models)} models (games {data['info']['averaged_games']})")
    return 0


def _train_flag_type(kind: type):
    def parse(text: str):
        try:
            return kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {kind.__name__}, got {text!r}") from None

    return parse


def _model_override(text: str) -> tuple[str, int | float | bool | str]:
    """``--model FIELD=VALUE``: an int, a number, true/false, or a word (``design=plus``; the config checks it)."""
    name, sep, value = text.partition("=")
    if not sep or not name or not value:
        raise argparse.ArgumentTypeError(f"--model takes FIELD=VALUE (e.g. design=plus, state_dim=256), got {text!r}")
    if value.lower() in ("true", "false"):
        return name, value.lower() == "true"
    for kind in (int, float):
        try:
            return name, kind(value)
        except ValueError:
            pass
    return name, value


def _add_train_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per :class:`agents.train.TrainArgs` field (defaults shown from the dataclass; the parsed
    namespace holds only the flags given, so ``--resume`` knows what was asked to change)."""
    from dataclasses import MISSING, fields

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
    parser.add_argument(
        "--resume", action="store_true",
        help="continue the run in --out from its checkpoint, exactly, with its saved arguments: it keeps its --stop-after "
        "unless one is given again (--stop-after 0 runs on to --batches)",
    )


def cmd_train(args: argparse.Namespace) -> int:
    """Train the card-aware agent, PPO or a value learner (torch is imported here, never by ``import big2_env``)."""
    try:
        from agents.checkpoint import CheckpointError
        from agents.config import args_from_mapping, load_config_file
        from agents.train import train
    except ImportError as err:
        raise CommandError(f"training needs torch ({TORCH_HINT}): {err}") from None
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
        _check_out(train_args.out)
        result = train(train_args, resume=args.resume, explicit=set(values))
    except (CheckpointError, ValueError) as err:
        raise CommandError(flag_names(str(err))) from None
    if result.already_finished:
        print(
            f"the run in {result.out} already finished (batch {result.batch}, all its planned batches); nothing to do. "
            f"To train it longer, resume with a larger budget: big2 train --out {result.out} --resume --batches N "
            f"(N > {result.batch}; the learning-rate schedule then stretches to N)"
        )
    else:
        if result.finished:
            state = "finished"
        elif result.stop_after and result.batch >= result.stop_after:  # a resume without a new one stops here again
            state = (f"stopped at batch {result.batch}, its --stop-after (resume with --resume and a larger --stop-after, "
                     "or --stop-after 0 to run to --batches)")
        else:
            state = f"stopped at batch {result.batch} (resume with --resume)"
        print(
            f"{state}: {result.batch} batches, {result.games} games, {result.decisions} decisions; "
            f"wall time {result.wall_s:.0f} s ({result.wall_s - result.eval_s:.0f} s training, {result.eval_s:.0f} s evaluation)"
        )
    print(f"model: {result.out / 'model.pt'}  checkpoint: {result.out / 'checkpoint.pt'}  metrics: {result.out / 'metrics.csv'}")
    return 0


def flag_names(message: str) -> str:
    """A training error in the command line's words: each :class:`~agents.config.TrainArgs` field that
    a message names as the subject of a complaint ("lr must be ...") becomes its flag ("--lr must be ...").

    >>> flag_names("lr must be a positive number; got -1.0")
    '--lr must be a positive number; got -1.0'
    >>> flag_names("games_per_batch must be a positive int; got 0")
    '--games-per-batch must be a positive int; got 0'
    >>> flag_names("eval_opponents: unknown opponent 'x'")
    "--eval-opponents: unknown opponent 'x'"
    >>> flag_names("computed by the compiled vector env: train it with --env vector")  # a word, not a subject
    'computed by the compiled vector env: train it with --env vector'
    """
    from dataclasses import fields

    names = sorted((f.name for f in fields(TrainArgs)), key=len, reverse=True)
    alternatives = "|".join(map(re.escape, names))
    subject = re.compile(r"(?<![\w.-])(" + alternatives + r")(?=:? (must|applies|needs)\b)")
    heading = re.compile(r"^(" + alternatives + r")(?=: )")  # "eval_opponents: ...", only where the message starts
    flag = lambda m: "--" + m.group(1).replace("_", "-")  # noqa: E731
    return heading.sub(flag, subject.sub(flag, message))


def _check_out(out: str) -> None:
    """Refuse an ``--out`` that cannot be a run folder, before anything runs: a file, a path through a
    file, or a place that cannot be written (a clear error, not a traceback from ``mkdir``)."""
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise CommandError(f"--out {out!r} is a file, not a folder: give a new folder (or a run's folder to --resume)")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise CommandError(f"--out {out!r}: a part of that path is a file, not a folder") from None
    except OSError as err:
        raise CommandError(f"--out {out!r}: cannot make that folder ({err.strerror or err})") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise CommandError(f"--out {out!r}: no permission to write in that folder")


def cmd_plot(args: argparse.Namespace) -> int:
    try:
        from agents.plot import plot_health, plot_run
    except ImportError as err:
        raise CommandError(str(err)) from None
    try:
        path = plot_run(args.run_dir, args.output, note=_plot_note)
        health = plot_health(args.run_dir, None if args.output is None else _health_path(args.output), note=_plot_note)
    except (FileNotFoundError, ValueError, ImportError) as err:
        raise CommandError(str(err)) from None
    print(path)
    print(health)
    return 0


def _plot_note(message: str) -> None:
    """What ``big2 plot`` says about a plot as it draws it (a run of few points), on stderr."""
    print(f"big2 plot: {message}", file=sys.stderr)


def _health_path(curves: str | os.PathLike[str]) -> Path:
    """Where the health plot goes beside a learning-curves ``--output``: ``NAME_health.png``."""
    path = Path(curves)
    return path.with_name(f"{path.stem}_health{path.suffix or '.png'}")
