"""Game replays as JSON: the format the web table (``big2 serve``) downloads and loads, and ``big2 play
--replay FILE`` and ``evaluate(..., replays=DIR)`` (``big2 eval --replays DIR``) write.

A replay is everything needed to play a game again on the engine, and no more::

    {"format": "big2-replay/1", "seed": 7, "rules": {"...": "Rules.to_dict()"},
     "seats": ["you", "smart", "smart", "smart"],
     "moves": [[0, [0, 4]], [1, []], ...],
     "scores": [12, -4, -5, -3]}

``seed`` fixes the deal (``Game(rules, seed=seed)``), ``moves`` are ``[seat, cards]`` in order
(``[]`` is a pass), ``seats`` names who sat where (free text) and ``scores`` (present once the
game is over) are checked against the engine's. :func:`check_replay` replays a replay on the
engine and refuses anything that does not follow the rules, naming the first bad move.

Example:
    >>> from big2_env import Game
    >>> game = Game(seed=3)
    >>> game.play(game.legal_plays()[0])
    >>> data = replay_dict(game, 3, ["a", "b", "c", "d"])
    >>> [len(p["hands"][p["player"]]) for p in replay_positions(data)[:2]]
    [13, 13]
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from .game import NUM_PLAYERS, Game, IllegalPlayError
from .rules import Rules
from ..checks import is_int

__all__ = ["MAX_MOVES", "REPLAY_FORMAT", "ReplayError", "check_replay", "position", "read_replay", "replay_dict",
           "replay_positions", "write_replay"]

REPLAY_FORMAT = "big2-replay/1"
MAX_MOVES = 1000
"""More moves than any game can take (each play sheds a card; passes come at most three in a row)."""


class ReplayError(ValueError):
    """A replay that is not well formed or does not follow the rules (the message says where)."""


def replay_dict(game: Game, seed: int, seats: Sequence[str]) -> dict[str, Any]:
    """The replay of ``game``, dealt by ``Game(game.rules, seed=seed)``, so far (scores once it is over)."""
    data: dict[str, Any] = {
        "format": REPLAY_FORMAT, "seed": int(seed), "rules": game.rules.to_dict(), "seats": [str(s) for s in seats],
        "moves": [[int(player), [int(c) for c in play]] for player, play in game.history],
    }
    if game.is_over:
        data["scores"] = [int(s) for s in game.scores()]
    return data


def check_replay(data: Any) -> Game:
    """The game a replay describes, played on the engine; :class:`ReplayError` names what is wrong."""
    if not isinstance(data, Mapping):
        raise ReplayError(f"a replay is a JSON object; got {type(data).__name__}")
    if data.get("format") != REPLAY_FORMAT:
        raise ReplayError(f"format must be {REPLAY_FORMAT!r}; got {data.get('format')!r}")
    seed = data.get("seed")
    if not is_int(seed, 0, 2**64 - 1, numpy=False):
        raise ReplayError(f"seed must be an int in 0..2**64-1; got {seed!r}")
    if not isinstance(data.get("rules"), Mapping):
        raise ReplayError("rules must be an object of Rules fields (Rules.to_dict())")
    try:
        rules = Rules.coerce(data.get("rules"))
    except (TypeError, ValueError) as err:
        raise ReplayError(f"rules: {err}") from None
    seats = data.get("seats")
    if not isinstance(seats, list) or len(seats) != NUM_PLAYERS or not all(isinstance(s, str) and len(s) <= 200 for s in seats):
        raise ReplayError("seats must be a list of four names (strings of at most 200 characters)")
    moves = data.get("moves")
    if not isinstance(moves, list) or len(moves) > MAX_MOVES:
        raise ReplayError(f"moves must be a list of at most {MAX_MOVES} [seat, cards] pairs")
    game = Game(rules, seed=seed)
    for index, move in enumerate(moves):
        if not isinstance(move, list) or len(move) != 2 or not isinstance(move[1], list):
            raise ReplayError(f"move {index}: must be [seat, [card ids]]; got {move!r}")
        seat, cards = move
        if game.is_over:
            raise ReplayError(f"move {index}: the game is already over")
        if type(seat) is not int or seat != game.current_player:
            raise ReplayError(f"move {index}: seat {seat!r} moved, but seat {game.current_player} is on move")
        try:
            game.play(cards)
        except (IllegalPlayError, ValueError, TypeError) as err:
            raise ReplayError(f"move {index}: {err}") from None
    if "scores" in data:
        if not game.is_over:
            raise ReplayError("scores are given but the moves do not end the game")
        if data["scores"] != game.scores():
            raise ReplayError(f"scores {data['scores']!r} differ from the engine's {game.scores()!r} for these moves")
    return game


def position(game: Game) -> dict[str, Any]:
    """Everything on the table of ``game`` with every hand shown (a replay frame, a spectator's view)."""
    return {
        "player": game.current_player, "hands": [list(h) for h in game.hands], "trick": list(game.trick or ()),
        "trick_player": game.trick_player, "passes": game.passes, "turn": len(game.history),
        "winner": game.winner, "scores": game.scores() if game.is_over else None,
        "last": [game.history[-1][0], list(game.history[-1][1])] if game.history else None,
    }


def replay_positions(data: Any) -> list[dict[str, Any]]:
    """Every position of a replay, from the deal to its last move (checked by :func:`check_replay`)."""
    final = check_replay(data)
    game = Game(final.rules, seed=data["seed"])
    frames = [position(game)]
    for _, cards in data["moves"]:
        game.play(cards)
        frames.append(position(game))
    return frames


def write_replay(path: str | Path, data: Mapping[str, Any]) -> Path:
    """Write a replay as JSON (checked first: a file this writes always loads)."""
    check_replay(data)
    target = Path(path)
    target.write_text(json.dumps(data) + "\n")
    return target


def read_replay(path: str | Path) -> dict[str, Any]:
    """A replay file, read and checked (:class:`ReplayError` if it is not one)."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as err:
        raise ReplayError(f"cannot read a replay from {str(path)!r}: {err}") from None
    check_replay(data)
    return data
