"""Many games started from given positions and played to their end in compiled code: the search's rollouts.

:class:`PositionGames` holds ``M`` games on the batch stepper (:mod:`big2_env.envs.batch`), as the
compiled vector env (:mod:`big2_env.envs.vector`) does, without its autoreset.
:meth:`PositionGames.start` deals each game the four hands it *started* with (a determinisation: the
hidden cards placed, plus the cards each seat has played since) and replays the public move
history, so the view's memory (the extended view's, and Charlesworth's, kept move by move as his
game does) is exactly what it was at that point of the game. :meth:`PositionGames.step` then plays
one action per unfinished game; a game that ends keeps its final scores and is stepped no more.
The caller chooses the actions, for example with one batched forward pass of a network over every
game on move (``agents.net_search``).

Every input is checked before compiled code sees it: the hands must partition the deck, the history
must be legal from them (it is replayed once on the Python engine), and each action must be legal in
its game (per the last ``action_mask``).

Example:
    >>> import numpy as np
    >>> from big2_env.engine.game import Game
    >>> game = Game(seed=3)
    >>> start = [sum(1 << c for c in hand) for hand in game.hands]
    >>> for _ in range(6):
    ...     game.play_index(0)
    >>> games = PositionGames(rules=game.rules, observation="paper")
    >>> obs = games.start(np.array([start, start]), first=game.history[0][0],
    ...                   moves=[sum(1 << c for c in play) for _, play in game.history])
    >>> int(obs["current_player"][0]) == game.current_player
    True
    >>> while games.active.any():
    ...     obs = games.step(np.where(games.active, obs["action_mask"].argmax(axis=1), 0))
    >>> games.scores.sum(axis=1).tolist()
    [0, 0]
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..checks import is_int
from ..engine.cards import NUM_CARDS
from ..engine.core import rules_array
from ..engine.game import Game
from ..engine.rules import Rules
from ..observations.compiled import NUM_ACTIONS
from .batch.candidates import candidate_arrays
from .batch.layout import new_state, records
from .batch.moves import TABLES
from .batch.stepper import (
    SELF_PLAY_VIEWS,
    advance_positions,
    check_action_array,
    check_settings,
    heuristic_actions,
    record_positions,
    start_positions,
    thread_chunks,
)
from .batch.views import VIEW_IDS, VIEW_SIZES, new_memory

__all__ = ["HEURISTICS", "MAX_GAMES", "PositionGames"]

MAX_GAMES = 1 << 20
"""The most games one :meth:`PositionGames.start` takes."""
HEURISTICS = ("greedy", "smart")
"""The heuristics :meth:`PositionGames.heuristic_actions` moves by in compiled code (their codes: 1, 2)."""
_FULL_DECK = (1 << NUM_CARDS) - 1


class PositionGames:
    """Games started from given positions and played to the end (see the module docstring).

    Args:
        rules: the rule set (a :class:`~big2_env.engine.rules.Rules`, preset name, dict or ``None``).
        observation: the view to write: ``"paper"`` (277 numbers), ``"extended"`` (315) or
            ``"charlesworth"`` (412).

    Attributes (after :meth:`start`): ``active`` bool ``(M,)``, the games still going; ``scores``
    int64 ``(M, 4)``, each ended game's final scores in seat order (zeros while it runs).
    """

    def __init__(self, rules: Rules | str | dict | None = None, observation: str = "paper") -> None:
        check_settings(1, observation, SELF_PLAY_VIEWS)
        self.rules = Rules.coerce(rules)
        self.observation = observation
        self._rules = rules_array(self.rules)
        self._view = VIEW_IDS[observation]
        self._state = new_state(0)
        self._memory = new_memory(observation, 0)
        self._observations = np.zeros((0, VIEW_SIZES[observation]), dtype=np.float32)
        self._masks = np.zeros((0, NUM_ACTIONS), dtype=np.bool_)
        self._players = np.zeros(0, dtype=np.int64)
        self.active = np.zeros(0, dtype=np.bool_)
        self.scores = np.zeros((0, 4), dtype=np.int64)

    def start(self, hands: Any, first: int, moves: Sequence[int] = ()) -> dict[str, np.ndarray]:
        """Start ``M`` games and return their movers' views.

        Args:
            hands: int ``(M, 4)``: each game's four *starting* hands as card bitmasks (bit ``c``: card
                ``c``), a partition of the 52 cards; they may differ between games only in where the
                cards nobody has played yet lie.
            first: the seat that made the first move (the holder of 3D under every opening rule).
            moves: the game's moves so far, in order, each the card mask played (0: a pass).

        Returns the views of the games' movers: ``"observation"`` float32 ``(M, n)``,
        ``"action_mask"`` bool ``(M, 1695)`` and ``"current_player"`` int64 ``(M,)``.

        Raises ``ValueError`` (nothing started) for hands that do not partition the deck, a seat
        that is not 0..3, or a history that is not a legal game from the hands.
        """
        array = np.asarray(hands)
        if array.ndim != 2 or array.shape[1] != 4 or array.dtype.kind not in "iu" or not 1 <= len(array) <= MAX_GAMES:
            raise ValueError(f"hands must be an int array of shape (M, 4) with 1 <= M <= {MAX_GAMES:,}; "
                             f"got shape {array.shape}, dtype {array.dtype}")
        hands64 = array.astype(np.int64)
        union = np.bitwise_or.reduce(hands64, axis=1)
        overlap = (hands64[:, 0] & hands64[:, 1]) | (hands64[:, 2] & hands64[:, 3]) | (
            (hands64[:, 0] | hands64[:, 1]) & (hands64[:, 2] | hands64[:, 3]))
        bad = np.flatnonzero((hands64 < 0).any(axis=1) | (union != _FULL_DECK) | (overlap != 0))
        if len(bad):
            raise ValueError(f"hands[{int(bad[0])}] does not deal each of the 52 cards to exactly one seat")
        if not is_int(first, 0, 3):
            raise ValueError(f"first must be a seat 0..3; got {first!r}")
        move_list = [int(m) for m in moves]
        if any(not 0 <= m <= _FULL_DECK for m in move_list):
            raise ValueError("moves must be card masks of the 52 cards (0: a pass)")
        played_by = self._check_history(hands64[0], int(first), move_list)
        for seat in range(4):
            missing = np.flatnonzero(hands64[:, seat] & played_by[seat] != played_by[seat])
            if len(missing):
                raise ValueError(f"hands[{int(missing[0])}] does not give seat {seat} the cards it has played")
        m = len(hands64)
        self._state = new_state(m)
        self._memory = new_memory(self.observation, m)
        self._observations = np.zeros((m, VIEW_SIZES[self.observation]), dtype=np.float32)
        self._masks = np.zeros((m, NUM_ACTIONS), dtype=np.bool_)
        self._players = np.zeros(m, dtype=np.int64)
        self.scores = np.zeros((m, 4), dtype=np.int64)
        start_positions(self._view, self._state, self._memory, hands64, int(first), np.array(move_list, dtype=np.int64),
                        self._rules, TABLES, self._observations, self._masks, self._players, thread_chunks(m))
        self.active = records(self._state)["table"]["winner"] < 0
        return self._obs()

    def _check_history(self, hands: np.ndarray, first: int, moves: list[int]) -> list[int]:
        """Replay ``moves`` on the Python engine from ``hands`` (``ValueError`` at an illegal one, or at a
        move after the end); the cards each seat played."""
        game = Game.from_hands([[c for c in range(NUM_CARDS) if int(h) >> c & 1] for h in hands], self.rules,
                               current_player=first, opening=True)
        played = [0, 0, 0, 0]
        for t, mask in enumerate(moves):
            if game.is_over:
                raise ValueError(f"moves[{t}] comes after the end of the game")
            seat = game.current_player
            try:
                game.play([c for c in range(NUM_CARDS) if mask >> c & 1])
            except ValueError as err:
                raise ValueError(f"moves[{t}] is not a legal move of seat {seat} there: {err}") from None
            played[seat] |= mask
        return played

    def history_views(self, hands: Any, first: int, moves: Sequence[int], record: Sequence[int]) -> tuple[np.ndarray, ...]:
        """What the movers saw at some moves of the history, in every game: for each move index of
        ``record`` (ascending), the mover's view ``(M, R, n)`` float32, its legal actions ``(M, R, 1695)``
        bool and the action index of the move it made ``(M, R)`` (arguments as for :meth:`start`, which
        checks them the same way; the games are then left at the end of ``moves``, as :meth:`start` leaves them).
        What a belief over the hidden cards weighs a deal by: how likely each seat's moves were from it."""
        index = [int(t) for t in record]
        if any(not 0 <= t < len(moves) for t in index) or index != sorted(set(index)):
            raise ValueError(f"record must list distinct move indices 0..{len(moves) - 1} in ascending order; got {record!r}")
        self.start(hands, first, moves)
        hands64 = np.asarray(hands).astype(np.int64)
        m, r = len(hands64), len(index)
        rows = np.full(len(moves), -1, dtype=np.int64)
        rows[index] = np.arange(r)
        observations = np.zeros((m, r, VIEW_SIZES[self.observation]), dtype=np.float32)
        masks = np.zeros((m, r, NUM_ACTIONS), dtype=np.bool_)
        actions = np.zeros((m, r), dtype=np.int64)
        record_positions(self._view, new_state(m), new_memory(self.observation, m), hands64, int(first),
                         np.array([int(x) for x in moves], dtype=np.int64), rows, self._rules, TABLES, observations, masks,
                         actions, thread_chunks(m))
        return observations, masks, actions

    def step(self, actions: Any) -> dict[str, np.ndarray]:
        """Play one action index per game (ignored in ended games) and return the views after it.

        Raises ``ValueError`` (nothing played) for an action an active game's mask does not allow.
        """
        acts, illegal = check_action_array(actions, self._masks)
        bad = np.flatnonzero(illegal & self.active)
        if len(bad):
            g = int(bad[0])
            raise ValueError(f"actions[{g}] = {acts[g]} is not legal in game {g}; legal: "
                             f"{np.flatnonzero(self._masks[g]).tolist()[:20]}")
        errors = np.zeros(len(acts), dtype=np.int64)
        advance_positions(self._view, self._state, self._memory, acts, self.active, self._rules, TABLES, self._observations,
                          self._masks, self._players, self.scores, errors, thread_chunks(len(acts)))
        if errors.any():  # cannot happen after the check above; a guard, not a path
            raise AssertionError(f"the core refused the actions of games {np.flatnonzero(errors).tolist()}")
        return self._obs()

    def heuristic_actions(self, kind: str, where: Any = None) -> np.ndarray:
        """The action index (int64 ``(M,)``) that Greedy (``"greedy"``) or Smart (``"smart"``) would play in
        every game on move, move for move as :class:`~big2_env.players.GreedyPolicy` and
        :class:`~big2_env.players.SmartPolicy` choose (0 in an ended game, and in a game ``where``, a
        bool ``(M,)``, leaves out): a rollout can give a seat a heuristic's moves without leaving compiled code."""
        if kind not in HEURISTICS:
            raise ValueError(f"kind must be one of {', '.join(HEURISTICS)}; got {kind!r}")
        games = self.active
        if where is not None:
            chosen = np.asarray(where)
            if chosen.dtype != np.bool_ or chosen.shape != games.shape:
                raise ValueError(f"where must be a bool array of shape {games.shape}; got {chosen.dtype} {chosen.shape}")
            games = games & chosen
        out = np.zeros(len(games), dtype=np.int64)
        heuristic_actions(self._state, games, HEURISTICS.index(kind) + 1, self._rules, TABLES, out,
                          thread_chunks(max(1, len(games))))
        return out

    def candidates(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every game's legal plays as the card-aware networks read them (as
        :meth:`~big2_env.envs.vector.Big2VectorEnv.candidates`; an ended game lists its last mover's)."""
        return candidate_arrays(self._state, self._rules, thread_chunks(max(1, len(self.active))))

    def hands(self) -> np.ndarray:
        """Every game's four hands now (int64 ``(M, 4)`` card bitmasks in seat order): the full state."""
        return records(self._state)["hands"].copy()

    def _obs(self) -> dict[str, np.ndarray]:
        return {"observation": self._observations, "action_mask": self._masks, "current_player": self._players}

    def __repr__(self) -> str:
        return f"PositionGames(games={len(self.active)}, active={int(self.active.sum())}, rules={self.rules!r})"
