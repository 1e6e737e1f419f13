"""Environment speed, measured on one core in one run, with PettingZoo's connect_four_v3 as the reference.

Prints decisions/s and games/s for
  (a) the bare engine (``Game``) playing uniformly random legal plays,
  (b) the PettingZoo AEC loop (``agent_iter``/``last``/``step``) with ``candidate_view=False``,
  (c) the same with ``candidate_view=True``,
  (d) PettingZoo's ``connect_four_v3`` AEC loop run the same way (the reference),
and the ratios (b)/(d) and (c)/(d).

Usage:
    python benchmarks/env_speed.py [--seconds 5] [--rules paper]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

import numpy as np

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from big2_env import Game, Rules, env  # noqa: E402


def bench_engine(seconds: float, rules: Rules) -> tuple[float, float]:
    """Bare engine: uniformly random legal plays through the public API."""
    rng = random.Random(0)
    decisions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = Game(rules, seed=games)
        while not game.is_over:
            game.play_index(rng.randrange(len(game.legal_plays())))
            decisions += 1
        game.scores()
        games += 1
    elapsed = time.perf_counter() - start
    return decisions / elapsed, games / elapsed


def bench_aec(make_env, seconds: float) -> tuple[float, float]:
    """A PettingZoo AEC loop choosing uniformly among the legal actions (from the action mask)."""
    rng = np.random.default_rng(0)
    e = make_env()
    decisions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        e.reset(seed=games)
        for agent in e.agent_iter():
            obs, reward, termination, truncation, info = e.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
                decisions += 1
            e.step(action)
        games += 1
    elapsed = time.perf_counter() - start
    e.close()
    return decisions / elapsed, games / elapsed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement (default 5)")
    parser.add_argument("--rules", default="paper", choices=Rules.PRESETS, help="rules preset (default paper)")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    rules = Rules.preset(args.rules)
    try:
        import pygame  # noqa: F401  (connect_four_v3 needs it)
    except ImportError:
        sys.exit("the reference needs pygame: pip install -e '.[bench]'")
    import pettingzoo

    def connect_four():
        return pettingzoo.make("aec", "classic/connect_four_v3")

    rows = [
        ("(a) engine, random legal plays", *bench_engine(args.seconds, rules)),
        ("(b) AEC loop, candidate_view=False", *bench_aec(lambda: env(rules=rules, candidate_view=False), args.seconds)),
        ("(c) AEC loop, candidate_view=True", *bench_aec(lambda: env(rules=rules, candidate_view=True), args.seconds)),
        ("(d) connect_four_v3 AEC loop (reference)", *bench_aec(connect_four, args.seconds)),
    ]
    print(f"rules={args.rules}, {args.seconds:g} s per measurement, one process")
    print(f"{'measurement':<42} {'decisions/s':>12} {'games/s':>10}")
    for name, dps, gps in rows:
        print(f"{name:<42} {dps:>12,.0f} {gps:>10,.1f}")
    ref = rows[3][1]
    print(f"ratio (b)/(d): {rows[1][1] / ref:.2f}x   ratio (c)/(d): {rows[2][1] / ref:.2f}x   (decisions/s)")


if __name__ == "__main__":
    main()
