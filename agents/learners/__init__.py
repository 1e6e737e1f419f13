"""The learners: PPO (appendix C), the value learners and and Deep Monte Carlo.
May import: torch, big2_env, agents' config, network and policy modules, and agents.collect (never agents.train).

Each algorithm is a :class:`~agents.learners.base.Learner` (:mod:`~agents.learners.base`: its schedule, its
update step, its part of the checkpoint), named by ``--algo`` in :data:`agents.learners.registry.LEARNERS`.

Modules: :mod:`~agents.learners.ppo`, :mod:`~agents.learners.processes` (helper processes that play
rollouts and compute parts of PPO's gradient), :mod:`~agents.learners.value` (Monte Carlo Q, SARSA,
Q-learning, Deep Monte Carlo) and
:mod:`~agents.learners.fast_policy` (the fast move model of :mod:`big2_env.players.fast` fitted to a network).
"""
