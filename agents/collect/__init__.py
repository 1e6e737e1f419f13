"""Collection: the games a batch learns from, played on the compiled vector env, the engine, helper processes or Ray actors.
May import: torch, big2_env (ray: only agents.collect.ray_workers), and agents' config, network, policy and curriculum
modules; never agents.learners, agents.trainer or agents.train (``python -m tools.imports`` checks the
layers, :data:`tools.imports.AGENT_LAYERS`). Collectors only collect: the learners import them
(:class:`~agents.collect.rollout.Rollout` they train on; :mod:`agents.learners.processes` runs the rollout workers in
the helper processes that also share PPO's gradients).

Every collector is a :class:`~agents.collect.base.Collector` (:mod:`~agents.collect.base`): it plays the trainer's
:class:`~agents.collect.base.Batch` and returns a :class:`~agents.collect.rollout.Rollout`; the trainer picks one at
start-up.

Modules: :mod:`~agents.collect.base` (the protocol and the engine's collector in this process),
:mod:`~agents.collect.vector` (self-play on the compiled vector env, the network batched over every game on
move: the default), :mod:`~agents.collect.rollout` (games on the Python engine stepped together, one forward pass per
step, and the :class:`~agents.collect.rollout.Rollout` every collector returns), :mod:`~agents.collect.parallel`
(rollout workers, and the pool that splits a batch's games between them) and :mod:`~agents.collect.ray_workers` (the
same rollout workers as Ray actors).
"""
