"""Random play in the JAX core beside the compiled vector env, in one run: decisions/s with observations and masks.

For each batch size (1k to 64k games) and view (the paper's 277 numbers, Charlesworth's 412):

* **JAX** (:mod:`big2_env.jax`): one compiled program steps every game ``steps`` times
  (``jax.lax.scan``): a uniformly random legal action per game (one uniform draw, the legal
  actions counted), :meth:`~big2_env.jax.env.Big2.step_autoreset` (the play, the next deal for
  games that ended, the mover's mask and view). Timed from the call to the results on the host,
  after a first call that compiles (its seconds are recorded apart);
* **compiled vector env** (:func:`big2_env.vector_env`): ``step`` with one action per game, and
  the same random choice made with numpy on the host; timed twice: ``step`` alone (its own figure,
  as ``benchmarks/env_speed.py`` times it) and ``step`` with the choice.

The ratio compares JAX's whole loop with the vector env's ``step`` alone (the conservative one).
Runs on whatever JAX finds (a GPU when there is one; this file records the device) and the numba
threads of ``NUMBA_NUM_THREADS``. Writes ``benchmarks/jax/speed.json`` (or ``--out``).

Usage (as recorded, one core: JAX on one thread, numba on one thread)::

    XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" NUMBA_NUM_THREADS=1 \\
        taskset -c 1 python benchmarks/jax_speed.py

On a machine with a GPU and 16 cores (the compiled env on all of them)::

    NUMBA_NUM_THREADS=16 python benchmarks/jax_speed.py --batches 1024 16384 262144 --decisions 524288 \\
        --jax-decisions 67108864 --out benchmarks/jax/speed_gpu.json

(JAX timed over 67M decisions a row, the vector env over 524,288: the numpy choice on the host is
what takes the time there.)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numba
import numpy as np

from big2_env import vector_env
from big2_env.records import portable
from big2_env.jax import Big2

OUT = Path(__file__).resolve().parent / "jax" / "speed.json"
RULES = "charlesworth"


PICK_BLOCK = 15
"""The width of the blocks :func:`random_legal` counts the legal actions in (1695 = 113 x 15)."""


def random_legal(mask: Any, u: Any) -> Any:
    """The ``floor(u * n)``-th of each row's ``n`` legal actions (``mask`` (B, 1695), ``u`` (B,) in [0, 1)).

    In two levels, so that no prefix sum runs over all 1695 actions: the legal actions counted in
    113 blocks of 15, the block that holds the pick found from those counts, then the action within
    it. The same action as a prefix sum over the whole row, at an eighth of its memory traffic.
    """
    batch = mask.shape[0]
    blocks = mask.reshape(batch, -1, PICK_BLOCK)
    through = jnp.cumsum(blocks.sum(axis=2, dtype=jnp.int32), axis=1)  # legal actions up to each block's end
    count = through[:, -1]
    pick = jnp.minimum((u * count).astype(jnp.int32), count - 1)
    block = (through <= pick[:, None]).sum(axis=1)  # the first block whose end passes `pick`
    before = jnp.where(block > 0, jnp.take_along_axis(through, jnp.maximum(block - 1, 0)[:, None], axis=1)[:, 0], 0)
    row = jnp.take_along_axis(blocks, block[:, None, None], axis=1)[:, 0]
    within = (jnp.cumsum(row, axis=1, dtype=jnp.int32) <= (pick - before)[:, None]).sum(axis=1)
    return (block * PICK_BLOCK + within).astype(jnp.int32)


def jax_play(batch: int, steps: int, view: str, seed: int) -> dict[str, float]:
    """Decisions/s of ``steps`` random steps of ``batch`` games in one compiled program."""
    env = Big2(RULES, observation=view)

    @partial(jax.jit, static_argnums=2)
    def run(state: Any, key: Any, steps: int) -> tuple[Any, Any, Any]:
        def body(carry: tuple[Any, Any], _: Any) -> tuple[tuple[Any, Any], Any]:
            state, key = carry
            key, draw, deal = jax.random.split(key, 3)
            actions = random_legal(state.legal_action_mask, jax.random.uniform(draw, (batch,)))
            state = jax.vmap(env.step_autoreset)(state, actions, jax.random.split(deal, batch))
            return (state, key), state.terminated.sum()

        (state, key), ended = jax.lax.scan(body, (state, key), None, length=steps)
        return state, key, ended.sum()

    key = jax.random.PRNGKey(seed)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(key, batch))
    started = time.perf_counter()
    state, key, ended = jax.block_until_ready(run(state, key, steps))  # compiles
    compile_s = time.perf_counter() - started
    started = time.perf_counter()
    state, key, ended = run(state, key, steps)
    observation = np.asarray(state.observation)  # to the host, as a learner on the host would read it
    elapsed = time.perf_counter() - started
    assert observation.shape == (batch, env.observation_shape[0])
    return {"decisions_per_s": batch * steps / elapsed, "seconds": elapsed, "first_call_s": compile_s,
            "games_ended": int(ended)}


def vector_play(batch: int, steps: int, view: str, seed: int) -> dict[str, float]:
    """Decisions/s of the compiled vector env: ``step`` alone, and ``step`` with a numpy random choice."""
    venv = vector_env(batch, seed=seed, rules=RULES, observation=view)
    obs, _ = venv.reset()
    venv.step(obs["action_mask"].argmax(axis=1))  # untimed: the first call loads the kernels
    obs, _ = venv.reset()
    rng = np.random.default_rng(seed)
    step_s = choose_s = 0.0
    ended = 0
    for _ in range(steps):
        started = time.perf_counter()
        mask = obs["action_mask"]
        count = mask.sum(axis=1)
        pick = np.minimum((rng.random(batch) * count).astype(np.int64), count - 1)
        actions = np.argmax(np.cumsum(mask, axis=1) > pick[:, None], axis=1)
        chosen = time.perf_counter()
        obs, _, terminated, _, _ = venv.step(actions)
        step_s += time.perf_counter() - chosen
        choose_s += chosen - started
        ended += int(terminated.sum())
    return {"step_decisions_per_s": batch * steps / step_s,
            "with_choice_decisions_per_s": batch * steps / (step_s + choose_s), "games_ended": ended}


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[1024, 4096, 16384, 65536])
    parser.add_argument("--decisions", type=int, default=262_144,
                        help="decisions timed per batch size and view (steps = decisions / batch, at least 4)")
    parser.add_argument("--jax-decisions", type=int, default=0,
                        help="decisions JAX is timed over, where more than --decisions (its loop is fast enough on a "
                             "GPU that copying the last views to the host would weigh on a short one)")
    parser.add_argument("--views", nargs="+", default=["paper", "charlesworth"], choices=["paper", "charlesworth"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if any(b < 1 or b > 1 << 20 for b in args.batches):
        parser.error("--batches must be 1 to 1,048,576 games")
    if args.decisions < 1 or args.jax_decisions < 0:
        parser.error("--decisions must be at least 1 and --jax-decisions at least 0 (0: as many as --decisions)")
    rows: list[dict[str, Any]] = []
    for view in args.views:
        for batch in args.batches:
            steps = max(4, args.decisions // batch)
            jax_steps = max(steps, args.jax_decisions // batch)
            ours = jax_play(batch, jax_steps, view, args.seed)
            theirs = vector_play(batch, steps, view, args.seed)
            row = {"view": view, "num_envs": batch, "steps": steps, "jax_steps": jax_steps, "jax": ours, "vector": theirs,
                   "ratio_jax_over_vector_step": ours["decisions_per_s"] / theirs["step_decisions_per_s"]}
            rows.append(row)
            print(f"{view:12s} {batch:7,d} games x {steps:4d} steps ({jax_steps} for JAX): "
                  f"JAX {ours['decisions_per_s']:12,.0f}/s "
                  f"(first call {ours['first_call_s']:.1f} s)  vector env step {theirs['step_decisions_per_s']:12,.0f}/s, "
                  f"with the choice {theirs['with_choice_decisions_per_s']:12,.0f}/s  "
                  f"ratio {row['ratio_jax_over_vector_step']:.3f}", flush=True)
            write(args, argv, rows)  # after every row: a run stopped from outside keeps the rows it measured
    print(f"wrote {args.out}")
    return 0


def write(args: argparse.Namespace, argv: list[str] | None, rows: list[dict[str, Any]]) -> None:
    """The results file: the command, the machine, the device and the rows measured so far."""
    device = jax.devices()[0]
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    pinned = [f"taskset -c {','.join(map(str, cores))}"] if cores and len(cores) < (os.cpu_count() or 0) else []
    record = {
        "command": " ".join(
            ([f'XLA_FLAGS="{os.environ["XLA_FLAGS"]}"'] if os.environ.get("XLA_FLAGS") else [])
            + [f"NUMBA_NUM_THREADS={numba.get_num_threads()}"] + pinned + ["python", "benchmarks/jax_speed.py"]
            + (argv or sys.argv[1:])
        ),
        "load_average_after": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "rules": RULES,
        "jax_device": f"{device.platform}: {getattr(device, 'device_kind', '')}",
        "jax_version": jax.__version__,
        "cpu": _cpu(),
        "cores_visible": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "numba_threads": numba.get_num_threads(),
        "xla_flags": os.environ.get("XLA_FLAGS", ""),
        "note": ("JAX: the whole loop in one compiled program (random legal choice, step, next deal, mask, view), "
                 "timed until the views are on the host; vector env: step() alone, and with the same choice in numpy"),
        "rows": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(portable(record), indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
