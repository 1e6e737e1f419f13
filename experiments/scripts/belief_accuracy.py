"""How well ``search-net``'s beliefs place the hidden cards: against the truth, in games against his network.

The network (``pretrained-charlesworth``, argmax, as ``search-net``'s blueprint plays) holds one seat
against three of Charlesworth's network (sampling its softmax, as in the duel) under his rules. At
each of its decisions after another seat has moved, ``--deals`` deals of the hidden cards are drawn
uniformly given each seat's count (as ``search-net`` draws them) and weighed as its ``beliefs``
weigh them: by the network's probability of every move the other seats made, at each
``--temperatures`` value, tempered to ``belief_strength`` (:func:`big2_env.players.beliefs.tempered_weights`).
Against the game's real hands, two figures a decision, averaged over the decisions:

* **placed**: the expected share of the hidden cards a weighted deal puts in the seat that holds them
  (uniform deals: about a third);
* **log_score**: the mean over the hidden cards of the log of the weighted share of deals that put
  the card where it is (each share floored at 1e-3): a calibrated belief scores higher, an
  overconfident one pays for its misses.

With ``--weigher his`` the deals are weighed by Charlesworth's network itself instead of ours (his
parameters in a network of his design, :func:`agents.network.charlesworth_network`): the posterior of
where the cards lie under the policy that really made the moves, the best any belief could be given
those moves (a diagnostic: no player may read his parameters).

Each setting (deals weighed, temperature, strength) reads the same drawn deals (the first ``n`` of
them for fewer). Strength 0 is the uniform deals.

Usage:
    python experiments/scripts/belief_accuracy.py --params PATH --games 60 \\
        --json experiments/results/search_net/belief_accuracy.json
    python experiments/scripts/belief_accuracy.py --params PATH --games 30 --sizes 128 --strengths 0,0.75
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time
from pathlib import Path
from typing import Any, Sequence


import numpy as np
import torch

from agents.net_search import NetworkRollouts, NetworkSearch, _Position
from agents.network import charlesworth_network
from big2_env import Game
from big2_env.devtools.records import portable
from big2_env.evaluation.loading import load_agent
from big2_env.evaluation.versus import normal_interval
from big2_env.observations.decision import Decision, PolicyObservation
from big2_env.players.base import policy_actions
from big2_env.players.charlesworth import load_parameters
from big2_env.players.beliefs import tempered_weights

FLOOR = 1e-3


def accuracy(hands: np.ndarray, weights: np.ndarray, real: Sequence[int], hidden: int) -> tuple[float, float]:
    """``placed`` and ``log_score`` of deals ``hands`` ``(n, 4)`` weighed ``weights`` (summing to 1) against the
    real hands ``real`` (relative seats, starting hands), over the hidden cards ``hidden`` (a bitmask).

    >>> accuracy(np.array([[0, 1, 2, 4], [0, 2, 1, 4]]), np.array([0.75, 0.25]), [0, 1, 2, 4], 3)
    (0.75, -0.2876820724517809)
    """
    cards = [c for c in range(52) if hidden >> c & 1]
    right = np.zeros((len(hands), len(cards)))
    for seat in (1, 2, 3):
        for j, card in enumerate(cards):
            if real[seat] >> card & 1:
                right[:, j] = (hands[:, seat] >> card) & 1
    share = weights @ right
    return float(share.mean()), float(np.log(np.maximum(share, FLOOR)).mean())


def run(params: str, games: int, seed: int, deals: int, sizes: Sequence[int], temperatures: Sequence[float],
        strengths: Sequence[float], weigher: str = "ours") -> dict[str, Any]:
    torch.set_num_threads(1)
    search = NetworkSearch.from_spec("pretrained-charlesworth", rules="charlesworth", seed=seed, beliefs=deals,
                                     opponent_models=["network"])
    network = search.network
    his = load_agent(f"charlesworth:{params}", "charlesworth", what="--params", seed=seed)
    weighs = search.rollout if weigher == "ours" else NetworkRollouts(charlesworth_network(load_parameters(params)),
                                                                      "charlesworth")
    rng = np.random.default_rng([seed, 7])
    settings = [(n, t, s) for n, t, s in itertools.product(sizes, temperatures, strengths) if s > 0 or t == temperatures[0]]
    figures: dict[tuple[int, float, float], list[tuple[float, float]]] = {k: [] for k in settings}
    started = time.perf_counter()
    decisions = 0
    for index, deal in enumerate(np.random.default_rng(seed).integers(0, 2**63 - 1, size=games).tolist()):
        game, me = Game("charlesworth", seed=int(deal)), index % 4
        real = [sum(1 << c for c in game.hand((me + k) % 4)) for k in range(4)]
        while not game.is_over:
            decision = Decision(game)
            if game.current_player == me:
                obs = PolicyObservation(decision, extended=True)
                position = _Position.of(obs, search.rules)
                seen = search._others_moves(position, rng, deals)
                hidden = sum(1 << c for s in (1, 2, 3) for c in game.hand((me + s) % 4))
                if seen is not None and len(seen[1]):
                    hands, chosen, r, _, _ = seen
                    views, masks, actions = search.rollout.games.history_views(hands, position.first, position.moves,
                                                                             position.others_moves())
                    rows = views.reshape(len(hands) * r, -1)[chosen]
                    flat = masks.reshape(len(hands) * r, -1)[chosen]
                    acts = actions.reshape(-1)[chosen]
                    decisions += 1
                    for t in temperatures:
                        likelihood = np.zeros(len(hands))
                        np.add.at(likelihood, chosen // r, weighs.log_probabilities(rows, flat, acts, temperature=t))
                        for n, tt, s in settings:
                            if tt != t:  # (uniform, strength 0, is listed once, at the first temperature)
                                continue
                            w = tempered_weights(likelihood[:n], s)
                            figures[(n, tt, s)].append(accuracy(hands[:n], w / w.sum(), real, hidden))
                move = policy_actions(network, [obs])[0]
            else:
                move = policy_actions(his, [PolicyObservation(decision)])[0]
            game._apply(decision.require_entry(move, "a player"))
        print(f"\r{index + 1}/{games} games, {decisions} decisions", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    rows_out = []
    for (n, t, s), values in figures.items():
        placed, score = np.array(values).reshape(-1, 2).T
        rows_out.append({"deals": n, "temperature": t, "strength": s, "placed": float(placed.mean()),
                         "placed_ci": [float(v) for v in normal_interval(placed)], "log_score": float(score.mean()),
                         "log_score_ci": [float(v) for v in normal_interval(score)]})
    return {"games": games, "seed": seed, "weigher": weigher, "decisions": decisions, "seconds": time.perf_counter() - started,
            "settings": rows_out}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params", required=True, help="Charlesworth's parameter file (modelParameters136500)")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--deals", type=int, default=1024, help="deals drawn a decision (default 1024)")
    parser.add_argument("--sizes", default="256,1024", help="how many of them each setting weighs (default 256,1024)")
    parser.add_argument("--temperatures", default="1,2", help="the network's softmax temperatures (default 1,2)")
    parser.add_argument("--strengths", default="0,0.75,0.9,0.99,1", help="belief_strength values (0: uniform)")
    parser.add_argument("--weigher", choices=("ours", "his"), default="ours",
                        help="whose network weighs the deals (his: a diagnostic, the beliefs his own policy implies)")
    parser.add_argument("--json", default=None, help="write the figures to this file")
    args = parser.parse_args(argv)
    try:
        sizes = [int(x) for x in args.sizes.split(",")]
        temperatures = [float(x) for x in args.temperatures.split(",")]
        strengths = [float(x) for x in args.strengths.split(",")]
    except ValueError as error:
        parser.error(f"--sizes takes comma-separated ints, --temperatures and --strengths numbers: {error}")
    if args.games <= 0 or not sizes or min(sizes) < 2 or max(sizes) > args.deals:
        parser.error("--games must be positive and every --sizes value in 2..--deals")
    if not all(math.isfinite(t) and t > 0 for t in temperatures) or not all(0 <= x <= 1 for x in strengths):
        parser.error("every --temperatures value must be a positive number and every --strengths value in [0, 1]")
    figures = run(args.params, args.games, args.seed, args.deals, sizes, temperatures, strengths, args.weigher)
    print(f"{figures['decisions']} decisions in {figures['games']} games")
    print(f"{'deals':>6} {'T':>4} {'strength':>8} {'placed':>8} {'log score':>10}")
    for row in figures["settings"]:
        print(f"{row['deals']:>6} {row['temperature']:>4g} {row['strength']:>8g} {row['placed']:>8.3f} "
              f"{row['log_score']:>10.3f}")
    if args.json:
        given = list(sys.argv[1:] if argv is None else argv)
        shown = ["PATH" if k and given[k - 1] == "--params" else a for k, a in enumerate(given)]  # no local path
        figures["command"] = portable("python experiments/scripts/belief_accuracy.py " + " ".join(shown))
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
