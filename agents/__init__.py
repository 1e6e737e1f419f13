"""The learners of big2-env: the paper's card-aware network, its learners and the shipped agents.
May import: big2_env (never the reverse: big2_env finds this package through entry points, agents.plugin).

Modules (all but :mod:`agents.config`, :mod:`agents.shipped` and :mod:`agents.plugin` import
torch; ``import agents`` itself does not):

* :mod:`agents.plugin`: the entry points big2_env reads: the agent specs (``pretrained``,
  ``.pt`` files, run folders) and the ``big2 train`` / ``big2 plot`` commands (torch-free);

* :mod:`agents.config`: the dataclasses :class:`~agents.config.NetworkConfig`, each learner's
  config (:class:`~agents.config.PPOConfig`, :class:`~agents.config.ValueConfig`) and
  :class:`~agents.config.TrainArgs`, every ``big2 train``
  flag, composed of one group of fields per algorithm and concern (torch-free);
* :mod:`agents.network`: :class:`~agents.network.Big2Net`, the state encoder, candidate
  encoder, dot-product scorer and value head (paper section 3.2, appendix B);
* :mod:`agents.policy`: :class:`~agents.policy.NetworkPolicy`, a network as a
  :class:`big2_env.players.Policy` (one batched forward pass per ``act_batch``);
* :mod:`agents.curriculum`: self, checkpoint, OSFP, mixed and fixed-opponent curricula;

Collection (playing the games a batch learns from): :mod:`agents.collect`, each collector a
:class:`~agents.collect.base.Collector` (:mod:`~agents.collect.base`, also the engine's in this process):

* :mod:`~agents.collect.vector`: self-play on the compiled vector env, the network batched over
  every game on move (the default);
* :mod:`~agents.collect.rollout`: games on the Python engine stepped together, one forward pass per step;
* :mod:`~agents.collect.parallel` and :mod:`~agents.collect.ray_workers`: rollout workers in helper
  processes and Ray actors (they only play; :mod:`agents.learners.processes` adds PPO's shared gradients).

The learners: :mod:`agents.learners`, each algorithm a :class:`~agents.learners.base.Learner`
(:data:`agents.learners.registry.LEARNERS`): :mod:`~agents.learners.ppo` (per-seat GAE and the clipped
PPO update, appendix C) and :mod:`~agents.learners.value` (Monte Carlo Q, SARSA, Q-learning, Deep
Monte Carlo).

The loop:

* :mod:`agents.trainer`: :class:`~agents.trainer.Trainer`, what every algorithm shares (the network,
  the optimiser, the random streams), the learner and collector it picks once, one batch
  (collect, update, evaluate, the checkpoint's contents), processes and threads;
* :mod:`agents.train`: the loop behind ``big2 train`` (evaluation schedule, atomic
  checkpoints, exact ``--resume``, interruptions);
* :mod:`agents.runlog`: the CSV logs, TensorBoard and the progress bar;
* :mod:`agents.checkpoint`: checkpoint and policy files (format checks, atomic writes);
* :mod:`agents.plot`: learning curves and learner health (``big2 plot``);
* :mod:`agents.average`: one policy file from the mean weights of several (``big2 average``);
* :mod:`agents.shipped`: the table of the networks shipped as package data (spec, file, rules, play; torch-free);
* :mod:`agents.pretrained`: :func:`~agents.pretrained.load_pretrained`, the shipped agents.
* :mod:`agents.net_search`: :class:`~agents.net_search.NetworkSearch`, the search over a network
  (``search-net``: network rollouts from sampled deals, the network's move left only past a margin);

Install the extra first: ``pip install torch==2.13.0 && pip install -e ".[agents]"``.
"""
