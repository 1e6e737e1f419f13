"""Use a Stable-Baselines3 / sb3-contrib model as a :class:`big2_env.players.Policy`.

The model must have been trained on the single-agent env with ``candidate_view=False``:
a ``Dict`` observation (keys ``"observation"`` and ``"action_mask"``) or, with
``mask_in_observation=False``, the ``Box`` of numbers alone (``MaskablePPO("MlpPolicy", env)``),
of the paper's 277 numbers or the extended 315 (the adapter asks for the view the model
was trained on, from its ``observation_space``). Nothing here imports
Stable-Baselines3: any object with SB3's ``predict`` signature works.

Example (needs ``pip install sb3-contrib``)::

    from big2_env.evaluation import evaluate
    from big2_env.players.sb3 import SB3Policy

    policy = SB3Policy.from_file("big2_maskable_ppo.zip")  # never unpickles code from the file
    print(evaluate(policy, "greedy", n_games=1000, seed=0))
    print(evaluate("big2_maskable_ppo.zip", "smart", n_games=1000, seed=0))  # the same, by path

Loading a file: ``MaskablePPO.load(path)`` unpickles parts of the file and so runs any
code a crafted file holds; :meth:`SB3Policy.from_file` (and
:func:`big2_env.evaluation.loading.load_agent`) load a ``MaskablePPO`` save without unpickling
anything unless ``trust=True`` (see :mod:`big2_env.evaluation.loading`).
"""

from __future__ import annotations

import io
import json
import os
import re
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import LoadError, MissingDependencyError, UntrustedModelError
from ..observations.extended import EXTENDED_SIZE
from ..observations.paper import NUM_ACTIONS, OBS_SIZE
from ..observations.spaces import observation_space
from .base import Observation, Policy

__all__ = ["SB3Policy", "load_sb3_model", "safe_sb3_objects"]

SB3_HINT = "pip install -e '.[sb3]' (torch, stable-baselines3 and sb3-contrib)"
TRUST_HINT = "pass --trust-model (trust=True in Python) only if you wrote this file or fully trust its source"

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

_KEYS = ("observation", "action_mask")


class SB3Policy(Policy):
    """Adapter: ``act(obs)`` calls ``model.predict`` with the legal-action mask.

    Args:
        model: a trained SB3 model (``MaskablePPO`` uses the mask; other algorithms get it too
            but may ignore it: an illegal choice raises ``ValueError``).
        deterministic: take the most likely action (default) or sample.
        name: display name (e.g. in evaluation tables); ``"sb3"`` by default.
    """

    name = "sb3"

    def __init__(self, model: Any, deterministic: bool = True, name: str | None = None) -> None:
        if not hasattr(model, "predict"):
            raise TypeError(f"model must have a predict() method like Stable-Baselines3 models; got {type(model).__name__}")
        self.model = model
        space = getattr(model, "observation_space", None)
        self._box = space is not None and not hasattr(space, "spaces")  # the numbers alone, no mask
        numbers = space if self._box else (getattr(space, "spaces", None) or {}).get("observation")
        if getattr(numbers, "shape", None) == (EXTENDED_SIZE,):
            self.observation_kind = "extended"
        self._keys = _KEYS + (("history",) if not self._box and "history" in (getattr(space, "spaces", None) or {}) else ())
        self.deterministic = deterministic
        if name is not None:
            self.name = name

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], trust: bool = False, **kwargs: Any) -> SB3Policy:
        """Load a saved sb3-contrib ``MaskablePPO`` model (``.zip``) safely.

        Without ``trust`` nothing in the file is unpickled (see
        :func:`big2_env.evaluation.loading.load_sb3_model`; a file that would need it raises
        :class:`big2_env.evaluation.loading.UntrustedModelError`); ``trust=True`` uses
        ``MaskablePPO.load``, which can run code from the file: only for files you wrote.
        ``kwargs`` go to the constructor.
        """
        return cls(load_sb3_model(path, trust=trust, what="model"), **kwargs)

    def act(self, obs: Observation) -> int:
        return self.act_batch([obs])[0]

    def act_batch(self, observations: Sequence[Observation]) -> list[int]:
        batch = {k: np.stack([np.asarray(o[k]) for o in observations]) for k in self._keys}
        masks = batch["action_mask"].astype(bool)
        model_input = batch["observation"] if self._box else batch
        actions, _ = self.model.predict(model_input, action_masks=masks, deterministic=self.deterministic) if _takes_masks(
            self.model
        ) else self.model.predict(model_input, deterministic=self.deterministic)
        result = [int(action) for action in np.asarray(actions).reshape(-1).tolist()]
        for action, mask in zip(result, masks):
            if not mask[action]:
                raise ValueError(f"the model chose illegal action {action}; legal actions: {np.flatnonzero(mask).tolist()}")
        return result

    def seed(self, seed: int | None = None) -> None:
        """Seed the model's sampling (SB3 seeds the global numpy/torch streams; skipped when deterministic)."""
        if seed is not None and not self.deterministic and hasattr(self.model, "set_random_seed"):
            self.model.set_random_seed(seed % 2**32)

    def __repr__(self) -> str:
        return f"SB3Policy({type(self.model).__name__}, deterministic={self.deterministic})"


def _takes_masks(model: Any) -> bool:
    import inspect

    try:
        return "action_masks" in inspect.signature(model.predict).parameters
    except (TypeError, ValueError):
        return False


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
            history = "'history'" in str(item.get("spaces", ""))
            return observation_space(candidate_view=False, observation=kind, history=history)
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
