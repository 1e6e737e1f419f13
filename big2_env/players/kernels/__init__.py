"""The players' compiled kernels (numba): Smart, the fast learned move model, the search's deals,
play-outs and history replay, and whole games of random, Greedy and Smart seats.
May import: numpy, numba and big2_env.engine (its compiled core above all); nothing else of big2_env.

The kernels: Smart's choice and scores (:mod:`~big2_env.players.kernels.smart`), the fast move
model (:mod:`~big2_env.players.kernels.fast`), the search's determinisations, play-outs and
replay of the move history (:mod:`~big2_env.players.kernels.rollouts`) and whole games of seated
heuristics (:mod:`~big2_env.players.kernels.games`), with the checked entry points below. They play
by the engine's core (:mod:`big2_env.engine.core`): its legal plays, its one state change
(:func:`~big2_env.engine.core.games.apply_move`) and its scores. Importing this package loads
numba; ``import big2_env.players`` does not (the players import these kernels on first use).

Example:
    >>> games = play_random(8, seed=0)
    >>> games.scores.shape, int(games.scores.sum())
    ((8, 4), 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...checks import is_int
from ...engine.cards import check_hand
from ...engine.core import MAX_TURNS, check_deck, check_seed, kernels, legal_position, rules_array, shuffled_decks
from ...engine.core.games import T_OPENING, T_WINNER, TABLE_SIZE
from ...engine.rules import Rules
from . import fast, games, rollouts, smart

__all__ = ["CHUNK", "MAX_GAMES", "RandomGames", "deal", "play_random", "random_game_trace", "smart_play", "warm_up"]

MAX_GAMES = 10_000_000
"""The most games one :func:`play_random` call plays (its arrays are allocated up front)."""


def smart_play(
    hand: Any, trick: Any = None, rules: Rules | str | dict | None = None, opening: bool = False, locked: bool = False
) -> int:
    """The card mask of the paper's Smart choice (0: pass) for ``hand`` facing ``trick``, arguments
    as in :func:`~big2_env.engine.core.legal_masks`: the compiled :func:`~big2_env.players.kernels.smart.smart_pick`,
    which chooses what :class:`~big2_env.players.smart.SmartPolicy` chooses.

    >>> from big2_env import parse_cards
    >>> from big2_env.engine.cards import format_cards, mask_to_cards
    >>> format_cards(mask_to_cards(smart_play(parse_cards("3D 3S 5H 6H KS"), parse_cards("4C"))))
    '5H'
    """
    hand_mask = check_hand(hand, "hand", min_cards=1)
    (masks, sizes, _, categories), legal, k, (trick_size, trick_category, trick_mask) = legal_position(
        hand, trick, rules, opening, locked
    )
    pick = smart.smart_pick(hand_mask, masks, sizes, categories, legal, k, trick_size, trick_category,
                            trick_mask, rules_array(rules))
    return 0 if pick == k else int(masks[legal[pick]])


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


def deal(n_games: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n_games`` shuffled decks ``(n, 52)`` and move draws ``(n, MAX_TURNS)`` in [0, 1) from ``rng``:
    the decks first (``rng.permuted`` of each row of ``0..51``), then the draws (``rng.random``)."""
    decks = shuffled_decks(n_games, rng)
    return decks, rng.random((n_games, MAX_TURNS))


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
    """Play ``n_games`` games of uniformly random legal moves in compiled code.

    The seats in ``greedy_seats`` play the paper's Greedy instead (its first legal play in the
    engine's order: the weakest of the smallest size; pass only when nothing else is legal),
    move for move what :class:`~big2_env.players.greedy.GreedyPolicy` chooses; those in
    ``smart_seats`` play the paper's Smart (:func:`big2_env.players.kernels.smart.smart_pick`), move
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
    """Compile (or load from the disk cache) every kernel of the engine's core and of the players
    (:func:`big2_env.engine.core.warm_up`, then these) and return the seconds it took: call it in a
    parent process before starting helper processes that play (see the engine's ``warm_up``)."""
    import time

    from ...engine.core import warm_up as engine

    started = time.perf_counter()
    engine()
    play_random(1, seed=0, greedy_seats=[1], smart_seats=[2])
    deck = np.arange(52, dtype=np.int64)
    random_game_trace(deck, np.zeros(MAX_TURNS), greedy_seats=[1], smart_seats=[2])
    smart_play([0, 4, 8], [1])
    rules_arr = rules_array()
    work = [np.empty(kernels.CAPACITY, dtype=np.int64) for _ in range(4)]
    rollouts.strongest(15, 4, rules_arr, *work)
    rng = np.random.default_rng(0)
    deals = np.empty((1, 4), dtype=np.int64)
    declined = np.full((4, 5), -1, dtype=np.int64)
    declined[1, 0] = 30
    left = np.array([13, 13, 13, 13], dtype=np.int64)
    hand = sum(1 << c for c in range(13))
    rollouts.deal_hands(rng, 1, hand, np.arange(13, 52, dtype=np.int64), left, declined, 1.0, rules_arr, deals)
    root = np.zeros(TABLE_SIZE, dtype=np.int64)
    root[T_OPENING], root[T_WINNER] = 1, -1
    candidates = np.array([[1, 1, 0, 0]], dtype=np.int64)
    for model in (fast.SEAT_SMART, fast.SEAT_FAST_SAMPLE):
        rollouts.play_outs(deals, root, candidates, np.zeros(1, dtype=np.int64), np.zeros(4), rng, rules_arr, np.empty((1, 1)),
                           np.full(4, model, dtype=np.int64), np.zeros(fast.N_FEATURES))
    course = np.zeros((1, len(rollouts.COURSE_FIELDS)), dtype=np.int64)
    course[0, 1], course[0, 6] = 1, 1
    rollouts.replay_seat(course, 0, np.array([hand], dtype=np.int64), rules_arr, np.arange(3, dtype=np.int64), -0.05, -3.0,
                         np.empty((1, 3)))
    return time.perf_counter() - started
