"""One resolver for every way to name an agent: heuristics, the search, SB3 models and plugins' specs.

:func:`load_agent` turns a spec into a :class:`~big2_env.players.base.Policy`. It is what
``big2 eval --agent/--opponent``, ``big2 play --opponent`` and
:func:`big2_env.evaluation.evaluate` (for string arguments) use, so the Python API and
the command line accept the same agents:

* ``"random"``, ``"greedy"``, ``"smart"``, ``"search"``: the policies of :data:`big2_env.players.POLICIES`;
  ``"search:64"`` or ``"search:0.25s"`` set the search's budget (rollouts or seconds per decision);
* ``"ismcts"``, ``"ismcts:640"`` or ``"ismcts:0.25s"``: information-set MCTS
  (:class:`~big2_env.players.ismcts.ISMCTSPolicy`; iterations or seconds per decision);
* ``"fast"``, ``"fast-sample"``: the fast learned move model (:class:`~big2_env.players.fast.FastPolicy`)
  with its shipped weights (paper or Charlesworth rules), its best move or a sampled one;
  ``"fast:PATH.json"`` with the weights in that file;
* the specs of installed plugins (:mod:`big2_env.plugins`, entry-point group
  ``big2_env.agent_specs``). The ``agents`` package adds ``"pretrained"`` (the shipped PPO
  agent), ``"pretrained-paper"`` (the network trained with the paper's exact settings),
  ``"pretrained-charlesworth"`` (the network trained under Charlesworth's rules),
  ``PATH.pt`` (a policy file or training checkpoint written by ``big2 train``, read with
  ``torch.load(weights_only=True)``) and a ``big2 train --out`` run folder (its ``model.pt``);
  they need torch (the ``[agents]`` extra);
* ``"charlesworth:PATH"``: Charlesworth's published network, from his parameter file at ``PATH``
  (``modelParameters136500``, which you download from his repository; read without unpickling),
  under the ``charlesworth`` rules (:mod:`big2_env.players.charlesworth`);
  ``"charlesworth-greedy:PATH"`` takes its most likely action instead of sampling as he does;
* ``PATH.zip``: a saved sb3-contrib ``MaskablePPO`` model, wrapped in
  :class:`~big2_env.players.sb3.SB3Policy` and loaded without unpickling anything unless
  ``trust=True`` (see :mod:`big2_env.players.sb3`).

torch, ``agents`` and Stable-Baselines3 are imported only when a spec needs them, so
``import big2_env`` (and the heuristics) work without them; a missing one raises
:class:`~big2_env.errors.MissingDependencyError` naming the ``pip`` command to run.

Example:
    >>> from big2_env.evaluation.loading import LoadError, load_agent
    >>> load_agent("smart").name
    'smart'
    >>> try:
    ...     load_agent("wizard")
    ... except LoadError as err:
    ...     print(err)  # doctest: +NORMALIZE_WHITESPACE
    agent must be one of greedy, random, search, smart, pretrained, pretrained-paper, pretrained-charlesworth,
    pretrained-default-recipe, a trained model file (.pt), a run folder, search-net[:NETWORK][@BUDGET],
    charlesworth:PATH (Charlesworth's
    network, his parameter file), ismcts (information-set MCTS), fast (the fast learned move model;
    fast:PATH.json) or a MaskablePPO model file (.zip) (search:N or search:0.25s give the search N
    rollouts or 0.25 s per decision; ismcts:N or ismcts:0.25s the same for ISMCTS); got 'wizard'

With torch (``pip install -e '.[agents]'``) and sb3-contrib (``pip install -e '.[sb3]'``)::

    load_agent("pretrained", seed=0)           # the shipped PPO agent
    load_agent("runs/ppo")                     # runs/ppo/model.pt
    load_agent("runs/ppo/checkpoint.pt")
    load_agent("big2_maskable_ppo.zip")        # safe: no pickle is ever loaded
    load_agent("my_own_model.zip", trust=True) # SB3's normal loader (only for files you wrote)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..engine.rules import Rules
from ..errors import LoadError, MissingDependencyError, UntrustedModelError
from ..players.base import Policy
from ..players.registry import POLICIES, make_policy
from ..players.sb3 import SB3Policy, load_sb3_model
from ..plugins import agent_spec_plugins

__all__ = [
    "LoadError",
    "MissingDependencyError",
    "UntrustedModelError",
    "agent_choices",
    "display_name",
    "load_agent",
    "resolve_policy",
]


def agent_choices() -> str:
    """The forms an agent spec may take, for help and error texts (the plugins' forms included)."""
    forms = ", ".join([", ".join(sorted(POLICIES))] + [plugin.describe for plugin in agent_spec_plugins()])
    return (
        f"{forms}, charlesworth:PATH (Charlesworth's network, his parameter file), ismcts (information-set MCTS), "
        "fast (the fast learned move model; fast:PATH.json) or a MaskablePPO model file (.zip) (search:N or "
        "search:0.25s give the search N rollouts or 0.25 s per decision; ismcts:N or ismcts:0.25s the same for ISMCTS)"
    )


def load_agent(
    spec: str | os.PathLike[str],
    rules: Rules | str | Mapping[str, Any] | None = None,
    trust: bool = False,
    what: str = "agent",
    seed: int | None = None,
) -> Policy:
    """The policy named by ``spec`` (see the module docstring for the forms).

    Args:
        spec: a heuristic name, ``"search:N"``, a plugin's spec (``"pretrained"``, a ``.pt`` file, a run
            folder...) or a ``.zip`` SB3 model.
        rules: the rule set the policy plays under (a :class:`Rules`, preset name or dict; default rules).
        trust: allow an SB3 ``.zip`` to be unpickled by Stable-Baselines3's own loader, which can
            run code from the file. Only for files you wrote.
        what: how error messages name the spec (``"agent"``, ``"--opponent"``...).
        seed: passed to the policy (heuristics' and networks' sampling RNG); ``None`` leaves it unseeded.

    Raises:
        LoadError: unknown name, missing or unreadable file, a plugin's refusal (a folder without ``model.pt``...).
        UntrustedModelError: an SB3 file that cannot be loaded without unpickling and ``trust`` is false.
        MissingDependencyError: torch (the ``[agents]`` extra) or sb3-contrib is needed but not installed.
    """
    rules = Rules.coerce(rules)
    if not isinstance(spec, (str, os.PathLike)):
        raise LoadError(f"{what} must be a policy name or a path; got {spec!r}")
    text = os.fspath(spec)
    if isinstance(spec, str) and text in POLICIES:
        return make_policy(text, seed=seed, rules=rules)
    name, colon, budget = text.partition(":")
    if isinstance(spec, str) and ((name == "search" and colon) or name == "ismcts"):  # a search with its budget
        try:
            kwargs: dict[str, Any] = {"budget": int(budget) if budget.isdigit() else budget} if colon else {}
            if name == "search":
                return make_policy("search", seed=seed, rules=rules, **kwargs)
            from ..players.ismcts import ISMCTSPolicy  # not in POLICIES: far slower than the search (Python rollouts)

            return ISMCTSPolicy(rules=rules, seed=seed, **kwargs)
        except ValueError as err:
            raise LoadError(f"{what} {text!r}: {err}") from None
    if isinstance(spec, str) and name in ("fast", "fast-sample"):  # the fast learned model, shipped or a file
        from ..players.fast import FastPolicy  # not in POLICIES: its weights ship only for two rule presets

        try:
            return FastPolicy(budget or None, rules=rules, sample=name == "fast-sample", seed=seed)
        except (OSError, ValueError) as err:
            raise LoadError(f"{what} {text!r}: {err}") from None
    if isinstance(spec, str) and text.startswith(("charlesworth:", "charlesworth-greedy:")):
        from ..players.charlesworth import CharlesworthPolicy

        kind, file = text.split(":", 1)
        if not file:
            raise LoadError(f"{what} {text!r}: give the path of his parameter file, charlesworth:PATH")
        if not Path(file).is_file():  # the file first: a missing file is the first thing to mend
            raise LoadError(f"{what} {text!r}: cannot read his parameter file {file!r}: no such file "
                            "(download it from his repository)")
        if rules != Rules.preset("charlesworth"):
            raise LoadError(f"{what} {text!r}: Charlesworth's network plays under the 'charlesworth' rules; "
                            f"give rules='charlesworth' (--rules charlesworth)")
        return CharlesworthPolicy(file, greedy=kind == "charlesworth-greedy", seed=seed)
    for plugin in agent_spec_plugins():
        policy = plugin.load(spec, rules=rules, what=what, seed=seed)
        if policy is not None:
            return policy
    path = Path(text)
    if path.suffix == ".zip":
        if not path.is_file():
            raise LoadError(f"{what}: no such model file {text!r}")
        policy = SB3Policy(load_sb3_model(path, trust=trust, what=what), name=f"sb3({display_name(path)})")
        policy.seed(seed)
        return policy
    if path.is_file():
        raise LoadError(f"{what}: {text!r} is a file but not a model; expected {agent_choices()}")
    if os.sep in text or "/" in text or path.exists():
        raise LoadError(f"{what}: no such model file or run folder {text!r} (expected a .pt or .zip file or a folder)")
    raise LoadError(f"{what} must be one of {agent_choices()}; got {text!r}")


def display_name(path: Path) -> str:
    """A short name for tables: the file's stem, with its folder for the generic ``model``/``checkpoint`` names."""
    stem = path.stem
    if stem in ("model", "checkpoint"):
        parent = path.resolve().parent.name
        if parent:
            return f"{parent}/{stem}"
    return stem


def resolve_policy(policy: Any, what: str, rules: Rules, trust: bool = False) -> Policy:
    """A policy object from a spec or an object with ``act``.

    A string or path goes to :func:`load_agent`: a heuristic name in
    :data:`big2_env.players.POLICIES`, ``"pretrained"``, a ``.pt`` model file, a run folder
    or a MaskablePPO ``.zip`` (``trust``: see :func:`load_agent`).

    Raises ``ValueError`` (:class:`~big2_env.errors.LoadError`) for a spec that names no
    loadable agent and ``TypeError`` for anything else.
    """
    if isinstance(policy, (str, os.PathLike)):
        return load_agent(policy, rules, trust=trust, what=what)
    if callable(getattr(policy, "act", None)):
        return policy
    raise TypeError(f"{what} must be a policy name, a model path or an object with an act(obs) method; got {policy!r}")
