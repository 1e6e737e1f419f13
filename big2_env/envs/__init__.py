"""The environments: PettingZoo AEC and Parallel, the single-agent Gymnasium env, the opponents env and wrappers.
May import: big2_env.engine, observations, players, evaluation (agent specs for opponents) and render.

Modules: :mod:`~big2_env.envs.aec` (:func:`env`, :func:`parallel_env`, :class:`raw_env`),
:mod:`~big2_env.envs.gym` (:class:`Big2SingleAgentEnv`, ``"Big2-v0"``),
:mod:`~big2_env.envs.opponents` (:func:`opponents_env`: seats played by policies inside a
PettingZoo env), :mod:`~big2_env.envs.wrappers` (PettingZoo's classic wrappers, fast) and
:mod:`~big2_env.envs.vector` (:func:`~big2_env.envs.vector.vector_env`: N games in compiled code),
:mod:`~big2_env.envs.vector_opponents` (``gymnasium.make_vec("Big2-v0")``) and
:mod:`~big2_env.envs.positions` (games from given positions, the search's rollouts), all three on one
batch stepper, :mod:`~big2_env.envs.batch`; imported on first use, as they load numba.
"""

from .aec import env, parallel_env, raw_env
from .gym import Big2SingleAgentEnv, register_gymnasium
from .opponents import opponents_env

__all__ = ["Big2SingleAgentEnv", "env", "opponents_env", "parallel_env", "raw_env", "register_gymnasium"]
