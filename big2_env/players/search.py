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

It is one configuration of the determinised search (:mod:`big2_env.players.determinized`):
its candidates are Smart's favourite plays and pass (``prior_top``, ``prior``); its dealer
deals the unseen cards, believing the opponents' passes (``pass_inference``:
:class:`~big2_env.players.dealers.PassConsistentDealer`); its valuer plays every deal out after
every candidate (:mod:`big2_env.players.valuers`: Smart in every seat by default, in the compiled
core, with nested rollouts for its own later moves, ``inner``); it plays the best mean.

Reading the opponents (``infer_opponents``, on by default): the package's game loops give
the search, in the extended view, the public move history (``obs["history"]``, every move
so far: :func:`~big2_env.observations.extended.history_array`). :mod:`big2_env.players.beliefs` replays it and
scores each opponent's moves under three move models (Smart's or Greedy's own choice, or
uniformly random) from the hands a few deals give it; in rollouts, an opponent then plays
a uniformly random move with the probability that it is Random-like
(:class:`NoisyOpponents`).

Budget allocation: successive halving. The budget is split over ``ceil(log2(n))`` rounds; each
round plays every surviving candidate on the same fresh deals and keeps the better half by mean
score over all its deals so far, so most rollouts go to the candidates still in contention.

Any :class:`~big2_env.players.Policy` can be the rollout policy instead
(:class:`PolicyRollout`, on the Python engine; rollout policies may choose for many games at
once, ``choose_batch``, which a network uses to batch its forward pass across all the deals of a
decision).

Example:
    >>> from big2_env import evaluate
    >>> from big2_env.players.search import SearchPolicy
    >>> result = evaluate(SearchPolicy(budget=8), "random", n_games=4, seed=0)
    >>> result.n_games
    4
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np

from ..checks import is_int
from ..engine.combos import Entry
from ..engine.game import Game
from ..engine.rules import Rules
from ..observations.extended import extended_view
from ..observations.paper import NUM_ACTIONS, entry_action_indices
from .base import Observation, Policy, legal_actions
from .beliefs import DEFAULT_TREMBLE, MODELS, Move, check_models, game_course, model_posteriors
from .dealers import PassConsistentDealer
from .determinized import best_mean, determinized_search, parse_budget, top_candidates
from .fast import features
from .public import PublicState, public_state, state_game
from .valuers import (
    CoreRollouts,
    EngineRollouts,
    FastRollout,
    NoisyOpponents,
    PolicyRollout,
    RolloutPolicy,
    SmartRollout,
    Valuer,
    as_rollout,
    play_out,
)
from .smart import smart_ranking

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_PASS_INFERENCE",
    "NoisyOpponents",
    "PolicyRollout",
    "FastRollout",
    "PublicState",
    "RolloutPolicy",
    "SearchPolicy",
    "SmartRollout",
    "play_out",
    "public_state",
    "state_game",
]

DEFAULT_BUDGET = 640
"""Rollouts per decision by default (about 25 ms a decision, ``benchmarks/search_speed.py``).
Results: ``experiments/results/search/paired_default_random.json``."""

DEFAULT_PASS_INFERENCE = 1.0
"""How far the deals believe a pass means "could not beat it" (Smart passes with a beating play
on about 2% of its passes, Greedy never, Random on about 25%). 1.0 measured best against Smart;
the deals still fall back to the one breaking the fewest constraints when none of their tries
meets them all. Results: ``experiments/search-options.md`` ("Deals that believe the passes")."""

DEFAULT_INFER_OPPONENTS = 8
"""Deals over which the search reads each opponent's model from the move history (``infer_opponents``; 0 turns it off).
Results: ``experiments/results/search/cells_infer_opponents.json``."""

DEFAULT_PRIOR_TOP = 8
"""Candidates searched by default: Smart's favourite 8 non-pass plays (and pass when legal).
Results: ``experiments/search-options.md`` ("A Smart prior")."""

DEFAULT_INNER = 4
"""The default width of the nested rollouts (``inner``): measured on 150 paired deals x 4 seats
against three Smart at 320 rollouts, one-ply 46.2% / +3.98, ``inner=4`` 54.5% / +5.53,
``inner=8`` 53.5% / +5.64 (``experiments/search-strength.md`` has the rest)."""

class SearchPolicy(Policy):
    """Determinised Monte Carlo search over the legal candidates (see the module docstring).

    Args:
        rules: the game's rule set (the search replays the game under them).
        budget: rollouts per decision (an int, default :data:`DEFAULT_BUDGET`: deterministic for
            a seed), or a time per decision such as ``"0.25s"`` or ``0.25`` (rounds of rollouts
            until the time is up; then the moves depend on the machine's speed); see
            :func:`~big2_env.players.determinized.parse_budget`.
        rollout: the rollout policy in every seat: ``"smart"`` (default, the fast engine-level
            Smart), another policy name (``"greedy"``, ``"random"``, a model spec), a
            :class:`~big2_env.players.Policy` or a :class:`RolloutPolicy`.
        seed: seed of the deals (``seed()`` reseeds; :func:`~big2_env.evaluation.evaluate` does).
        prior_top: search only the prior's favourite ``prior_top`` non-pass candidates, and pass
            when legal; ``0`` searches every legal candidate.
        prior: what ranks the candidates for ``prior_top``: ``"smart"`` (Smart's score s(a),
            default) or a policy with ``probabilities(obs) -> {action: p}``, such as the
            network of :mod:`agents` (:class:`agents.policy.NetworkPolicy`).
        pass_inference: how far the deals believe the opponents' passes
            (:class:`~big2_env.players.dealers.PassConsistentDealer`): each pass is read as "could not beat the trick" with
            this probability (default :data:`DEFAULT_PASS_INFERENCE`; 0 deals every unseen card
            uniformly). Needs the extended observation, which the search asks for
            (``observation_kind = "extended"``: :func:`~big2_env.evaluation.evaluate`, the
            Gymnasium env's opponents and ``big2 play`` give it); given the paper's 277 numbers
            it has no passes to read.
        infer_opponents: read from the move history which model each opponent follows
            (Smart, Greedy or Random: :func:`~big2_env.players.beliefs.model_posteriors`, over this
            many deals; default :data:`DEFAULT_INFER_OPPONENTS`, 0: off) and, in rollouts,
            play a uniformly random move for it with the probability that it is Random
            (:class:`NoisyOpponents`).
        opponent_models: the models ``infer_opponents`` chooses among (default and at most
            :data:`~big2_env.players.beliefs.MODELS`).
        tremble: how often a rule-following model is taken to play off its rule
            (default :data:`~big2_env.players.beliefs.DEFAULT_TREMBLE`).
        inner: nested rollouts. Inside each rollout the searcher's own later moves are
            searched too: Smart's ``inner`` favourite plays and pass are each played out once on
            the rollout's deal, and the best is made
            (:func:`~big2_env.players.kernels.rollouts.play_outs`). Default ``None``:
            :data:`DEFAULT_INNER` when the rollouts run in the core (Smart or the fast model), else 0;
            ``0`` is the one-ply search (Smart plays the searcher's later moves). Each rollout
            then costs about ``inner + 1`` times more per own move (about 12 ms a decision at
            the default budget). Core only.

    Raises:
        ValueError: a bad budget, ``prior_top``, ``pass_inference``, ``infer_opponents``, ``opponent_models``,
            ``tremble`` or rollout policy name.
        TypeError: a rollout policy without ``act`` or a prior without ``probabilities``.

    Attributes:
        last_stats: what the last decision took: ``rollouts``, ``candidates``, ``rounds``,
            ``seconds``, ``means``, ``{action: mean}`` of every searched candidate (those
            halving dropped early included, on their fewer deals) and ``visits``, ``{action: deals}`` it was played out on;
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
        seed: int | None = None,
        prior_top: int = DEFAULT_PRIOR_TOP,
        prior: Any = "smart",
        pass_inference: float = DEFAULT_PASS_INFERENCE,
        infer_opponents: int = DEFAULT_INFER_OPPONENTS,
        opponent_models: Sequence[str] = MODELS,
        tremble: float = DEFAULT_TREMBLE,
        inner: int | None = None,
    ) -> None:
        self.rules = Rules.coerce(rules)
        self.rollouts, self.seconds = parse_budget(budget)
        self.budget = budget
        if not is_int(prior_top, 0, numpy=False):
            raise ValueError(f"prior_top must be a non-negative int (0: search every candidate); got {prior_top!r}")
        self.prior_top = prior_top
        if prior != "smart" and not callable(getattr(prior, "probabilities", None)):
            raise TypeError(f"prior must be 'smart' or a policy with probabilities(obs), such as a NetworkPolicy; got {prior!r}")
        self.prior = prior
        self.rollout = as_rollout(rollout, self.rules)
        self.pass_inference = PassConsistentDealer.checked_belief(pass_inference)
        check_models(opponent_models, tremble, "opponent_models")
        self.opponent_models, self.tremble = tuple(opponent_models), float(tremble)
        if not is_int(infer_opponents, 0):
            raise ValueError(f"infer_opponents must be a non-negative int (deals read; 0: off); got {infer_opponents!r}")
        self.infer_opponents = int(infer_opponents)
        self._noisy: NoisyOpponents | None = None
        if self.infer_opponents and "random" in self.opponent_models:
            self._noisy = NoisyOpponents(self.rollout, seed)
        self._playing: RolloutPolicy = self._noisy or self.rollout  # what the rollouts run
        base = self._noisy.base if self._noisy is not None else self.rollout
        # the rollouts run in the compiled core for Smart or the fast model under the search's rules; other
        # rollout policies run on the Python engine (EngineRollouts)
        self.core = type(base) in (SmartRollout, FastRollout) and getattr(base, "rules", None) == self.rules
        if inner is None:  # the default: nested where the core runs the rollouts
            inner = DEFAULT_INNER if self.core else 0
        if not is_int(inner, 0):
            raise ValueError(f"inner must be a non-negative int (0: off); got {inner!r}")
        if inner and not self.core:
            raise ValueError("inner (nested rollouts) runs in the compiled core: it needs Smart or fast-model rollouts")
        self.inner = int(inner)
        self._dealer: PassConsistentDealer | None = None  # this decision's, made with its public state
        self._course: list[Move] | None = None  # this decision's replayed move history, when read
        self.rng = np.random.default_rng(seed)
        self.last_stats: dict[str, Any] = {}

    def seed(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self._playing.seed(None if seed is None else seed + 1)

    # ------------------------------------------------------------ deciding
    def act(self, obs: Observation) -> int:
        obs = extended_view(obs, self.rules, required=False)  # an env's 277 numbers and history: the 315
        state = public_state(obs)
        legal = _legal_actions(obs)
        if len(legal) == 1:
            self.last_stats = {"rollouts": 0, "candidates": 1, "means": {}, "visits": {}}
            return legal[0]
        self._course = None
        if self.infer_opponents and any(seat for seat, _ in state.history):  # an opponent has moved: something to read
            self._course = game_course(state.history, self.rules)
        self._dealer = PassConsistentDealer(state, self.rng, self.rules, self.pass_inference)
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
        by_action = dict(zip(actions, entries))
        legal = self._candidates(obs, state, legal, [by_action[a][1] for a in legal])
        if len(legal) == 1:  # prior_top=1 when leading: nothing left to compare
            self.last_stats = {"rollouts": 0, "candidates": 1, "means": {}, "visits": {}}
            return legal[0]
        started = time.perf_counter()
        valuer = self._valuer(state, root, [by_action[a] for a in legal])
        tally = determinized_search(len(legal), _HookedDealer(self, state), valuer, self.rollouts, self.seconds,
                                    halving=True, first=[hands], started=started,
                                    clock=time.perf_counter)
        self.last_stats = {"rollouts": tally.rollouts, "candidates": len(legal), "rounds": tally.rounds,
                           "seconds": time.perf_counter() - started,
                           "means": dict(zip(legal, tally.means())), "visits": dict(zip(legal, tally.counts))}
        return legal[best_mean(tally)]

    def _candidates(self, obs: Observation, state: PublicState, legal: list[int], plays: list[tuple[int, ...]]) -> list[int]:
        """The legal actions searched, in action order: the prior's favourite ``prior_top`` plays and pass
        (when legal), or every legal action."""
        if not self.prior_top or len(legal) <= self.prior_top + 1:
            return legal
        if self.prior == "smart":
            ranked = smart_ranking(state.hand, state.trick, plays, self.rules)
        else:  # a learned prior: its most likely plays first
            probabilities = self.prior.probabilities(obs)
            ranked = sorted((i for i, play in enumerate(plays) if play), key=lambda i: (-probabilities[legal[i]], i))
        passing = next((i for i, play in enumerate(plays) if not play), None)
        return [legal[i] for i in sorted(top_candidates(ranked, self.prior_top, passing))]

    def _valuer(self, state: PublicState, root: Game, candidates: list[Entry]) -> Valuer:
        """What values the candidates' deals: rollouts in the core or on the engine."""
        if not self.core:
            return EngineRollouts(state, candidates, self._playing, self.rules)
        noisy = self._noisy
        seat_models, weights = self._core_models()
        return CoreRollouts(root, candidates, seat_models, weights,
                            noisy.seat_noise if noisy is not None else [0.0] * 4, noisy.rng if noisy is not None else self.rng,
                            self.inner)

    def _deal(self, state: PublicState) -> list[int]:
        """One determinisation (:class:`~big2_env.players.dealers.PassConsistentDealer`)."""
        return self._deals(state, 1)[0]

    def _deals(self, state: PublicState, n: int) -> list[list[int]]:
        """``n`` determinisations, one after another from ``self.rng``."""
        assert self._dealer is not None, "deals are made for a decision: act() makes its dealer"
        return self._dealer.deal(n).tolist()

    def _core_models(self) -> tuple[np.ndarray, np.ndarray]:
        """How the core's play-outs move each seat, and the fast model's weights (zeros for Smart)."""
        base = self._noisy.base if self._noisy is not None else self.rollout
        if isinstance(base, FastRollout):
            return base.seat_models(), base.model.weights
        return np.zeros(4, dtype=np.int64), np.zeros(len(features()))

    def _seat_noise(self, state: PublicState) -> list[float]:
        """Per relative seat, how often its rollout moves are uniformly random: 0, or, where the history
        says more (``infer_opponents``), the probability that the seat plays like Random rather than like
        Smart or Greedy (:func:`~big2_env.players.beliefs.model_posteriors`)."""
        noise = [0.0] * 4
        if self._course is None or not self.infer_opponents or "random" not in self.opponent_models:
            return noise
        deals = self._deals(state, self.infer_opponents)
        models, tremble = self.opponent_models, self.tremble
        posteriors = model_posteriors(deals, state.played_by, self._course, self.rules, models, tremble=tremble)
        column = self.opponent_models.index("random")
        return [0.0] + [float(posteriors[seat, column]) for seat in (1, 2, 3)]

    def __repr__(self) -> str:
        return f"SearchPolicy(budget={self.budget!r}, rollout={self.rollout.name!r})"


class _HookedDealer:
    """The search's own dealing methods as the loop's dealer: ``_deals`` in the core, else ``_deal``
    once a deal (what a benchmark's oracle replaces)."""

    def __init__(self, search: SearchPolicy, state: PublicState) -> None:
        self.search, self.state = search, state

    def deal(self, n: int) -> np.ndarray:
        if self.search.core:
            hands = self.search._deals(self.state, n)
        else:
            hands = [self.search._deal(self.state) for _ in range(n)]
        return np.array(hands, dtype=np.int64).reshape(n, 4)


def _legal_actions(obs: Observation) -> list[int]:
    actions = sorted(int(a) for a in legal_actions(obs).tolist())
    if not actions:
        raise ValueError("the observation has no legal action: is this agent on move?")
    if not all(0 <= a < NUM_ACTIONS for a in actions):
        raise ValueError(f"legal actions must lie in 0..{NUM_ACTIONS - 1}")
    return actions

