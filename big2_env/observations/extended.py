"""The extended observation: the paper's 277 numbers plus the public history they lack.

The paper's information state (:mod:`big2_env.observations.paper`) says which cards each
player has played, but not who passed on what, so a player cannot infer what an
opponent does *not* hold. The extended observation (315 float32 numbers, opt-in:
``observation="extended"`` in the environments) appends 38 numbers, all public:

======== ===== ====================================================================
slice    size  content
======== ===== ====================================================================
0:277    277   the paper's information state, unchanged
277      1     the player's own cards left / 13
278:282  4     one-hot: who holds control, relative seat (0 = the player on move,
               when it leads; else 1, 2, 3 = next, across, previous, who made the
               active trick)
282:285  3     per other player (next, across, previous): passed in the current
               round (since the last lead)
285:300  15    per other player x trick size 1..5 (index ``3 * 0 + ...``: row of
               5 per player): has passed on a trick of that size in this game
300:315  15    same layout: the weakest such trick's strength / :data:`STRENGTH_MAX`
               of its size (0 where the flag is 0)
======== ===== ====================================================================

A pass on a trick says, for most players, that they could not beat it: Smart
passes with a beating play in its hand on only about 2% of its passes, Greedy
never (measured over 300 games each; Random on about 25%). Since a hand only loses
cards, "no play of this size stronger than ``s``" then still holds for the cards
the passer has left, which is what the search agent's deals use
(:mod:`big2_env.players.search`, ``pass_inference``). Strengths are the engine's
(:mod:`big2_env.engine.combos`: same-size plays compare by strength), under the game's rules.

Example:
    >>> from big2_env import Game
    >>> game = Game.from_hands(["3D 9S", "4D 5D", "6D", "7D"], current_player=0)
    >>> game.play("3D")
    >>> game.play("pass")                    # the next player passes on a single
    >>> vector = extended_observation(game, 2)
    >>> vector.shape, float(vector[EXT_DECLINED][5 * 2]), round(float(vector[EXT_DECLINED_STRENGTH][5 * 2]) * 51)
    ((315,), 1.0, 0)
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from ..engine.combos import classify
from .paper import OBS_SIZE, PAD_CARD, observation
from ..engine.rules import Rules

__all__ = [
    "EXTENDED_SIZE",
    "EXT_CONTROL",
    "EXT_DECLINED",
    "EXT_DECLINED_STRENGTH",
    "EXT_OWN_CARDS",
    "EXT_PASSED_ROUND",
    "STRENGTH_MAX",
    "decode_declined",
    "extended_features",
    "extended_observation",
    "history_array",
    "history_moves",
]

EXTENDED_SIZE = OBS_SIZE + 38
EXT_OWN_CARDS = 277
EXT_CONTROL = slice(278, 282)
EXT_PASSED_ROUND = slice(282, 285)
EXT_DECLINED = slice(285, 300)
EXT_DECLINED_STRENGTH = slice(300, 315)
STRENGTH_MAX = (51, 51, 51, 112, 4519)
"""The largest strength of a play of each size 1..5 over every rule variant (the scale of the strengths)."""

_SIZES = 5


@lru_cache(maxsize=65536)
def _strength(play: tuple[int, ...], rules: Rules) -> int:
    combo = classify(play, rules)
    if combo is None:
        raise ValueError(f"the history holds {play}, not a legal combination under {rules}")
    return combo.strength


def extended_features(
    history: Sequence[tuple[int, tuple[int, ...]]], player: int, hand_size: int, rules: Rules
) -> np.ndarray:
    """The 38 numbers appended to the 277 for ``player`` (absolute seat) after ``history``
    (the game's ``(player, play)`` list, ``()`` for a pass) with ``hand_size`` cards in hand."""
    declined = [[-1] * _SIZES for _ in range(4)]  # weakest strength passed on, per seat and size
    passed_round = [False] * 4
    size = strength = passes = 0
    trick_player = -1
    for seat, play in history:
        if play:
            size, strength, trick_player, passes = len(play), _strength(play, rules), seat, 0
            continue
        row = declined[seat]
        if row[size - 1] < 0 or strength < row[size - 1]:
            row[size - 1] = strength
        passed_round[seat] = True
        passes += 1
        if passes == 3:  # everyone else passed: the trick's player leads a new round
            size, trick_player, passes = 0, -1, 0
            passed_round = [False] * 4
    out = np.zeros(EXTENDED_SIZE - OBS_SIZE, dtype=np.float32)
    out[0] = hand_size / 13.0
    out[1 + (0 if trick_player < 0 else (trick_player - player) % 4)] = 1.0
    for k in range(3):
        seat = (player + 1 + k) % 4
        out[5 + k] = passed_round[seat]
        for s, weakest in enumerate(declined[seat]):
            if weakest >= 0:
                out[8 + _SIZES * k + s] = 1.0
                out[23 + _SIZES * k + s] = weakest / STRENGTH_MAX[s]
    return out


def extended_observation(game, player: int) -> np.ndarray:
    """The 315-number extended observation of ``player`` in ``game`` (a :class:`big2_env.engine.game.Game`)."""
    extra = extended_features(game.history, player, len(game._hand_cards[player]), game.rules)
    return np.concatenate((observation(game, player), extra))


def history_array(history: Sequence[tuple[int, tuple[int, ...]]], player: int) -> np.ndarray:
    """The public move history as ``player`` sees it: an ``(n, 6)`` int16 array, one row per
    move so far, oldest first: the mover's seat relative to ``player`` (0 = ``player``, then
    1, 2, 3 clockwise), then the cards played in ascending order, padded with ``PAD_CARD``
    (52); a pass is all padding. Every player sees every move, so nothing here is private.
    The candidate-view observations of the package's game loops carry it as ``"history"`` in
    the extended view (:class:`big2_env.observations.decision.PolicyObservation`).

    Example:
        >>> history_array([(1, (0,)), (2, ()), (3, (5, 6))], player=2).tolist()
        [[3, 0, 52, 52, 52, 52], [0, 52, 52, 52, 52, 52], [1, 5, 6, 52, 52, 52]]
    """
    out = np.full((len(history), 6), PAD_CARD, dtype=np.int16)
    for row, (seat, play) in zip(out, history):
        row[0] = (seat - player) % 4
        row[1 : 1 + len(play)] = play
    return out


def history_moves(array: np.ndarray) -> list[tuple[int, tuple[int, ...]]]:
    """The ``(relative seat, play)`` moves of a :func:`history_array` (``()`` for a pass).

    Raises ``ValueError`` for an array that is not ``(n, 6)`` with seats 0..3 and card ids
    0..51 (ascending, then padding)."""
    array = np.asarray(array)
    if array.ndim != 2 or array.shape[1] != 6:
        raise ValueError(f"a move history is an (n, 6) array; got shape {array.shape}")
    moves = []
    for row in array.tolist():
        seat, cards = row[0], row[1:]
        play = tuple(c for c in cards if c != PAD_CARD)
        if seat not in (0, 1, 2, 3) or any(not 0 <= c < PAD_CARD for c in play) or list(play) != sorted(set(play)) or (
            cards[len(play) :] != [PAD_CARD] * (5 - len(play))
        ):
            raise ValueError(f"a history row is a seat 0..3 then ascending card ids 0..51 padded with {PAD_CARD}; got {row}")
        moves.append((seat, play))
    return moves


def decode_declined(vector: np.ndarray) -> tuple[tuple[int, ...], ...]:
    """Per other player (next, across, previous), per trick size 1..5: the weakest strength it
    passed on, or -1 where it never passed on a trick of that size."""
    flags = np.asarray(vector[EXT_DECLINED]).reshape(3, _SIZES)
    values = np.asarray(vector[EXT_DECLINED_STRENGTH], dtype=np.float64).reshape(3, _SIZES)
    return tuple(
        tuple(int(round(values[k, s] * STRENGTH_MAX[s])) if flags[k, s] else -1 for s in range(_SIZES)) for k in range(3)
    )
