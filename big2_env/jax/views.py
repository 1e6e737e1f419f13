"""What a player sees, in JAX: the paper's 277 numbers and Charlesworth's 412.

Both are pure functions of a :class:`~big2_env.jax.game.GameState` and a seat, and read only
that seat's hand and the public record (plays, passes, cards left), never another hand's cards:

* :func:`paper_observation`: :mod:`big2_env.observations.paper`'s layout (the hand's card ids
  padded with 52, the trick, every card played, the others' cards left, the passes and the
  cards each other seat played), as the compiled core's ``write_observation`` writes it;
* :func:`charlesworth_observation`: :func:`big2_env.players.charlesworth.network_input`'s 412
  numbers, as the compiled vector env's ``write_charlesworth`` writes them (his quirks kept
  move by move in the state by :meth:`big2_env.jax.game.Game.step`).

Example:
    >>> import jax.numpy as jnp
    >>> from big2_env.jax.game import Game
    >>> x = Game().init(jnp.arange(52))
    >>> obs = paper_observation(x, 0)
    >>> obs.shape, obs[:3].tolist(), obs[117:121].tolist()
    ((277,), [0.0, 1.0, 2.0], [13.0, 13.0, 13.0, 0.0])
    >>> charlesworth_observation(x, 1).shape
    (412,)
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from .game import GameState, sorted_cards
from .tables import IN_WINDOW, RUN_WINDOWS

__all__ = ["CHARLESWORTH_SIZE", "OBS_SIZE", "VIEW_SIZES", "VIEWS", "charlesworth_observation", "observe", "paper_observation"]

Array = Any
OBS_SIZE = 277
CHARLESWORTH_SIZE = 412
VIEWS = ("paper", "charlesworth")
"""The views of the JAX core (the compiled vector env also has ``"extended"``)."""
VIEW_SIZES = {"paper": OBS_SIZE, "charlesworth": CHARLESWORTH_SIZE}

_RANK_ONE_HOT = np.eye(13, dtype=np.float32)[np.arange(52) // 4]  # (52, 13)
_SUIT_ONE_HOT = np.eye(4, dtype=np.float32)[np.arange(52) % 4]  # (52, 4)
_RANK_OF = np.arange(52) // 4
_SUIT_OF = np.arange(52) % 4


def _others(player: Array) -> Array:
    """The other seats from ``player``'s chair: next, across, previous."""
    return (player + jnp.arange(1, 4, dtype=jnp.int32)) % 4


def paper_observation(x: GameState, player: Array) -> Array:
    """The paper's 277 numbers (float32) for ``player`` (see :mod:`big2_env.observations.paper`)."""
    others = _others(player)
    return jnp.concatenate([
        sorted_cards(x.hands[player]).astype(jnp.float32),
        x.trick.astype(jnp.float32),
        x.played.any(axis=0).astype(jnp.float32),
        x.hands[others].sum(axis=1).astype(jnp.float32),
        jnp.reshape(x.passes, (1,)).astype(jnp.float32),
        x.played[others].reshape(-1).astype(jnp.float32),
    ])


def charlesworth_observation(x: GameState, player: Array) -> Array:
    """Charlesworth's 412 numbers (float32) for ``player`` (see :mod:`big2_env.players.charlesworth`).

    His hand's 13 slots of 22 (value, suit, held twice / three / four times, in a run of five or
    more consecutive values, suit held five or more times), then per other seat its cards left,
    which of A-D .. 2-S it played and its kind flags, the sixteen cards Q-D .. 2-S anyone
    played, and the last-play section kept for ``player``.
    """
    hand = x.hands[player]
    by_rank = hand.reshape(13, 4).sum(axis=1)
    by_suit = hand.reshape(13, 4).sum(axis=0)
    windows = (by_rank[jnp.asarray(RUN_WINDOWS)] > 0).all(axis=1)  # (9,): five consecutive values held
    in_run = (jnp.asarray(IN_WINDOW) & windows[None, :]).any(axis=1)  # (13,)
    held = by_rank[jnp.asarray(_RANK_OF)]  # (52,): how often each card's value is held
    rows = jnp.concatenate([
        jnp.asarray(_RANK_ONE_HOT),
        jnp.asarray(_SUIT_ONE_HOT),
        (held >= 2)[:, None],
        (held >= 3)[:, None],
        (held == 4)[:, None],
        in_run[jnp.asarray(_RANK_OF)][:, None],
        (by_suit[jnp.asarray(_SUIT_OF)] >= 5)[:, None],
    ], axis=1).astype(jnp.float32)  # (52, 22): each card's slot numbers
    rows = jnp.concatenate([rows, jnp.zeros((1, 22), dtype=jnp.float32)])  # the pad card's: empty slot
    slots = rows[sorted_cards(hand)].reshape(-1)  # 286
    others = _others(player)
    left = x.hands[others].sum(axis=1)
    blocks = jnp.concatenate([
        (left[:, None] - 1 == jnp.arange(13)[None, :]).astype(jnp.float32),
        x.played[others][:, 44:52].astype(jnp.float32),
        x.cw_flags[others].astype(jnp.float32),
    ], axis=1).reshape(-1)  # 3 x 27
    record = x.played.any(axis=0)[36:52].astype(jnp.float32)
    return jnp.concatenate([slots, blocks, record, x.cw_last[player].astype(jnp.float32)])


def observe(x: GameState, player: Array, view: str = "paper") -> Array:
    """``player``'s view ``"paper"`` (277 numbers) or ``"charlesworth"`` (412) of ``x``.

    >>> import jax.numpy as jnp
    >>> from big2_env.jax.game import Game
    >>> observe(Game().init(jnp.arange(52)), 0, "extended")
    Traceback (most recent call last):
    ...
    ValueError: view must be 'paper' (277 numbers) or 'charlesworth' (412); got 'extended'
    """
    if view == "paper":
        return paper_observation(x, player)
    if view == "charlesworth":
        return charlesworth_observation(x, player)
    raise ValueError(f"view must be 'paper' (277 numbers) or 'charlesworth' (412); got {view!r}")
