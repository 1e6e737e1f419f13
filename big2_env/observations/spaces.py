"""The Gymnasium spaces of the observations and actions, shared by every environment and the safe SB3 loader.

:func:`observation_space` is the per-agent ``Dict`` space (the paper's 277 numbers or the extended
315, the 1695-action mask, and the candidate view); :func:`vector_space` the numbers alone;
:class:`ActionSpace` is ``Discrete(1695)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from .extended import EXTENDED_SIZE, HISTORY_ROWS, NO_MOVE
from .paper import FEATURE_SIZE, NUM_ACTIONS, OBS_SIZE, PAD_CARD

__all__ = [
    "OBSERVATIONS",
    "OBSERVATION_KEYS",
    "ActionSpace",
    "check_history",
    "check_observation_key",
    "check_observation_kind",
    "history_space",
    "observation_space",
    "vector_space",
]


class ActionSpace(spaces.Discrete):
    """``Discrete(1695)`` with a fast path in ``contains`` for plain ints (same answers)."""

    def contains(self, x: Any) -> bool:
        if type(x) is int:
            return 0 <= x < NUM_ACTIONS
        return super().contains(x)


OBSERVATIONS = ("paper", "extended")
"""The observation kinds: the paper's 277 numbers (default) or the 315 of :mod:`big2_env.observations.extended`."""


def check_observation_kind(observation: object) -> str:
    """``observation`` if it names an observation kind; ``ValueError`` naming the allowed ones otherwise."""
    if not isinstance(observation, str) or observation not in OBSERVATIONS:
        raise ValueError(f"observation must be one of {', '.join(map(repr, OBSERVATIONS))}; got {observation!r}")
    return observation


OBSERVATION_KEYS = ("observation", "observations")
"""The names the observation vector may go by in the observation dict: ``"observation"`` (default,
PettingZoo's convention) or ``"observations"`` (what RLlib's action-masking RLModule looks for)."""


def check_observation_key(observation_key: object) -> str:
    """``observation_key`` if it is an allowed key; ``ValueError`` naming the allowed ones otherwise."""
    if not isinstance(observation_key, str) or observation_key not in OBSERVATION_KEYS:
        raise ValueError(f"observation_key must be one of {', '.join(map(repr, OBSERVATION_KEYS))}; got {observation_key!r}")
    return observation_key


def check_history(history: object, mask_in_observation: bool = True) -> bool:
    """Whether an env's observation carries ``"history"``: ``history`` itself, or by default (``None``)
    wherever the observation is a ``Dict`` (``mask_in_observation``); ``ValueError`` for anything but
    ``None``, ``True`` or ``False``, or for ``True`` with the ``Box`` observation (no room for it)."""
    if history is None:
        return mask_in_observation
    if not isinstance(history, bool):
        raise ValueError(f"history must be None (on with the Dict observation), True or False; got {history!r}")
    if history and not mask_in_observation:
        raise ValueError("history=True needs the Dict observation: use it with mask_in_observation=True")
    return history


def vector_space(observation: str = "paper") -> spaces.Box:
    """The space of the observation vector alone: 277 numbers, or 315 with ``observation="extended"``."""
    size = EXTENDED_SIZE if check_observation_kind(observation) == "extended" else OBS_SIZE
    return spaces.Box(low=0.0, high=52.0, shape=(size,), dtype=np.float32)


def history_space() -> spaces.Box:
    """The space of the public move history (:func:`big2_env.observations.extended.history_array`):
    int16 ``(256, 6)``, a row per move (relative seat 0..3, then card ids padded with 52), then
    rows of -1."""
    return spaces.Box(low=NO_MOVE, high=PAD_CARD, shape=(HISTORY_ROWS, 6), dtype=np.int16)


def observation_space(
    candidate_view: bool = True, observation: str = "paper", observation_key: str = "observation", history: bool = False
) -> spaces.Dict:
    """The per-agent observation space (see SPEC section 5); ``observation="extended"``: 315 numbers;
    ``observation_key="observations"``: the vector under that key instead of ``"observation"``;
    ``history``: with the public move history under ``"history"`` (:func:`history_space`)."""
    parts: dict[str, spaces.Space] = {
        check_observation_key(observation_key): vector_space(observation),
        "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8),
    }
    if history:
        parts["history"] = history_space()
    if candidate_view:
        parts["candidate_actions"] = spaces.Sequence(spaces.Discrete(NUM_ACTIONS), stack=True)
        parts["candidate_features"] = spaces.Sequence(
            spaces.Box(low=0.0, high=1.0, shape=(FEATURE_SIZE,), dtype=np.float32), stack=True
        )
    return spaces.Dict(parts)
