"""Big 2 on accelerators: the rules, both views and the 1695-action mask as pure JAX functions, in Pgx's form.
May import: big2_env.engine and big2_env.observations' pure-Python tables (and numpy, jax, optionally pgx).

Needs the ``[jax]`` extra (``pip install -e ".[jax]"``, or ``pip install "jax[cpu]"``); nothing
else of big2_env imports this package, so ``import big2_env`` never needs jax.

Modules: :mod:`~big2_env.jax.game` (:class:`Game`, the rules over a :class:`GameState`:
``init``, ``step``, ``legal_action_mask``, ``is_terminal``, ``scores``), :mod:`~big2_env.jax.views`
(the paper's 277 numbers and Charlesworth's 412), :mod:`~big2_env.jax.env` (:class:`Big2`, the
Pgx environment, and its :class:`State`) and :mod:`~big2_env.jax.tables` (the static tables).

Example:
    >>> import jax
    >>> from big2_env.jax import Big2
    >>> env = Big2("paper")
    >>> keys = jax.random.split(jax.random.PRNGKey(0), 8)
    >>> states = jax.jit(jax.vmap(env.init))(keys)
    >>> states.observation.shape, states.legal_action_mask.shape
    ((8, 277), (8, 1695))
"""

from __future__ import annotations

try:
    import jax as _jax  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the environment
    from ..errors import MissingDependencyError

    raise MissingDependencyError(
        "big2_env.jax needs jax: pip install -e '.[jax]' (or pip install 'jax[cpu]')"
    ) from error

from .env import ENV_ID, PGX, Big2, State
from .game import Game, GameState, sorted_cards
from .views import VIEWS, charlesworth_observation, observe, paper_observation

__all__ = [
    "ENV_ID",
    "PGX",
    "VIEWS",
    "Big2",
    "Game",
    "GameState",
    "State",
    "charlesworth_observation",
    "observe",
    "paper_observation",
    "sorted_cards",
]
