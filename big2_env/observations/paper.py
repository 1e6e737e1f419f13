"""The paper's encodings: the 277-number information state, the 1695-action
hand-slot index with its mask, and the 80-number candidate features.

Information state (float32, for the acting player ``i``; the others are listed
clockwise from ``i``: next, across, previous):

====== ===== ====================================================================
slice  size  content
====== ===== ====================================================================
0:13   13    ``i``'s hand as card ids, ascending, padded with 52
13:65  52    indicator of the active trick's cards (all 0 when leading)
65:117 52    indicator of every card played so far
117:120 3    cards left in each other player's hand
120    1     consecutive passes since the last play (3 when control returns)
121:277 156  per other player, indicator of the cards they have played
====== ===== ====================================================================

It is built only from ``i``'s hand and public history, never from another
player's unplayed cards.

Action index (hand-slot scheme): with the hand sorted ascending, an action names
the slots (0..12) it plays. Blocks, each in lexicographic order of slot tuples:

============ ======= ==========================================================
indices      count   slot tuples
============ ======= ==========================================================
0..12        13      singles ``(i,)``
13..45       33      pairs ``i<j``, ``j<=i+3``
46..76       31      triples ``i<j<k``, ``k<=i+3``
77..406      330     four-card sets ``a<b<c<d``, ``b<=a+3``, ``d<=c+3`` (two pair
                     and four of a kind; used only with ``four_card_plays``)
407..1693    1287    five-card sets (all ``C(13, 5)``)
1694         1       pass
============ ======= ==========================================================

Candidate features (80 float32 per legal action):

====== ===== ====================================================================
slice  size  content
====== ===== ====================================================================
0:52   52    indicator of the cards played
52     1     pass bit (for pass, the only 1 in the row)
53:61  8     one-hot category: single, pair, triple, straight, flush, full house,
             four of a kind, straight flush (two pair -> pair, four-card quads ->
             four of a kind)
61:74  13    one-hot rank of the comparison card
74:78  4     one-hot suit of the comparison card
78     1     number of cards / 5
79     1     rank of the comparison card / 12
====== ===== ====================================================================

The comparison card is the card that decides comparisons: the card of a single,
the highest card of a pair, triple, two pair, straight, flush or straight flush,
the highest card of the triple of a full house and of the four of a four of a kind.
"""

from __future__ import annotations

import struct
from typing import Sequence

import numpy as np

from ..engine.cards import (
    check_hand,
    check_index,
    format_cards,
    format_play,
    mask_to_cards,
)
from ..engine.combos import FEATURE_CATEGORY, Entry, classify
from ..engine.rules import Rules
from .layout import (  # noqa: F401 - the layout is part of this module's interface
    ACTION_SLOTS,
    BLOCK_STARTS,
    FEAT_CARDS,
    FEAT_CATEGORY,
    FEAT_NUM_CARDS,
    FEAT_PASS,
    FEAT_RANK,
    FEAT_RANK_SCALED,
    FEAT_SUIT,
    FEATURE_SIZE,
    HAND_SLOTS,
    NUM_ACTIONS,
    OBS_CARDS_LEFT,
    OBS_HAND,
    OBS_PASSES,
    OBS_PLAYED,
    OBS_PLAYED_BY,
    OBS_SIZE,
    OBS_TRICK,
    PAD_CARD,
    PASS_ACTION,
)


_SLOT_MASK_TO_INDEX = [-1] * (1 << HAND_SLOTS)
for _index, _slots in enumerate(ACTION_SLOTS[:-1]):
    _SLOT_MASK_TO_INDEX[sum(1 << s for s in _slots)] = _index


def _slot_mask(play: Sequence[int], hand_mask: int) -> int:
    mask = 0
    for c in play:
        mask |= 1 << (hand_mask & ((1 << c) - 1)).bit_count()
    return mask


def check_action(action: object) -> int:
    """``action`` as a Python int if it is an action index, else ``ValueError``.

    The one action validator of the package (the envs and :func:`action_cards` use
    it): a Python int, a numpy integer or a 0-d integer numpy array in ``0..1694``;
    never a bool, a float (even an integral one), a string or ``None``.
    """
    if type(action) is int and 0 <= action < NUM_ACTIONS:  # the fast path
        return action
    if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
        action = action[()]
    return check_index(action, "action", NUM_ACTIONS, f"an int in 0..{NUM_ACTIONS - 1}")


def check_step_action(action: object, agent: str, done: bool) -> int | None:
    """An env's ``step`` argument checked by :func:`check_action`, or ``None`` for an agent that is ``done``.

    PettingZoo requires ``None`` as the action of a terminated or truncated agent;
    for the agent on move ``None`` raises ``ValueError`` like any other bad action.
    """
    if action is None:
        if done:
            return None
        raise ValueError(
            f"action None is only for an agent that is done; {agent} is on move and must give "
            f"an int in 0..{NUM_ACTIONS - 1}"
        )
    return check_action(action)


def action_index(play: Sequence[int], hand: Sequence[int]) -> int:
    """Index (0..1694) of ``play`` made from ``hand``; ``()`` is :data:`PASS_ACTION`.

    ``play`` and ``hand`` are collections of distinct card ids (ints or numpy
    integers in 0..51, at most 13; see :func:`big2_env.engine.cards.check_hand`).

    >>> from big2_env.engine.cards import parse_cards
    >>> hand = parse_cards("3D 3S 5H 9C")
    >>> action_index(parse_cards("3D 3S"), hand), action_index((), hand)
    (13, 1694)
    """
    hand_mask = check_hand(hand, "hand")
    play_mask = check_hand(play, "play")
    if not play_mask:
        return PASS_ACTION
    missing = play_mask & ~hand_mask
    if missing:
        raise ValueError(f"card(s) {format_cards(mask_to_cards(missing))} of the play are not in the hand")
    play_cards = mask_to_cards(play_mask)
    index = _SLOT_MASK_TO_INDEX[_slot_mask(play_cards, hand_mask)]
    if index < 0:
        raise ValueError(f"the play {format_play(play_cards)!r} has no action index (not a slot set of the scheme)")
    return index


def action_cards(index: int, hand: Sequence[int]) -> tuple[int, ...]:
    """The sorted cards that action ``index`` names in ``hand`` (``()`` for pass).

    ``index`` is checked by :func:`check_action`, ``hand`` by
    :func:`big2_env.engine.cards.check_hand`. Raises ``ValueError`` when either is
    malformed or the index names a slot the hand does not have.
    """
    index = check_action(index)
    ordered = mask_to_cards(check_hand(hand, "hand"))
    slots = ACTION_SLOTS[index]
    if slots and slots[-1] >= len(ordered):
        raise ValueError(f"action {index} names hand slot {slots[-1]} but the hand has {len(ordered)} cards")
    return tuple(ordered[s] for s in slots)


def entry_action_indices(entries: Sequence[Entry], hand_mask: int) -> list[int]:
    """Action indices of legal-play entries made from the hand with bitmask ``hand_mask``."""
    table = _SLOT_MASK_TO_INDEX
    return [table[_slot_mask(e[1], hand_mask)] if e[1] else PASS_ACTION for e in entries]


def observation(game, player: int) -> np.ndarray:
    """The information state of ``player`` in ``game`` (a :class:`big2_env.engine.game.Game`), written
    by the compiled view (:func:`big2_env.observations.compiled.game_observation`)."""
    from .compiled import game_observation  # numba loads at the first observation, not at import

    return game_observation(game, player)


_FEATURE_ROW = struct.Struct(f"<{FEATURE_SIZE}f")
_FEATURE_CACHE: dict[Entry, bytes] = {}
_FEATURE_CACHE_LIMIT = 200_000  # about 70 MB at most; cleared when full


def _feature_row(entry: Entry) -> bytes:
    row = [0.0] * FEATURE_SIZE
    play = entry[1]
    if not play:
        row[FEAT_PASS] = 1.0
    else:
        for c in play:
            row[c] = 1.0
        card = entry[4]
        rank = card >> 2
        row[FEAT_CATEGORY + FEATURE_CATEGORY[entry[3]]] = 1.0
        row[FEAT_RANK + rank] = 1.0
        row[FEAT_SUIT + (card & 3)] = 1.0
        row[FEAT_NUM_CARDS] = len(play) / 5.0
        row[FEAT_RANK_SCALED] = rank / 12.0
    return _FEATURE_ROW.pack(*row)


def entry_features(entries: Sequence[Entry]) -> np.ndarray:
    """(n, 80) float32 candidate features of legal-play entries (see the module docstring).

    Rows are cached per entry (the same combination recurs across decisions and games).
    """
    cache = _FEATURE_CACHE
    rows = []
    for e in entries:
        row = cache.get(e)
        if row is None:
            if len(cache) >= _FEATURE_CACHE_LIMIT:
                cache.clear()
            row = cache[e] = _feature_row(e)
        rows.append(row)
    return np.frombuffer(bytearray(b"".join(rows)), dtype=np.float32).reshape(len(rows), FEATURE_SIZE)


def play_features(play: Sequence[int], rules: Rules = Rules()) -> np.ndarray:
    """The 80 candidate features of one play (``()`` for pass) under ``rules``.

    ``play`` is a collection of distinct card ids (see :func:`big2_env.engine.cards.check_hand`).

    >>> from big2_env.engine.cards import parse_cards
    >>> f = play_features(parse_cards("3D 3S"))
    >>> int(f[:52].sum()), int(f[52]), int(f[54]), round(float(f[78]), 3)
    (2, 0, 1, 0.4)
    """
    mask = check_hand(play, "play")
    if not mask:
        return entry_features([(-1, (), 0, -1, -1)])[0]
    play_t = tuple(mask_to_cards(mask))
    combo = classify(play_t, Rules.coerce(rules))
    if combo is None:
        raise ValueError(f"{format_cards(play_t)!r} is not a legal combination under these rules")
    return entry_features([(combo.strength, play_t, mask, combo.category, combo.comparison_card)])[0]


def legal_action_mask(game) -> np.ndarray:
    """int8 mask (1695,) of the legal actions of the player on move in ``game``."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[entry_action_indices(game.legal_entries(), game._hand_masks[game.current_player])] = 1
    return mask
