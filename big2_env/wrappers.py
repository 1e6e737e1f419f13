"""PettingZoo's classic wrapper stack, with direct attribute forwarding.

``env()`` wraps the raw env exactly as PettingZoo's classic envs do
(``TerminateIllegalWrapper(illegal_reward=-1)``, ``AssertOutOfBoundsWrapper``,
``OrderEnforcingWrapper``). The classes here are those wrappers, unchanged in
behaviour, plus properties that read the per-step attributes
(``agent_selection``, ``terminations``, ...) straight from the raw env. Without
them every such read walks the ``__getattr__`` chain of all three wrappers, which
cost more than the game itself in the AEC loop.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

_FORWARDED = (
    "agent_selection",
    "agents",
    "possible_agents",
    "rewards",
    "_cumulative_rewards",
    "terminations",
    "truncations",
    "infos",
)
_NEEDS_RESET = frozenset({"rewards", "terminations", "truncations", "infos", "agent_selection", "agents"})


def _forward(name: str, check_reset: bool) -> property:
    def get(self: Any) -> Any:
        if check_reset and name in _NEEDS_RESET and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw_env, name)

    def set_(self: Any, value: Any) -> None:
        setattr(self._raw_env, name, value)

    return property(get, set_, doc=f"``{name}`` of the raw env")


class _Forwarding:
    _raw_env: AECEnv

    def _bind_raw(self, env: AECEnv) -> None:
        object.__setattr__(self, "_raw_env", env.unwrapped)


class TerminateIllegalWrapper(_Forwarding, wrappers.TerminateIllegalWrapper):
    def __init__(self, env: AECEnv, illegal_reward: float):
        self._bind_raw(env)
        super().__init__(env, illegal_reward)


class AssertOutOfBoundsWrapper(_Forwarding, wrappers.AssertOutOfBoundsWrapper):
    def __init__(self, env: AECEnv):
        self._bind_raw(env)
        super().__init__(env)


class OrderEnforcingWrapper(_Forwarding, wrappers.OrderEnforcingWrapper):
    def __init__(self, env: AECEnv):
        self._bind_raw(env)
        super().__init__(env)


for _name in _FORWARDED:
    setattr(TerminateIllegalWrapper, _name, _forward(_name, False))
    setattr(AssertOutOfBoundsWrapper, _name, _forward(_name, False))
    setattr(OrderEnforcingWrapper, _name, _forward(_name, True))


def classic_wrap(raw: AECEnv) -> AECEnv:
    """Wrap a raw env the way PettingZoo's classic ``env()`` functions do (illegal move: reward -1)."""
    wrapped: AECEnv = TerminateIllegalWrapper(raw, illegal_reward=-1)
    wrapped = AssertOutOfBoundsWrapper(wrapped)
    return OrderEnforcingWrapper(wrapped)
