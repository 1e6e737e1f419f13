"""The public state: what the player on move knows, rebuilt from its observation alone.

:func:`public_state` reads the 277 numbers of the paper's observation (or the 315 of the
extended one) into a :class:`PublicState` in relative seats: its own hand, the trick and who made
it, every card played and by whom, the cards left per seat, the passes, whether this is the
opening, and (extended) who passed on what and the move history. :func:`state_game` builds an engine
:class:`~big2_env.engine.game.Game` at that state from a guess of the hidden hands. The search,
ISMCTS and the fast move model (:mod:`big2_env.players.fast`) all decide from it, so they never
see the real table's hidden cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ..engine.cards import NUM_CARDS, mask_to_cards
from ..engine.combos import classify
from ..engine.game import HAND_SIZE, Game
from ..engine.rules import Rules
from ..observations.extended import (
    EXT_DECLINED,
    EXT_DECLINED_STRENGTH,
    EXT_PASSED_ROUND,
    EXTENDED_SIZE,
    decode_declined,
    history_moves,
)
from ..observations.paper import (
    OBS_CARDS_LEFT,
    OBS_HAND,
    OBS_PASSES,
    OBS_PLAYED,
    OBS_PLAYED_BY,
    OBS_SIZE,
    OBS_TRICK,
    PAD_CARD,
)
from .base import Observation

__all__ = ["PublicState", "public_state", "state_game"]

_FULL_DECK = (1 << NUM_CARDS) - 1


@dataclass(frozen=True)
class PublicState:
    """What the player on move knows, in *relative* seats: 0 is the player on move, then 1, 2, 3
    clockwise (next, across, previous), as in the observation.

    Attributes:
        hand: the player's hand, sorted card ids.
        trick: the active trick (sorted), or ``None`` when leading.
        trick_player: the relative seat (1..3) that made the trick, or ``None``.
        passes: consecutive passes since the last play.
        played_mask: bitmask of every card played so far (the trick's included).
        played_by: per relative seat, the bitmask of the cards it has played.
        cards_left: per relative seat, the number of cards it holds.
        opening: nothing has been played yet (the opening rule applies).
        declined: per relative seat (0 unused), per trick size 1..5, the weakest strength it
            passed on, or -1 (all -1 when the observation is the paper's 277 numbers, which
            do not say who passed on what; see :mod:`big2_env.observations.extended`).
        passed: bitmask of the relative seats known to have passed since the trick was led
            (under ``pass_locks`` they may only pass until it ends): the ``passes`` seats just
            before the player on move, and, from the extended observation, every seat that
            passed in the round.
        history: every move so far as ``(relative seat, play)``, ``()`` for a pass (empty when the
            observation has no ``"history"``, :func:`~big2_env.observations.extended.history_array`).
    """

    hand: tuple[int, ...]
    trick: tuple[int, ...] | None
    trick_player: int | None
    passes: int
    played_mask: int
    played_by: tuple[int, int, int, int]
    cards_left: tuple[int, int, int, int]
    opening: bool
    declined: tuple[tuple[int, ...], ...] = ((-1,) * 5,) * 4
    passed: int = 0
    history: tuple[tuple[int, tuple[int, ...]], ...] = ()

    @property
    def hand_mask(self) -> int:
        return sum(1 << c for c in self.hand)

    @property
    def unseen_mask(self) -> int:
        """The cards the player cannot see: neither in its hand nor played."""
        return _FULL_DECK & ~self.hand_mask & ~self.played_mask

    @property
    def opener(self) -> int:
        """The relative seat that made the game's first move (0, the player on move, before any)."""
        return self.history[0][0] if self.history else 0


def _bits_to_mask(bits: np.ndarray) -> int:
    return int.from_bytes(np.packbits(bits.astype(bool), bitorder="little").tobytes(), "little")


def public_state(obs: Observation | np.ndarray) -> PublicState:
    """The :class:`PublicState` of an observation dict (or its ``"observation"``): the paper's
    277 numbers, or the 315 of the extended observation (then with who passed on what), and
    the move history where the dict has one.

    Raises ``ValueError`` when the numbers cannot come from a real game (wrong size,
    cards in two places, counts that do not add up to 52).
    """
    vector = np.asarray(obs["observation"] if isinstance(obs, Mapping) else obs)
    if vector.shape not in ((OBS_SIZE,), (EXTENDED_SIZE,)):
        raise ValueError(
            f"an observation has {OBS_SIZE} numbers (or {EXTENDED_SIZE}, extended); got shape {vector.shape}"
        )
    declined: tuple[tuple[int, ...], ...] = ((-1,) * 5,) * 4
    passed = 0
    if vector.shape == (EXTENDED_SIZE,):
        flags, values = vector[EXT_DECLINED], vector[EXT_DECLINED_STRENGTH]
        if not (np.all((flags == 0) | (flags == 1)) and np.all((values >= 0) & (values <= 1))):
            raise ValueError("the extended observation's pass flags must be 0 or 1 and its strengths lie in [0, 1]")
        declined = ((-1,) * 5,) + decode_declined(vector)
        round_flags = vector[EXT_PASSED_ROUND]
        if not np.all((round_flags == 0) | (round_flags == 1)):
            raise ValueError("the extended observation's passed-this-round flags must be 0 or 1")
        passed = sum(1 << (k + 1) for k in range(3) if round_flags[k])
    raw_hand = vector[OBS_HAND]
    if not np.all((raw_hand >= 0) & (raw_hand <= PAD_CARD) & (raw_hand == np.round(raw_hand))):
        raise ValueError("the observation's hand slots must hold card ids 0..51 or the padding 52")
    hand = tuple(sorted(int(c) for c in raw_hand if c != PAD_CARD))
    hand_mask = sum(1 << c for c in hand)
    played_mask = _bits_to_mask(vector[OBS_PLAYED])
    trick_mask = _bits_to_mask(vector[OBS_TRICK])
    others = vector[OBS_PLAYED_BY].reshape(3, NUM_CARDS)
    by_other = [_bits_to_mask(row) for row in others]
    mine = played_mask & ~(by_other[0] | by_other[1] | by_other[2])
    left = tuple(int(x) for x in vector[OBS_CARDS_LEFT])
    passes = int(vector[OBS_PASSES])
    problems = []
    if len(set(hand)) != len(hand) or hand_mask & played_mask:
        problems.append("a card of the hand is repeated or also played")
    if trick_mask & ~played_mask:
        problems.append("a trick card is not among the played cards")
    if (by_other[0] & by_other[1]) | (by_other[0] & by_other[2]) | (by_other[1] & by_other[2]) or (
        by_other[0] | by_other[1] | by_other[2]
    ) & ~played_mask:
        problems.append("the per-seat played cards overlap or are not among the played cards")
    if len(hand) + sum(left) + played_mask.bit_count() != NUM_CARDS or not all(0 <= n <= HAND_SIZE for n in left):
        problems.append(f"hand {len(hand)} + cards left {left} + played {played_mask.bit_count()} is not 52")
    if not hand:
        problems.append("the player on move holds no card")
    if trick_mask and not 0 <= passes <= 2:
        problems.append(f"{passes} passes after an active trick")
    if problems:
        raise ValueError("this observation cannot come from a Big 2 game: " + "; ".join(problems))
    trick = tuple(mask_to_cards(trick_mask)) or None
    if trick is None:
        passed = 0
    else:
        for k in range(passes):  # the seats just before the player on move passed: 3 (previous), then 2
            passed |= 1 << (3 - k)
    return PublicState(
        hand=hand,
        trick=trick,
        trick_player=None if trick is None else 3 - passes,
        passes=passes if trick is not None else 0,
        played_mask=played_mask,
        played_by=(mine, by_other[0], by_other[1], by_other[2]),
        cards_left=(len(hand),) + left,  # type: ignore[arg-type]
        opening=played_mask == 0,
        declined=declined,
        passed=passed,
        history=tuple(history_moves(obs["history"])) if isinstance(obs, Mapping) and "history" in obs else (),
    )


def state_game(state: PublicState, hands: Sequence[int], rules: Rules) -> Game:
    """A :class:`Game` in relative seats (the player on move is seat 0) at ``state`` with the given hand bitmasks."""
    if state.trick is not None and classify(state.trick, rules) is None:
        raise ValueError(f"the trick {state.trick} is not a legal combination under {rules}")
    game = Game.__new__(Game)
    game._start(rules, list(hands), 0, state.opening, state.trick, state.trick_player, state.passes, state.passed,
                state.played_by)
    return game


def game_row(game: Game) -> np.ndarray:
    """``game``'s position as a row of the compiled core (:data:`~big2_env.engine.core.games.GAME_SIZE` int64: the
    four hands' bitmasks, then the table of :data:`~big2_env.engine.core.games.TABLE_FIELDS`), seats as the game's."""
    return game._row[0].copy()
