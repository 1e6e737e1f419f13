"""Decision-time search: determinised Monte Carlo from the observation alone.

:class:`SearchPolicy` (``make_policy("search")``, CLI name ``search``) chooses a move
the way a strong card player thinks ahead: it deals the cards it cannot see to the
other seats at random, many times, plays each deal out after each of its legal
candidates with a fast rollout policy in every seat (Smart by default), and plays
the candidate with the best mean final score.

It decides **from the observation dict alone**. :func:`public_state` rebuilds the
public position from the 277-number information state and the rules: its own hand,
the trick and who made it (the trick's player is the one ``passes`` seats before the
passers), every card played and by whom, the cards left per seat, the passes since
the last play, and whether this is the opening (nothing played yet). It never sees
the engine's ``Game`` of the real table, so it cannot see hidden cards: swapping
unplayed cards between opponents never changes its decision for a given seed (a test
proves it).

Determinisation (:func:`deal_unseen`) deals exactly the unseen cards, never a played
card or one of the searcher's own, giving every seat its public count. All
candidates are compared on the *same* deals (common random numbers), so the noise
of the deal cancels out of their differences.

Reading the opponents (``infer_opponents``, on by default): the package's game loops give
the search, in the extended view, the public move history (``obs["history"]``, every move
so far: :func:`~big2_env.observations.extended.history_array`). :mod:`big2_env.players.beliefs` replays it and
scores each opponent's moves under three move models (Smart's or Greedy's own choice, or
uniformly random) from the hands a few deals give it; in rollouts, an opponent then plays
a uniformly random move with the probability that it is Random-like
(:class:`NoisyOpponents`).

Budget allocation (``method``):

* ``"halving"`` (default): successive halving. The budget is split over
  ``ceil(log2(n))`` rounds; each round plays every surviving candidate on the same
  fresh deals and keeps the better half by mean score over all its deals so far, so
  most rollouts go to the candidates still in contention.
* ``"flat"``: plain search, every candidate on the same ``budget // n`` deals.

The rollouts are the whole cost, so they run on the engine directly: a game is
built per deal from hand bitmasks (combination tables cached per hand), copied per
candidate, and played out by an engine-level chooser (:class:`RolloutPolicy`):
:class:`SmartRollout` makes exactly :class:`~big2_env.players.SmartPolicy`'s moves
(both call :func:`~big2_env.players.smart.smart_choice`) without building observations, and
memoises them per position.
Any :class:`~big2_env.players.Policy` can be the rollout policy instead
(:class:`PolicyRollout`; slower, since it builds the observation of every move), and
rollout policies may choose for many games at once (``choose_batch``), which a
network uses to batch its forward pass across all the deals of a decision.

Example:
    >>> from big2_env import evaluate
    >>> from big2_env.players.search import SearchPolicy
    >>> result = evaluate(SearchPolicy(budget=8), "random", n_games=4, seed=0)
    >>> result.n_games
    4
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from .beliefs import DEFAULT_TREMBLE, MODELS, Move, check_models, game_course, model_posteriors
from ..checks import is_int, is_number
from ..engine.cards import NUM_CARDS, mask_to_cards
from ..engine.combos import Entry, enumerate_combos
from ..observations.decision import Decision, PolicyObservation
from ..observations.paper import (
    NUM_ACTIONS,
    entry_action_indices,
)
from ..observations.extended import extended_view, history_moves
from ..engine.game import Game
from .base import Observation, Policy, legal_actions, policy_actions
from .greedy import GreedyPolicy
from .random import RandomPolicy
from .smart import SmartPolicy, smart_choice, smart_ranking
from ..engine.rules import Rules
from .fast import FastModel, as_model, entry_features, features, shipped_model, softmax
from .public import PublicState, game_row, public_state, state_game

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_PASS_INFERENCE",
    "METHODS",
    "NoisyOpponents",
    "PolicyRollout",
    "FastRollout",
    "PublicState",
    "RolloutPolicy",
    "SearchPolicy",
    "SmartRollout",
    "deal_consistent",
    "deal_unseen",
    "public_state",
    "state_game",
]

DEFAULT_BUDGET = 640
"""Rollouts per decision by default (320 until nested rollouts came: with them, 640 lifted the
win rate against three Random from 90.6% to 92.7% over the same 1000 games, at about 25 ms a
decision; ``benchmarks/search_speed.py`` measures the time)."""

DEFAULT_PASS_INFERENCE = 1.0
"""How far the deals believe a pass means "could not beat it" (Smart passes with a beating play
on about 2% of its passes, Greedy never, Random on about 25%). 1.0 measured best against Smart
(see the README); ``deal_consistent`` still falls back to the deal breaking the fewest
constraints when none of its tries meets them all."""

DEFAULT_INFER_OPPONENTS = 8
"""Deals over which the search reads each opponent's model from the move history (``infer_opponents``; 0 turns it off)."""

DEFAULT_PRIOR_TOP = 8
"""Candidates searched by default: Smart's favourite 8 non-pass plays (and pass when legal)."""
DEFAULT_INNER = 4
"""The default width of the nested rollouts (``inner``): measured on 150 paired deals x 4 seats
against three Smart at 320 rollouts, one-ply 46.2% / +3.98, ``inner=4`` 54.5% / +5.53,
``inner=8`` 53.5% / +5.64 (``experiments/search-strength.md`` has the rest)."""

METHODS = ("halving", "flat")


# ----------------------------------------------------------------------------- determinisations
def deal_unseen(state: PublicState, rng: np.random.Generator) -> list[int]:
    """One determinisation: hand bitmasks per relative seat, the unseen cards dealt at random
    to seats 1..3 in their public counts (seat 0 keeps its own hand)."""
    unseen = mask_to_cards(state.unseen_mask)
    order = rng.permutation(len(unseen))
    hands = [state.hand_mask]
    start = 0
    for count in state.cards_left[1:]:
        mask = 0
        for i in order[start : start + count]:
            mask |= 1 << unseen[i]
        hands.append(mask)
        start += count
    return hands


DEAL_TRIES = 20
"""Deals tried per determinisation before settling for the one that breaks the fewest pass constraints."""


def deal_consistent(state: PublicState, rng: np.random.Generator, rules: Rules, belief: float) -> list[int]:
    """A determinisation that respects what the opponents' passes reveal (see :mod:`big2_env.observations.extended`).

    Each pass constraint ("seat ``k`` passed on a play of size ``n`` and strength ``s``, so it
    holds no play of that size stronger than ``s``") is kept with probability ``belief`` (a
    pass is read as "could not beat it"; otherwise as a voluntary pass), independently per
    seat and size. Kept singles constraints are met exactly: the cards above a seat's cap go
    only to seats that may hold them, each card to a free slot chosen uniformly among the
    slots allowed, which samples uniformly among the deals that meet them (the allowed sets
    are nested). The other sizes are met by rejection: up to :data:`DEAL_TRIES` deals, else
    the one that breaks the fewest. With ``belief=0`` or no pass yet, this is :func:`deal_unseen`.
    """
    caps = [NUM_CARDS - 1] * 4
    larger: list[tuple[int, int, int]] = []  # (seat, size, strength) for sizes 2..5
    for seat in (1, 2, 3):
        for index, strength in enumerate(state.declined[seat]):
            if strength >= 0 and belief > 0 and (belief >= 1 or rng.random() < belief):
                if index == 0:
                    caps[seat] = strength
                else:
                    larger.append((seat, index + 1, strength))
    if min(caps) == NUM_CARDS - 1 and not larger:
        return deal_unseen(state, rng)
    best: list[int] = []
    fewest = math.inf
    for _ in range(DEAL_TRIES):
        hands = _deal_capped(state, caps, rng)
        broken = 0
        for seat, size, strength in larger:
            group = enumerate_combos(hands[seat], rules)[size]  # not the shared cache: these hands are one-offs
            if group and group[-1][0] > strength:
                broken += 1
        if broken == 0:
            return hands
        if broken < fewest:
            best, fewest = hands, broken
    return best


def _deal_capped(state: PublicState, caps: Sequence[int], rng: np.random.Generator) -> list[int]:
    """Deal the unseen cards so that each seat ``k`` gets no card above ``caps[k]`` where the
    counts allow it (highest cards first, each to a free allowed slot chosen uniformly)."""
    unseen = mask_to_cards(state.unseen_mask)
    slots = list(state.cards_left)
    hands = [state.hand_mask, 0, 0, 0]
    low = min(caps[1:])
    i = len(unseen)
    draws = rng.random(i)
    while i > 0 and unseen[i - 1] > low:
        i -= 1
        card = unseen[i]
        allowed = [k for k in (1, 2, 3) if slots[k] and caps[k] >= card] or [k for k in (1, 2, 3) if slots[k]]
        x = draws[i] * sum(slots[k] for k in allowed)
        for seat in allowed:
            x -= slots[seat]
            if x < 0:
                break
        hands[seat] |= 1 << card
        slots[seat] -= 1
    order = rng.permutation(i)
    start = 0
    for seat in (1, 2, 3):
        for j in order[start : start + slots[seat]]:
            hands[seat] |= 1 << unseen[j]
        start += slots[seat]
    return hands


@dataclass(frozen=True)
class _CoreState:
    """The arrays the core's determinisations read (:func:`~big2_env.engine.core.rollouts.deal_hands`)."""

    hand: int
    unseen: np.ndarray
    left: np.ndarray
    declined: np.ndarray

    @classmethod
    def of(cls, state: PublicState) -> "_CoreState":
        return cls(
            state.hand_mask,
            np.array(mask_to_cards(state.unseen_mask), dtype=np.int64),
            np.array(state.cards_left, dtype=np.int64),
            np.array(state.declined, dtype=np.int64).reshape(4, 5),
        )


# ----------------------------------------------------------------------------- rollout policies
class RolloutPolicy:
    """Chooses moves inside rollouts, on the engine directly: the index of the chosen entry of
    ``game.legal_entries()``. Override :meth:`choose`, or :meth:`choose_batch` to decide for
    many games at once (a network batches its forward pass there)."""

    name = "rollout"

    def choose(self, game: Game) -> int:
        raise NotImplementedError

    def choose_batch(self, games: Sequence[Game]) -> list[int]:
        return [self.choose(g) for g in games]

    def seed(self, seed: int | None) -> None:
        """Seed any randomness (deterministic rollout policies ignore it)."""


class SmartRollout(RolloutPolicy):
    """:class:`~big2_env.players.SmartPolicy`'s moves, from the engine's entries (no observation built).

    Smart is deterministic, so its choice is memoised per position (the hand, the trick and
    whether it is the opening fix the legal plays and the choice): rollouts of one deal after
    different candidates, and of later deals, meet the same positions again and again.
    The memo holds at most :attr:`MEMO_LIMIT` positions (cleared when full) and is not pickled.
    """

    name = "smart"
    MEMO_LIMIT = 400_000

    def __init__(self, rules: Rules | str | dict | None = None) -> None:
        self.rules = Rules.coerce(rules)
        self._memo: dict[tuple, int] = {}

    def choose(self, game: Game) -> int:
        entries = game.legal_entries()
        if len(entries) == 1:
            return 0
        if game.rules is not self.rules and game.rules != self.rules:
            raise ValueError(f"this Smart rollout plays under {self.rules}, the game under {game.rules}")
        player = game.current_player
        key = (game._hand_masks[player], game.trick, game._opening)
        index = self._memo.get(key)
        if index is None:
            if len(self._memo) >= self.MEMO_LIMIT:
                self._memo.clear()
            index = self._memo[key] = smart_choice(game._hand_cards[player], game.trick, [e[1] for e in entries], game.rules)
        return index

    def __getstate__(self) -> dict[str, Any]:
        return {"rules": self.rules, "_memo": {}}


class PolicyRollout(RolloutPolicy):
    """Any :class:`~big2_env.players.Policy` as the rollout policy (it sees the observation
    dict of each move, built from the rollout's game; ``act_batch`` is used when present)."""

    def __init__(self, policy: Policy) -> None:
        if not callable(getattr(policy, "act", None)):
            raise TypeError(f"a rollout policy needs an act(obs) method; got {policy!r}")
        self.policy = policy
        self.name = getattr(policy, "name", type(policy).__name__)

    def choose_batch(self, games: Sequence[Game]) -> list[int]:
        decisions = [Decision(g) for g in games]
        actions = policy_actions(self.policy, [PolicyObservation(d) for d in decisions])
        out = []
        for game, decision, action in zip(games, decisions, actions):
            entry = decision.require_entry(action, f"rollout policy {self.policy!r}")
            out.append(game.legal_entries().index(entry))
        return out

    def choose(self, game: Game) -> int:
        return self.choose_batch([game])[0]

    def seed(self, seed: int | None) -> None:
        if hasattr(self.policy, "seed"):
            self.policy.seed(seed)


class FastRollout(RolloutPolicy):
    """The fast model as the search's rollout policy: the opponents (and with ``own=True`` the
    searcher, seat 0, too; else Smart) play its best move, or with ``sample=True`` a sampled one.
    The search runs it in the compiled core (:func:`~big2_env.engine.core.rollouts.play_outs`);
    :meth:`choose` is the same choice on the Python engine."""

    name = "fast"

    def __init__(self, model: FastModel | str | os.PathLike[str] | None = None, rules: Rules | str | dict | None = None,
                 sample: bool = False, own: bool = False, seed: int | None = None) -> None:
        self.rules = Rules.coerce(rules)
        self.model = as_model(model, self.rules)
        self.sample, self.own = bool(sample), bool(own)
        self.rng = np.random.default_rng(seed)
        self._smart = SmartRollout(self.rules)  # the searcher's own moves unless ``own``

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def seat_models(self) -> np.ndarray:
        """Per relative seat, how the core's play-outs move it (:data:`~big2_env.engine.core.fast.SEAT_SMART`, ...)."""
        from .kernels.fast import SEAT_FAST, SEAT_FAST_SAMPLE, SEAT_SMART

        fast = SEAT_FAST_SAMPLE if self.sample else SEAT_FAST
        return np.array([fast if self.own else SEAT_SMART, fast, fast, fast], dtype=np.int64)

    def choose(self, game: Game) -> int:
        entries = game.legal_entries()
        if len(entries) == 1:
            return 0
        player = game.current_player
        if player == 0 and not self.own:
            return self._smart.choose(game)
        left = [len(game._hand_cards[(player + r) % 4]) for r in range(4)]
        features = entry_features(game._hand_masks[player], entries, game.trick, left, game.passes, game.rules)
        scores = features @ self.model.weights
        if self.sample:
            return int(self.rng.choice(len(entries), p=softmax(scores)))
        return int(np.argmax(scores))

    def __repr__(self) -> str:
        return f"FastRollout(rules={self.rules!r}, sample={self.sample}, own={self.own})"


class NoisyOpponents(RolloutPolicy):
    """``base`` in every seat, except that a seat other than the searcher's (seat 0) plays a
    uniformly random legal move with probability ``noise``: an opponent model that hedges
    against opponents who are not the rollout policy (e.g. Random players). ``seat_noise``
    (per relative seat, seat 0's unused) may be set per decision: the search sets it from
    what the move history says about each opponent (``infer_opponents``)."""

    def __init__(self, base: RolloutPolicy, noise: float, seed: int | None = None) -> None:
        self.base, self.noise = base, noise
        self.seat_noise = [0.0, noise, noise, noise]
        self.name = f"{base.name}+noise{noise:g}"
        self.rng = np.random.default_rng(seed)

    def choose_batch(self, games: Sequence[Game]) -> list[int]:
        picks: list[int | None] = []
        noise = self.seat_noise
        for game in games:
            n = len(game.legal_entries())
            p = noise[game.current_player] if game.current_player else 0.0
            noisy = n > 1 and p > 0 and self.rng.random() < p
            picks.append(int(self.rng.integers(n)) if noisy else None)
        rest = [g for g, p in zip(games, picks) if p is None]
        chosen = iter(self.base.choose_batch(rest) if rest else [])
        return [p if p is not None else next(chosen) for p in picks]

    def choose(self, game: Game) -> int:
        return self.choose_batch([game])[0]

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)
        self.base.seed(None if seed is None else seed + 1)


ROLLOUT_HEURISTICS: dict[str, Callable[..., Policy]] = {"random": RandomPolicy, "greedy": GreedyPolicy, "smart": SmartPolicy}
"""The heuristics a rollout policy may be named by (``"smart"`` runs on the engine, :class:`SmartRollout`)."""


def _as_rollout(rollout: Any, rules: Rules) -> RolloutPolicy:
    if isinstance(rollout, RolloutPolicy):
        return rollout
    if rollout in ("fast", "fast-sample"):  # the fast learned model, played by the compiled core
        return FastRollout(rules=rules, sample=rollout == "fast-sample")
    if rollout == "smart":
        return SmartRollout(rules)
    if isinstance(rollout, str):
        if rollout == "search":
            raise ValueError("the rollout policy cannot itself be 'search'")
        if rollout not in ROLLOUT_HEURISTICS:
            allowed = ", ".join(sorted(ROLLOUT_HEURISTICS))
            raise ValueError(f"unknown policy {rollout!r} for the rollouts; allowed: smart, fast, fast-sample, {allowed} "
                             "or a policy object")
        return PolicyRollout(ROLLOUT_HEURISTICS[rollout](rules=rules))
    return PolicyRollout(rollout)


def play_out(games: list[Game], rollout: RolloutPolicy) -> None:
    """Play every game to its end with ``rollout`` in all seats, all games stepped together
    (one ``choose_batch`` call per step over the games that still need a choice)."""
    active = [g for g in games if g.winner is None]
    while active:
        choosing = []
        for game in active:
            entries = game.legal_entries()
            if len(entries) == 1:
                game._apply(entries[0])  # forced (nearly always a pass): no policy call
            else:
                choosing.append(game)
        if choosing:
            for game, index in zip(choosing, rollout.choose_batch(choosing)):
                game._apply(game._legal[index])  # type: ignore[index]
        active = [g for g in active if g.winner is None]


OBJECTIVES = ("score", "win", "mixed")


def _final_value(game: Game, objective: str) -> float:
    """What a finished rollout is worth to seat 0: its final score, 1 for a win (else 0), or
    ``score / 13 + win``."""
    if objective == "score":
        return float(game.scores()[0])
    won = 1.0 if game.winner == 0 else 0.0
    return won if objective == "win" else game.scores()[0] / 13.0 + won


# ----------------------------------------------------------------------------- the search policy
def _parse_budget(budget: Any, unit: str = "rollouts") -> tuple[int | None, float | None]:
    """``(count, seconds)``: an int is ``unit`` (rollouts, iterations) per decision; a string ``"0.25s"`` is seconds."""
    if isinstance(budget, str) and budget.endswith("s"):
        try:
            seconds = float(budget[:-1])
        except ValueError:
            seconds = math.nan
        if not (math.isfinite(seconds) and seconds > 0):
            raise ValueError(f"budget in seconds must look like '0.25s' (a positive number, then s); got {budget!r}")
        return None, seconds
    if not is_int(budget, 1, 10_000_000):
        raise ValueError(
            f"budget must be {unit} per decision (an int in 1..10000000) or seconds such as '0.25s'; got {budget!r}"
        )
    return int(budget), None


class SearchPolicy(Policy):
    """Determinised Monte Carlo search over the legal candidates (see the module docstring).

    Args:
        rules: the game's rule set (the search replays the game under them).
        budget: rollouts per decision (an int, default :data:`DEFAULT_BUDGET`: deterministic for
            a seed), or a time per decision such as ``"0.25s"`` (rounds of rollouts until the
            time is up; then the moves depend on the machine's speed).
        rollout: the rollout policy in every seat: ``"smart"`` (default, the fast engine-level
            Smart), another policy name (``"greedy"``, ``"random"``, a model spec), a
            :class:`~big2_env.players.Policy` or a :class:`RolloutPolicy`.
        method: ``"halving"`` (successive halving, default) or ``"flat"`` (every candidate on
            the same ``budget // n`` deals).
        seed: seed of the deals (``seed()`` reseeds; :func:`~big2_env.evaluation.evaluate` does).
        prior_top: search only the prior's favourite ``prior_top`` non-pass candidates, and pass
            when legal; ``0`` searches every legal candidate.
        prior: what ranks the candidates for ``prior_top``: ``"smart"`` (Smart's score s(a),
            default) or a policy with ``probabilities(obs) -> {action: p}``, such as the
            network of :mod:`agents` (:class:`agents.policy.NetworkPolicy`).
        objective: what a candidate's rollouts are averaged over: ``"score"`` (the final
            score, default), ``"win"`` (1 for a win) or ``"mixed"`` (``score / 13 + win``).
        opponent_noise: in rollouts, each opponent move is a uniformly random legal move with
            this probability (:class:`NoisyOpponents`; default 0): a hedge against opponents
            unlike the rollout policy.
        pass_inference: how far the deals believe the opponents' passes
            (:func:`deal_consistent`): each pass is read as "could not beat the trick" with
            this probability (default :data:`DEFAULT_PASS_INFERENCE`; 0 deals every unseen card
            uniformly). Needs the extended observation, which the search asks for
            (``observation_kind = "extended"``: :func:`~big2_env.evaluation.evaluate`, the
            Gymnasium env's opponents and ``big2 play`` give it); given the paper's 277 numbers
            it has no passes to read.
        infer_opponents: read from the move history which model each opponent follows
            (Smart, Greedy or Random: :func:`~big2_env.players.beliefs.model_posteriors`, over this
            many deals; default :data:`DEFAULT_INFER_OPPONENTS`, 0: off) and, in rollouts,
            play a uniformly random move for it with the probability that it is Random
            (at least ``opponent_noise``).
        opponent_models: the models ``infer_opponents`` chooses among (default
            :data:`~big2_env.players.beliefs.MODELS`; ``"fast"`` adds the fast learned model,
            beliefs from a model of strong play: the rollouts' own :class:`FastModel` when they
            play one, else the shipped weights for the rules).
        tremble: how often a rule-following model is taken to play off its rule
            (default :data:`~big2_env.players.beliefs.DEFAULT_TREMBLE`).
        core: run the deals and the rollouts in the compiled core
            (:mod:`big2_env.engine.core.rollouts`) when the rollout policy is Smart (default
            ``True``; other rollout policies always run on the Python engine). The core draws
            from the same generators in the same order, so ``core=False`` (the Python
            reference, about 30 times slower) makes the same decisions for a seed.
        inner: nested rollouts. Inside each rollout the searcher's own later moves are
            searched too: Smart's ``inner`` favourite plays and pass are each played out once on
            the rollout's deal, and the best is made
            (:func:`~big2_env.engine.core.rollouts.play_outs`). Default ``None``:
            :data:`DEFAULT_INNER` when the rollouts run in the core (Smart rollouts), else 0;
            ``0`` is the one-ply search (Smart plays the searcher's later moves). Each rollout
            then costs about ``inner + 1`` times more per own move (about 12 ms a decision at
            the default budget). Core only.
        value: a value function for the searcher's next decisions, such as a network of
            :mod:`agents` (:class:`agents.policy.NetworkPolicy`): an object with
            ``state_values(observations) -> values``, given a ``(N, 277)`` float32 array of
            the paper's observation and returning an estimate per row (``value_scale`` x it is
            the expected final score). Each deal is then also played after each candidate
            until the searcher is next on move (:func:`~big2_env.engine.core.rollouts.leaves`:
            Smart in the other seats, which with no opponent noise is the path its rollout
            takes), and there the value judges the position (AlphaGo's leaf evaluation). Core
            and the ``"score"`` objective only. Default ``None``: rollouts alone.
        value_weight: how a candidate's value on a deal mixes the two: ``(1 - w)`` x the
            rollout's final score + ``w`` x the value at the leaf (default 0.5). At 1 no
            rollout is played (the value replaces them, each deal costing a few Smart moves
            and a share of one batched forward pass); at 0 the value is ignored.
        value_scale: what the value is multiplied by to give points of final score (default
            13: the package's networks learn the score / 13, ``--reward-scale``'s default
            for distillation and the shipped ``pretrained-default-recipe``'s setting).

    Raises:
        ValueError: a bad budget, method, objective, ``prior_top``, ``opponent_noise``,
            ``pass_inference``, ``infer_opponents``, ``opponent_models``, ``tremble``,
            ``value_weight``, ``value_scale`` or rollout
            policy name; a value without the core or the score objective, or one that reads
            another observation than the paper's.
        TypeError: a rollout policy without ``act``, a prior without ``probabilities`` or a
            value without ``state_values``.

    Attributes:
        last_stats: what the last decision took: ``rollouts``, ``candidates``, ``rounds``,
            ``seconds``, ``means``, ``{action: mean}`` of every searched candidate (those
            halving dropped early included, on their fewer deals; what distillation's soft
            targets learn from) and ``visits``, ``{action: deals}`` it was played out on;
            only ``rollouts`` 0 and ``candidates`` 1 when one candidate was left (and
            ``means`` and ``visits`` empty).
    """

    name = "search"
    observation_kind = "extended"

    def __init__(
        self,
        rules: Rules | str | dict | None = None,
        budget: int | str = DEFAULT_BUDGET,
        rollout: Any = "smart",
        method: str = "halving",
        seed: int | None = None,
        prior_top: int = DEFAULT_PRIOR_TOP,
        prior: Any = "smart",
        objective: str = "score",
        opponent_noise: float = 0.0,
        pass_inference: float = DEFAULT_PASS_INFERENCE,
        infer_opponents: int = DEFAULT_INFER_OPPONENTS,
        opponent_models: Sequence[str] = MODELS,
        tremble: float = DEFAULT_TREMBLE,
        core: bool = True,
        inner: int | None = None,
        value: Any = None,
        value_weight: float = 0.5,
        value_scale: float = 13.0,
    ) -> None:
        self.rules = Rules.coerce(rules)
        self.rollouts, self.seconds = _parse_budget(budget)
        self.budget = budget
        if method not in METHODS:
            raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
        self.method = method
        if objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}; got {objective!r}")
        self.objective = objective
        if not is_int(prior_top, 0, numpy=False):
            raise ValueError(f"prior_top must be a non-negative int (0: search every candidate); got {prior_top!r}")
        self.prior_top = prior_top
        if prior != "smart" and not callable(getattr(prior, "probabilities", None)):
            raise TypeError(f"prior must be 'smart' or a policy with probabilities(obs), such as a NetworkPolicy; got {prior!r}")
        self.prior = prior
        self.rollout = _as_rollout(rollout, self.rules)
        if not is_number(opponent_noise, 0, 1):
            raise ValueError(f"opponent_noise must be a number in [0, 1]; got {opponent_noise!r}")
        if not is_number(pass_inference, 0, 1):
            raise ValueError(f"pass_inference must be a number in [0, 1]; got {pass_inference!r}")
        self.pass_inference = float(pass_inference)
        check_models(opponent_models, tremble, "opponent_models")
        self.opponent_models, self.tremble = tuple(opponent_models), float(tremble)
        self._belief_model: FastModel | None = None  # the "fast" opponent model's weights, when named
        if "fast" in self.opponent_models:
            self._belief_model = self.rollout.model if isinstance(self.rollout, FastRollout) else shipped_model(self.rules)
        if not is_int(infer_opponents, 0):
            raise ValueError(f"infer_opponents must be a non-negative int (deals read; 0: off); got {infer_opponents!r}")
        self.infer_opponents = int(infer_opponents)
        self.opponent_noise = float(opponent_noise)
        self._noisy: NoisyOpponents | None = None
        if opponent_noise > 0 or (self.infer_opponents and "random" in self.opponent_models):
            self._noisy = NoisyOpponents(self.rollout, float(opponent_noise), seed)
            if opponent_noise > 0:
                self.rollout = self._noisy
        self._playing: RolloutPolicy = self._noisy or self.rollout  # what the rollouts run
        if not isinstance(core, (bool, np.bool_)):
            raise ValueError(f"core must be True or False; got {core!r}")
        base = self._noisy.base if self._noisy is not None else self.rollout
        runs_in_core = type(base) in (SmartRollout, FastRollout)
        self.core = bool(core) and runs_in_core and getattr(base, "rules", None) == self.rules
        if inner is None:  # the default: nested where the core runs the rollouts
            inner = DEFAULT_INNER if self.core else 0
        if not is_int(inner, 0):
            raise ValueError(f"inner must be a non-negative int (0: off); got {inner!r}")
        if inner and not self.core:
            raise ValueError("inner (nested rollouts) runs in the compiled core: it needs core=True and Smart rollouts")
        self.inner = int(inner)
        self.set_value(value, value_weight, value_scale)
        self._rules_array: np.ndarray | None = None  # the core's view of the rules, made on first use
        self._core_state: _CoreState | None = None
        self._course: list[Move] | None = None  # this decision's replayed move history, when read
        self.rng = np.random.default_rng(seed)
        self.last_stats: dict[str, Any] = {}
        self._last_means: list[float] = []
        self._last_visits: list[int] = []

    def seed(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self._playing.seed(None if seed is None else seed + 1)

    def set_value(self, value: Any, weight: Any = 0.5, scale: Any = 13.0) -> None:
        """Set the leaf value, its weight and its scale (the constructor's ``value``, ``value_weight``
        and ``value_scale``), checked as the constructor checks them."""
        self._check_value(value, weight, scale)
        self.value, self.value_weight, self.value_scale = value, float(weight), float(scale)

    def _check_value(self, value: Any, weight: Any, scale: Any) -> None:
        if not is_number(weight, 0, 1):
            raise ValueError(f"value_weight must be a number in [0, 1]; got {weight!r}")
        if not is_number(scale, 0, 1e6, low_open=True, high_open=True):
            raise ValueError(f"value_scale must be a positive number; got {scale!r}")
        if value is None:
            return
        if not callable(getattr(value, "state_values", None)):
            raise TypeError(f"value must have state_values(observations), as a NetworkPolicy has; got {value!r}")
        if getattr(value, "observation_kind", "paper") != "paper":
            raise ValueError("the search's leaves give the paper's 277 numbers; this value reads other inputs "
                             f"(its observation_kind is {value.observation_kind!r}; a network of the paper's "
                             "design reads them, such as the agents package's pretrained-default-recipe)")
        if not self.core or self._core_models()[0].any():
            raise ValueError("a value runs in the compiled core: it needs core=True and Smart rollouts")
        if self.objective != "score":
            raise ValueError(f"a value estimates the final score: it needs objective='score'; got {self.objective!r}")

    # ------------------------------------------------------------ deciding
    def act(self, obs: Observation) -> int:
        obs = extended_view(obs, self.rules, required=False)  # an env's 277 numbers and history: the 315
        state = public_state(obs)
        legal = _legal_actions(obs)
        if len(legal) == 1:
            self.last_stats = {"rollouts": 0, "candidates": 1, "means": {}, "visits": {}}
            return legal[0]
        self._course = None
        if self.infer_opponents and "history" in obs:
            moves = history_moves(obs["history"])
            if any(seat for seat, _ in moves):  # an opponent has moved: there is something to read
                self._course = game_course(moves, self.rules)
        self._core_state = _CoreState.of(state) if self.core else None
        if self._noisy is not None:
            self._noisy.seat_noise = self._seat_noise(state)
        hands = self._deal(state)
        root = state_game(state, hands, self.rules)
        entries = root.legal_entries()
        actions = entry_action_indices(entries, root._hand_masks[0])
        if sorted(actions) != legal:
            raise ValueError(
                "the observation's legal actions differ from those of its public state under "
                f"{self.rules}: is the search policy given the game's rules?"
            )
        by_action = dict(zip(actions, range(len(entries))))
        candidates = [by_action[a] for a in legal]  # entry indices, in action order
        if self.prior_top and len(candidates) > self.prior_top + 1:
            plays = [entries[e][1] for e in candidates]
            if self.prior == "smart":
                ranked = smart_ranking(state.hand, state.trick, plays, self.rules)
            else:  # a learned prior: its most likely plays first
                probabilities = self.prior.probabilities(obs)
                ranked = sorted((i for i, play in enumerate(plays) if play), key=lambda i: (-probabilities[legal[i]], i))
            kept = set(ranked[: self.prior_top])
            kept |= {i for i, play in enumerate(plays) if not play}  # passing is always searched when legal
            legal = [legal[i] for i in sorted(kept)]
            candidates = [candidates[i] for i in sorted(kept)]
            if len(candidates) == 1:  # prior_top=1 when leading: nothing left to compare
                self.last_stats = {"rollouts": 0, "candidates": 1, "means": {}, "visits": {}}
                return legal[0]
        means = self._search(state, (hands, root), entries, candidates)
        self.last_stats["means"] = dict(zip(legal, self._last_means))
        self.last_stats["visits"] = dict(zip(legal, self._last_visits))
        best = max(range(len(candidates)), key=lambda i: (means[i], -i))
        return legal[best]

    def _deal(self, state: PublicState) -> list[int]:
        return self._deals(state, 1)[0]

    def _deals(self, state: PublicState, n: int) -> list[list[int]]:
        """``n`` determinisations, one after another from ``self.rng`` (in the core when it runs the search)."""
        core = self._core_state
        if core is None:
            return [deal_consistent(state, self.rng, self.rules, self.pass_inference) for _ in range(n)]
        from .kernels.rollouts import deal_hands  # numba loads on first use, not with big2_env

        out = np.empty((n, 4), dtype=np.int64)
        deal_hands(self.rng, n, core.hand, core.unseen, core.left, core.declined, self.pass_inference, self._core_rules(), out)
        return out.tolist()

    def _core_rules(self) -> np.ndarray:
        if self._rules_array is None:
            from ..engine.core import rules_array

            self._rules_array = rules_array(self.rules)
        return self._rules_array

    def _core_models(self) -> tuple[np.ndarray, np.ndarray]:
        """How the core's play-outs move each seat, and the fast model's weights (zeros for Smart)."""
        base = self._noisy.base if self._noisy is not None else self.rollout
        if isinstance(base, FastRollout):
            return base.seat_models(), base.model.weights
        return np.zeros(4, dtype=np.int64), np.zeros(len(features()))

    def _seat_noise(self, state: PublicState) -> list[float]:
        """Per relative seat, how often its rollout moves are uniformly random: ``opponent_noise``,
        or, where the history says more (``infer_opponents``), the probability that the seat
        plays like Random rather than like Smart or Greedy (:func:`~big2_env.players.beliefs.model_posteriors`)."""
        noise = [0.0] + [self.opponent_noise] * 3
        if self._course is None or not self.infer_opponents or "random" not in self.opponent_models:
            return noise
        deals = self._deals(state, self.infer_opponents)
        models, tremble = self.opponent_models, self.tremble
        posteriors = model_posteriors(deals, state.played_by, self._course, self.rules, models, tremble=tremble,
                                      fast=self._belief_model)
        column = self.opponent_models.index("random")
        return [0.0] + [max(self.opponent_noise, float(posteriors[seat, column])) for seat in (1, 2, 3)]

    def _search(
        self, state: PublicState, root: tuple[list[int], Game], entries: list[Entry], candidates: list[int]
    ) -> list[float]:
        """Mean final score of every candidate (``-inf`` for those dropped by halving).

        Rounds: 1 for ``flat``, ``ceil(log2(n))`` for ``halving``, each with an equal share of
        the budget spread over the candidates still alive, every one of them on the same fresh
        deals; after every round but the last, halving keeps the better half. A budget in
        seconds gives every round an equal share of the time, dealt in batches each sized from
        the time the batch before took, until the round's share is spent.
        """
        n = len(candidates)
        started = time.perf_counter()
        counts = [0] * n
        sums = [0.0] * n
        alive = list(range(n))
        pending = [root]  # the deal already made for the legal actions is the first one used
        if self._core_state is not None:
            from ..engine.core.games import TABLE_AT
            from .kernels.rollouts import play_outs

            root_table = game_row(root[1])[TABLE_AT:]  # the deal's game: its table is the state's, seat 0 on move
            played_by = np.array(state.played_by, dtype=np.int64)
            candidate_rows = np.array([(e[2], len(e[1]), e[0], e[3]) for e in (entries[c] for c in candidates)], dtype=np.int64)
            seat_models, weights = self._core_models()

        def run(deals: int) -> None:
            if self._core_state is not None:
                return run_core(deals)
            games: list[Game] = []
            owners: list[int] = []
            for _ in range(deals):
                if pending:
                    hands, base = pending.pop()
                else:
                    hands = self._deal(state)
                    base = state_game(state, hands, self.rules)
                for i in alive:
                    game = base.copy()
                    game._apply(entries[candidates[i]])
                    games.append(game)
                    owners.append(i)
            play_out(games, self._playing)
            for i, game in zip(owners, games):
                sums[i] += _final_value(game, self.objective)
                counts[i] += 1

        def run_core(deals: int) -> None:
            dealt = [pending.pop()[0] for _ in range(min(deals, len(pending)))]
            if deals > len(dealt):
                dealt += self._deals(state, deals - len(dealt))
            results = np.empty((deals, len(alive)))
            noisy = self._noisy
            noise = np.array(noisy.seat_noise if noisy is not None else [0.0] * 4, dtype=np.float64)
            rng = noisy.rng if noisy is not None else self.rng
            deal_rows, alive_rows = np.array(dealt, dtype=np.int64), np.array(alive, dtype=np.int64)
            objective = OBJECTIVES.index(self.objective)
            weight = self.value_weight if self.value is not None else 0.0
            if weight < 1:
                play_outs(deal_rows, root_table, candidate_rows, alive_rows, noise, rng, self._core_rules(), objective,
                          results, seat_models, weights, self.inner)
            if weight > 0:
                leaf = self._leaf_values(deal_rows, root_table, played_by, candidate_rows, alive_rows, noise, rng)
                results = leaf if weight == 1 else (1 - weight) * results + weight * leaf
            for row in results.tolist():
                for i, value in zip(alive, row):
                    sums[i] += value
                    counts[i] += 1

        def means() -> list[float]:
            return [sums[i] / counts[i] if counts[i] else -math.inf for i in range(n)]

        def spend_until(deadline: float) -> None:
            """Deal in batches until ``deadline``, each batch sized from the time the one before took
            (the first, of 2 deals, only calibrates: per-call overhead makes it slow per rollout)."""
            deals = 2
            while True:
                begun = time.perf_counter()
                run(deals)
                now = time.perf_counter()
                per_deal = (now - begun) / deals
                if deadline - now < per_deal:
                    return
                deals = max(1, int(0.8 * (deadline - now) / per_deal))  # a margin: rollouts vary in length

        rounds = 1 if self.method == "flat" else max(1, math.ceil(math.log2(n)))
        total = self.rollouts
        for r in range(rounds):
            if total is None:  # a time budget: this round's equal share of the time
                spend_until(started + self.seconds * (r + 1) / rounds)  # type: ignore[operator]
            else:
                share = (total - sum(counts)) // (rounds - r)
                if share >= len(alive) or not any(counts):
                    run(max(1, share // len(alive)))
            if r < rounds - 1 and len(alive) > 1:
                current = means()
                alive.sort(key=lambda i: (-current[i], i))
                alive = sorted(alive[: (len(alive) + 1) // 2])
        self.last_stats = {
            "rollouts": sum(counts), "candidates": n, "rounds": rounds, "seconds": time.perf_counter() - started,
        }
        final = means()
        self._last_means = final  # every searched candidate's mean, those halving dropped included
        self._last_visits = counts
        return [final[i] if i in alive else -math.inf for i in range(n)]

    def _leaf_values(self, deals: np.ndarray, root: np.ndarray, played_by: np.ndarray, candidates: np.ndarray,
                     alive: np.ndarray, noise: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """What each (deal, alive candidate) is worth to the searcher by the value at its leaf
        (:func:`~big2_env.engine.core.rollouts.leaves`), or its final score where the game ended first."""
        from ..engine.core.games import LEAF_SIZE
        from .kernels.rollouts import leaves
        from ..observations.compiled import OBS_SIZE, leaf_observations

        values = np.empty((len(deals), len(alive)))
        rows = np.empty((values.size, LEAF_SIZE), dtype=np.int64)
        leaves(deals, root, played_by, candidates, alive, noise, rng, self._core_rules(), OBJECTIVES.index("score"),
               values, rows)
        flat = values.reshape(-1)
        open_ = np.isnan(flat)
        if open_.any():
            observations = np.zeros((len(rows), OBS_SIZE), dtype=np.float32)
            leaf_observations(rows, observations)
            estimates = np.asarray(self.value.state_values(observations[open_]), dtype=np.float64).reshape(-1)
            if estimates.shape != (int(open_.sum()),) or not np.isfinite(estimates).all():
                raise ValueError(f"value.state_values must return one finite number per row; got shape {estimates.shape}")
            flat[open_] = estimates * self.value_scale
        return values

    def __repr__(self) -> str:
        return f"SearchPolicy(budget={self.budget!r}, rollout={self.rollout.name!r}, method={self.method!r})"


def _legal_actions(obs: Observation) -> list[int]:
    actions = sorted(int(a) for a in legal_actions(obs).tolist())
    if not actions:
        raise ValueError("the observation has no legal action: is this agent on move?")
    if not all(0 <= a < NUM_ACTIONS for a in actions):
        raise ValueError(f"legal actions must lie in 0..{NUM_ACTIONS - 1}")
    return actions

