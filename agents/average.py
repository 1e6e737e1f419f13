"""Weight averaging: one policy file whose weights are the mean of several policy files' weights.

Averaging the models a run saved along its way (stochastic weight averaging, Izmailov et al. 2018;
a "model soup" when the members are forks of one model) smooths out the scatter that a constant
learning rate leaves between successive snapshots. The files must hold the same network (the
same :class:`~agents.network.NetworkConfig`); policy files and training checkpoints are both read,
with ``weights_only=True`` as everywhere in :mod:`agents.checkpoint`, and the result is a policy
file (config, weights and an ``info`` that names its members), written atomically.

    big2 train --keep-models-every 1000 --out runs/ppo ...      # keeps runs/ppo/models/model_BATCH.pt
    big2 average runs/ppo/models/*.pt --out runs/swa.pt

Example:
    >>> import tempfile, torch
    >>> from agents.checkpoint import save_policy
    >>> from agents.config import NetworkConfig
    >>> from agents.network import Big2Net
    >>> folder = Path(tempfile.mkdtemp())
    >>> config = NetworkConfig(card_dim=8, hand_heads=2, hand_ff=8, field_dim=8, count_dim=8, state_dim=8, state_ff=8,
    ...                        action_hidden=8, action_dim=8, value_hidden=8)
    >>> for i in range(2):
    ...     model = Big2Net(config)
    ...     for p in model.parameters():
    ...         _ = torch.nn.init.constant_(p, float(i))  # every weight 0 in the first file, 1 in the second
    ...     _ = save_policy(folder / f"m{i}.pt", model, {"games": 1000 * (i + 1), "rules": "paper"})
    >>> data = average_files([folder / "m0.pt", folder / "m1.pt"], folder / "mean.pt")
    >>> float(next(iter(data["model_state"].values())).flatten()[0]), data["info"]["averaged_games"]
    (0.5, [1000, 2000])
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

import torch

from .checkpoint import (
    CHECKPOINT_KIND, MODEL_INFO, CheckpointError, atomic_save, config_differences, config_of, policy_info, read_file, rules_of,
    weights_payload,
)

__all__ = ["average_files", "average_weights"]


def average_weights(states: Sequence[dict[str, torch.Tensor]]) -> dict[str, torch.Tensor]:
    """The element-wise mean of state dicts with the same keys and shapes (computed in float64, stored
    in each tensor's own dtype); integer tensors (counters, if any) are taken from the first."""
    if not states:
        raise ValueError("average_weights needs at least one state dict")
    first = states[0]
    for i, state in enumerate(states[1:], 1):
        if state.keys() != first.keys():
            raise ValueError(f"state dict {i} has other entries than the first: {sorted(state.keys() ^ first.keys())}")
        for name, tensor in state.items():
            if tensor.shape != first[name].shape:
                raise ValueError(f"state dict {i}: {name!r} is {tuple(tensor.shape)}, the first's {tuple(first[name].shape)}")
    out = {}
    for name, tensor in first.items():
        if tensor.is_floating_point():
            total = torch.zeros(tensor.shape, dtype=torch.float64)
            for state in states:
                total += state[name].to(torch.float64)
            out[name] = (total / len(states)).to(tensor.dtype)
        else:
            out[name] = tensor.clone()
    return out


def _summary(data: dict[str, Any]) -> dict[str, Any]:
    """A member's ``info`` as a policy file states it (a checkpoint's from its ``args`` and counters)."""
    info = policy_info(data) if data["kind"] == CHECKPOINT_KIND else (data.get("info") or {})
    return {key: info[key] for key in (*MODEL_INFO, "games") if key in info}


def average_files(paths: Sequence[str | os.PathLike], out: str | os.PathLike) -> dict[str, Any]:
    """Write to ``out`` a policy file holding the mean weights of the policy files or checkpoints
    ``paths`` (at least two, the same network config and, where the files say, the same rules);
    returns the written dict. Its ``info`` keeps the :data:`~agents.checkpoint.MODEL_INFO` fields on which the members agree
    (``algo``, ``rules``, ...) and lists each member's ``games`` (``averaged_games``) and path
    (``averaged_from``).

    Raises :class:`~agents.checkpoint.CheckpointError` naming the file that is unreadable or differs."""
    if len(paths) < 2:
        raise CheckpointError(f"averaging needs at least two model files; got {len(paths)}")
    files = [read_file(path) for path in paths]
    config = config_of(files[0])
    for path, data in zip(paths[1:], files[1:]):
        differences = config_differences(config_of(data), config)
        if differences:
            diffs = [f"{name} {value!r} against {wanted!r}" for name, value, wanted in differences]
            raise CheckpointError(f"{str(path)!r} holds another network than {str(paths[0])!r} ({'; '.join(diffs)}): "
                                  "only models of the same network config can be averaged")
    stated = [(str(path), found) for path, found in zip(paths, map(rules_of, files)) if found is not None]
    for path, found in stated[1:]:
        if found != stated[0][1]:
            raise CheckpointError(f"{path!r} was trained under the {found!r} rules, {stated[0][0]!r} under {stated[0][1]!r}: "
                                  "average models of one run, or of runs under the same rules")
    summaries = [_summary(data) for data in files]
    info = {key: value for key, value in summaries[0].items() if all(other.get(key) == value for other in summaries[1:])}
    info.update(averaged_games=[summary.get("games") for summary in summaries], averaged_from=[str(path) for path in paths])
    payload = weights_payload(config.to_dict(), average_weights([data["model_state"] for data in files]), info)
    atomic_save(payload, Path(out))
    return payload
