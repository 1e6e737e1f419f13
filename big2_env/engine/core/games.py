"""The game's state in the compiled core: the table, one move applied, the final scores (numba).
Inputs are trusted (see :mod:`big2_env.engine.core.kernels`).

A table is nine int64 columns of :data:`TABLE_FIELDS` (the player on move, the trick's size,
strength, category and card mask, the passes since the last play, whether it is the opening,
the winner or -1, and the bitmask of the seats that passed since the trick was led: under the
``pass_locks`` rule they may only pass until it ends, :func:`locked`) beside the four hands' bitmasks, in a row of a 2-D array;
:func:`apply_move` is the one place where a play or a pass changes them, for every game: a
:class:`~big2_env.engine.game.Game` (one such row), the seated games and the search's play-outs of
:mod:`big2_env.players.kernels`, the vector envs.
"""

from __future__ import annotations

from numba import njit

from .kernels import R_PASS_LOCKS, hand_penalty, legal_rows, popcount

T_PLAYER, T_SIZE, T_STRENGTH, T_CATEGORY, T_MASK, T_PASSES, T_OPENING, T_WINNER, T_PASSED = range(9)
TABLE_FIELDS = ("player", "trick_size", "trick_strength", "trick_category", "trick_mask", "passes", "opening", "winner",
                "passed")
TABLE_SIZE = len(TABLE_FIELDS)
GAME_SIZE = 4 + TABLE_SIZE
"""Columns of a game row of the plain layout: the four hands (0..3), then the table (4..12)."""
HANDS_AT, TABLE_AT = 0, 4


# The helpers address a game as a row ``g`` of a 2-D int64 array, with its hands at column
# ``h`` and its table at column ``t``, rather than through slices: a slice is a new array
# object, whose reference count the threads of a parallel kernel would fight over.
@njit(cache=True)
def new_table(rows, g, t, player: int, opening: int) -> None:  # pragma: no cover - compiled
    """A fresh trick-less table with ``player`` on move (``opening``: nothing played yet)."""
    for k in range(TABLE_SIZE):
        rows[g, t + k] = 0
    rows[g, t + T_PLAYER] = player
    rows[g, t + T_OPENING] = opening
    rows[g, t + T_WINNER] = -1


@njit(cache=True)
def apply_move(rows, g, h, t, mask: int, size: int, strength: int, category: int) -> None:  # pragma: no cover
    """The player on move plays ``mask`` (0: passes); three passes in a row clear the trick (and
    who passed in it), and emptying a hand wins (the winner stays on move)."""
    player = rows[g, t + T_PLAYER]
    if mask == 0:
        rows[g, t + T_PASSES] += 1
        rows[g, t + T_PASSED] |= 1 << player
        if rows[g, t + T_PASSES] == 3:
            rows[g, t + T_SIZE] = 0
            rows[g, t + T_STRENGTH] = 0
            rows[g, t + T_CATEGORY] = 0
            rows[g, t + T_MASK] = 0
            rows[g, t + T_PASSED] = 0
        rows[g, t + T_PLAYER] = (player + 1) % 4
        return
    rows[g, h + player] ^= mask
    rows[g, t + T_SIZE] = size
    rows[g, t + T_STRENGTH] = strength
    rows[g, t + T_CATEGORY] = category
    rows[g, t + T_MASK] = mask
    rows[g, t + T_PASSES] = 0
    rows[g, t + T_OPENING] = 0
    if rows[g, h + player] == 0:
        rows[g, t + T_WINNER] = player
    else:
        rows[g, t + T_PLAYER] = (player + 1) % 4


@njit(cache=True)
def move_one(rows, mask: int, size: int, strength: int, category: int):  # pragma: no cover - compiled
    """:func:`apply_move` in the one game of ``rows`` (the plain layout); returns the table after it,
    field by field (:data:`TABLE_FIELDS`): what a one-game :class:`~big2_env.engine.game.Game` reads back."""
    apply_move(rows, 0, HANDS_AT, TABLE_AT, mask, size, strength, category)
    t = TABLE_AT
    return (rows[0, t], rows[0, t + 1], rows[0, t + 2], rows[0, t + 3], rows[0, t + 4], rows[0, t + 5],
            rows[0, t + 6], rows[0, t + 7], rows[0, t + 8])


@njit(cache=True)
def move_and_list(rows, mask: int, size: int, strength: int, category: int, rules, scratch):  # pragma: no cover
    """:func:`move_one`, then the legal non-pass plays of the seat on move after it, written to
    ``scratch`` as :func:`~big2_env.engine.core.kernels.legal_rows` writes them. Returns their count
    (-1 when the game is over, -2 when the seat on move may only pass: :func:`locked`) and the table."""
    table = move_one(rows, mask, size, strength, category)
    t = TABLE_AT
    if rows[0, t + T_WINNER] >= 0:
        return -1, table
    if locked(rows, 0, t, rules):
        return -2, table
    k = legal_rows(rows[0, HANDS_AT + rows[0, t + T_PLAYER]], rules, rows[0, t + T_SIZE], rows[0, t + T_STRENGTH],
                   rows[0, t + T_OPENING] == 1, scratch)
    return k, table


@njit(cache=True)
def locked(rows, g, t, rules) -> bool:  # pragma: no cover - compiled
    """Whether the player on move in row ``g`` (table at column ``t``) may only pass: under the
    ``pass_locks`` rule, it passed earlier in the trick on the table."""
    return rules[R_PASS_LOCKS] != 0 and (rows[g, t + T_PASSED] >> rows[g, t + T_PLAYER]) & 1 == 1


@njit(cache=True)
def final_scores(rows, g, h, winner: int, scoring: int, scores) -> None:  # pragma: no cover - compiled
    """Each loser pays its hand's penalty to the winner (``scores``: four numbers summing to 0)."""
    total = 0
    for p in range(4):
        penalty = hand_penalty(popcount(rows[g, h + p]), scoring)
        scores[p] = -penalty
        total += penalty
    scores[winner] = total
