"""Search options compared on the same deals: one search seat against three copies of an opponent.

Every run with the same ``--games`` and ``--seed`` plays the same deals with the search in
the same seats and the same per-game seeds, so two option sets differ only by what the
options change (paired comparisons: much less noise than two independent evaluations).
``--oracle`` gives the search the true hidden hands as its only deal: an upper bound on
what better card inference can be worth.

    python benchmarks/search_options.py --opponent smart --games 150 --options '{"infer_opponents": 0}'
    python benchmarks/search_options.py --opponent smart --games 150 --options '{"history_inference": 0.5}'
    python benchmarks/search_options.py --opponent smart --games 150 --oracle

The README's figures for ``infer_opponents`` and ``history_inference`` come from it (150
games per run, seed 123, the default budget).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from big2_env import Game
from big2_env.encoding import Decision
from big2_env.evaluation import PolicyObservation
from big2_env.policies import make_policy
from big2_env.search import PublicState, SearchPolicy


class OracleSearch(SearchPolicy):
    """The search, told the true hidden hands: every deal is the real one (a benchmark device only)."""

    true_hands: list[int] = []

    def _deal(self, state: PublicState) -> list[int]:
        return list(self.true_hands)


def run(options: dict, opponent: str, games: int, seed: int, oracle: bool) -> dict:
    rng = np.random.default_rng(seed)
    deals = [(int(rng.integers(2**31)), int(rng.integers(4))) for _ in range(games)]
    search = (OracleSearch if oracle else SearchPolicy)(seed=0, **options)
    other = make_policy(opponent, seed=1)
    scores, wins, decision_s, decisions = [], 0, 0.0, 0
    started = time.perf_counter()
    for g, (deal_seed, seat) in enumerate(deals):
        search.seed(g)
        if hasattr(other, "seed"):
            other.seed(g)
        game = Game(None, seed=deal_seed)
        while game.winner is None:
            decision = Decision(game)
            if decision.player == seat:
                if oracle:
                    search.true_hands = [game._hand_masks[(seat + k) % 4] for k in range(4)]
                t = time.perf_counter()
                action = search.act(PolicyObservation(decision, extended=True))
                decision_s += time.perf_counter() - t
                decisions += 1
            else:
                action = other.act(PolicyObservation(decision))
            game._apply(decision.require_entry(action, "policy"))
        wins += game.winner == seat
        scores.append(game.scores()[seat])
    return {
        "options": options, "oracle": oracle, "opponent": opponent, "games": games, "seed": seed,
        "win_rate": wins / games, "mean_score": float(np.mean(scores)), "score_sd": float(np.std(scores)),
        "ms_per_decision": 1000 * decision_s / max(1, decisions), "wall_s": time.perf_counter() - started,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponent", default="smart", help="the three opponents: random, greedy, smart, ...")
    parser.add_argument("--games", type=int, default=150)
    parser.add_argument("--seed", type=int, default=123, help="seeds the deals and the search's seats")
    parser.add_argument("--options", default="{}", help="SearchPolicy keyword arguments as JSON")
    parser.add_argument("--oracle", action="store_true", help="tell the search the true hidden hands")
    args = parser.parse_args()
    result = run(json.loads(args.options), args.opponent, args.games, args.seed, args.oracle)
    print(json.dumps(result))
    print(f"{'oracle ' if args.oracle else ''}{args.options} vs 3 x {args.opponent}, {args.games} games: "
          f"win {result['win_rate']:.1%}, mean score {result['mean_score']:+.2f} (sd {result['score_sd']:.2f}), "
          f"{result['ms_per_decision']:.0f} ms per decision")


if __name__ == "__main__":
    main()
