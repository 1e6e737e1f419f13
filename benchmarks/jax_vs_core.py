"""The JAX core (:mod:`big2_env.jax`) against the compiled core, decision by decision, over long runs.

For each rule set (both presets and a sample of option combinations, the house rules
``lone_triples=False`` and ``pass_locks=True`` among them), ``compare`` (``tests/differential/jax_compare.py``)
deals the same games to the JAX core and to the compiled vector env, plays the same actions in
both (a uniformly random legal action, or Smart's with probability ``--smart``) and compares the
seat on move, the 1695-action mask, both views (277 and 412 numbers), rewards, terminal flags,
winners, the games' lengths, the scores and the four hands at every decision. Writes the counts
to ``benchmarks/jax/differential.json``; any mismatch makes the exit status 1.

Usage (one core, as recorded)::

    XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" NUMBA_NUM_THREADS=1 \\
        taskset -c 1 python benchmarks/jax_vs_core.py [--decisions 100000] [--seed 0] [--smart 0.5]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from big2_env import Rules

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: the tests' JAX harness
from tests.differential.jax_compare import FIELDS, compare  # noqa: E402

OUT = Path(__file__).resolve().parent / "jax" / "differential.json"

RULE_SETS = {
    "paper": Rules(),
    "charlesworth": Rules.preset("charlesworth"),
    "no_lone_triples": Rules(lone_triples=False),
    "pass_locks": Rules(pass_locks=True),
    "wrap_suit_first_four_card": Rules(straights="wrap", flush_order="suit_first", four_card_plays=True),
    "hk_3D_leads_free_no_five_quads": Rules(scoring="hk", opening="3D_leads_free", five_card_quads=False),
    "house_wrap_hk": Rules(lone_triples=False, pass_locks=True, straights="wrap", flush_order="suit_first",
                           four_card_plays=True, scoring="hk", opening="3D_leads_free"),
    "house_charlesworth": Rules(lone_triples=False, pass_locks=True, straights="to_two", four_card_plays=True,
                                five_card_quads=False, opening="3D_single"),
}
"""Both presets and six combinations: each option takes each of its values in at least one."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=100_000, help="decisions compared per rule set (default 100,000)")
    parser.add_argument("--num-envs", type=int, default=256, help="games stepped together (default 256)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smart", type=float, default=0.5, help="the share of Smart's decisions (default 0.5)")
    parser.add_argument("--only", nargs="*", choices=list(RULE_SETS), help="these rule sets only")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    results = {}
    for name in args.only or RULE_SETS:
        started = time.perf_counter()
        report = compare(RULE_SETS[name], decisions=args.decisions, num_envs=args.num_envs, seed=args.seed, smart=args.smart)
        results[name] = {**report.to_dict(), "seconds": round(time.perf_counter() - started, 1)}
        print(f"{name:32s} {report.decisions:8,d} decisions {report.games:6,d} games {report.smart_moves:7,d} Smart "
              f"mismatches {sum(report.mismatches.values())} ({results[name]['seconds']} s)", flush=True)
        if report.first_mismatch:
            print("   first:", report.first_mismatch)
    total = sum(r["decisions"] for r in results.values())
    mismatches = sum(sum(r["mismatches"].values()) for r in results.values())
    record = {
        "command": ('XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" NUMBA_NUM_THREADS=1 '
                    f"taskset -c 1 python benchmarks/jax_vs_core.py --decisions {args.decisions} --seed {args.seed} "
                    f"--smart {args.smart}"),
        "compared": list(FIELDS),
        "seed": args.seed,
        "decisions": total,
        "games": sum(r["games"] for r in results.values()),
        "mismatches": mismatches,
        "results": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"{total:,} decisions compared, {mismatches} mismatches: {args.out}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
