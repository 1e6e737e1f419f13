"""The search over a network: one-step search with the network as its blueprint (SPARTA).

:class:`NetworkSearch` keeps a policy network as its *blueprint* (Lerer, Hu, Foerster and Brown,
"Improving Policies via Search in Cooperative Partially Observable Games", AAAI 2020). It is the
determinised search of :mod:`big2_env.players.determinized` with the network's parts: its
candidates, its dealer (uniform, :class:`~big2_env.players.dealers.UniformDealer`), its valuer
(:class:`RolloutValues`, the network's rollouts), its rule for leaving the blueprint
(:func:`~big2_env.players.determinized.leave_blueprint`), and its opponent models
(:class:`OpponentModels`). At each decision with a choice:

1. **Candidates**: the blueprint's ``top_k`` most probable moves, and pass where it is legal.
2. **Deals**: the hidden cards are dealt to the other seats in their counts (a determinisation;
   every card played stays with the seat that played it), in rounds of ``deals`` deals.
3. **Value**: every candidate is played on the *same* deals (common random numbers), and every
   game is then played to its end by the network in all four seats (but see 5), the searcher's own
   later moves included (:class:`NetworkRollouts`: the compiled :class:`~big2_env.envs.positions.PositionGames`,
   one batched forward pass per step over every game on move). A game is worth its final score
   to the searcher: points, not wins.
4. **Deviation**: the blueprint's own first choice is kept unless the best candidate's mean gain
   over it, paired deal by deal, exceeds ``margin`` standard errors of that paired difference
   (SPARTA's threshold, counted in standard errors). By the policy improvement argument such a
   search is no worse than its blueprint where its deals are right.
5. **Opponent models** (``opponent_models``; by default every model for a network of his design): the
   rollouts give each other seat the model that best explains its moves so far, Smart, Greedy or Random
   (compiled, beside the network), where it explains them far better than the network does; the
   network otherwise.

It decides from the observation alone (the extended view's hand, counts and public move
history): swapping the unseen cards between the other hands never changes its decision for a
given seed (tested). :attr:`NetworkSearch.stats` counts its decisions, departures from the
blueprint and their measured gains.

Agent specs (``big2 eval``, the arena, the web table): ``search-net`` (the shipped network of the
rules: ``pretrained`` under the paper's rules, ``pretrained-charlesworth`` under his),
``search-net:NETWORK`` (any network spec: a shipped name, a ``.pt`` file, a run folder), each with
an optional ``@BUDGET`` (``search-net@640``, ``search-net:pretrained@1s``): a number of rollouts a
decision (640 by default), or seconds.

Example:
    >>> from big2_env import evaluate
    >>> from agents.net_search import NetworkSearch
    >>> search = NetworkSearch.from_spec("pretrained", rules="paper", budget=16, seed=0)
    >>> result = evaluate(search, "random", n_games=2, seed=0, progress=False)
    >>> result.n_games
    2
"""

from __future__ import annotations

import math
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Sequence

import numpy as np
import torch

from big2_env.checks import is_int, is_number
from big2_env.engine.rules import Rules
from big2_env.evaluation.workers import set_numba_threads
from big2_env.envs.positions import PositionGames
from big2_env.observations.compiled import PASS_ACTION
from big2_env.players.base import Policy
from big2_env.players.dealers import Dealer, UniformDealer
from big2_env.players.determinized import determinized_search, leave_blueprint, parse_budget, top_candidates
from big2_env.players.public import PublicState, public_state
from big2_env.players.beliefs import (
    DEFAULT_TREMBLE,
    course_array,
    game_course,
    logsumexp,
    seat_log_likelihood_table,
)

from .network import Big2Net, CharlesworthNet
from .policy import NetworkPolicy, choose, score_numpy

__all__ = ["DEFAULT_BUDGET", "ROLLOUT_MODELS", "NetworkRollouts", "NetworkSearch", "OpponentModels", "RolloutValues",
           "SearchStats"]

DEFAULT_BUDGET = 640
"""The search's default budget: 640 rollouts a decision (0.23 to 0.56 s a decision, forced ones
included, on one core of the 2-core machine shared with other jobs, ``experiments/results/search_net/``); a
budget in seconds (``"0.25s"``) depends on the machine and its load, a rollout count does not."""
DEFAULT_TOP_K = 4
"""Candidates: the network's 4 most probable moves, and pass. No results file yet: no other width was measured."""
DEFAULT_MARGIN = 4.0
"""Standard errors a departure must clear.
Results: ``experiments/results/search_net/duel_0.25s_margin4_60.json`` (against 2: ``duel_0.25s_60.json``)."""
DEFAULT_SAMPLE = True
"""Rollouts sample the network's softmax.
Results: ``experiments/results/search_net/duel_0.25s_sample_60.json`` (argmax: ``duel_0.25s_60.json``)."""
DEFAULT_DEALS = 16
"""Deals a round (the loop's batch). No results file yet: under a rollout budget it orders the draws, not how many deals."""
OPPONENT_DEALS = 32
"""Uniform deals of the hidden cards over which ``opponent_models`` averages each model's likelihood of a seat's moves."""
OPPONENT_SWITCH_NATS = 3.0
"""The default ``opponent_switch``: how much better (in log-likelihood, nats) a model must explain a seat's moves
than every model before it (:data:`_MODEL_LEVELS`) before the rollouts give that seat that model: prior odds of
about 20 to 1 each step. Results: ``experiments/results/search_net/duel_640_models_1000.json`` (0 and 1 nats:
``duel_640_switch0_625.json``, ``duel_640_switch1_1000.json``; ``experiments/search-net-opponent-models.md``)."""
_MODEL_LEVELS = {"network": 0, "smart": 1, "greedy": 1, "random": 2}
"""The models in the order a seat moves through them: the blueprint, the rules, no rule."""
ROLLOUT_MODELS = ("network", "smart", "greedy", "random")
"""Who can move for a seat in :class:`NetworkRollouts` (and model an opponent in :class:`NetworkSearch`)."""


@contextmanager
def threads_kept() -> Iterator[None]:
    """Run numba's parallel loops on as many threads as torch has, and leave torch's count as it was.

    With numba's OpenMP layer, a parallel loop sets OpenMP's thread count for the calling thread,
    which torch's intra-op threads share: a process that set ``torch.set_num_threads(1)`` would run
    its next forward passes on every core's threads. Two searches side by side on two cores then
    spin-wait on each other's threads (25 times slower, measured on this project's 2-core machine).
    """
    threads = torch.get_num_threads()
    set_numba_threads(threads)
    try:
        yield
    finally:
        if torch.get_num_threads() != threads:
            torch.set_num_threads(threads)


class NetworkRollouts:
    """Games from given positions played to their end by ``model`` in every seat.

    Args:
        model: the network (a :class:`~agents.network.Big2Net`; Charlesworth's design reads his 412
            numbers, the card-aware designs the paper's 277 and the candidates' features).
        rules: the rule set the games are played under.
        sample: sample each move from the network's softmax (with ``rng``) instead of its argmax.
        argmax_seats: seats (of the hands' order) whose moves are the network's argmax even where the
            others sample (such as the searcher's own later moves).
        seat_networks: seats (of the hands' order) played by another network of his design instead of
            ``model`` (his own network, :func:`~agents.network.charlesworth_network`: rollouts against the
            table's real players, as ``experiments/scripts/search_net_departures.py`` plays them); his design only.

    :meth:`play` returns the final scores; :attr:`decisions` counts the network's decisions made.
    """

    def __init__(self, model: Big2Net, rules: Rules | str | dict | None = None, sample: bool = False,
                 rng: np.random.Generator | None = None, argmax_seats: Sequence[int] = (),
                 seat_networks: Mapping[int, Big2Net] | None = None) -> None:
        self.model = model.eval()
        self.rules = Rules.coerce(rules)
        self.sample = bool(sample)
        if isinstance(argmax_seats, str) or any(not is_int(s, 0, 3) for s in argmax_seats):
            raise ValueError(f"argmax_seats must list seats in 0..3; got {argmax_seats!r}")
        self.argmax_seats = np.zeros(4, dtype=np.bool_)
        self.argmax_seats[list(argmax_seats)] = True
        self.rng = rng if rng is not None else np.random.default_rng()
        cfg = model.config
        self._his = cfg.design == "charlesworth"
        if cfg.observation not in ("paper", "charlesworth") or (cfg.observation == "charlesworth") != self._his:
            raise ValueError(f"rollouts play networks of Charlesworth's design or of the paper's view; this one reads "
                             f"the {cfg.observation!r} view with the {cfg.design!r} design")
        self.games = PositionGames(self.rules, observation="charlesworth" if self._his else "paper")
        seat_networks = dict(seat_networks or {})
        if any(not is_int(seat, 0, 3) for seat in seat_networks) or any(
                not isinstance(net, Big2Net) or net.config.design != "charlesworth" for net in seat_networks.values()):
            raise ValueError(f"seat_networks must map seats in 0..3 to networks of Charlesworth's design; got {seat_networks!r}")
        if seat_networks and not self._his:
            raise ValueError("seat_networks need the rollouts' own network to be of Charlesworth's design too")
        self._networks = [self.model] + [net.eval() for net in seat_networks.values()]
        self._seat_network = np.zeros(4, dtype=np.int64)  # by seat, an index of _networks (0: the model)
        for k, seat in enumerate(seat_networks, start=1):
            self._seat_network[seat] = k
        self.decisions = 0

    @property
    def reads_his_view(self) -> bool:
        """Whether the network is of Charlesworth's design (its 1695-way head gives :meth:`log_probabilities`)."""
        return self._his

    def play(self, hands: np.ndarray, first: int, moves: Sequence[int], actions: np.ndarray | None = None,
             models: Sequence[str] | None = None) -> np.ndarray:
        """Start ``len(hands)`` games (:meth:`PositionGames.start`), play ``actions[g]`` first in game
        ``g`` when given (the candidates), then the network to the end; the scores ``(M, 4)``.

        ``models``: who moves for each seat (in the seat order of ``hands``), each one of
        :data:`ROLLOUT_MODELS`: ``"network"`` (every seat when ``None``), ``"smart"`` or ``"greedy"``
        (the heuristic's move, in compiled code: :meth:`PositionGames.heuristic_actions`) or
        ``"random"`` (a uniform choice among the legal moves, drawn with ``rng``)."""
        codes = None if models is None else _model_codes(models)
        with threads_kept():
            obs = self.games.start(hands, first, moves)
            if actions is not None:
                obs = self.games.step(actions)
            while self.games.active.any():
                obs = self.games.step(self._choose(obs, codes))
            return self.games.scores.copy()

    def _choose(self, obs: Mapping[str, np.ndarray], codes: np.ndarray | None = None) -> np.ndarray:
        """The action in every active game: the network's (a forward pass for those with a choice), or, where
        ``codes`` (by seat, indices of :data:`ROLLOUT_MODELS`) gives the mover another model, that model's."""
        active = np.flatnonzero(self.games.active)
        actions = np.zeros(len(self.games.active), dtype=np.int64)
        if codes is not None:
            kind = codes[obs["current_player"][active]]
            for code in np.unique(kind[kind > 0]).tolist():
                games = active[kind == code]
                if ROLLOUT_MODELS[code] == "random":
                    rows, cols = _legal_cells(obs["action_mask"][games])
                    counts = np.bincount(rows, minlength=len(games))
                    pick = np.minimum((self.rng.random(len(games)) * counts).astype(np.int64), counts - 1)
                    actions[games] = cols[np.cumsum(counts) - counts + pick]
                else:
                    where = np.zeros(len(self.games.active), dtype=np.bool_)
                    where[games] = True
                    actions[games] = self.games.heuristic_actions(ROLLOUT_MODELS[code], where)[games]
            active = active[kind == 0]
            if not len(active):
                return actions
        mask = obs["action_mask"]
        rows, cols = _legal_cells(mask if len(active) == len(mask) else mask[active])
        counts = np.bincount(rows, minlength=len(active))
        offsets = np.cumsum(counts) - counts
        actions[active] = cols[offsets]  # the first legal action: the only one where there is no choice
        choice = counts > 1
        if not choice.any():
            return actions
        decide = active[choice]
        self.decisions += len(decide)
        movers = obs["current_player"][decide]
        greedy = self.argmax_seats[movers] if self.sample else None
        if self._his:
            vectors, legal, n = obs["observation"][decide], cols[choice[rows]], counts[choice]
            which = self._seat_network[movers]
            picked = np.zeros(len(decide), dtype=np.int64)
            owner = np.repeat(np.arange(len(decide)), n)
            for k in np.unique(which).tolist():  # one batch for each network on move (one but with seat_networks)
                part = np.flatnonzero(which == k)
                picked[part] = self._his_choice(
                    vectors[part], legal[np.isin(owner, part)], n[part], None if greedy is None else greedy[part],
                    self._networks[k])
        else:
            picked = self._candidate_choice(obs["observation"][decide], decide, greedy)
        actions[decide] = picked
        return actions

    def _his_scores(self, vectors: np.ndarray, cols: np.ndarray, counts: np.ndarray,
                    model: Big2Net | None = None) -> np.ndarray:
        """His design's logits of the legal actions of each row of ``vectors``, padded with ``-inf`` to
        ``(rows, max count)`` (``cols``: the legal actions, row by row; ``counts`` per row): only the
        legal actions' rows of the 1695-way head are computed (``model``: another network of his design)."""
        offsets = np.cumsum(counts) - counts
        owner = np.repeat(np.arange(len(counts)), counts)
        model = self.model if model is None else model
        assert isinstance(model, CharlesworthNet)
        with torch.inference_mode():
            hidden = model.policy_branch(model.encode_state(torch.from_numpy(vectors)))
            index = torch.from_numpy(cols)
            head = model.action_head
            scores = (hidden.index_select(0, torch.from_numpy(owner)) * head.weight.index_select(0, index)).sum(-1)
            scores = (scores + head.bias.index_select(0, index)).numpy()
        padded = np.full((len(counts), int(counts.max())), -np.inf, dtype=np.float32)
        padded[owner, np.arange(len(cols)) - offsets[owner]] = scores
        return padded

    def _his_choice(self, vectors: np.ndarray, cols: np.ndarray, counts: np.ndarray,
                    greedy: np.ndarray | None = None, model: Big2Net | None = None) -> np.ndarray:
        """His design's move in each of ``vectors``' games (``cols``: the legal actions, game by game, ``counts`` of
        them; ``greedy``: the games where the mover plays the argmax though the others sample; ``model``: the
        network on move, by default the rollouts')."""
        offsets = np.cumsum(counts) - counts
        padded = self._his_scores(vectors, cols, counts, model)
        if self.sample:
            pick = _argmax_where(choose(_log_softmax(padded), counts, self.rng), padded, greedy)
        else:
            pick = padded.argmax(axis=1)
        return cols[offsets + pick]

    def log_probabilities(self, vectors: np.ndarray, masks: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """The network's log-probability (its softmax over the legal actions) of playing
        ``actions[i]`` in view ``vectors[i]`` with legal actions ``masks[i]`` (his design only)."""
        if not self._his:
            raise ValueError("the network's probabilities of the others' moves need Charlesworth's design (its 1695-way head)")
        rows, cols = _legal_cells(masks)
        counts = np.bincount(rows, minlength=len(masks))
        offsets = np.cumsum(counts) - counts
        logp = _log_softmax(self._his_scores(vectors, cols, counts))
        slot = np.flatnonzero(cols == np.asarray(actions)[rows]) - offsets  # each row's action is one of its legal ones
        return logp[np.arange(len(masks)), slot].astype(np.float64)

    def _candidate_choice(self, vectors: np.ndarray, decide: np.ndarray, greedy: np.ndarray | None = None) -> np.ndarray:
        features, actions, counts = self.games.candidates()
        offsets = np.cumsum(counts) - counts
        rows = np.concatenate([np.arange(offsets[g], offsets[g] + counts[g]) for g in decide])
        logp, _ = score_numpy(self.model, vectors, features[rows], counts[decide])
        pick = choose(logp, counts[decide], self.rng if self.sample else None)
        if self.sample:
            pick = _argmax_where(pick, logp, greedy)
        return actions[offsets[decide] + pick]


class RolloutValues:
    """The network search's valuer (:class:`~big2_env.players.valuers.Valuer`): every deal (starting hands,
    relative seats) after every alive candidate (``candidates``: actions) replayed from the history
    (``first``, ``moves``) and played to its end by ``rollout`` (``models``: who moves for each seat,
    :meth:`NetworkRollouts.play`); each worth the searcher's final score."""

    def __init__(self, rollout: NetworkRollouts, first: int, moves: Sequence[int], candidates: np.ndarray,
                 models: Sequence[str] | None = None) -> None:
        self.rollout, self.first, self.moves, self.candidates, self.models = rollout, first, moves, candidates, models

    def values(self, deals: np.ndarray, alive: Sequence[int]) -> np.ndarray:
        actions = self.candidates[np.asarray(alive, dtype=np.int64)]
        scores = self.rollout.play(np.repeat(deals, len(actions), axis=0), self.first, self.moves,
                                   np.tile(actions, len(deals)), self.models)
        return scores[:, 0].reshape(len(deals), len(actions)).astype(np.float64)


def _argmax_where(pick: np.ndarray, scores: np.ndarray, greedy: np.ndarray | None) -> np.ndarray:
    """``pick`` (sampled slots), with each row's argmax of ``scores`` where ``greedy`` is set (the draws are
    made for every row all the same, so the other rows' moves do not depend on which rows are greedy)."""
    if greedy is None or not greedy.any():
        return pick
    return np.where(greedy, scores.argmax(axis=1), pick)


def _model_codes(models: Sequence[str]) -> np.ndarray:
    """``models`` (one name of :data:`ROLLOUT_MODELS` per seat) as their indices; ``ValueError`` for anything else."""
    if isinstance(models, str) or len(models) != 4 or any(m not in ROLLOUT_MODELS for m in models):
        raise ValueError(f"models must name one of {', '.join(ROLLOUT_MODELS)} for each of the 4 seats; got {models!r}")
    return np.array([ROLLOUT_MODELS.index(m) for m in models], dtype=np.int64)


def _legal_cells(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.nonzero(masks)`` of a 2-D boolean array (rows, then the legal actions of each in ascending order), by
    the flat index: numpy's 2-D ``nonzero`` takes about seven times as long on ``(M, 1695)`` masks."""
    rows, cols = np.divmod(np.flatnonzero(masks), masks.shape[1])
    return rows, cols


def _log_softmax(padded: np.ndarray) -> np.ndarray:
    """Row-wise log-softmax of logits padded with ``-inf``."""
    logp = padded - padded.max(axis=1, keepdims=True)
    return logp - np.log(np.exp(logp).sum(axis=1, keepdims=True))


_HIS_DESIGN = "Charlesworth's design (its 1695-way head: pretrained, pretrained-charlesworth)"


@dataclass(frozen=True)
class OpponentModels:
    """How the network search models the other seats: who may move them in the rollouts (``models``, in
    :data:`ROLLOUT_MODELS`' order, the network first as the scores' columns are read; ``None``: resolved
    with the network, :meth:`resolve`), how many nats better a model must explain a seat's moves before it
    moves that seat (``switch``). :meth:`checked` and :meth:`resolve` refuse settings that do not go together."""

    models: tuple[str, ...] | None = None
    switch: float = OPPONENT_SWITCH_NATS

    @classmethod
    def checked(cls, models: Sequence[str] | None, switch: Any) -> "OpponentModels":
        if models is not None and (
                isinstance(models, str) or not models or "network" not in models
                or any(m not in ROLLOUT_MODELS for m in models) or len(set(models)) != len(models)):
            raise ValueError(f"opponent_models must be None (the default) or list distinct models of "
                             f"{', '.join(ROLLOUT_MODELS)}, \"network\" among them; got {models!r}")
        if not is_number(switch, 0, 1000):
            raise ValueError(f"opponent_switch must be a number of nats in [0, 1000]; got {switch!r}")
        ordered = None if models is None else tuple(m for m in ROLLOUT_MODELS if m in models)
        return cls(ordered, float(switch))

    def resolve(self, his_design: bool, design: str) -> tuple[str, ...]:
        """The models for a network (``his_design``: it can weigh the others' moves; ``design``: its name):
        by default every model where the network can weigh the others' moves, else the network."""
        models = self.models or (ROLLOUT_MODELS if his_design else ("network",))
        if len(models) > 1 and not his_design:
            raise ValueError(f"opponent_models weigh the others' moves with a network of {_HIS_DESIGN}; this one has "
                             f"the {design!r} design")
        if len(models) == 1 and self.switch != OPPONENT_SWITCH_NATS:
            raise ValueError(f"opponent_switch={self.switch} has no model to switch to: it applies with "
                             "opponent_models other than the network (the default for a network of Charlesworth's "
                             f"design); got opponent_models={tuple(models)!r}")
        return tuple(models)

    def choose(self, models: Sequence[str], score: np.ndarray) -> tuple[str, ...]:
        """Per relative seat, the model of ``models`` (resolved) that moves it: seat 0 and a seat no model
        explains better keep the network; ``score`` ``(4, len(models))`` is each model's log-likelihood of
        each seat's moves. A seat goes to the best rule (Smart or Greedy) where it beats the network by more
        than ``switch`` nats, and to Random only where Random beats each model before it by as much."""
        level = np.array([_MODEL_LEVELS[m] for m in models])
        out = ["network"] * 4
        for seat in (1, 2, 3):
            for rung in (1, 2):
                if not (level == rung).any():
                    continue
                best = int(np.flatnonzero(level == rung)[np.argmax(score[seat, level == rung])])
                if score[seat, best] > score[seat, level < rung].max() + self.switch:
                    out[seat] = models[best]
        return tuple(out)


@dataclass
class SearchStats:
    """What :class:`NetworkSearch` did: decisions searched (with a choice among candidates), rollouts
    played, departures from the blueprint and the measured paired gain (points a game) of each."""

    decisions: int = 0
    searched: int = 0
    rollouts: int = 0
    departures: int = 0
    gains: list[float] = field(default_factory=list)
    seconds: float = 0.0
    opponent_seats: dict[str, int] = field(default_factory=dict)
    """Over the searched decisions, how many of the other seats the rollouts gave each model (``opponent_models``)."""

    @property
    def departure_rate(self) -> float:
        """Departures per searched decision."""
        return self.departures / self.searched if self.searched else 0.0

    def to_dict(self) -> dict[str, float]:
        return {"decisions": self.decisions, "searched": self.searched, "rollouts": self.rollouts,
                "departures": self.departures, "departure_rate": self.departure_rate,
                "mean_gain": float(np.mean(self.gains)) if self.gains else 0.0,
                **{f"opponent_seats_{m}": self.opponent_seats.get(m, 0) for m in ROLLOUT_MODELS},
                "seconds_per_decision": self.seconds / self.decisions if self.decisions else 0.0}


class NetworkSearch(Policy):
    """One-step search over a network blueprint (see the module docstring).

    Args:
        network: the blueprint, a :class:`~agents.policy.NetworkPolicy` (:meth:`from_spec` loads one by name).
        rules: the rule set of the table.
        budget: a number of rollouts a decision (an int; :data:`DEFAULT_BUDGET`, 640) or seconds (``"0.25s"``, ``0.25``;
            :func:`~big2_env.players.determinized.parse_budget`).
        top_k: how many of the blueprint's most probable moves are candidates (pass is added when legal).
        margin: how many standard errors of the paired difference a candidate's mean gain over the
            blueprint's move must exceed before the search leaves the blueprint (0: always take the
            best mean).
        deals: deals per round (each candidate is played on every deal of a round).
        sample: sample the rollouts' moves from the network's softmax (the default) instead of its argmax.
        opponent_models: who may move for the other seats in the rollouts, ``"network"`` among them: at
            each searched decision each other seat gets the model of these (:data:`ROLLOUT_MODELS`:
            ``"smart"``, ``"greedy"``, ``"random"``) that explains its moves so far best, and keeps the
            network unless another does better by ``opponent_switch`` nats (:meth:`seat_models`).
            Given in any order, they are kept in :data:`ROLLOUT_MODELS`' order. ``None`` (the default): all
            of :data:`ROLLOUT_MODELS` for a network of Charlesworth's design, else the
            network alone (a card-aware network has no head to weigh the others' moves with). Read with a generator
            of their own: where every seat keeps the network the search's decisions are those it makes
            without them.
        opponent_switch: how many nats better a model of ``opponent_models`` must explain a seat's moves
            than each model before it (the network, then the two rules, then Random) before the
            rollouts give the seat that model (default :data:`OPPONENT_SWITCH_NATS`; 0: the best
            explanation so far, a tie kept by the earlier model). Another value is refused where the
            rollouts have no model but the network.
        seed: seeds the deals (and sampled rollouts).
    """

    name = "search-net"
    observation_kind = "extended"

    def __init__(self, network: NetworkPolicy, rules: Rules | str | dict | None = None, budget: Any = DEFAULT_BUDGET,
                 top_k: int = DEFAULT_TOP_K, margin: float = DEFAULT_MARGIN, deals: int = DEFAULT_DEALS,
                 sample: bool = DEFAULT_SAMPLE,
                 opponent_models: Sequence[str] | None = None, opponent_switch: float = OPPONENT_SWITCH_NATS,
                 seed: int | None = None, name: str | None = None) -> None:
        self.rollouts, self.seconds = parse_budget(budget)
        self.budget = budget
        for what, value, low, high in (("top_k", top_k, 1, 64), ("deals", deals, 1, 4096)):
            if not is_int(value, low, high):
                raise ValueError(f"{what} must be an int in {low}..{high}; got {value!r}")
        if not is_number(margin, 0, 100):
            raise ValueError(f"margin must be a number of standard errors in [0, 100]; got {margin!r}")
        self.rules = Rules.coerce(rules)
        self.top_k, self.margin, self.deals, self.sample = int(top_k), float(margin), int(deals), bool(sample)
        self.opponents = OpponentModels.checked(opponent_models, opponent_switch)
        self.opponent_switch = self.opponents.switch
        self.opponent_models: tuple[str, ...] = ("network",)  # resolved with the network (use_network)
        self.rng, self.models_rng = _generators(seed)
        self.use_network(network)
        self.stats = SearchStats()
        self.last: dict[str, Any] | None = None
        if name is not None:
            self.name = name

    @classmethod
    def from_spec(cls, spec: str | None = None, rules: Rules | str | dict | None = None, **kwargs: Any) -> "NetworkSearch":
        """A search over the network ``spec`` names (``None``: the shipped network of ``rules``)."""
        from big2_env.evaluation.loading import load_agent

        from .shipped import SHIPPED

        rules = Rules.coerce(rules)
        if spec is None:
            spec = "pretrained-charlesworth" if rules == Rules.preset("charlesworth") else "pretrained"
        network = load_agent(spec, rules, what="search-net's network")
        if not isinstance(network, NetworkPolicy):
            raise ValueError(f"search-net needs a network (a shipped name such as {', '.join(SHIPPED)}, a .pt file or a "
                             f"run folder); got {spec!r}")
        return cls(network, rules, **kwargs)

    def use_network(self, network: NetworkPolicy) -> None:
        """Make ``network`` the blueprint: the candidates and every move of the rollouts."""
        if not isinstance(network, NetworkPolicy):
            raise ValueError(f"network must be a NetworkPolicy (NetworkSearch.from_spec loads one by name); got {network!r}")
        rollout = NetworkRollouts(network.model, self.rules, sample=self.sample, rng=self.rng)
        models = self.opponents.resolve(rollout.reads_his_view, network.model.config.design)
        self.network, self.rollout, self.opponent_models = network, rollout, models

    @property
    def last_stats(self) -> dict[str, Any] | None:
        """The last searched decision as the web table's insight reads it: each candidate's mean
        score (``"means"``) and deals (``"visits"``), by action index; ``None`` before any."""
        if self.last is None:
            return None
        return {"means": dict(zip(self.last["candidates"], self.last["means"])),
                "visits": {a: self.last["deals"] for a in self.last["candidates"]}}

    def seed(self, seed: int | None = None) -> None:
        self.rng, self.models_rng = _generators(seed)
        self.rollout.rng = self.rng

    # ------------------------------------------------------------------ the decision
    def act(self, obs: Mapping[str, Any]) -> int:
        started = time.perf_counter()
        try:
            with threads_kept():
                return self._act(obs)
        finally:
            self.stats.decisions += 1
            self.stats.seconds += time.perf_counter() - started

    def _act(self, obs: Mapping[str, Any]) -> int:
        self.last = None  # set again only by a searched decision
        mask = np.asarray(obs["action_mask"], dtype=bool)
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError("the observation has no legal action: is this agent on move?")
        if len(legal) == 1:
            return int(legal[0])
        probabilities = self.network.probabilities(obs)
        order = sorted(probabilities, key=lambda a: -probabilities[a])
        blueprint = order[0]
        candidates = top_candidates(order, self.top_k, PASS_ACTION if mask[PASS_ACTION] else None)
        if len(candidates) == 1:
            return blueprint
        if "history" not in obs:
            raise ValueError("search-net reads the public move history: give it the extended view (observation_kind)")
        position = public_state(obs)
        self.stats.searched += 1
        models = self.seat_models(position) if len(self.opponent_models) > 1 else None
        for seat_model in (models or ("network",) * 4)[1:]:
            self.stats.opponent_seats[seat_model] = self.stats.opponent_seats.get(seat_model, 0) + 1
        values = self._values(position, np.array(candidates, dtype=np.int64), models)
        chosen, gain, error = self._decide(values, candidates.index(blueprint))
        move = candidates[chosen]
        if move != blueprint:
            self.stats.departures += 1
            self.stats.gains.append(gain)
        self.last = {"candidates": candidates, "means": values.mean(axis=0).tolist(), "deals": len(values),
                     "blueprint": blueprint, "chosen": move, "gain": gain, "error": error,
                     "probabilities": [probabilities[a] for a in candidates]}
        return int(move)

    def _values(self, position: PublicState, candidates: np.ndarray, models: Sequence[str] | None = None) -> np.ndarray:
        """Rounds of ``deals`` deals until the budget is spent (:func:`~big2_env.players.determinized.determinized_search`):
        the searcher's score ``(deals, candidates)`` (``models``: who moves for each seat in the rollouts,
        :meth:`NetworkRollouts.play`; ``None``: the network everywhere)."""
        started = time.perf_counter()
        valuer = RolloutValues(self.rollout, position.opener, _move_masks(position), candidates, models)
        tally = determinized_search(len(candidates), self._dealer(position), valuer, self.rollouts, self.seconds,
                                    batch=self.deals, started=started, clock=time.perf_counter)
        self.stats.rollouts += tally.rollouts
        return tally.table()

    def _dealer(self, position: PublicState) -> Dealer:
        """The decision's dealer: the starting hands, the hidden cards dealt uniformly (:meth:`UniformDealer.starting`)."""
        return UniformDealer.starting(position, self.rng)

    def _others_moves(self, position: PublicState, rng: np.random.Generator,
                      n: int) -> tuple[np.ndarray, np.ndarray, int, np.ndarray, np.ndarray] | None:
        """The other seats' moves so far, seen from ``n`` deals of the hidden cards drawn with ``rng``
        (``None``, and nothing drawn, before any of them has moved): the deals ``(n, 4)``; the flat
        rows ``deal * R + move`` where the mover had a choice (R: the others' moves so far; forced
        moves say nothing); R; each such row's count of legal actions; and the network's
        log-probability of the move made there. What the opponent models weigh."""
        record = _others_moves(position)
        if not record:
            return None
        hands = UniformDealer.starting(position, rng).deal(n)
        views, masks, actions = self.rollout.games.history_views(hands, position.opener, _move_masks(position), record)
        b, r = actions.shape
        flat = masks.reshape(b * r, -1)
        legal = flat.sum(axis=1)
        chosen = np.flatnonzero(legal > 1)
        logp = np.zeros(0)
        if len(chosen):
            logp = self.rollout.log_probabilities(views.reshape(b * r, -1)[chosen], flat[chosen],
                                                  actions.reshape(-1)[chosen])
        return hands, chosen, r, legal[chosen], logp

    def seat_models(self, position: PublicState) -> tuple[str, ...]:
        """Who the rollouts make move for each seat (relative: 0, the searcher, is always the network): per
        other seat, the model of ``opponent_models`` that best explains its moves so far
        (:meth:`model_log_likelihoods`): a seat keeps the network unless Smart or Greedy does better by
        more than ``opponent_switch`` nats, and goes to Random only when Random does better than each
        of those by as much."""
        score = self.model_log_likelihoods(position)
        return ("network",) * 4 if score is None else self.opponents.choose(self.opponent_models, score)

    def model_log_likelihoods(self, position: PublicState) -> np.ndarray | None:
        """``(4, len(opponent_models))``: how well each model of ``opponent_models`` explains each seat's moves so
        far, the sum over its moves of the log of the move's probability under the model averaged over
        :data:`OPPONENT_DEALS` uniform deals of the hidden cards (drawn with a generator of their own). Smart
        and Greedy play their move with probability 0.95, any other legal move sharing the rest
        (:data:`~big2_env.players.beliefs.DEFAULT_TREMBLE`); Random is uniform; a forced move has probability
        1. Seat 0's row and an unmoved seat's are 0; ``None`` before any other seat has moved. (Averaging
        each move, not the whole record, keeps a deterministic rule from needing one deal that explains
        every move: with a few deals that joint average is mostly noise.)"""
        seen = self._others_moves(position, self.models_rng, OPPONENT_DEALS)
        if seen is None:
            return None
        hands, chosen, r, _, logp = seen
        record = np.array(_others_moves(position), dtype=np.int64)  # the history's rows of the others' moves
        movers = np.array([seat for seat, _ in position.history], dtype=np.int64)[record]
        per_move = np.zeros((len(hands), r, len(self.opponent_models)))  # log-probability by deal, move, model
        per_move[chosen // r, chosen % r, 0] = logp
        heuristics = [m for m in self.opponent_models if m != "network"]
        rows = course_array(game_course(position.history, self.rules), self.rules)
        for seat in np.unique(movers).tolist():
            terms = seat_log_likelihood_table(rows, seat, hands[:, seat].tolist(), self.rules, heuristics,
                                              DEFAULT_TREMBLE, by_move=True)
            per_move[:, movers == seat, 1:] = terms[:, record[movers == seat]]
        by_move = logsumexp(per_move, axis=0) - math.log(len(hands))  # each move's probability averaged over deals
        score = np.zeros((4, len(self.opponent_models)))
        np.add.at(score, movers, by_move)
        return score

    def _decide(self, values: np.ndarray, blueprint: int) -> tuple[int, float, float]:
        """The candidate to play (:func:`~big2_env.players.determinized.leave_blueprint` at ``margin``)."""
        return leave_blueprint(values, blueprint, self.margin)

    def __repr__(self) -> str:
        check = ""
        if len(self.opponent_models) > 1:
            check += f", opponent_models={self.opponent_models!r}"
            if self.opponent_switch != OPPONENT_SWITCH_NATS:
                check += f", opponent_switch={self.opponent_switch}"
        return f"NetworkSearch(budget={self.budget!r}, top_k={self.top_k}, margin={self.margin}, deals={self.deals}{check})"


def _generators(seed: int | None) -> tuple[np.random.Generator, np.random.Generator]:
    """From one seed: the search's generator (deals, sampled rollouts) and the opponent models', apart from
    the search's (its draws never move the search's)."""
    return np.random.default_rng(seed), np.random.default_rng(seed if seed is None else [seed, 1])


def _move_masks(state: PublicState) -> list[int]:
    """The card bitmask of each move of ``state``'s history (0 for a pass)."""
    return [sum(1 << c for c in play) for _, play in state.history]


def _others_moves(state: PublicState) -> list[int]:
    """The indices in ``state``'s history of the other seats' moves (not the searcher's)."""
    return [t for t, (seat, _) in enumerate(state.history) if seat != 0]
