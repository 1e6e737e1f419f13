"""Fit the fast move model (:mod:`big2_env.players.fast`) to a teacher network's move probabilities.

The fast model scores each legal move by ``w . phi(move)`` over a few dozen features computed in
the compiled core (:data:`big2_env.players.kernels.fast.FEATURES`), so that the search can play it
inside its rollouts at a few times Smart's cost. This is AlphaGo's fast rollout policy, fitted
the same way: by imitation of a stronger, slower policy.

1. **Teacher games** (:func:`teacher_decisions`): ``games`` games with the teacher network
   sampling in all four seats, stepped together in batches of ``batch`` games so that each step
   is one forward pass. At every decision with a choice it records the features of each legal
   move and the teacher's probability of each.
2. **The fit** (:func:`fit`): the weights minimising the cross-entropy between the teacher's
   distribution and ``softmax(w . phi)`` over each decision's legal moves, plus ``l2 x |w|^2``
   (a convex problem: L-BFGS from Smart's weights, :meth:`FastModel.smart`).
3. **Measured on held-out games** (:func:`agreement`): how often the model's best move is the
   teacher's most likely one, and the mean log-probability it gives the teacher's sampled move,
   beside Smart's weights on the same decisions.

The teacher must be a network trained by this package (never Charlesworth's network: his moves
may only be measured). The shipped weights were made by these commands, each teacher the default
recipe's network under its rules: ``pretrained`` is the network shipped as
``pretrained-default-recipe``, ``pretrained-charlesworth`` the 1.81M-game model (batch 3,538) of the
run in ``experiments/results/long/README.md``::

    python -m agents.learners.fast_policy --teacher pretrained --rules paper --games 3000 \\
        --out big2_env/players/data/fast_paper.json
    python -m agents.learners.fast_policy --teacher pretrained-charlesworth --rules charlesworth --games 3000 \\
        --out big2_env/players/data/fast_charlesworth.json
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch

from big2_env import Game, Rules
from big2_env.evaluation.loading import load_agent
from big2_env.observations.decision import Decision, PolicyObservation
from big2_env.observations.paper import entry_action_indices
from big2_env.players.fast import FastModel, entry_features

from ..policy import NetworkPolicy, score_numpy


@dataclass
class Decisions:
    """Recorded decisions: per decision, the rows ``features[offsets[i]:offsets[i + 1]]`` of its
    legal moves, the teacher's probability of each (``probs``, same rows) and the move it made
    (``made``, a row index)."""

    features: np.ndarray
    probs: np.ndarray
    offsets: np.ndarray
    made: np.ndarray

    def __len__(self) -> int:
        return len(self.offsets) - 1


def teacher_decisions(teacher: NetworkPolicy, rules: Rules, games: int, seed: int, batch: int = 64) -> Decisions:
    """Play ``games`` games (seeds ``seed, seed + 1, ...``) with ``teacher`` sampling in every seat,
    ``batch`` at a time, one forward pass per step; record every decision with a choice."""
    rng = np.random.default_rng(seed)
    features: list[np.ndarray] = []
    probs: list[np.ndarray] = []
    made: list[int] = []
    offsets = [0]
    for start in range(0, games, batch):
        table = [Game(rules, seed=seed + g) for g in range(start, min(games, start + batch))]
        while True:
            live = [game for game in table if game.winner is None]
            if not live:
                break
            decisions = [Decision(game) for game in live]
            choosing = [(game, d) for game, d in zip(live, decisions) if len(d.actions) > 1]
            for game, d in zip(live, decisions):
                if len(d.actions) == 1:
                    game._apply(d.require_entry(int(d.actions[0]), "the only legal action"))
            if not choosing:
                continue
            extended = teacher.observation_kind != "paper"  # Charlesworth's inputs read the move history
            observations = [PolicyObservation(d, extended=extended) for _, d in choosing]
            counts = np.array([len(d.actions) for _, d in choosing], dtype=np.int64)
            obs = np.stack([teacher._vector(o) for o in observations])
            logp, _ = score_numpy(teacher.model, obs, np.concatenate([d.features for _, d in choosing]), counts)
            for row, (game, d) in enumerate(choosing):
                p = np.exp(logp[row, : len(d.actions)].astype(np.float64))
                p /= p.sum()
                player = game.current_player
                entries = game.legal_entries()
                hand = game._hand_masks[player]
                order = {a: i for i, a in enumerate(d.actions.tolist())}
                by_entry = np.array([p[order[a]] for a in entry_action_indices(entries, hand)])
                left = [game.cards_left((player + r) % 4) for r in range(4)]
                features.append(entry_features(hand, entries, game.trick, left, game.passes, rules))
                probs.append(by_entry)
                pick = int(rng.choice(len(entries), p=by_entry))
                made.append(pick)
                offsets.append(offsets[-1] + len(entries))
                game._apply(entries[pick])
    return Decisions(np.concatenate(features), np.concatenate(probs), np.array(offsets), np.array(made))


def _segments(data: Decisions) -> torch.Tensor:
    return torch.from_numpy(np.repeat(np.arange(len(data)), np.diff(data.offsets)))


def _log_softmax(scores: torch.Tensor, segment: torch.Tensor, n: int) -> torch.Tensor:
    """Log-softmax of ``scores`` within each decision's rows (``segment``: each row's decision)."""
    top = torch.full((n,), -torch.inf, dtype=scores.dtype).scatter_reduce(0, segment, scores, "amax")
    shifted = scores - top[segment]
    total = torch.zeros(n, dtype=scores.dtype).index_add_(0, segment, shifted.exp())
    return shifted - total.log()[segment]


def fit(data: Decisions, l2: float = 1e-3, start: np.ndarray | None = None, steps: int = 200) -> np.ndarray:
    """The weights minimising the mean cross-entropy between the teacher's and the model's move
    distributions over ``data``'s decisions, plus ``l2 x |w|^2`` (L-BFGS from ``start``, default
    Smart's weights)."""
    x = torch.from_numpy(data.features)
    target = torch.from_numpy(data.probs)
    segment, n = _segments(data), len(data)
    w = torch.tensor(FastModel.smart().weights if start is None else start, dtype=torch.float64, requires_grad=True)
    optimiser = torch.optim.LBFGS([w], lr=1.0, max_iter=steps, line_search_fn="strong_wolfe")

    def closure() -> torch.Tensor:
        optimiser.zero_grad()
        loss = -(target * _log_softmax(x @ w, segment, n)).sum() / n + l2 * w.square().sum()
        loss.backward()
        return loss

    optimiser.step(closure)
    return w.detach().numpy().copy()


def agreement(weights: np.ndarray, data: Decisions) -> dict[str, float]:
    """How well ``weights`` predict the teacher on ``data``: ``agrees`` (its best move is the
    teacher's most likely one), ``agrees_made`` (its best move is the move the teacher made) and
    ``log_lik`` (the mean log-probability it gives the made move)."""
    scores = torch.from_numpy(data.features @ weights)
    segment, n = _segments(data), len(data)
    logp = _log_softmax(scores, segment, n).numpy()
    agrees = agrees_made = 0
    log_lik = 0.0
    for i in range(n):
        lo, hi = data.offsets[i], data.offsets[i + 1]
        best = int(np.argmax(logp[lo:hi]))
        agrees += best == int(np.argmax(data.probs[lo:hi]))
        agrees_made += best == int(data.made[i])
        log_lik += float(logp[lo + data.made[i]])
    return {"agrees": agrees / n, "agrees_made": agrees_made / n, "log_lik": log_lik / n}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teacher", default="pretrained", help="a network agent spec trained by this package")
    parser.add_argument("--rules", default="paper", help="rules preset")
    parser.add_argument("--games", type=int, default=3000, help="teacher games to fit on")
    parser.add_argument("--test-games", type=int, default=300, help="held-out teacher games to measure on")
    parser.add_argument("--l2", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--out", required=True, help="the model file to write (JSON)")
    args = parser.parse_args(argv)
    if "charlesworth:" in args.teacher:
        parser.error("never fit on Charlesworth's network: his moves may only be measured")
    torch.set_num_threads(args.threads)
    rules = Rules.coerce(args.rules)
    teacher = load_agent(args.teacher, rules, what="--teacher")
    if not isinstance(teacher, NetworkPolicy):
        parser.error(f"--teacher must be a network (pretrained, a .pt file or a run folder); got {args.teacher!r}")
    started = time.perf_counter()
    train = teacher_decisions(teacher, rules, args.games, args.seed)
    test = teacher_decisions(teacher, rules, args.test_games, 10**6 + args.seed)
    played = time.perf_counter() - started
    weights = fit(train, args.l2)
    smart, fitted = agreement(FastModel.smart().weights, test), agreement(weights, test)
    print(f"{len(train):,} decisions from {args.games} games ({played:.0f} s); held out: {len(test):,} decisions")
    for name, figures in (("Smart's weights", smart), ("fitted", fitted)):
        print(f"  {name:16s} agrees with the teacher's favourite {figures['agrees']:.1%}, with its move "
              f"{figures['agrees_made']:.1%}, log-likelihood {figures['log_lik']:+.3f}")
    info = {"teacher": args.teacher, "games": args.games, "decisions": len(train), "l2": args.l2, "seed": args.seed,
            "held_out": {"games": args.test_games, "decisions": len(test), "fitted": fitted, "smart": smart}}
    FastModel(weights, rules=args.rules, info=info).save(args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
