"""Train a Tianshou 2.x DQN in one Big 2 seat against three fixed opponents, then evaluate it.

    pip install -e ".[tianshou]"      # CPU-only: torch first from PyTorch's CPU index (the README)
    python examples/tianshou_dqn.py                            # 5 x 10240 env steps vs random, ~5 min on 1 CPU core
    python examples/tianshou_dqn.py --opponent greedy --epochs 10
    python examples/tianshou_dqn.py --smoke                    # a few hundred env steps, for CI

The env goes into Tianshou unchanged: ``PettingZooEnv(big2_env.env(candidate_view=False))``.
Tianshou turns each observation into ``Batch(agent_id, obs, mask)``, its masked
``DiscreteQLearningPolicy`` only picks (and bootstraps from) legal actions, and its
``MultiAgentOffPolicyAlgorithm`` routes every turn to the algorithm of the seat on move:
the DQN learner in ``--seat``, and in the other three seats either Tianshou's masked random
player or a big2_env heuristic (``make_policy("greedy")``/``"smart"``) in a small Tianshou
policy wrapper that never learns. Evaluation uses ``big2_env.evaluate`` (one seat for the
agent, randomised per game; three copies of the opponent).
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.algorithm_base import OffPolicyAlgorithm, Policy, TrainingStats
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Batch, Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import big2_env
from big2_env.evaluation.versus import evaluate
from big2_env.players.registry import make_policy

NUM_PLAYERS = 4


@dataclass
class Args:
    opponent: str = "random"  # the three other seats: "random" (Tianshou's), "greedy" or "smart" (big2_env's)
    seat: int = 0  # the learner's seat (Big 2 is symmetric up to who holds 3D, which is dealt at random)
    epochs: int = 5
    epoch_steps: int = 10_240  # env steps (all four seats' turns) per epoch; the learner acts in about 1/4 of them
    num_envs: int = 8
    collect_steps: int = 1024  # env steps collected between rounds of gradient updates (see train())
    buffer_size: int = 50_000  # env steps (all seats' transitions) kept for replay
    hidden_sizes: list[int] = field(default_factory=lambda: [256, 256])
    lr: float = 1e-3
    gamma: float = 0.995  # per env step, i.e. about 0.98 per learner turn
    target_update_freq: int = 500  # gradient steps between target-network syncs
    batch_size: int = 256  # sampled from the shared buffer: about a quarter are the learner's own transitions
    updates_per_step: float = 0.125  # gradient steps per env step: one per two learner decisions
    eps_start: float = 0.3
    eps_end: float = 0.05
    eval_games: int = 200
    seed: int = 0
    threads: int = 1
    smoke: bool = False
    json: str = ""


def parse_args(argv: list[str] | None = None) -> Args:
    defaults = Args()
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--opponent", choices=("random", "greedy", "smart"), default=defaults.opponent)
    parser.add_argument("--seat", type=int, choices=range(NUM_PLAYERS), default=defaults.seat)
    parser.add_argument("--epochs", type=int, default=defaults.epochs)
    parser.add_argument("--epoch-steps", type=int, default=defaults.epoch_steps, help="env steps per epoch")
    parser.add_argument("--num-envs", type=int, default=defaults.num_envs)
    parser.add_argument("--collect-steps", type=int, default=defaults.collect_steps, help="env steps per collection round")
    parser.add_argument("--buffer-size", type=int, default=defaults.buffer_size)
    parser.add_argument("--hidden-sizes", type=int, nargs="+", default=defaults.hidden_sizes)
    parser.add_argument("--lr", type=float, default=defaults.lr)
    parser.add_argument("--gamma", type=float, default=defaults.gamma)
    parser.add_argument("--target-update-freq", type=int, default=defaults.target_update_freq)
    parser.add_argument("--batch-size", type=int, default=defaults.batch_size)
    parser.add_argument("--updates-per-step", type=float, default=defaults.updates_per_step)
    parser.add_argument("--eps-start", type=float, default=defaults.eps_start)
    parser.add_argument("--eps-end", type=float, default=defaults.eps_end)
    parser.add_argument("--eval-games", type=int, default=defaults.eval_games, help="games per evaluation opponent")
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--threads", type=int, default=defaults.threads, help="torch threads (keep <= free cores)")
    parser.add_argument("--smoke", action="store_true", help="a tiny run (a few hundred env steps) that checks the pipeline")
    parser.add_argument("--json", default="", help="write the training speed and the evaluation to this JSON file")
    ns = parser.parse_args(argv)
    if min(ns.epochs, ns.epoch_steps, ns.num_envs, ns.collect_steps, ns.eval_games) <= 0:
        parser.error("--epochs, --epoch-steps, --num-envs, --collect-steps and --eval-games must be positive")
    args = Args(**vars(ns))
    if args.smoke:
        args.epochs, args.epoch_steps, args.num_envs, args.collect_steps = 1, 400, 2, 100
        args.buffer_size, args.batch_size, args.hidden_sizes, args.eval_games = 2_000, 64, [64], 8
    return args


def make_env() -> PettingZooEnv:
    """The unchanged Big 2 AEC env in Tianshou's wrapper: obs ``{"agent_id", "obs", "mask"}``, rewards per seat."""
    return PettingZooEnv(big2_env.env(candidate_view=False))


class HeuristicPolicy(Policy):
    """A big2_env heuristic (``make_policy(name)``) as a Tianshou policy."""

    def __init__(self, name: str, action_space: Any, seed: int) -> None:
        super().__init__(action_space=action_space)
        self.heuristic = make_policy(name, seed=seed)

    def forward(self, batch: Any, state: Any = None, **kwargs: Any) -> Any:
        obs = batch.obs  # Batch(agent_id, obs, mask): the env's "observation" and "action_mask", batched
        acts = [self.heuristic.act({"observation": o, "action_mask": m}) for o, m in zip(obs.obs, obs.mask)]
        return Batch(act=np.asarray(acts, dtype=np.int64))


class HeuristicSeat(OffPolicyAlgorithm):
    """A seat played by :class:`HeuristicPolicy`: it acts, and learns nothing."""

    def __init__(self, name: str, action_space: Any, seed: int = 0) -> None:
        super().__init__(policy=HeuristicPolicy(name, action_space, seed))

    def _update_with_batch(self, batch: Any) -> TrainingStats:
        return TrainingStats()


def build(args: Args, env: PettingZooEnv) -> tuple[MultiAgentOffPolicyAlgorithm, DQN]:
    obs_shape = env.observation_space["observation"].shape  # the 277 numbers; the mask travels separately
    net = Net(state_shape=obs_shape, action_shape=env.action_space.n, hidden_sizes=args.hidden_sizes)
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=args.eps_start)
    # n-step horizon = NUM_PLAYERS. Tianshou keeps ONE replay buffer per env holding every seat's
    # transitions in turn order; MultiAgentOffPolicyAlgorithm only splits a sampled batch by agent_id
    # (and picks the seat's column of the reward vector), while the n-step return walks buffer.next(),
    # i.e. the next *env* step. With n=1 a transition would bootstrap from obs_next = the NEXT player's
    # observation (and mask), and a seat that did not make the final move would never see its final score.
    # Big 2 passes the turn strictly round the table (a pass is a move), so the learner's own next turn is
    # always 4 env steps later: with n=4 the target sums the learner's reward column over its turn and the
    # three replies (that is where the end-of-game scores land, whoever made the last move) and bootstraps
    # from Q(own next observation, own mask), discounted by gamma**4. Episodes that end sooner are cut by
    # Tianshou's done handling. (Only a transition in the last 3 steps of a still-running episode, at most
    # one per env, bootstraps early from another seat's observation; negligible in a large buffer.)
    learner = DQN(
        policy=policy,
        optim=AdamOptimizerFactory(lr=args.lr),
        gamma=args.gamma,
        n_step_return_horizon=NUM_PLAYERS,
        target_update_freq=args.target_update_freq,
        is_double=True,  # picks the bootstrap action by the masked argmax (a legal action)
    )
    seats: list[OffPolicyAlgorithm] = []
    for seat in range(NUM_PLAYERS):
        if seat == args.seat:
            seats.append(learner)
        elif args.opponent == "random":
            seats.append(MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space))
        else:
            seats.append(HeuristicSeat(args.opponent, env.action_space, seed=args.seed + seat))
    return MultiAgentOffPolicyAlgorithm(algorithms=seats, env=env), learner


class TianshouAgent:
    """The trained Q-policy behind big2_env's ``act(obs)`` interface (greedy, legal actions only)."""

    name = "tianshou-dqn"

    def __init__(self, policy: DiscreteQLearningPolicy) -> None:
        self.policy = policy.eval()

    def act_batch(self, observations: list[dict[str, np.ndarray]]) -> list[int]:
        obs = np.stack([o["observation"] for o in observations]).astype(np.float32)
        mask = np.stack([o["action_mask"] for o in observations]).astype(bool)
        with torch.no_grad():
            out = self.policy(Batch(obs=Batch(obs=obs, mask=mask), info=Batch()))
        return [int(a) for a in out.act]

    def act(self, obs: dict[str, np.ndarray]) -> int:
        return self.act_batch([obs])[0]


def train(args: Args) -> tuple[DQN, dict[str, float]]:
    # Tianshou logs a warning whenever it summarises multi-agent (one column per seat) episode returns.
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)
    torch.set_num_threads(args.threads)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    env = make_env()
    ma_algorithm, learner = build(args, env)
    envs = DummyVectorEnv([make_env for _ in range(args.num_envs)])
    envs.seed(args.seed)
    buffer = VectorReplayBuffer(args.buffer_size, len(envs))
    collector = Collector[CollectStats](ma_algorithm, envs, buffer, exploration_noise=True)
    total_steps = args.epochs * args.epoch_steps

    start = time.perf_counter()
    epochs_seen: set[int] = set()

    def set_epsilon(epoch: int, env_step: int) -> None:  # called before each collection step
        frac = min(1.0, env_step / max(1, total_steps // 2))  # linear decay over the first half of training
        eps = args.eps_start + frac * (args.eps_end - args.eps_start)
        learner.policy.set_eps_training(eps)
        if epoch not in epochs_seen:
            epochs_seen.add(epoch)
            elapsed = time.perf_counter() - start
            print(f"epoch {epoch}/{args.epochs}: env step {env_step}, eps {eps:.3f}, {elapsed:.0f} s", flush=True)

    result = ma_algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=collector,
            max_epochs=args.epochs,
            epoch_num_steps=args.epoch_steps,
            # After every collection round the trainer scans the WHOLE replay buffer for NaNs (cost grows with
            # buffer size: each transition holds two 1695-entry masks), so collect in large rounds.
            collection_step_num_env_steps=args.collect_steps,
            update_step_num_gradient_steps_per_sample=args.updates_per_step,
            batch_size=args.batch_size,
            training_fn=set_epsilon,
            multi_agent_return_reduction=lambda returns: returns[:, args.seat],  # the learner's final score
            test_in_training=False,
            show_progress=False,
            verbose=False,
        )
    )
    seconds = time.perf_counter() - start
    stats = {
        "env_steps": float(result.train_step),
        "episodes": float(result.train_episode),
        "gradient_steps": float(round(args.updates_per_step * result.train_step)),
        "seconds": seconds,
        "update_s": result.timing.train_time_update,
        "steps_per_s": result.train_step / seconds,
    }
    return learner, stats


def main() -> None:
    args = parse_args()
    learner, stats = train(args)
    print(
        f"trained {stats['env_steps']:.0f} env steps (~{stats['env_steps'] / NUM_PLAYERS:.0f} learner decisions, "
        f"{stats['episodes']:.0f} games, ~{stats['gradient_steps']:.0f} gradient steps) against {args.opponent} "
        f"in {stats['seconds']:.1f} s ({stats['update_s']:.1f} s of it in gradient updates): "
        f"{stats['steps_per_s']:.0f} env steps/s"
    )
    agent = TianshouAgent(learner.policy)
    record: dict = {**stats, "train_s": stats["seconds"], "eval": {}}
    for opponent in ("random", "greedy"):
        result = evaluate(agent, opponent, n_games=args.eval_games, seed=args.seed + 1)
        record["eval"][opponent] = result.to_dict()
        print(
            f"evaluated vs {opponent}: win rate {result.win_rate:.3f} "
            f"(95% CI {result.win_rate_ci[0]:.3f}-{result.win_rate_ci[1]:.3f}) over {result.n_games} games, "
            f"mean score {result.mean_score:+.2f}"
        )
    if args.json:  # the figures docs/libraries.md quotes
        Path(args.json).write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
