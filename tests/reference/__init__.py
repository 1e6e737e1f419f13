"""The reference engine: the pure-Python rules engine that ``big2_env`` ran on before its compiled core.

The package's engine (:mod:`big2_env.engine`) now answers every rules question from the compiled
kernels (:mod:`big2_env.engine.core`). This is the independent implementation it is tested
against: the differential tests (``tests/differential/test_reference_engine.py``, ``tests/differential/test_core.py``) play
the same moves in both and compare legal plays, turn order, tricks, control, winners and scores,
and ``benchmarks/env_speed.py`` and ``benchmarks/core_vs_reference.py`` time and check the core
beside it. :mod:`tests.reference.smart` is the pure-Python Smart (Algorithm 2) that the compiled
Smart of :class:`big2_env.players.smart.SmartPolicy` is tested against; :mod:`tests.reference.paper_view`
is the pure-Python 277-number view that the compiled one of :mod:`big2_env.observations.compiled` is
tested against. It imports only
``big2_env.engine.cards`` and ``big2_env.engine.rules`` (card text and the rules value), never the core;
but for the searches' oracles, which read the search's own types: :mod:`tests.reference.dealers` (the
determinisations in Python, against the compiled deals) and :mod:`tests.reference.rollouts` (Smart and the
fast model as rollout policies on the Python engine, against the compiled play-outs).
"""

from .combos import Combo, beats, classify, enumerate_combos
from .game import Game, IllegalPlayError, deal_hands, hand_penalty
from .legal import legal_entries_from, legal_plays, select_entries

__all__ = [
    "Combo",
    "Game",
    "IllegalPlayError",
    "beats",
    "classify",
    "deal_hands",
    "enumerate_combos",
    "hand_penalty",
    "legal_entries_from",
    "legal_plays",
    "select_entries",
]
