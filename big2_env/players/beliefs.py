"""What the public move history says about the cards the opponents hold.

Who passed on what (:mod:`big2_env.observations.extended`) locates a few hidden cards. The whole move
history says much more, because most players choose their plays *by a rule from their own
hand*: a player who leads the 5 of hearts alone when it also held the 3 of spades is not
Greedy, and Smart keeps its pairs and straights together. This module scores how likely
the hands a determinisation (a deal of the unseen cards) gives would have made the moves
that were actually made.

Each opponent is modelled as one of a few **move models** (:data:`MODELS`), each a
probability of every legal move from a hand:

* ``"smart"`` and ``"greedy"``: the heuristic's own choice
  (:func:`~big2_env.players.smart.smart_choice`, :func:`~big2_env.players.greedy.greedy_choice`) with
  probability ``1 - tremble``, every other legal move sharing ``tremble``;
* ``"random"``: uniform over the legal moves.

A seat's likelihood under a model is the product over its moves that had a choice (forced
passes say nothing). Averaged over deals, it gives the probability of each model for each
seat (:func:`model_posteriors`), which the search
(:class:`big2_env.players.search.SearchPolicy`, ``infer_opponents``) reads to know which
opponents play like Random.

Only public information goes in: the move history (every player sees every move), the
cards each seat has played, and the searcher's own hand. A seat's hand at the start of
the game is what a deal gives it now plus what it has played, and the history is
replayed on the engine's legal-move rule (:func:`~big2_env.engine.legal.legal_entries`).

Example: seat 1 answered the 3 of diamonds with the 5 of diamonds. Had it held the 4 of
spades, Smart and Greedy would have played that instead, so a deal giving it the 4 of
spades is far less likely under them (Random plays every move alike):

    >>> from big2_env import Game, parse_cards
    >>> game = Game.from_hands(["3D 6H", "4S 5D", "7D 8C", "9D TC"], current_player=0)
    >>> game.play("3D")
    >>> game.play("5D")
    >>> course = game_course(game.history)
    >>> mask = lambda cards: sum(1 << c for c in parse_cards(cards))
    >>> [round(x, 2) for x in seat_log_likelihoods(course, 1, mask("5D 6C"))]  # smart, greedy, random
    [-0.05, -0.05, -1.1]
    >>> [round(x, 2) for x in seat_log_likelihoods(course, 1, mask("4S 5D"))]
    [-3.69, -3.69, -1.1]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..checks import is_number
from ..engine.cards import mask_to_cards
from ..engine.combos import classify
from ..engine.legal import PASS_ENTRY, legal_entries
from .greedy import _classify_cached, greedy_choice
from .smart import smart_choice
from ..engine.rules import Rules

__all__ = [
    "DEFAULT_TREMBLE",
    "MODELS",
    "Move",
    "check_models",
    "course_array",
    "game_course",
    "logsumexp",
    "model_posteriors",
    "seat_log_likelihood_table",
    "seat_log_likelihoods",
]

MODELS = ("smart", "greedy", "random")
"""The move models an opponent is read against (see the module docstring)."""

DEFAULT_TREMBLE = 0.05
"""The probability that a rule-following model plays something other than its rule's move."""


@dataclass(frozen=True)
class Move:
    """One move of the public history and the table it was made at.

    Attributes:
        seat: who moved (in whatever seat numbering the history uses).
        play: the cards played, ``()`` for a pass.
        mask: the play's card bitmask.
        trick: the trick it faced (``None`` when leading).
        trick_strength: that trick's strength (0 when leading).
        opening: the game's first play (the opening rule applies).
        locked: the mover may only pass: it passed earlier in this trick, under the
            ``pass_locks`` rule.
    """

    seat: int
    play: tuple[int, ...]
    mask: int
    trick: tuple[int, ...] | None
    trick_strength: int
    opening: bool
    locked: bool = False


def game_course(moves: Sequence[tuple[int, tuple[int, ...]]], rules: Rules | str | dict | None = None) -> list[Move]:
    """The table before each of ``moves`` (``(seat, play)`` pairs from the start of the game,
    ``()`` for a pass), under the engine's rules: three passes in a row end the trick and its
    player leads (and, under ``pass_locks``, a seat that passed in a trick is locked until it
    ends). Raises ``ValueError`` for a play that is not a combination
    under ``rules``."""
    rules = Rules.coerce(rules)
    course = []
    trick: tuple[int, ...] | None = None
    strength = passes = 0
    opening = True
    passed = 0  # the seats that passed in this trick
    for seat, play in moves:
        if not 0 <= seat < 4:
            raise ValueError(f"the history's seats are 0..3; got {seat!r}")
        mask = sum(1 << c for c in play)
        locked = rules.pass_locks and bool(passed >> seat & 1)
        course.append(Move(seat, tuple(play), mask, trick, strength, opening, locked))
        if play:
            combo = classify(tuple(play), rules)
            if combo is None:
                raise ValueError(f"the history holds {play}, not a legal combination under {rules}")
            trick, strength, passes, opening = tuple(play), combo.strength, 0, False
        else:
            passes += 1
            passed |= 1 << seat
            if passes == 3:
                trick, strength, passes, passed = None, 0, 0, 0
    return course


def seat_log_likelihoods(
    course: Sequence[Move],
    seat: int,
    start_mask: int,
    rules: Rules | str | dict | None = None,
    models: Sequence[str] = MODELS,
    tremble: float = DEFAULT_TREMBLE,
) -> list[float]:
    """Per model, the log-probability that ``seat``, holding ``start_mask`` (a card bitmask) at
    the start of the game, would have made its moves in ``course``. ``-inf`` for every model
    when a move is impossible from that hand (a card it never held, an illegal play).

    Raises ``ValueError`` for a model not in :data:`MODELS` or a ``tremble`` outside (0, 1)."""
    rules = Rules.coerce(rules)
    check_models(models, tremble)
    hand_mask = start_mask
    hand = mask_to_cards(start_mask)
    out = [0.0] * len(models)
    keep, other = math.log1p(-tremble), math.log(tremble)
    for move in course:
        if move.seat != seat:
            continue
        if move.mask & ~hand_mask:
            return [-math.inf] * len(models)
        if move.locked:
            entries = [PASS_ENTRY]
        else:
            entries = legal_entries(hand_mask, len(move.trick) if move.trick else 0, move.trick_strength, move.opening,
                                    rules)
        n = len(entries)
        if n > 1:
            plays = [e[1] for e in entries]
            try:
                observed = plays.index(move.play)
            except ValueError:
                return [-math.inf] * len(models)
            for j, model in enumerate(models):
                if model == "random":
                    out[j] -= math.log(n)
                    continue
                choice = smart_choice(hand, move.trick, plays, rules) if model == "smart" else greedy_choice(plays, rules)
                out[j] += keep if choice == observed else other - math.log(n - 1)
        elif not entries or entries[0][1] != move.play:
            return [-math.inf] * len(models)
        if move.mask:
            hand_mask ^= move.mask
            hand = [c for c in hand if not move.mask >> c & 1]
    return out


def check_models(models: Sequence[str], tremble: float, name: str = "models") -> None:
    """``ValueError`` unless ``models`` is a non-empty sequence of :data:`MODELS` (its argument
    called ``name`` in the message) and ``tremble`` a number in (0, 1)."""
    if isinstance(models, str) or not models or any(m not in MODELS for m in models):
        raise ValueError(f"{name} must be a non-empty sequence of {', '.join(MODELS)}; got {models!r}")
    if not is_number(tremble, 0, 1, low_open=True, high_open=True):
        raise ValueError(f"tremble must be a number in (0, 1); got {tremble!r}")


def course_array(course: Sequence[Move], rules: Rules | str | dict | None = None) -> np.ndarray:
    """``course`` as the compiled core reads it: an int64 array with one row of
    :data:`~big2_env.players.kernels.rollouts.COURSE_FIELDS` per move (seat, play mask, the trick's
    size, strength, category and mask, opening, and whether the mover was locked)."""
    from .kernels.rollouts import C_LOCKED, C_MASK, C_OPENING, C_SEAT, C_SIZE, C_TRICK, COURSE_FIELDS  # numba on first use

    rules = Rules.coerce(rules)
    rows = np.zeros((len(course), len(COURSE_FIELDS)), dtype=np.int64)
    for t, move in enumerate(course):
        rows[t, C_SEAT], rows[t, C_MASK], rows[t, C_OPENING], rows[t, C_LOCKED] = move.seat, move.mask, move.opening, move.locked
        if move.trick:
            combo = _classify_cached(tuple(sorted(move.trick)), rules)
            if combo is None:
                raise ValueError(f"the course holds the trick {move.trick}, not a combination under {rules}")
            rows[t, C_SIZE:C_TRICK + 1] = len(move.trick), move.trick_strength, combo.category, sum(1 << c for c in move.trick)
    return rows


def seat_log_likelihood_table(
    course: Sequence[Move] | np.ndarray, seat: int, starts: Sequence[int], rules: Rules, models: Sequence[str], tremble: float,
    by_move: bool = False,
) -> np.ndarray:
    """``(len(starts), len(models))``: :func:`seat_log_likelihoods` of each starting hand, each
    distinct hand replayed once, in the compiled core (:func:`~big2_env.players.kernels.rollouts.replay_seat`);
    ``course`` may already be its :func:`course_array`.

    ``by_move``: ``(len(starts), len(course), len(models))`` instead, each move's own term
    (:func:`~big2_env.players.kernels.rollouts.replay_seat_moves`): 0 for another seat's move and a
    forced one, ``-inf`` for each of ``seat``'s moves from the first that the hand could not have
    made; summed over the moves, the table."""
    unique, inverse = np.unique(np.asarray(starts, dtype=np.int64), return_inverse=True)
    if len(unique) and (unique[0] < 0 or unique[-1] >= 1 << 52 or max(int(h).bit_count() for h in unique) > 13):
        raise ValueError("each starting hand must be a bitmask of at most 13 cards (0 <= mask < 2**52)")
    codes = np.array([MODELS.index(m) for m in models], dtype=np.int64)
    from ..engine.core import rules_array  # numba loads on first use, not with big2_env
    from .kernels.rollouts import replay_seat, replay_seat_moves

    rows = course if isinstance(course, np.ndarray) else course_array(course, rules)
    arguments = (rows, seat, unique, rules_array(rules), codes, math.log1p(-tremble), math.log(tremble))
    if by_move:
        moves = np.empty((len(unique), len(rows), len(models)))
        replay_seat_moves(*arguments, moves)
        return moves[inverse.reshape(-1)]
    table = np.empty((len(unique), len(models)))
    replay_seat(*arguments, table)
    return table[inverse.reshape(-1)]


def _log_prior(models: Sequence[str], prior: Sequence[float] | None) -> np.ndarray:
    weights = np.full(len(models), 1.0) if prior is None else np.asarray(prior, dtype=float)
    if weights.shape != (len(models),) or not (np.all(weights >= 0) and weights.sum() > 0):
        raise ValueError(f"prior must give each of the {len(models)} models a weight >= 0, not all 0; got {prior!r}")
    with np.errstate(divide="ignore"):  # a model with prior 0 is never followed
        return np.log(weights / weights.sum())


def logsumexp(values: np.ndarray, axis: int | None = None) -> np.ndarray:
    """``log(sum(exp(values)))`` along ``axis`` (all of it by default), stable: a slice of ``-inf``
    gives ``-inf``.

        >>> round(float(logsumexp(np.log(np.array([1.0, 3.0])))), 6)  # log 4
        1.386294
    """
    top = np.max(values, axis=axis, keepdims=True)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.squeeze(safe + np.log(np.exp(values - safe).sum(axis=axis, keepdims=True)), axis=axis)


def model_posteriors(
    deals: Sequence[Sequence[int]],
    played_by: Sequence[int],
    course: Sequence[Move],
    rules: Rules | str | dict | None = None,
    models: Sequence[str] = MODELS,
    prior: Sequence[float] | None = None,
    tremble: float = DEFAULT_TREMBLE,
) -> np.ndarray:
    """A ``(4, len(models))`` array: per seat, the probability of each model given its moves in
    ``course``, the hidden cards averaged over ``deals`` (draws from the deals the public
    cards allow): ``P(m) ~ prior(m) x mean over deals of the likelihood``. Seat 0 (the
    searcher), seats that have not moved and seats no deal explains keep the prior."""
    rules = Rules.coerce(rules)
    check_models(models, tremble)
    log_prior = _log_prior(models, prior)
    out = np.tile(np.exp(log_prior), (4, 1))
    movers = {m.seat for m in course}
    rows = course_array(course, rules)
    for seat in (1, 2, 3):
        if seat not in movers or not deals:
            continue
        ll = seat_log_likelihood_table(rows, seat, [d[seat] | played_by[seat] for d in deals], rules, models, tremble)
        joint = log_prior + logsumexp(ll, axis=0)
        if np.isfinite(joint).any():
            out[seat] = np.exp(joint - logsumexp(joint))
    return out
