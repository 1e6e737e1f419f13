"""The compiled rules core (numba): combinations, legal plays, the game's state change and scores on int bitmasks.
May import: numpy, numba and big2_env.engine's cards and rules (never anything above the engine).

The kernels: combinations, legal plays and scoring (:mod:`~big2_env.engine.core.kernels`) and the
game's state, one move applied and the final scores (:mod:`~big2_env.engine.core.games`), with the
checked entry points below. Everything in the package plays by these kernels:
:class:`~big2_env.engine.game.Game` and through it the PettingZoo and Gymnasium envs and the
evaluation (via :mod:`big2_env.engine.native`), the vector envs, and the players' compiled
kernels (:mod:`big2_env.players.kernels`: Smart, the fast move model, the search's play-outs, whole
games of random, Greedy and Smart seats). The pure-Python engine in ``tests/reference`` is the
reference they are tested against move by move (``tests/differential/``: ``test_reference_engine.py``,
``test_core.py``, ``test_search_core.py``).

Every entry point here checks its arguments (types, dtypes, shapes, ranges) before compiled
code sees them, and raises ``ValueError`` naming what was wrong and what is allowed.

Compilation: the kernels are compiled on first use and cached on disk (``cache=True``) in
``NUMBA_CACHE_DIR``, which defaults here to a user cache folder
(``$XDG_CACHE_HOME/big2_env/numba/DIGEST`` or ``~/.cache/big2_env/numba/DIGEST``) so that a read-only
install still caches. ``DIGEST`` is :func:`kernel_digest` of the package's kernel modules: numba checks
a cached kernel against its own file only, not against the kernels it calls, so after any kernel
module changes (an upgrade, an edit) every kernel compiles afresh into a new folder.
``NUMBA_DISABLE_JIT=1`` runs the same functions as plain Python.
Importing this package starts :func:`~big2_env.engine.compile_notice.watch`: when a kernel compiles,
a line on stderr says so, and one how long it took (logger ``"big2_env.compile"``).

Example:
    >>> from big2_env import parse_cards
    >>> legal_masks(parse_cards("3D 3S 5H 6H"), parse_cards("4C")).tolist()  # 5H, 6H, pass
    [1024, 16384, 0]
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import numpy as np


def kernel_digest(package: Path) -> str:
    """16 hex digits of a SHA-1 over every module of ``package`` that defines compiled kernels
    (its source mentions ``njit``): their paths within the package and their contents.

    Example:
        >>> len(kernel_digest(Path(__file__).resolve().parents[2]))
        16
    """
    digest = hashlib.sha1()
    for path in sorted(package.rglob("*.py")):
        source = path.read_bytes()
        if b"njit" in source:
            digest.update(path.relative_to(package).as_posix().encode() + b"\0" + source)
    return digest.hexdigest()[:16]


def _default_cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return str(Path(base) / "big2_env" / "numba" / kernel_digest(Path(__file__).resolve().parents[2]))


from numba.core import config as _numba_config  # noqa: E402

if not getattr(_numba_config, "CACHE_DIR"):  # no NUMBA_CACHE_DIR from the user: ours, before any kernel is decorated
    # (numba reads the variable once, when it is first imported, possibly before big2_env: set its config too)
    os.environ["NUMBA_CACHE_DIR"] = _default_cache_dir()
    setattr(_numba_config, "CACHE_DIR", os.environ["NUMBA_CACHE_DIR"])

from ..compile_notice import watch  # noqa: E402

watch()  # every kernel module imports this package first: from here on, a compilation of the core is announced

from ..cards import check_hand, check_seed  # noqa: E402
from ..rules import FLUSH_ORDERS, OPENINGS, SCORINGS, STRAIGHTS, Rules  # noqa: E402
from . import games, kernels  # noqa: E402

__all__ = [
    "MAX_TURNS",
    "check_deck",
    "check_seed",
    "hand_combinations",
    "kernel_digest",
    "legal_masks",
    "legal_position",
    "rules_array",
    "shuffled_decks",
    "warm_up",
]

MAX_TURNS = kernels.MAX_TURNS


def rules_array(rules: Rules | str | dict | None = None) -> np.ndarray:
    """The int64 array a kernel reads for ``rules`` (a :class:`Rules`, preset name, dict or ``None``).

    >>> rules_array("charlesworth").tolist()
    [2, 0, 1, 0, 0, 2, 1, 0]
    """
    r = Rules.coerce(rules)
    return np.array(
        [
            STRAIGHTS.index(r.straights),
            FLUSH_ORDERS.index(r.flush_order),
            int(r.four_card_plays),
            int(r.five_card_quads),
            SCORINGS.index(r.scoring),
            OPENINGS.index(r.opening),
            int(r.lone_triples),
            int(r.pass_locks),
        ],
        dtype=np.int64,
    )


Arrays4 = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def hand_combinations(hand: Any, rules: Rules | str | dict | None = None) -> Arrays4:
    """Every legal combination of ``hand`` (distinct card ids, at most 13), sorted as the Python engine lists them.

    Returns ``(masks, sizes, strengths, categories)``, int64 arrays of one row per combination:
    its card bitmask, number of cards, strength and category.

    >>> from big2_env import parse_cards
    >>> masks, sizes, strengths, categories = hand_combinations(parse_cards("3D 3S 4H"))
    >>> masks.tolist(), sizes.tolist()
    ([1, 8, 64, 9], [1, 1, 1, 2])
    """
    return _combos(check_hand(hand, "hand"), rules_array(rules))


def _combos(mask: int, rules_arr: np.ndarray) -> Arrays4:
    out = [np.empty(kernels.CAPACITY, dtype=np.int64) for _ in range(4)]
    n = kernels.hand_combos(mask, rules_arr, *out)
    return out[0][:n].copy(), out[1][:n].copy(), out[2][:n].copy(), out[3][:n].copy()


def legal_masks(
    hand: Any, trick: Any = None, rules: Rules | str | dict | None = None, opening: bool = False, locked: bool = False
) -> np.ndarray:
    """The legal plays of ``hand`` facing ``trick`` (``None`` or empty when leading), as card masks in the
    engine's order; a pass (mask 0) comes last when legal. ``opening``: the game's first play, under
    the rules' opening rule (the hand must then hold 3D). ``locked``: the player passed earlier in
    this trick, so under the ``pass_locks`` rule it may only pass (ignored when the rules soft-pass).

    >>> from big2_env import parse_cards
    >>> legal_masks(parse_cards("3D 3S 5H 6H"), parse_cards("4C")).tolist()  # 5H, 6H, pass
    [1024, 16384, 0]
    """
    combos, legal, k, trick_row = legal_position(hand, trick, rules, opening, locked)
    chosen = combos[0][legal[:k]]
    return np.append(chosen, 0) if trick_row[0] else chosen


def legal_position(
    hand: Any, trick: Any, rules: Any, opening: Any, locked: Any = False
) -> tuple[Arrays4, np.ndarray, int, tuple[int, int, int]]:
    """The checked position of :func:`legal_masks` (the same arguments): the hand's combinations
    ``(masks, sizes, strengths, categories)``, the legal ones' indices and their count, and the
    trick's ``(size, category, mask)``; ``ValueError`` as :func:`legal_masks` raises it."""
    hand_mask = check_hand(hand, "hand")
    trick_mask = 0 if trick is None else check_hand(trick, "trick")
    if not isinstance(opening, (bool, np.bool_)):
        raise ValueError(f"opening must be True or False; got {opening!r}")
    if not isinstance(locked, (bool, np.bool_)):
        raise ValueError(f"locked must be True or False; got {locked!r}")
    if locked and not trick_mask:
        raise ValueError("locked needs a trick: a pass locks a player only until the trick ends")
    if trick_mask & hand_mask:
        raise ValueError("trick shares cards with the hand")
    if opening and (trick_mask or not hand_mask & 1):
        raise ValueError("the opening play is a lead by the holder of 3D: no trick, and the hand must hold 3D")
    rules_arr = rules_array(rules)
    trick_size = trick_strength = trick_category = 0
    if trick_mask:
        masks, sizes, strengths, categories = _combos(trick_mask, rules_arr)
        found = np.flatnonzero(masks == trick_mask)
        if not len(found):
            raise ValueError("trick is not a legal combination under these rules")
        trick_size, trick_strength = int(sizes[found[0]]), int(strengths[found[0]])
        trick_category = int(categories[found[0]])
    combos = _combos(hand_mask, rules_arr)
    legal = np.empty(kernels.CAPACITY, dtype=np.int64)
    k = kernels.legal_from(combos[0], combos[1], combos[2], len(combos[0]), hand_mask, trick_size, trick_strength,
                           bool(opening), rules_arr[kernels.R_OPENING], bool(locked) and bool(rules_arr[kernels.R_PASS_LOCKS]),
                           legal)
    return combos, legal, int(k), (trick_size, trick_category, trick_mask)


def shuffled_decks(n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` shuffled decks ``(n, 52)`` int64: ``rng.permuted`` of each row of ``0..51``."""
    decks = np.tile(np.arange(52, dtype=np.int64), (n, 1))
    rng.permuted(decks, axis=1, out=decks)
    return decks


def check_deck(deck: Any, uniforms: Any) -> tuple[np.ndarray, np.ndarray]:
    deck_arr = np.asarray(deck)
    if deck_arr.shape != (52,) or deck_arr.dtype.kind not in "iu" or sorted(deck_arr.tolist()) != list(range(52)):
        raise ValueError(f"deck must be a permutation of 0..51 (52 integers); got shape {deck_arr.shape}, dtype {deck_arr.dtype}")
    u = np.asarray(uniforms)
    if u.shape != (MAX_TURNS,) or u.dtype.kind != "f" or not np.all((u >= 0) & (u < 1)):
        raise ValueError(f"uniforms must be {MAX_TURNS} floats in [0, 1); got shape {u.shape}, dtype {u.dtype}")
    return deck_arr.astype(np.int64), u.astype(np.float64)


def warm_up() -> float:
    """Compile (or load from the disk cache) every kernel of the engine's core and return the seconds it took.

    Call it in a parent process before starting helper processes that use the core (the
    evaluation's ``jobs``, the trainers' workers): numba's cache has races when several processes
    build it at once, and each would pay the compile time. :func:`big2_env.players.kernels.warm_up`
    warms the players' kernels too, :func:`big2_env.warm_up` the views and the vector envs as well.
    """
    import time

    started = time.perf_counter()
    hand_combinations([0, 1, 2, 3, 4])
    legal_masks([0, 4, 8], [1])
    rules_arr = rules_array()
    scratch = np.empty((kernels.SCRATCH_ROWS, kernels.WORK_SIZE), dtype=np.int64)
    kernels.legal_rows(7, rules_arr, 0, 0, True, scratch)  # what Game, classify and legal_plays call
    kernels.classify_mask(3, rules_arr, scratch)
    row = np.zeros((1, games.GAME_SIZE), dtype=np.int64)  # a move and the scores, as Game makes them
    games.apply_move(row, 0, 0, games.TABLE_AT, 0, 0, 0, 0)
    games.final_scores(row, 0, 0, 0, rules_arr[kernels.R_SCORING], np.zeros(4, dtype=np.int64))
    return time.perf_counter() - started
