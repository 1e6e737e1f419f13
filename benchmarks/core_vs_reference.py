"""The compiled core against the pure-Python reference engine over long random runs: every decision compared.

For each rule set, games are dealt and played by the core (:func:`big2_env.players.kernels.random_game_trace`)
and replayed by the reference Python engine (``tests/reference``, the engine the package ran
on before the core) from the same draws; at every
decision the player on move, the number of legal plays and the chosen play must agree, and at the
end the winner and the scores. Writes the counts to ``benchmarks/core/differential.json``.

With ``--smart-seats 0,2`` those seats play the paper's Smart in the core
(:mod:`big2_env.players.kernels.smart`) and the reference replays them with the Python Smart
(``tests/reference/smart.py``'s ``smart_choice``); the other seats play the same random draws
(``benchmarks/core/differential_smart.json``).

Usage:
    python benchmarks/core_vs_reference.py [--decisions 1000000] [--variant-decisions 1000000] [--seed 0]
    python benchmarks/core_vs_reference.py --smart-seats 0,2 --out benchmarks/core/differential_smart.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np

from big2_env import Rules
from big2_env.engine.core import MAX_TURNS
from big2_env.players.kernels import random_game_trace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: the tests' reference engine
from tests.reference import Game  # noqa: E402
from tests.reference.smart import smart_choice  # noqa: E402

OUT = Path(__file__).resolve().parent / "core" / "differential.json"

VARIANTS = {
    "wrap": Rules(straights="wrap"),
    "to_two": Rules(straights="to_two"),
    "suit_first": Rules(flush_order="suit_first"),
    "four_card_plays": Rules(four_card_plays=True),
    "no_five_card_quads": Rules(five_card_quads=False),
    "hk_scoring": Rules(scoring="hk"),
    "3D_leads_free": Rules(opening="3D_leads_free"),
    "3D_single": Rules(opening="3D_single"),
    "wrap_suit_first_four_card": Rules(straights="wrap", flush_order="suit_first", four_card_plays=True),
}
_OTHERS = {"paper": Rules(), "charlesworth": Rules.preset("charlesworth"), **VARIANTS}
VARIANTS.update({"no_lone_triples": Rules(lone_triples=False), "pass_locks": Rules(pass_locks=True)})
# both house rules beside every other option's values (each variant above, and both presets)
VARIANTS.update({f"house_{name}": dataclasses.replace(rules, lone_triples=False, pass_locks=True)
                 for name, rules in _OTHERS.items()})


def compare(rules: Rules, decisions: int, rng: np.random.Generator, smart: tuple[int, ...] = ()) -> dict:
    games = done = 0
    start = time.perf_counter()
    while done < decisions:
        deck, uniforms = rng.permutation(52), rng.random(MAX_TURNS)
        trace, scores, winner = random_game_trace(deck, uniforms, rules, smart_seats=smart)
        game = Game.from_hands([sorted(int(c) for c in deck[13 * i : 13 * i + 13]) for i in range(4)], rules)
        for player, n_legal, chosen in trace.tolist():
            legal = game.legal_entries()
            if game.current_player in smart:
                pick = smart_choice(game.hand(game.current_player), game.trick, [e[1] for e in legal], rules)
            else:
                pick = min(int(uniforms[game.turn] * len(legal)), len(legal) - 1)
            if (game.current_player, len(legal), legal[pick][2]) != (player, n_legal, chosen):
                raise AssertionError(f"game {games} turn {game.turn}: core {(player, n_legal, chosen)}, reference "
                                     f"{(game.current_player, len(legal), legal[pick][2])}")
            game.play_index(pick)
        if not game.is_over or game.winner != winner or game.scores() != scores.tolist():
            raise AssertionError(f"game {games}: the end differs (core winner {winner}, scores {scores.tolist()})")
        games += 1
        done += len(trace)
    return {"rules": rules.to_dict(), "games": games, "decisions": done, "mismatches": 0, "smart_seats": list(smart),
            "seconds": round(time.perf_counter() - start, 1)}


def summary(results: dict[str, dict]) -> dict:
    """What the pages quote from a run: the rule sets compared, the fewest decisions any of them
    played, their mean games, and the mismatches over all of them.

    Example:
        >>> summary({"a": {"games": 10, "decisions": 700, "mismatches": 0},
        ...          "b": {"games": 12, "decisions": 705, "mismatches": 0}})
        {'rule_sets': 2, 'decisions_each': 700, 'games_mean': 11.0, 'mismatches': 0}
    """
    rows = list(results.values())
    return {"rule_sets": len(rows), "decisions_each": min(row["decisions"] for row in rows),
            "games_mean": sum(row["games"] for row in rows) / len(rows),
            "mismatches": sum(row["mismatches"] for row in rows)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=1_000_000, help="decisions per preset (default 1,000,000)")
    parser.add_argument(
        "--variant-decisions", type=int, default=1_000_000, help="decisions per other variant (default 1,000,000)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smart-seats", default="", help="seats that play Smart, e.g. 0,2 (default: none)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"JSON to write (default {OUT})")
    args = parser.parse_args(argv)
    if args.decisions < 1 or args.variant_decisions < 0 or args.seed < 0:
        parser.error("--decisions must be positive, --variant-decisions and --seed non-negative")
    try:
        smart = tuple(sorted({int(x) for x in args.smart_seats.split(",") if x.strip()}))
    except ValueError:
        parser.error("--smart-seats takes seats 0..3 separated by commas")
    if any(not 0 <= s <= 3 for s in smart):
        parser.error("--smart-seats takes seats 0..3")
    rng = np.random.default_rng(args.seed)
    results = {}
    plan = [(name, Rules.preset(name), args.decisions) for name in Rules.PRESETS]
    plan += [(name, rules, args.variant_decisions) for name, rules in VARIANTS.items() if args.variant_decisions]
    for name, rules, decisions in plan:
        results[name] = compare(rules, decisions, rng, smart)
        row = results[name]
        print(f"{name:<28} {row['decisions']:>10,} decisions in {row['games']:>6,} games: identical ({row['seconds']} s)")
        sys.stdout.flush()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"seed": args.seed, "summary": summary(results), "results": results},
                                   indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
