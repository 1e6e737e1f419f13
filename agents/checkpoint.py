"""Saving and loading trained agents: atomic writes, format checks, clear refusals.

Two kinds of file, both written by :func:`torch.save` and read with
``torch.load(weights_only=True)`` (plain containers and tensors only, never
arbitrary pickled objects):

* a **training checkpoint** (``DIR/checkpoint.pt``, :data:`CHECKPOINT_KIND`):
  everything :func:`agents.train.train` needs to continue exactly (model,
  optimiser, learning-rate schedule position, the random states of Python, numpy
  and torch, the game-seed stream, the batch counter, the snapshot pool, the run's
  arguments);
* a **policy file** (``DIR/model.pt``, :data:`POLICY_KIND`): the network's config
  and weights only (under 1 MB for the default config): what ``big2 eval --agent``,
  ``big2 play --opponent`` and :mod:`agents.pretrained` load.

Every file carries ``kind``, ``format_version`` (:data:`FORMAT_VERSION`) and the
:class:`~agents.network.NetworkConfig` as a dict. Loading refuses, with a
:class:`CheckpointError` that says what is wrong and what to do, a file that is
missing, unreadable or truncated, of another kind or format version, or (when the
caller states the config it expects, as ``--resume`` does) made with another
model config.

Writes are atomic: the file is written to a temporary file in the same folder,
flushed and fsynced, then moved over the target with :func:`os.replace`, so a
crash leaves either the old file or the new one, never half a file.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from pathlib import Path
from typing import Any, Mapping

import torch

from .config import NetworkConfig
from .network import Big2Net, parameter_count

FORMAT_VERSION = 1
CHECKPOINT_KIND = "big2-agents/checkpoint"
POLICY_KIND = "big2-agents/policy"
KINDS = (CHECKPOINT_KIND, POLICY_KIND)


class CheckpointError(ValueError):
    """A file that cannot be used as asked (missing, corrupt, other format or config)."""


def atomic_save(obj: Any, path: str | os.PathLike) -> Path:
    """``torch.save(obj)`` to ``path`` atomically (temporary file in the same folder, then ``os.replace``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            torch.save(obj, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def read_file(path: str | os.PathLike, kinds: tuple[str, ...] = KINDS) -> dict[str, Any]:
    """Read and validate a checkpoint or policy file; returns its dict.

    Raises :class:`CheckpointError` for a missing, corrupt or foreign file, another
    kind than ``kinds`` or another format version.
    """
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"no such file: {str(path)!r}")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # truncated, corrupt, or a pickle with foreign objects
        raise CheckpointError(_unreadable(path, err)) from None
    if not isinstance(data, dict) or data.get("kind") not in KINDS:
        raise CheckpointError(
            f"{str(path)!r} is not a big2 agents checkpoint (no 'kind' of {', '.join(KINDS)}); "
            "big2 agents are saved by `big2 train` (DIR/checkpoint.pt, DIR/model.pt)"
        )
    version = data.get("format_version")
    if version != FORMAT_VERSION:
        raise CheckpointError(
            f"{str(path)!r} has checkpoint format version {version!r}; this big2-env reads version "
            f"{FORMAT_VERSION}. Load it with the big2-env release that wrote it, or train a new agent"
        )
    if data["kind"] not in kinds:
        raise CheckpointError(f"{str(path)!r} is a {data['kind']!r} file; expected {' or '.join(kinds)}")
    _check_layout(data, path)
    try:
        parameter_count(NetworkConfig.from_dict(data["model_config"]))  # refuses a huge model before allocating it
    except (KeyError, TypeError, ValueError) as err:
        raise CheckpointError(f"{str(path)!r} has an unusable model config: {err}") from None
    return data


def _unreadable(path: Path, err: Exception) -> str:
    """Why ``path`` could not be read, without torch's own advice: a weights-only refusal ends in
    advice to unpickle the file, which big2 never does with a file it did not write."""
    detail = str(err).splitlines()[0] if str(err) else ""
    if isinstance(err, pickle.UnpicklingError) or "weights_only" in detail or "trust" in detail:
        detail = ("it is corrupt, or holds pickled Python objects beside tensors and plain containers "
                  "(big2 never unpickles those: they can run code)")
    else:
        detail = f"it is corrupt or truncated ({type(err).__name__}: {detail})"
    return (f"{str(path)!r} is not a big2 agents checkpoint: {detail}. big2 agents are .pt files written by "
            "`big2 train` (DIR/model.pt, DIR/checkpoint.pt) or shipped with the package (pretrained)")


_NUMBER = (int, float)
_LAYOUT: dict[str, dict[str, Any]] = {
    POLICY_KIND: {"model_config": dict, "model_state": dict},
    CHECKPOINT_KIND: {
        "model_config": dict, "model_state": dict, "optimizer_state": dict, "args": dict, "batch": int, "games": int,
        "decisions": int, "elapsed_s": _NUMBER, "lr": _NUMBER, "rng": dict, "curriculum": dict,
    },
}
"""The entries each kind of file must hold, with their types."""
_RNG_ENTRIES = ("python", "numpy_global", "torch", "games", "actions", "shuffle")


def _check_layout(data: Mapping[str, Any], path: Path) -> None:
    """Refuse (``CheckpointError``) a file missing an entry its kind needs, or holding one of the wrong type."""
    problems = []
    for key, kind in _LAYOUT[data["kind"]].items():
        if key not in data:
            problems.append(f"no {key!r}")
        elif isinstance(data[key], bool) or not isinstance(data[key], kind):
            problems.append(f"{key!r} is a {type(data[key]).__name__}")
    state = data.get("model_state")
    if isinstance(state, dict) and not all(isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()):
        problems.append("'model_state' is not a mapping of names to tensors")
    if data["kind"] == CHECKPOINT_KIND and isinstance(data.get("rng"), dict):
        problems += [f"no 'rng' entry {key!r}" for key in _RNG_ENTRIES if key not in data["rng"]]
    if problems:
        raise CheckpointError(
            f"{str(path)!r} is not a complete {data['kind']!r} file ({'; '.join(problems)}): it was not written by "
            "`big2 train`, or was edited or damaged"
        )


def config_of(data: Mapping[str, Any]) -> NetworkConfig:
    return NetworkConfig.from_dict(data["model_config"])


def algo_of(data: Mapping[str, Any]) -> str:
    """The training algorithm of a file's network (``"ppo"`` for files that do not say)."""
    info = data.get("info") or {}
    args = data.get("args") or {}
    return str(info.get("algo") or args.get("algo") or "ppo")


def rules_of(data: Mapping[str, Any]) -> str | None:
    """The rules preset a file's network was trained under: a model file's ``info["rules"]``, a
    checkpoint's ``args["rules"]``; ``None`` for files that do not say."""
    info = data.get("info") or {}
    args = data.get("args") or {}
    rules = info.get("rules") or args.get("rules")
    return str(rules) if rules else None


def config_differences(found: NetworkConfig, expected: NetworkConfig) -> list[tuple[str, Any, Any]]:
    """``(field, found, expected)`` for each field where two model configs differ."""
    return [(name, value, getattr(expected, name)) for name, value in found.to_dict().items()
            if getattr(expected, name) != value]


def check_config(data: Mapping[str, Any], expected: NetworkConfig, path: str | os.PathLike) -> None:
    """Refuse (``CheckpointError``) a file whose model config is not ``expected``, naming the differences."""
    found = config_of(data)
    if found != expected:
        diffs = [f"{name}: checkpoint {value!r}, this run {wanted!r}"
                 for name, value, wanted in config_differences(found, expected)]
        raise CheckpointError(
            f"{str(path)!r} was made with another model config ({'; '.join(diffs)}); "
            "resume with the same model config, or start a new run in another --out folder"
        )


MODEL_INFO = ("algo", "curriculum", "entropy", "seed", "rules")
"""The run's arguments a policy file's ``info`` states (beside its ``batch`` and ``games``)."""
MODEL_INFO_IF_SET = ("init", "random_opponent_prob")
"""Arguments a policy file's ``info`` states only where the run set them: the file it started from
and games against Random players."""


def policy_info(state: Mapping[str, Any]) -> dict[str, Any]:
    """A policy file's ``info`` from a training checkpoint's dict: its :data:`MODEL_INFO` arguments,
    ``batch`` and ``games``, and those of :data:`MODEL_INFO_IF_SET` that the run set."""
    args = state["args"]
    return {"algo": args["algo"], "batch": state["batch"], "games": state["games"],
            **{key: args[key] for key in MODEL_INFO if key != "algo"},
            **{key: args[key] for key in MODEL_INFO_IF_SET if args.get(key)}}


def policy_payload(model: Big2Net, info: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The dict of a policy file: kind, version, config, weights (cloned) and free-form ``info``."""
    return weights_payload(model.config.to_dict(), {k: v.detach().clone() for k, v in model.state_dict().items()}, info)


def weights_payload(
    config: Mapping[str, Any], weights: Mapping[str, torch.Tensor], info: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The dict of a policy file from a config dict and a state dict (used as given, not copied)."""
    return {
        "kind": POLICY_KIND,
        "format_version": FORMAT_VERSION,
        "model_config": dict(config),
        "model_state": dict(weights),
        "info": dict(info or {}),
    }


def save_policy(path: str | os.PathLike, model: Big2Net, info: Mapping[str, Any] | None = None) -> Path:
    """Write a policy file (config + weights) atomically."""
    return atomic_save(policy_payload(model, info), path)


def remove_stale_temporaries(folder: str | os.PathLike) -> list[Path]:
    """Delete the temporary files that an interrupted :func:`atomic_save` (or log rewrite) left in
    ``folder`` (``.NAME.*.tmp``); returns what was removed. Only call it when no other process
    is writing there."""
    removed = []
    for path in Path(folder).glob(".*.tmp"):
        if path.is_file():
            path.unlink()
            removed.append(path)
    return removed


def load_model(path: str | os.PathLike, expected: NetworkConfig | None = None) -> tuple[Big2Net, dict[str, Any]]:
    """The network stored in a policy file or a training checkpoint, in eval mode, and the file's dict.

    ``expected``: refuse a file made with another config (see :func:`check_config`).
    """
    data = read_file(path)
    if expected is not None:
        check_config(data, expected, path)
    model = Big2Net(config_of(data))
    try:
        model.load_state_dict(data["model_state"])
    except (KeyError, RuntimeError, TypeError) as err:
        raise CheckpointError(f"{str(path)!r}: the weights do not fit its model config: {err}") from None
    model.eval()
    return model, data
