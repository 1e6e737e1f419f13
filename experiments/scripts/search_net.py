"""The search over our network (``search-net``) measured beside the network alone, on the same deals.

Every deal is played four times, the agent once in each seat, against three copies of an opponent:
his published network under his rules (``--opponent charlesworth``, the duel of
``benchmarks/charlesworth_duel.py``), or Smart, Greedy or Random under the paper's rules. For the
search it also records how often its move left the network's argmax and the mean paired gain of
those departures (what its own rollouts measured), its time a decision, and its stranded losses
(games lost with 10 or more cards left). One process: the search's counters are its own.

Usage:
    python experiments/scripts/search_net.py --agent search-net@0.25s --opponent charlesworth --params PATH \\
        --deals 250 --seed 0 --json experiments/results/search_net/duel_0.25s.json
    python experiments/scripts/search_net.py --agent search-net@0.25s --opponent smart --deals 250 --json ...

A long measurement splits into parts run side by side, one a core, whose deals together are the
whole's (``--first-deal``), then merged into one file over the same deals:
    python experiments/scripts/search_net.py --agent search-net@640 --params PATH --deals 500 --first-deal 0 --json a.json
    python experiments/scripts/search_net.py --agent search-net@640 --params PATH --deals 500 --first-deal 500 --json b.json
    python experiments/scripts/search_net.py --merge a.json b.json --json experiments/results/search_net/duel_640_1000.json

With ``--seed-each-deal`` the players are seeded afresh at every deal (the deals are the same): two runs
that differ in one option then play alike up to the first decision the option changes, and their games
differ only in the deals where it did, which sharpens ``--compare`` for an option that acts rarely:
    python experiments/scripts/search_net.py --agent search-net@640 --params PATH --seed-each-deal \\
        --options '{"opponent_switch": 1.0}' ...

Two agents' files over the same deals compare deal by deal (the paired difference of the per-deal
means, with its 95% interval; the deals both files played):
    python experiments/scripts/search_net.py --compare experiments/results/search_net/duel_640_1000.json \\
        experiments/results/search_net/duel_network_1000.json --json experiments/results/search_net/paired_640_network_1000.json
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path
from typing import Any

import numpy as np

from big2_env import evaluate
from big2_env.records import portable
from big2_env.engine.game import NUM_PLAYERS
from big2_env.evaluation.loading import load_agent
from big2_env.evaluation.versus import duplicate_intervals, normal_interval

STRANDED = 10
"""A loss with this many cards or more left is *stranded* (it pays ten points or more)."""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="search-net", help="the agent spec (default: search-net)")
    parser.add_argument("--opponent", default="charlesworth",
                        help="charlesworth (his network, his rules; needs --params), or smart, greedy, random (paper rules)")
    parser.add_argument("--params", help="Charlesworth's parameter file (modelParameters136500)")
    parser.add_argument("--deals", type=int, default=250, help="deals, each played in all four seats (default 250)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--options", default="{}",
                        help='the search\'s keywords as JSON, e.g. \'{"margin": 3, "sample": true}\' (search-net agents)')
    parser.add_argument("--first-deal", type=int, default=0,
                        help="play deals FIRST .. FIRST+DEALS-1 of the seed's sequence (a part of a longer run; default 0)")
    parser.add_argument("--merge", nargs="+", metavar="JSON", help="merge parts written by this script into one file (--json)")
    parser.add_argument("--compare", nargs=2, metavar="JSON", help="the paired difference, deal by deal, of two files' agents")
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--seed-each-deal", action="store_true",
                        help="seed the players afresh at every deal, so that two runs differing in one option differ "
                             "only in the deals where it changed a decision (the deals are the same either way)")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch's threads, and so the search's numba threads (default 1: the time per decision "
                             "is one core's; two runs side by side on two cores with every core's threads spin-wait)")
    args = parser.parse_args(argv)
    if args.compare:
        figures = compare(*[json.loads(Path(path).read_text()) for path in args.compare])
        print(f"{figures['agent']} minus {figures['other']} on {figures['deals']} shared deals: win rate "
              f"{figures['win_rate_difference']:+.1%} [{figures['win_rate_difference_ci'][0]:+.1%}, "
              f"{figures['win_rate_difference_ci'][1]:+.1%}], mean score {figures['mean_score_difference']:+.2f} "
              f"[{figures['mean_score_difference_ci'][0]:+.2f}, {figures['mean_score_difference_ci'][1]:+.2f}]")
        write(args.json, figures)
        return
    if args.merge:
        figures = merge([json.loads(Path(path).read_text()) for path in args.merge])
        report(figures)
        write(args.json, figures)
        return
    options = json.loads(args.options)
    if args.deals < 1 or args.first_deal < 0 or args.threads < 1:
        parser.error("--deals and --threads must be at least 1 and --first-deal at least 0")
    try:  # the search runs numba's parallel loops on torch's threads (agents.net_search.threads_kept)
        import torch

        torch.set_num_threads(args.threads)
    except ImportError:  # the heuristics need no torch; a network's spec says so when it loads
        pass
    if args.opponent == "charlesworth":
        if not args.params or not Path(args.params).is_file():
            sys.exit("the duel needs --params PATH: modelParameters136500 from github.com/henrycharlesworth/big2_PPOalgorithm")
        rules, opponent = "charlesworth", f"charlesworth:{args.params}"
    elif args.opponent in ("smart", "greedy", "random"):
        rules, opponent = "paper", args.opponent
    else:
        parser.error("--opponent must be charlesworth, smart, greedy or random")
    agent = load_agent(args.agent, rules, what="--agent")
    if options:
        from agents.net_search import NetworkSearch

        if not isinstance(agent, NetworkSearch):
            parser.error("--options applies to search-net agents")
        agent = NetworkSearch(agent.network, agent.rules, budget=agent.budget, name=agent.name, **options)
    if hasattr(agent, "deterministic"):
        agent.deterministic = True  # a network plays its argmax, as the search's blueprint does
    if args.seed_each_deal:
        result = each_deal(agent, load_agent(opponent, rules, what="--opponent"), args.deals, args.seed, rules,
                           args.first_deal)
    else:
        result = evaluate(agent, opponent, n_games=args.deals, seed=args.seed, rules=rules, duplicate=True,
                          progress=True, first_deal=args.first_deal)
    figures = {
        "agent": portable(args.agent), "opponent": args.opponent, "rules": rules, "deals": args.deals,
        "first_deal": args.first_deal, "games": result.n_games, "seed": args.seed, "options": options,
        "seed_each_deal": args.seed_each_deal,
        **summary(np.asarray(result.scores), np.asarray(result.winners == result.seats)),
        "elapsed_s": result.elapsed_s, "machine": platform.machine(), "torch_threads": args.threads,
        "command": f"python experiments/scripts/search_net.py --agent {portable(args.agent)} --opponent {args.opponent}"
                   + (" --params PATH" if args.opponent == "charlesworth" else "") + f" --deals {args.deals} --seed {args.seed}"
                   + (f" --first-deal {args.first_deal}" if args.first_deal else "")
                   + (" --seed-each-deal" if args.seed_each_deal else "")
                   + (f" --options '{json.dumps(options)}'" if options else ""),
    }
    stats = getattr(agent, "stats", None)
    if stats is not None:
        figures["search"] = stats.to_dict()
    figures["scores"] = [int(x) for x in result.scores]
    figures["won"] = [int(x) for x in result.winners == result.seats]
    report(figures)
    write(args.json, figures)


class _Played:
    """The deals of :func:`each_deal` put together, read as :func:`~big2_env.evaluate`'s result is."""

    def __init__(self, results: list[Any]) -> None:
        self.scores = np.concatenate([r.scores for r in results])
        self.winners = np.concatenate([r.winners for r in results])
        self.seats = np.concatenate([r.seats for r in results])
        self.n_games = len(self.scores)
        self.elapsed_s = float(sum(r.elapsed_s for r in results))


def each_deal(agent: Any, opponent: Any, deals: int, seed: int, rules: str, first_deal: int) -> _Played:
    """Deals ``first_deal ..`` of ``seed``'s sequence, each in all four seats, the players seeded with ``seed``
    afresh at every deal (``--seed-each-deal``)."""
    from tqdm import tqdm

    results = []
    for deal in tqdm(range(first_deal, first_deal + deals), desc=f"{agent.name} vs {opponent.name}", unit="deal"):
        results.append(evaluate(agent, opponent, n_games=1, seed=seed, rules=rules, duplicate=True, progress=False,
                                first_deal=deal))
    return _Played(results)


def write(path: str | None, figures: dict[str, Any]) -> None:
    """The figures as a JSON results file at ``path`` (its folder made); nothing when ``path`` is ``None``."""
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(figures, indent=2) + "\n")


def summary(scores: np.ndarray, won: np.ndarray) -> dict[str, Any]:
    """Win rate and mean score with duplicate intervals (the deal is the unit), and stranded losses."""
    win_ci, score_ci = duplicate_intervals(won, scores)
    losses, stranded = scores < 0, scores <= -STRANDED
    return {"win_rate": float(won.mean()), "win_rate_ci": list(win_ci), "mean_score": float(scores.mean()),
            "mean_score_ci": list(score_ci),
            "stranded_losses": int(stranded.sum()), "losses": int(losses.sum()),
            "stranded_share_of_losses": float(stranded.sum() / max(1, losses.sum()))}


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One file from parts of one run: the same agent, opponent, seed and options, deals back to back."""
    parts = sorted(parts, key=lambda part: part.get("first_deal", 0))
    first = parts[0]
    for part in parts:
        if "scores" not in part:
            raise SystemExit("a part without per-game scores (written before --first-deal existed) cannot be merged")
        for key in ("agent", "opponent", "rules", "seed", "options", "seed_each_deal"):
            if part.get(key, False) != first.get(key, False):
                raise SystemExit(f"the parts differ in {key}: {first.get(key)!r} and {part.get(key)!r}")
    start = first.get("first_deal", 0)
    for before, after in zip(parts, parts[1:]):
        if before.get("first_deal", 0) + before["deals"] != after.get("first_deal", 0):
            raise SystemExit("the parts' deals are not back to back (see --first-deal)")
    scores = np.concatenate([np.asarray(part["scores"]) for part in parts])
    won = np.concatenate([np.asarray(part["won"]) for part in parts])
    deals = sum(part["deals"] for part in parts)
    figures: dict[str, Any] = {
        "agent": first["agent"], "opponent": first["opponent"], "rules": first["rules"], "deals": deals,
        "first_deal": start, "games": len(scores), "seed": first["seed"], "options": first["options"],
        "seed_each_deal": first.get("seed_each_deal", False), **summary(scores, won),
        "elapsed_s": sum(part["elapsed_s"] for part in parts), "machine": first["machine"],
        "command": first["command"].replace(f" --deals {first['deals']}", f" --deals {deals}").split(" --first-deal")[0]
                   + (f" --first-deal {start}" if start else ""),
        "parts": [part["command"] for part in parts],
    }
    searches = [part["search"] for part in parts if "search" in part]
    if searches:
        counts = ["decisions", "searched", "rollouts", "departures"] + [  # and the counts only newer parts keep
            key for key in searches[0] if key.startswith("opponent_seats_") and all(key in search for search in searches)]
        total = {key: sum(search[key] for search in searches) for key in counts}
        total["departure_rate"] = total["departures"] / max(1, total["searched"])
        total["mean_gain"] = sum(s["mean_gain"] * s["departures"] for s in searches) / max(1, total["departures"])
        total["seconds_per_decision"] = (sum(s["seconds_per_decision"] * s["decisions"] for s in searches)
                                         / max(1, total["decisions"]))
        figures["search"] = total
    figures["scores"], figures["won"] = [int(x) for x in scores], [int(x) for x in won]
    return figures


def compare(first: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """``first``'s agent minus ``other``'s, deal by deal, over the deals both played (same seed and opponent)."""
    for key in ("opponent", "rules", "seed"):
        if first[key] != other[key]:
            raise SystemExit(f"the files differ in {key}: {first[key]!r} and {other[key]!r}; they did not play the same deals")
    for part in (first, other):
        if "scores" not in part:
            raise SystemExit("a file without per-game scores (written before --first-deal existed) cannot be compared")
    lo = max(first.get("first_deal", 0), other.get("first_deal", 0))
    hi = min(first.get("first_deal", 0) + first["deals"], other.get("first_deal", 0) + other["deals"])
    if hi <= lo:
        raise SystemExit("the files share no deal")

    def games(part: dict[str, Any], key: str) -> np.ndarray:
        start = (lo - part.get("first_deal", 0)) * NUM_PLAYERS
        values = np.asarray(part[key][start:start + (hi - lo) * NUM_PLAYERS], dtype=np.float64)
        return values.reshape(hi - lo, NUM_PLAYERS)

    wins = games(first, "won").mean(axis=1) - games(other, "won").mean(axis=1)
    scores = games(first, "scores").mean(axis=1) - games(other, "scores").mean(axis=1)
    differing = games(first, "scores") != games(other, "scores")
    return {"agent": first["agent"], "other": other["agent"], "opponent": first["opponent"], "seed": first["seed"],
            "first_deal": lo, "deals": hi - lo,
            "win_rate_difference": float(wins.mean()), "win_rate_difference_ci": list(normal_interval(wins)),
            "mean_score_difference": float(scores.mean()), "mean_score_difference_ci": list(normal_interval(scores)),
            "ci_method": "normal intervals over the per-deal differences of the two agents' four-seat means, z=1.96",
            "games_scored_differently": int(differing.sum()), "deals_scored_differently": int(differing.any(axis=1).sum()),
            "files": [first["command"], other["command"]]}


def report(figures: dict[str, Any]) -> None:
    low, high = figures["win_rate_ci"]
    score_low, score_high = figures["mean_score_ci"]
    print(f"{figures['agent']} against three {figures['opponent']}, {figures['deals']} deals x 4 seats: win rate "
          f"{figures['win_rate']:.1%} [{low:.1%}, {high:.1%}], mean score {figures['mean_score']:+.2f} "
          f"[{score_low:+.2f}, {score_high:+.2f}], stranded {figures['stranded_share_of_losses']:.0%} of losses"
          + (f"; search {figures['search']}" if "search" in figures else ""))


if __name__ == "__main__":
    main()
