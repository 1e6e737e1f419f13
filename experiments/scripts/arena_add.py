"""``big2 arena --pool DIR --add AGENT`` against re-running the board: the time to rate one new agent.

A pool of nine agents plays every table on ``--deals`` deals (not timed: the stored board). Then,
timed in the same run, one after the other on the same machine:

* **add**: :func:`~big2_env.evaluation.arena.add_to_arena` of one new agent (``--add-tables
  matched``, the default: the new agent gets about as many seats as a pool agent held), from
  loading the agents to the refitted ratings;
* **re-run**: :func:`~big2_env.evaluation.arena.run_arena` of the board of ten (the pool and the
  new agent) from scratch, every table, the same deals: what rating the new agent took without
  ``--add``.

The target (issue 61): the add takes less than a third of the re-run's time. By the tables alone
the add plays ``C(8, 3) = 56`` of the ten-agent board's ``C(10, 4) = 210`` tables a deal (27%).
The agents' speeds move it: the new agent sits at every table the add plays, so a new agent
slower than the pool's average raises the ratio (towards 56 / 84 = 67% for one that costs all the
time) and a faster one lowers it. The agents here are cheap ones, so that the board takes minutes;
the new one is a network, as a researcher's new agent usually is. Both times are wall-clock
seconds on the machine as it is (the results file says whether it was shared): the ratio, taken in
one run, is the figure.

Usage:
    python experiments/scripts/arena_add.py                       # writes experiments/results/arena_add/results.json
    python experiments/scripts/arena_add.py --deals 1 --json /tmp/add.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import platform
import tempfile
import time
from pathlib import Path
from typing import Any

from big2_env.evaluation.arena import add_to_arena, run_arena

RESULTS = Path(__file__).resolve().parents[1] / "results" / "arena_add" / "results.json"
POOL = ["random", "greedy", "smart", "fast", "pretrained", "search:4", "search:8", "search:16", "ismcts:4"]
NEW = "pretrained-default-recipe"
"""The new agent: a network, as a researcher's new agent usually is."""
TARGET = 1 / 3


def _row(result: Any, agent: str) -> dict[str, Any]:
    row = next(r for r in result.ratings if r.agent == agent)
    return {"points": row.points, "points_ci": list(row.points_ci), "games": row.games,
            "rank": [r.agent for r in result.ratings].index(agent) + 1}


def measure(deals: int, seed: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        pool = run_arena(POOL, deals=deals, seed=seed, out=root / "pool", tables="all", picture=False)
        start = time.perf_counter()
        added = add_to_arena(root / "pool", [NEW], out=root / "added", picture=False)
        add_s = time.perf_counter() - start
        start = time.perf_counter()
        rerun = run_arena([*POOL, NEW], deals=deals, seed=seed, out=root / "rerun", tables="all", picture=False)
        rerun_s = time.perf_counter() - start
    played = len(added.records) - added.resumed
    n = len(POOL)
    return {
        "command": f"python experiments/scripts/arena_add.py --deals {deals} --seed {seed}",
        "date": datetime.date.today().isoformat(),
        "machine": f"{platform.machine()}, Python {platform.python_version()}, shared with other jobs",
        "pool": POOL, "new_agent": NEW, "deals": deals, "seed": seed,
        "pool_games": len(pool.records),
        "add_games": played,
        "rerun_games": len(rerun.records),
        "games_ratio": played / len(rerun.records),
        "tables_ratio": math.comb(n - 1, 3) / math.comb(n + 1, 4),
        "add_s": add_s,
        "rerun_s": rerun_s,
        "ratio": add_s / rerun_s,
        "target": TARGET,
        "met": add_s / rerun_s < TARGET,
        "new_agent_added": _row(added, NEW),
        "new_agent_rerun": _row(rerun, NEW),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=str(RESULTS), help=f"the results file (default {RESULTS})")
    args = parser.parse_args(argv)
    data = measure(args.deals, args.seed)
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")
    print(f"add {data['add_games']} games in {data['add_s']:.1f} s; re-run {data['rerun_games']} games in "
          f"{data['rerun_s']:.1f} s: ratio {data['ratio']:.1%} (target < {TARGET:.0%}; games {data['games_ratio']:.1%})")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
