"""XLA's cost estimate of one step of the JAX core: bytes accessed and operations a decision.

The program is the one ``benchmarks/jax_speed.py`` times, one step of it: a random legal action
per game, :meth:`~big2_env.jax.env.Big2.step_autoreset` over the batch (the play, the next deal
where a game ended, the mover's mask and view). XLA's ``cost_analysis`` of the compiled program
gives its bytes accessed and its floating-point operations; divided by the batch, a decision's.
Bytes accessed over a device's memory bandwidth bound the decisions a second from above when the
program is memory-bound. The estimate is of the program as compiled for the backend it runs on
(this file records which): a GPU compiler fuses differently, so it is a guide there, not a reading.

With ``--speed`` (a results file of ``benchmarks/jax_speed.py`` run on a GPU), the file also gives
the memory traffic that the fastest JAX row of each view would need at these bytes a decision, beside
the H200's datasheet bandwidth, and the bytes a decision that 20M decisions/s would allow at it; with
``--gpu-cost`` (this script's file written on that GPU), at the bytes of the program as compiled there.

Usage::

    python experiments/scripts/jax_cost.py --batches 16384 --out experiments/results/jax/cost_gpu.json   # on the GPU machine
    python experiments/scripts/jax_cost.py --speed benchmarks/jax/speed_gpu.json --gpu-cost experiments/results/jax/cost_gpu.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import jax

from big2_env.jax import Big2

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))  # the speed benchmark, a script, not a package
from jax_speed import RULES, random_legal  # noqa: E402  (the same program as the speed benchmark)

OUT = Path(__file__).resolve().parents[1] / "results" / "jax" / "cost.json"
H200_BYTES_PER_S = 4.8e12
"""The H200's memory bandwidth by NVIDIA's datasheet (141 GB of HBM3e at 4.8 TB/s)."""
TARGET = 20e6
"""The issue's target, decisions a second on one GPU."""


def step_cost(batch: int, view: str) -> dict[str, float]:
    """Bytes accessed and flops a decision of one step of ``batch`` games, by XLA's estimate."""
    env = Big2(RULES, observation=view)

    def one(state: Any, key: Any) -> tuple[Any, Any]:
        key, draw, deal = jax.random.split(key, 3)
        actions = random_legal(state.legal_action_mask, jax.random.uniform(draw, (batch,)))
        return jax.vmap(env.step_autoreset)(state, actions, jax.random.split(deal, batch)), key

    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), batch))
    cost = jax.jit(one).lower(state, jax.random.PRNGKey(1)).compile().cost_analysis()
    cost = cost[0] if isinstance(cost, list) else cost
    return {"bytes_per_decision": float(cost["bytes accessed"]) / batch, "flops_per_decision": float(cost["flops"]) / batch}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[1024, 4096])
    parser.add_argument("--speed", type=Path, help="a jax_speed.py results file measured on a GPU")
    parser.add_argument("--gpu-cost", type=Path, help="this script's results file written on that GPU (its bytes a decision)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if any(b < 1 for b in args.batches):
        parser.error("--batches must be at least 1 game")
    if args.gpu_cost and not args.speed:
        parser.error("--gpu-cost goes with --speed")
    rows = []
    for view in ("paper", "charlesworth"):
        for batch in args.batches:
            row = {"view": view, "num_envs": batch, **step_cost(batch, view)}
            rows.append(row)
            print(f"{view:12s} {batch:6,d} games: {row['bytes_per_decision']:10,.0f} bytes and "
                  f"{row['flops_per_decision']:10,.0f} flops a decision", flush=True)
    device = jax.devices()[0]
    command = "python experiments/scripts/jax_cost.py" + "".join(f" {a}" for a in (argv or sys.argv[1:]))
    record: dict[str, Any] = {"command": command,
              "jax_device": f"{device.platform}: {getattr(device, 'device_kind', '')}", "jax_version": jax.__version__,
              "rules": RULES, "rows": rows}
    if args.speed:
        speed = json.loads(args.speed.read_text())
        estimates = rows
        if args.gpu_cost:
            estimates = json.loads(args.gpu_cost.read_text())["rows"]
        record["gpu"] = {"speed_file": str(args.speed), "device": speed["jax_device"],
                         "datasheet_bytes_per_s": H200_BYTES_PER_S,
                         "bytes_per_decision_for_target": H200_BYTES_PER_S / TARGET,
                         "bytes_from": str(args.gpu_cost) if args.gpu_cost else "rows (this machine's compiler)", "views": {}}
        for view in ("paper", "charlesworth"):
            measured = [r for r in speed["rows"] if r["view"] == view]
            if not measured:
                continue
            best = max(measured, key=lambda r: r["jax"]["decisions_per_s"])
            rate = best["jax"]["decisions_per_s"]
            estimate = next(r for r in estimates if r["view"] == view)["bytes_per_decision"]
            record["gpu"]["views"][view] = {
                "num_envs": best["num_envs"], "decisions_per_s": rate, "implied_bytes_per_s": rate * estimate,
                "share_of_datasheet": rate * estimate / H200_BYTES_PER_S}
            print(f"{view}: the GPU's best {rate:,.0f} decisions/s at {estimate:,.0f} bytes would move "
                  f"{rate * estimate / 1e12:.2f} TB/s")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
