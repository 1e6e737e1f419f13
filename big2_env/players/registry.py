"""The named players: ``make_policy("smart")`` and the table of names behind it.

Registered policies (:data:`POLICIES`): ``"random"`` (:class:`~big2_env.players.random.RandomPolicy`),
``"greedy"`` (:class:`~big2_env.players.greedy.GreedyPolicy`, the paper's Algorithm 1), ``"smart"``
(:class:`~big2_env.players.smart.SmartPolicy`, the paper's Algorithm 2) and ``"search"``
(:class:`~big2_env.players.search.SearchPolicy`, determinised Monte Carlo search with Smart
rollouts, the strongest player of the package).
"""

from __future__ import annotations

from typing import Any, Callable

from .base import Policy
from .greedy import GreedyPolicy
from .random import RandomPolicy
from .search import SearchPolicy
from .smart import SmartPolicy

__all__ = ["POLICIES", "make_policy"]

POLICIES: dict[str, Callable[..., Policy]] = {
    "random": RandomPolicy,
    "greedy": GreedyPolicy,
    "smart": SmartPolicy,
    "search": SearchPolicy,
}


def make_policy(name: str, seed: int | None = None, **kwargs: Any) -> Policy:
    """Build a named policy: one of :data:`POLICIES` (``"random"``, ``"greedy"``, ``"smart"``, and
    ``"search"``, the determinised Monte Carlo search of :mod:`big2_env.players.search`).

    Extra keywords go to the policy's constructor, e.g. ``rules=Rules(...)`` so that
    Greedy and Smart classify plays under the game's variant.

    >>> from big2_env import Rules
    >>> make_policy("smart", rules="charlesworth").rules == Rules.preset("charlesworth")
    True
    """
    try:
        factory = POLICIES[name]
    except KeyError:
        raise ValueError(f"unknown policy {name!r}; allowed: {', '.join(sorted(POLICIES))}") from None
    policy = factory(**kwargs)
    policy.seed(seed)
    return policy
