"""What ``search-net``'s departures from its network are worth: as its rollouts measure them, and at the table.

``search-net`` (:mod:`agents.net_search`) plays one seat against three of Charlesworth's network
under his rules (his network samples its softmax, as in ``experiments/scripts/search_net.py``). Wherever the
search leaves the network's first choice, the two moves (the network's and the search's) are
valued again from that position, on the same ``--fresh`` deals of the hidden cards drawn anew:

* **measured**: the paired gain the search itself measured when it chose (its rollouts: our network
  in every seat, or the opponent model each seat was read as);
* **fresh**: the same rollouts again on fresh deals with a fresh generator. The measured gain minus
  the fresh one is the winner's curse, the optimism of picking the best of noisy means;
* **table**: the same deals, with Charlesworth's network itself playing the other three seats of the
  rollouts (:func:`agents.network.charlesworth_network`, sampling, as at the table). The fresh gain
  minus this one is what the rollouts' model of the other seats gets wrong;
* **table_argmax**: the same again, with the searcher's own later moves at the network's argmax;
* **true**: as ``table_argmax``, every rollout on the game's real hidden cards instead of a draw of
  them. The drawn deals are uniform given the cards' counts, the real ones lie where his moves so far
  put them: ``table_argmax`` minus ``true`` is what the uniform deals get wrong.

With ``--oracle`` the search is told the game's real hidden cards: every rollout of its decisions is
played on them (a diagnostic, not a player: what perfect beliefs would make of its departures). Each
game's final score for the search's seat is kept too (``score``: its mean and interval).

In the first three the searcher's own later moves are the network's, sampled, as in the search's
rollouts. ``true`` is the advantage of the search's move over the network's when the network alone plays on
(argmax, as it plays in the duel) against his network, in the game as it is: by the performance
difference lemma, the duel's paired gain of the search over the network alone is, in expectation,
the sum of these over the search's departures, so departures a game times their mean.

Usage:
    python experiments/scripts/search_net_departures.py --params PATH --games 160 --seed 1 --json part1.json
    python experiments/scripts/search_net_departures.py --merge part1.json part2.json --json departures.json
    python experiments/scripts/search_net_departures.py --params PATH --games 240 --seed 1 --oracle --json oracle1.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any, Sequence


import numpy as np
import torch

from agents.net_search import NetworkRollouts, NetworkSearch
from agents.network import charlesworth_network
from big2_env import Game
from big2_env.records import portable
from big2_env.evaluation.loading import load_agent
from big2_env.evaluation.versus import normal_interval
from big2_env.observations.decision import Decision, PolicyObservation
from big2_env.players.base import policy_actions
from big2_env.players.charlesworth import load_parameters
from big2_env.players.dealers import UniformDealer
from big2_env.players.public import PublicState, public_state

NOISY_DEALS = 64
FIGURES = ("measured", "fresh", "table", "table_argmax", "true")


def mean_ci(values: Sequence[float]) -> tuple[float, list[float]]:
    """The mean and its normal 95% interval (:func:`big2_env.evaluation.versus.normal_interval`).

    >>> mean_ci([1.0, 2.0, 3.0])[0]
    2.0
    """
    x = np.asarray(values, dtype=np.float64)
    if len(x) < 2:
        return float(x.mean()) if len(x) else math.nan, [math.nan, math.nan]
    return float(x.mean()), [float(v) for v in normal_interval(x)]


class OracleSearch(NetworkSearch):
    """``search-net`` told the real hidden cards: every deal of its rollouts is ``real`` (starting hands,
    relative seats, the searcher first), set before each game. A diagnostic, not a player. With
    ``swaps`` > 0 the deals are :data:`NOISY_DEALS` copies of the real one, each after ``swaps`` swaps
    of two hidden cards held by different seats (drawn afresh at each decision): beliefs that place
    most cards right but not all; ``placed`` keeps, a decision, the share of the hidden cards they put
    in the right seat."""

    real: np.ndarray | None = None
    swaps = 0
    placed: list[float]

    def _dealer(self, position: PublicState) -> "_Pool":
        return _Pool(*self._weighed_deals(position), self.rng)

    def _weighed_deals(self, position: PublicState, every: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        if self.real is None:
            raise RuntimeError("OracleSearch.real is not set: give it the game's starting hands first")
        if not self.swaps:
            return self.real[None], np.ones(1)
        unseen = np.array(UniformDealer.starting(position, self.rng).unseen, dtype=np.int64)  # the cards whose seat is unknown
        hands = np.repeat(self.real[None], NOISY_DEALS, axis=0)
        for row in hands:
            owner = {int(c): s for c in unseen for s in (1, 2, 3) if row[s] >> int(c) & 1}
            for _ in range(self.swaps if len(set(owner.values())) > 1 else 0):
                x, y = self.rng.choice(unseen, size=2, replace=False)
                while owner[int(x)] == owner[int(y)]:
                    x, y = self.rng.choice(unseen, size=2, replace=False)
                a, b = owner[int(x)], owner[int(y)]
                row[a] ^= (1 << int(x)) | (1 << int(y))
                row[b] ^= (1 << int(x)) | (1 << int(y))
                owner[int(x)], owner[int(y)] = b, a
        if len(unseen):
            hidden = int(np.bitwise_or.reduce(np.left_shift(1, unseen)))
            right = sum(int(row[s] & self.real[s] & hidden).bit_count() for row in hands for s in (1, 2, 3))
            self.placed.append(right / (len(unseen) * NOISY_DEALS))
        return hands, np.full(NOISY_DEALS, 1.0 / NOISY_DEALS)


class _Pool:
    """Deals drawn from ``pool`` in proportion to ``weights``, with ``rng`` and with replacement."""

    def __init__(self, pool: np.ndarray, weights: np.ndarray, rng: np.random.Generator) -> None:
        self.pool, self.weights, self.rng = pool, weights, rng

    def deal(self, n: int) -> np.ndarray:
        return self.pool[self.rng.choice(len(self.pool), size=n, p=self.weights)]


def summary(rows: list[dict[str, float]], games: int, searched: int,
            scores: Sequence[float] = ()) -> dict[str, Any]:
    """Each figure's mean over the departures, with its interval, the departures a game, and the
    search's mean score a game (``scores``: one a game, where kept)."""
    out: dict[str, Any] = {"departures": len(rows), "games": games, "searched": searched,
                           "departures_per_game": len(rows) / games if games else math.nan}
    out["score"], out["score_ci"] = mean_ci(scores)
    out["win_rate"] = float(np.mean([x > 0 for x in scores])) if len(scores) else math.nan
    for key in FIGURES:
        out[key], out[f"{key}_ci"] = mean_ci([row[key] for row in rows])
    out["gain_per_game"] = out["departures_per_game"] * out["true"] if rows else 0.0  # the lemma
    out["curse"], out["curse_ci"] = mean_ci([row["measured"] - row["fresh"] for row in rows])
    out["model_error"], out["model_error_ci"] = mean_ci([row["fresh"] - row["table"] for row in rows])
    out["sampled_own"], out["sampled_own_ci"] = mean_ci([row["table"] - row["table_argmax"] for row in rows])
    out["beliefs"], out["beliefs_ci"] = mean_ci([row["table_argmax"] - row["true"] for row in rows])
    return out


def revalue(search: NetworkSearch, tables: Sequence[NetworkRollouts], position: PublicState, moves: np.ndarray,
            rng: np.random.Generator, deals: int, real: np.ndarray) -> list[float]:
    """The second move's mean gain over the first on ``deals`` fresh deals: by the search's rollouts (with the
    opponent models it reads now), then by each of ``tables`` (his network in the other seats), then by the
    last of them on the real starting hands ``real`` (relative seats, the searcher first) in every rollout."""
    models = search.seat_models(position) if len(search.opponent_models) > 1 else None
    hands = np.repeat(UniformDealer.starting(position, rng).deal(deals), len(moves), axis=0)
    actions = np.tile(moves, deals)
    gains = []
    truth = np.repeat(np.asarray(real, dtype=np.int64)[None], len(hands), axis=0)
    runs = [(search.rollout, hands, models)] + [(table, hands, None) for table in tables] + [(tables[-1], truth, None)]
    for rollout, starting, seats in runs:
        scores = rollout.play(starting, position.opener, [sum(1 << c for c in play) for _, play in position.history], actions,
                              seats)[:, 0].reshape(deals, -1)
        gains.append(float((scores[:, 1] - scores[:, 0]).mean()))
    return gains


def run(params: str, games: int, seed: int, budget: int, fresh: int, options: dict[str, Any],
        oracle: bool = False, swaps: int = 0) -> dict[str, Any]:
    torch.set_num_threads(1)
    kind = OracleSearch if oracle else NetworkSearch
    search = kind.from_spec("pretrained-charlesworth", rules="charlesworth", budget=budget, seed=seed, **options)
    if isinstance(search, OracleSearch):
        search.swaps, search.placed = swaps, []
    his = load_agent(f"charlesworth:{params}", "charlesworth", what="--params", seed=seed)
    his_net = charlesworth_network(load_parameters(params))
    rng = np.random.default_rng([seed, 1])
    tables = [NetworkRollouts(search.network.model, "charlesworth", sample=True, rng=np.random.default_rng([seed, k]),
                              seat_networks={1: his_net, 2: his_net, 3: his_net}, argmax_seats=own)
              for k, own in ((2, ()), (3, (0,)))]
    deals = np.random.default_rng(seed).integers(0, 2**63 - 1, size=games)
    rows: list[dict[str, float]] = []
    scores: list[float] = []
    started = time.perf_counter()
    for index, deal in enumerate(deals.tolist()):
        game, me = Game("charlesworth", seed=int(deal)), index % 4
        real = [sum(1 << c for c in game.hand((me + k) % 4)) for k in range(4)]  # starting hands, the searcher first
        if isinstance(search, OracleSearch):
            search.real = np.asarray(real, dtype=np.int64)
        while not game.is_over:
            decision = Decision(game)
            if game.current_player == me:
                obs = PolicyObservation(decision, extended=True)
                move = search.act(obs)
                last = search.last
                if last is not None and last["chosen"] != last["blueprint"]:
                    position = public_state(obs)
                    pair = np.array([last["blueprint"], last["chosen"]], dtype=np.int64)
                    ours, theirs, argmax, true = revalue(search, tables, position, pair, rng, fresh // 2, real)
                    rows.append({"measured": float(last["gain"]), "fresh": ours, "table": theirs,
                                 "table_argmax": argmax, "true": true, "error": float(last["error"])})
            else:
                move = policy_actions(his, [PolicyObservation(decision)])[0]
            game._apply(decision.require_entry(move, "a player"))
        scores.append(float(game.scores()[me]))
        print(f"\r{index + 1}/{games} games, {len(rows)} departures", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return {"games": games, "seed": seed, "budget": budget, "fresh_rollouts": fresh, "options": options,
            "oracle": oracle, "swaps": swaps,
            "oracle_placed": float(np.mean(search.placed)) if isinstance(search, OracleSearch) and search.placed else None,
            "seconds": time.perf_counter() - started, "searched": search.stats.searched,
            "rows": rows, "scores": scores,
            **{k: v for k, v in summary(rows, games, search.stats.searched, scores).items()
               if k not in ("games", "searched")}}


def merge(paths: Sequence[str]) -> dict[str, Any]:
    """Parts (different ``--seed``\\ s, the same settings) as one run."""
    parts = [json.loads(Path(p).read_text()) for p in paths]
    for key in ("budget", "fresh_rollouts", "options", "oracle", "swaps"):
        if len({json.dumps(part.get(key, False if key == "oracle" else 0)) for part in parts}) != 1:
            raise SystemExit(f"the parts differ in {key}: merge only parts of one run")
    rows = [row for part in parts for row in part["rows"]]
    scores = [x for part in parts for x in part.get("scores", [])]
    games, searched = sum(p["games"] for p in parts), sum(p["searched"] for p in parts)
    return {"games": games, "seeds": [p["seed"] for p in parts], "budget": parts[0]["budget"],
            "fresh_rollouts": parts[0]["fresh_rollouts"], "options": parts[0]["options"],
            "oracle": parts[0].get("oracle", False), "swaps": parts[0].get("swaps", 0),
            "oracle_placed": (float(np.mean([p["oracle_placed"] for p in parts]))
                              if all(p.get("oracle_placed") is not None for p in parts) else None),
            "seconds": sum(p["seconds"] for p in parts),
            "searched": searched, "rows": rows, "scores": scores, "parts": [portable(p) for p in paths],
            **{k: v for k, v in summary(rows, games, searched, scores).items() if k not in ("games", "searched")}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params", help="Charlesworth's parameter file (modelParameters136500)")
    parser.add_argument("--games", type=int, default=160, help="games, the search in seat game %% 4 (default 160)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=int, default=640, help="the search's rollouts a decision (default 640)")
    parser.add_argument("--fresh", type=int, default=2560,
                        help="rollouts for each of the four re-valuations of a departure, half on each move (default 2560)")
    parser.add_argument("--options", default="{}", help="the search's keywords as JSON")
    parser.add_argument("--oracle", action="store_true",
                        help="tell the search the real hidden cards (a diagnostic: what perfect beliefs are worth)")
    parser.add_argument("--swaps", type=int, default=0,
                        help="with --oracle: deal the rollouts copies of the real cards after this many swaps of two "
                             "hidden cards between seats (default 0: the real cards)")
    parser.add_argument("--merge", nargs="+", metavar="JSON", help="merge parts written by this script (--json)")
    parser.add_argument("--json", default=None, help="write the figures to this file")
    args = parser.parse_args(argv)
    if args.merge:
        figures = merge(args.merge)
    else:
        if not args.params:
            parser.error("--params is needed: his network plays the other seats")
        if args.games <= 0 or args.budget <= 0 or args.fresh < 4:
            parser.error("--games and --budget must be positive and --fresh at least 4")
        if args.swaps < 0 or (args.swaps and not args.oracle):
            parser.error("--swaps must be 0 or more, and is read only with --oracle")
        figures = run(args.params, args.games, args.seed, args.budget, args.fresh, json.loads(args.options),
                      args.oracle, args.swaps)
    print(f"{figures['departures']} departures in {figures['games']} games "
          f"({figures['departures_per_game']:.3f} a game): gain a departure measured {figures['measured']:+.2f}, "
          f"fresh {figures['fresh']:+.2f} [{figures['fresh_ci'][0]:+.2f}, {figures['fresh_ci'][1]:+.2f}], "
          f"at the table {figures['table']:+.2f} [{figures['table_ci'][0]:+.2f}, {figures['table_ci'][1]:+.2f}], "
          f"the network playing on at argmax {figures['table_argmax']:+.2f} "
          f"[{figures['table_argmax_ci'][0]:+.2f}, {figures['table_argmax_ci'][1]:+.2f}], "
          f"on the real hidden cards {figures['true']:+.2f} [{figures['true_ci'][0]:+.2f}, {figures['true_ci'][1]:+.2f}]; "
          f"{figures['gain_per_game']:+.2f} a game over the network alone; the search's score "
          f"{figures['score']:+.2f} [{figures['score_ci'][0]:+.2f}, {figures['score_ci'][1]:+.2f}] a game, "
          f"winning {figures['win_rate']:.1%}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
