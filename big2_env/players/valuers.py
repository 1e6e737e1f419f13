"""Valuing a determinised position: rollout policies, and the valuers the searches score candidates with.

A rollout policy (:class:`RolloutPolicy`) chooses moves inside rollouts on the engine directly:
:class:`SmartRollout` makes exactly :class:`~big2_env.players.SmartPolicy`'s moves (both call
:func:`~big2_env.players.smart.smart_choice`) without building observations, and memoises them
per position; :class:`FastRollout` is the fast learned model; :class:`PolicyRollout` any
:class:`~big2_env.players.Policy` (slower: it builds the observation of every move; rollout
policies may choose for many games at once, ``choose_batch``, which a network uses to batch its
forward pass); :class:`NoisyOpponents` makes the opponents' moves uniformly random now and then.

A valuer (:class:`Valuer`) is made for one decision: :meth:`Valuer.values` says what each deal is
worth to the searcher after each candidate still in contention, ``(deals, candidates)``. The
determinised search (:mod:`big2_env.players.determinized`) calls it on every batch of deals:

* :class:`EngineRollouts`: each game played to its end on the Python engine (:func:`play_out`);
* :class:`CoreRollouts`: the same in the compiled core (Smart or the fast model, nested
  rollouts, noisy opponents: :func:`~big2_env.players.kernels.rollouts.play_outs`);
* the agents package's network rollouts (``agents.net_search``).

:func:`finish` plays one game to its end with a rollout policy (ISMCTS's rollouts).
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any, Callable, Protocol, Sequence

import numpy as np

from ..engine.combos import Entry
from ..engine.game import Game
from ..engine.rules import Rules
from ..observations.decision import Decision, PolicyObservation
from .base import Policy, policy_actions
from .dealers import core_rules
from .fast import FastModel, as_model, entry_features, softmax
from .greedy import GreedyPolicy
from .public import PublicState, game_row, state_game
from .random import RandomPolicy
from .smart import SmartPolicy, smart_choice

__all__ = [
    "ROLLOUT_HEURISTICS",
    "CoreRollouts",
    "EngineRollouts",
    "FastRollout",
    "NoisyOpponents",
    "PolicyRollout",
    "RolloutPolicy",
    "SmartRollout",
    "Valuer",
    "as_rollout",
    "finish",
    "play_out",
]


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
            index = self._memo[key] = smart_choice(game.hand(player), game.trick, [e[1] for e in entries], game.rules)
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
    The search runs it in the compiled core (:func:`~big2_env.players.kernels.rollouts.play_outs`);
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
        """Per relative seat, how the core's play-outs move it (:data:`~big2_env.players.kernels.fast.SEAT_SMART`, ...)."""
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
        left = [game.cards_left((player + r) % 4) for r in range(4)]
        features = entry_features(game._hand_masks[player], entries, game.trick, left, game.passes, game.rules)
        scores = features @ self.model.weights
        if self.sample:
            return int(self.rng.choice(len(entries), p=softmax(scores)))
        return int(np.argmax(scores))

    def __repr__(self) -> str:
        return f"FastRollout(rules={self.rules!r}, sample={self.sample}, own={self.own})"


class NoisyOpponents(RolloutPolicy):
    """``base`` in every seat, except that an opponent seat ``s`` (relative to the searcher, seat 0)
    plays a uniformly random legal move with probability ``seat_noise[s]``: an opponent model
    that hedges against opponents who are not the rollout policy (e.g. Random players). The search
    sets ``seat_noise`` per decision from what the move history says about each opponent
    (``infer_opponents``); it starts at 0 for every seat."""

    def __init__(self, base: RolloutPolicy, seed: int | None = None) -> None:
        self.base = base
        self.seat_noise = [0.0] * 4
        self.name = f"{base.name}+noise"
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


def as_rollout(rollout: Any, rules: Rules) -> RolloutPolicy:
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


# ----------------------------------------------------------------------------- valuers
class Valuer(Protocol):
    """What each deal (rows of ``deals``, ``(D, 4)`` hands) is worth to the searcher after each
    candidate of ``alive`` (indices of the decision's candidates): ``(D, len(alive))``."""

    def values(self, deals: np.ndarray, alive: Sequence[int]) -> np.ndarray: ...


class EngineRollouts:
    """Rollouts on the Python engine: every deal of ``state`` (the hands held now) after every
    alive candidate (``candidates``, the engine's entries) played to its end by ``rollout`` in
    every seat, all games stepped together; each worth seat 0's final score."""

    def __init__(self, state: PublicState, candidates: Sequence[Entry], rollout: RolloutPolicy, rules: Rules) -> None:
        self.state, self.candidates, self.rollout, self.rules = state, candidates, rollout, rules

    def values(self, deals: np.ndarray, alive: Sequence[int]) -> np.ndarray:
        games: list[Game] = []
        for hands in np.asarray(deals).tolist():
            base = state_game(self.state, hands, self.rules)
            for i in alive:
                game = base.copy()
                game._apply(self.candidates[i])
                games.append(game)
        play_out(games, self.rollout)
        return np.array([g.scores()[0] for g in games], dtype=np.float64).reshape(len(deals), len(alive))


class CoreRollouts:
    """Rollouts in the compiled core (:func:`~big2_env.players.kernels.rollouts.play_outs`): from the
    position ``root`` (a game whose table is the decision's), every deal after every alive
    candidate played to its end, each seat moving by ``seat_models`` (Smart, or the fast model
    with ``weights``), an opponent seat ``s`` at random with probability ``seat_noise[s]``
    (drawn with ``rng``), the searcher's later moves searched ``inner`` wide.
    """

    def __init__(self, root: Game, candidates: Sequence[Entry], seat_models: np.ndarray, weights: np.ndarray,
                 seat_noise: Sequence[float], rng: np.random.Generator, inner: int = 0) -> None:
        from ..engine.core.games import TABLE_AT  # numba loads on first use, not with big2_env

        self.root = game_row(root)[TABLE_AT:]  # the deal's game: its table is the state's, seat 0 on move
        self.rules = core_rules(root.rules)
        self.candidates = np.array([(e[2], len(e[1]), e[0], e[3]) for e in candidates], dtype=np.int64)
        self.seat_models, self.weights = seat_models, weights
        self.seat_noise = np.array(seat_noise, dtype=np.float64)
        self.rng, self.inner = rng, int(inner)

    def values(self, deals: np.ndarray, alive: Sequence[int]) -> np.ndarray:
        from .kernels.rollouts import play_outs

        deal_rows, alive_rows = np.asarray(deals, dtype=np.int64), np.array(alive, dtype=np.int64)
        results = np.empty((len(deal_rows), len(alive_rows)))
        play_outs(deal_rows, self.root, self.candidates, alive_rows, self.seat_noise, self.rng, self.rules,
                  results, self.seat_models, self.weights, self.inner)
        return results


def finish(game: Game, rollout: RolloutPolicy) -> list[int]:
    """Play ``game`` to its end with ``rollout`` in every seat; the final scores. A Smart rollout is
    played by the core (:func:`~big2_env.players.kernels.rollouts.smart_finish`), any other on the Python
    engine (:func:`play_out`)."""
    if game.winner is not None:
        return game.scores()
    if type(rollout) is not SmartRollout:
        play_out([game], rollout)
        return game.scores()
    scores = np.empty(4, dtype=np.int64)
    _kernels().smart_finish(game_row(game), core_rules(game.rules), scores)
    return scores.tolist()


@lru_cache(maxsize=1)
def _kernels() -> Any:
    """:mod:`big2_env.players.kernels.rollouts`, imported on first use (numba loads then, not with big2_env)."""
    from .kernels import rollouts

    return rollouts
