"""PettingZoo's classic wrapper stack, with direct attribute forwarding.

``env()`` wraps the raw env exactly as PettingZoo's classic envs do
(``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper``,
``OrderEnforcingWrapper``), with the illegal move's reward the env's ``illegal_reward``.
The classes here are those wrappers, unchanged in behaviour, plus properties that read the per-step attributes
(``agent_selection``, ``terminations``, ...) straight from the raw env. Without
them every such read walks the ``__getattr__`` chain of all three wrappers, which
cost more than the game itself in the AEC loop.

One addition: ``OrderEnforcingWrapper.step`` (the outermost) and
``TerminateIllegalWrapper.step`` check the action's type and range with
:func:`big2_env.observations.paper.check_step_action` before PettingZoo's wrappers see it, so a
bool, float, string or out-of-range action raises ``ValueError`` instead of
reaching PettingZoo's ``assert`` (skipped under ``python -O``) or being used to
index the action mask. ``None`` stays the action of an agent that is done; a
legal-range action that is not legal now still ends the game (reward ``illegal_reward``).
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..observations.paper import NUM_ACTIONS, check_step_action

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


class _NotReset:
    """What the order-enforcing wrapper reads its forwarded attributes from before the first reset."""

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"{name} cannot be accessed before reset")


def _forward(name: str, check_reset: bool) -> property:
    def set_(self: Any, value: Any) -> None:
        setattr(self._raw_env, name, value)

    # a C-level getter: these are read about 20 times a decision
    source = "_reset_env" if check_reset and name in _NEEDS_RESET else "_raw_env"
    return property(attrgetter(f"{source}.{name}"), set_, doc=f"``{name}`` of the raw env")


class _Forwarding:
    _raw_env: AECEnv

    def _bind_raw(self, env: AECEnv) -> None:
        object.__setattr__(self, "_raw_env", env.unwrapped)

    def _checked_action(self, action: Any) -> Any:
        """The slow path of the action check (anything but a plain int in range): see ``check_step_action``."""
        raw = self._raw_env
        agent = getattr(raw, "agent_selection", None)
        terminations = getattr(raw, "terminations", {})
        live = bool(raw.agents) and agent in terminations
        done = not live or terminations[agent] or raw.truncations[agent]
        return check_step_action(action, str(agent), done)


class TerminateIllegalWrapper(_Forwarding, wrappers.TerminateIllegalWrapper):
    def __init__(self, env: AECEnv, illegal_reward: float):
        self._bind_raw(env)
        super().__init__(env, illegal_reward)

    def step(self, action: Any) -> None:
        if type(action) is not int or not 0 <= action < NUM_ACTIONS:
            action = self._checked_action(action)
        super().step(action)


class AssertOutOfBoundsWrapper(_Forwarding, wrappers.AssertOutOfBoundsWrapper):
    def __init__(self, env: AECEnv):
        self._bind_raw(env)
        super().__init__(env)


class OrderEnforcingWrapper(_Forwarding, wrappers.OrderEnforcingWrapper):
    def __init__(self, env: AECEnv):
        self._bind_raw(env)
        object.__setattr__(self, "_reset_env", _NotReset())
        super().__init__(env)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        super().reset(seed=seed, options=options)
        object.__setattr__(self, "_reset_env", self._raw_env)

    def step(self, action: Any) -> None:
        if self._has_reset and (type(action) is not int or not 0 <= action < NUM_ACTIONS):
            action = self._checked_action(action)
        super().step(action)


for _name in _FORWARDED:
    setattr(TerminateIllegalWrapper, _name, _forward(_name, False))
    setattr(AssertOutOfBoundsWrapper, _name, _forward(_name, False))
    setattr(OrderEnforcingWrapper, _name, _forward(_name, True))


def classic_wrap(raw: AECEnv, illegal_reward: float) -> AECEnv:
    """Wrap a raw env the way PettingZoo's classic ``env()`` functions do; an illegal move ends the game
    with ``illegal_reward`` for the offender (:func:`big2_env.envs.aec.check_illegal_reward`)."""
    wrapped: AECEnv = TerminateIllegalWrapper(raw, illegal_reward=illegal_reward)
    wrapped = AssertOutOfBoundsWrapper(wrapped)
    return OrderEnforcingWrapper(wrapped)
