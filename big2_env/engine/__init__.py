"""The rules engine: cards and hand bitmasks, rule variants, combinations, legal plays and the game.
May import: the standard library, numpy and numba only: nothing else of big2_env and no RL library (it knows nothing of RL).

Modules: :mod:`~big2_env.engine.cards` (card ids, parsing, 52-bit masks, input checks),
:mod:`~big2_env.engine.rules` (:class:`Rules` and its presets), :mod:`~big2_env.engine.combos`
(classification and ordering), :mod:`~big2_env.engine.legal` (legal plays) and
:mod:`~big2_env.engine.game` (:class:`Game`, the state machine). The rules themselves live in one
place, the compiled core :mod:`big2_env.engine.core` (numba kernels on bitmasks): ``combos``,
``legal`` and ``Game`` ask it through :mod:`~big2_env.engine.native`, which imports it (and
numba) on first use, so ``import big2_env`` stays light. The pure-Python engine that came before
the core is kept in ``tests/reference`` as the reference it is tested against.
"""

from .cards import card_rank, card_str, card_suit, format_cards, format_play, parse_card, parse_cards, parse_play
from .combos import CATEGORY_NAMES, Combo, beats, classify
from .game import Game, IllegalPlayError
from .legal import legal_plays
from .rules import Rules

__all__ = [
    "CATEGORY_NAMES",
    "Combo",
    "Game",
    "IllegalPlayError",
    "Rules",
    "beats",
    "card_rank",
    "card_str",
    "card_suit",
    "classify",
    "format_cards",
    "format_play",
    "legal_plays",
    "parse_card",
    "parse_cards",
    "parse_play",
]
