"""Tianshou 2.x DQN on the single-agent Gymnasium env, exactly as Tianshou's docs train any Gymnasium env.

    pip install -e ".[tianshou]"      # CPU-only: torch first from PyTorch's CPU index (the README)
    python examples/tianshou_single_dqn.py                     # 5 x 5000 learner steps vs random
    python examples/tianshou_single_dqn.py --opponent greedy
    python examples/tianshou_single_dqn.py --smoke             # a few hundred steps, for CI

The one env option that matters is ``keys="tianshou"``: the observation dict then holds
``"obs"`` (the 277 numbers) and ``"mask"`` (the legal actions), the names Tianshou's
DQN-family policies look for, so its policy picks, explores and bootstraps among legal
actions only. Each env step is one decision of the learner (the three opponents move
inside the env), so no n-step trick is needed here (compare ``tianshou_dqn.py``, which
trains one seat of the four-player PettingZoo env).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path

import gymnasium
import numpy as np
import torch
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Batch, Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import big2_env  # noqa: F401  (registers "Big2-v0")
from big2_env.evaluation.versus import evaluate


@dataclass
class Args:
    opponent: str = "random"
    epochs: int = 5
    epoch_steps: int = 5_000  # learner decisions per epoch
    num_envs: int = 8
    hidden: int = 256
    lr: float = 1e-3
    gamma: float = 0.99
    eps_start: float = 0.3
    eps_end: float = 0.05
    eval_games: int = 200
    seed: int = 0
    smoke: bool = False
    json: str = ""


def make_env(opponent: str) -> gymnasium.Env:
    return gymnasium.make("Big2-v0", opponents=opponent, keys="tianshou", history=False)


class Agent:
    """The trained Q-policy behind big2_env's ``act(obs)`` interface (greedy over legal actions)."""

    name = "tianshou-single-dqn"

    def __init__(self, policy: DiscreteQLearningPolicy) -> None:
        self.policy = policy.eval()

    def act_batch(self, observations: list) -> list[int]:
        obs = np.stack([o["observation"] for o in observations]).astype(np.float32)
        mask = np.stack([o["action_mask"] for o in observations]).astype(bool)
        with torch.no_grad():
            return [int(a) for a in self.policy(Batch(obs=Batch(obs=obs, mask=mask), info=Batch())).act]

    def act(self, obs: dict) -> int:
        return self.act_batch([obs])[0]


def train(args: Args) -> tuple[DQN, dict[str, float]]:
    torch.manual_seed(args.seed)
    env = make_env(args.opponent)
    net = Net(state_shape=env.observation_space["obs"].shape, action_shape=env.action_space.n, hidden_sizes=[args.hidden] * 2)
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=args.eps_start)
    algorithm = DQN(policy=policy, optim=AdamOptimizerFactory(lr=args.lr), gamma=args.gamma, target_update_freq=200)
    envs = DummyVectorEnv([lambda: make_env(args.opponent) for _ in range(args.num_envs)])
    envs.seed(args.seed)
    collector = Collector[CollectStats](algorithm, envs, VectorReplayBuffer(20_000, len(envs)), exploration_noise=True)
    total = args.epochs * args.epoch_steps

    def set_epsilon(epoch: int, env_step: int) -> None:
        frac = min(1.0, env_step / max(1, total // 2))
        policy.set_eps_training(args.eps_start + frac * (args.eps_end - args.eps_start))

    start = time.perf_counter()
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=collector,
            max_epochs=args.epochs,
            epoch_num_steps=args.epoch_steps,
            collection_step_num_env_steps=256,
            update_step_num_gradient_steps_per_sample=0.25,
            batch_size=64,
            training_fn=set_epsilon,
            test_in_training=False,
            show_progress=False,
            verbose=False,
        )
    )
    seconds = time.perf_counter() - start
    return algorithm, {"steps": float(result.train_step), "games": float(result.train_episode), "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--opponent", choices=("random", "greedy", "smart"), default=Args.opponent)
    parser.add_argument("--epochs", type=int, default=Args.epochs)
    parser.add_argument("--eval-games", type=int, default=Args.eval_games)
    parser.add_argument("--seed", type=int, default=Args.seed)
    parser.add_argument("--smoke", action="store_true", help="a tiny run that checks the pipeline")
    parser.add_argument("--json", default="", help="write the training speed and the evaluation to this JSON file")
    ns = parser.parse_args()
    if min(ns.epochs, ns.eval_games) <= 0:
        parser.error("--epochs and --eval-games must be positive")
    args = Args(opponent=ns.opponent, epochs=ns.epochs, eval_games=ns.eval_games, seed=ns.seed, smoke=ns.smoke,
                json=ns.json)
    if args.smoke:
        args.epochs, args.epoch_steps, args.num_envs, args.hidden, args.eval_games = 1, 300, 2, 64, 8
    torch.set_num_threads(1)
    algorithm, stats = train(args)
    print(f"trained {stats['steps']:.0f} learner steps ({stats['games']:.0f} games) vs {args.opponent} "
          f"in {stats['seconds']:.1f} s: {stats['steps'] / stats['seconds']:.0f} steps/s")
    record: dict = {**stats, "train_s": stats["seconds"], "steps_per_s": stats["steps"] / stats["seconds"], "eval": {}}
    for opponent in ("random", "greedy"):
        result = evaluate(Agent(algorithm.policy), opponent, n_games=args.eval_games, seed=args.seed + 1)
        record["eval"][opponent] = result.to_dict()
        print(f"evaluated vs {opponent}: win rate {result.win_rate:.3f} over {result.n_games} games, "
              f"mean score {result.mean_score:+.2f}")
    if args.json:  # the figures docs/libraries.md quotes
        Path(args.json).write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
