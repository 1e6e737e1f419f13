"""big2-env: a fast, tested Big 2 (Big Two, Chor Dai Di) rules engine, the paper's
encodings, PettingZoo and Gymnasium environments, heuristic and search players, and the
evaluation protocol.

Quick start::

    import big2_env
    env = big2_env.env(render_mode="ansi")          # or pettingzoo.make("aec", "big2-v0")
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else int(obs["candidate_actions"][0])
        env.step(action)

Layers, each importing only those above it in this list (``python -m tools.imports``
checks it): :mod:`big2_env.engine` (the rules), :mod:`big2_env.observations` (what a player
sees), :mod:`big2_env.render`, :mod:`big2_env.players` (Random, Greedy, Smart, the search),
:mod:`big2_env.evaluation` (the protocol and agent specs), :mod:`big2_env.envs` (PettingZoo and
Gymnasium) and :mod:`big2_env.cli`. Learners plug in through entry points
(:mod:`big2_env.plugins`); big2_env never imports them.
"""

from .engine.cards import card_rank, card_str, card_suit, format_cards, format_play, parse_card, parse_cards, parse_play
from .engine.combos import CATEGORY_NAMES, Combo, beats, classify
from .engine.game import Game, IllegalPlayError
from .engine.legal import legal_plays
from .engine.rules import Rules
from .envs.aec import env, parallel_env, raw_env
from .envs.gym import Big2SingleAgentEnv, register_gymnasium
from .envs.opponents import opponents_env
from .evaluation.loading import load_agent
from .evaluation.versus import EvaluationResult, evaluate
from .observations.decision import Decision
from .observations.paper import (
    FEATURE_SIZE,
    NUM_ACTIONS,
    OBS_SIZE,
    PASS_ACTION,
    action_cards,
    action_index,
    legal_action_mask,
    observation,
    play_features,
)
from .players.search import SearchPolicy

__version__ = "0.2.0"

__all__ = [
    "Big2SingleAgentEnv",
    "CATEGORY_NAMES",
    "Combo",
    "Decision",
    "EvaluationResult",
    "FEATURE_SIZE",
    "Game",
    "IllegalPlayError",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "PASS_ACTION",
    "Rules",
    "SearchPolicy",
    "action_cards",
    "action_index",
    "beats",
    "card_rank",
    "card_str",
    "card_suit",
    "classify",
    "env",
    "evaluate",
    "format_cards",
    "format_play",
    "legal_action_mask",
    "legal_plays",
    "load_agent",
    "observation",
    "opponents_env",
    "parse_card",
    "parse_cards",
    "parallel_env",
    "parse_play",
    "play_features",
    "raw_env",
    "register_gymnasium",
    "vector_env",
    "warm_up",
]


def warm_up() -> float:
    """Compile (or load from numba's disk cache) every kernel of the compiled core: the engine's,
    the players' (Smart, the search's), the views' and both vector envs'. Returns the seconds it took.

    Call it in a parent process before starting helper processes that use the core (the
    package's own pools do): numba's cache has races when several processes build it at once.
    The first call after an install compiles (tens of seconds; it says so on stderr, and how long
    it took); later ones load the cache.
    """
    from .engine.compile_notice import watch
    from .envs.vector import warm_up as vector
    from .envs.vector_opponents import warm_up as single_agent
    from .observations.compiled import warm_up as views
    from .players.kernels import warm_up as players

    with watch().section():  # one notice for all of it, its end line before this returns
        return players() + views() + vector() + single_agent()


def __getattr__(name: str):
    """``vector_env`` and ``Big2VectorEnv`` load on first use: they import numba, which ``import big2_env`` does not."""
    if name in ("vector_env", "Big2VectorEnv"):
        from .envs import vector

        return getattr(vector, name)
    raise AttributeError(f"module 'big2_env' has no attribute {name!r}")


def _register() -> None:
    try:
        from pettingzoo import register
    except ImportError:  # PettingZoo < 1.27 has no registry (no register, no make)
        return
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        register("aec", "big2-v0", entry_point="big2_env.envs.aec:env")
        register("parallel", "big2-v0", entry_point="big2_env.envs.aec:parallel_env")


_register()

register_gymnasium()
