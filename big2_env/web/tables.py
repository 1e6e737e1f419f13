"""The games of the web table: one :class:`Table` per game, kept in a bounded :class:`TableStore`.

A table is a :class:`~big2_env.engine.game.Game` with a seat for each player: the person at
the page (``mode="play"``: one seat, the others agents) or nobody (``mode="watch"``: four
agents). Every change goes through :meth:`Table.play` (the person's move, checked) or
:meth:`Table.advance` (the agent on move plays), each under the table's lock; a refused
request raises :class:`TableError` with an HTTP status and a message saying what was wrong,
and leaves the game as it was.

What a viewer sees (:meth:`Table.view`): in ``play`` mode only the person's own hand (every
hand once the game is over); in ``watch`` mode every hand. With ``insight`` on, an agent on
move decides as soon as it is viewed, and the view shows what it weighed (:func:`insight`):
a network's probability for each candidate and its value estimate, the search's mean score
and deals per candidate. :meth:`Table.advance` then plays that decision. Insight is on by
default in ``watch`` mode and off in ``play`` mode, where asking for it shows the agents'
candidate plays, and so their cards.

Example:
    >>> store = TableStore(allowed=("random",))
    >>> table = store.create({"mode": "watch", "seats": ["random"] * 4, "seed": 5})
    >>> while not table.game.is_over:
    ...     table.advance()
    >>> sum(table.view()["scores"])
    0
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import secrets
import threading
import time
from typing import Any, Mapping, Sequence

from ..checks import is_int
from ..engine.game import NUM_PLAYERS, Game, IllegalPlayError
from ..engine.rules import Rules
from ..errors import LoadError
from ..evaluation.loading import agent_choices, load_agent
from ..plugins import agent_spec_plugins
from ..observations.decision import Decision, PolicyObservation
from ..players.base import Policy, policy_actions, policy_view
from ..engine.replay import replay_dict

__all__ = ["DEFAULT_AGENTS", "MODES", "Table", "TableError", "TableStore", "insight"]

DEFAULT_AGENTS = ("random", "greedy", "smart", "search", "pretrained", "search-net")
"""The agents a page may seat when ``big2 serve`` is given no ``--opponents``."""
MODES = ("play", "watch")
FIELDS = ("mode", "seats", "opponents", "rules", "options", "seed", "human", "insight")
"""The fields of a new game's request (:meth:`TableStore.create`)."""
HOUSE_OPTIONS = ("lone_triples", "pass_locks")
"""The rule options a table may set on top of its preset (the rule picker's check boxes)."""
HUMAN = "you"
MAX_SEED = 2**63 - 1


class TableError(Exception):
    """A refused request: ``status`` is its HTTP status (4xx), ``message`` says what was wrong."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def _cards(play: Sequence[int]) -> list[int]:
    return [int(c) for c in play]


def insight(policy: Policy, decision: Decision, observation: Any, action: int) -> dict[str, Any] | None:
    """What ``policy`` weighed in choosing ``action`` at ``decision`` (``observation`` in its view):
    for the search, every searched candidate's mean score and deals (``last_stats``); for a
    network, every candidate's probability and its value estimate; ``None`` for other agents.
    Candidates are ``{"cards", "p" | "mean" and "visits"}``, best first."""
    stats = getattr(policy, "last_stats", None)
    if isinstance(stats, dict) and "means" in stats:
        means, visits = stats.get("means", {}), stats.get("visits", {})
        ranked = sorted(((float(m), a) for a, m in means.items() if math.isfinite(m)), key=lambda pair: -pair[0])
        rows = [{"cards": _cards(decision.require_entry(a, "search")[1]), "mean": m, "visits": int(visits.get(a, 0))}
                for m, a in ranked]
        return {"kind": "search", "candidates": rows, "value": None, "chosen": _cards(decision.require_entry(action, "")[1])}
    probabilities = getattr(policy, "probabilities", None)
    if not callable(probabilities):
        return None
    by_p = sorted(((float(p), a) for a, p in probabilities(observation).items()), key=lambda pair: -pair[0])
    rows = [{"cards": _cards(decision.require_entry(a, "network")[1]), "p": p} for p, a in by_p]
    value = None
    observation_value = getattr(policy, "observation_value", None)
    try:
        if callable(observation_value):  # a NetworkPolicy, any design
            value = float(observation_value(observation))
    except ValueError:  # a network without a value head
        pass
    return {"kind": "network", "candidates": rows, "value": value, "chosen": _cards(decision.require_entry(action, "")[1])}


class Table:
    """One game at the web table (see the module docstring). Made by :meth:`TableStore.create`."""

    def __init__(self, table_id: str, rules: Rules, seed: int, seats: Sequence[str], agents: Sequence[Policy | None],
                 human: int | None, show_insight: bool) -> None:
        self.id, self.rules, self.seed = table_id, rules, seed
        self.game = Game(rules, seed=seed)
        self.seats, self.agents, self.human = list(seats), list(agents), human
        self.show_insight = show_insight
        self.lock = threading.Lock()
        self.touched = time.monotonic()
        self._pending: tuple[int, Decision, int, dict[str, Any] | None] | None = None  # the agent on move's decision

    @property
    def mode(self) -> str:
        return "watch" if self.human is None else "play"

    # ------------------------------------------------------------ moves
    def play(self, cards: Any) -> None:
        """The person's move: ``cards``, a list of card ids (``[]`` passes). Refused (4xx) in watch
        mode, out of turn, after the end, malformed or illegal, the game unchanged."""
        with self.lock:
            self.touched = time.monotonic()
            if self.human is None:
                raise TableError(409, "this is a game to watch: nobody plays in it from the page")
            if self.game.is_over:
                raise TableError(409, "the game is over")
            if self.game.current_player != self.human:
                raise TableError(409, f"it is not your turn: seat {self.game.current_player} is on move")
            if not isinstance(cards, list) or len(cards) > 13 or not all(type(c) is int for c in cards):
                raise TableError(400, "cards must be a list of at most 13 card ids (ints 0..51); [] passes")
            try:
                self.game.play(cards)
            except IllegalPlayError as err:
                text = str(err)  # most of the engine's messages start "illegal play for player N: ..."
                raise TableError(422, text if text.startswith("illegal play") else f"illegal play: {text}") from None
            except ValueError as err:
                raise TableError(400, f"bad cards: {err}") from None

    def advance(self) -> None:
        """The agent on move plays (the decision its view showed, if it was viewed). Refused (409)
        when the game is over or the person is on move."""
        with self.lock:
            self.touched = time.monotonic()
            if self.game.is_over:
                raise TableError(409, "the game is over")
            if self.agents[self.game.current_player] is None:
                raise TableError(409, "it is your turn: the agents wait for your move")
            _, decision, action, _ = self._decide()
            self.game._apply(decision.require_entry(action, f"agent {self.seats[self.game.current_player]!r}"))
            self._pending = None

    def _decide(self) -> tuple[int, Decision, int, dict[str, Any] | None]:
        """The agent on move's decision ``(turn, decision, action, insight)``, made once per turn (the lock is held)."""
        turn = len(self.game.history)
        if self._pending is None or self._pending[0] != turn:
            policy = self.agents[self.game.current_player]
            assert policy is not None
            decision = Decision(self.game)
            shown = PolicyObservation(decision)
            [action] = policy_actions(policy, [shown])
            seen = None
            if self.show_insight:
                seen = insight(policy, decision, policy_view(policy, [shown])[0], int(action))
            self._pending = (turn, decision, int(action), seen)
        return self._pending

    # ------------------------------------------------------------ views
    def view(self) -> dict[str, Any]:
        """The table as its viewer may see it (JSON-ready; see the module docstring)."""
        with self.lock:
            self.touched = time.monotonic()
            game = self.game
            over = game.is_over
            shown = [over or self.human is None or seat == self.human for seat in range(NUM_PLAYERS)]
            on_move = None if over else game.current_player
            thinking = None
            if on_move is not None and self.agents[on_move] is not None and self.show_insight:
                try:
                    thinking = self._decide()[3]
                except Exception as err:  # noqa: BLE001 - the view stands; advance() reports the failure
                    thinking = {"kind": "error", "message": f"{type(err).__name__}: {err}", "candidates": [],
                                "value": None, "chosen": []}
            passed: list[int] = []
            for seat, play in reversed(game.history if game.trick is not None else []):  # on the trick now on the table
                if play:
                    break
                passed.append(seat)
            legal = None
            if on_move is not None and on_move == self.human:
                legal = [_cards(play) for play in game.legal_plays()]
            return {
                "id": self.id, "mode": self.mode, "seed": self.seed, "rules": self.rules.to_dict(),
                "seats": self.seats, "human": self.human, "player": on_move, "turn": len(game.history),
                "hands": [list(h) if shown[s] else None for s, h in enumerate(game.hands)],
                "cards_left": [game.cards_left(s) for s in range(NUM_PLAYERS)],
                "trick": _cards(game.trick or ()), "trick_player": game.trick_player, "passed": passed[::-1],
                "opening": game.is_opening, "history": [[p, _cards(c)] for p, c in game.history],
                "locked": [s for s in range(NUM_PLAYERS) if self.rules.pass_locks and game.passed_mask >> s & 1],
                "legal": legal, "over": over, "winner": game.winner, "scores": game.scores() if over else None,
                "insight": thinking,
            }

    def replay(self) -> dict[str, Any]:
        """This game so far as a replay (:mod:`big2_env.engine.replay`)."""
        with self.lock:
            self.touched = time.monotonic()
            return replay_dict(self.game, self.seed, self.seats)


class TableStore:
    """The server's games by id: at most ``max_tables`` at once, each forgotten after
    ``idle_seconds`` without a request. ``allowed`` are the agent specs a page may seat (what
    ``big2 serve --opponents`` lists, loaded as the command line loads them: never unpickling)."""

    def __init__(self, allowed: Sequence[str] = DEFAULT_AGENTS, max_tables: int = 100, idle_seconds: float = 1800.0,
                 default_rules: str = "paper") -> None:
        if not allowed:
            raise ValueError("allowed must name at least one agent")
        self.allowed = tuple(dict.fromkeys(allowed))
        self.max_tables, self.idle_seconds = int(max_tables), float(idle_seconds)
        if default_rules not in Rules.PRESETS:
            raise ValueError(f"default_rules must be a preset, one of {', '.join(Rules.PRESETS)}; got {default_rules!r}")
        self.default_rules_name = default_rules
        self.default_rules = Rules.preset(default_rules)
        self._tables: dict[str, Table] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._tables)

    def check_agents(self) -> None:
        """Refuse, before serving, an offered agent that can never load: an unknown name, a bad
        ``search:`` or ``search-net@`` budget, a missing file. Networks are not loaded here (torch
        stays unloaded until a game seats one): a plugin's specs are checked by its ``check``."""
        from ..players.registry import POLICIES

        for spec in self.allowed:
            if spec in POLICIES or spec.split(":", 1)[0] in ("search", "ismcts", "fast", "fast-sample"):
                try:
                    load_agent(spec, self.default_rules, what="--opponents")
                except LoadError as err:
                    raise ValueError(str(err)) from None
            elif (plugin := next((p for p in agent_spec_plugins()
                                  if spec in p.names or re.split("[:@]", spec, maxsplit=1)[0] in p.names), None)):
                if plugin.check is not None:  # a plugin's name (search-net@640 too): checked here, loaded when seated
                    try:
                        plugin.check(spec)
                    except LoadError as err:
                        raise ValueError(f"--opponents: {err}") from None
            else:
                path = spec.split(":", 1)[1] if spec.startswith(("charlesworth:", "charlesworth-greedy:")) else spec
                if not os.path.exists(path):  # the same list of forms as big2 eval gives
                    raise ValueError(f"--opponents {spec!r}: no such agent name or file; an agent is one of "
                                     f"{agent_choices()}")

    def get(self, table_id: Any) -> Table:
        """The table with this id (404 if there is none, or it expired)."""
        with self._lock:
            self._expire()
            table = self._tables.get(table_id) if isinstance(table_id, str) else None
        if table is None:
            raise TableError(404, "no such game (it may have expired after being idle)")
        return table

    def _expire(self) -> None:
        now = time.monotonic()
        for key in [k for k, t in self._tables.items() if now - t.touched > self.idle_seconds]:
            del self._tables[key]

    def create(self, request: Any) -> Table:
        """A new table from a request ``{"mode", "seats" | "opponents", "rules", "seed", "human", "insight"}``:

        * ``mode``: ``"play"`` (default) or ``"watch"``;
        * ``opponents`` (play): three agent specs for the other seats, in seat order after yours;
          ``seats`` (watch): four;
        * ``human`` (play): your seat 0..3 (default 0); ``rules``: a preset name (default the
          server's); ``options``: house rules on top of it, ``{"lone_triples": bool,
          "pass_locks": bool}`` (either may be left out: the preset's value); ``seed``: the
          deal (default random); ``insight``: show what the agent on
          move weighs (default: true to watch, false to play, where it shows the agents' cards).
        """
        if not isinstance(request, Mapping):
            raise TableError(400, "the request must be a JSON object")
        unknown = set(request) - set(FIELDS)
        if unknown:
            raise TableError(400, f"unknown fields {sorted(unknown)}; allowed: {', '.join(FIELDS)}")
        mode = request.get("mode", "play")
        if mode not in MODES:
            raise TableError(400, f"mode must be one of {', '.join(MODES)}; got {mode!r}")
        rules_name = request.get("rules")
        if rules_name is None:
            rules = self.default_rules
        elif rules_name in Rules.PRESETS:
            rules = Rules.preset(rules_name)
        else:
            raise TableError(400, f"rules must be a preset, one of {', '.join(Rules.PRESETS)}; got {rules_name!r}")
        options = request.get("options", {})
        if not isinstance(options, Mapping) or set(options) - set(HOUSE_OPTIONS) or not all(
            isinstance(v, bool) for v in options.values()
        ):
            raise TableError(400, f"options must be an object of true/false values for {', '.join(HOUSE_OPTIONS)}; "
                                  f"got {options!r}")
        rules = dataclasses.replace(rules, **options)
        seed = request.get("seed")
        if seed is None:
            seed = secrets.randbelow(2**31)
        if not is_int(seed, 0, MAX_SEED, numpy=False):
            raise TableError(400, f"seed must be an int in 0..{MAX_SEED}; got {seed!r}")
        show = request.get("insight", mode == "watch")
        if not isinstance(show, bool):
            raise TableError(400, f"insight must be true or false; got {show!r}")
        if mode == "watch":
            specs = request.get("seats", [self.allowed[0]] * NUM_PLAYERS)
            human = None
            if "opponents" in request or "human" in request:
                raise TableError(400, "a game to watch takes seats (four agents), not opponents or human")
            count = NUM_PLAYERS
        else:
            specs = request.get("opponents", [self.allowed[0]] * (NUM_PLAYERS - 1))
            human = request.get("human", 0)
            if "seats" in request:
                raise TableError(400, "a game to play takes opponents (three agents), not seats")
            if isinstance(human, bool) or human not in range(NUM_PLAYERS):
                raise TableError(400, f"human must be a seat 0..3; got {human!r}")
            count = NUM_PLAYERS - 1
        if not isinstance(specs, list) or len(specs) != count or not all(isinstance(s, str) for s in specs):
            raise TableError(400, f"{'seats' if mode == 'watch' else 'opponents'} must be a list of {count} agent names")
        refused = [s for s in specs if s not in self.allowed]
        if refused:
            raise TableError(400, f"agents {refused} are not offered by this server; allowed: {', '.join(self.allowed)}")
        with self._lock:
            self._expire()
            if len(self._tables) >= self.max_tables:
                raise TableError(503, f"this server already holds {self.max_tables} games; try again when one has expired")
        names = list(specs)
        if human is not None:
            names.insert(human, HUMAN)
        agents: list[Policy | None] = []
        for seat, spec in enumerate(names):
            if seat == human:
                agents.append(None)
                continue
            try:
                agents.append(load_agent(spec, rules, what="agent", seed=seed + seat))
            except LoadError as err:  # MissingDependencyError and UntrustedModelError too
                raise TableError(400, str(err)) from None
        table = Table(secrets.token_urlsafe(16), rules, seed, names, agents, human, show)
        with self._lock:
            if len(self._tables) >= self.max_tables:
                raise TableError(503, f"this server already holds {self.max_tables} games; try again when one has expired")
            self._tables[table.id] = table
        return table
