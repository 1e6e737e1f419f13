"""The paper's Greedy baseline (Algorithm 1): the weakest legal non-pass play."""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from ..engine.combos import PAIR, SINGLE, TRIPLE, classify
from ..engine.rules import Rules
from .base import Observation, Policy, decode_observation

__all__ = ["GreedyPolicy", "greedy_choice"]


@lru_cache(maxsize=1 << 16)
def _classify_cached(play: tuple[int, ...], rules: Rules):
    """:func:`classify` of a sorted play, memoised (plays and tricks recur across decisions)."""
    return classify(play, rules)


def _greedy_key(play: tuple[int, ...], rules: Rules) -> tuple[int, int, tuple[int, ...]]:
    """(category, strength, cards): the combination ordering, with the card tuple as the last tie-break."""
    n = len(play)
    if n <= 3:  # single, pair, triple: the strength is the highest card id
        return ((SINGLE, PAIR, TRIPLE)[n - 1], play[-1], play)
    combo = _classify_cached(play, rules)
    assert combo is not None, f"{play} is not a legal combination"
    return (combo.category, combo.strength, play)


def greedy_choice(plays: Sequence[tuple[int, ...]], rules: Rules) -> int:
    """The index in ``plays`` (the legal plays, ``()`` for pass) that :class:`GreedyPolicy`
    chooses: the only one when one is legal, else the weakest non-pass play."""
    if len(plays) == 1:
        return 0
    # Categories are numbered by size (single < pair < triple < four-card < five-card
    # categories), so the weakest play is among the smallest legal plays.
    size = min(len(play) for play in plays if play)
    return min((_greedy_key(play, rules), i) for i, play in enumerate(plays) if len(play) == size)[1]


class GreedyPolicy(Policy):
    """The paper's Greedy baseline (Algorithm 1): the weakest legal non-pass play.

    * If exactly one action is legal, return it (a forced pass included).
    * Otherwise drop PASS and return the minimum play under the combination
      ordering: category first (single < pair < triple < [two pair < four-card
      quads] < straight < flush < full house < four of a kind < straight flush,
      the numbering of :mod:`big2_env.engine.combos`), then the comparison key
      (:attr:`Combo.strength` from :func:`~big2_env.engine.combos.classify` under
      ``rules``). Ties (equal category and strength, e.g. two full houses with the
      same triple, or 3D 3S vs 3C 3S) go to the lower sorted card tuple.

    Leading, it therefore plays its lowest single; facing a trick, the weakest
    play that beats it. Deterministic; acts from the observation dict only.

    Args:
        rules: the game's rule set (a :class:`Rules`, preset name or dict), so that
            classification matches the variant being played.
    """

    name = "greedy"

    def __init__(self, rules: Rules | str | dict | None = None) -> None:
        self.rules = Rules.coerce(rules)

    def act(self, obs: Observation) -> int:
        decoded = decode_observation(obs)
        return decoded.actions[greedy_choice(decoded.plays, self.rules)]

    def __repr__(self) -> str:
        return f"GreedyPolicy(rules={self.rules!r})"
