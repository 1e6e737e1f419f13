"""RLlib PPO on the PettingZoo AEC env, using RLlib's own classes and no glue code.

One shared policy plays all four seats. The env goes into RLlib unchanged through
``ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv``. RLlib's action-masking example module
(``ActionMaskingTorchRLModule``, new API stack) masks the logits. That module looks for the keys
``"observations"`` and ``"action_mask"`` and cannot take ``Sequence`` spaces, so the env is made with

    big2_env.env(candidate_view=False, observation_key="observations", history=False)

Rewards are the final scores, paid to every seat at the end (Big 2 is zero-sum). The sum
over the seats, RLlib's ``episode_return_mean``, is therefore 0 unless a game ended on an
illegal move (-1 for the offender). Masking means that never happens in training. RLlib's
env checker is switched off here, since it steps one random unmasked action in every env
copy, and PettingZoo would print an "Illegal move made" warning for each. The env passes
that check (``tests/docs/test_examples_rllib.py`` runs it).

When training ends, the greedy policy plays three Random and three Greedy players via
``big2_env.evaluate``. It takes the argmax of the masked logits from the module's
``forward_inference``.

    pip install -e ".[rllib]"                   # ray[rllib] and torch (ray 2.60 pins gymnasium 1.2.2)
    python examples/rllib_ppo.py                # about 4 minutes of training on 2 cores
    python examples/rllib_ppo.py --smoke        # 2 tiny iterations, for CI
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch

import big2_env


@dataclass
class Args:
    train_seconds: float = 240.0  # stop after the first iteration that ends past this
    iterations: int = 0  # stop after this many iterations instead (0: go by train_seconds)
    train_batch: int = 4000  # env steps (decisions, all seats) per PPO update
    minibatch: int = 500
    epochs: int = 4
    learning_rate: float = 3e-4
    entropy_coeff: float = 0.01
    hidden: int = 256
    num_envs: int = 8  # games stepped side by side in the (local) env runner
    seed: int = 0
    eval_games: int = 200
    threads: int = 1  # torch threads: at most the free cores (more than that slows torch down many times)
    smoke: bool = False  # a tiny run for CI: 2 iterations of 256 steps, 20 eval games
    json: str = ""  # write the training speed and the evaluation to this JSON file

    def __post_init__(self) -> None:
        if self.smoke:
            self.iterations, self.train_batch, self.minibatch, self.epochs = 2, 256, 64, 1
            self.hidden, self.num_envs, self.eval_games = 64, 2, 20


def make_env(env_config: dict[str, Any]) -> Any:
    """The env RLlib samples: RLlib's own PettingZoo wrapper around the plain AEC env."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    return PettingZooEnv(
        big2_env.env(candidate_view=False, observation_key="observations", history=False, rules=env_config.get("rules"))
    )


def build_config(args: Args) -> Any:
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={"fcnet_hiddens": [args.hidden, args.hidden], "fcnet_activation": "relu", "vf_share_layers": False},
    )
    return (
        PPOConfig()
        .environment("big2", disable_env_checking=True)  # see the module docstring
        .framework("torch")
        # Everything in this process: one local env runner, one local learner.
        .env_runners(num_env_runners=0, num_envs_per_env_runner=args.num_envs)
        .learners(num_learners=0)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, *a, **kw: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module}))
        .training(
            train_batch_size_per_learner=args.train_batch,
            minibatch_size=args.minibatch,
            num_epochs=args.epochs,
            lr=args.learning_rate,
            gamma=1.0,  # a game is short and only its final score counts
            lambda_=0.95,
            entropy_coeff=args.entropy_coeff,
            vf_clip_param=1000.0,  # scores are not scaled: a game can be worth +-50 or more
        )
        .debugging(seed=args.seed)
    )


class RLlibAgent:
    """The learned policy for :func:`big2_env.evaluate`: argmax of the masked logits."""

    def __init__(self, module: Any) -> None:
        self.module = module

    def act_batch(self, observations: Sequence[Any]) -> list[int]:
        from ray.rllib.core.columns import Columns

        obs = {
            "observations": torch.as_tensor(np.stack([o["observation"] for o in observations]), dtype=torch.float32),
            "action_mask": torch.as_tensor(np.stack([o["action_mask"] for o in observations]), dtype=torch.float32),
        }
        with torch.no_grad():
            out = self.module.forward_inference({Columns.OBS: obs})
        return out[Columns.ACTION_DIST_INPUTS].argmax(dim=-1).tolist()

    def act(self, obs: Any) -> int:
        return self.act_batch([obs])[0]


def train(args: Args) -> tuple[Any, dict[str, float]]:
    """Train; return the shared RLModule and some figures."""
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, EPISODE_RETURN_MEAN, LEARNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME
    from ray.tune.registry import register_env

    register_env("big2", make_env)
    algo = build_config(args).build_algo()
    start, it, steps = time.perf_counter(), 0, 0
    try:
        while True:
            result = algo.train()
            it += 1
            runners = result[ENV_RUNNER_RESULTS]
            steps = int(runners.get(NUM_ENV_STEPS_SAMPLED_LIFETIME, result.get(NUM_ENV_STEPS_SAMPLED_LIFETIME, 0)))
            elapsed = time.perf_counter() - start
            learner = result.get(LEARNER_RESULTS, {}).get("shared", {})
            print(
                f"iter {it}: {steps} env steps, {elapsed:.0f} s, {steps / elapsed:.0f} steps/s, "
                f"episode_return_mean {runners.get(EPISODE_RETURN_MEAN, float('nan')):+.2f} (0 = no illegal moves), "
                f"entropy {learner.get('entropy', float('nan')):.3f}",
                flush=True,
            )
            if (args.iterations and it >= args.iterations) or (not args.iterations and elapsed >= args.train_seconds):
                break
        elapsed = time.perf_counter() - start
        module = algo.get_module("shared")
        module.eval()
        print(f"trained {it} iterations, {steps} env steps in {elapsed:.1f} s: {steps / elapsed:.0f} env steps/s")
        return module, {"iterations": it, "steps": steps, "seconds": elapsed}
    finally:
        algo.stop()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        if f.type == "bool":
            parser.add_argument(flag, action="store_true")
        else:
            parser.add_argument(flag, type=type(f.default), default=f.default)
    args = Args(**vars(parser.parse_args(argv)))
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)  # the env runner and the learner both run in this process

    import ray

    ray.init(num_cpus=1, include_dashboard=False, object_store_memory=100 * 1024**2, log_to_driver=False)
    try:
        module, stats = train(args)
        agent = RLlibAgent(module)
        record: dict = {**stats, "train_s": stats["seconds"], "steps_per_s": stats["steps"] / stats["seconds"], "eval": {}}
        for opponent in ("random", "greedy"):
            r = big2_env.evaluate(agent, opponent, n_games=args.eval_games, seed=args.seed + 1)
            record["eval"][opponent] = r.to_dict()
            lo, hi = r.win_rate_ci
            print(
                f"vs 3 x {opponent}: win rate {r.win_rate:.1%} (95% CI {lo:.1%}-{hi:.1%}, chance 25%), "
                f"mean score {r.mean_score:+.2f} over {r.n_games} games"
            )
        if args.json:  # the figures docs/libraries.md quotes
            Path(args.json).write_text(json.dumps(record, indent=1) + "\n")
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
