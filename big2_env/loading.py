"""One resolver for every way to name an agent: heuristics, the pretrained network, trained files, SB3 models.

:func:`load_agent` turns a spec into a :class:`big2_env.policies.Policy`. It is what
``big2 eval --agent/--opponent``, ``big2 play --opponent`` and
:func:`big2_env.evaluation.evaluate` (for string arguments) use, so the Python API and
the command line accept the same agents:

* ``"random"``, ``"greedy"``, ``"smart"``, ``"search"``: the policies of :data:`big2_env.policies.POLICIES`;
  ``"search:64"`` or ``"search:0.25s"`` set the search's budget (rollouts or seconds per decision);
* ``"pretrained"``: the shipped PPO agent (:func:`agents.pretrained.load_pretrained`, needs torch);
  ``"pretrained-paper"``: the network trained with the paper's exact settings, kept for the reproduction;
* ``PATH.pt``: a policy file or training checkpoint written by ``big2 train``
  (:meth:`agents.policy.NetworkPolicy.from_file`, read with ``torch.load(weights_only=True)``);
* a folder: a ``big2 train --out`` run folder, whose ``model.pt`` is loaded;
* ``PATH.zip``: a saved sb3-contrib ``MaskablePPO`` model, wrapped in
  :class:`big2_env.sb3_adapter.SB3Policy` (see "Untrusted SB3 files" below).

torch, ``agents`` and Stable-Baselines3 are imported only when a spec needs them, so
``import big2_env`` (and the heuristics) work without them; a missing one raises
:class:`MissingDependencyError` naming the ``pip`` command to run.

Untrusted SB3 files: Stable-Baselines3's own loader (``MaskablePPO.load``) unpickles
every entry of the zip's ``data`` JSON that carries a ``":serialized:"`` key, and a
crafted file can run any code that way. :func:`load_sb3_model` never does so unless
asked with ``trust=True``: it reads the zip itself, and hands SB3 a safe substitute
for every pickled entry (SB3 then never touches the pickle): the policy class from a
whitelist of sb3-contrib maskable policies (chosen from the entry's readable metadata),
this package's own observation and action spaces (``Big2-v0`` with
``candidate_view=False``), constant schedules, ``None`` for the rollout buffer class and
for the training-only state (last observation, episode buffers), and ``policy_kwargs``
rebuilt from a whitelist of activation functions, optimisers, feature extractors and
plain values. Any other pickled entry is refused with an :class:`UntrustedModelError`
that names it. The weights (``*.pth``) are always read with ``torch.load(weights_only=True)``.
Pass ``trust=True`` (``--trust-model`` on the command line) only for files you wrote.

Example:
    >>> from big2_env.loading import LoadError, load_agent
    >>> load_agent("smart").name
    'smart'
    >>> try:
    ...     load_agent("wizard")
    ... except LoadError as err:
    ...     print(err)  # doctest: +NORMALIZE_WHITESPACE
    agent must be one of greedy, random, search, smart, pretrained, pretrained-paper, a trained model file (.pt),
    a run folder or a MaskablePPO model file (.zip) (search:N or search:0.25s give the search N rollouts or 0.25 s
    per decision); got 'wizard'

With torch (``pip install -e '.[agents]'``) and sb3-contrib (``pip install -e '.[sb3]'``)::

    load_agent("pretrained", seed=0)           # the shipped PPO agent
    load_agent("runs/ppo")                     # runs/ppo/model.pt
    load_agent("runs/ppo/checkpoint.pt")
    load_agent("big2_maskable_ppo.zip")        # safe: no pickle is ever loaded
    load_agent("my_own_model.zip", trust=True) # SB3's normal loader (only for files you wrote)
"""

from __future__ import annotations

import io
import json
import os
import re
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .policies import POLICIES, Policy, make_policy
from .rules import Rules

__all__ = [
    "LoadError",
    "MissingDependencyError",
    "UntrustedModelError",
    "agent_choices",
    "load_agent",
    "load_sb3_model",
    "safe_sb3_objects",
]

TORCH_HINT = "pip install torch==2.13.0, then pip install -e '.[agents]'"
SB3_HINT = "pip install -e '.[sb3]' (torch, stable-baselines3 and sb3-contrib)"
TRUST_HINT = "pass --trust-model (trust=True in Python) only if you wrote this file or fully trust its source"

RUN_MODEL_FILE = "model.pt"

# The sb3-contrib policy classes a MaskablePPO file may name without trust.
MASKABLE_POLICY_MODULE = "sb3_contrib.common.maskable.policies"
MASKABLE_POLICIES = ("MaskableActorCriticPolicy", "MaskableActorCriticCnnPolicy", "MaskableMultiInputActorCriticPolicy")

# Pickled top-level entries replaced by a fixed substitute (training-only state or things this package rebuilds).
_CLEARED = ("rollout_buffer_class", "_last_obs", "_last_episode_starts", "_last_original_obs", "ep_info_buffer",
            "ep_success_buffer", "env")
_SCHEDULE_DEFAULTS = {"learning_rate": 3e-4, "lr_schedule": 3e-4, "clip_range": 0.2, "clip_range_vf": None}

# policy_kwargs without trust: classes by the repr SB3 stores next to the pickle, and plain JSON values.
_ACTIVATIONS = ("ReLU", "Tanh", "ELU", "LeakyReLU", "GELU", "SiLU", "Sigmoid", "Mish", "SELU", "Softplus", "Hardtanh",
                "Identity")
_CLASS_KWARGS = {
    "activation_fn": {f"torch.nn.modules.activation.{n}": ("torch.nn", n) for n in _ACTIVATIONS if n != "Identity"}
    | {"torch.nn.modules.linear.Identity": ("torch.nn", "Identity")},
    "optimizer_class": {f"torch.optim.{m}.{n}": ("torch.optim", n)
                        for m, n in (("adam", "Adam"), ("adamw", "AdamW"), ("rmsprop", "RMSprop"), ("sgd", "SGD"))},
    "features_extractor_class": {f"stable_baselines3.common.torch_layers.{n}": ("stable_baselines3.common.torch_layers", n)
                                 for n in ("CombinedExtractor", "FlattenExtractor")},
}
_PLAIN_KWARGS = ("net_arch", "ortho_init", "log_std_init", "share_features_extractor", "normalize_images",
                 "optimizer_kwargs", "features_extractor_kwargs")


class LoadError(ValueError):
    """A spec that names no loadable agent: unknown name, missing or unreadable file, refused model."""


class UntrustedModelError(LoadError):
    """Loading would unpickle (run code from) the file; refused because ``trust`` was not given."""


class MissingDependencyError(LoadError, ImportError):
    """The spec needs an optional dependency (torch, sb3-contrib) that is not installed."""


def agent_choices() -> str:
    """The forms an agent spec may take, for help and error texts."""
    heuristics = ", ".join(sorted(POLICIES))
    return (
        f"{heuristics}, pretrained, pretrained-paper, a trained model file (.pt), a run folder or a MaskablePPO model "
        "file (.zip) "
        "(search:N or search:0.25s give the search N rollouts or 0.25 s per decision)"
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
        spec: a heuristic name, ``"pretrained"``, ``"pretrained-paper"``, a ``.pt`` file, a run folder or a ``.zip`` SB3 model.
        rules: the rule set the policy plays under (a :class:`Rules`, preset name or dict; default rules).
        trust: allow an SB3 ``.zip`` to be unpickled by Stable-Baselines3's own loader, which can
            run code from the file. Only for files you wrote.
        what: how error messages name the spec (``"agent"``, ``"--opponent"``...).
        seed: passed to the policy (heuristics' and networks' sampling RNG); ``None`` leaves it unseeded.

    Raises:
        LoadError: unknown name, missing or unreadable file, a folder without ``model.pt``.
        UntrustedModelError: an SB3 file that cannot be loaded without unpickling and ``trust`` is false.
        MissingDependencyError: torch or sb3-contrib is needed but not installed.
    """
    rules = Rules.coerce(rules)
    if not isinstance(spec, (str, os.PathLike)):
        raise LoadError(f"{what} must be a policy name or a path; got {spec!r}")
    text = os.fspath(spec)
    if isinstance(spec, str) and text in POLICIES:
        return make_policy(text, seed=seed, rules=rules)
    if isinstance(spec, str) and text.startswith("search:"):
        budget = text.split(":", 1)[1]
        try:
            return make_policy("search", seed=seed, rules=rules, budget=int(budget) if budget.isdigit() else budget)
        except ValueError as err:
            raise LoadError(f"{what} {text!r}: {err}") from None
    if isinstance(spec, str) and text in PRETRAINED_SPECS:
        return _load_pretrained(rules, what, seed, text)
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
        return _load_network(path, rules, what, seed, name=_display_name(path))
    if path.suffix == ".zip":
        if not path.is_file():
            raise LoadError(f"{what}: no such model file {text!r}")
        from .sb3_adapter import SB3Policy

        policy = SB3Policy(load_sb3_model(path, trust=trust, what=what), name=f"sb3({_display_name(path)})")
        policy.seed(seed)
        return policy
    if os.sep in text or "/" in text or path.exists():
        raise LoadError(f"{what}: no such model file or run folder {text!r} (expected a .pt or .zip file or a folder)")
    raise LoadError(f"{what} must be one of {agent_choices()}; got {text!r}")


def _display_name(path: Path) -> str:
    """A short name for tables: the file's stem, with its folder for the generic ``model``/``checkpoint`` names."""
    stem = path.stem
    if stem in ("model", "checkpoint"):
        parent = path.resolve().parent.name
        if parent:
            return f"{parent}/{stem}"
    return stem


def _import_agents(what: str, spec: str) -> tuple[Any, Any, Any]:
    try:
        from agents.checkpoint import CheckpointError
        from agents.policy import NetworkPolicy
        from agents.pretrained import load_pretrained
    except ImportError as err:
        raise MissingDependencyError(f"{what}: {spec!r} needs torch ({TORCH_HINT}): {err}") from None
    return CheckpointError, NetworkPolicy, load_pretrained


PRETRAINED_SPECS = {"pretrained": "shipped", "pretrained-paper": "paper"}
"""The packaged networks' agent specs and their ``load_pretrained(which=...)``."""


def _load_pretrained(rules: Rules, what: str, seed: int | None, spec: str = "pretrained") -> Policy:
    checkpoint_error, _, load_pretrained = _import_agents(what, spec)
    try:
        policy = load_pretrained(seed=seed, which=PRETRAINED_SPECS[spec])
    except (FileNotFoundError, checkpoint_error) as err:
        raise LoadError(f"{what}: {err}") from None
    policy.rules = rules
    return policy


def _load_network(path: Path, rules: Rules, what: str, seed: int | None, name: str) -> Policy:
    checkpoint_error, network_policy, _ = _import_agents(what, str(path))
    try:
        policy = network_policy.from_file(str(path), rules=rules, name=name, seed=seed)
    except (FileNotFoundError, checkpoint_error) as err:
        raise LoadError(f"{what}: {err}") from None
    return policy


# ------------------------------------------------------------------ SB3 models
def load_sb3_model(path: str | os.PathLike[str], trust: bool = False, what: str = "agent", device: str = "cpu") -> Any:
    """A saved sb3-contrib ``MaskablePPO`` model, loaded without unpickling anything unless ``trust``.

    The file is read once into memory; without ``trust`` its ``data`` entry is checked and
    every pickled entry replaced by a substitute built here (:func:`safe_sb3_objects`), so
    Stable-Baselines3 never unpickles; with ``trust=True`` it is ``MaskablePPO.load(path)``.

    Raises:
        LoadError: not a readable MaskablePPO file.
        UntrustedModelError: the file needs unpickling that no substitute covers (and ``trust`` is false).
        MissingDependencyError: sb3-contrib is not installed.
    """
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:
        raise MissingDependencyError(f"{what}: loading a .zip model needs sb3-contrib ({SB3_HINT})") from None
    text = os.fspath(path)
    if trust:
        try:
            return MaskablePPO.load(text, device=device)
        except Exception as err:  # noqa: BLE001 - SB3 raises anything on a corrupt or foreign file
            raise LoadError(f"{what}: could not load {text!r} as a MaskablePPO model: {err}") from None
    try:
        raw = Path(text).read_bytes()
    except OSError as err:
        raise LoadError(f"{what}: could not read {text!r}: {err}") from None
    data = _read_sb3_data(raw, text, what)
    substitutes = safe_sb3_objects(data, what=f"{what}: {text!r}")
    try:
        return MaskablePPO.load(io.BytesIO(raw), device=device, custom_objects=substitutes)
    except Exception as err:  # noqa: BLE001 - weights that do not fit, another algorithm's file...
        raise LoadError(f"{what}: could not load {text!r} as a MaskablePPO model: {type(err).__name__}: {err}") from None


def _read_sb3_data(raw: bytes, text: str, what: str) -> dict[str, Any]:
    """The ``data`` JSON of an SB3 zip, read the way SB3 reads it (no pickle involved)."""
    problem = f"{what}: could not load {text!r} as a MaskablePPO model"
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            names = archive.namelist()
            if len(names) != len(set(names)):
                raise LoadError(f"{problem}: the zip has duplicate entries")
            if "data" not in names:
                raise LoadError(f"{problem}: the zip has no 'data' entry (not a Stable-Baselines3 save)")
            data = json.loads(archive.read("data").decode())
    except (zipfile.BadZipFile, UnicodeDecodeError, json.JSONDecodeError, OSError, EOFError) as err:
        raise LoadError(f"{problem}: not a Stable-Baselines3 zip file ({type(err).__name__}: {err})") from None
    if not isinstance(data, dict):
        raise LoadError(f"{problem}: its 'data' entry is not a JSON object")
    return data


def _is_pickled(item: Any) -> bool:
    return isinstance(item, dict) and ":serialized:" in item


def safe_sb3_objects(data: Mapping[str, Any], what: str = "model") -> dict[str, Any]:
    """``custom_objects`` for ``MaskablePPO.load`` that replace every pickled entry of ``data``.

    ``data`` is the parsed ``data`` JSON of a Stable-Baselines3 zip. Each substitute is
    built here from readable metadata, never from the pickle (see the module docstring).

    Raises:
        UntrustedModelError: an entry with no safe substitute (named in the message).
    """
    from gymnasium import spaces

    from .encoding import NUM_ACTIONS

    out: dict[str, Any] = {key: None for key in _CLEARED if key in data}
    for key, item in data.items():
        if key in out:
            continue
        if key == "policy_class":
            out[key] = _policy_class(item, what)
        elif key == "observation_space":
            out[key] = _observation_space(item, what)
        elif key == "action_space":
            _check_space(item, "Discrete", (), what, key)
            if _is_pickled(item) and str(item.get("n", NUM_ACTIONS)) != str(NUM_ACTIONS):
                raise UntrustedModelError(f"{what}: action_space has n={item.get('n')!r}, not {NUM_ACTIONS}: not a Big2-v0 model")
            out[key] = spaces.Discrete(NUM_ACTIONS)
        elif key in _SCHEDULE_DEFAULTS and _is_pickled(item):
            out[key] = _constant_schedule(item, _SCHEDULE_DEFAULTS[key])
        elif key == "policy_kwargs" and _is_pickled(item):
            out[key] = _policy_kwargs(item, what)
        elif _is_pickled(item):
            raise UntrustedModelError(
                f"{what}: its entry {key!r} ({item.get(':type:', 'unknown type')}) can only be loaded by unpickling it, "
                f"which can run arbitrary code from the file; {TRUST_HINT}"
            )
    return out


_INIT_REPR = re.compile(r"^<function (\w+)\.__init__ at 0x[0-9a-fA-F]+>$")
_CLASS_REPR = re.compile(r"^<class '([\w.]+)'>$")
_CONSTANT = re.compile(r"^ConstantSchedule\(val=([-+0-9.eE]+)\)$")


def _policy_class(item: Any, what: str) -> Any:
    refuse = f"{what}: its policy_class is not one of sb3-contrib's maskable policies ({', '.join(MASKABLE_POLICIES)})"
    if not _is_pickled(item):
        raise UntrustedModelError(f"{refuse}: the entry is not a saved class")
    match = _INIT_REPR.match(str(item.get("__init__", "")))
    name = match.group(1) if match else None
    if item.get("__module__") != MASKABLE_POLICY_MODULE or name not in MASKABLE_POLICIES:
        found = f"{item.get('__module__')}.{name}" if name else repr(item.get("__module__"))
        raise UntrustedModelError(f"{refuse}, it names {found}; loading it would unpickle code from the file; {TRUST_HINT}")
    import importlib

    return getattr(importlib.import_module(MASKABLE_POLICY_MODULE), name)


def _observation_space(item: Any, what: str) -> Any:
    """Big2-v0's observation space that a saved one describes: the ``Dict`` of ``"observation"``
    (277 or 315 numbers) and ``"action_mask"``, or the ``Box`` of numbers alone
    (``mask_in_observation=False``)."""
    from .aec_env import observation_space
    from .encoding import NUM_ACTIONS, OBS_SIZE
    from .extended import EXTENDED_SIZE

    described = str(item.get(":type:", "")) if isinstance(item, dict) else ""
    if _is_pickled(item) and described == "<class 'gymnasium.spaces.box.Box'>":
        shape, dtype = item.get("_shape"), item.get("dtype")
        if dtype == "float32" and shape in ([OBS_SIZE], [EXTENDED_SIZE]):
            kind = "paper" if shape == [OBS_SIZE] else "extended"
            return observation_space(candidate_view=False, observation=kind)["observation"]
    for size, kind in ((OBS_SIZE, "paper"), (EXTENDED_SIZE, "extended")):
        needles = ("'observation'", "'action_mask'", f"({size},)", f"({NUM_ACTIONS},)")
        if _is_pickled(item) and all(n in str(item.get("spaces", "")) for n in needles):
            _check_space(item, "Dict", needles, what, "observation_space")
            return observation_space(candidate_view=False, observation=kind)
    shown = str(item.get("spaces", item.get("_shape", ""))) if isinstance(item, dict) else ""
    raise UntrustedModelError(
        f"{what}: its observation_space ({described or 'missing'} {shown}) is not Big2-v0's (candidate_view=False: a Dict of "
        f"'observation' and 'action_mask', or the Box of {OBS_SIZE} or {EXTENDED_SIZE} numbers alone); "
        f"this loader only rebuilds those spaces. {TRUST_HINT}"
    )


def _check_space(item: Any, kind: str, needles: tuple[str, ...], what: str, key: str) -> None:
    described = str(item.get(":type:", "")) if isinstance(item, dict) else repr(item)
    shown = str(item.get("spaces", "")) if isinstance(item, dict) else ""
    if not _is_pickled(item) or "gymnasium.spaces." not in described or f".{kind}'" not in described or not all(
        n in shown for n in needles
    ) or "candidate_actions" in shown:
        raise UntrustedModelError(
            f"{what}: its {key} ({described or 'missing'} {shown}) is not Big2-v0's (candidate_view=False: a Dict of "
            f"'observation' and 'action_mask', or the Box of numbers alone); "
            f"this loader only rebuilds that space. {TRUST_HINT}"
        )


def _constant_schedule(item: Mapping[str, Any], default: float | None) -> float | None:
    """The constant of a saved ``FloatSchedule(ConstantSchedule(val=x))``, else ``default`` (only training uses it)."""
    match = _CONSTANT.match(str(item.get("value_schedule", "")))
    if match:
        try:
            return float(match.group(1))
        except ValueError:
            pass
    return default


def _policy_kwargs(item: Mapping[str, Any], what: str) -> dict[str, Any]:
    import importlib

    if ":type:" in item and item[":type:"] != "<class 'dict'>":
        raise UntrustedModelError(f"{what}: its policy_kwargs is a {item[':type:']}, not a dict; {TRUST_HINT}")
    out: dict[str, Any] = {}
    for key, value in item.items():
        if key in (":type:", ":serialized:"):
            continue
        if key in _CLASS_KWARGS:
            match = _CLASS_REPR.match(str(value))
            target = _CLASS_KWARGS[key].get(match.group(1)) if match else None
            if target is None:
                allowed = ", ".join(sorted(_CLASS_KWARGS[key]))
                raise UntrustedModelError(
                    f"{what}: policy_kwargs[{key!r}] is {value!r}, which is not on the list of classes this loader "
                    f"can rebuild without unpickling ({allowed}); {TRUST_HINT}"
                )
            out[key] = getattr(importlib.import_module(target[0]), target[1])
        elif key in _PLAIN_KWARGS and _plain_json(value):
            out[key] = value
        else:
            raise UntrustedModelError(
                f"{what}: policy_kwargs[{key!r}] ({value!r}) can only be loaded by unpickling it, which can run "
                f"arbitrary code from the file; {TRUST_HINT}"
            )
    return out


def _plain_json(value: Any) -> bool:
    """Numbers, booleans, ``None`` and lists/dicts of them (a string may be the repr of an object)."""
    if value is None or isinstance(value, (bool, int, float)):
        return True
    if isinstance(value, list):
        return all(_plain_json(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain_json(v) for k, v in value.items())
    return False
