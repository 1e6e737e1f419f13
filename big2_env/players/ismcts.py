"""Information-set Monte Carlo tree search (single-observer ISMCTS) from the observation alone.

:class:`ISMCTSPolicy` (``make_policy("ismcts")``, CLI name ``ismcts`` or ``ismcts:N`` /
``ismcts:0.25s``) is the tree search of Cowling, Powley and Whitehouse (2012), in the design
of OpenSpiel's ``ISMCTSBot``: one tree over the *public* move sequence from the decision on,
shared by every determinisation. Each iteration

1. deals the cards the searcher cannot see (:class:`~big2_env.players.dealers.PassConsistentDealer`,
   the dealer of :class:`~big2_env.players.search.SearchPolicy`, believing the opponents' passes
   with ``pass_inference``);
2. walks down the tree on that deal: at a node, the moves legal *in this deal* that have no
   child yet are expanded first (one at random, then the walk stops); when all have children,
   the one with the best UCB score for the player on move is taken, where a child's
   exploration term counts the times it was *available* rather than its parent's visits
   (the availability correction for moves that exist only in some deals);
3. plays the rest of the game with the rollout policy in every seat (Smart in the compiled core, other
   policies on the Python engine: :func:`~big2_env.players.valuers.finish`);
4. adds each node's own mover's final score (divided by 13) to that node: every seat, the
   searcher and its opponents, chooses in the tree to maximise its own score.

So unlike the determinised search, the opponents' replies are searched too (they are not
fixed to the rollout policy after the first move), and the searcher's later moves are chosen
by the tree rather than by nested rollouts. The move played is the root child with the most
visits among the legal ones (ties: the lower action index).

It decides from the observation dict alone, as the determinised search does: the public
state comes from :func:`~big2_env.players.search.public_state`, and hidden cards never
enter. Forced moves (a single legal action) are edges of the tree like any other, so two
deals that differ in whether a seat could have played meet at the same node only when the
same seat made the same move.

Example:
    >>> from big2_env import evaluate
    >>> from big2_env.players.ismcts import ISMCTSPolicy
    >>> result = evaluate(ISMCTSPolicy(budget=16), "random", n_games=2, seed=0)
    >>> result.n_games
    2
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from ..checks import is_number
from ..engine.game import Game
from ..engine.rules import Rules
from ..observations.extended import extended_view
from ..observations.paper import entry_action_indices
from .base import Observation, Policy
from .dealers import PassConsistentDealer
from .determinized import parse_budget
from .public import public_state, state_game
from .valuers import RolloutPolicy, as_rollout, finish
from .search import DEFAULT_PASS_INFERENCE, _legal_actions

__all__ = ["DEFAULT_EXPLORATION", "DEFAULT_ITERATIONS", "ISMCTSPolicy"]

DEFAULT_ITERATIONS = 640
"""Iterations (determinisations, each one walk down the tree and one rollout) per decision."""

DEFAULT_EXPLORATION = 0.7
"""The UCB exploration constant, against rewards in final points / 13."""

SCORE_SCALE = 13.0
"""Rewards are final scores divided by this (a hand's worth of cards)."""


class _Node:
    """A node of the tree: the move that led to it, made by ``mover`` (a relative seat), and its
    statistics from that mover's side."""

    __slots__ = ("mover", "visits", "available", "total", "children")

    def __init__(self, mover: int) -> None:
        self.mover = mover
        self.visits = 0
        self.available = 0
        self.total = 0.0
        self.children: dict[int, _Node] = {}  # by the move's card bitmask (0: pass)


class ISMCTSPolicy(Policy):
    """Single-observer information-set MCTS over the public move sequence (module docstring).

    Args:
        rules: the game's rule set.
        budget: iterations per decision (an int, default :data:`DEFAULT_ITERATIONS`; deterministic
            for a seed) or a time per decision such as ``"0.25s"`` or ``0.25`` (see
            :func:`~big2_env.players.determinized.parse_budget`).
        exploration: the UCB constant ``c`` in ``mean + c * sqrt(ln(available) / visits)``, with
            rewards in final points / 13 (default :data:`DEFAULT_EXPLORATION`).
        rollout: the policy in every seat below the tree: ``"smart"`` (default), another policy
            name, a :class:`~big2_env.players.Policy` or a
            :class:`~big2_env.players.valuers.RolloutPolicy`.
        pass_inference: how far the deals believe the opponents' passes, as in
            :class:`~big2_env.players.search.SearchPolicy` (default
            :data:`~big2_env.players.search.DEFAULT_PASS_INFERENCE`).
        seed: seed of the deals and of the expansion order.

    Raises:
        ValueError: a bad budget, exploration constant or pass inference, or an unknown rollout
            policy name.

    Attributes:
        last_stats: what the last decision took: ``iterations``, ``seconds``, ``nodes``, and
            ``visits`` / ``means``, ``{action: value}`` of the root's children (empty when one
            move was legal).
    """

    name = "ismcts"
    observation_kind = "extended"

    def __init__(
        self,
        rules: Rules | str | dict | None = None,
        budget: int | str = DEFAULT_ITERATIONS,
        exploration: float = DEFAULT_EXPLORATION,
        rollout: Any = "smart",
        pass_inference: float = DEFAULT_PASS_INFERENCE,
        seed: int | None = None,
    ) -> None:
        self.rules = Rules.coerce(rules)
        self.iterations, self.seconds = parse_budget(budget, unit="iterations")
        if not is_number(exploration, 0):
            raise ValueError(f"exploration must be a finite number >= 0; got {exploration!r}")
        self.exploration = float(exploration)
        self.pass_inference = PassConsistentDealer.checked_belief(pass_inference)
        self._rollout: RolloutPolicy = as_rollout(rollout, self.rules)
        self.rng = np.random.default_rng(seed)
        self.last_stats: dict[str, Any] = {}

    def seed(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self._rollout.seed(None if seed is None else seed + 1)

    def act(self, obs: Observation) -> int:
        obs = extended_view(obs, self.rules, required=False)  # an env's 277 numbers and history: the 315
        state = public_state(obs)
        legal = _legal_actions(obs)
        if len(legal) == 1:
            self.last_stats = {"iterations": 0, "seconds": 0.0, "nodes": 0, "visits": {}, "means": {}}
            return legal[0]
        started = time.perf_counter()
        dealer = PassConsistentDealer(state, self.rng, self.rules, self.pass_inference)
        first = state_game(state, dealer.deal(1)[0].tolist(), self.rules)
        entries = first.legal_entries()
        actions = entry_action_indices(entries, first._hand_masks[0])
        if sorted(actions) != legal:
            raise ValueError(
                "the observation's legal actions differ from those of its public state under "
                f"{self.rules}: is the ISMCTS policy given the game's rules?"
            )
        action_of = {entry[2]: action for entry, action in zip(entries, actions)}  # the root's moves by bitmask
        root = _Node(mover=-1)
        nodes = 1
        done = 0
        deadline = None if self.seconds is None else started + self.seconds
        while True:
            hands = None if done == 0 else dealer.deal(1)[0].tolist()
            nodes += self._iterate(root, first if hands is None else state_game(state, hands, self.rules))
            done += 1
            if deadline is None:
                if done >= self.iterations:  # type: ignore[operator]
                    break
            elif time.perf_counter() >= deadline:
                break
        visits = {action_of[m]: c.visits for m, c in root.children.items()}
        means = {action_of[m]: c.total / c.visits for m, c in root.children.items() if c.visits}
        self.last_stats = {
            "iterations": done, "seconds": time.perf_counter() - started, "nodes": nodes, "visits": visits, "means": means,
        }
        return min(visits, key=lambda a: (-visits[a], -means.get(a, -math.inf), a))

    def _iterate(self, root: _Node, game: Game) -> int:
        """One walk down the tree on ``game`` (a deal), one rollout, the backup; returns the nodes added."""
        path: list[_Node] = []
        node = root
        added = 0
        while game.winner is None:
            entries = game.legal_entries()
            mover = game.current_player
            fresh = [e for e in entries if e[2] not in node.children]
            if fresh:
                entry = fresh[int(self.rng.integers(len(fresh)))] if len(fresh) > 1 else fresh[0]
                child = node.children[entry[2]] = _Node(mover)
                for e in entries:  # every legal move with a child was available this time, the new one included
                    known = node.children.get(e[2])
                    if known is not None:
                        known.available += 1
                game._apply(entry)
                path.append(child)
                added += 1
                break
            best: _Node | None = None
            best_entry = entries[0]
            best_score = -math.inf
            c = self.exploration
            for e in entries:
                child = node.children[e[2]]
                child.available += 1
                score = child.total / child.visits + c * math.sqrt(math.log(child.available) / child.visits)
                if score > best_score:
                    best, best_entry, best_score = child, e, score
            assert best is not None
            game._apply(best_entry)
            path.append(best)
            node = best
        scores = finish(game, self._rollout)
        for visited in path:
            visited.visits += 1
            visited.total += scores[visited.mover] / SCORE_SCALE
        return added

    def __repr__(self) -> str:
        budget = f"{self.seconds:g}s" if self.seconds is not None else str(self.iterations)
        return f"ISMCTSPolicy(budget={budget!r}, exploration={self.exploration:g}, rollout={self._rollout.name!r})"
