"""Opponent curricula for self-play training (paper section 5.3, appendix C).

A curriculum decides, for every game of a batch, who plays each seat and which
seats' decisions train the policy (a list of four seats per game, see
:mod:`agents.collect.rollout`). Seat assignment is drawn from the curriculum's own RNG,
independently of the deal; the holder of 3D still starts every game.

* ``"self"`` (:class:`SelfPlay`): the current policy in all four seats; every
  seat's decisions train (the paper's best curriculum).
* ``"checkpoint"`` (:class:`CheckpointPlay`): one learner seat per game, uniform
  over the four; **each** of the other three seats independently plays the
  current policy with probability ``current_prob`` (default 0.5) and otherwise a
  snapshot drawn uniformly from the pool. A snapshot of the current weights is
  added after every ``snapshot_every`` batches (default 50); the pool keeps the
  newest ``pool_size`` (default 20, the paper's cap), dropping the oldest. Before
  the first snapshot every opponent seat plays the current policy. Only the
  learner seat trains.
* ``"osfp"`` (:class:`OSFPPlay`; optimistic smooth fictitious play, seed ``002``): the
  learner seat uniform per game; **each** other seat independently plays a policy drawn
  from the fictitious-play mixture of every policy so far, the snapshots (one every
  ``snapshot_every`` batches, the newest ``pool_size`` kept) weighing 1 each and the
  current policy, the latest iterate, **2**: the optimistic term of ``002``'s update
  (``F~_k + F_k``: the latest payoff counted twice). Seats that play the current policy
  train (each is a smooth best response, by PPO's entropy bonus, to the mixture it
  faces); snapshot seats do not. See the README for what ``002``'s guarantee needs and
  Big 2 lacks.
* ``"fixed:smart"``, ``"fixed:greedy"``, ``"fixed:random"`` (:class:`FixedOpponent`):
  the heuristic in three seats, the learner seat uniform per game; only the learner
  trains.
* ``"mixed"`` (:class:`MixedPlay`, not in the paper): each game is current-policy
  self-play (all four seats train) with probability ``self_prob`` (default 0.5),
  otherwise a fixed-opponent game against three copies of Smart, Greedy or Random
  (uniform; the learner seat uniform; only the learner trains). It keeps
  self-play's broad coverage of the game while the learner also meets the
  evaluation's opponent classes.

Every curriculum has ``state_dict()`` / ``load_state_dict()`` (plain Python values
and tensors) so that a resumed run continues exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from big2_env.engine.game import NUM_PLAYERS
from big2_env.players.registry import POLICIES, make_policy
from big2_env.engine.rules import Rules

from .config import CURRICULA
from .network import Big2Net
from .collect.rollout import ModelSeat, PolicySeat, Seat

CURRENT = "current"
LEARNER = ModelSeat(CURRENT, train=True)
CURRENT_OPPONENT = ModelSeat(CURRENT, train=False)


def _rng_state(rng: np.random.Generator) -> dict:
    return dict(rng.bit_generator.state)


def _set_rng_state(rng: np.random.Generator, state: dict) -> None:
    rng.bit_generator.state = state


class Curriculum:
    """Base class. ``plan(n_games)`` gives four seats per game; ``models(current)`` the
    networks the plans name; ``after_batch`` is called once per finished batch."""

    name = "curriculum"

    def __init__(self, seed: int | np.random.SeedSequence) -> None:
        self.rng = np.random.default_rng(seed)

    def plan(self, n_games: int) -> list[list[Seat]]:
        raise NotImplementedError

    def models(self, current: Big2Net) -> dict[Any, Big2Net]:
        return {CURRENT: current}

    def after_batch(self, batch: int, current: Big2Net) -> None:
        """Called with the 1-based number of the batch just finished (after the update)."""

    def state_dict(self) -> dict[str, Any]:
        return {"name": self.name, "rng": _rng_state(self.rng)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state.get("name") != self.name:
            raise ValueError(f"curriculum state is for {state.get('name')!r}, not {self.name!r}")
        _set_rng_state(self.rng, state["rng"])

    def describe(self) -> str:
        return self.name


class SelfPlay(Curriculum):
    """The current policy in all four seats; all four seats train."""

    name = "self"

    def plan(self, n_games: int) -> list[list[Seat]]:
        return [[LEARNER] * NUM_PLAYERS for _ in range(n_games)]

    def describe(self) -> str:
        return "self: current policy in all four seats, every seat trains"


class CheckpointPlay(Curriculum):
    """Learner seat uniform per game; each other seat: current policy with probability
    ``current_prob``, else a uniform snapshot from the pool (see the module docstring)."""

    name = "checkpoint"

    def __init__(
        self,
        seed: int | np.random.SeedSequence,
        snapshot_every: int = 50,
        pool_size: int = 20,
        current_prob: float = 0.5,
    ) -> None:
        super().__init__(seed)
        if snapshot_every <= 0 or pool_size <= 0 or not 0.0 <= current_prob <= 1.0:
            raise ValueError("snapshot_every and pool_size must be positive and current_prob in [0, 1]")
        self.snapshot_every = int(snapshot_every)
        self.pool_size = int(pool_size)
        self.current_prob = float(current_prob)
        self.pool: list[tuple[int, dict[str, torch.Tensor]]] = []  # (batch taken, weights), oldest first
        self._nets: dict[int, Big2Net] = {}  # snapshot batch -> network (built lazily)

    def plan(self, n_games: int) -> list[list[Seat]]:
        plans = []
        for _ in range(n_games):
            learner = int(self.rng.integers(NUM_PLAYERS))
            seats: list[Seat] = []
            for seat in range(NUM_PLAYERS):
                if seat == learner:
                    seats.append(LEARNER)
                elif not self.pool or self.rng.random() < self.current_prob:
                    seats.append(CURRENT_OPPONENT)
                else:
                    taken = self.pool[int(self.rng.integers(len(self.pool)))][0]
                    seats.append(ModelSeat(("snapshot", taken), train=False))
            plans.append(seats)
        return plans

    def models(self, current: Big2Net) -> dict[Any, Big2Net]:
        nets: dict[Any, Big2Net] = {CURRENT: current}
        for taken, weights in self.pool:
            net = self._nets.get(taken)
            if net is None:
                net = self._nets[taken] = Big2Net(current.config)
                net.load_state_dict(weights)
                net.eval()
            nets[("snapshot", taken)] = net
        return nets

    def after_batch(self, batch: int, current: Big2Net) -> None:
        if batch % self.snapshot_every == 0:
            self.pool.append((batch, {k: v.detach().clone() for k, v in current.state_dict().items()}))
            while len(self.pool) > self.pool_size:
                dropped, _ = self.pool.pop(0)
                self._nets.pop(dropped, None)

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        state["pool"] = [{"batch": taken, "weights": weights} for taken, weights in self.pool]
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        self.pool = [(int(item["batch"]), item["weights"]) for item in state["pool"]]
        self._nets = {}

    def describe(self) -> str:
        return (
            f"checkpoint: learner seat uniform per game; each other seat current policy with p={self.current_prob}, "
            f"else uniform over up to {self.pool_size} snapshots (one every {self.snapshot_every} batches); "
            "only the learner seat trains"
        )


class OSFPPlay(CheckpointPlay):
    """Optimistic smooth fictitious play (seed ``002``): every non-learner seat draws from the
    mixture of the snapshots (weight 1 each) and the current policy (weight 2); current seats
    train (see the module docstring)."""

    name = "osfp"

    def __init__(self, seed: int | np.random.SeedSequence, snapshot_every: int = 50, pool_size: int = 20) -> None:
        super().__init__(seed, snapshot_every=snapshot_every, pool_size=pool_size)

    def weights(self) -> np.ndarray:
        """The mixture's probabilities: the snapshots oldest first, then the current policy.

        >>> play = OSFPPlay(0, snapshot_every=1)
        >>> play.weights().tolist()  # no snapshot yet: the current policy alone
        [1.0]
        >>> play.pool = [(1, {}), (2, {})]
        >>> play.weights().round(2).tolist()  # 1 : 1 : 2
        [0.25, 0.25, 0.5]
        """
        raw = np.ones(len(self.pool) + 1)
        raw[-1] = 2.0
        return raw / raw.sum()

    def plan(self, n_games: int) -> list[list[Seat]]:
        plans = []
        weights = self.weights()
        for _ in range(n_games):
            learner = int(self.rng.integers(NUM_PLAYERS))
            seats: list[Seat] = []
            for seat in range(NUM_PLAYERS):
                pick = len(self.pool) if seat == learner else int(self.rng.choice(len(weights), p=weights))
                seats.append(LEARNER if pick == len(self.pool) else ModelSeat(("snapshot", self.pool[pick][0]), train=False))
            plans.append(seats)
        return plans

    def describe(self) -> str:
        return (
            f"osfp: learner seat uniform per game; each other seat drawn from up to {self.pool_size} snapshots "
            f"(one every {self.snapshot_every} batches, weight 1 each) and the current policy (weight 2); "
            "current-policy seats train"
        )


class FixedOpponent(Curriculum):
    """A heuristic in three seats, the learner seat uniform per game; only the learner trains."""

    def __init__(self, seed: int | np.random.SeedSequence, opponent: str, rules: Rules) -> None:
        super().__init__(seed)
        if opponent not in POLICIES:
            raise ValueError(f"unknown fixed opponent {opponent!r}; allowed: {', '.join(sorted(POLICIES))}")
        self.opponent = opponent
        self.name = f"fixed:{opponent}"
        policy_seed = int(self.rng.integers(2**63))
        self.policy = make_policy(opponent, seed=policy_seed, rules=rules)
        self.seat = PolicySeat(self.policy)

    def plan(self, n_games: int) -> list[list[Seat]]:
        plans = []
        for _ in range(n_games):
            learner = int(self.rng.integers(NUM_PLAYERS))
            plans.append([LEARNER if seat == learner else self.seat for seat in range(NUM_PLAYERS)])
        return plans

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        policy_rng = getattr(self.policy, "rng", None)
        state["policy_rng"] = _rng_state(policy_rng) if policy_rng is not None else None
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        if state.get("policy_rng") is not None:
            _set_rng_state(getattr(self.policy, "rng"), state["policy_rng"])

    def describe(self) -> str:
        return f"{self.name}: {self.opponent} in three seats, learner seat uniform per game, only the learner trains"


class MixedPlay(Curriculum):
    """Self-play with probability ``self_prob``, else a heuristic opponent class (see the module docstring)."""

    name = "mixed"
    OPPONENTS = ("smart", "greedy", "random")

    def __init__(self, seed: int | np.random.SeedSequence, rules: Rules, self_prob: float = 0.5) -> None:
        super().__init__(seed)
        if not 0.0 <= self_prob <= 1.0:
            raise ValueError(f"self_prob must be in [0, 1]; got {self_prob!r}")
        self.self_prob = float(self_prob)
        self.policies = {name: make_policy(name, seed=int(self.rng.integers(2**63)), rules=rules) for name in self.OPPONENTS}
        self.seats = {name: PolicySeat(policy) for name, policy in self.policies.items()}

    def plan(self, n_games: int) -> list[list[Seat]]:
        plans: list[list[Seat]] = []
        for _ in range(n_games):
            if self.rng.random() < self.self_prob:
                plans.append([LEARNER] * NUM_PLAYERS)
                continue
            opponent = self.seats[self.OPPONENTS[int(self.rng.integers(len(self.OPPONENTS)))]]
            learner = int(self.rng.integers(NUM_PLAYERS))
            plans.append([LEARNER if seat == learner else opponent for seat in range(NUM_PLAYERS)])
        return plans

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        rngs = {name: getattr(policy, "rng", None) for name, policy in self.policies.items()}
        state["policy_rngs"] = {name: _rng_state(rng) for name, rng in rngs.items() if rng is not None}
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        for name, rng_state in state.get("policy_rngs", {}).items():
            _set_rng_state(getattr(self.policies[name], "rng"), rng_state)

    def describe(self) -> str:
        return (
            f"mixed: self-play (every seat trains) with p={self.self_prob}, else Smart, Greedy or Random (uniform) "
            "in three seats with the learner seat uniform, only the learner trains"
        )


def make_curriculum(
    spec: str,
    seed: int | np.random.SeedSequence,
    rules: Rules | None = None,
    snapshot_every: int = 50,
    pool_size: int = 20,
    current_prob: float = 0.5,
    self_prob: float = 0.5,
) -> Curriculum:
    """Build a curriculum from its name (:data:`CURRICULA`)."""
    if spec == "self":
        return SelfPlay(seed)
    if spec == "checkpoint":
        return CheckpointPlay(seed, snapshot_every=snapshot_every, pool_size=pool_size, current_prob=current_prob)
    if spec == "osfp":
        return OSFPPlay(seed, snapshot_every=snapshot_every, pool_size=pool_size)
    if spec == "mixed":
        return MixedPlay(seed, rules or Rules(), self_prob=self_prob)
    if spec.startswith("fixed:"):
        return FixedOpponent(seed, spec.split(":", 1)[1], rules or Rules())
    raise ValueError(f"unknown curriculum {spec!r}; allowed: {', '.join(CURRICULA)}")
