"""The compiled simulation core (numba): combinations, legal plays and random games on int bitmasks.
May import: numpy, numba and big2_env.engine's cards and rules (never anything above the engine).

The kernels: combinations and legal plays (:mod:`~big2_env.engine.core.kernels`), whole games of
random, Greedy and Smart seats (:mod:`~big2_env.engine.core.games`, :mod:`~big2_env.engine.core.smart`),
the fast learned move model (:mod:`~big2_env.engine.core.fast`)
and the search's deals, play-outs and history replay (:mod:`~big2_env.engine.core.rollouts`),
with the checked entry points below. Everything in the package plays by these kernels:
:class:`~big2_env.engine.game.Game` and through it the PettingZoo and Gymnasium envs and the
evaluation (via :mod:`big2_env.engine.native`), the vector envs and the search. The pure-Python
engine in ``tests/reference`` is the reference they are tested against move by move
(``tests/differential/``: ``test_reference_engine.py``, ``test_core.py``, ``test_search_core.py``).

Every entry point here checks its arguments (types, dtypes, shapes, ranges) before compiled
code sees them, and raises ``ValueError`` naming what was wrong and what is allowed.

Compilation: the kernels are compiled on first use and cached on disk (``cache=True``) in
``NUMBA_CACHE_DIR``, which defaults here to a user cache folder
(``$XDG_CACHE_HOME/big2_env/numba`` or ``~/.cache/big2_env/numba``) so that a read-only
install still caches. ``NUMBA_DISABLE_JIT=1`` runs the same functions as plain Python.
Importing this package starts :func:`~big2_env.engine.compile_notice.watch`: when a kernel compiles,
a line on stderr says so, and one how long it took (logger ``"big2_env.compile"``).

Example:
    >>> from big2_env.engine.core import play_random
    >>> games = play_random(8, seed=0)
    >>> games.scores.shape, int(games.scores.sum())
    ((8, 4), 0)
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np


def _default_cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return str(Path(base) / "big2_env" / "numba")


from numba.core import config as _numba_config  # noqa: E402

if not getattr(_numba_config, "CACHE_DIR"):  # no NUMBA_CACHE_DIR from the user: ours, before any kernel is decorated
    # (numba reads the variable once, when it is first imported, possibly before big2_env: set its config too)
    os.environ["NUMBA_CACHE_DIR"] = _default_cache_dir()
    setattr(_numba_config, "CACHE_DIR", os.environ["NUMBA_CACHE_DIR"])

from ..compile_notice import watch  # noqa: E402

watch()  # every kernel module imports this package first: from here on, a compilation of the core is announced

from ...checks import is_int  # noqa: E402
from ..cards import check_hand  # noqa: E402
from ..rules import FLUSH_ORDERS, OPENINGS, SCORINGS, STRAIGHTS, Rules  # noqa: E402
from . import fast, games, kernels, smart  # noqa: E402

__all__ = [
    "MAX_TURNS",
    "check_deck",
    "check_seed",
    "RandomGames",
    "hand_combinations",
    "legal_masks",
    "play_random",
    "random_game_trace",
    "rules_array",
    "shuffled_decks",
    "smart_play",
    "warm_up",
]

MAX_TURNS = kernels.MAX_TURNS
MAX_GAMES = 10_000_000
"""The most games one :func:`play_random` call plays (its arrays are allocated up front)."""


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
    combos, legal, k, trick_row = _position(hand, trick, rules, opening, locked)
    chosen = combos[0][legal[:k]]
    return np.append(chosen, 0) if trick_row[0] else chosen


def smart_play(
    hand: Any, trick: Any = None, rules: Rules | str | dict | None = None, opening: bool = False, locked: bool = False
) -> int:
    """The card mask of the paper's Smart choice (0: pass) for ``hand`` facing ``trick``, arguments
    as in :func:`legal_masks`: the compiled :func:`~big2_env.engine.core.smart.smart_pick`, which
    chooses what :class:`~big2_env.players.smart.SmartPolicy` chooses.

    >>> from big2_env import parse_cards
    >>> from big2_env.engine.cards import format_cards, mask_to_cards
    >>> format_cards(mask_to_cards(smart_play(parse_cards("3D 3S 5H 6H KS"), parse_cards("4C"))))
    '5H'
    """
    hand_mask = check_hand(hand, "hand", min_cards=1)
    (masks, sizes, _, categories), legal, k, (trick_size, trick_category, trick_mask) = _position(
        hand, trick, rules, opening, locked
    )
    pick = smart.smart_pick(hand_mask, masks, sizes, categories, legal, k, trick_size, trick_category,
                            trick_mask, rules_array(rules))
    return 0 if pick == k else int(masks[legal[pick]])


def _position(
    hand: Any, trick: Any, rules: Any, opening: Any, locked: Any = False
) -> tuple[Arrays4, np.ndarray, int, tuple[int, int, int]]:
    """The checked position of :func:`legal_masks`: the hand's combinations, the legal ones' indices
    and count, and the trick's ``(size, category, mask)``."""
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


@dataclass(frozen=True)
class RandomGames:
    """Results of :func:`play_random`: ``scores`` (N, 4) int64, ``winners`` (N,) and ``turns`` (N,) decisions."""

    scores: np.ndarray
    winners: np.ndarray
    turns: np.ndarray

    @property
    def decisions(self) -> int:
        return int(self.turns.sum())


def _check_count(n_games: Any) -> int:
    if not is_int(n_games, 0, MAX_GAMES):
        raise ValueError(f"n_games must be an int in 0..{MAX_GAMES:,}; got {n_games!r} ({type(n_games).__name__})")
    return int(n_games)


def check_seed(seed: Any) -> np.random.Generator:
    """``seed`` as a ``numpy.random.Generator``: ``None``, a non-negative int or a Generator; ``ValueError`` otherwise."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0):
        return np.random.default_rng(None if seed is None else int(seed))
    raise ValueError(f"seed must be None, a non-negative int or a numpy.random.Generator; got {seed!r}")


def deal(n_games: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n_games`` shuffled decks ``(n, 52)`` and move draws ``(n, MAX_TURNS)`` in [0, 1) from ``rng``:
    the decks first (``rng.permuted`` of each row of ``0..51``), then the draws (``rng.random``)."""
    decks = shuffled_decks(n_games, rng)
    return decks, rng.random((n_games, MAX_TURNS))


def shuffled_decks(n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` shuffled decks ``(n, 52)`` int64: ``rng.permuted`` of each row of ``0..51``."""
    decks = np.tile(np.arange(52, dtype=np.int64), (n, 1))
    rng.permuted(decks, axis=1, out=decks)
    return decks


CHUNK = 4096
"""Games dealt and played per kernel call in :func:`play_random` (bounds its memory: 8 MB of draws)."""


def _seat_mask(seats: Any, name: str) -> int:
    try:
        listed = list(seats)
    except TypeError:
        listed = None
    if listed is None or not all(is_int(s, 0, 3) for s in listed):
        raise ValueError(f"{name} must be a collection of seats 0..3; got {seats!r}")
    return sum(1 << int(s) for s in set(listed))


def _seat_masks(greedy_seats: Any, smart_seats: Any) -> tuple[int, int]:
    greedy, smart = _seat_mask(greedy_seats, "greedy_seats"), _seat_mask(smart_seats, "smart_seats")
    if greedy & smart:
        raise ValueError(f"a seat cannot be both Greedy and Smart; greedy_seats={greedy_seats!r}, smart_seats={smart_seats!r}")
    return greedy, smart


def play_random(
    n_games: int, seed: Any = None, rules: Rules | str | dict | None = None, greedy_seats: Any = (), smart_seats: Any = ()
) -> RandomGames:
    """Play ``n_games`` games of uniformly random legal moves in the compiled core.

    The seats in ``greedy_seats`` play the paper's Greedy instead (its first legal play in the
    engine's order: the weakest of the smallest size; pass only when nothing else is legal),
    move for move what :class:`~big2_env.players.greedy.GreedyPolicy` chooses; those in
    ``smart_seats`` play the paper's Smart (:func:`big2_env.engine.core.smart.smart_pick`), move
    for move what :class:`~big2_env.players.smart.SmartPolicy` chooses.

    The games are dealt and played in chunks of :data:`CHUNK` from :func:`deal`'s draws: at each
    turn the player on move makes legal play ``floor(u * n)`` of its ``n`` legal plays (in the
    engine's order, pass last), so the Python engine replays the same game from the same draws
    (:func:`random_game_trace` gives one game's record).
    """
    n = _check_count(n_games)
    rng = check_seed(seed)
    rules_arr = rules_array(rules)
    greedy, smart = _seat_masks(greedy_seats, smart_seats)
    scores = np.zeros((n, 4), dtype=np.int64)
    winners = np.zeros(n, dtype=np.int64)
    turns = np.zeros(n, dtype=np.int64)
    for start in range(0, n, CHUNK):
        stop = min(n, start + CHUNK)
        decks, uniforms = deal(stop - start, rng)
        games.random_games(decks, uniforms, rules_arr, scores[start:stop], winners[start:stop], turns[start:stop], greedy, smart)
    return RandomGames(scores, winners, turns)


def check_deck(deck: Any, uniforms: Any) -> tuple[np.ndarray, np.ndarray]:
    deck_arr = np.asarray(deck)
    if deck_arr.shape != (52,) or deck_arr.dtype.kind not in "iu" or sorted(deck_arr.tolist()) != list(range(52)):
        raise ValueError(f"deck must be a permutation of 0..51 (52 integers); got shape {deck_arr.shape}, dtype {deck_arr.dtype}")
    u = np.asarray(uniforms)
    if u.shape != (MAX_TURNS,) or u.dtype.kind != "f" or not np.all((u >= 0) & (u < 1)):
        raise ValueError(f"uniforms must be {MAX_TURNS} floats in [0, 1); got shape {u.shape}, dtype {u.dtype}")
    return deck_arr.astype(np.int64), u.astype(np.float64)


def random_game_trace(
    deck: Any, uniforms: Any, rules: Rules | str | dict | None = None, greedy_seats: Any = (), smart_seats: Any = ()
) -> tuple[np.ndarray, np.ndarray, int]:
    """One game of :func:`play_random`'s kind from a given ``deck`` (a permutation of 0..51) and
    ``uniforms`` (``MAX_TURNS`` floats in [0, 1)), with its record; ``greedy_seats`` and
    ``smart_seats`` as in :func:`play_random`.

    Returns ``(trace, scores, winner)``: ``trace`` has one row per turn, ``(player, number of
    legal plays, chosen play's card mask)`` (mask 0 is a pass).
    """
    deck_arr, u = check_deck(deck, uniforms)
    greedy, smart = _seat_masks(greedy_seats, smart_seats)
    ws = [np.empty((4, kernels.CAPACITY), dtype=np.int64) for _ in range(4)]
    legal = np.empty(kernels.CAPACITY, dtype=np.int64)
    scores = np.zeros(4, dtype=np.int64)
    trace = np.zeros((MAX_TURNS, 3), dtype=np.int64)
    # a numba dispatcher: mypy sees no signature
    winner, turns = games.random_game(  # type: ignore[call-arg]
        deck_arr, u, rules_array(rules), *ws, legal, scores, trace, greedy, smart
    )
    return trace[:turns].copy(), scores, int(winner)


def warm_up() -> float:
    """Compile (or load from the disk cache) every kernel of the engine's core and return the seconds it took.

    Call it in a parent process before starting helper processes that use the core (the
    evaluation's ``jobs``, the trainers' workers): numba's cache has races when several processes
    build it at once, and each would pay the compile time. :func:`big2_env.warm_up` warms the
    views and the vector env too.
    """
    import time

    from . import rollouts

    started = time.perf_counter()
    play_random(1, seed=0, greedy_seats=[1], smart_seats=[2])
    deck = np.arange(52, dtype=np.int64)
    random_game_trace(deck, np.zeros(MAX_TURNS), greedy_seats=[1], smart_seats=[2])
    smart_play([0, 4, 8], [1])
    hand_combinations([0, 1, 2, 3, 4])
    rules_arr = rules_array()
    scratch = np.empty((kernels.SCRATCH_ROWS, kernels.WORK_SIZE), dtype=np.int64)
    kernels.legal_rows(7, rules_arr, 0, 0, True, scratch)  # what Game, classify and legal_plays call
    kernels.classify_mask(3, rules_arr, scratch)
    work = [np.empty(kernels.CAPACITY, dtype=np.int64) for _ in range(4)]
    rollouts.strongest(15, 4, rules_arr, *work)
    rng = np.random.default_rng(0)
    deals = np.empty((1, 4), dtype=np.int64)
    declined = np.full((4, 5), -1, dtype=np.int64)
    declined[1, 0] = 30
    left = np.array([13, 13, 13, 13], dtype=np.int64)
    hand = sum(1 << c for c in range(13))
    rollouts.deal_hands(rng, 1, hand, np.arange(13, 52, dtype=np.int64), left, declined, 1.0, rules_arr, deals)
    root = np.zeros(games.TABLE_SIZE, dtype=np.int64)
    root[games.T_OPENING], root[games.T_WINNER] = 1, -1
    candidates = np.array([[1, 1, 0, 0]], dtype=np.int64)
    for model in (fast.SEAT_SMART, fast.SEAT_FAST_SAMPLE):
        rollouts.play_outs(deals, root, candidates, np.zeros(1, dtype=np.int64), np.zeros(4), rng, rules_arr, 0,
                           np.empty((1, 1)), np.full(4, model, dtype=np.int64), np.zeros(fast.N_FEATURES))
    course = np.zeros((1, len(rollouts.COURSE_FIELDS)), dtype=np.int64)
    course[0, 1], course[0, 6] = 1, 1
    rollouts.replay_seat(course, 0, np.array([hand], dtype=np.int64), rules_arr, np.arange(4, dtype=np.int64), -0.05, -3.0,
                         np.zeros(fast.N_FEATURES), np.empty((1, 4)))
    return time.perf_counter() - started
