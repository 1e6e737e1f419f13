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

A pass on a trick says, for most players, that they could not beat it: Greedy
passes only then, Smart seldom otherwise, Random often (``docs/observations.md``
gives the shares). Since a hand only loses
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

from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from ..engine.combos import classify
from .paper import OBS_HAND, OBS_SIZE, PAD_CARD, observation
from ..engine.rules import Rules

__all__ = [
    "EXTENDED_SIZE",
    "EXT_CONTROL",
    "EXT_DECLINED",
    "EXT_DECLINED_STRENGTH",
    "EXT_OWN_CARDS",
    "EXT_PASSED_ROUND",
    "HISTORY_ROWS",
    "NO_MOVE",
    "HistoryRows",
    "STRENGTH_MAX",
    "decode_declined",
    "extended_features",
    "extended_observation",
    "extended_view",
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
    extra = extended_features(game.history, player, game.cards_left(player), game.rules)
    return np.concatenate((observation(game, player), extra))


HISTORY_ROWS = 256
"""The rows of a public move history: more moves than any game can take (at most 52 plays, each
followed by at most 3 passes), so every game's history fits."""

NO_MOVE = -1
"""What fills the rows of a public move history after its last move."""


def history_array(history: Sequence[tuple[int, tuple[int, ...]]], player: int) -> np.ndarray:
    """The public move history as ``player`` sees it: an int16 array of shape
    ``(HISTORY_ROWS, 6)``, one row per move so far, oldest first: the mover's seat relative to
    ``player`` (0 = ``player``, then 1, 2, 3 clockwise), then the cards played in ascending order,
    padded with ``PAD_CARD`` (52); a pass is all padding after the seat. The rows after the last
    move are all ``NO_MOVE`` (-1). Every player sees every move, so nothing here is private. It is
    the ``"history"`` entry of the envs' observations (``history=True``, their default) and of the
    package's game loops' observations (:class:`big2_env.observations.decision.PolicyObservation`).

    Example:
        >>> rows = history_array([(1, (0,)), (2, ()), (3, (5, 6))], player=2)
        >>> rows.shape, rows[:4].tolist()
        ((256, 6), [[3, 0, 52, 52, 52, 52], [0, 52, 52, 52, 52, 52], [1, 5, 6, 52, 52, 52], [-1, -1, -1, -1, -1, -1]])
    """
    return HistoryRows().view(list(history), player)


class HistoryRows:
    """One game's public move history kept as rows, as each seat sees it, extended move by move: the
    one writer of :func:`history_array`'s rows. The envs keep one per game, so each observation's
    ``"history"`` costs a copy, not a rebuild from the first move.

    Example:
        >>> from big2_env import Game
        >>> game, rows = Game(seed=0), HistoryRows()
        >>> game.play(game.legal_plays()[0])
        >>> bool((rows.view(game.history, 1) == history_array(game.history, 1)).all())
        True
    """

    __slots__ = ("_rows", "_moves", "_source")

    def __init__(self) -> None:
        self._rows = np.full((4, HISTORY_ROWS, 6), NO_MOVE, dtype=np.int16)  # as each seat sees it
        self._moves = 0
        self._source: object = None

    def view(self, history: list[tuple[int, tuple[int, ...]]], player: int) -> np.ndarray:
        """:func:`history_array` of ``history`` (a game's list of moves, which only grows) for ``player``."""
        rows = self._rows
        if history is not self._source or len(history) < self._moves:  # another game
            rows[:, : self._moves] = NO_MOVE
            self._moves, self._source = 0, history
        if len(history) > HISTORY_ROWS:
            raise ValueError(f"a move history holds at most {HISTORY_ROWS} moves; got {len(history)}")
        for seat, play in history[self._moves :]:
            rows[:, self._moves, 0] = _SEEN_FROM[seat]
            rows[:, self._moves, 1:] = tuple(play) + _PADDING[len(play)]
            self._moves += 1
        return rows[player].copy()


_SEEN_FROM = [np.array([(seat - player) % 4 for player in range(4)], dtype=np.int16) for seat in range(4)]
"""``_SEEN_FROM[seat][player]``: ``seat`` relative to ``player``."""
_PADDING = [(PAD_CARD,) * (5 - size) for size in range(6)]


def history_moves(array: np.ndarray) -> list[tuple[int, tuple[int, ...]]]:
    """The ``(relative seat, play)`` moves of a :func:`history_array` (``()`` for a pass).

    The rows after the last move are ``NO_MOVE`` rows; an array of the moves alone (``(n, 6)``,
    no such rows) reads the same. Raises ``ValueError`` for an array that is not ``(n, 6)`` with
    seats 0..3 and card ids 0..51 (ascending, then padding), then only ``NO_MOVE`` rows."""
    array = np.asarray(array)
    if array.ndim != 2 or array.shape[1] != 6:
        raise ValueError(f"a move history is an (n, 6) array; got shape {array.shape}")
    moves = []
    rows = array.tolist()
    for i, row in enumerate(rows):
        seat, cards = row[0], row[1:]
        if seat == NO_MOVE:
            if any(value != NO_MOVE for later in rows[i:] for value in later):
                raise ValueError(f"a move history's rows after its last move are all {NO_MOVE}; got {row} at row {i} "
                                 "followed by other values")
            break
        play = tuple(c for c in cards if c != PAD_CARD)
        if seat not in (0, 1, 2, 3) or any(not 0 <= c < PAD_CARD for c in play) or list(play) != sorted(set(play)) or (
            cards[len(play) :] != [PAD_CARD] * (5 - len(play))
        ):
            raise ValueError(f"a history row is a seat 0..3 then ascending card ids 0..51 padded with {PAD_CARD}; got {row}")
        moves.append((seat, play))
    return moves


def extended_view(obs: Mapping[str, Any], rules: Rules, required: bool = True) -> Mapping[str, Any]:
    """``obs`` as a policy that reads the public history sees it: its ``"observation"`` the 315
    numbers of the extended view, its ``"history"`` the moves.

    An observation that already holds the 315 numbers (``observation="extended"``, or the
    package's game loops) comes back as it is; one with the paper's 277 numbers and a
    ``"history"`` (the envs' default) gets the 38 extra numbers computed from that history,
    the same numbers :func:`extended_observation` gives. When neither holds (an env made with
    ``history=False``): ``ValueError`` if ``required``, else ``obs`` as it is.

    Example:
        >>> from big2_env import Game
        >>> from big2_env.observations.decision import observation_dict
        >>> game = Game(seed=3)
        >>> for _ in range(6):
        ...     game.play(game.legal_plays()[-1])
        >>> view = extended_view(observation_dict(game), game.rules)
        >>> bool((view["observation"] == extended_observation(game, game.current_player)).all())
        True
    """
    vector = np.asarray(obs["observation"])
    if vector.shape[-1] == EXTENDED_SIZE and "history" in obs:
        return obs
    if "history" not in obs:
        if not required:
            return obs
        raise ValueError(
            "this agent reads the public move history: give it an observation with a 'history' entry "
            "(the envs' default; history=False drops it)"
        )
    hand_size = int(np.count_nonzero(vector[:OBS_SIZE][OBS_HAND] != PAD_CARD))
    extra = extended_features(history_moves(obs["history"]), 0, hand_size, rules)
    view = dict(obs)
    view["observation"] = np.concatenate((np.asarray(vector[:OBS_SIZE], dtype=np.float32), extra))
    return view


def decode_declined(vector: np.ndarray) -> tuple[tuple[int, ...], ...]:
    """Per other player (next, across, previous), per trick size 1..5: the weakest strength it
    passed on, or -1 where it never passed on a trick of that size."""
    flags = np.asarray(vector[EXT_DECLINED]).reshape(3, _SIZES)
    values = np.asarray(vector[EXT_DECLINED_STRENGTH], dtype=np.float64).reshape(3, _SIZES)
    return tuple(
        tuple(int(round(values[k, s] * STRENGTH_MAX[s])) if flags[k, s] else -1 for s in range(_SIZES)) for k in range(3)
    )
