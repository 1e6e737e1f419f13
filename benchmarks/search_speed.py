"""Rollouts per second of the search agent's engine path, beside the plain engine's random play.

Positions are sampled out of real games (Smart in every seat, a random decision point
of each game). A rollout, as the search makes it: deal the unseen cards to the other
seats (determinisation), build the game, and play it to the end with Smart in every
seat on the engine (:class:`big2_env.players.valuers.SmartRollout`, memoised). The reference, measured in
the same run: uniformly random legal plays through the bare engine from a fresh deal.
Also: the search's seconds per decision at the default budget, over the sampled
positions that have more than one legal play: the one-ply search (``inner=0``) on both paths,
and the default search (nested rollouts, core only); and ISMCTS's seconds a decision on both paths.

Each is measured twice in the same run: on the compiled core (the default:
:mod:`big2_env.players.kernels.rollouts`) and on the Python engine (Smart's rollouts chosen on the
engine, ``tests/reference/rollouts.py``, the reference), with the ratio; the two make the same
decisions. ``--json PATH`` writes the figures.

Run on one core (``taskset -c 1 python benchmarks/search_speed.py``) for figures that
compare across machines' load.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

from big2_env import Game, Rules
from big2_env.observations.decision import Decision
from big2_env.observations.decision import PolicyObservation
from big2_env.observations.decision import observation_dict
from big2_env.players.ismcts import DEFAULT_ITERATIONS, ISMCTSPolicy
from big2_env.players.public import game_row
from big2_env.players.smart import SmartPolicy
from big2_env.engine.core import rules_array
from big2_env.players.kernels.fast import N_FEATURES
from big2_env.engine.core.games import TABLE_AT
from big2_env.players.kernels.rollouts import deal_hands, play_outs
from big2_env.players.dealers import CoreState
from big2_env.players.search import (
    DEFAULT_BUDGET,
    FastRollout,
    SearchPolicy,
    SmartRollout,
    play_out,
    public_state,
    state_game,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: the tests' Python deals and rollouts
from tests.reference.dealers import deal_unseen  # noqa: E402
from tests.reference.rollouts import EngineSmartRollout  # noqa: E402


def sample_positions(n: int, rules: Rules, seed: int) -> list[Game]:
    """One random decision point from each of ``n`` Smart-vs-Smart games."""
    rng = np.random.default_rng(seed)
    smart = SmartPolicy(rules)
    positions = []
    for k in range(n):
        game = Game(rules, seed=seed * 100_003 + k)
        snapshots = []
        while not game.is_over:
            snapshots.append(game.copy())
            obs = observation_dict(game)
            action = smart.act(obs)
            index = int(np.flatnonzero(obs["candidate_actions"] == action)[0])
            game._apply(game.legal_entries()[index])
        positions.append(snapshots[int(rng.integers(len(snapshots)))])
    return positions


def rollouts_per_second(positions: list[Game], seconds: float, seed: int) -> tuple[float, float]:
    """(rollouts/s, moves per rollout): determinise, build, play out with Smart everywhere."""
    rng = np.random.default_rng(seed)
    states = [public_state(observation_dict(g)) for g in positions]
    rollout = SmartRollout(positions[0].rules)
    done = moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for state in states:
            game = state_game(state, deal_unseen(state, rng), positions[0].rules)
            play_out([game], rollout)
            done += 1
            moves += game.turn
    return done / (time.perf_counter() - start), moves / done


def core_rollouts_per_second(positions: list[Game], seconds: float, seed: int, deals: int = 32,
                             fast: bool = False) -> float:
    """Rollouts/s in the compiled core, as the search makes them: per position, ``deals``
    determinisations (:func:`deal_hands`), each played out after every legal candidate with Smart
    in every seat (:func:`play_outs`), or with ``fast`` the shipped fast model sampled in the
    opponents' seats (:mod:`big2_env.players.fast`)."""
    rng = np.random.default_rng(seed)
    rules = positions[0].rules
    rules_arr = rules_array(rules)
    prepared = []
    for game in positions:
        state = public_state(observation_dict(game))
        root = state_game(state, deal_unseen(state, rng), rules)
        entries = root.legal_entries()
        rows = np.array([(e[2], len(e[1]), e[0], e[3]) for e in entries], dtype=np.int64)
        prepared.append((CoreState.of(state), game_row(root)[TABLE_AT:], rows, np.arange(len(entries))))
    noise = np.zeros(4)
    seats, weights = np.zeros(4, dtype=np.int64), np.zeros(N_FEATURES)
    if fast:
        model = FastRollout(rules=rules, sample=True)
        seats, weights = model.seat_models(), model.model.weights
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for core, table, rows, alive in prepared:
            hands = np.empty((deals, 4), dtype=np.int64)
            deal_hands(rng, deals, core.hand, core.unseen, core.left, core.declined, 0.0, rules_arr, hands)
            values = np.empty((deals, len(alive)))
            play_outs(hands, table, rows, alive, noise, rng, rules_arr, values, seats, weights)
            done += values.size
    return done / (time.perf_counter() - start)


def engine_random_play(seconds: float, rules: Rules, seed: int) -> tuple[float, float]:
    """(decisions/s, games/s) of uniformly random legal plays through the bare engine."""
    rng = np.random.default_rng(seed)
    decisions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = Game(rules, seed=int(rng.integers(2**32)))
        while not game.is_over:
            game.play_index(int(rng.integers(len(game.legal_entries()))))
            decisions += 1
        games += 1
    elapsed = time.perf_counter() - start
    return decisions / elapsed, games / elapsed


def seconds_per_decision(positions: list[Game], budget: int, seed: int, core: bool = True,
                         inner: int | None = 0, rollout: str = "smart") -> tuple[float, int]:
    """Mean seconds a decision (``inner=0``: the one-ply search, which both paths run; ``None``: the default)."""
    if not core:
        assert rollout == "smart", "the Python engine's path is measured with Smart's rollouts"
    played = rollout if core else EngineSmartRollout(positions[0].rules)
    policy = SearchPolicy(positions[0].rules, budget=budget, seed=seed, inner=inner, rollout=played)
    times = []
    for game in positions:
        if len(game.legal_entries()) < 2:
            continue
        obs = PolicyObservation(Decision(game), extended=True)  # what evaluate gives it: passes and history included
        start = time.perf_counter()
        policy.act(obs)
        times.append(time.perf_counter() - start)
    return float(np.mean(times)), len(times)


def ismcts_seconds_per_decision(positions: list[Game], budget: int, seed: int, core: bool) -> tuple[float, int]:
    """Mean seconds a decision of :class:`~big2_env.players.ismcts.ISMCTSPolicy` at ``budget`` iterations, its deals
    and Smart rollouts in the compiled core or on the Python engine (the same decisions)."""
    rollout = SmartRollout(positions[0].rules) if core else EngineSmartRollout(positions[0].rules)
    policy = ISMCTSPolicy(positions[0].rules, budget=budget, seed=seed, rollout=rollout)
    times = []
    for game in positions:
        if len(game.legal_entries()) < 2:
            continue
        obs = PolicyObservation(Decision(game), extended=True)
        start = time.perf_counter()
        policy.act(obs)
        times.append(time.perf_counter() - start)
    return float(np.mean(times)), len(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=200, help="positions sampled from Smart-vs-Smart games")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per speed measurement")
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="search budget for the seconds-per-decision figure")
    parser.add_argument("--ismcts-positions", type=int, default=60,
                        help="the first positions, for ISMCTS's seconds a decision on both paths")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    rules = Rules()
    positions = sample_positions(args.positions, rules, args.seed)
    seconds_per_decision(positions[:5], args.budget, args.seed)  # compile (or load) the core's kernels first
    core_rollouts_per_second(positions[:2], 0.0, args.seed)
    engine_dps, engine_gps = engine_random_play(args.seconds, rules, args.seed)
    rps, moves = rollouts_per_second(positions, args.seconds, args.seed)
    core_rps = core_rollouts_per_second(positions, args.seconds, args.seed)
    per_decision, n = seconds_per_decision(positions, args.budget, args.seed, core=False)
    core_per_decision, _ = seconds_per_decision(positions, args.budget, args.seed, core=True)
    nested_per_decision, _ = seconds_per_decision(positions, args.budget, args.seed, core=True, inner=None)
    fast_rps = core_rollouts_per_second(positions, args.seconds, args.seed, fast=True)
    fast_per_decision, _ = seconds_per_decision(positions, args.budget, args.seed, core=True, inner=None,
                                                rollout="fast-sample")
    ismcts_positions = positions[: args.ismcts_positions]
    ismcts_python, ismcts_n = ismcts_seconds_per_decision(ismcts_positions, DEFAULT_ITERATIONS, args.seed, core=False)
    ismcts_core, _ = ismcts_seconds_per_decision(ismcts_positions, DEFAULT_ITERATIONS, args.seed, core=True)
    print(f"positions: {len(positions)} (one per Smart-vs-Smart game)")
    print(f"(a) engine, random legal plays:   {engine_dps:10,.0f} decisions/s  {engine_gps:8,.0f} games/s")
    print(f"(b) search rollouts, Smart seats: {rps:10,.0f} rollouts/s  ({moves:.1f} moves each: "
          f"{rps * moves:,.0f} decisions/s, {rps * moves / engine_dps:.2f}x the engine's random play)")
    print(f"(c) the same in the compiled core: {core_rps:9,.0f} rollouts/s  ({core_rps / rps:.1f}x (b))")
    print(f"(d) search at budget {args.budget}, Python engine: {per_decision * 1000:7.1f} ms per decision "
          f"(mean over {n} positions with more than one legal play)")
    print(f"(e) search at budget {args.budget}, compiled core: {core_per_decision * 1000:7.2f} ms per decision "
          f"({per_decision / core_per_decision:.1f}x faster than (d); the same decisions)")
    print(f"(f) the default search (nested rollouts, inner={SearchPolicy().inner}), budget {args.budget}: "
          f"{nested_per_decision * 1000:7.2f} ms per decision")
    print(f"(g) (c) with the fast model sampled in the opponents' seats: {fast_rps:9,.0f} rollouts/s "
          f"({fast_rps / core_rps:.2f}x (c))")
    print(f"(h) (f) with the fast model's rollouts (rollout='fast-sample'): {fast_per_decision * 1000:7.2f} ms per decision "
          f"({fast_per_decision / nested_per_decision:.2f}x (f))")
    print(f"(i) ISMCTS at {DEFAULT_ITERATIONS} iterations, Python engine: {ismcts_python * 1000:7.1f} ms per decision "
          f"(over the first {ismcts_n} positions with a choice)")
    print(f"(j) ISMCTS, deals and rollouts in the compiled core: {ismcts_core * 1000:7.1f} ms per decision "
          f"({ismcts_python / ismcts_core:.1f}x faster than (i); the same decisions)")
    if args.json:
        figures = {
            "machine": platform.processor() or platform.machine(), "positions": len(positions), "budget": args.budget,
            "engine_random_decisions_per_s": engine_dps, "python_smart_rollouts_per_s": rps,
            "core_smart_rollouts_per_s": core_rps, "rollout_speedup": core_rps / rps,
            "python_search_ms_per_decision": per_decision * 1000, "core_search_ms_per_decision": core_per_decision * 1000,
            "search_speedup": per_decision / core_per_decision,
            "default_nested_search_ms_per_decision": nested_per_decision * 1000, "inner": SearchPolicy().inner,
            "core_fast_rollouts_per_s": fast_rps, "fast_rollouts_search_ms_per_decision": fast_per_decision * 1000,
            "ismcts_iterations": DEFAULT_ITERATIONS, "ismcts_positions": ismcts_n,
            "python_ismcts_ms_per_decision": ismcts_python * 1000, "core_ismcts_ms_per_decision": ismcts_core * 1000,
            "ismcts_speedup": ismcts_python / ismcts_core,
            "command": "taskset -c 1 python benchmarks/search_speed.py --json benchmarks/core/search_speed.json",
        }
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
