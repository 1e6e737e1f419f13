"""How other packages extend big2_env: agent specs and ``big2`` subcommands, found through entry points.

big2_env never imports its learners. The ``agents`` package (and any third-party package)
plugs in through two entry-point groups, read at run time with :mod:`importlib.metadata`:

* ``big2_env.agent_specs``: each entry names an :class:`AgentSpecs` object. :func:`load_agent
  <big2_env.evaluation.loading.load_agent>` asks each one, in name order, after the built-in
  heuristics and before SB3 ``.zip`` files, whether it loads a spec (``"pretrained"``, a ``.pt``
  file, a run folder...). Its ``describe`` text joins the list of allowed specs in help and
  error messages.
* ``big2_env.commands``: each entry names a function ``add(subparsers)`` that adds one
  ``big2`` subcommand to the :mod:`argparse` sub-parsers and sets its ``func`` default to a
  function of the parsed namespace returning the exit status. A user error is raised as
  :class:`CommandError` (``big2 COMMAND: error: ...``, exit status 2).

A package declares them in its ``pyproject.toml``, as big2-env does for ``agents``:

.. code-block:: toml

    [project.entry-points."big2_env.agent_specs"]
    agents = "agents.plugin:AGENT_SPECS"

    [project.entry-points."big2_env.commands"]
    train = "agents.plugin:add_train_command"

An entry's module should import quickly and without optional dependencies (the ``agents``
entries import torch only when a spec or command needs it, and then raise
:class:`~big2_env.errors.MissingDependencyError` naming the extra to install).

Example:
    >>> from big2_env.plugins import COMMANDS_GROUP, entry_points
    >>> sorted(ep.name for ep in entry_points(COMMANDS_GROUP))  # with big2-env installed
    ['average', 'plot', 'train']
"""

from __future__ import annotations

import argparse

import importlib.metadata
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = [
    "AGENT_SPECS_GROUP",
    "COMMANDS_GROUP",
    "AgentSpecs",
    "CommandError",
    "agent_spec_plugins",
    "command_plugins",
    "entry_points",
    "positive_int",
    "seed_int",
]

AGENT_SPECS_GROUP = "big2_env.agent_specs"
COMMANDS_GROUP = "big2_env.commands"


class CommandError(Exception):
    """A user error in a ``big2`` subcommand, reported as ``big2 COMMAND: error: ...`` with exit status 2."""


@dataclass(frozen=True)
class AgentSpecs:
    """What a plugin adds to the agent specs (see the module docstring).

    Attributes:
        describe: the forms it accepts, for help and error texts (e.g. ``"pretrained, a trained
            model file (.pt), a run folder"``).
        load: ``load(spec, rules=..., what=..., seed=...)`` returns the :class:`~big2_env.players.base.Policy`
            the spec names, or ``None`` when the spec is not one of this plugin's forms. It raises
            :class:`~big2_env.errors.LoadError` (or a subclass) for a spec it claims but cannot load.
        names: the bare names among its forms (e.g. ``("pretrained",)``), which a caller can check
            without loading them (``big2 serve --opponents``); file and folder forms are not listed.
        check: ``check(spec)`` raises :class:`~big2_env.errors.LoadError` for a spec of its named forms
            (a name, or a name with ``:``/``@`` suffixes) that can never load, without loading it
            (``big2 serve`` checks its offered agents so before serving); ``None``: no such check.
    """

    describe: str
    load: Callable[..., Any]
    names: tuple[str, ...] = ()
    check: Callable[[str], None] | None = None


def entry_points(group: str) -> list[importlib.metadata.EntryPoint]:
    """The installed entry points of ``group``, by name (the first of equal names wins)."""
    seen: dict[str, importlib.metadata.EntryPoint] = {}
    for ep in sorted(importlib.metadata.entry_points(group=group), key=lambda e: e.name):
        seen.setdefault(ep.name, ep)
    return list(seen.values())


@lru_cache(maxsize=None)
def agent_spec_plugins() -> tuple[AgentSpecs, ...]:
    """Every installed :class:`AgentSpecs`, loaded once (in entry-point name order).

    A plugin whose module cannot be imported is left out with a warning naming it (the other
    specs keep working); one that names something other than an :class:`AgentSpecs` is an error.
    """
    plugins = []
    for ep in entry_points(AGENT_SPECS_GROUP):
        try:
            plugin = ep.load()
        except ImportError as err:
            warnings.warn(f"agent-spec plugin {ep.name!r} ({ep.value}) could not be imported and is left out: {err}",
                          RuntimeWarning, stacklevel=2)
            continue
        if not isinstance(plugin, AgentSpecs):
            raise TypeError(f"entry point {ep.name!r} of {AGENT_SPECS_GROUP} ({ep.value}) is not an AgentSpecs: {plugin!r}")
        plugins.append(plugin)
    return tuple(plugins)


def command_plugins() -> dict[str, Callable[[Any], None]]:
    """The installed ``big2`` subcommands: name -> its ``add(subparsers)`` function (imported now).

    A command whose module cannot be imported still appears; running it reports the import
    error (``big2 NAME: error: ...``) instead of breaking every other command.
    """
    out: dict[str, Callable[[Any], None]] = {}
    for ep in entry_points(COMMANDS_GROUP):
        try:
            out[ep.name] = ep.load()
        except ImportError as err:
            out[ep.name] = _unavailable(ep.name, ep.value, err)
    return out


def _unavailable(name: str, value: str, err: ImportError) -> Callable[[Any], None]:
    message = f"this command's plugin ({value}) could not be imported: {err}"

    def fail(args: Any) -> int:
        raise CommandError(message)

    def add(sub: Any) -> None:
        parser = sub.add_parser(name, help=f"(unavailable: {value} could not be imported)", add_help=False)
        parser.add_argument("rest", nargs="*")
        parser.set_defaults(func=fail)

    return add


def positive_int(text: str) -> int:
    """An :mod:`argparse` type shared by the ``big2`` subcommands: a positive integer.

    >>> positive_int("3")
    3
    """
    return _int_at_least(text, 1, "a positive integer")


def seed_int(text: str) -> int:
    """An :mod:`argparse` type shared by the ``big2`` subcommands: a seed, a non-negative integer.

    >>> seed_int("0")
    0
    """
    return _int_at_least(text, 0, "a non-negative integer")


def _int_at_least(text: str, low: int, what: str) -> int:
    """``int(text)`` if it is at least ``low``; else an :class:`argparse.ArgumentTypeError` naming ``what``."""
    try:
        value = int(text)
    except ValueError:
        value = low - 1
    if value < low:
        raise argparse.ArgumentTypeError(f"must be {what}; got {text!r}")
    return value
