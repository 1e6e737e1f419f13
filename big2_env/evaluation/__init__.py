"""Measuring agents: the paper's protocol (one agent against three opponents), the arena (every agent of a pool
rated at mixed four-seat tables) and the resolver of agent specs.
May import: big2_env.engine, observations, players, errors and plugins (never the envs or agents).

Modules: :mod:`~big2_env.evaluation.arena` (``big2 arena``: :func:`~big2_env.evaluation.arena.run_arena`,
OpenSkill ratings from duplicate games at tables of mixed agents, a head-to-head matrix),
:mod:`~big2_env.evaluation.versus` (the paper's protocol, one agent versus three copies of an
opponent: :func:`evaluate`, :class:`EvaluationResult`, the confidence intervals),
:mod:`~big2_env.evaluation.loading` (:func:`load_agent`: heuristics, the search, SB3 ``.zip`` models
and the specs plugins add, such as ``pretrained``), :mod:`~big2_env.evaluation.progress` (the progress
bar with its time left) and :mod:`~big2_env.evaluation.workers` (how worker processes start).
"""

from ..errors import LoadError, MissingDependencyError, UntrustedModelError
from .versus import EvaluationResult, SeatResult, evaluate, wilson_interval
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
