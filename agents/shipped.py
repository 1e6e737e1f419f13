"""The networks shipped as package data: each one's agent spec, file, training rules and default play.

The one table the agent specs (:mod:`agents.plugin`), the loader (:mod:`agents.pretrained`) and
``big2 train --init`` (:mod:`agents.trainer`) read. Torch-free. What each network is and how it was
measured: ``agents/data/README.md``.

Example:
    >>> from agents.shipped import SHIPPED
    >>> SHIPPED["pretrained"].file, SHIPPED["pretrained"].rules
    ('pretrained.pt', 'paper')
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SHIPPED", "ShippedNetwork", "by_which"]


@dataclass(frozen=True)
class ShippedNetwork:
    """One packaged network.

    Attributes:
        which: its ``load_pretrained(which=...)`` name.
        file: its file under ``agents/data``.
        rules: the rules preset it was trained under (``big2 eval`` warns when it plays under others).
        argmax: it plays its argmax by default (measured stronger so); else it samples.
        design: its ``NetworkConfig.design`` (``--init`` needs the run's to match).
    """

    which: str
    file: str
    rules: str
    argmax: bool
    design: str


SHIPPED = {
    "pretrained": ShippedNetwork("shipped", "pretrained.pt", "paper", argmax=True, design="charlesworth"),
    "pretrained-paper": ShippedNetwork("paper", "paper_settings.pt", "paper", argmax=False, design="paper"),
    "pretrained-charlesworth": ShippedNetwork("charlesworth", "pretrained_charlesworth.pt", "charlesworth", argmax=True,
                                              design="charlesworth"),
    "pretrained-default-recipe": ShippedNetwork("default-recipe", "pretrained_default_recipe.pt", "paper", argmax=True,
                                                design="paper"),
}
"""The agent specs of the packaged networks: ``pretrained`` (the strongest under the paper's rules),
``pretrained-paper`` (the paper's settings and budget), ``pretrained-charlesworth`` (the strongest
under Charlesworth's rules) and ``pretrained-default-recipe`` (the default recipe's 3M-game network:
the paper's design, which reads the paper's observation)."""


def by_which(which: str) -> tuple[str, ShippedNetwork]:
    """The spec and entry of ``load_pretrained(which=...)``'s name.

    Raises:
        ValueError: no packaged network has that name (the message lists those that do).
    """
    for spec, entry in SHIPPED.items():
        if entry.which == which:
            return spec, entry
    allowed = ", ".join(repr(entry.which) for entry in SHIPPED.values())
    raise ValueError(f"which must be one of {allowed}; got {which!r}")
