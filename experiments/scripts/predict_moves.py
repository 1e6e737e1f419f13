"""How well each model predicts a strong player's moves: agreement and log-likelihood.

A strong player (``--teacher``: Charlesworth's network, the search, any agent spec) plays all
four seats of ``--games`` games. At each of its decisions with a choice (more than one legal
action), every model in ``--models`` is asked what it would play, and scored on:

* **agrees with the move**: its most likely move (argmax for a network) is the move the
  teacher made;
* **agrees with the teacher's favourite** (only for a teacher with probabilities, such as his
  network, which samples): its most likely move is the teacher's most likely one;
* **log-likelihood**: the mean natural log of the probability it gives the teacher's move.
  A network gives its own probabilities; Random gives ``1 / legal moves``; a deterministic
  heuristic (Greedy, Smart) gives ``1 - eps`` to its move and spreads ``eps`` (``--eps``,
  default 0.1) evenly over all legal moves, so that one miss is not minus infinity.
  With ``--temperatures``, also a network's log-likelihood at each temperature T (``log_likelihood_at``,
  in the order given; its softmax
  over the legal moves with every log-probability divided by T: above 1 flatter), the fit of
  ``search-net``'s ``opponent_temperature``.

The model that predicts a strong player best is the rollout model a search should use
(its other seats play like the opponents it meets). The teacher's moves are only measured,
never trained on.

Usage:
    python experiments/scripts/predict_moves.py --teacher charlesworth:PATH --rules charlesworth --games 200 \\
        --models random,greedy,smart,pretrained,pretrained-charlesworth --json OUT.json
    python experiments/scripts/predict_moves.py --teacher search:0.05s --rules paper --games 40 \\
        --models random,greedy,smart,pretrained
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any


import numpy as np

from big2_env import Game, Rules
from big2_env.records import portable
from big2_env.evaluation.loading import load_agent
from big2_env.observations.decision import Decision, PolicyObservation
from big2_env.players.base import policy_actions, policy_view


def distribution(policy: Any, obs: PolicyObservation) -> dict[int, float] | None:
    """The policy's probability of each legal action, or ``None`` when it has none to give."""
    probabilities = getattr(policy, "probabilities", None)
    if not callable(probabilities):
        return None
    return {int(a): float(p) for a, p in probabilities(policy_view(policy, [obs])[0]).items()}


class Score:
    """One model's running totals."""

    def __init__(self, temperatures: tuple[float, ...] = ()) -> None:
        self.decisions = self.agree = self.agree_top = self.top_decisions = 0
        self.loglik = 0.0
        self.temperatures = temperatures
        self.tempered = np.zeros(len(temperatures))

    def add(self, pick: int, p_move: float, move: int, top: int | None, probs: dict[int, float] | None = None) -> None:
        self.decisions += 1
        self.agree += pick == move
        self.loglik += math.log(max(p_move, 1e-12))
        if top is not None:
            self.top_decisions += 1
            self.agree_top += pick == top
        if probs is not None and self.temperatures:
            logp = np.log(np.maximum(np.array(list(probs.values())), 1e-12))
            slot = list(probs).index(move) if move in probs else None
            for i, t in enumerate(self.temperatures):
                z = logp / t
                z = z - z.max()
                z = z - math.log(float(np.exp(z).sum()))
                self.tempered[i] += z[slot] if slot is not None else math.log(1e-12)

    def summary(self) -> dict[str, Any]:
        n = max(1, self.decisions)
        return {
            "decisions": self.decisions,
            "agrees_with_move": self.agree / n,
            "agrees_with_favourite": self.agree_top / self.top_decisions if self.top_decisions else None,
            "log_likelihood": self.loglik / n,
            **({"log_likelihood_at": [float(v) / n for v in self.tempered]}  # in --temperatures' order
               if self.temperatures and self.tempered.any() else {}),
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teacher", required=True, help="the strong player (any agent spec, e.g. charlesworth:PATH)")
    parser.add_argument("--rules", default="paper", help="rules preset (charlesworth for his network)")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--models", default="random,greedy,smart,pretrained", help="comma-separated agent specs")
    parser.add_argument("--eps", type=float, default=0.1, help="a deterministic model's probability spread over all moves")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--temperatures", default="",
                        help="comma-separated softmax temperatures at which to score each network's probabilities too")
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    options = parser.parse_args(argv)
    if options.games <= 0 or not 0.0 < options.eps < 1.0:
        parser.error("--games must be positive and --eps in (0, 1)")
    try:
        temperatures = tuple(float(t) for t in options.temperatures.split(",") if t.strip())
    except ValueError:
        temperatures = (-1.0,)
    if any(not 0.05 <= t <= 100 for t in temperatures):
        parser.error(f"--temperatures must list numbers in [0.05, 100]; got {options.temperatures!r}")
    rules = Rules.preset(options.rules)
    teacher = load_agent(options.teacher, rules, what="--teacher", seed=options.seed)
    names = [m.strip() for m in options.models.split(",") if m.strip()]
    models = {name: load_agent(name, rules, what="--models", seed=options.seed + 1) for name in names}
    scores = {name: Score(temperatures) for name in names}
    teacher_score = Score()  # the teacher's own favourite against its move (a sampling teacher's noise)
    start = time.perf_counter()
    deals = np.random.default_rng(options.seed).integers(0, 2**63 - 1, size=options.games)
    for index, deal in enumerate(deals.tolist()):
        game = Game(rules, seed=int(deal))
        while not game.is_over:
            decision = Decision(game)
            obs = PolicyObservation(decision)
            move = policy_actions(teacher, [obs])[0]
            legal = np.flatnonzero(np.asarray(obs["action_mask"]))
            if len(legal) > 1:
                own = distribution(teacher, obs)
                top = max(own, key=own.__getitem__) if own else None
                if own is not None:
                    teacher_score.add(int(top), own.get(move, 0.0), move, top)
                for name, model in models.items():
                    probs = distribution(model, obs)
                    if probs is not None:
                        pick = max(probs, key=probs.__getitem__)
                        p_move = probs.get(move, 0.0)
                    else:
                        pick = policy_actions(model, [obs])[0]
                        if name == "random":
                            p_move = 1.0 / len(legal)
                        else:
                            p_move = (1 - options.eps) * (pick == move) + options.eps / len(legal)
                    scores[name].add(int(pick), p_move, move, top, probs)
            game._apply(decision.require_entry(move, f"teacher {teacher!r}"))
        print(f"\r{index + 1}/{options.games} games", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    figures: dict[str, Any] = {
        "teacher": portable(options.teacher), "rules": options.rules, "games": options.games, "seed": options.seed,
        "eps": options.eps, **({"temperatures": list(temperatures)} if temperatures else {}),
        "seconds": time.perf_counter() - start,
        "models": {portable(name): score.summary() for name, score in scores.items()},  # files by name, not path
    }
    if teacher_score.decisions:
        figures["teacher_favourite"] = teacher_score.summary()
    decisions = scores[names[0]].decisions if names else 0
    print(f"{options.teacher} in all four seats, {options.rules} rules: {options.games} games, "
          f"{decisions} decisions with a choice")
    print(f"{'model':<26} {'agrees with move':>17} {'with favourite':>15} {'log-likelihood':>15}")
    rows = list(figures["models"].items()) + ([("(the teacher's favourite)", figures["teacher_favourite"])]
                                              if "teacher_favourite" in figures else [])
    for name, row in rows:
        favourite = "-" if row["agrees_with_favourite"] is None else f"{row['agrees_with_favourite']:.1%}"
        tempered = "".join(f"  T={t:g}: {v:.3f}" for t, v in zip(temperatures, row.get("log_likelihood_at", [])))
        print(f"{name:<26} {row['agrees_with_move']:>17.1%} {favourite:>15} {row['log_likelihood']:>15.3f}{tempered}")
    if options.json:
        Path(options.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
