"""Dealers: the cards a searcher cannot see, dealt to the other seats (determinisations).

A dealer is made for one decision and deals with the search's generator: :meth:`Dealer.deal`
returns ``n`` determinisations, ``(n, 4)`` hand bitmasks by relative seat (0: the searcher), one
after another, each seat given its public count of cards. The searches take one of these:

* :class:`PassConsistentDealer`: the unseen cards, each opponent's passes read as "could not
  beat it" with probability ``belief``, in the compiled core
  (:func:`~big2_env.players.kernels.rollouts.deal_hands`); with ``belief=0`` or no pass yet,
  uniform. The determinised search (``search``) and ISMCTS (``ismcts``) deal with it; the hands
  are those held *now*.
* :class:`UniformDealer`: the unseen cards uniformly, some cards fixed to a seat (the 3 of
  diamonds to an opener that has not played it), returned as the hands held *now* or, with each
  seat's played cards added, as the *starting* hands (what a replay of the history starts from:
  ``search-net``).

Uniform deals draw one ``rng.permutation`` of the unseen cards per deal, whichever dealer
makes them, so equal inputs give equal deals for a seed (``tests/reference/dealers.py`` deals
the same in Python).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol, Sequence

import numpy as np

from ..checks import is_number
from ..engine.cards import THREE_OF_DIAMONDS, mask_to_cards
from ..engine.rules import Rules
from .public import PublicState

__all__ = [
    "CoreState",
    "Dealer",
    "PassConsistentDealer",
    "UniformDealer",
    "core_rules",
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
    """Deals of ``state`` (the hands held now) that believe each pass with probability ``belief``, one
    after another from ``rng``, by the core's :func:`~big2_env.players.kernels.rollouts.deal_hands`."""

    def __init__(self, state: PublicState, rng: np.random.Generator, rules: Rules, belief: float) -> None:
        from .kernels.rollouts import deal_hands  # numba loads on first use, not with big2_env

        self.state, self.rng, self.rules, self.belief = state, rng, rules, self.checked_belief(belief)
        self.core = CoreState.of(state)
        self._deal_hands, self._rules_array = deal_hands, core_rules(rules)

    @staticmethod
    def checked_belief(belief: Any) -> float:
        """``belief`` (a search's ``pass_inference``) as a float, if it is a number in [0, 1]."""
        if not is_number(belief, 0, 1):
            raise ValueError(f"pass_inference must be a number in [0, 1]; got {belief!r}")
        return float(belief)

    def deal(self, n: int) -> np.ndarray:
        core, out = self.core, np.empty((n, 4), dtype=np.int64)
        self._deal_hands(self.rng, n, core.hand, core.unseen, core.left, core.declined, self.belief, self._rules_array, out)
        return out


class UniformDealer:
    """The ``unseen`` cards dealt uniformly to seats 1..3 (:func:`uniform_hands`, ``counts[seat]`` each),
    every deal then given ``known`` (per seat, the cards it is known to hold, seat 0's hand among them)
    and ``played`` (per seat, the cards it has played: then the hands each seat started the game with)."""

    def __init__(self, rng: np.random.Generator, unseen: Sequence[int], counts: Sequence[int], known: Sequence[int],
                 played: Sequence[int] = (0, 0, 0, 0)) -> None:
        if sum(counts[1:]) != len(unseen) or counts[0]:
            raise ValueError(f"the counts {list(counts)} must share out the {len(unseen)} unseen cards to seats 1..3")
        self.rng, self.unseen, self.counts = rng, [int(c) for c in unseen], [int(c) for c in counts]
        self.add = np.array([k | p for k, p in zip(known, played)], dtype=np.int64)

    @classmethod
    def starting(cls, state: PublicState, rng: np.random.Generator) -> "UniformDealer":
        """The hands each seat started with behind ``state``: its unseen cards dealt uniformly to seats
        1..3 in their counts (the 3 of diamonds to the opener, :attr:`PublicState.opener`, while it is
        unseen), each seat's played cards added."""
        unseen = mask_to_cards(state.unseen_mask)
        known = [state.hand_mask, 0, 0, 0]
        counts = [0, *state.cards_left[1:]]
        if THREE_OF_DIAMONDS in unseen and state.opener != 0:  # the opener held 3D and has not played it
            known[state.opener] |= 1 << THREE_OF_DIAMONDS
            counts[state.opener] -= 1
            unseen.remove(THREE_OF_DIAMONDS)
        return cls(rng, unseen, counts, known, state.played_by)

    def deal(self, n: int) -> np.ndarray:
        return uniform_hands(self.rng, self.unseen, self.counts, n) | self.add
