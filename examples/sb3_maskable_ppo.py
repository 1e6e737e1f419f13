"""Train sb3-contrib MaskablePPO against Random or Greedy opponents, then evaluate it with the paper's protocol.

    pip install -e ".[sb3]"      # CPU-only: torch first from PyTorch's CPU index (the README)
    python examples/sb3_maskable_ppo.py --opponent random --timesteps 50000 --eval-games 1000

The learner holds a random seat each game (the single-agent env "Big2-v0"); the
policy network sees the 277-number state and the 1695-action mask, and MaskablePPO
samples only legal actions. Evaluation: one seat for the agent, randomised per game,
three copies of the opponent (big2_env.evaluation.evaluate).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path

import gymnasium
import torch

import big2_env  # noqa: F401  (registers "Big2-v0")
from big2_env.evaluation.versus import evaluate
from big2_env.players.sb3 import SB3Policy


@dataclass
class Args:
    opponent: str = "random"
    timesteps: int = 50_000
    eval_games: int = 1000
    seed: int = 0
    n_steps: int = 1024
    learning_rate: float = 3e-4
    threads: int = 1
    save: str | None = None
    json: str = ""


def parse_args() -> Args:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    defaults = Args()
    parser.add_argument("--opponent", choices=("random", "greedy"), default=defaults.opponent)
    parser.add_argument("--timesteps", type=int, default=defaults.timesteps, help="learner decisions to train on")
    parser.add_argument("--eval-games", type=int, default=defaults.eval_games)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--n-steps", type=int, default=defaults.n_steps, help="rollout length per update")
    parser.add_argument("--learning-rate", type=float, default=defaults.learning_rate)
    parser.add_argument("--threads", type=int, default=defaults.threads, help="torch threads (keep <= free cores)")
    parser.add_argument("--save", default=None, help="where to save the model (.zip)")
    parser.add_argument("--json", default="", help="write the training speed and the evaluation to this JSON file")
    ns = parser.parse_args()
    if ns.timesteps <= 0 or ns.eval_games <= 0 or ns.n_steps <= 1:
        parser.error("--timesteps and --eval-games must be positive and --n-steps greater than 1")
    return Args(**vars(ns))


def train(args: Args, report_every_s: float = 10.0):
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(args.threads)
    env = gymnasium.make("Big2-v0", opponents=args.opponent, history=False)  # MultiInputPolicy reads every key
    model = MaskablePPO(
        "MultiInputPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=256,
        learning_rate=args.learning_rate,
        gamma=0.99,
        ent_coef=0.01,
        seed=args.seed,
        verbose=0,
        device="cpu",
    )
    model.learn(total_timesteps=args.timesteps, callback=progress_callback(args.timesteps, report_every_s))
    return model


def progress_callback(total: int, every_s: float = 10.0):
    """A line every ``every_s`` seconds of training (SB3's own bar needs the ``rich`` package)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Progress(BaseCallback):
        def _on_training_start(self) -> None:
            self.start = self.last = time.perf_counter()

        def _on_rollout_end(self) -> None:
            now = time.perf_counter()
            if now - self.last >= every_s:
                self.last = now
                print(f"  {self.num_timesteps:,} / {total:,} learner decisions, {now - self.start:.0f} s", flush=True)

        def _on_step(self) -> bool:
            return True

    return Progress()


def main() -> None:
    args = parse_args()
    print(f"training MaskablePPO for {args.timesteps:,} learner decisions against {args.opponent} "
          "(about 2 minutes at the defaults on 2 cores)", flush=True)
    start = time.perf_counter()
    model = train(args)
    train_s = time.perf_counter() - start
    print(f"trained {args.timesteps} learner decisions against {args.opponent} in {train_s:.0f} s")
    if args.save:
        model.save(args.save)
        print(f"saved {args.save}")
    record: dict = {"steps": args.timesteps, "train_s": train_s, "steps_per_s": args.timesteps / train_s, "eval": {}}
    for opponent in dict.fromkeys([args.opponent, "random", "greedy"]):
        result = evaluate(SB3Policy(model), opponent, n_games=args.eval_games, seed=args.seed + 1)
        record["eval"][opponent] = result.to_dict()
        print(result)
    if args.json:  # the figures docs/libraries.md quotes
        Path(args.json).write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
