"""The engine's calls into the compiled core: the one source of the rules' combinations, legal plays and scores.

:func:`~big2_env.engine.combos.classify`, :func:`~big2_env.engine.combos.enumerate_combos`,
:func:`~big2_env.engine.legal.legal_plays` and :class:`~big2_env.engine.game.Game` all answer
from the kernels of :mod:`big2_env.engine.core` through the functions here. The
core (and numba) is imported on the first call, not when ``big2_env`` is imported. Callers pass
checked values only: hand and play masks of distinct cards, a :class:`Rules`, sizes 0..5.

Each thread gets its own scratch arrays (the kernels write into them and allocate nothing).
A pure-Python engine in ``tests/reference`` is the reference that the core is tested
against.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from .cards import mask_to_cards
from .rules import Rules

Entry = tuple[int, tuple[int, ...], int, int, int]
"""A legal play as the engine lists it: ``(strength, play, mask, category, comparison_card)``."""
PASS_ENTRY: Entry = (-1, (), 0, -1, -1)
"""The entry of a pass."""

_local = threading.local()
_kernels: Any = None
_games: Any = None


def _scratch() -> tuple[Any, np.ndarray]:
    """The kernels module and this thread's scratch array (:data:`~big2_env.engine.core.kernels.SCRATCH_ROWS` rows)."""
    scratch = getattr(_local, "scratch", None)
    if scratch is None:
        global _kernels
        if _kernels is None:
            from .core import kernels

            _kernels = kernels
        scratch = _local.scratch = np.empty((_kernels.SCRATCH_ROWS, _kernels.WORK_SIZE), dtype=np.int64)
    return _kernels, scratch


def _games_module() -> Any:
    """The core's :mod:`~big2_env.engine.core.games` (imported on first use, as the kernels are)."""
    global _games
    if _games is None:
        from .core import games

        _games = games
    return _games


def rules_array(rules: Rules) -> np.ndarray:
    """The kernels' int64 rules array of ``rules`` (cached, read-only: the kernels only read it)."""
    return _rules_data(rules)[0]


_last: tuple[Any, Any, Any] = (None, None, None)


def _rules_data(rules: Rules) -> tuple[np.ndarray, dict[int, Entry]]:
    """``rules``' kernel array and its entry cache; the last rules seen are found by identity (the
    usual case: one game's rules, decision after decision) before hashing."""
    global _last
    last = _last  # one read: another thread may replace it (never mutate it) meanwhile
    if rules is last[0]:
        return last[1], last[2]
    found = _by_rules.get(rules)
    if found is None:
        from .core import rules_array as build

        array = build(rules)
        array.setflags(write=False)
        found = _by_rules.setdefault(rules, (array, {}))
    _last = (rules, found[0], found[1])
    return found


_by_rules: dict[Rules, tuple[np.ndarray, dict[int, Entry]]] = {}


def legal_entries(hand_mask: int, trick_size: int, trick_strength: int, opening: bool, rules: Rules) -> list[Entry]:
    """The legal plays of a hand facing a trick of ``trick_size`` cards and ``trick_strength`` (size 0
    when leading; ``opening``: the game's first play, under the rules' opening rule), as entries in the
    engine's order (by size, strength, then cards), then :data:`PASS_ENTRY` when facing a trick."""
    kernels, scratch = _scratch()
    k = kernels.legal_rows(hand_mask, _rules_data(rules)[0], trick_size, trick_strength, opening, scratch)
    return _listed(scratch, k, trick_size > 0, rules)


def move(row: np.ndarray, entry: Entry, rules: Rules, listing: bool) -> tuple[list[Entry] | None, tuple[int, ...]]:
    """Make the legal play ``entry`` in the core's one-game ``row`` (shape ``(1, n)``, the plain layout of
    :mod:`~big2_env.engine.core.games`). Returns the legal entries of the seat on move after it, as
    :func:`legal_entries` lists them (with ``listing``, else ``None``), and the row's table after it
    (:data:`~big2_env.engine.core.games.TABLE_FIELDS`). A game played by its legal plays lists them
    after every move, in the same call into the core; the envs read them from their view's kernel."""
    games = _games_module()
    strength, play, mask, category, _ = entry
    if not listing:
        return None, games.move_one(row, mask, len(play), strength, category)
    _, scratch = _scratch()
    k, table = games.move_and_list(row, mask, len(play), strength, category, _rules_data(rules)[0], scratch)
    return _listed(scratch, k, table[1] > 0, rules), table  # table[1]: the trick's size


def _listed(scratch: np.ndarray, k: int, facing: bool, rules: Rules) -> list[Entry]:
    """The entries of the ``k`` plays a kernel listed in ``scratch`` (:func:`entries_from`), then
    :data:`PASS_ENTRY` when ``facing`` a trick; ``k`` -1: none (the game is over), -2: a pass alone
    (the seat passed in this trick, under ``pass_locks``)."""
    if k < 0:
        return [] if k == -1 else [PASS_ENTRY]
    entries = entries_from(scratch, k, rules)
    if facing:
        entries.append(PASS_ENTRY)
    return entries


def entries_from(scratch: np.ndarray, k: int, rules: Rules) -> list[Entry]:
    """The entries of the first ``k`` plays a kernel wrote to the rows of ``scratch`` (masks,
    comparison cards, strengths, categories, as :func:`~big2_env.engine.core.kernels.legal_rows`
    writes them). An entry depends only on its play and the rules, so each is built once and then
    shared (there are about 25,000 legal combinations of 52 cards under any rules)."""
    masks = scratch[0, :k].tolist()
    known = _rules_data(rules)[1]
    found = list(map(known.get, masks))
    if None in found:
        cards, strengths, categories = scratch[1, :k].tolist(), scratch[2, :k].tolist(), scratch[3, :k].tolist()
        for j, entry in enumerate(found):
            if entry is None:
                m = masks[j]
                found[j] = known[m] = (strengths[j], tuple(mask_to_cards(m)), m, categories[j], cards[j])
    return found  # type: ignore[return-value]


def entries_of(masks: list[int], rules: Rules) -> list[Entry]:
    """The entries of legal plays given by their masks (cached ones, else classified)."""
    known = _rules_data(rules)[1]
    found = list(map(known.get, masks))
    if None in found:
        for j, entry in enumerate(found):
            if entry is None:
                m = masks[j]
                classified = classify_mask(m, rules)
                assert classified is not None, "entries_of takes legal plays only"
                category, strength, card = classified
                found[j] = known[m] = (strength, tuple(mask_to_cards(m)), m, category, card)
    return found  # type: ignore[return-value]


def all_entries(hand_mask: int, rules: Rules) -> list[Entry]:
    """Every legal combination of a hand (of any size), as entries in the engine's order."""
    return legal_entries(hand_mask, 0, 0, False, rules)


def hand_penalty(cards_left: int, rules: Rules) -> int:
    """What a loser holding ``cards_left`` cards pays under ``rules``' scoring (the core's
    :func:`~big2_env.engine.core.kernels.hand_penalty`)."""
    kernels, _ = _scratch()
    return int(kernels.hand_penalty(cards_left, _rules_data(rules)[0][kernels.R_SCORING]))


def final_scores(row: np.ndarray, winner: int, rules: Rules) -> list[int]:
    """The final scores of a game ``winner`` won, its hands in the core's game ``row`` (shape ``(1, n)``,
    the four hands first): each loser pays its hand's penalty to the winner (the core's
    :func:`~big2_env.engine.core.games.final_scores`)."""
    kernels, _ = _scratch()
    scores = np.zeros(4, dtype=np.int64)
    _games_module().final_scores(row, 0, 0, winner, _rules_data(rules)[0][kernels.R_SCORING], scores)
    return scores.tolist()


def classify_mask(mask: int, rules: Rules) -> tuple[int, int, int] | None:
    """``(category, strength, comparison_card)`` of the play ``mask`` (1 to 5 cards), or ``None`` when
    it is no legal combination under ``rules``."""
    kernels, scratch = _scratch()
    if not kernels.classify_mask(mask, _rules_data(rules)[0], scratch):
        return None
    return int(scratch[3, 0]), int(scratch[2, 0]), int(scratch[1, 0])
