"""Big 2 as a Pgx environment: :class:`Big2` and its :class:`State`.

The environment follows Pgx's conventions (and subclasses ``pgx.Env`` and ``pgx.State`` when
``pgx`` is installed, so Pgx's own API test runs on it):

* ``state = env.init(key)`` deals a game from a ``jax.random`` key; ``env.init_deck(deck)``
  deals a given deck (seat ``i`` gets ``deck[13 i : 13 i + 13]``, as the compiled core deals);
* ``state = env.step(state, action)`` plays one action of the 1695-action index for the seat on
  move (``state.current_player``);
* the state carries Pgx's public fields: ``current_player`` (int32: the seat on move, 0..3),
  ``observation`` (float32: the paper's 277 numbers, or Charlesworth's 412 with
  ``observation="charlesworth"``), ``rewards`` (float32 ``[4]`` in seat order: the final scores,
  on the step that ends the game, else zeros), ``terminated``, ``truncated`` (always false: every
  game ends) and ``legal_action_mask`` (bool ``[1695]``); everything else is private (``_x``,
  the rules' :class:`~big2_env.jax.game.GameState`, and ``_step_count``);
* ``env.observe(state, player_id)`` gives any seat's view (its own hand and the public record);
* Pgx's shared semantics: stepping a finished game changes nothing and gives zero rewards; at a
  finished state every action is marked legal (so that masked probabilities stay defined); an
  illegal action ends the game, the mover scoring -3 and each other seat +1.

A player id here is the seat: the deal decides who opens (the holder of 3D), so the seats
are already symmetric and Pgx's random player order would add nothing.

Every option of :class:`~big2_env.engine.rules.Rules` is static configuration: each rule set
compiles to its own program. ``jax.jit`` and ``jax.vmap`` apply to ``init`` and ``step``.

Example:
    >>> import jax
    >>> env = Big2(rules="charlesworth", observation="charlesworth")
    >>> state = jax.jit(env.init)(jax.random.PRNGKey(0))
    >>> state.observation.shape, state.legal_action_mask.shape, int(state.legal_action_mask.sum())
    ((412,), (1695,), 1)
    >>> state = jax.jit(env.step)(state, jax.numpy.argmax(state.legal_action_mask))  # 3D alone
    >>> int(state._step_count), bool(state.terminated)
    (1, False)
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

import jax
import jax.numpy as jnp

from ..engine.cards import card_str
from ..engine.rules import Rules
from .game import Game, GameState
from .tables import NUM_ACTIONS
from .views import VIEW_SIZES, VIEWS, observe

try:  # Pgx is optional: with it, the env is a pgx.Env (and its state a pgx.State)
    from pgx import core as _pgx_core
except ImportError:  # pragma: no cover - depends on the environment
    _pgx_core = None

__all__ = ["Big2", "ENV_ID", "ILLEGAL_PENALTY", "PGX", "State"]

Array = Any
ENV_ID = "big2"
ILLEGAL_PENALTY = -3.0
"""The mover's reward when it takes an illegal action (the game ends; each other seat gets +1)."""
PGX = _pgx_core is not None
"""Whether ``pgx`` is installed (then :class:`Big2` subclasses ``pgx.Env``)."""

_StateBase: Any = _pgx_core.State if _pgx_core is not None else object
_EnvBase: Any = _pgx_core.Env if _pgx_core is not None else object


@dataclasses.dataclass(frozen=True)
class State(_StateBase):
    """One game's state (Pgx's public fields, and the rules' state in ``_x``); see the module docstring."""

    current_player: Array
    observation: Array
    rewards: Array
    terminated: Array
    truncated: Array
    legal_action_mask: Array
    _step_count: Array
    _x: GameState

    @property
    def env_id(self) -> str:
        return ENV_ID

    def replace(self, **changes: Any) -> "State":
        """A copy with ``changes`` (the state is immutable)."""
        return dataclasses.replace(self, **changes)

    def to_svg(self, *, color_theme: str | None = None, scale: float | None = None) -> str:
        """A plain picture of the table: each seat's hand and the trick (a batch: one block per game)."""
        del color_theme
        hands = jax.device_get(self._x.hands).reshape(-1, 4, 52)
        tricks = jax.device_get(self._x.trick).reshape(-1, 52)
        movers = jax.device_get(self.current_player).reshape(-1)
        lines: list[str] = []
        for g in range(len(hands)):
            lines.append(f"game {g}" if len(hands) > 1 else "big2")
            for seat in range(4):
                cards = " ".join(card_str(c) for c in range(52) if hands[g, seat, c])
                lines.append(f"{'>' if movers[g] == seat else ' '} seat {seat}: {cards}")
            lines.append("  trick: " + (" ".join(card_str(c) for c in range(52) if tricks[g, c]) or "(lead)"))
        size = 1.0 if scale is None else float(scale)
        height = int((20 * len(lines) + 10) * size)
        width = int(480 * size)
        texts = "".join(
            f'<text x="10" y="{20 * (i + 1)}" font-family="monospace" font-size="14">{line}</text>'
            for i, line in enumerate(lines)
        )
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                f'viewBox="0 0 480 {20 * len(lines) + 10}">{texts}</svg>')

    def save_svg(self, filename: str, *, color_theme: str | None = None, scale: float | None = None) -> None:
        """Write :meth:`to_svg` to ``filename`` (which must end with ``.svg``)."""
        if not str(filename).endswith(".svg"):
            raise ValueError(f"filename must end with .svg; got {filename!r}")
        with open(filename, "w", encoding="utf-8") as out:
            out.write(self.to_svg(color_theme=color_theme, scale=scale))


jax.tree_util.register_dataclass(
    State,
    data_fields=[f.name for f in dataclasses.fields(State)],
    meta_fields=[],
)


class Big2(_EnvBase):
    """Big 2 for four seats in JAX, in Pgx's form (see the module docstring).

    Args:
        rules: a :class:`~big2_env.engine.rules.Rules`, a preset name (``"paper"``,
            ``"charlesworth"``), a dict of its keywords or ``None`` (the paper's rules).
        observation: ``"paper"`` (277 numbers, default) or ``"charlesworth"`` (412).

    >>> Big2(observation="extended")
    Traceback (most recent call last):
    ...
    ValueError: observation must be 'paper' (277 numbers) or 'charlesworth' (412); got 'extended'
    """

    def __init__(self, rules: Rules | str | Mapping[str, Any] | None = None, observation: str = "paper") -> None:
        if not isinstance(observation, str) or observation not in VIEWS:
            raise ValueError(f"observation must be 'paper' (277 numbers) or 'charlesworth' (412); got {observation!r}")
        self.game = Game(rules)
        self.rules = self.game.rules
        self.view = observation

    def __repr__(self) -> str:
        return f"Big2(rules={self.rules!r}, observation={self.view!r})"

    # ------------------------------------------------------------------ Pgx's surface
    def init(self, key: Array) -> State:
        """A new game dealt with ``key`` (a ``jax.random`` key)."""
        return self._init(key)

    def init_deck(self, deck: Array) -> State:
        """A new game dealt from ``deck``, a permutation of 0..51 (seat ``i`` gets ``deck[13 i : 13 i + 13]``)."""
        x = self.game.init(deck)
        state = State(
            current_player=x.player,
            observation=jnp.zeros(VIEW_SIZES[self.view], dtype=jnp.float32),
            rewards=jnp.zeros(4, dtype=jnp.float32),
            terminated=jnp.bool_(False),
            truncated=jnp.bool_(False),
            legal_action_mask=self.game.legal_action_mask(x),
            _step_count=jnp.int32(0),
            _x=x,
        )
        return state.replace(observation=self.observe(state))

    def step(self, state: State, action: Array, key: Array | None = None) -> State:
        """The seat on move takes ``action`` (an int in 0..1694); ``key`` is unused (the game has no chance after the deal)."""
        del key
        action = jnp.asarray(action, dtype=jnp.int32)
        illegal = ~state.legal_action_mask[action]
        done = state.terminated | state.truncated
        counted = state.replace(_step_count=state._step_count + 1)
        stepped = self._step(counted, action, None)
        mover = jax.nn.one_hot(state.current_player, 4, dtype=jnp.float32)
        penalised = counted.replace(rewards=1.0 + (ILLEGAL_PENALTY - 1.0) * mover, terminated=jnp.bool_(True))
        stopped = state.replace(rewards=jnp.zeros_like(state.rewards))
        state = jax.tree.map(lambda a, b, c: jnp.where(done, a, jnp.where(illegal, b, c)), stopped, penalised, stepped)
        state = state.replace(legal_action_mask=state.legal_action_mask | state.terminated)
        return state.replace(observation=self.observe(state))

    def step_autoreset(self, state: State, action: Array, key: Array | None = None, deck: Array | None = None) -> State:
        """:meth:`step` for training loops: a game that ends is dealt again in the same call.

        Gymnasium's same-step autoreset, as the compiled vector env does it: the returned state's
        ``rewards`` and ``terminated`` describe the step just taken (the ended game's scores), and
        everything else (``observation``, ``legal_action_mask``, ``current_player``, ``_x``) is the
        new game's first decision. The new deal comes from ``key`` (a ``jax.random`` key) or is
        ``deck`` (give one of them). ``action`` must be legal (no penalty path here), and the
        mask and the view are computed once, for the state returned, not for the ended game too.

        >>> import jax
        >>> env = Big2()
        >>> state = env.init(jax.random.PRNGKey(0))
        >>> after = jax.jit(env.step_autoreset)(state, jax.numpy.argmax(state.legal_action_mask), jax.random.PRNGKey(1))
        >>> int(after._step_count), bool(after.terminated)
        (1, False)
        """
        if key is not None and deck is None:
            deck = jax.random.permutation(key, 52)
        elif (key is None) == (deck is None):
            raise ValueError("give step_autoreset a key or a deck (one of them) for the next deal")
        x = self.game.step(state._x, jnp.asarray(action, dtype=jnp.int32))
        ended = self.game.is_terminal(x)
        rewards = self.game.rewards(x)
        fresh = self.game.init(deck)
        x = jax.tree.map(lambda new, old: jnp.where(ended, new, old), fresh, x)
        return State(
            current_player=x.player,
            observation=observe(x, x.player, self.view),
            rewards=rewards,
            terminated=ended,
            truncated=jnp.bool_(False),
            legal_action_mask=self.game.legal_action_mask(x),
            _step_count=jnp.where(ended, 0, state._step_count + 1).astype(jnp.int32),
            _x=x,
        )

    def observe(self, state: State, player_id: Array | None = None) -> Array:
        """The view of seat ``player_id`` (default: the seat on move): its hand and the public record only."""
        player = state.current_player if player_id is None else jnp.asarray(player_id, dtype=jnp.int32)
        return jax.lax.stop_gradient(observe(state._x, player, self.view))

    def scores(self, state: State) -> Array:
        """``int32[4]``: the final scores in seat order once the game is over (zeros before)."""
        return self.game.scores(state._x)

    def winner(self, state: State) -> Array:
        """``int32``: the seat that won, -1 while the game goes on."""
        return state._x.winner

    # ------------------------------------------------------------------ Pgx's game-specific parts
    def _init(self, key: Array) -> State:
        return self.init_deck(jax.random.permutation(key, 52))

    def _step(self, state: Any, action: Array, key: Any) -> State:
        del key
        x = self.game.step(state._x, action)
        return state.replace(  # type: ignore[no-any-return]
            current_player=x.player,
            legal_action_mask=self.game.legal_action_mask(x),
            rewards=self.game.rewards(x),
            terminated=self.game.is_terminal(x),
            _x=x,
        )

    def _observe(self, state: Any, player_id: Array) -> Array:
        return observe(state._x, player_id, self.view)

    @property
    def id(self) -> str:
        return ENV_ID

    @property
    def version(self) -> str:
        return "v0"

    @property
    def num_players(self) -> int:
        return 4

    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (VIEW_SIZES[self.view],)
