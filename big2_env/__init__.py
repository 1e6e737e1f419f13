"""big2-env: a fast, tested Big 2 (Big Two, Chor Dai Di) rules engine, the paper's
encodings and a PettingZoo AEC environment.

Quick start::

    import big2_env
    env = big2_env.env(render_mode="ansi")          # or pettingzoo.make("aec", "big2-v0")
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else int(obs["candidate_actions"][0])
        env.step(action)
"""

from .aec_env import env, parallel_env, raw_env
from .cards import card_rank, card_str, card_suit, format_cards, format_play, parse_card, parse_cards, parse_play
from .combos import CATEGORY_NAMES, Combo, beats, classify
from .encoding import (
    FEATURE_SIZE,
    NUM_ACTIONS,
    OBS_SIZE,
    PASS_ACTION,
    Decision,
    action_cards,
    action_index,
    legal_action_mask,
    observation,
    play_features,
)
from .game import Game, IllegalPlayError
from .legal import legal_plays
from .rules import Rules

__version__ = "0.1.0"

__all__ = [
    "CATEGORY_NAMES",
    "Combo",
    "Decision",
    "FEATURE_SIZE",
    "Game",
    "IllegalPlayError",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "PASS_ACTION",
    "Rules",
    "action_cards",
    "action_index",
    "beats",
    "card_rank",
    "card_str",
    "card_suit",
    "classify",
    "env",
    "format_cards",
    "format_play",
    "legal_action_mask",
    "legal_plays",
    "observation",
    "parse_card",
    "parse_cards",
    "parallel_env",
    "parse_play",
    "play_features",
    "raw_env",
]


def _register() -> None:
    try:
        from pettingzoo import register
    except ImportError:  # PettingZoo < 1.27 has no registry (no register, no make)
        return
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        register("aec", "big2-v0", entry_point="big2_env.aec_env:env")
        register("parallel", "big2-v0", entry_point="big2_env.aec_env:parallel_env")


_register()

from .evaluation import EvaluationResult, evaluate  # noqa: E402
from .gym_env import Big2SingleAgentEnv, register_gymnasium  # noqa: E402
from .opponents import opponents_env  # noqa: E402
from .search import SearchPolicy  # noqa: E402

register_gymnasium()
__all__ += ["Big2SingleAgentEnv", "EvaluationResult", "SearchPolicy", "evaluate", "opponents_env", "register_gymnasium"]
