"""A fast learned move model for the search's rollouts: a linear score over a few features of each
legal move, in the compiled core (numba), like AlphaGo's fast rollout policy.

The model scores every legal move ``a`` of the player on move by ``w . phi(a)`` and plays the
best (``argmax``) or samples ``a`` with probability ``softmax(w . phi)`` (``sample``). The
features :data:`FEATURES` read only what that player knows: its hand, the trick, the cards left
of each seat and the passes. Most are the parts of Smart's own score (:mod:`.smart`: the ranks
played, the 2s, the combinations broken, the low orphans left) and Smart's choice itself, with
the context a strong player weighs them by (leading or following, the phase of the game, an
opponent close to going out), so that a model with Smart's preferences is one weight vector
away and the weights learn how a stronger player departs from them.

The weights are fitted to a teacher network's move probabilities
(:mod:`agents.learners.fast_policy`); :class:`big2_env.players.fast.FastPolicy` plays them at the
table, and :func:`big2_env.players.kernels.rollouts.play_outs` inside the search's rollouts. Inputs are
trusted (see :mod:`big2_env.engine.core.kernels`).
"""

from __future__ import annotations

import math

from numba import njit

from ...engine.core.kernels import FLUSH, popcount
from .smart import hand_shape, play_terms, smart_decide, terms_score, trick_offset10

FEATURES = (
    # a play (0 for the pass row)
    "play", "rank_mean", "top_card", "twos", "five_break", "pair_break", "orphans_after",
    "size1", "size2", "size3", "size4", "size5", "wins", "smart_score", "smart_choice", "strength_rank",
    "lead_x_top", "lead_x_multi", "danger1_x_top", "danger3_x_top", "next1_x_top", "danger1_x_multi",
    "early_x_rank", "late_x_rank", "left_after", "five_strong",
    # the pass (0 for the play rows)
    "pass", "pass_x_early", "pass_x_late", "pass_x_danger1", "pass_x_next1", "pass_x_trick_top",
    "pass_x_passes", "pass_x_hand", "pass_x_five", "pass_x_smart_pass",
)
"""The features, in their column order (``danger1``: an opponent holds one card; ``danger3``: one
holds three or fewer; ``next1``: the next seat holds one card; ``top_card``, ``trick_top``: the
highest card id / 51; ``rank_mean``: the mean rank played / 12; ``strength_rank``: the play's
place among the legal plays of its size, 0 the weakest to 1 the strongest)."""
N_FEATURES = len(FEATURES)
PASS_AT = FEATURES.index("pass")
SEAT_SMART, SEAT_FAST, SEAT_FAST_SAMPLE = range(3)
"""How a rollout seat moves (``seat_model`` of :func:`~big2_env.players.kernels.rollouts.play_outs`):
Smart's choice, the fast model's best move, or a move sampled from the fast model."""


@njit(cache=True)
def _top_card(mask):  # pragma: no cover - compiled
    top = -1
    while mask:
        low = mask & -mask
        top = popcount(low - 1)
        mask ^= low
    return top


@njit(cache=True)
def fast_features(hand, masks, sizes, strengths, categories, legal, k, trick_size, trick_category, trick_mask, left,
                  passes, rules, smart_work, out):  # pragma: no cover - compiled
    """The features of the ``k`` legal plays ``legal[:k]`` (indices into ``masks``, ``sizes``,
    ``strengths``, ``categories``, the hand's combinations in the engine's order) in ``out[:k]``,
    and of the pass (legal when ``trick_size > 0``) in ``out[k]``; ``left``: the cards each seat
    holds, relative to the player on move (``left[0]`` its own); ``passes``: the passes since the
    trick was made. ``smart_work``: int64 scratch of at least ``k`` entries (Smart's scores).
    The hand's shape and each play's terms are read once, for Smart's score, choice and the
    features alike."""
    total = k + 1 if trick_size else k
    for r in range(total):
        for c in range(N_FEATURES):
            out[r, c] = 0.0
    n_hand, phase, quads, full_house, flush, window_ranks, orphans = hand_shape(hand, rules)
    smallest = min(left[1], min(left[2], left[3]))
    danger1 = 1.0 if smallest == 1 else 0.0
    danger3 = 1.0 if smallest <= 3 else 0.0
    next1 = 1.0 if left[1] == 1 else 0.0
    lead = 0.0 if trick_size else 1.0
    early = 1.0 if phase == 0 else 0.0
    late = 1.0 if phase == 2 else 0.0
    offset = trick_offset10(phase, trick_size, trick_category, trick_mask)
    best, best_score, best_twos = -1, 0, 0
    for j in range(k):
        i = legal[j]
        m, n = masks[i], sizes[i]
        rank_sum, twos, orph, five_break, pair_break = play_terms(m, n, hand, quads, full_house, flush, window_ranks,
                                                                  orphans)
        score, scored_twos = -10000, 0  # the whole hand (as smart_pick scores it)
        if n != n_hand:
            score, scored_twos = terms_score(rank_sum, twos, orph, five_break, pair_break, n, phase, offset), twos
        smart_work[j] = score
        if best < 0 or score < best_score:  # Smart's choice: the first of the lowest scores (smart_pick)
            best, best_score, best_twos = j, score, scored_twos
        rank = rank_sum / (12.0 * n)
        top = _top_card(m) / 51.0
        multi = 1.0 if n >= 2 else 0.0
        same, weaker = 0, 0
        for jj in range(k):
            ii = legal[jj]
            if sizes[ii] == n and jj != j:
                same += 1
                if strengths[ii] < strengths[i]:
                    weaker += 1
        row = out[j]
        row[0] = 1.0
        row[1] = rank
        row[2] = top
        row[3] = twos
        row[4] = 1.0 if five_break else 0.0
        row[5] = 1.0 if pair_break else 0.0
        row[6] = orph
        row[6 + min(n, 5)] = 1.0
        row[12] = 1.0 if n == n_hand else 0.0
        row[13] = max(-10.0, min(10.0, smart_work[j] / 100.0))
        row[15] = weaker / same if same else 0.0
        row[16] = lead * top
        row[17] = lead * multi
        row[18] = danger1 * top
        row[19] = danger3 * top
        row[20] = next1 * top
        row[21] = danger1 * multi
        row[22] = early * rank
        row[23] = late * rank
        row[24] = (n_hand - n) / 13.0
        c = categories[i]
        row[25] = 1.0 if n == 5 and c >= FLUSH else 0.0  # flush, full house, four of a kind, straight flush
    choice = smart_decide(best, best_score, best_twos, k, trick_size, trick_category, phase) if k else k
    if choice < k:
        out[choice, 14] = 1.0
    if trick_size:
        row = out[k]
        row[PASS_AT] = 1.0
        row[PASS_AT + 1] = early
        row[PASS_AT + 2] = late
        row[PASS_AT + 3] = danger1
        row[PASS_AT + 4] = next1
        row[PASS_AT + 5] = _top_card(trick_mask) / 51.0
        row[PASS_AT + 6] = passes / 2.0
        row[PASS_AT + 7] = n_hand / 13.0
        row[PASS_AT + 8] = 1.0 if trick_size >= 5 else 0.0
        row[PASS_AT + 9] = 1.0 if choice == k else 0.0
    return total


@njit(cache=True)
def fast_pick(hand, masks, sizes, strengths, categories, legal, k, trick_size, trick_category, trick_mask, left, passes,
              rules, weights, sample, rng, smart_work, features, scores):  # pragma: no cover - compiled
    """The fast model's move among the ``k`` legal plays ``legal[:k]`` and pass (arguments as for
    :func:`fast_features`): ``j < k`` for play ``legal[j]``, ``k`` for pass. Its best move (the
    first of the highest scores), or with ``sample`` one drawn from ``softmax(w . phi)`` with
    ``rng``. ``features`` (at least ``k + 1`` rows) and ``scores`` are scratch."""
    total = k + 1 if trick_size else k
    if total <= 1:
        return 0
    fast_features(hand, masks, sizes, strengths, categories, legal, k, trick_size, trick_category, trick_mask, left,
                  passes, rules, smart_work, features)
    best, best_score = 0, -math.inf
    for r in range(total):
        s = 0.0
        for c in range(N_FEATURES):
            s += weights[c] * features[r, c]
        scores[r] = s
        if s > best_score:
            best, best_score = r, s
    if not sample:
        return best
    z = 0.0
    for r in range(total):
        scores[r] = math.exp(scores[r] - best_score)
        z += scores[r]
    u = rng.random() * z
    for r in range(total):
        u -= scores[r]
        if u < 0.0:
            return r
    return best

