"""The batch stepper: the parallel loops over games that every compiled env runs, and their input checks.

Each loop splits the games into ``chunks`` blocks of consecutive games, one per thread
(:func:`thread_chunks`, :func:`~big2_env.envs.batch.moves.chunk_games`), gives
each thread its scratch arrays and plays each game through :mod:`big2_env.envs.batch.moves`; the
view the env writes is an id (:data:`~big2_env.envs.batch.views.VIEW_IDS`) with its memory array.

* :func:`reset_games`, :func:`step_games`: self-play, whoever is on move acts, with same-step
  autoreset (:class:`big2_env.envs.vector.Big2VectorEnv`);
* :func:`reset_against`, :func:`step_against`: one learner per game, the other seats moved by
  Random, Greedy or Smart inside the loop (:class:`big2_env.envs.vector_opponents.Big2OpponentsVectorEnv`);
* :func:`start_positions`, :func:`record_positions`, :func:`advance_positions`, :func:`heuristic_actions`:
  games started from given hands and a move history, played to their end with no autoreset
  (:class:`big2_env.envs.positions.PositionGames`).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import njit, prange

from ...checks import is_int
from ...engine.core.games import T_PLAYER, T_WINNER
from ...observations.compiled import NUM_ACTIONS, PASS_ACTION, action_index
from .layout import H0, T0, TURNS
from .moves import (
    chunk_games,
    deal,
    deal_hands,
    decide,
    legal,
    play_action,
    play_cards,
    play_opponents,
    rule_pick,
    scores,
    workspace,
    write_mask,
)
from .views import VIEW_SIZES, write_view

__all__ = ["MAX_ENVS", "SELF_PLAY_VIEWS", "VIEWS", "advance_positions", "check_action_array", "check_settings",
           "heuristic_actions", "record_positions", "reset_against", "reset_games", "start_positions", "step_against",
           "step_games", "thread_chunks"]

MAX_ENVS = 1 << 20
"""The most games one vector env holds."""
VIEWS = ("paper", "extended")
"""The views both vector envs give (:mod:`big2_env.envs.vector` and :mod:`big2_env.envs.vector_opponents`)."""
SELF_PLAY_VIEWS = ("paper", "charlesworth", "extended")
"""The views of :class:`~big2_env.envs.vector.Big2VectorEnv` and :class:`~big2_env.envs.positions.PositionGames`:
also Charlesworth's 412 numbers."""


# ---------------------------------------------------------------- self-play
@njit(cache=True, parallel=True)
def reset_games(view, state, memory, decks, rules, tables, observations, masks, mask_out, players, chunks):  # pragma: no cover
    """Deal every game ``g`` the deck ``decks[g]`` and write its mover's view (its mask also into ``mask_out``, int8)."""
    n = state.shape[0]
    for chunk in prange(chunks):
        ws_masks, ws_sizes, ws_strengths, ws_categories, legal_at, work = workspace()
        start, stop = chunk_games(chunk, chunks, n)
        for g in range(start, stop):
            deal(view, state, memory, g, decks[g])
            decide(view, state, memory, g, rules, tables, observations, masks, players, ws_masks, ws_sizes, ws_strengths,
                   ws_categories, legal_at, work)
            copy_mask(masks, mask_out, g)


@njit(cache=True)
def copy_mask(masks, mask_out, g):  # pragma: no cover - compiled
    """Row ``g`` of the bool ``masks`` into the int8 ``mask_out`` (what the env returns), inside the parallel loop."""
    for a in range(masks.shape[1]):
        mask_out[g, a] = masks[g, a]


@njit(cache=True, parallel=True)
def step_games(view, state, memory, actions, next_decks, rules, tables, observations, masks, mask_out, players, rewards,
               terminated, winners, turns, errors, chunks):  # pragma: no cover - compiled
    """Play ``actions[g]`` in every game; a game that ends writes its scores, winner and decisions and
    is dealt ``next_decks[g]`` (same-step autoreset); then every game's mover's view (its mask also into
    ``mask_out``, int8)."""
    n = state.shape[0]
    for chunk in prange(chunks):
        ws_masks, ws_sizes, ws_strengths, ws_categories, legal_at, work = workspace()
        start, stop = chunk_games(chunk, chunks, n)
        for g in range(start, stop):
            rewards[g, :] = 0.0
            terminated[g] = False
            winners[g] = -1
            turns[g] = 0
            errors[g] = 0
            ended = play_action(view, state, memory, g, actions[g], rules, tables, ws_masks, ws_sizes, ws_strengths,
                                ws_categories, work)
            if ended < 0:
                errors[g] = 1
                continue
            if ended:  # the game is over: scores, then a new deal (same-step autoreset)
                scores(state, g, rules, rewards[g])
                terminated[g] = True
                winners[g] = state[g, T0 + T_WINNER]
                turns[g] = state[g, TURNS]
                deal(view, state, memory, g, next_decks[g])
            decide(view, state, memory, g, rules, tables, observations, masks, players, ws_masks, ws_sizes, ws_strengths,
                   ws_categories, legal_at, work)
            copy_mask(masks, mask_out, g)


# ---------------------------------------------------------------- one learner against core opponents
@njit(cache=True, parallel=True)
def reset_against(view, state, memory, learners, decks, seats, rules, kinds, draws, tables, observations, masks, players,
                  chunks):  # pragma: no cover - compiled
    """Deal every game ``decks[g]`` with its learner in seat ``seats[g]``; the opponents (``kinds``,
    see :func:`~big2_env.envs.batch.moves.play_opponents`) move up to the learner's turn."""
    n = state.shape[0]
    for chunk in prange(chunks):
        ws_masks, ws_sizes, ws_strengths, ws_categories, legal_at, work = workspace()
        start, stop = chunk_games(chunk, chunks, n)
        for g in range(start, stop):
            deal(view, state, memory, g, decks[g])
            learners[g] = seats[g]
            play_opponents(view, state, memory, g, learners[g], rules, kinds, draws, 0, ws_masks, ws_sizes, ws_strengths,
                           ws_categories, legal_at, work)
            decide(view, state, memory, g, rules, tables, observations, masks, players, ws_masks, ws_sizes, ws_strengths,
                   ws_categories, legal_at, work)


@njit(cache=True, parallel=True)
def step_against(view, state, memory, learners, actions, next_decks, next_seats, rules, kinds, draws, tables, observations,
                 masks, players, rewards, terminated, scores_out, winners, turns, ended_seats, final_observations, illegal,
                 penalty, errors, chunks):  # pragma: no cover - compiled
    """The learner's ``actions[g]`` in every game (``illegal[g]``: it ends the game with the reward
    ``penalty``), then its opponents' moves; a game that ends writes its learner's reward, scores,
    winner, decisions, seat and last view, is dealt ``next_decks[g]`` with the learner in
    ``next_seats[g]``, and its opponents move up to the learner's turn (reading the second half of
    ``draws[g]``); then every game's learner's view."""
    n = state.shape[0]
    for chunk in prange(chunks):
        ws_masks, ws_sizes, ws_strengths, ws_categories, legal_at, work = workspace()
        start, stop = chunk_games(chunk, chunks, n)
        for g in range(start, stop):
            rewards[g] = 0.0
            terminated[g] = False
            winners[g] = -1
            errors[g] = 0
            learner = learners[g]
            if illegal[g]:  # the illegal action ends the game, as in the single-agent env's "penalize" mode
                rewards[g] = penalty
                ended = -1
            else:
                ended = play_action(view, state, memory, g, actions[g], rules, tables, ws_masks, ws_sizes, ws_strengths,
                                    ws_categories, work)
                if ended < 0:
                    errors[g] = 1
                    continue
            if not ended:
                ended = play_opponents(view, state, memory, g, learner, rules, kinds, draws, 0, ws_masks, ws_sizes,
                                       ws_strengths, ws_categories, legal_at, work)
            if ended:
                if ended > 0:
                    scores(state, g, rules, scores_out[g])
                    rewards[g] = scores_out[g, learner]
                    winners[g] = state[g, T0 + T_WINNER]
                terminated[g] = True
                turns[g] = state[g, TURNS]
                ended_seats[g] = learner
                write_view(view, state, memory, g, learner, final_observations[g])
                deal(view, state, memory, g, next_decks[g])
                learners[g] = next_seats[g]
                play_opponents(view, state, memory, g, learners[g], rules, kinds, draws, draws.shape[1] // 2, ws_masks,
                               ws_sizes, ws_strengths, ws_categories, legal_at, work)
            decide(view, state, memory, g, rules, tables, observations, masks, players, ws_masks, ws_sizes, ws_strengths,
                   ws_categories, legal_at, work)


# ---------------------------------------------------------------- games from given positions
@njit(cache=True, parallel=True)
def start_positions(view, state, memory, hands, first, moves, rules, tables, observations, masks, players,
                    chunks):  # pragma: no cover - compiled
    """Deal every game its row of ``hands`` (``first`` opens), replay the ``moves`` (card masks, 0 a
    pass) and write its mover's view."""
    n = state.shape[0]
    for chunk in prange(chunks):
        ws_masks, ws_sizes, ws_strengths, ws_categories, legal_at, work = workspace()
        start, stop = chunk_games(chunk, chunks, n)
        for g in range(start, stop):
            deal_hands(view, state, memory, g, hands[g], first)
            for t in range(len(moves)):
                play_cards(view, state, memory, g, moves[t], rules, ws_masks, ws_sizes, ws_strengths, ws_categories, work)
            decide(view, state, memory, g, rules, tables, observations, masks, players, ws_masks, ws_sizes, ws_strengths,
                   ws_categories, legal_at, work)


@njit(cache=True, parallel=True)
def record_positions(view, state, memory, hands, first, moves, rows, rules, tables, observations, masks, actions,
                     chunks):  # pragma: no cover - compiled
    """:func:`start_positions`' replay, writing before each move ``t`` with ``rows[t] >= 0`` the mover's
    view, its legal actions and the action index of the move it made into row ``rows[t]`` of
    ``observations``, ``masks`` and ``actions`` (game by game)."""
    n = state.shape[0]
    for chunk in prange(chunks):
        ws_masks, ws_sizes, ws_strengths, ws_categories, legal_at, work = workspace()
        start, stop = chunk_games(chunk, chunks, n)
        for g in range(start, stop):
            deal_hands(view, state, memory, g, hands[g], first)
            for t in range(len(moves)):
                cards = moves[t]
                player = state[g, T0 + T_PLAYER]
                hand = state[g, H0 + player]
                r = rows[t]
                if r >= 0:
                    k = legal(state, g, rules, ws_masks, ws_sizes, ws_strengths, ws_categories, legal_at, work)
                    write_mask(state, g, k, ws_masks, legal_at, tables, masks[g], r)
                    write_view(view, state, memory, g, player, observations[g, r])
                    actions[g, r] = PASS_ACTION if cards == 0 else action_index(cards, hand, tables[1])
                play_cards(view, state, memory, g, cards, rules, ws_masks, ws_sizes, ws_strengths, ws_categories, work)


@njit(cache=True, parallel=True)
def advance_positions(view, state, memory, actions, active, rules, tables, observations, masks, players, scores_out, errors,
                      chunks):  # pragma: no cover - compiled
    """Play ``actions[g]`` in every active game ``g``; a game that ends writes its scores, clears its
    mask and goes inactive (no autoreset)."""
    n = state.shape[0]
    for chunk in prange(chunks):
        ws_masks, ws_sizes, ws_strengths, ws_categories, legal_at, work = workspace()
        start, stop = chunk_games(chunk, chunks, n)
        for g in range(start, stop):
            if not active[g]:
                continue
            ended = play_action(view, state, memory, g, actions[g], rules, tables, ws_masks, ws_sizes, ws_strengths,
                                ws_categories, work)
            if ended < 0:
                errors[g] = 1
            elif ended:
                scores(state, g, rules, scores_out[g])
                active[g] = False
                masks[g, :] = False
            else:
                decide(view, state, memory, g, rules, tables, observations, masks, players, ws_masks, ws_sizes,
                       ws_strengths, ws_categories, legal_at, work)


@njit(cache=True, parallel=True)
def heuristic_actions(state, active, kind, rules, tables, out, chunks):  # pragma: no cover - compiled
    """``out[g]``: the action index of Greedy's (``kind`` 1) or Smart's (2) move for game ``g``'s mover, as
    :func:`~big2_env.envs.batch.moves.play_opponents` moves the opponents (0 in an inactive game)."""
    n = state.shape[0]
    for chunk in prange(chunks):
        ws_masks, ws_sizes, ws_strengths, ws_categories, legal_at, work = workspace()
        start, stop = chunk_games(chunk, chunks, n)
        for g in range(start, stop):
            out[g] = 0
            if not active[g]:
                continue
            k = legal(state, g, rules, ws_masks, ws_sizes, ws_strengths, ws_categories, legal_at, work)
            pick = rule_pick(state, g, kind, k, rules, ws_masks, ws_sizes, ws_categories, legal_at)
            if pick == k:
                out[g] = PASS_ACTION
            else:
                out[g] = action_index(ws_masks[legal_at[pick]], state[g, H0 + state[g, T0 + T_PLAYER]], tables[1])


# ---------------------------------------------------------------- inputs
def check_settings(num_envs: Any, observation: Any, views: tuple[str, ...] = VIEWS) -> int:
    """``num_envs`` as an int after checking it (1 to :data:`MAX_ENVS`) and ``observation`` (one of
    ``views``: :data:`VIEWS`, or :data:`SELF_PLAY_VIEWS`)."""
    if not is_int(num_envs, 1, MAX_ENVS):
        raise ValueError(f"num_envs must be an int in 1..{MAX_ENVS:,}; got {num_envs!r}")
    if not isinstance(observation, str) or observation not in views:
        named = [f"{v!r} ({VIEW_SIZES[v]}{' numbers' if i == 0 else ''})" for i, v in enumerate(views)]
        raise ValueError(f"observation must be {', '.join(named[:-1])} or {named[-1]}; got {observation!r}")
    return int(num_envs)


def thread_chunks(num_envs: int) -> int:
    """How many parts the games are split into, one per thread (numba's thread count, read here:
    code that reads it inside a kernel cannot be cached)."""
    return max(1, min(num_envs, numba.get_num_threads()))


def check_action_array(actions: Any, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``actions`` as int64, one action index per game, and which of them the games' ``masks`` do
    not allow; ``ValueError`` for anything but an int array of the games' count in 0..1694."""
    n = len(masks)
    acts = np.asarray(actions)
    if acts.shape != (n,) or acts.dtype.kind not in "iu":
        raise ValueError(
            f"actions must be an int array of shape ({n},), one action index per game; "
            f"got shape {acts.shape}, dtype {acts.dtype}"
        )
    bad = np.flatnonzero((acts < 0) | (acts >= NUM_ACTIONS))
    if len(bad):
        g = int(bad[0])
        raise ValueError(f"actions[{g}] = {acts[g]} is out of range: action indices are 0..{NUM_ACTIONS - 1}")
    acts = acts.astype(np.int64)
    return acts, ~masks[np.arange(n), acts]
