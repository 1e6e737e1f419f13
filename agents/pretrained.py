"""The shipped pretrained agent: ``load_pretrained()`` and ``big2 eval --agent pretrained``.

The weights live in ``agents/data/pretrained.pt`` (package data), a policy file as
written by ``big2 train`` (``DIR/model.pt``, see :mod:`agents.checkpoint`).
"""

from __future__ import annotations

import os
from pathlib import Path

from .checkpoint import CheckpointError, load_model
from .policy import NetworkPolicy

PRETRAINED_PATH = Path(__file__).resolve().parent / "data" / "pretrained.pt"

TRAIN_HINT = (
    "train one with `big2 train --algo ppo --curriculum self --entropy 0.05 --batches 5000 "
    "--games-per-batch 64 --seed 0 --out runs/ppo` and copy runs/ppo/model.pt to {path}"
)


def pretrained_path() -> Path:
    """Where the pretrained weights are read from (``BIG2_PRETRAINED`` overrides the packaged file)."""
    override = os.environ.get("BIG2_PRETRAINED")
    return Path(override) if override else PRETRAINED_PATH


def load_pretrained(
    path: str | os.PathLike | None = None, deterministic: bool = False, device: str = "cpu", seed: int | None = None
) -> NetworkPolicy:
    """The pretrained PPO agent as a :class:`~agents.policy.NetworkPolicy`.

    Args:
        path: a policy file to load instead of the packaged one.
        deterministic: play the argmax instead of sampling (the agent was trained
            and evaluated sampling).
        device: torch device of the forward pass.
        seed: seed of the sampling RNG.

    Raises:
        FileNotFoundError: no weights there (with how to train them).
        agents.checkpoint.CheckpointError: the file is corrupt or of another format.
    """
    path = Path(path) if path is not None else pretrained_path()
    if not path.is_file():
        raise FileNotFoundError(f"no pretrained agent at {str(path)!r}: " + TRAIN_HINT.format(path=PRETRAINED_PATH))
    model, _ = load_model(path)
    return NetworkPolicy(model, deterministic=deterministic, device=device, seed=seed, name="pretrained")


__all__ = ["CheckpointError", "PRETRAINED_PATH", "load_pretrained", "pretrained_path"]
