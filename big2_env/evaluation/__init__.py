"""The evaluation protocol (one agent against three opponents) and the resolver of agent specs.
May import: big2_env.engine, observations, players, errors and plugins (never the envs or agents).

Modules: :mod:`~big2_env.evaluation.arena` (:func:`evaluate`, :class:`EvaluationResult`, the
confidence intervals) and :mod:`~big2_env.evaluation.loading` (:func:`load_agent`: heuristics,
the search, SB3 ``.zip`` models and the specs plugins add, such as ``pretrained``).
"""

from ..errors import LoadError, MissingDependencyError, UntrustedModelError
from .arena import EvaluationResult, SeatResult, evaluate, wilson_interval
from .loading import agent_choices, load_agent, resolve_policy

__all__ = [
    "EvaluationResult",
    "LoadError",
    "MissingDependencyError",
    "SeatResult",
    "UntrustedModelError",
    "agent_choices",
    "evaluate",
    "load_agent",
    "resolve_policy",
    "wilson_interval",
]
