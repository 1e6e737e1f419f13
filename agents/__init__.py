"""Baseline agents for big2-env: the paper's card-aware network trained by PPO self-play.

Modules (all but :mod:`agents.config` import torch; ``import agents`` itself does not):

* :mod:`agents.config`: the dataclasses :class:`~agents.config.NetworkConfig`,
  :class:`~agents.config.PPOConfig` and :class:`~agents.config.TrainArgs` (torch-free);
* :mod:`agents.network`: :class:`~agents.network.Big2Net`, the state encoder, candidate
  encoder, dot-product scorer and value head (paper section 3.2, appendix B);
* :mod:`agents.policy`: :class:`~agents.policy.NetworkPolicy`, a network as a
  :class:`big2_env.policies.Policy` (one batched forward pass per ``act_batch``);
* :mod:`agents.rollout`: many games stepped together with one forward pass per step;
* :mod:`agents.curriculum`: self, checkpoint, OSFP, mixed and fixed-opponent curricula;
* :mod:`agents.ppo`: per-seat GAE and the clipped PPO update (appendix C);
* :mod:`agents.train`: the training loop behind ``big2 train`` (logs, evaluation,
  atomic checkpoints, exact ``--resume``);
* :mod:`agents.checkpoint`: checkpoint and policy files (format checks, atomic writes);
* :mod:`agents.plot`: learning curves (``big2 plot``);
* :mod:`agents.pretrained`: :func:`~agents.pretrained.load_pretrained`, the shipped agent.

Install the extra first: ``pip install torch==2.13.0 && pip install -e ".[agents]"``.
"""
