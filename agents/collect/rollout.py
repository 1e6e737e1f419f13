"""Fast training rollouts: many games stepped together, one forward pass per model per step.

:func:`collect` drives the engine directly (:class:`big2_env.engine.game.Game` and
:class:`big2_env.observations.decision.Decision`, no environment loop in between). Every step,
each unfinished game makes one move: the decisions are grouped by who controls
the seat on move, every network group gets **one** batched forward pass (states
stacked, candidate features concatenated, see :func:`agents.policy.score_numpy`)
and every heuristic group one ``act_batch`` call with the same observation
mappings :func:`big2_env.evaluation.evaluate` uses.

Who plays a seat is a :class:`ModelSeat` (a network: the current policy under
training, or a saved snapshot; ``train=True`` marks the seats whose decisions are
recorded for the update) or a :class:`PolicySeat` (any
:class:`big2_env.players.Policy`, e.g. Smart). The observations and legal sets
recorded are exactly those of the PettingZoo env on the same deal
(``tests/agents/test_agents_rollout.py`` checks it decision by decision).

The result, a :class:`Rollout`, holds flat numpy arrays: one row per recorded
decision (in the order they were made), the candidate features of all recorded
decisions concatenated (``counts`` per decision), and the final scores.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Hashable, Mapping, Sequence, Union

import numpy as np

from big2_env.observations.decision import Decision
from big2_env.observations.decision import PolicyObservation
from big2_env.players.base import policy_actions
from big2_env.engine.game import NUM_PLAYERS, Game
from big2_env.players.base import Policy

from ..network import Big2Net
from ..policy import choose, score_numpy


@dataclass(frozen=True)
class ModelSeat:
    """A seat played by a network: ``key`` names it in the ``models`` mapping given to
    :func:`collect` (``"current"``: the policy being trained); ``train``: record its decisions."""

    key: Hashable = "current"
    train: bool = True


@dataclass(frozen=True, eq=False)
class PolicySeat:
    """A seat played by a (heuristic) policy object through ``act_batch``; never recorded."""

    policy: Policy

    @property
    def train(self) -> bool:
        return False


Seat = Union[ModelSeat, PolicySeat]
SeatPlan = Sequence[Seat]  # four seats, indexed by seat number


@dataclass
class Rollout:
    """Recorded decisions of a batch of games (see the module docstring).

    Per decision (N rows): ``obs`` (N, 277) float32 (N, 315 for a network reading the
    extended observation), ``counts`` (N,) candidates,
    ``offsets`` (N,) first row of its candidates in ``features``, ``choice`` (N,)
    chosen candidate (position in the ascending legal-action list), ``action``
    (N,) chosen action index (0..1694), ``logp`` (N,) log-softmax of the network's
    scores at the choice (PPO's behaviour log-probability; for a value learner,
    whose behaviour is epsilon-greedy, it is unused), ``value`` (N,) value estimate (0 without a value head), ``game`` (N,),
    ``seat`` (N,), ``turn`` (N,) (decisions made in that game before this one).
    ``features`` (M, 80) float32: the candidates of every decision, in order, and
    ``candidate_actions`` (M,) their action indices (ascending within a decision).
    Per game: ``scores`` (G, 4) final scores, ``turns`` (G,), ``winners`` (G,).
    ``decisions``: every decision made (recorded or not); ``model_decisions``:
    those made by networks.

    Optional, for PPO on the compiled vector env: ``cut`` (N,) bool, a seat's last decision in a game that goes on into the next
    batch (:func:`agents.collect.vector.SteppedCollector`): its value bootstraps the decisions
    before it, and it is learned in the next batch, not in this one; ``ended`` (G,) bool, the games
    that ended (only their ``scores``, ``turns`` and ``winners`` are set).
    """

    obs: np.ndarray
    features: np.ndarray
    candidate_actions: np.ndarray
    counts: np.ndarray
    offsets: np.ndarray
    choice: np.ndarray
    action: np.ndarray
    logp: np.ndarray
    value: np.ndarray
    game: np.ndarray
    seat: np.ndarray
    turn: np.ndarray
    scores: np.ndarray
    turns: np.ndarray
    winners: np.ndarray
    decisions: int = 0
    model_decisions: int = 0
    seat_plans: list = field(default_factory=list, repr=False)
    cut: np.ndarray | None = field(default=None, repr=False)
    ended: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.obs)

    def candidate_rows(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """For decisions ``index``: the rows of their candidates in ``features`` and the
        ``(owner, slot, K)`` arrays of :func:`agents.network.pack_candidates`."""
        return candidate_rows(self.counts, self.offsets, index)


def candidate_rows(counts: np.ndarray, offsets: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """For decisions ``index`` of a batch whose decision ``i`` has ``counts[i]`` candidates
    starting at row ``offsets[i]``: the rows of their candidates and the ``(owner, slot, K)``
    arrays of :func:`agents.network.pack_candidates`.

    >>> rows, owner, slot, k = candidate_rows(np.array([2, 1, 3]), np.array([0, 2, 3]), np.array([2, 0]))
    >>> rows.tolist(), owner.tolist(), slot.tolist(), k
    ([3, 4, 5, 0, 1], [0, 0, 0, 1, 1], [0, 1, 2, 0, 1], 3)
    """
    counts = counts[index]
    total = int(counts.sum())
    starts = np.cumsum(counts) - counts
    within = np.arange(total, dtype=np.int64) - np.repeat(starts, counts)
    rows = np.repeat(offsets[index], counts) + within
    owner = np.repeat(np.arange(len(index), dtype=np.int64), counts)
    return rows, owner, within, int(counts.max()) if len(counts) else 0


def concat_rollouts(parts: Sequence[Rollout]) -> Rollout:
    """One :class:`Rollout` of several, as if their games had been played as one batch: rows
    and games in the order given (game indices renumbered), candidate offsets rebuilt."""
    if not parts:
        raise ValueError("concat_rollouts needs at least one rollout")
    if len(parts) == 1:
        return parts[0]
    game_base = np.cumsum([0] + [len(p.scores) for p in parts[:-1]])
    counts = np.concatenate([p.counts for p in parts])
    return Rollout(
        obs=np.concatenate([p.obs for p in parts]),
        features=np.concatenate([p.features for p in parts]),
        candidate_actions=np.concatenate([p.candidate_actions for p in parts]),
        counts=counts,
        offsets=np.cumsum(counts) - counts,
        choice=np.concatenate([p.choice for p in parts]),
        action=np.concatenate([p.action for p in parts]),
        logp=np.concatenate([p.logp for p in parts]),
        value=np.concatenate([p.value for p in parts]),
        game=np.concatenate([p.game + base for p, base in zip(parts, game_base)]),
        seat=np.concatenate([p.seat for p in parts]),
        turn=np.concatenate([p.turn for p in parts]),
        scores=np.concatenate([p.scores for p in parts]),
        turns=np.concatenate([p.turns for p in parts]),
        winners=np.concatenate([p.winners for p in parts]),
        decisions=sum(p.decisions for p in parts),
        model_decisions=sum(p.model_decisions for p in parts),
        seat_plans=[plan for p in parts for plan in p.seat_plans],
        cut=_joined(parts, "cut"),
        ended=_joined(parts, "ended"),
    )


def _joined(parts: Sequence[Rollout], name: str) -> np.ndarray | None:
    """The optional field ``name`` of every part concatenated, or ``None`` when a part lacks it."""
    arrays = [getattr(p, name) for p in parts]
    return None if any(a is None for a in arrays) else np.concatenate(arrays)


def select_rows(rollout: Rollout, rows: np.ndarray) -> Rollout:
    """The decisions ``rows`` of ``rollout`` (in that order) with their candidates; the per-game
    arrays and game ids are kept as they are."""
    rows = np.asarray(rows, dtype=np.int64)
    candidate, _, _, _ = candidate_rows(rollout.counts, rollout.offsets, rows)
    counts = rollout.counts[rows]

    def pick(array: np.ndarray | None) -> np.ndarray | None:
        return None if array is None else array[rows]

    return Rollout(
        obs=rollout.obs[rows], features=rollout.features[candidate], candidate_actions=rollout.candidate_actions[candidate],
        counts=counts, offsets=np.cumsum(counts) - counts, choice=rollout.choice[rows], action=rollout.action[rows],
        logp=rollout.logp[rows], value=rollout.value[rows], game=rollout.game[rows], seat=rollout.seat[rows],
        turn=rollout.turn[rows], scores=rollout.scores, turns=rollout.turns, winners=rollout.winners,
        cut=pick(rollout.cut), ended=rollout.ended,
    )


class _Recorder:
    """Accumulates the recorded decisions of :func:`collect`, one block per forward pass."""

    def __init__(self, width: int = 277) -> None:
        self.width = width  # of an empty rollout's obs
        self.obs: list[np.ndarray] = []
        self.features: list[np.ndarray] = []
        self.candidates: list[np.ndarray] = []
        self.counts: list[np.ndarray] = []
        self.ints: list[np.ndarray] = []  # (k, 5): choice, action, game, seat, turn
        self.floats: list[np.ndarray] = []  # (k, 2): logp, value

    def add(self, obs, features, candidates, counts, choice, action, game, seat, turn, logp, value) -> None:
        self.obs.append(obs)
        self.features.append(features)
        self.candidates.append(candidates)
        self.counts.append(counts)
        self.ints.append(np.stack([choice, action, game, seat, turn], axis=1).astype(np.int64))
        self.floats.append(np.stack([logp, value], axis=1).astype(np.float32))

    def build(self, scores, turns, winners, decisions, model_decisions, plans) -> Rollout:
        if self.obs:
            obs = np.concatenate(self.obs)
            features = np.concatenate(self.features)
            candidates = np.concatenate(self.candidates).astype(np.int64)
            counts = np.concatenate(self.counts).astype(np.int64)
            ints = np.concatenate(self.ints)
            floats = np.concatenate(self.floats)
        else:
            obs = np.zeros((0, self.width), np.float32)
            features = np.zeros((0, 80), np.float32)
            candidates = np.zeros(0, np.int64)
            counts = np.zeros(0, np.int64)
            ints = np.zeros((0, 5), np.int64)
            floats = np.zeros((0, 2), np.float32)
        offsets = np.cumsum(counts) - counts
        return Rollout(
            obs=obs,
            features=features,
            candidate_actions=candidates,
            counts=counts,
            offsets=offsets,
            choice=ints[:, 0].copy(),
            action=ints[:, 1].copy(),
            game=ints[:, 2].copy(),
            seat=ints[:, 3].copy(),
            turn=ints[:, 4].copy(),
            logp=floats[:, 0].copy(),
            value=floats[:, 1].copy(),
            scores=scores,
            turns=turns,
            winners=winners,
            decisions=decisions,
            model_decisions=model_decisions,
            seat_plans=list(plans),
        )


def collect(
    games: Sequence[Game],
    plans: Sequence[SeatPlan],
    models: Mapping[Hashable, Big2Net],
    rng: np.random.Generator | None,
    skip_forced: bool = False,
    epsilon: float | None = None,
) -> Rollout:
    """Play ``games`` to the end, stepping them together; record the ``train`` seats.

    Args:
        games: fresh (or mid-game) engine games; they are played in place.
        plans: per game, four seats (:class:`ModelSeat` or :class:`PolicySeat`).
        models: the networks named by the plans' :class:`ModelSeat` keys.
        rng: draws the networks' sampled actions (in a fixed order); ``None``
            plays every network's argmax.
        skip_forced: a network seat with exactly one legal action (almost always a
            forced pass) plays it without a forward pass and the decision is not
            recorded: it is a move of the game, not a choice (probability 1, no
            policy gradient, no entropy).
        epsilon: ``None``: networks sample from the softmax of their scores (PPO);
            a number: they play epsilon-greedy over their scores, the value
            learners' behaviour policy (see :func:`agents.policy.choose`).

    Returns:
        A :class:`Rollout`.
    """
    if len(plans) != len(games):
        raise ValueError(f"{len(games)} games but {len(plans)} seat plans")
    for plan in plans:
        if len(plan) != NUM_PLAYERS:
            raise ValueError(f"a seat plan needs {NUM_PLAYERS} seats, got {len(plan)}")
        for seat in plan:
            if isinstance(seat, ModelSeat) and seat.key not in models:
                raise ValueError(f"no model {seat.key!r} for a ModelSeat; models: {list(models)}")
    n_games = len(games)
    scores = np.zeros((n_games, NUM_PLAYERS), dtype=np.int64)
    turns = np.zeros(n_games, dtype=np.int64)
    winners = np.full(n_games, -1, dtype=np.int64)
    widths = {getattr(m, "obs_size", 277) for m in models.values()}
    recorder = _Recorder(max(widths) if widths else 277)
    decisions = model_decisions = 0
    active = [g for g in range(n_games) if not games[g].is_over]
    for g in range(n_games):
        game = games[g]
        if game.is_over:
            scores[g], turns[g] = game.scores(), game.turn
            winners[g] = -1 if game.winner is None else game.winner
    while active:
        groups: dict[Hashable, list[tuple[int, Decision]]] = {}
        seat_of_group: dict[Hashable, Seat] = {}
        finished = False
        decisions += len(active)
        for g in active:
            game = games[g]
            seat = plans[g][game.current_player]
            if isinstance(seat, ModelSeat):
                if skip_forced:
                    legal = game.legal_entries()
                    if len(legal) == 1:  # a forced move: no choice to make or learn
                        model_decisions += 1
                        finished |= _apply(game, legal[0], g, scores, turns, winners)
                        continue
                key: Hashable = ("model", seat.key)
            else:
                key = ("policy", id(seat.policy))
            bucket = groups.get(key)
            if bucket is None:
                bucket = groups[key] = []
                seat_of_group[key] = seat
            bucket.append((g, Decision(game)))
        for key, items in groups.items():
            seat = seat_of_group[key]
            if isinstance(seat, ModelSeat):
                model_decisions += len(items)
                entries = _model_step(items, plans, models[seat.key], rng, epsilon, recorder, games)
            else:
                chosen = policy_actions(seat.policy, [PolicyObservation(d) for _, d in items])
                entries = []
                for (g, d), action in zip(items, chosen):
                    entry = d.entry_for_action(int(action))
                    if entry is None:
                        raise ValueError(f"{seat.policy!r} chose illegal action {action!r}; legal: {d.actions.tolist()}")
                    entries.append(entry)
            for (g, _), entry in zip(items, entries):
                finished |= _apply(games[g], entry, g, scores, turns, winners)
        if finished:
            active = [g for g in active if games[g].winner is None]
    return recorder.build(scores, turns, winners, decisions, model_decisions, plans)


def _apply(game: Game, entry, g: int, scores: np.ndarray, turns: np.ndarray, winners: np.ndarray) -> bool:
    """Make the move; on the game's end store its result and return True."""
    game._apply(entry)
    if game.winner is None:
        return False
    scores[g], turns[g], winners[g] = game.scores(), game.turn, game.winner
    return True


def _model_step(items, plans, model, rng, epsilon, recorder: _Recorder, games) -> list:
    """One forward pass for a group of decisions; records the ``train`` ones; returns the entries."""
    decisions = [d for _, d in items]
    extended = model.config.observation == "extended"
    obs = np.stack([d.extended_observation if extended else d.observation for d in decisions])
    features_list = [d.features for d in decisions]
    features = np.concatenate(features_list)
    counts = np.fromiter((len(f) for f in features_list), dtype=np.int64, count=len(decisions))
    logp, value = score_numpy(model, obs, features, counts)
    choice = choose(logp, counts, rng, epsilon)
    rows = np.arange(len(decisions))
    chosen_logp = logp[rows, choice]
    actions = np.fromiter((d.actions[c] for d, c in zip(decisions, choice.tolist())), dtype=np.int64, count=len(decisions))
    entries = [d.entry_for_action(int(a)) for d, a in zip(decisions, actions.tolist())]
    train = np.fromiter((plans[g][d.player].train for g, d in items), dtype=bool, count=len(items))
    if train.any():
        game_ids = np.fromiter((g for g, _ in items), dtype=np.int64, count=len(items))
        seats = np.fromiter((d.player for d in decisions), dtype=np.int64, count=len(items))
        turn = np.fromiter((games[g].turn for g, _ in items), dtype=np.int64, count=len(items))
        values = value if value is not None else np.zeros(len(decisions), np.float32)
        candidates = np.concatenate([d.actions for d in decisions])
        if train.all():
            recorder.add(obs, features, candidates, counts, choice, actions, game_ids, seats, turn, chosen_logp, values)
        else:
            owner = np.repeat(rows, counts)
            recorder.add(
                obs[train],
                features[train[owner]],
                candidates[train[owner]],
                counts[train],
                choice[train],
                actions[train],
                game_ids[train],
                seats[train],
                turn[train],
                chosen_logp[train],
                values[train],
            )
    return entries
