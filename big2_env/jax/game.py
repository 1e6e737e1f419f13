"""The rules of Big 2 as pure JAX functions over a small state (Pgx's ``_src/games`` part: no RL here).

:class:`Game` holds a :class:`~big2_env.engine.rules.Rules` as static configuration (plain
Python values read while tracing, so each rule set compiles to its own program) and gives:

* :meth:`Game.init` ``(deck)``: the deal (seat ``i`` gets ``deck[13 i : 13 i + 13]``, as in the
  compiled core) with the holder of 3D on move;
* :meth:`Game.step` ``(x, action)``: the player on move makes action ``action`` of the 1695-action
  index (1694: pass), which must be legal;
* :meth:`Game.legal_action_mask`, :meth:`Game.is_terminal`, :meth:`Game.scores`,
  :meth:`Game.rewards`; the views are in :mod:`big2_env.jax.views`.

Every function is pure, so ``jax.jit`` and ``jax.vmap`` apply. The state, :class:`GameState`,
is a ``NamedTuple`` of arrays: hands and played cards as ``bool[4, 52]``, the trick as
``bool[52]`` with its size and strength, and the counters the compiled core keeps
(:data:`big2_env.engine.core.games.TABLE_FIELDS`), plus what Charlesworth's view remembers.

The rules mirror the compiled core (:mod:`big2_env.engine.core.kernels`) number for number: a
play's strength is what ``combos_into`` gives it (singles, pairs and triples their top card id;
two pair its top card, four of a kind ``QUADS4_OFFSET`` + rank; five-card hands
``FIVE_SCALE * kind + ...``), so "beats" is the same comparison. ``tests/differential/test_jax_core.py``
plays both side by side and compares everything at every decision.

Example:
    >>> import jax, jax.numpy as jnp
    >>> game = Game("paper")
    >>> x = game.init(jnp.arange(52))                  # seat 0 holds 3D .. 6S
    >>> int(x.player), int(jax.jit(game.legal_action_mask)(x).sum())   # opening: the 78 plays holding 3D
    (0, 78)
    >>> x = jax.jit(game.step)(x, 0)                   # 3D alone
    >>> int(x.player), int(x.trick_size), int(x.trick_strength)
    (1, 1, 0)
"""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from ..engine.core.kernels import (
    FIVE_SCALE,
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    PAIR,
    QUADS,
    QUADS4_OFFSET,
    SINGLE,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TRIPLE,
    TWO_PAIR,
)
from ..engine.rules import Rules
from .tables import BLOCKS, PAD_CARD, PASS_ACTION, SIZES, SLOTS, STRAIGHT_SHAPES

__all__ = ["CW_LAST_SIZE", "Game", "GameState", "play_cards", "slot_cards", "sorted_cards"]

Array = Any
CW_FLAG_COUNT = 6
"""Charlesworth's per-seat kind flags: ever played a pair, triple, four-card hand, straight, flush, full house."""
CW_LAST_SIZE = 29
"""Charlesworth's last-play section (his numbers 383..411), kept per viewer."""
_CW_CONTROL, _CW_SINGLE, _CW_TWO_PAIR, _CW_QUADS = 17, 18, 21, 22
_CW_STRAIGHT, _CW_FLUSH, _CW_FULL_HOUSE, _CW_NO_PASS, _CW_ONE_PASS, _CW_TWO_PASSES = 23, 24, 25, 26, 27, 28

_CARDS = np.arange(52, dtype=np.int32)
_SLOT_RANGE = np.arange(13, dtype=np.int32)


class GameState(NamedTuple):
    """One game: every field an array (a batch of games stacks them on a leading axis)."""

    hands: Array
    """``bool[4, 52]``: the cards each seat holds."""
    played: Array
    """``bool[4, 52]``: the cards each seat has played."""
    player: Array
    """``int32``: the seat on move (the winner, once the game is over)."""
    trick: Array
    """``bool[52]``: the cards of the play to beat (none when leading)."""
    trick_size: Array
    """``int32``: its number of cards (0: the player on move leads)."""
    trick_strength: Array
    """``int32``: its strength, as the compiled core numbers it."""
    passes: Array
    """``int32``: passes since the last play (3 when control came back)."""
    passed: Array
    """``bool[4]``: the seats that passed since the trick was led (``pass_locks`` locks them out)."""
    opening: Array
    """``bool``: nothing played yet (the opening rule applies)."""
    winner: Array
    """``int32``: the seat that emptied its hand, -1 while the game goes on."""
    cw_flags: Array
    """``bool[4, 6]``: Charlesworth's kind flags per seat (what kinds of play it has made)."""
    cw_last: Array
    """``bool[4, 29]``: Charlesworth's last-play section as each viewer sees it."""
    cw_passes: Array
    """``int32``: his pass counter (0..2)."""


def sorted_cards(hand: Array) -> Array:
    """The card ids of ``hand`` (``bool[52]``) ascending, padded with 52 to 13 numbers (int32).

    A prefix sum places each held card at its slot; no sort is needed.

    >>> import jax.numpy as jnp
    >>> sorted_cards(jnp.zeros(52, bool).at[jnp.array([7, 0, 51])].set(True)).tolist()[:4]
    [0, 7, 51, 52]
    """
    slot = jnp.cumsum(hand) - 1
    at = hand[:, None] & (slot[:, None] == _SLOT_RANGE[None, :])  # (52, 13): card c sits at slot s
    return jnp.where(at.any(axis=0), (at * _CARDS[:, None]).sum(axis=0), PAD_CARD).astype(jnp.int32)


def slot_cards(hand: Array) -> Array:
    """``int32[14]``: :func:`sorted_cards` of ``hand`` and the pad slot's card 52 (slot 13), so that any
    action's slots (:data:`~big2_env.jax.tables.SLOTS`) index it directly.

    >>> import jax.numpy as jnp
    >>> slot_cards(jnp.zeros(52, bool).at[jnp.array([7, 0])].set(True)).tolist()[:3], int(slot_cards(jnp.ones(52, bool))[13])
    ([0, 7, 52], 52)
    """
    return jnp.append(sorted_cards(hand), PAD_CARD)


def play_cards(hand: Array) -> Array:
    """``int32[1694, 5]``: the cards of every play of the index (ascending, 52 for a slot past the hand's
    last card and for the padding of plays of fewer than five cards), for the hand ``hand`` (``bool[52]``).

    >>> import jax.numpy as jnp
    >>> cards = play_cards(jnp.zeros(52, bool).at[jnp.array([7, 0, 51])].set(True))
    >>> cards[0].tolist(), cards[13].tolist(), cards[3].tolist()   # slot 0; slots 0 and 1; slot 3: none
    ([0, 52, 52, 52, 52], [0, 7, 52, 52, 52], [52, 52, 52, 52, 52])
    """
    return slot_cards(hand)[jnp.asarray(SLOTS[:PASS_ACTION])]


def _coerce_rules(rules: Rules | str | Mapping[str, Any] | None) -> Rules:
    return Rules.coerce(rules)


class Game:
    """The rules under one rule set (static): see the module docstring.

    Args:
        rules: a :class:`~big2_env.engine.rules.Rules`, a preset name (``"paper"``,
            ``"charlesworth"``), a dict of its keywords or ``None`` (the paper's rules).

    >>> Game("charlesworth").rules.straights
    'to_two'
    >>> Game("bogus")
    Traceback (most recent call last):
    ...
    ValueError: unknown rules preset 'bogus'; allowed: 'paper', 'charlesworth'
    """

    def __init__(self, rules: Rules | str | Mapping[str, Any] | None = None) -> None:
        self.rules = _coerce_rules(rules)
        shapes = STRAIGHT_SHAPES[self.rules.straights]
        self._shapes = shapes
        self._suit_first = self.rules.flush_order == "suit_first"
        self._hk = self.rules.scoring == "hk"

    def __repr__(self) -> str:
        return f"Game(rules={self.rules!r})"

    # ------------------------------------------------------------------ the deal
    def init(self, deck: Array) -> GameState:
        """The game dealt from ``deck`` (a permutation of 0..51; seat ``i`` gets ``deck[13 i : 13 i + 13]``)."""
        deck = jnp.asarray(deck, dtype=jnp.int32)
        seat_of = jnp.zeros(52, dtype=jnp.int32).at[deck].set(jnp.arange(52, dtype=jnp.int32) // 13)
        hands = seat_of[None, :] == jnp.arange(4, dtype=jnp.int32)[:, None]
        return GameState(
            hands=hands,
            played=jnp.zeros((4, 52), dtype=jnp.bool_),
            player=seat_of[0],
            trick=jnp.zeros(52, dtype=jnp.bool_),
            trick_size=jnp.int32(0),
            trick_strength=jnp.int32(0),
            passes=jnp.int32(0),
            passed=jnp.zeros(4, dtype=jnp.bool_),
            opening=jnp.bool_(True),
            winner=jnp.int32(-1),
            cw_flags=jnp.zeros((4, CW_FLAG_COUNT), dtype=jnp.bool_),
            cw_last=jnp.zeros((4, CW_LAST_SIZE), dtype=jnp.bool_),
            cw_passes=jnp.int32(0),
        )

    # ------------------------------------------------------------------ combinations
    def classify(self, cards: Array, size: int) -> tuple[Array, Array, Array]:
        """Whether the ``size`` cards ``cards[..., :size]`` (ascending card ids; 52 pads a missing
        card) are a combination under the rules, with its strength and category as the compiled
        core's ``combos_into`` gives them (0 where it is not one).

        >>> import jax.numpy as jnp
        >>> game = Game("paper")
        >>> [int(v) for v in game.classify(jnp.array([0, 4, 8, 12, 16]), 5)]  # 3D 4D 5D 6D 7D
        [1, 4016, 9]
        >>> [int(v) for v in game.classify(jnp.array([0, 1, 2, 5, 6]), 5)]    # 3s full of 4s
        [1, 2000, 7]
        """
        if size not in (1, 2, 3, 4, 5):
            raise ValueError(f"size must be 1 to 5; got {size!r}")
        return self._classify_columns([cards[..., k] for k in range(size)])

    def _classify_columns(self, c: list[Array]) -> tuple[Array, Array, Array]:
        """:meth:`classify` over the cards as a list of ``size`` arrays (the lowest card's first).

        Elementwise work alone (no reduction over the cards, no stacked intermediate), so that XLA
        fuses a whole block of the index into one loop that reads the hand's slots and writes the
        block's answers: on a GPU the mask is then bound by neither memory nor launches.
        """
        rules = self.rules
        size = len(c)
        top = c[-1]
        held = top < PAD_CARD
        r = [card >> 2 for card in c]  # shifts, not floor division: cheaper, and the same for card ids
        zero = jnp.zeros_like(top)
        if size == 1:
            return held, top, zero + SINGLE
        if size == 2:
            return held & (r[0] == r[1]), top, zero + PAIR
        if size == 3:
            return held & (r[0] == r[2]) & rules.lone_triples, top, zero + TRIPLE
        if size == 4:
            r0, r1, r2, r3 = r
            quads = r0 == r3
            two_pair = (r0 == r1) & (r2 == r3) & (r1 != r2)
            ok = held & (quads | two_pair) & rules.four_card_plays
            return ok, jnp.where(quads, QUADS4_OFFSET + r0, top), jnp.where(quads, QUADS, TWO_PAIR)
        r0, r1, r2, r3, r4 = r
        s = [card & 3 for card in c]
        distinct = (r0 < r1) & (r1 < r2) & (r2 < r3) & (r3 < r4)
        rank_bits = (1 << r0) | (1 << r1) | (1 << r2) | (1 << r3) | (1 << r4)  # the ranks' mask, when distinct
        straight = jnp.zeros_like(held)
        shape = zero  # the matching shape's index (at most one matches)
        for index, mask in enumerate(self._shapes.tolist()):
            hit = rank_bits == mask
            straight = straight | hit
            shape = jnp.where(hit, index, shape)
        straight = straight & distinct
        suited = (s[0] == s[1]) & (s[0] == s[2]) & (s[0] == s[3]) & (s[0] == s[4])
        full_house = ((r0 == r2) & (r3 == r4) & (r2 != r3)) | ((r0 == r1) & (r2 == r4) & (r1 != r2))
        four_kind = (((r0 == r3) & (r3 != r4)) | ((r1 == r4) & (r0 != r1))) & rules.five_card_quads
        flush_key = (top & 3) * 52 + top if self._suit_first else top
        # the kinds exclude each other once a straight flush is taken first (a pair in the ranks
        # rules out a flush and a straight; a flush's five suits rule out repeated ranks)
        strength = jnp.where(
            straight, jnp.where(suited, 4 * FIVE_SCALE, 0) + shape * 52 + top,
            jnp.where(suited, FIVE_SCALE + flush_key,
                      jnp.where(full_house, 2 * FIVE_SCALE + r2,  # the middle card is always of the triple's rank
                                jnp.where(four_kind, 3 * FIVE_SCALE + r2, 0)))).astype(jnp.int32)  # and of the four's
        category = jnp.where(
            straight, jnp.where(suited, STRAIGHT_FLUSH, STRAIGHT),
            jnp.where(suited, FLUSH, jnp.where(full_house, FULL_HOUSE, jnp.where(four_kind, FOUR_OF_A_KIND, 0))),
        ).astype(jnp.int32)
        ok = held & (straight | suited | full_house | four_kind)
        return ok, strength, category

    # ------------------------------------------------------------------ legality
    def locked(self, x: GameState) -> Array:
        """Whether the player on move may only pass (``pass_locks``: it passed earlier in this trick)."""
        if not self.rules.pass_locks:
            return jnp.bool_(False)
        return x.passed[x.player]

    def legal_action_mask(self, x: GameState) -> Array:
        """``bool[1695]``: the legal actions of the player on move (pass, 1694, exactly when facing a trick).

        Each action's cards are its slots in the mover's sorted hand (:func:`play_cards`); a play is legal when its
        slots are all held, it is a combination under the rules, and it either leads (under the
        opening rule at the game's first play) or beats the trick: the same size, a higher strength.
        """
        hand = slot_cards(x.hands[x.player])
        lead = x.trick_size == 0
        blocked = self.locked(x)
        parts = []
        for start, stop, size in BLOCKS:
            if (size == 3 and not self.rules.lone_triples) or (size == 4 and not self.rules.four_card_plays):
                parts.append(jnp.zeros(stop - start, dtype=jnp.bool_))
                continue
            columns = [hand[jnp.asarray(SLOTS[start:stop, k])] for k in range(size)]  # the block's k-th cards
            ok, strength, _ = self._classify_columns(columns)
            beats = (x.trick_size == size) & (strength > x.trick_strength)
            opens = self._opening_allows(columns[0], size)
            parts.append(ok & jnp.where(lead, ~x.opening | opens, beats) & ~blocked)
        parts.append(jnp.reshape(~lead, (1,)))
        return jnp.concatenate(parts)

    def _opening_allows(self, lowest: Array, size: int) -> Array:
        """Which of a block's plays (``lowest``: each play's lowest card) the opening rule allows at the game's first play."""
        opening = self.rules.opening
        if opening == "3D_leads_free":
            return jnp.ones(lowest.shape, dtype=jnp.bool_)
        holds_3d = lowest == 0  # the lowest card is 3D
        if opening == "3D_single":
            return holds_3d & (size == 1)
        return holds_3d

    # ------------------------------------------------------------------ a move
    def step(self, x: GameState, action: Array) -> GameState:
        """The player on move makes ``action`` (an int in 0..1694, legal: :meth:`legal_action_mask`).

        A play leaves the hand and becomes the trick; three passes in a row clear the trick (and
        the passes' locks); emptying a hand wins, and the winner stays on move.
        """
        action = jnp.asarray(action, dtype=jnp.int32)
        player = x.player
        slots = jnp.asarray(SLOTS)[action]
        cards = slot_cards(x.hands[player])[slots]  # (5,), ascending, padded
        size = jnp.asarray(SIZES)[action]
        strengths = [jnp.int32(0)] + [self.classify(cards, k)[1] for k in range(1, 6)]
        strength = jnp.stack(strengths)[size]
        play = (cards[:, None] == _CARDS[None, :]).any(axis=0)  # bool[52] (the pad matches nothing)
        is_pass = action == PASS_ACTION
        following = (player + 1) % 4

        # a pass
        passes = x.passes + 1
        cleared = passes == 3
        passed_after = jnp.where(cleared, False, x.passed.at[player].set(True))
        on_pass = x._replace(
            player=following,
            trick=jnp.where(cleared, False, x.trick),
            trick_size=jnp.where(cleared, 0, x.trick_size),
            trick_strength=jnp.where(cleared, 0, x.trick_strength),
            passes=passes,
            passed=passed_after,
        )
        # a play
        hand = x.hands[player] & ~play
        won = ~hand.any()
        on_play = x._replace(
            hands=x.hands.at[player].set(hand),
            played=x.played.at[player].set(x.played[player] | play),
            player=jnp.where(won, player, following),
            trick=play,
            trick_size=size,
            trick_strength=strength,
            passes=jnp.int32(0),
            opening=jnp.bool_(False),
            winner=jnp.where(won, player, -1),
        )
        after = jax.tree.map(lambda a, b: jnp.where(is_pass, a, b), on_pass, on_play)
        return self._charlesworth_move(after, x, player, cards, size, is_pass)

    def _charlesworth_move(self, after: GameState, x: GameState, player: Array, cards: Array, size: Array,
                           is_pass: Array) -> GameState:
        """Keep Charlesworth's view up to date as his game does (the compiled vector env's
        ``_charlesworth_move``, quirks included): the mover's kind flags, each viewer's last-play
        section and his pass counter."""
        bit = jnp.arange(CW_LAST_SIZE, dtype=jnp.int32)
        viewers = (player + jnp.arange(1, 4, dtype=jnp.int32)) % 4
        # a pass: the others' sections count it (the third clears them, and the next seat gets control)
        count = x.cw_passes
        marked = (x.cw_last & (bit < _CW_NO_PASS)) | (bit == jnp.where(count == 0, _CW_ONE_PASS, _CW_TWO_PASSES))
        seen = jnp.where(count < 2, marked[viewers], False)
        last_pass = x.cw_last.at[viewers].set(seen)
        control = bit == _CW_CONTROL
        last_pass = jnp.where(count < 2, last_pass, last_pass.at[(player + 1) % 4].set(control))
        passes_pass = jnp.where(count < 2, count + 1, 0)
        # a play: its kind, key card and suit, as his game reads them
        r = cards // 4
        top = cards[jnp.maximum(size - 1, 0)]
        key, suit = top // 4, top % 4
        rank_present = (r[:, None] == jnp.arange(13)[None, :]).any(axis=0)
        low = r[0]
        window = (jnp.arange(13) >= low) & (jnp.arange(13) < low + 5)
        consecutive = (low <= 8) & (rank_present == window).all()
        s = cards % 4
        one_suit = (s == s[0]).all()
        two_pair = (r[0] == r[1]) & (r[2] == key) & (r[0] != r[2])
        flag = jnp.arange(CW_FLAG_COUNT, dtype=jnp.int32)
        small = size <= 3
        flags = jnp.where(small, (flag == size - 2), flag == 2)
        kind = jnp.where(small, bit == _CW_SINGLE + size - 1, bit == jnp.where(two_pair, _CW_TWO_PAIR, _CW_QUADS))
        five = size == 5
        flags5 = ((flag == 3) & consecutive) | jnp.where(one_suit, flag == 4, flag == 5)
        kind5 = ((bit == _CW_STRAIGHT) & consecutive) | jnp.where(one_suit, bit == _CW_FLUSH, bit == _CW_FULL_HOUSE)
        flags = jnp.where(five, flags5, flags)
        kind = jnp.where(five, kind5, kind)
        keyed_middle = five & ~one_suit  # a full house (or, his quirk, a plain straight): the middle card, no suit
        key = jnp.where(keyed_middle, r[2], key)
        section = kind | (bit == key) | (bit == _CW_NO_PASS) | ((bit == 13 + suit) & ~keyed_middle)
        last_play = x.cw_last.at[viewers].set(section).at[player].set(False)
        flags_play = x.cw_flags.at[player].set(x.cw_flags[player] | flags)
        return after._replace(
            cw_flags=jnp.where(is_pass, x.cw_flags, flags_play),
            cw_last=jnp.where(is_pass, last_pass, last_play),
            cw_passes=jnp.where(is_pass, passes_pass, 0),
        )

    # ------------------------------------------------------------------ the end
    def is_terminal(self, x: GameState) -> Array:
        """Whether a seat has emptied its hand."""
        return x.winner >= 0

    def scores(self, x: GameState) -> Array:
        """``int32[4]``: the final scores in seat order (zeros while the game goes on): each loser pays
        its cards left (Hong Kong scoring: double from 10, triple at 13) to the winner."""
        left = x.hands.sum(axis=1).astype(jnp.int32)
        if self._hk:
            penalty = left * jnp.where(left == 13, 3, jnp.where(left >= 10, 2, 1))
        else:
            penalty = left
        final = jnp.where(jnp.arange(4) == x.winner, penalty.sum(), -penalty)
        return jnp.where(self.is_terminal(x), final, 0).astype(jnp.int32)

    def rewards(self, x: GameState) -> Array:
        """``float32[4]``: :meth:`scores` as rewards (nonzero only once the game is over)."""
        return self.scores(x).astype(jnp.float32)

