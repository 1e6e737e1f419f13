"""Environment speed, measured on one core in one run, with PettingZoo's connect_four_v3 as the reference.

Prints decisions/s and games/s for
  (a) the pure-Python reference engine (``tests/reference``, the engine before the core)
      playing uniformly random legal plays,
  (b) the PettingZoo AEC loop (``agent_iter``/``last``/``step``) with ``candidate_view=False``,
  (c) the same with ``candidate_view=True``,
  (d) PettingZoo's ``connect_four_v3`` AEC loop run the same way (the reference),
  (e) the compiled core (:mod:`big2_env.engine.core`) playing uniformly random legal plays,
  (f) the vector env (:func:`big2_env.vector_env`, 4096 games, every core), observations and
      masks for every decision, stepping the first legal action of each game (``step`` alone:
      choosing is the caller's cost),
  (g) ``gymnasium.make_vec("Big2-v0", num_envs=4096, opponents="smart")``, the compiled
      single-agent vector env: the learner's steps (the first legal action), three Smart
      opponents moving inside the same call, every core,
  (h) the Python single-agent env ``gymnasium.make("Big2-v0", opponents="smart")`` run the
      same way on one core (the reference for (g)),
  (i) ``big2_env.Game`` (on the core) playing the same way as (a),
and the ratios (b)/(d), (c)/(d), (e)/(a), (f)/(d), (g)/(h) and (i)/(a); for (g) and (h) the decisions
are the learner's steps. Then the vector env's ``step`` as (f) at 1, 2, 4, ... threads up to every core
(``thread_scaling``: decisions/s and the speed-up over one thread).
``--json PATH`` writes the figures. The core's first call (compilation, or loading
the on-disk cache) is timed apart and left out of (e); ``benchmarks/core_compile.py`` measures
the cold first game after install.

Usage:
    python benchmarks/env_speed.py [--seconds 5] [--rules paper]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from big2_env import Game, Rules, env  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: the tests' reference engine
from tests.reference import Game as ReferenceGame  # noqa: E402


def bench_engine(seconds: float, rules: Rules, game_class: type = Game) -> tuple[float, float]:
    """Bare engine: uniformly random legal plays through the public API of ``game_class``."""
    rng = random.Random(0)
    game_class(rules, seed=0).legal_plays()  # untimed: the first call loads the compiled core
    decisions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = game_class(rules, seed=games)
        while not game.is_over:
            game.play_index(rng.randrange(len(game.legal_plays())))
            decisions += 1
        game.scores()
        games += 1
    elapsed = time.perf_counter() - start
    return decisions / elapsed, games / elapsed


def bench_core(seconds: float, rules: Rules) -> tuple[float, float, float]:
    """The compiled core: batches of random games; returns (decisions/s, games/s, first call's seconds)."""
    from big2_env.players.kernels import play_random

    start = time.perf_counter()
    play_random(1, seed=0, rules=rules)
    first = time.perf_counter() - start
    decisions = games = 0
    start = time.perf_counter()
    seed = 1
    while time.perf_counter() - start < seconds:
        result = play_random(4096, seed=seed, rules=rules)
        decisions += result.decisions
        games += 4096
        seed += 1
    elapsed = time.perf_counter() - start
    return decisions / elapsed, games / elapsed, first


def bench_vector(seconds: float, rules: Rules, num_envs: int = 4096) -> tuple[float, float]:
    """The vector env's ``step`` alone (the first legal action of each game, chosen outside the timing)."""
    from big2_env import vector_env

    venv = vector_env(num_envs, seed=0, rules=rules)
    obs, _ = venv.reset()
    return time_steps(venv, obs, seconds, num_envs)


def time_steps(venv, obs, seconds: float, num_envs: int) -> tuple[float, float]:
    """(steps/s, games/s) of ``venv.step`` alone, each game playing its first legal action (chosen
    outside the timing); the first step, which compiles or loads the cache, is not timed."""
    obs, *_ = venv.step(np.argmax(obs["action_mask"], axis=1))
    steps = games = 0
    spent = 0.0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = np.argmax(obs["action_mask"], axis=1)
        t0 = time.perf_counter()
        obs, _, terminations, _, _ = venv.step(actions)
        spent += time.perf_counter() - t0
        steps += num_envs
        games += int(terminations.sum())
    return steps / spent, games / spent


def bench_aec(make_env, seconds: float) -> tuple[float, float]:
    """A PettingZoo AEC loop choosing uniformly among the legal actions (from the action mask)."""
    rng = np.random.default_rng(0)
    e = make_env()
    e.reset(seed=0)  # untimed: the first decision loads the compiled view
    e.last()
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


def bench_single_agent(seconds: float, rules: Rules, num_envs: int | None) -> tuple[float, float]:
    """The learner's steps/s against three Smart: the compiled vector env (``num_envs`` games) or,
    with ``None``, the Python single-agent env; the first legal action each step."""
    import gymnasium

    if num_envs is None:
        single = gymnasium.make("Big2-v0", opponents="smart", rules=rules)
        obs, _ = single.reset(seed=0)
        steps = games = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            obs, _, terminated, _, _ = single.step(int(np.argmax(obs["action_mask"])))
            steps += 1
            if terminated:
                games += 1
                obs, _ = single.reset()
        elapsed = time.perf_counter() - start
        return steps / elapsed, games / elapsed
    envs = gymnasium.make_vec("Big2-v0", num_envs=num_envs, opponents="smart", rules=rules)
    obs, _ = envs.reset(seed=0)
    return time_steps(envs, obs, seconds, num_envs)


def thread_counts(most: int) -> list[int]:
    """1, 2, 4, ... up to ``most``, and ``most`` itself."""
    counts = [1]
    while counts[-1] * 2 <= most:
        counts.append(counts[-1] * 2)
    return counts if counts[-1] == most else counts + [most]


def bench_thread_scaling(seconds: float, rules: Rules) -> list[dict[str, float]]:
    """Row (f) at each thread count of :func:`thread_counts`: decisions/s and the speed-up over one thread."""
    import numba

    most = numba_threads()
    rows = []
    try:
        for threads in thread_counts(most):
            numba.set_num_threads(threads)
            decisions, _ = bench_vector(seconds, rules)
            one = rows[0]["decisions_per_s"] if rows else decisions
            rows.append({"threads": threads, "decisions_per_s": decisions, "speedup": decisions / one})
    finally:
        numba.set_num_threads(most)
    return rows


def numba_threads() -> int:
    import numba

    return numba.get_num_threads()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement (default 5)")
    parser.add_argument("--rules", default="paper", choices=Rules.PRESETS, help="rules preset (default paper)")
    parser.add_argument("--json", help="write the figures to this file")
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
        ("(a) reference Python engine, random plays", *bench_engine(args.seconds, rules, ReferenceGame)),
        ("(b) AEC loop, candidate_view=False", *bench_aec(lambda: env(rules=rules, candidate_view=False), args.seconds)),
        ("(c) AEC loop, candidate_view=True", *bench_aec(lambda: env(rules=rules, candidate_view=True), args.seconds)),
        ("(d) connect_four_v3 AEC loop (reference)", *bench_aec(connect_four, args.seconds)),
    ]
    core_dps, core_gps, first = bench_core(args.seconds, rules)
    rows.append(("(e) compiled core, random legal plays", core_dps, core_gps))
    rows.append(("(f) vector env step, 4096 games", *bench_vector(args.seconds, rules)))
    rows.append(("(g) make_vec Big2-v0 vs 3 Smart, 4096", *bench_single_agent(args.seconds, rules, 4096)))
    rows.append(("(h) make Big2-v0 vs 3 Smart (Python)", *bench_single_agent(args.seconds, rules, None)))
    rows.append(("(i) Game (on the core), random plays", *bench_engine(args.seconds, rules)))
    scaling = bench_thread_scaling(args.seconds, rules)
    print(f"rules={args.rules}, {args.seconds:g} s per measurement, one process")
    print(f"{'measurement':<42} {'decisions/s':>12} {'games/s':>10}")
    for name, dps, gps in rows:
        print(f"{name:<42} {dps:>12,.0f} {gps:>10,.1f}")
    ref = rows[3][1]
    print(f"ratio (b)/(d): {rows[1][1] / ref:.2f}x   ratio (c)/(d): {rows[2][1] / ref:.2f}x   (decisions/s)")
    print(f"ratio (e)/(a): {rows[4][1] / rows[0][1]:.1f}x   (the core's first call, compile or cache load: {first:.1f} s)")
    print(f"ratio (f)/(d): {rows[5][1] / ref:.1f}x   (numba threads: {numba_threads()})")
    print(f"ratio (g)/(h): {rows[6][1] / rows[7][1]:.1f}x   (the learner's steps/s)")
    print(f"ratio (i)/(a): {rows[8][1] / rows[0][1]:.2f}x   (Game on the core against the reference engine)")
    for row in scaling:
        print(f"(f) at {row['threads']:>2} thread(s): {row['decisions_per_s']:>12,.0f} decisions/s, "
              f"{row['speedup']:.2f}x one thread")
    if args.json:
        import json
        import platform

        figures = {
            "rules": args.rules, "seconds": args.seconds, "machine": platform.machine(), "numba_threads": numba_threads(),
            "rows": [{"measurement": name, "decisions_per_s": dps, "games_per_s": gps} for name, dps, gps in rows],
            "ratios": {"b/d": rows[1][1] / ref, "c/d": rows[2][1] / ref, "e/a": rows[4][1] / rows[0][1],
                       "f/d": rows[5][1] / ref, "g/h": rows[6][1] / rows[7][1],
                       "i/a": rows[8][1] / rows[0][1]},
            "core_first_call_s": first,
            "thread_scaling": scaling,
            "command": f"python benchmarks/env_speed.py --seconds {args.seconds:g} --json {args.json}",
        }
        with open(args.json, "w") as handle:
            handle.write(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
