"""Smart and the fast model as rollout policies on the Python engine: the oracle the core's play-outs
are tested against.

The searches run a rollout policy in the compiled core only when it is exactly
:class:`~big2_env.players.valuers.SmartRollout` or :class:`~big2_env.players.valuers.FastRollout`; these
subclasses make the same moves through :meth:`choose` on the engine instead
(:class:`~big2_env.players.valuers.EngineRollouts`, :func:`~big2_env.players.valuers.finish`).
"""

from __future__ import annotations

from big2_env.players.valuers import FastRollout, SmartRollout

__all__ = ["EngineFastRollout", "EngineSmartRollout"]


class EngineSmartRollout(SmartRollout):
    """Smart's moves, chosen on the Python engine."""


class EngineFastRollout(FastRollout):
    """The fast model's moves, chosen on the Python engine."""
