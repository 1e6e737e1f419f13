"""One decision of one player, as every consumer reads it: :class:`Decision`, its lazily built
candidate-view dict :class:`PolicyObservation`, and :func:`observation_dict` for hand-built positions.

A :class:`Decision` is built once per move from the engine's :class:`~big2_env.engine.game.Game`
and shared by the environments, the evaluation loop, the search and the trainers: the 277
numbers (:mod:`big2_env.observations.paper`), the legal actions, and, on demand, the candidate
features, the 315-number extended view and the public history
(:mod:`big2_env.observations.extended`).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from .extended import HistoryRows, extended_features, extended_observation, history_array
from ..engine.cards import format_play
from ..engine.combos import Entry
from ..engine.legal import PASS_ENTRY
from ..engine.native import entries_of
from .paper import FEATURE_SIZE, NUM_ACTIONS, OBS_HAND, PAD_CARD, PASS_ACTION, entry_features, observation

__all__ = ["Decision", "PolicyObservation", "observation_dict", "seat_numbers", "seat_observation"]

_MAX_LISTED = 20


class Decision:
    """Everything an agent sees at one decision: built once, shared by env and trainers.

    The 277 numbers and the legal plays with their action indices come from one call into the
    compiled core (:func:`big2_env.observations.compiled.decision_arrays`); the rest is built
    when first read.

    Attributes:
        player: the seat on move.
        observation: (277,) float32 information state.
        actions: legal action indices, ascending (int64 array).
        plays: the legal plays, in the same order as ``actions`` (built lazily).
        features: (n, 80) float32 candidate features, same order (built lazily).
        extended_observation: (315,) float32, the 277 numbers plus public history
            (:mod:`big2_env.observations.extended`; built lazily).
    """

    __slots__ = (
        "player", "observation", "actions", "_action_list", "_masks", "_passable", "_plays", "_entry_list", "_features",
        "_history", "_turn", "_rules", "_extended",
    )

    def __init__(self, game) -> None:
        global _decision_arrays
        if _decision_arrays is None:
            from .compiled import decision_arrays

            _decision_arrays = decision_arrays
        self.player = game.current_player
        self.observation, self._masks, self._action_list = _decision_arrays(game)
        self._passable = game.trick is not None
        if self._passable:
            self._action_list.append(PASS_ACTION)
        self.actions = np.array(self._action_list, dtype=np.int64)
        self._plays: list[tuple[int, ...]] | None = None
        self._entry_list: list[Entry] | None = None
        self._features: np.ndarray | None = None
        self._history, self._turn, self._rules = game.history, len(game.history), game.rules  # history only grows
        self._extended: np.ndarray | None = None

    @property
    def _entries(self) -> list[Entry]:
        """The engine entries of the legal plays, in the order of ``actions`` (pass last when legal)."""
        if self._entry_list is None:
            self._entry_list = entries_of(self._masks, self._rules)
            if self._passable:
                self._entry_list.append(PASS_ENTRY)
        return self._entry_list

    @property
    def plays(self) -> list[tuple[int, ...]]:
        if self._plays is None:
            self._plays = [e[1] for e in self._entries]
        return self._plays

    @property
    def features(self) -> np.ndarray:
        if self._features is None:
            self._features = entry_features(self._entries)
        return self._features

    @property
    def extended_observation(self) -> np.ndarray:
        if self._extended is None:
            hand_size = int(np.count_nonzero(self.observation[OBS_HAND] != PAD_CARD))
            extra = extended_features(self._history[: self._turn], self.player, hand_size, self._rules)
            self._extended = np.concatenate((self.observation, extra))
        return self._extended

    def public_history(self) -> np.ndarray:
        """Every move before this decision, in seats relative to the player on move
        (:func:`big2_env.observations.extended.history_array`)."""
        return history_array(self._history[: self._turn], self.player)

    def action_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[self.actions] = 1
        return mask

    def play_for_action(self, action: int) -> tuple[int, ...] | None:
        """The play of a legal action index, or ``None`` if the action is not legal now."""
        entry = self.entry_for_action(action)
        return None if entry is None else entry[1]

    def entry_for_action(self, action: int) -> Entry | None:
        """The engine entry of a legal action index, or ``None`` if the action is not legal now."""
        listed = self._action_list
        i = bisect_left(listed, action)
        if i == len(listed) or listed[i] != action:
            return None
        if self._entry_list is not None:
            return self._entry_list[i]
        return PASS_ENTRY if action == PASS_ACTION else entries_of([self._masks[i]], self._rules)[0]

    def require_entry(self, action: int, who: str) -> Entry:
        """The entry of ``action``; ``ValueError`` naming ``who``, the action and the legal ones if illegal."""
        entry = self.entry_for_action(int(action))
        if entry is None:
            raise ValueError(f"{who} chose illegal action {action!r}; legal actions: {self.actions.tolist()}")
        return entry

    def illegal_message(self, action: Any, who: str) -> str:
        """What the envs say of an illegal ``action`` by ``who``: the legal actions with their cards."""
        legal = [f"{a} ({format_play(p)})" for a, p in zip(self._action_list, self.plays)]
        listed = ", ".join(legal[:_MAX_LISTED]) + (f", ... ({len(legal)} in all)" if len(legal) > _MAX_LISTED else "")
        return f"illegal action {action!r} for {who}; legal actions: {listed}"


_decision_arrays: Any = None


class PolicyObservation(Mapping):
    """The candidate-view observation dict of one :class:`Decision`, built lazily.

    Keys, as in the PettingZoo env with ``candidate_view=True``: ``"observation"``,
    ``"action_mask"``, ``"candidate_actions"``, ``"candidate_features"`` and ``"history"`` (the
    public move history, :func:`big2_env.observations.extended.history_array`: every move so far,
    in seats relative to the player on move). The mask, the features and the history are computed
    on first access (most heuristics never read them). Everything is derived from the decision,
    never from the live game, so the mapping stays valid after the game moves on. With
    ``extended=True``, ``"observation"`` is the 315-number extended observation
    (:mod:`big2_env.observations.extended`), as in the envs with ``observation="extended"``. A policy
    whose ``observation_kind`` is ``"extended"`` (the search agent) gets that view (:func:`policy_view`).
    """

    __slots__ = ("_mask", "decision", "extended")
    KEYS = ("observation", "action_mask", "candidate_actions", "candidate_features", "history")

    def __init__(self, decision: Decision, extended: bool = False) -> None:
        self.decision = decision
        self.extended = extended
        self._mask: np.ndarray | None = None

    def __getitem__(self, key: str) -> np.ndarray:
        if key == "observation":
            return self.decision.extended_observation if self.extended else self.decision.observation
        if key == "candidate_actions":
            return self.decision.actions
        if key == "action_mask":
            if self._mask is None:
                self._mask = self.decision.action_mask()
            return self._mask
        if key == "candidate_features":
            return self.decision.features
        if key == "history":
            return self.decision.public_history()
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        return key in self.KEYS

    def __iter__(self) -> Iterator[str]:
        return iter(self.KEYS)

    def __len__(self) -> int:
        return len(self.KEYS)

    def __repr__(self) -> str:
        return f"PolicyObservation(player={self.decision.player}, legal_actions={self.decision.actions.tolist()})"


def observation_dict(game, candidate_view: bool = True, history: bool = True) -> dict[str, np.ndarray]:
    """The observation dict of the player on move in ``game`` (a :class:`big2_env.engine.game.Game`).

    The same dict the PettingZoo env returns to the agent on move: ``"observation"``
    and ``"action_mask"``, plus ``"candidate_actions"`` and ``"candidate_features"``
    when ``candidate_view`` is true, and the public move history ``"history"`` when ``history`` is
    (:func:`big2_env.observations.extended.history_array`). Handy for hand-built positions
    (:meth:`big2_env.engine.game.Game.from_hands`).

    >>> from big2_env import Game, action_cards
    >>> game = Game.from_hands(["3D 4D", "5D", "6D", "7D"], current_player=0)
    >>> obs = observation_dict(game)
    >>> sorted(obs), [action_cards(int(a), (0, 4)) for a in obs["candidate_actions"]]
    (['action_mask', 'candidate_actions', 'candidate_features', 'history', 'observation'], [(0,), (4,)])
    """
    if game.is_over:
        raise ValueError("the game is over: nobody is on move")
    decision = Decision(game)
    return seat_observation(game, decision.player, decision, False, candidate_view, HistoryRows() if history else None)


def seat_numbers(game, seat: int, decision: Decision | None, extended: bool) -> np.ndarray:
    """The numbers ``seat`` sees: ``decision``'s when it is the seat's (the seat on move), else the seat's
    information state (:func:`~big2_env.observations.paper.observation`, or the extended view's)."""
    if decision is not None:
        return decision.extended_observation if extended else decision.observation
    return extended_observation(game, seat) if extended else observation(game, seat)


def seat_observation(game, seat: int, decision: Decision | None, extended: bool, candidate_view: bool,
                     history: HistoryRows | None, key: str = "observation") -> dict[str, np.ndarray]:
    """The ``Dict`` observation the envs give ``seat``: from ``decision`` when it is the seat's, else
    (a seat not on move, or the game over) an all-zero mask and no candidates. ``history``: the rows
    that hold ``"history"`` (``None``: no history); ``key``: the name of the numbers."""
    obs = {key: seat_numbers(game, seat, decision, extended)}
    if decision is not None:
        obs["action_mask"] = decision.action_mask()
        if candidate_view:
            obs["candidate_actions"], obs["candidate_features"] = decision.actions, decision.features
    else:
        obs["action_mask"] = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if candidate_view:
            obs["candidate_actions"] = np.zeros(0, dtype=np.int64)
            obs["candidate_features"] = np.zeros((0, FEATURE_SIZE), dtype=np.float32)
    if history is not None:
        obs["history"] = history.view(game.history, seat)
    return obs
