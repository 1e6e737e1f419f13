"""The players: the Policy interface, Random, Greedy and Smart, the searches and their parts, the beliefs, the SB3
adapter, Charlesworth's published network.
May import: big2_env.engine, big2_env.observations, big2_env.errors (never the envs, evaluation or agents).

Modules: :mod:`~big2_env.players.base` (:class:`Policy`, :func:`policy_actions`),
:mod:`~big2_env.players.random`, :mod:`~big2_env.players.greedy` and :mod:`~big2_env.players.smart`
(the paper's baselines), :mod:`~big2_env.players.beliefs` (reading the move history),
:mod:`~big2_env.players.public` (the public state an observation shows),
:mod:`~big2_env.players.determinized` (the determinised search's loop, its candidates and how it chooses),
:mod:`~big2_env.players.dealers` (how the searches deal the hidden cards), :mod:`~big2_env.players.valuers`
(how they value a position: rollout policies and valuers), :mod:`~big2_env.players.search`
(:class:`SearchPolicy`, the loop configured with Smart), :mod:`~big2_env.players.ismcts`
(:class:`~big2_env.players.ismcts.ISMCTSPolicy`, information-set MCTS; the agent spec ``ismcts``),
:mod:`~big2_env.players.fast` (the fast learned move model, its weights in ``data/``: the agent spec
``fast`` and the search's ``rollout="fast"``), :mod:`~big2_env.players.kernels` (the compiled kernels
of Smart, the fast model, the search's play-outs and beliefs' replay, loaded on first use),
:mod:`~big2_env.players.sb3`
(Stable-Baselines3 models as policies, loaded safely), :mod:`~big2_env.players.charlesworth`
(Charlesworth's network from his parameter file, ``charlesworth:PATH``; numpy only, loaded
without unpickling) and :mod:`~big2_env.players.registry`
(:func:`make_policy` and :data:`POLICIES`).
"""

from .base import Observation, Policy, legal_actions, policy_actions
from .greedy import GreedyPolicy
from .random import RandomPolicy
from .registry import POLICIES, make_policy
from .sb3 import SB3Policy
from .search import SearchPolicy
from .smart import SmartPolicy

__all__ = [
    "POLICIES",
    "GreedyPolicy",
    "Observation",
    "Policy",
    "RandomPolicy",
    "SB3Policy",
    "SearchPolicy",
    "SmartPolicy",
    "legal_actions",
    "make_policy",
    "policy_actions",
]
