"""The determinisations in Python: the oracle that the compiled deals of
:class:`big2_env.players.dealers.PassConsistentDealer` (:func:`big2_env.players.kernels.rollouts.deal_hands`)
are tested against. Both draw the same numbers from the generator in the same order, so with the same
seed they deal the same hands. They read a public state (:class:`big2_env.players.public.PublicState`:
its hand, unseen cards, counts and the strengths each seat declined).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from big2_env.engine.cards import NUM_CARDS, mask_to_cards
from big2_env.engine.rules import Rules
from big2_env.players.dealers import uniform_hands

from .combos import enumerate_combos

__all__ = ["DEAL_TRIES", "deal_capped", "deal_consistent", "deal_unseen"]


def deal_unseen(state, rng: np.random.Generator) -> list[int]:
    """One determinisation: hand bitmasks per relative seat, the unseen cards dealt at random
    to seats 1..3 in their public counts (seat 0 keeps its own hand)."""
    hands = uniform_hands(rng, mask_to_cards(state.unseen_mask), state.cards_left, 1)[0].tolist()
    hands[0] = state.hand_mask
    return hands


DEAL_TRIES = 20
"""Deals tried per determinisation before settling for the one that breaks the fewest pass constraints."""


def deal_consistent(state, rng: np.random.Generator, rules: Rules, belief: float) -> list[int]:
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
        hands = deal_capped(state, caps, rng)
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


def deal_capped(state, caps: Sequence[int], rng: np.random.Generator) -> list[int]:
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
