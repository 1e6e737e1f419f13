"""The shipped pretrained agents: ``load_pretrained()`` and ``big2 eval --agent pretrained``.

Four policy files ship as package data, each as written by ``big2 train`` or ``big2 average``
(see :mod:`agents.checkpoint`; the table of them is :data:`agents.shipped.SHIPPED`, their records
``agents/data/README.md``):

* ``agents/data/pretrained.pt`` (``which="shipped"``, agent spec ``"pretrained"``): the
  strongest network measured under the paper's rules, the default everywhere, played at its
  argmax. It is Charlesworth's recipe (``big2 train --preset charlesworth --rules paper``: his
  network on his 412 inputs, his cadence and hyperparameters) trained by self-play under the
  paper's rules, the mean of four of the run's models' weights (``big2 average``), then trained on
  for two finishing steps with every new game against three Random players
  (``--random-opponent-prob 1``);
* ``agents/data/pretrained_default_recipe.pt`` (``which="default-recipe"``, agent spec
  ``"pretrained-default-recipe"``): the default recipe's 3M-game network. The paper's network
  design on the paper's observation, the one ``--init`` starts the default design from;
* ``agents/data/paper_settings.pt`` (``which="paper"``, agent spec ``"pretrained-paper"``):
  the run with the paper's exact settings and budget (5,000 batches, lr 3e-5, unscaled
  scores), kept for the reproduction; it samples, as the paper evaluates it;
* ``agents/data/pretrained_charlesworth.pt`` (``which="charlesworth"``, agent spec
  ``"pretrained-charlesworth"``): his recipe trained by self-play under his rules; two of its models
  (at 1.86M and 3.05M games) each trained on with the learning rate and clip annealed to 0, and their
  weights averaged, for play under his rules and as a model of strong play there.

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
from .shipped import SHIPPED, by_which

DATA = Path(__file__).resolve().parent / "data"
PRETRAINED_PATH = DATA / SHIPPED["pretrained"].file
PAPER_SETTINGS_PATH = DATA / SHIPPED["pretrained-paper"].file
CHARLESWORTH_RULES_PATH = DATA / SHIPPED["pretrained-charlesworth"].file
DEFAULT_RECIPE_PATH = DATA / SHIPPED["pretrained-default-recipe"].file

TRAIN_HINT = (
    "train one with `big2 train --out runs/ppo` (agents/data/README.md gives each shipped network's own command) "
    "and copy runs/ppo/model.pt to {path}"
)


def pretrained_path() -> Path:
    """Where the pretrained weights are read from (``BIG2_PRETRAINED`` overrides the packaged file)."""
    override = os.environ.get("BIG2_PRETRAINED")
    return Path(override) if override else PRETRAINED_PATH


def shipped_path(spec: str) -> Path:
    """The file a shipped network's agent spec loads (``BIG2_PRETRAINED`` overrides ``pretrained``'s)."""
    return pretrained_path() if spec == "pretrained" else DATA / SHIPPED[spec].file


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
            for the packaged networks measured stronger so (all but the paper-settings one, which
            samples as the paper evaluates it); sampling for another file (``path`` or
            ``BIG2_PRETRAINED``), as PPO networks are played.
        device: torch device of the forward pass.
        seed: seed of the sampling RNG.
        which: ``"shipped"`` (default: ``agents/data/pretrained.pt``, or ``BIG2_PRETRAINED``),
            ``"default-recipe"`` (the default recipe's 3M-game network), ``"paper"`` (the
            paper-settings run) or ``"charlesworth"`` (trained under Charlesworth's rules):
            :data:`agents.shipped.SHIPPED`.

    Raises:
        ValueError: ``which`` names none of them.
        FileNotFoundError: no weights there (with how to train them).
        agents.checkpoint.CheckpointError: the file is corrupt or of another format.
    """
    name, entry = by_which(which)
    packaged = PRETRAINED_PATH if which == "shipped" else DATA / entry.file
    path = Path(path) if path is not None else shipped_path(name)
    if not path.is_file():
        raise FileNotFoundError(f"no pretrained agent at {str(path)!r}: " + TRAIN_HINT.format(path=packaged))
    model, _ = load_model(path)
    if deterministic is None:
        argmax = {PRETRAINED_PATH.resolve()} | {(DATA / e.file).resolve() for e in SHIPPED.values() if e.argmax}
        deterministic = path.resolve() in argmax
    return NetworkPolicy(model, deterministic=deterministic, device=device, seed=seed, name=name)


__all__ = ["CHARLESWORTH_RULES_PATH", "CheckpointError", "DEFAULT_RECIPE_PATH", "PAPER_SETTINGS_PATH", "PRETRAINED_PATH",
           "load_pretrained", "pretrained_path", "shipped_path"]
