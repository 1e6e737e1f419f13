"""Dealers: the cards a searcher cannot see, dealt to the other seats (determinisations).

A dealer is made for one decision and deals with the search's generator: :meth:`Dealer.deal`
returns ``n`` determinisations, ``(n, 4)`` hand bitmasks by relative seat (0: the searcher), one
after another, each seat given its public count of cards. The searches take one of these:

* :class:`PassConsistentDealer`: the unseen cards, each opponent's passes read as "could not
  beat it" with probability ``belief`` (:func:`deal_consistent`, or the same draws in the
  compiled core); with ``belief=0`` or no pass yet, uniform (:func:`deal_unseen`). The
  determinised search (``search``) and ISMCTS (``ismcts``) deal with it; the hands are those
  held *now*.
* :class:`UniformDealer`: the unseen cards uniformly, some cards fixed to a seat (the 3 of
  diamonds to an opener that has not played it), returned as the hands held *now* or, with each
  seat's played cards added, as the *starting* hands (what a replay of the history starts from:
  ``search-net``).

Uniform deals draw one ``rng.permutation`` of the unseen cards per deal, whichever dealer
makes them, so equal inputs give equal deals for a seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol, Sequence

import numpy as np

from ..checks import is_number
from ..engine.cards import NUM_CARDS, mask_to_cards
from ..engine.combos import enumerate_combos
from ..engine.rules import Rules
from .public import PublicState

__all__ = [
    "DEAL_TRIES",
    "CoreState",
    "Dealer",
    "PassConsistentDealer",
    "UniformDealer",
    "core_rules",
    "deal_consistent",
    "deal_unseen",
    "uniform_hands",
]


class Dealer(Protocol):
    """Deals the hidden cards of one position: ``(n, 4)`` int64 hand bitmasks, relative seats."""

    def deal(self, n: int) -> np.ndarray: ...


def uniform_hands(rng: np.random.Generator, unseen: Sequence[int], counts: Sequence[int], n: int) -> np.ndarray:
    """``n`` deals of the ``unseen`` cards to seats 1..3, ``counts[seat]`` each (seat 0 gets none):
    one ``rng.permutation`` of the unseen cards per deal, dealt to the seats in order."""
    hands = np.zeros((n, 4), dtype=np.int64)
    for d in range(n):
        order = rng.permutation(len(unseen))
        start = 0
        for seat in (1, 2, 3):
            mask = 0
            for i in order[start : start + counts[seat]]:
                mask |= 1 << unseen[i]
            hands[d, seat] = mask
            start += counts[seat]
    return hands


def deal_unseen(state: PublicState, rng: np.random.Generator) -> list[int]:
    """One determinisation: hand bitmasks per relative seat, the unseen cards dealt at random
    to seats 1..3 in their public counts (seat 0 keeps its own hand)."""
    hands = uniform_hands(rng, mask_to_cards(state.unseen_mask), state.cards_left, 1)[0].tolist()
    hands[0] = state.hand_mask
    return hands


DEAL_TRIES = 20
"""Deals tried per determinisation before settling for the one that breaks the fewest pass constraints."""


def deal_consistent(state: PublicState, rng: np.random.Generator, rules: Rules, belief: float) -> list[int]:
    """A determinisation that respects what the opponents' passes reveal (see :mod:`big2_env.observations.extended`).

    Each pass constraint ("seat ``k`` passed on a play of size ``n`` and strength ``s``, so it
    holds no play of that size stronger than ``s``") is kept with probability ``belief`` (a
    pass is read as "could not beat it"; otherwise as a voluntary pass), independently per
    seat and size. Kept singles constraints are met exactly: the cards above a seat's cap go
    only to seats that may hold them, each card to a free slot chosen uniformly among the
    slots allowed, which samples uniformly among the deals that meet them (the allowed sets
    are nested). The other sizes are met by rejection: up to :data:`DEAL_TRIES` deals, else
    the one that breaks the fewest. With ``belief=0`` or no pass yet, this is :func:`deal_unseen`.
    """
    caps = [NUM_CARDS - 1] * 4
    larger: list[tuple[int, int, int]] = []  # (seat, size, strength) for sizes 2..5
    for seat in (1, 2, 3):
        for index, strength in enumerate(state.declined[seat]):
            if strength >= 0 and belief > 0 and (belief >= 1 or rng.random() < belief):
                if index == 0:
                    caps[seat] = strength
                else:
                    larger.append((seat, index + 1, strength))
    if min(caps) == NUM_CARDS - 1 and not larger:
        return deal_unseen(state, rng)
    best: list[int] = []
    fewest = math.inf
    for _ in range(DEAL_TRIES):
        hands = _deal_capped(state, caps, rng)
        broken = 0
        for seat, size, strength in larger:
            group = enumerate_combos(hands[seat], rules)[size]  # not the shared cache: these hands are one-offs
            if group and group[-1][0] > strength:
                broken += 1
        if broken == 0:
            return hands
        if broken < fewest:
            best, fewest = hands, broken
    return best


def _deal_capped(state: PublicState, caps: Sequence[int], rng: np.random.Generator) -> list[int]:
    """Deal the unseen cards so that each seat ``k`` gets no card above ``caps[k]`` where the
    counts allow it (highest cards first, each to a free allowed slot chosen uniformly)."""
    unseen = mask_to_cards(state.unseen_mask)
    slots = list(state.cards_left)
    hands = [state.hand_mask, 0, 0, 0]
    low = min(caps[1:])
    i = len(unseen)
    draws = rng.random(i)
    while i > 0 and unseen[i - 1] > low:
        i -= 1
        card = unseen[i]
        allowed = [k for k in (1, 2, 3) if slots[k] and caps[k] >= card] or [k for k in (1, 2, 3) if slots[k]]
        x = draws[i] * sum(slots[k] for k in allowed)
        for seat in allowed:
            x -= slots[seat]
            if x < 0:
                break
        hands[seat] |= 1 << card
        slots[seat] -= 1
    order = rng.permutation(i)
    start = 0
    for seat in (1, 2, 3):
        for j in order[start : start + slots[seat]]:
            hands[seat] |= 1 << unseen[j]
        start += slots[seat]
    return hands


@lru_cache(maxsize=16)
def core_rules(rules: Rules) -> np.ndarray:
    """The compiled core's view of ``rules`` (:func:`~big2_env.engine.core.rules_array`), made once per rule set."""
    from ..engine.core import rules_array  # numba loads on first use, not with big2_env

    return rules_array(rules)


@dataclass(frozen=True)
class CoreState:
    """The arrays the core's determinisations read (:func:`~big2_env.players.kernels.rollouts.deal_hands`)."""

    hand: int
    unseen: np.ndarray
    left: np.ndarray
    declined: np.ndarray

    @classmethod
    def of(cls, state: PublicState) -> "CoreState":
        return cls(
            state.hand_mask,
            np.array(mask_to_cards(state.unseen_mask), dtype=np.int64),
            np.array(state.cards_left, dtype=np.int64),
            np.array(state.declined, dtype=np.int64).reshape(4, 5),
        )


class PassConsistentDealer:
    """:func:`deal_consistent`'s deals of ``state`` (the hands held now), one after another from ``rng``:
    on the Python engine, or with ``compiled`` by the core's
    :func:`~big2_env.players.kernels.rollouts.deal_hands`, which draws the same numbers in the same order."""

    def __init__(self, state: PublicState, rng: np.random.Generator, rules: Rules, belief: float,
                 compiled: bool = True) -> None:
        self.state, self.rng, self.rules, self.belief = state, rng, rules, self.checked_belief(belief)
        self.core = CoreState.of(state) if compiled else None
        if compiled:
            from .kernels.rollouts import deal_hands  # numba loads on first use, not with big2_env

            self._deal_hands, self._rules_array = deal_hands, core_rules(rules)

    @staticmethod
    def checked_belief(belief: Any) -> float:
        """``belief`` (a search's ``pass_inference``) as a float, if it is a number in [0, 1]."""
        if not is_number(belief, 0, 1):
            raise ValueError(f"pass_inference must be a number in [0, 1]; got {belief!r}")
        return float(belief)

    def deal(self, n: int) -> np.ndarray:
        if self.core is None:
            return np.array([deal_consistent(self.state, self.rng, self.rules, self.belief) for _ in range(n)],
                            dtype=np.int64).reshape(n, 4)
        core, out = self.core, np.empty((n, 4), dtype=np.int64)
        self._deal_hands(self.rng, n, core.hand, core.unseen, core.left, core.declined, self.belief, self._rules_array, out)
        return out


class UniformDealer:
    """The ``unseen`` cards dealt uniformly to seats 1..3 (:func:`uniform_hands`, ``counts[seat]`` each),
    every deal then given ``known`` (per seat, the cards it is known to hold, seat 0's hand among them).
    ``starting=True`` also adds ``played`` (per seat, the cards it has played): the hands each seat
    started the game with."""

    def __init__(self, rng: np.random.Generator, unseen: Sequence[int], counts: Sequence[int], known: Sequence[int],
                 played: Sequence[int] = (0, 0, 0, 0)) -> None:
        if sum(counts[1:]) != len(unseen) or counts[0]:
            raise ValueError(f"the counts {list(counts)} must share out the {len(unseen)} unseen cards to seats 1..3")
        self.rng, self.unseen, self.counts = rng, [int(c) for c in unseen], [int(c) for c in counts]
        self.add = np.array([k | p for k, p in zip(known, played)], dtype=np.int64)

    def deal(self, n: int) -> np.ndarray:
        return uniform_hands(self.rng, self.unseen, self.counts, n) | self.add
