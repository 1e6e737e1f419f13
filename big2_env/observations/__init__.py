"""What a player sees: the paper's 277-number state and 1695-action index, the extended 315-number view and history.
May import: big2_env.engine (and numpy, gymnasium.spaces).

Modules: :mod:`~big2_env.observations.paper` (the paper's encodings: state, action index and
mask, candidate features; its 277 numbers are written by the compiled view
:mod:`~big2_env.observations.compiled`, numba, loaded at first use), :mod:`~big2_env.observations.layout`
(the sizes and slices both share), :mod:`~big2_env.observations.charlesworth`
(Charlesworth's 412 numbers in numba, with their memory of the game),
:mod:`~big2_env.observations.extended` (the extended view and the public move history),
:mod:`~big2_env.observations.decision` (:class:`Decision`, one move's view shared by every consumer)
and :mod:`~big2_env.observations.spaces` (the Gymnasium spaces).
"""

from .decision import Decision, PolicyObservation, observation_dict
from .extended import EXTENDED_SIZE, extended_observation, history_array, history_moves
from .paper import (
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
from .spaces import observation_space, vector_space

__all__ = [
    "EXTENDED_SIZE",
    "FEATURE_SIZE",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "PASS_ACTION",
    "Decision",
    "PolicyObservation",
    "action_cards",
    "action_index",
    "extended_observation",
    "history_array",
    "history_moves",
    "legal_action_mask",
    "observation",
    "observation_dict",
    "observation_space",
    "play_features",
    "vector_space",
]
