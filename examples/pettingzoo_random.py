"""Play Big 2 through the PettingZoo AEC API with uniformly random legal actions.

    python examples/pettingzoo_random.py --games 3 --render
"""

from __future__ import annotations

import argparse

import numpy as np

import big2_env


def play(games: int, seed: int, render: bool) -> list[dict]:
    env = big2_env.env(render_mode="ansi" if render else None)
    rng = np.random.default_rng(seed)
    results = []
    for game in range(games):
        env.reset(seed=seed + game)
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                action = int(rng.choice(obs["candidate_actions"]))
            env.step(action)
        if render:
            print(env.render())
        results.append(info)
        print(f"game {game}: winner player_{info['winner']} after {info['turns']} turns, scores {info['scores']}")
    env.close()
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--render", action="store_true", help="print the final table of each game")
    args = parser.parse_args()
    play(args.games, args.seed, args.render)
