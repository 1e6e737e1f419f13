"""The pure Big 2 rules engine: deal, turn order, plays and passes, tricks, game end, scores.

It knows nothing of reinforcement learning: the encodings and environments are
built on top of it. ``Game`` is a one-game wrapper over the compiled core: its rules state is
one row of the core's games (:mod:`big2_env.engine.core.games`: the hands' card bitmasks and the
table), changed only by the core's ``apply_move``; its legal plays and scores come from the core
too (:mod:`big2_env.engine.native`), so ``Game``, the vector envs and the players' kernels play by
one set of rules. ``Game`` itself keeps what the envs read: the attributes copied from the row,
the trick's cards, the history and the cards each seat played. A pure-Python ``Game`` in
``tests/reference`` is its reference: the tests play both side by side.

Examples:
    >>> game = Game(seed=7)
    >>> opener = game.current_player
    >>> all(0 in play for play in game.legal_plays())  # the opening play contains 3D
    True
    >>> while not game.is_over:
    ...     game.play(game.legal_plays()[0])
    >>> sum(game.scores())
    0
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from .cards import (
    NUM_CARDS,
    THREE_OF_DIAMONDS,
    card_str,
    check_hand,
    check_index,
    check_seed,
    format_cards,
    format_play,
    mask_to_cards,
    parse_cards,
    parse_play,
)
from . import native
from .combos import Entry, classify
from .native import PASS_ENTRY
from .rules import Rules

NUM_PLAYERS = 4
HAND_SIZE = 13
_MAX_LISTED = 12


class IllegalPlayError(ValueError):
    """A play that the rules do not allow in the current position."""


def deal_hands(rng: np.random.Generator) -> list[list[int]]:
    """Shuffle the 52 cards with ``rng`` and deal 13 to each of the four seats (sorted)."""
    deck = rng.permutation(NUM_CARDS).tolist()
    return [sorted(deck[i * HAND_SIZE : (i + 1) * HAND_SIZE]) for i in range(NUM_PLAYERS)]


def worst_score(rules: Rules) -> float:
    """The lowest final score a seat can get under ``rules``: losing with all 13 cards.

    >>> worst_score(Rules()), worst_score(Rules(scoring="hk"))
    (-13.0, -39.0)
    """
    return -float(native.hand_penalty(HAND_SIZE, rules))


class Game:
    """One game of Big 2 between four seats (0..3, clockwise).

    Args:
        rules: the rule set (a :class:`Rules`, a preset name or a dict of keywords).
        seed: ``None``, a non-negative int (Python int or numpy integer; not a bool
            or float) or a ``numpy.random.Generator``; the same seed gives the same deal.

    Attributes (read-only by convention):
        rules, current_player, trick (sorted tuple of the active trick, ``None`` when
        leading), trick_player (who made the active trick), passes (consecutive
        passes since the last play), winner (``None`` until the game ends), turn
        (decisions taken so far), history (list of ``(player, play)``).
    """

    def __init__(self, rules: Rules | str | dict | None = None, seed: int | np.random.Generator | None = None):
        rules = Rules.coerce(rules)
        hands = [sum(1 << c for c in hand) for hand in deal_hands(check_seed(seed))]
        self._start(rules, hands, [h & 1 for h in hands].index(1), True)

    @classmethod
    def from_hands(
        cls,
        hands: Sequence[Iterable[int] | str],
        rules: Rules | str | dict | None = None,
        *,
        current_player: int | None = None,
        trick: Iterable[int] | str | None = None,
        trick_player: int | None = None,
        passes: int = 0,
        opening: bool | None = None,
        passed: Iterable[int] = (),
    ) -> "Game":
        """Start from given hands (card ids or card text), for tests, puzzles and replays.

        With the defaults, ``hands`` must be a full deal and play starts from the
        opening (holder of 3D on move). Give ``current_player`` (and optionally an
        active ``trick`` made by ``trick_player`` followed by ``passes`` passes) to
        start mid-game; the opening rule then applies only if ``opening=True``. ``passed``:
        the seats that passed earlier in the active trick (the ``passes`` seats just before
        the player on move are added to them); under ``pass_locks`` they may only pass.

        Accepted types (anything else raises ``ValueError`` naming the argument, the
        value and what is allowed): ``hands`` a list of four hands, each card text or
        1 to 13 distinct card ids (ints or numpy integers in 0..51, see
        :func:`big2_env.engine.cards.check_hand`); ``current_player`` and ``trick_player``
        ``None`` or a seat 0..3 (int or numpy integer, not a bool); ``trick`` ``None``,
        card text or card ids; ``passes`` an int 0..2; ``opening`` ``True``, ``False``
        or ``None``; ``passed`` seats 0..3 other than the trick's player (only with a trick).
        """
        rules = Rules.coerce(rules)
        if isinstance(hands, (str, bytes)) or not hasattr(hands, "__len__"):
            raise ValueError(f"hands must be a list of {NUM_PLAYERS} hands, got {hands!r} ({type(hands).__name__})")
        if len(hands) != NUM_PLAYERS:
            raise ValueError(f"need exactly {NUM_PLAYERS} hands, got {len(hands)}")
        if current_player is not None:
            current_player = check_index(current_player, "current_player", NUM_PLAYERS)
        if trick_player is not None:
            trick_player = check_index(trick_player, "trick_player", NUM_PLAYERS)
        passes = check_index(passes, "passes after the trick", NUM_PLAYERS - 1, "0, 1 or 2")
        if opening is not None and not isinstance(opening, bool):
            raise ValueError(f"opening must be True, False or None, got {opening!r} ({type(opening).__name__})")
        if isinstance(passed, (str, bytes)) or not hasattr(passed, "__iter__"):
            raise ValueError(f"passed must be a collection of seats 0..3, got {passed!r} ({type(passed).__name__})")
        passed_mask = 0
        for seat in passed:
            passed_mask |= 1 << check_index(seat, "a seat in passed", NUM_PLAYERS)
        masks = []
        seen = 0
        for seat, hand in enumerate(hands):
            what = f"hand of player {seat}"
            mask = check_hand(parse_cards(hand) if isinstance(hand, str) else hand, what, min_cards=1)
            if mask & seen:
                raise ValueError(f"card(s) {format_cards(mask_to_cards(mask & seen))} dealt to more than one player")
            seen |= mask
            masks.append(mask)
        trick_t, trick_mask = None, 0
        if trick is not None:
            trick_mask = check_hand(parse_play(trick) if isinstance(trick, str) else trick, "trick")
            trick_t = tuple(mask_to_cards(trick_mask)) or None
        mid_game = current_player is not None
        if current_player is None:
            holders = [p for p in range(NUM_PLAYERS) if masks[p] & 1]
            if not holders:
                raise ValueError("no player holds 3D: give current_player to start mid-game")
            current_player = holders[0]
            opening = True if opening is None else opening
        if opening and not masks[current_player] & 1:
            raise ValueError("the opening needs the player on move to hold 3D")
        played_by = [0, 0, 0, 0]
        if trick_t is not None:
            if not mid_game:
                raise ValueError("give current_player when starting facing a trick")
            if classify(trick_t, rules) is None:
                raise ValueError(f"trick {format_cards(trick_t)!r} is not a legal combination under these rules")
            if trick_mask & seen:
                raise ValueError(f"trick {format_cards(trick_t)!r} shares cards with a hand")
            if trick_player is None:
                trick_player = (current_player - 1 - passes) % NUM_PLAYERS
            elif (trick_player + 1 + passes) % NUM_PLAYERS != current_player:
                raise ValueError(
                    f"player {trick_player} played the trick and {passes} passed, so player "
                    f"{(trick_player + 1 + passes) % NUM_PLAYERS} is on move, not {current_player}"
                )
            if passed_mask >> trick_player & 1:
                raise ValueError(f"passed lists player {trick_player}, who made the trick")
            for k in range(passes):  # the passes just before the player on move
                passed_mask |= 1 << (trick_player + 1 + k) % NUM_PLAYERS
            played_by[trick_player] = trick_mask
        elif passes:
            raise ValueError("passes need an active trick")
        elif passed_mask:
            raise ValueError("passed needs an active trick (a pass locks a seat only until its trick ends)")
        game = cls.__new__(cls)
        game._start(rules, masks, current_player, bool(opening), trick_t, trick_player, passes, passed_mask, played_by)
        return game

    def _start(
        self,
        rules: Rules,
        hands: list[int],
        player: int,
        opening: bool,
        trick: tuple[int, ...] | None = None,
        trick_player: int | None = None,
        passes: int = 0,
        passed: int = 0,
        played_by: Sequence[int] = (0, 0, 0, 0),
    ) -> None:
        """Set up the game at a position, unchecked: the four ``hands`` (card masks), ``player`` on move,
        whether it is the ``opening``, the active ``trick`` (a legal play, or ``None``) that ``trick_player``
        made, the ``passes`` since and the seats that ``passed`` in it (a mask), and each seat's cards
        played so far (the trick's included)."""
        table = [player, 0, 0, 0, 0, passes, int(opening), -1, passed]  # the core's table, field by field
        if trick is not None:
            strength, _, mask, category, _ = native.entries_of([sum(1 << c for c in trick)], rules)[0]
            table[1:5] = len(trick), strength, category, mask
        self.rules = rules
        self._row = np.array([hands + table], dtype=np.int64)
        self._hand_masks = self._row[0, :4].tolist()
        self.trick, self.trick_player = trick, trick_player
        self.played_by_mask = list(played_by)
        self.played_mask = played_by[0] | played_by[1] | played_by[2] | played_by[3]
        self.turn = 0
        self.history: list[tuple[int, tuple[int, ...]]] = []
        self._legal: list[Entry] | None = None
        self._read(self._row[0, 4:].tolist())

    def _read(self, table: Sequence[int]) -> None:
        """Copy the core's ``table`` (a row's :data:`~big2_env.engine.core.games.TABLE_FIELDS`, after the
        four hands) into the attributes that the envs and players read."""
        (self.current_player, size, self._trick_strength, _, self._trick_mask, self.passes, opening, winner,
         self.passed_mask) = table
        self._opening = opening == 1
        self.winner: int | None = None if winner < 0 else winner
        if not size:
            self.trick = None

    # ----------------------------------------------------------------- queries
    @property
    def hands(self) -> tuple[tuple[int, ...], ...]:
        """Every seat's hand, each a sorted tuple of card ids."""
        return tuple(tuple(mask_to_cards(h)) for h in self._hand_masks)

    def hand(self, player: int) -> list[int]:
        """One seat's hand as a sorted list (a copy)."""
        return mask_to_cards(self._hand_masks[player])

    def cards_left(self, player: int) -> int:
        return self._hand_masks[player].bit_count()

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def is_opening(self) -> bool:
        """True until the first play of the game (when the opening rule applies)."""
        return self._opening

    @property
    def locked(self) -> bool:
        """True when the player on move may only pass: under ``pass_locks``, it passed earlier in this trick."""
        return self.rules.pass_locks and bool(self.passed_mask >> self.current_player & 1)

    @property
    def leading(self) -> bool:
        """True when the player on move has control (no active trick)."""
        return self.trick is None

    def legal_entries(self) -> list[Entry]:
        """Legal plays as internal entries ``(strength, play, mask, category, comparison_card)``.

        Pass is :data:`big2_env.engine.legal.PASS_ENTRY` and comes last when legal. The list is
        computed once per position and shared: do not modify it.
        """
        if self._legal is None:
            if self.winner is not None:
                self._legal = []
                return self._legal
            if self.locked:
                self._legal = [PASS_ENTRY]
                return self._legal
            trick_size = len(self.trick) if self.trick is not None else 0
            self._legal = native.legal_entries(
                self._hand_masks[self.current_player], trick_size, self._trick_strength, self._opening, self.rules
            )
        return self._legal

    def legal_plays(self) -> list[tuple[int, ...]]:
        """Legal plays of the player on move (sorted tuples; ``()`` is pass, last when legal)."""
        return [e[1] for e in self.legal_entries()]

    def scores(self) -> list[int]:
        """Final scores per seat (sum to zero). Raises ``ValueError`` before the game ends."""
        if self.winner is None:
            raise ValueError("the game is not over yet; scores exist only at the end")
        return native.final_scores(self._row, self.winner, self.rules)

    # ----------------------------------------------------------------- moves
    def play(self, cards: Iterable[int] | str) -> None:
        """Play cards (ids or text such as ``"3D 3S"``) or pass (``()`` or ``"pass"``) for the player on move.

        Card ids are checked by :func:`big2_env.engine.cards.check_hand` (distinct ints or
        numpy integers in 0..51; no bools or floats). Raises :class:`IllegalPlayError`
        (a ``ValueError``) naming the problem, or ``ValueError`` for malformed input;
        the state is unchanged after a rejected play.
        """
        if isinstance(cards, str):
            play = parse_play(cards)
        else:
            play = tuple(mask_to_cards(check_hand(cards, "play")))
        for entry in self.legal_entries():
            if entry[1] == play:
                self._apply(entry, listing=True)
                return
        raise IllegalPlayError(self._explain_illegal(play))

    def play_index(self, index: int) -> None:
        """Make the ``index``-th play of :meth:`legal_plays` (the fast path).

        ``index`` must be an int or numpy integer (not a bool or float): ``ValueError``
        otherwise, :class:`IllegalPlayError` when it is out of range.
        """
        if type(index) is not int:
            index = check_index(index, "play index", None)
        if self.winner is not None:
            raise IllegalPlayError(self._explain_illegal(()))
        legal = self.legal_entries()
        if not 0 <= index < len(legal):
            raise IllegalPlayError(f"play index {index} out of range: {len(legal)} legal plays")
        self._apply(legal[index], listing=True)

    def _apply(self, entry: Entry, listing: bool = False) -> None:
        """Make a legal play (an entry of :meth:`legal_entries`): the core changes the rules state
        (:func:`big2_env.engine.native.move`; with ``listing`` it lists the next legal plays in the same
        call), and the game records the move."""
        play, mask = entry[1], entry[2]
        player = self.current_player
        self._legal, table = native.move(self._row, entry, self.rules, listing)
        self.history.append((player, play))
        self.turn += 1
        if mask:
            self._hand_masks[player] ^= mask
            self.played_mask |= mask
            self.played_by_mask[player] |= mask
            self.trick, self.trick_player = play, player
        self._read(table)

    def _explain_illegal(self, play: tuple[int, ...]) -> str:
        player = self.current_player
        if self.winner is not None:
            return f"the game is over (player {self.winner} won); no more plays"
        if not play:
            return f"player {player} has control (no active trick) and cannot pass"
        if self.locked:
            return (f"illegal play for player {player}: they passed earlier in this trick and, under pass_locks, "
                    f"may only pass until it ends. Legal plays: pass")
        missing = [c for c in play if not self._hand_masks[player] >> c & 1]
        if missing:
            return f"{format_cards(missing)} not in player {player}'s hand ({format_cards(self.hand(player))})"
        text = format_play(play)
        combo = classify(play, self.rules)
        if combo is None:
            reason = f"{text!r} is not a legal combination under these rules"
        elif self.trick is not None and len(play) != len(self.trick):
            reason = f"{text!r} has {len(play)} cards but the trick {format_play(self.trick)!r} has {len(self.trick)}"
        elif self.trick is not None:
            reason = f"{text!r} does not beat the trick {format_play(self.trick)!r}"
        elif self._opening and self.rules.opening == "3D_single":
            reason = f"the opening play must be {card_str(THREE_OF_DIAMONDS)} alone"
        else:
            reason = f"the opening play must contain {card_str(THREE_OF_DIAMONDS)}"
        legal = [format_play(p) for p in self.legal_plays()]
        listed = ", ".join(legal[:_MAX_LISTED]) + (f", ... ({len(legal)} in all)" if len(legal) > _MAX_LISTED else "")
        return f"illegal play for player {player}: {reason}. Legal plays: {listed}"

    def copy(self) -> "Game":
        """An independent copy of the game state."""
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other._row = self._row.copy()
        other._hand_masks = list(self._hand_masks)
        other.played_by_mask = list(self.played_by_mask)
        other.history = list(self.history)
        other._legal = None
        return other

    def __repr__(self) -> str:
        state = f"winner={self.winner}" if self.is_over else f"to_move={self.current_player}"
        trick = format_play(self.trick) if self.trick else "-"
        return f"Game({state}, trick={trick!r}, cards_left={[h.bit_count() for h in self._hand_masks]}, turn={self.turn})"

