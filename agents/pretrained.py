"""The shipped pretrained agents: ``load_pretrained()`` and ``big2 eval --agent pretrained``.

Three policy files ship as package data, each as written by ``big2 train`` (``DIR/model.pt``,
see :mod:`agents.checkpoint`):

* ``agents/data/pretrained.pt`` (``which="shipped"``, agent spec ``"pretrained"``): the
  strongest network measured here, the default everywhere. It plays its argmax by default:
  measured on the same 1000 deals per class, argmax wins 81.4% / 54.3% / 39.7% against three
  Random / Greedy / Smart and sampling 77.0% / 50.5% / 36.2% (``agents/data/README.md``);
* ``agents/data/paper_settings.pt`` (``which="paper"``, agent spec ``"pretrained-paper"``):
  the run with the paper's exact settings and budget (5,000 batches, lr 3e-5, unscaled
  scores), kept for the reproduction (``agents/data/README.md`` has both records);
* ``agents/data/pretrained_charlesworth.pt`` (``which="charlesworth"``, agent spec
  ``"pretrained-charlesworth"``): his recipe (``big2 train --preset charlesworth``: his network on
  his 412 inputs, his cadence and hyperparameters) trained by self-play under his rules, the mean
  of five of the run's models' weights (``big2 average``), for play under his rules and as a model
  of strong play there (since 2026-11-27; before, the run's 505k-game model and, earlier, the
  default recipe's 3M-game network, both of which it beats in the duel against his network).

Example:
    >>> from agents.pretrained import load_pretrained
    >>> load_pretrained(which="paper").name
    'pretrained-paper'
"""

from __future__ import annotations

import os
from pathlib import Path

from .checkpoint import CheckpointError, load_model
from .policy import NetworkPolicy

PRETRAINED_PATH = Path(__file__).resolve().parent / "data" / "pretrained.pt"
PAPER_SETTINGS_PATH = PRETRAINED_PATH.with_name("paper_settings.pt")
CHARLESWORTH_RULES_PATH = PRETRAINED_PATH.with_name("pretrained_charlesworth.pt")
WHICH = {
    "shipped": ("pretrained", PRETRAINED_PATH),
    "paper": ("pretrained-paper", PAPER_SETTINGS_PATH),
    "charlesworth": ("pretrained-charlesworth", CHARLESWORTH_RULES_PATH),
}
"""``load_pretrained(which=...)``: the agent's display name (and agent spec) and its packaged file."""

TRAIN_HINT = (
    "train one with `big2 train --algo ppo --curriculum self --entropy 0.05 --batches 5000 "
    "--games-per-batch 64 --seed 0 --out runs/ppo` and copy runs/ppo/model.pt to {path}"
)


def pretrained_path() -> Path:
    """Where the pretrained weights are read from (``BIG2_PRETRAINED`` overrides the packaged file)."""
    override = os.environ.get("BIG2_PRETRAINED")
    return Path(override) if override else PRETRAINED_PATH


def load_pretrained(
    path: str | os.PathLike | None = None,
    deterministic: bool | None = None,
    device: str = "cpu",
    seed: int | None = None,
    which: str = "shipped",
) -> NetworkPolicy:
    """A pretrained PPO agent as a :class:`~agents.policy.NetworkPolicy`.

    Args:
        path: a policy file to load instead of the packaged one.
        deterministic: play the argmax instead of sampling. ``None`` (default): the argmax
            for the packaged shipped network, which plays best so (see above); sampling for the
            paper-settings one, as the paper evaluates it, and for another file (``path`` or
            ``BIG2_PRETRAINED``), as PPO networks are played.
        device: torch device of the forward pass.
        seed: seed of the sampling RNG.
        which: ``"shipped"`` (default: ``agents/data/pretrained.pt``, or ``BIG2_PRETRAINED``),
            ``"paper"`` (the paper-settings run, ``agents/data/paper_settings.pt``) or
            ``"charlesworth"`` (trained under Charlesworth's rules,
            ``agents/data/pretrained_charlesworth.pt``; it plays its argmax by default).

    Raises:
        ValueError: ``which`` is neither.
        FileNotFoundError: no weights there (with how to train them).
        agents.checkpoint.CheckpointError: the file is corrupt or of another format.
    """
    if which not in WHICH:
        raise ValueError(f"which must be one of {', '.join(map(repr, WHICH))}; got {which!r}")
    name, packaged = WHICH[which]
    if path is not None:
        path = Path(path)
    else:
        path = pretrained_path() if which == "shipped" else packaged
    if not path.is_file():
        raise FileNotFoundError(f"no pretrained agent at {str(path)!r}: " + TRAIN_HINT.format(path=packaged))
    model, _ = load_model(path)
    if deterministic is None:
        deterministic = path.resolve() in (PRETRAINED_PATH, CHARLESWORTH_RULES_PATH)
    return NetworkPolicy(model, deterministic=deterministic, device=device, seed=seed, name=name)


__all__ = ["CHARLESWORTH_RULES_PATH", "CheckpointError", "PAPER_SETTINGS_PATH", "PRETRAINED_PATH", "load_pretrained",
           "pretrained_path"]
