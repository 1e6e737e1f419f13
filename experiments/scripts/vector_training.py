"""Self-play collection for training: the Python engine's collector against the compiled vector env's.

Both play ``--games`` games of the paper's network (default size, untrained) in all four seats,
sampling its policy, and record every decision for PPO: (a) ``agents.collect.rollout.collect`` on
``Game`` objects (the network batched over the games, one process), (b)
``agents.collect.vector.collect_vector`` on ``Big2VectorEnv`` (the rules, views and candidate
rows in the compiled core, every core). Then whole PPO batches (collect and update) through
``agents.train`` with ``--env engine --workers 1`` and ``--env vector``. Decisions/s, with the ratio.

Usage:
    python experiments/scripts/vector_training.py [--games 256] [--repeats 3] [--threads 2]
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np
import torch

from agents.config import TrainArgs
from agents.network import Big2Net, NetworkConfig
from agents.collect.rollout import ModelSeat, collect
from agents.train import train
from agents.collect.vector import collect_vector
from big2_env import Game, Rules
from big2_env.envs.vector import Big2VectorEnv


def engine_collect(games: int, model: Big2Net, seed: int) -> float:
    plans = [[ModelSeat()] * 4 for _ in range(games)]
    start = time.perf_counter()
    rollout = collect([Game(Rules(), seed=seed + g) for g in range(games)], plans, {"current": model},
                      np.random.default_rng(seed))
    return rollout.decisions / (time.perf_counter() - start)


def vector_collect(venv: Big2VectorEnv, model: Big2Net, seed: int) -> float:
    start = time.perf_counter()
    rollout = collect_vector(venv, model, np.random.default_rng(seed), seed)
    return rollout.decisions / (time.perf_counter() - start)


def ppo_batches(env: str, games: int, batches: int, threads: int) -> float:
    with tempfile.TemporaryDirectory() as out:
        args = TrainArgs(algo="ppo", env=env, batches=batches, games_per_batch=games, eval_every=0, eval_games=1,
                         eval_opponents=["random"], workers=1, threads=threads, progress=False, tensorboard=False,
                         out=out + "/run")
        result = train(args)
    return result.decisions / result.elapsed_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batches", type=int, default=3, help="PPO batches per training run")
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = Big2Net(NetworkConfig(value_head=True))
    venv = Big2VectorEnv(args.games)
    vector_collect(venv, model, 0)  # compile (or load the cache) outside the timing
    engine = [engine_collect(args.games, model, 1 + k) for k in range(args.repeats)]
    vector = [vector_collect(venv, model, 1 + k) for k in range(args.repeats)]
    a, b = float(np.median(engine)), float(np.median(vector))
    print(f"(a) engine collect, {args.games} games:  {a:10,.0f} decisions/s (median of {args.repeats})")
    print(f"(b) vector env collect:             {b:10,.0f} decisions/s  ({b / a:.2f}x (a))")
    train_engine = ppo_batches("engine", args.games, args.batches, args.threads)
    train_vector = ppo_batches("vector", args.games, args.batches, args.threads)
    print(f"(c) PPO training, --env engine --workers 1: {train_engine:8,.0f} decisions/s")
    ratio = train_vector / train_engine
    print(f"(d) PPO training, --env vector:             {train_vector:8,.0f} decisions/s  ({ratio:.2f}x (c))")


if __name__ == "__main__":
    main()
