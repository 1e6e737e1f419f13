"""How fast the search over our network plays its rollouts, beside the network's own forward passes.

For each batch size ``M``: ``M`` determinisations of one mid-game position (seed-fixed) are played to
their end by the network in every seat (:class:`agents.net_search.NetworkRollouts` on the compiled
:class:`big2_env.envs.positions.PositionGames`); it reports the network decisions a second that
makes, and, in the same run, the network's bare forward-pass rate on the same batch size (his
design's trunk and the legal actions' head rows, the rollouts' own computation, on random legal
masks). The ratio is the share of the time the forward pass takes. One thread (torch and numba):
run it pinned to one core (``taskset -c 0``).

Usage:
    taskset -c 0 python experiments/scripts/search_net_speed.py [--batches 16,64,256] [--repeats 5]
        [--json experiments/results/search_net/speed.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from agents.net_search import NetworkRollouts, NetworkSearch  # noqa: E402
from big2_env import Game  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "results" / "search_net" / "speed.json"


def position(seed: int, cut: int) -> tuple[np.ndarray, int, list[int]]:
    """A position ``cut`` moves into a seeded game of the network's argmax: its starting hands, opener and moves."""
    game = Game("charlesworth", seed=seed)
    start = np.array([sum(1 << c for c in h) for h in game.hands], dtype=np.int64)
    rng = np.random.default_rng(seed)
    while len(game.history) < cut:
        game.play_index(int(rng.integers(len(game.legal_plays()))))
    return start, game.history[0][0], [sum(1 << c for c in p) for _, p in game.history]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", default="16,64,256")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path, default=OUT)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    model = NetworkSearch.from_spec("pretrained-charlesworth", rules="charlesworth").network.model
    rollouts = NetworkRollouts(model, "charlesworth")
    start, first, moves = position(0, 12)
    rollouts.play(np.repeat(start[None], 4, axis=0), first, moves)  # compile
    rows = []
    for m in [int(x) for x in args.batches.split(",")]:
        hands = np.repeat(start[None], m, axis=0)
        rollouts.decisions = 0
        began = time.perf_counter()
        for _ in range(args.repeats):
            rollouts.play(hands, first, moves)
        seconds = time.perf_counter() - began
        rate = rollouts.decisions / seconds
        # the bare forward pass on the same batch: random 412 inputs, about ten legal actions a row
        vectors = torch.rand(m, 412)
        rng = np.random.default_rng(0)
        cols = torch.from_numpy(np.sort(rng.choice(1695, size=(m, 10)), axis=1).reshape(-1))
        owner = torch.arange(m).repeat_interleave(10)
        calls = max(20, rollouts.decisions // (args.repeats * m))
        began = time.perf_counter()
        with torch.inference_mode():
            for _ in range(calls):
                hidden = model.policy_branch(model.encode_state(vectors))
                (hidden.index_select(0, owner) * model.action_head.weight.index_select(0, cols)).sum(-1)
        forward = calls * m / (time.perf_counter() - began)
        rows.append({"batch": m, "rollout_decisions_per_s": round(rate), "forward_decisions_per_s": round(forward),
                     "rollouts_per_s": round(args.repeats * m / seconds, 1),
                     "forward_share": round(rate / forward, 3)})
        print(rows[-1])
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({
        "position": "seed 0, 12 moves into a random game, his rules", "threads": 1, "machine": platform.machine(),
        "command": "taskset -c 0 python experiments/scripts/search_net_speed.py", "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
