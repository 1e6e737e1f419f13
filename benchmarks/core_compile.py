"""The compiled core's start-up cost: the cold first game after install, then a warm first game.

Each measurement is a fresh Python process timing ``import big2_env.engine.core`` and its first
``play_random(1)``: the first with an empty numba cache folder (what a user sees once after
install: every kernel compiles), the next ones with the cache that run wrote (what every later
process sees). Then the same for the first game through the PettingZoo env (``import big2_env``,
``env()``, one game of first legal actions: ``Game`` and the observations run on the core, so
this is what a user of the envs waits for), and for ``big2_env.warm_up()``, which compiles every
kernel of the package (the engine's, Smart's, the search's, the views' and both vector envs').

``--json PATH`` writes the figures (seconds) under ``rows.core_game``, ``rows.aec_game`` and
``rows.warm_up``, each with ``cold_s``, ``warm_best_s`` and ``warm_worst_s``.

Usage:
    taskset -c 1 python benchmarks/core_compile.py [--warm-runs 3] [--json benchmarks/core/compile.json]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile

CHILD = (
    "import time; t = time.perf_counter(); from big2_env.players.kernels import play_random; "
    "play_random(1, seed=0); print(time.perf_counter() - t)"
)

CHILD_AEC = (
    "import time; t = time.perf_counter(); import big2_env; e = big2_env.env(); e.reset(seed=0)\n"
    "for agent in e.agent_iter():\n"
    "    obs, _, done, cut, _ = e.last()\n"
    "    e.step(None if done or cut else int(obs['candidate_actions'][0]))\n"
    "print(time.perf_counter() - t)"
)

CHILD_ALL = "import time; t = time.perf_counter(); import big2_env; big2_env.warm_up(); print(time.perf_counter() - t)"


def first_game(cache_dir: str, child: str = CHILD) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    done = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True, text=True, check=True)
    return float(done.stdout.strip())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warm-runs", type=int, default=3, help="warm processes to time (default 3)")
    parser.add_argument("--json", default=None, help="write the figures to this JSON file")
    args = parser.parse_args(argv)
    if args.warm_runs < 1:
        parser.error("--warm-runs must be at least 1")
    rows = {}
    for key, what, child in (("core_game", "first core game", CHILD), ("aec_game", "first AEC env game", CHILD_AEC),
                             ("warm_up", "big2_env.warm_up(), every kernel,", CHILD_ALL)):
        with tempfile.TemporaryDirectory() as cache:
            cold = first_game(cache, child)
            warm = [first_game(cache, child) for _ in range(args.warm_runs)]
        print(f"{what} empty cache (after install): {cold:.1f} s")
        print(f"{what} cache on disk: {min(warm):.2f} s best, {max(warm):.2f} s worst of {len(warm)}")
        rows[key] = {"cold_s": round(cold, 2), "warm_best_s": round(min(warm), 3), "warm_worst_s": round(max(warm), 3)}
    if args.json:
        import numba

        record = {"date": datetime.date.today().isoformat(), "python": platform.python_version(),
                  "numba": numba.__version__, "warm_runs": args.warm_runs, "rows": rows}
        with open(args.json, "w") as f:
            f.write(json.dumps(record, indent=1) + "\n")
        print(f"wrote {args.json}")

if __name__ == "__main__":
    main()
