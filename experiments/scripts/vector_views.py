"""The vector env's speed by view: decisions/s with ``observation="paper"`` (277 numbers) against
``"charlesworth"`` (his 412 numbers, :func:`big2_env.players.charlesworth.network_input`), in one run.

For each number of games (64 and 512 by default), both views step the same seeded games with random
legal actions (drawn from the action masks, outside the timer: only ``step`` is timed, as in
``benchmarks/env_speed.py`` (f)), in alternating rounds so that a shared machine's load falls on
both; each view's figure is its best round. Prints decisions/s per view and the ratio
charlesworth / paper; ``--json PATH`` writes the figures. Run it on one thread for a per-core figure::

    NUMBA_NUM_THREADS=1 python experiments/scripts/vector_views.py --json experiments/results/core/vector_views.json
"""

from __future__ import annotations

import argparse
import json
import platform
import time

import numba
import numpy as np

from big2_env.envs.vector import Big2VectorEnv, warm_up

VIEWS = ("paper", "charlesworth")


def _actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per game."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


def bench(view: str, num_envs: int, steps: int, rules: str) -> float:
    """Decisions/s of ``steps`` steps of ``num_envs`` games (only ``step`` timed)."""
    env = Big2VectorEnv(num_envs, seed=0, rules=rules, observation=view)
    obs, _ = env.reset()
    rng = np.random.default_rng(0)
    elapsed = 0.0
    for _ in range(steps):
        actions = _actions(obs["action_mask"], rng)
        started = time.perf_counter()
        obs, *_ = env.step(actions)
        elapsed += time.perf_counter() - started
    return num_envs * steps / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 512], help="numbers of games")
    parser.add_argument("--decisions", type=int, default=200_000, help="decisions per view, size and round")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (the best counts)")
    parser.add_argument("--rules", default="charlesworth", help="rules preset")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    first = warm_up()
    rows = []
    for num_envs in args.sizes:
        steps = max(1, args.decisions // num_envs)
        best = {view: 0.0 for view in VIEWS}
        for _ in range(args.rounds):
            for view in VIEWS:
                best[view] = max(best[view], bench(view, num_envs, steps, args.rules))
        ratio = best["charlesworth"] / best["paper"]
        rows.append({"num_envs": num_envs, "steps": steps, "paper_decisions_per_s": best["paper"],
                     "charlesworth_decisions_per_s": best["charlesworth"], "ratio_charlesworth_over_paper": ratio})
        print(f"{num_envs:>5} games: paper {best['paper']:>12,.0f}  charlesworth {best['charlesworth']:>12,.0f} "
              f"decisions/s  ratio {ratio:.3f}")
    print(f"numba threads: {numba.get_num_threads()}; warm-up (compile or cache load) {first:.1f} s")
    if args.json:
        figures = {
            "rules": args.rules, "rounds": args.rounds, "machine": platform.machine(),
            "numba_threads": numba.get_num_threads(), "rows": rows, "warm_up_s": first,
            "note": "only step() timed; random legal actions drawn outside the timer; best of alternating rounds",
            "command": f"NUMBA_NUM_THREADS={numba.get_num_threads()} "
                       f"python experiments/scripts/vector_views.py --json {args.json}",
        }
        with open(args.json, "w") as handle:
            handle.write(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
