"""Collection: the games a batch learns from, played on the compiled vector env, the engine, helper processes or Ray actors.
May import: torch, big2_env (ray: only agents.collect.ray_workers), and agents' config, network, policy and curriculum
modules and :mod:`agents.learners.ppo` (the helper processes compute parts of PPO's gradient); never agents.trainer or
agents.train. Between packages the imports run both ways, never in a circle between modules: the learners import
:mod:`~agents.collect.rollout` (the :class:`~agents.collect.rollout.Rollout` they train on; distill starts Ray through
:mod:`~agents.collect.ray_workers`), and :mod:`agents.curriculum` imports its seat types.

Modules: :mod:`~agents.collect.vector` (self-play on the compiled vector env, the network batched over every game on
move: the default), :mod:`~agents.collect.rollout` (games on the Python engine stepped together, one forward pass per
step, and the :class:`~agents.collect.rollout.Rollout` every collector returns), :mod:`~agents.collect.parallel`
(helper processes that play rollouts and share PPO's gradients) and :mod:`~agents.collect.ray_workers` (the same
rollout workers as Ray actors).
"""
