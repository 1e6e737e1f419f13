"""Self-play with sb3-contrib's MaskablePPO: the opponents are frozen copies of the learner.

The recipe: train ``MaskablePPO("MlpPolicy", env)`` (``mask_in_observation=False``: the
Box of 277 numbers, the mask through ``action_masks()``, exactly as sb3-contrib's docs
write it) in rounds; before each round, freeze a copy of the current policy
(``copy.deepcopy(model.policy)``, wrapped by ``SB3Policy`` so it samples its moves), give
it the three other seats of a new env, and ``model.set_env`` to it. Round 0 plays
against Random. Each round's learner is evaluated against Random and Greedy.

    python examples/sb3_self_play.py --rounds 4 --timesteps 20000
    python examples/sb3_self_play.py --smoke
"""

from __future__ import annotations

import argparse
import copy
import time

import torch

from big2_env import evaluate
from big2_env.envs.gym import Big2SingleAgentEnv
from big2_env.players.sb3 import SB3Policy


def make_env(opponents, seed: int) -> Big2SingleAgentEnv:
    env = Big2SingleAgentEnv(opponents=opponents, mask_in_observation=False)
    env.reset(seed=seed)
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--timesteps", type=int, default=20_000, help="learner decisions per round")
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (keep <= free cores)")
    parser.add_argument("--smoke", action="store_true", help="a tiny run (CI)")
    args = parser.parse_args()
    if args.smoke:
        args.rounds, args.timesteps, args.eval_games = 2, 256, 8
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(args.threads)
    model = MaskablePPO("MlpPolicy", make_env("random", args.seed), n_steps=min(1024, args.timesteps), batch_size=64,
                        seed=args.seed, device="cpu", verbose=0)
    started = time.perf_counter()
    for r in range(args.rounds):
        if r > 0:  # freeze the learner as it is now and play against three copies of it
            frozen = SB3Policy(copy.deepcopy(model.policy), deterministic=False, name=f"frozen round {r}")
            model.set_env(make_env(frozen, args.seed + r))
        model.learn(total_timesteps=args.timesteps, reset_num_timesteps=False)
        learner = SB3Policy(model)
        rates = {o: evaluate(learner, o, n_games=args.eval_games, seed=args.seed + 100).win_rate for o in ("random", "greedy")}
        print(f"round {r}: {model.num_timesteps} decisions, {time.perf_counter() - started:.0f} s, "
              f"win rate vs random {rates['random']:.1%}, vs greedy {rates['greedy']:.1%}", flush=True)


if __name__ == "__main__":
    main()
