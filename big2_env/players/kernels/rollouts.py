"""The search's simulation in the compiled core: determinisations, Smart play-outs and the
replay of the move history (numba).

These kernels are the hot loops of :class:`big2_env.players.search.SearchPolicy` and of
:mod:`big2_env.players.beliefs`. Their references in Python (the tests' oracles, the beliefs' own
functions, and the rollout policies on the engine) take the same ``numpy.random.Generator`` and draw
from it in the same order, so that with the same seed the search deals the same hands and makes the
same decisions on either path:

* :func:`deal_hands` deals as ``tests/reference/dealers.py``'s ``deal_consistent`` (and ``deal_unseen``);
* :func:`play_outs` plays many games to the end together, every step visiting the games still
  running in order, as :func:`big2_env.players.search.play_out` does with a
  :class:`~big2_env.players.search.NoisyOpponents` around Smart (an opponent seat plays a
  uniformly random legal move with its noise probability, else Smart's choice);
* :func:`smart_finish` plays one game on from any position with Smart in every seat, as ``play_out``
  does with a ``SmartRollout``: the rollouts of :class:`~big2_env.players.ismcts.ISMCTSPolicy`;
* :func:`replay_seat` is :func:`big2_env.players.beliefs.seat_log_likelihoods`, and
  :func:`replay_seat_moves` the same move by move.

Inputs are trusted (see :mod:`big2_env.engine.core.kernels`); seats are relative (0 is the
searcher, on move at the root).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .fast import N_FEATURES, SEAT_FAST_SAMPLE, SEAT_SMART, fast_pick
from ...engine.core.games import (
    GAME_SIZE,
    HANDS_AT,
    TABLE_AT,
    T_CATEGORY,
    T_MASK,
    T_OPENING,
    T_PASSES,
    T_PLAYER,
    T_SIZE,
    T_STRENGTH,
    T_WINNER,
    TABLE_SIZE,
    apply_move,
    final_scores,
    locked,
)
from ...engine.core.kernels import (
    CAPACITY,
    QUADS4_OFFSET,
    R_FOUR,
    R_LONE_TRIPLES,
    R_OPENING,
    R_SCORING,
    WORK_SIZE,
    combos_into,
    hand_combos,
    legal_from,
    popcount,
)
from .smart import smart_pick, smart_scores

DEAL_TRIES = 20
MODEL_SMART, MODEL_GREEDY, MODEL_RANDOM = range(3)
COURSE_FIELDS = ("seat", "mask", "trick_size", "trick_strength", "trick_category", "trick_mask", "opening", "locked")
"""The columns of a course array (one row per move of the history, see :func:`replay_seat`):
``locked`` is 1 when the mover may only pass (it passed earlier in the trick, under ``pass_locks``)."""
C_SEAT, C_MASK, C_SIZE, C_STRENGTH, C_CATEGORY, C_TRICK, C_OPENING, C_LOCKED = range(len(COURSE_FIELDS))


# ----------------------------------------------------------------------------- determinisations
@njit(cache=True)
def _deal_unseen(rng, hand, unseen, left, out):  # pragma: no cover - compiled
    order = rng.permutation(len(unseen))
    out[0] = hand
    start = 0
    for seat in range(1, 4):
        mask = 0
        for j in range(start, start + left[seat]):
            mask |= 1 << unseen[order[j]]
        out[seat] = mask
        start += left[seat]


@njit(cache=True)
def _deal_capped(rng, hand, unseen, left, caps, out):  # pragma: no cover - compiled
    slots = left.copy()
    out[:] = 0
    out[0] = hand
    low = min(caps[1], min(caps[2], caps[3]))
    i = len(unseen)
    draws = rng.random(i)
    while i > 0 and unseen[i - 1] > low:
        i -= 1
        card = unseen[i]
        allowed = 0
        for seat in range(1, 4):
            if slots[seat] and caps[seat] >= card:
                allowed |= 1 << seat
        if allowed == 0:
            for seat in range(1, 4):
                if slots[seat]:
                    allowed |= 1 << seat
        room = 0
        for seat in range(1, 4):
            if (allowed >> seat) & 1:
                room += slots[seat]
        x = draws[i] * room
        chosen = 0
        for seat in range(1, 4):
            if (allowed >> seat) & 1:
                chosen = seat
                x -= slots[seat]
                if x < 0:
                    break
        out[chosen] |= 1 << card
        slots[chosen] -= 1
    order = rng.permutation(i)
    start = 0
    for seat in range(1, 4):
        for j in range(start, start + slots[seat]):
            out[seat] |= 1 << unseen[order[j]]
        start += slots[seat]


@njit(cache=True)
def strongest(hand, size, rules, masks, sizes, strengths, categories):  # pragma: no cover - compiled
    """The strength of ``hand``'s strongest combination of ``size`` cards, or -1 when it has none
    (sizes 1 to 4 read off the rank nibbles; five-card hands are enumerated into the work arrays)."""
    if size == 5:
        m = hand_combos(hand, rules, masks, sizes, strengths, categories, 5)
        return strengths[m - 1] if m else -1
    if size == 4:
        if not rules[R_FOUR]:
            return -1
        for r in range(12, -1, -1):
            if (hand >> (4 * r)) & 15 == 15:
                return QUADS4_OFFSET + r
    if size == 3 and not rules[R_LONE_TRIPLES]:
        return -1
    need = 2 if size == 4 else size
    for r in range(12, -1, -1):
        nibble = (hand >> (4 * r)) & 15
        if popcount(nibble) >= need:
            if size == 4:  # two pair: this pair's top card, if a lower rank holds a pair too
                lower = False
                for q in range(r):
                    if popcount((hand >> (4 * q)) & 15) >= 2:
                        lower = True
                if not lower:
                    return -1
            for s in range(3, -1, -1):
                if (nibble >> s) & 1:
                    return 4 * r + s
    return -1


@njit(cache=True)
def deal_hands(rng, n, hand, unseen, left, declined, belief, rules, out):  # pragma: no cover - compiled
    """``n`` determinisations into ``out`` (n, 4): seat 0 keeps ``hand``, the ``unseen`` cards (ascending)
    go to seats 1..3 in their counts ``left``, respecting each pass constraint of ``declined``
    (4, 5: per seat and trick size, the weakest strength it passed on, or -1) kept with
    probability ``belief``, as ``tests/reference/dealers.py``'s ``deal_consistent`` does."""
    masks = np.empty(CAPACITY, dtype=np.int64)
    sizes = np.empty(CAPACITY, dtype=np.int64)
    strengths = np.empty(CAPACITY, dtype=np.int64)
    categories = np.empty(CAPACITY, dtype=np.int64)
    caps = np.full(4, 51, dtype=np.int64)
    larger = np.empty((15, 3), dtype=np.int64)
    trial = np.empty(4, dtype=np.int64)
    for d in range(n):
        caps[:] = 51
        n_larger = 0
        for seat in range(1, 4):
            for index in range(5):
                strength = declined[seat, index]
                if strength >= 0 and belief > 0 and (belief >= 1 or rng.random() < belief):
                    if index == 0:
                        caps[seat] = strength
                    else:
                        larger[n_larger, 0], larger[n_larger, 1], larger[n_larger, 2] = seat, index + 1, strength
                        n_larger += 1
        if min(caps[1], min(caps[2], caps[3])) == 51 and n_larger == 0:
            _deal_unseen(rng, hand, unseen, left, out[d])
            continue
        fewest = 1 << 30
        for _ in range(DEAL_TRIES):
            _deal_capped(rng, hand, unseen, left, caps, trial)
            broken = 0
            for c in range(n_larger):
                if strongest(trial[larger[c, 0]], larger[c, 1], rules, masks, sizes, strengths, categories) > larger[c, 2]:
                    broken += 1
            if broken < fewest:
                out[d, :] = trial
                fewest = broken
            if broken == 0:
                break


# ----------------------------------------------------------------------------- play-outs
@njit(cache=True)
def _pool(deals, rules):  # pragma: no cover - compiled
    """Every deal's hands' combinations in one pool: rows ``offsets[d, seat]`` .. ``+ counts[d, seat]``
    (seat 0's hand is the same in every deal: listed once)."""
    n = deals.shape[0]
    offsets = np.zeros((n, 4), dtype=np.int64)
    counts = np.zeros((n, 4), dtype=np.int64)
    room = max(CAPACITY, n * 3 * 128 + CAPACITY)
    masks = np.empty(room, dtype=np.int64)
    sizes = np.empty(room, dtype=np.int64)
    strengths = np.empty(room, dtype=np.int64)
    categories = np.empty(room, dtype=np.int64)
    work = np.empty(WORK_SIZE, dtype=np.int64)
    used = 0
    for d in range(n):
        for seat in range(4):
            if seat == 0 and d > 0:
                offsets[d, 0], counts[d, 0] = offsets[0, 0], counts[0, 0]
                continue
            if used + CAPACITY > room:  # grow: double, keeping what is there
                room = 2 * room + CAPACITY
                masks2 = np.empty(room, dtype=np.int64)
                sizes2 = np.empty(room, dtype=np.int64)
                strengths2 = np.empty(room, dtype=np.int64)
                categories2 = np.empty(room, dtype=np.int64)
                masks2[:used], sizes2[:used] = masks[:used], sizes[:used]
                strengths2[:used], categories2[:used] = strengths[:used], categories[:used]
                masks, sizes, strengths, categories = masks2, sizes2, strengths2, categories2
            end = used + CAPACITY
            c = combos_into(deals[d, seat], rules, masks[used:end], sizes[used:end], strengths[used:end],
                            categories[used:end], 0, work)
            offsets[d, seat], counts[d, seat] = used, c
            used += c
    return masks, sizes, strengths, categories, offsets, counts


@njit(cache=True)
def play_outs(deals, root, candidates, alive, seat_noise, rng, rules, values, seat_model, weights,
              inner=0):  # pragma: no cover - compiled
    """Play every deal (rows of ``deals``, (D, 4) hands) after every alive candidate (``candidates[alive[a]]``:
    ``(mask, size, strength, category)``, mask 0 a pass) from the table ``root`` to the end,
    every seat ``s`` moving by ``seat_model[s]`` (:data:`~big2_env.players.kernels.fast.SEAT_SMART`:
    Smart; ``SEAT_FAST`` or ``SEAT_FAST_SAMPLE``: the fast model of :mod:`.fast` with the
    ``weights``, its best move or a sampled one), an opponent seat ``s`` a uniformly random legal
    move with probability ``seat_noise[s]``, all games stepped together in the order deal, then
    candidate.

    ``inner > 0`` makes seat 0's own later moves a search too (nested rollouts): at each of its
    decisions with a choice, Smart's ``inner`` favourite plays (by s(a)) and pass, when legal,
    are each played out once to the end on the deal (Smart everywhere), and the best for seat 0
    is made. The deal is known inside a play-out, so this inner search sees the cards (its
    play-outs move every seat by ``seat_model`` too).

    Writes seat 0's final score in each game to ``values[d, a]``.
    """
    n_deals, n_alive = deals.shape[0], len(alive)
    n_games = n_deals * n_alive
    masks, sizes, strengths, categories, offsets, counts = _pool(deals, rules)
    games = np.empty((n_games + 1, GAME_SIZE), dtype=np.int64)  # per game: the hands, then the table; a spare row
    scores_work = np.empty(CAPACITY, dtype=np.int64)
    inner_legal = np.empty(CAPACITY, dtype=np.int64)
    h, t = HANDS_AT, TABLE_AT
    legal = np.empty(CAPACITY, dtype=np.int64)
    scores = np.empty(4, dtype=np.int64)
    noisy = seat_noise[1] > 0 or seat_noise[2] > 0 or seat_noise[3] > 0
    work = _ModelWork(np.empty(CAPACITY, dtype=np.int64), np.empty((CAPACITY + 1, N_FEATURES)), np.empty(CAPACITY + 1),
                      np.empty(4, dtype=np.int64))
    running = 0
    for d in range(n_deals):
        for a in range(n_alive):
            g = d * n_alive + a
            for k in range(TABLE_SIZE):
                games[g, t + k] = root[k]
            for p in range(4):
                games[g, h + p] = deals[d, p]
            c = alive[a]
            apply_move(games, g, h, t, candidates[c, 0], candidates[c, 1], candidates[c, 2], candidates[c, 3])
            if games[g, t + T_WINNER] < 0:
                running += 1
            else:
                values[d, a] = _value(games, g, rules[R_SCORING], scores)
    while running:
        for g in range(n_games):
            if games[g, t + T_WINNER] >= 0:
                continue
            d = g // n_alive
            p = games[g, t + T_PLAYER]
            o, n = offsets[d, p], counts[d, p]
            pm, ps, pst, pc = masks[o:o + n], sizes[o:o + n], strengths[o:o + n], categories[o:o + n]
            hand = games[g, h + p]
            trick_size = games[g, t + T_SIZE]
            k = legal_from(pm, ps, pst, n, hand, trick_size, games[g, t + T_STRENGTH], games[g, t + T_OPENING],
                           rules[R_OPENING], locked(games, g, t, rules), legal)
            total = k + 1 if trick_size else k
            pick = -1
            if total == 1:
                pick = 0
            elif noisy and p != 0 and seat_noise[p] > 0:
                if rng.random() < seat_noise[p]:
                    pick = rng.integers(0, total)
            if pick < 0 and inner > 0 and p == 0:
                pick = _inner_pick(games, g, n_games, d, legal, k, pm, ps, pst, pc, masks, sizes, strengths, categories,
                                   offsets, counts, seat_noise, noisy, rng, rules, inner, scores_work,
                                   inner_legal, scores, seat_model, weights, work)
            if pick < 0:
                pick = _model_pick(games, g, p, pm, ps, pst, pc, legal, k, rules, seat_model, weights, rng, work)
            if pick == k:
                apply_move(games, g, h, t, 0, 0, 0, 0)
            else:
                i = legal[pick]
                apply_move(games, g, h, t, pm[i], ps[i], pst[i], pc[i])
                if games[g, t + T_WINNER] >= 0:
                    running -= 1
                    values[d, g % n_alive] = _value(games, g, rules[R_SCORING], scores)


@njit(cache=True)
def smart_finish(row, rules, scores):  # pragma: no cover - compiled
    """Play the game ``row`` (:data:`~big2_env.engine.core.games.GAME_SIZE` int64: the four hands, then the table;
    changed in place) to its end with Smart in every seat, as :func:`big2_env.players.search.play_out` does with a
    :class:`~big2_env.players.search.SmartRollout` on the engine (Smart is deterministic: nothing is drawn), and write
    the final scores to ``scores`` (4,); returns the winner."""
    games = row.reshape(1, GAME_SIZE)
    h, t = HANDS_AT, TABLE_AT
    masks = np.empty((4, CAPACITY), dtype=np.int64)
    sizes = np.empty((4, CAPACITY), dtype=np.int64)
    strengths = np.empty((4, CAPACITY), dtype=np.int64)
    categories = np.empty((4, CAPACITY), dtype=np.int64)
    counts = np.zeros(4, dtype=np.int64)
    work = np.empty(WORK_SIZE, dtype=np.int64)
    for p in range(4):
        counts[p] = combos_into(games[0, h + p], rules, masks[p], sizes[p], strengths[p], categories[p], 0, work)
    legal = np.empty(CAPACITY, dtype=np.int64)
    while games[0, t + T_WINNER] < 0:
        p = games[0, t + T_PLAYER]
        n = counts[p]
        pm, ps, pst, pc = masks[p, :n], sizes[p, :n], strengths[p, :n], categories[p, :n]
        hand = games[0, h + p]
        trick_size = games[0, t + T_SIZE]
        k = legal_from(pm, ps, pst, n, hand, trick_size, games[0, t + T_STRENGTH], games[0, t + T_OPENING],
                       rules[R_OPENING], locked(games, 0, t, rules), legal)
        pick = smart_pick(hand, pm, ps, pc, legal, k, trick_size, games[0, t + T_CATEGORY], games[0, t + T_MASK], rules)
        if pick == k:
            apply_move(games, 0, h, t, 0, 0, 0, 0)
        else:
            i = legal[pick]
            apply_move(games, 0, h, t, pm[i], ps[i], pst[i], pc[i])
    winner = games[0, t + T_WINNER]
    final_scores(games, 0, h, winner, rules[R_SCORING], scores)
    return winner


@njit(cache=True)
def _inner_pick(games, g, spare, d, legal, k, pm, ps, pst, pc, masks, sizes, strengths, categories, offsets, counts,
                seat_noise, noisy, rng, rules, width, ranks, inner_legal, scores, seat_model, weights,
                work):  # pragma: no cover - compiled
    """Seat 0's move in game ``g`` by a one-ply search on the known deal: Smart's ``width`` favourite
    plays and pass (when legal), each played out once in the spare row; returns the best's index
    (``k`` for pass), Smart's own choice first among equals."""
    h, t = HANDS_AT, TABLE_AT
    trick_size = games[g, t + T_SIZE]
    hand = games[g, h]
    trick_category, trick_mask = games[g, t + T_CATEGORY], games[g, t + T_MASK]
    smart_scores(hand, pm, ps, legal, k, trick_size, trick_category, trick_mask, rules, ranks)
    chosen = smart_pick(hand, pm, ps, pc, legal, k, trick_size, trick_category, trick_mask, rules)
    done = 1 << 60
    best, best_value = -1, -1e300
    plays_tried = 0
    pass_tried = False
    while chosen >= 0:
        for col in range(GAME_SIZE):
            games[spare, col] = games[g, col]
        if chosen == k:
            apply_move(games, spare, h, t, 0, 0, 0, 0)
            pass_tried = True
        else:
            i = legal[chosen]
            apply_move(games, spare, h, t, pm[i], ps[i], pst[i], pc[i])
            ranks[chosen] = done
            plays_tried += 1
        value = _finish(games, spare, d, masks, sizes, strengths, categories, offsets, counts, seat_noise, noisy, rng,
                        rules, inner_legal, scores, seat_model, weights, work)
        if value > best_value:
            best, best_value = chosen, value
        chosen = -1  # next: Smart's next favourite while fewer than ``width`` plays were tried, then pass
        if plays_tried < width:
            low = done
            for j in range(k):
                if ranks[j] < low:
                    chosen, low = j, ranks[j]
        if chosen < 0 and trick_size and not pass_tried:
            chosen = k
    return best


@njit(cache=True)
def _finish(games, g, d, masks, sizes, strengths, categories, offsets, counts, seat_noise, noisy, rng, rules, legal,
            scores, seat_model, weights, work):  # pragma: no cover - compiled
    """Play game ``g`` to the end, every seat by its ``seat_model`` (noisy opponents as in
    :func:`play_outs`); its value to seat 0.

    Its move step is written out again in :func:`play_outs` on purpose: moved
    into shared helpers (returning the seat's combinations, or only their offset, inlined or not)
    it makes the default search take 20 to 50% longer a decision, with the same decisions."""
    h, t = HANDS_AT, TABLE_AT
    while games[g, t + T_WINNER] < 0:
        p = games[g, t + T_PLAYER]
        o, n = offsets[d, p], counts[d, p]
        pm, ps, pst, pc = masks[o:o + n], sizes[o:o + n], strengths[o:o + n], categories[o:o + n]
        hand = games[g, h + p]
        trick_size = games[g, t + T_SIZE]
        k = legal_from(pm, ps, pst, n, hand, trick_size, games[g, t + T_STRENGTH], games[g, t + T_OPENING],
                       rules[R_OPENING], locked(games, g, t, rules), legal)
        total = k + 1 if trick_size else k
        pick = -1
        if total == 1:
            pick = 0
        elif noisy and p != 0 and seat_noise[p] > 0:
            if rng.random() < seat_noise[p]:
                pick = rng.integers(0, total)
        if pick < 0:
            pick = _model_pick(games, g, p, pm, ps, pst, pc, legal, k, rules, seat_model, weights, rng, work)
        if pick == k:
            apply_move(games, g, h, t, 0, 0, 0, 0)
        else:
            i = legal[pick]
            apply_move(games, g, h, t, pm[i], ps[i], pst[i], pc[i])
    return _value(games, g, rules[R_SCORING], scores)


_ModelWork = namedtuple("_ModelWork", ("smart", "features", "scores", "left"))
"""The fast model's scratch arrays (:func:`~big2_env.players.kernels.fast.fast_pick`), and the cards left per seat."""


@njit(cache=True)
def _model_pick(games, g, p, pm, ps, pst, pc, legal, k, rules, seat_model, weights, rng, work):  # pragma: no cover
    """The move of seat ``p`` in game ``g`` by its ``seat_model`` (see :func:`play_outs`) among the
    ``k`` legal plays ``legal[:k]`` of its combinations ``pm``, ``ps``, ``pst``, ``pc`` and pass."""
    h, t = HANDS_AT, TABLE_AT
    hand = games[g, h + p]
    model = seat_model[p]
    if model == SEAT_SMART:
        return smart_pick(hand, pm, ps, pc, legal, k, games[g, t + T_SIZE], games[g, t + T_CATEGORY],
                          games[g, t + T_MASK], rules)
    for r in range(4):
        work.left[r] = popcount(games[g, h + (p + r) % 4])
    return fast_pick(hand, pm, ps, pst, pc, legal, k, games[g, t + T_SIZE], games[g, t + T_CATEGORY], games[g, t + T_MASK],
                     work.left, games[g, t + T_PASSES], rules, weights, model == SEAT_FAST_SAMPLE, rng, work.smart,
                     work.features, work.scores)


@njit(cache=True)
def _value(games, g, scoring, scores):  # pragma: no cover - compiled
    """Seat 0's final score in the ended game ``g``."""
    final_scores(games, g, HANDS_AT, games[g, TABLE_AT + T_WINNER], scoring, scores)
    return float(scores[0])


# ----------------------------------------------------------------------------- the history's replay
@njit(cache=True)
def replay_seat(course, seat, starts, rules, models, keep, other, out):  # pragma: no cover - compiled
    """Per starting hand ``starts[h]`` and model ``models[j]`` (smart, greedy, random), the
    log-probability that ``seat`` would have made its moves of ``course`` (rows of
    :data:`COURSE_FIELDS`), written to ``out[h, j]`` (``-inf`` when a move is impossible from
    the hand); ``keep`` and ``other`` are ``log(1 - tremble)`` and ``log(tremble)``. The sum over the
    moves of :func:`replay_seat_moves`."""
    terms = np.empty((len(starts), course.shape[0], len(models)))
    replay_seat_moves(course, seat, starts, rules, models, keep, other, terms)
    for h in range(len(starts)):
        for j in range(len(models)):
            total = 0.0
            for t in range(course.shape[0]):
                total += terms[h, t, j]
            out[h, j] = total


@njit(cache=True)
def replay_seat_moves(course, seat, starts, rules, models, keep, other, out):  # pragma: no cover - compiled
    """:func:`replay_seat` move by move: ``out[h, t, j]`` is the log-probability under ``models[j]`` that
    ``seat``, from starting hand ``starts[h]``, made the move of row ``t`` of ``course``: 0 for another
    seat's move and for a forced one, and ``-inf`` for every move of ``seat`` from the first that is
    impossible from the hand on."""
    masks = np.empty(CAPACITY, dtype=np.int64)
    sizes = np.empty(CAPACITY, dtype=np.int64)
    strengths = np.empty(CAPACITY, dtype=np.int64)
    categories = np.empty(CAPACITY, dtype=np.int64)
    legal = np.empty(CAPACITY, dtype=np.int64)
    n_models = len(models)
    for h in range(len(starts)):
        hand = starts[h]
        n = hand_combos(hand, rules, masks, sizes, strengths, categories)
        out[h, :, :] = 0.0
        impossible = course.shape[0]
        for t in range(course.shape[0]):
            if course[t, C_SEAT] != seat:
                continue
            move = course[t, C_MASK]
            if move & ~hand:
                impossible = t
                break
            trick_size = course[t, C_SIZE]
            k = legal_from(masks, sizes, strengths, n, hand, trick_size, course[t, C_STRENGTH], course[t, C_OPENING],
                           rules[R_OPENING], course[t, C_LOCKED] != 0, legal)
            total = k + 1 if trick_size else k
            if total > 1:
                observed = -1
                if move == 0:
                    observed = k if trick_size else -1
                else:
                    for j in range(k):
                        if masks[legal[j]] == move:
                            observed = j
                            break
                if observed < 0:
                    impossible = t
                    break
                smart = -1
                for j in range(n_models):
                    model = models[j]
                    if model == MODEL_RANDOM:
                        out[h, t, j] = -math.log(total)
                        continue
                    if model == MODEL_SMART:
                        if smart < 0:
                            smart = smart_pick(hand, masks, sizes, categories, legal, k, trick_size,
                                               course[t, C_CATEGORY], course[t, C_TRICK], rules)
                        choice = smart
                    else:
                        choice = 0  # Greedy: the first legal play (there is one: total > 1)
                    out[h, t, j] = keep if choice == observed else other - math.log(total - 1)
            else:
                only = 0 if k == 0 else masks[legal[0]]
                if total == 0 or only != move:
                    impossible = t
                    break
            hand ^= move
        for t in range(impossible, course.shape[0]):
            if course[t, C_SEAT] == seat:
                for j in range(n_models):
                    out[h, t, j] = -np.inf
