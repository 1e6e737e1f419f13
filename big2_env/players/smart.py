"""The paper's Smart baseline (Algorithm 2): hand structure, game phase and the trick's strength.

:class:`SmartPolicy` states the rule in full. The compiled kernel
:func:`big2_env.players.kernels.smart.smart_pick` makes the choice, here as in every compiled
game, play-out and vector env: :func:`smart_choice` asks it on plain data (the policy and the
search's engine-level rollouts share it) and :func:`smart_ranking` orders the plays by its scores
for the search's prior. The rule's pure-Python statement, term by term, is the tests' oracle
(``tests/reference/smart.py``).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..engine import native
from ..engine.rules import Rules
from .base import Observation, Policy, decode_observation
from .greedy import _greedy_key

__all__ = ["SmartPolicy", "smart_choice", "smart_ranking"]

_rules_arrays: dict[Rules, np.ndarray] = {}
_kernel: Any = None


def _smart_kernel() -> Any:
    """The compiled Smart (:mod:`big2_env.players.kernels.smart`), imported on first use: ``import big2_env`` loads no numba."""
    global _kernel
    if _kernel is None:
        from .kernels import smart

        _kernel = smart
    return _kernel


def _decision(hand: Sequence[int], trick: Sequence[int] | None, plays: Sequence[tuple[int, ...]], rules: Rules) -> tuple:
    """The kernel's arguments for a decision among ``plays``: the non-pass plays in the engine's
    order (size, strength, cards) as their indices in ``plays`` and their masks, sizes and
    categories, the hand's mask, the trick's size, category and mask, the rules array."""
    chosen = [i for i, play in enumerate(plays) if play]
    entries = native.entries_of([sum(1 << c for c in plays[i]) for i in chosen], rules)
    order = sorted(range(len(chosen)), key=lambda j: (len(plays[chosen[j]]), entries[j][0], plays[chosen[j]]))
    index = [chosen[j] for j in order]
    masks = np.array([entries[j][2] for j in order], dtype=np.int64)
    sizes = np.array([len(plays[i]) for i in index], dtype=np.int64)
    categories = np.array([entries[j][3] for j in order], dtype=np.int64)
    trick_mask = sum(1 << c for c in trick) if trick else 0
    trick_category = 0
    if trick_mask:
        classified = native.classify_mask(trick_mask, rules)
        if classified is None:
            raise ValueError(f"trick {tuple(trick or ())} is not a legal combination under these rules")
        trick_category = classified[0]
    rules_arr = _rules_arrays.get(rules)
    if rules_arr is None:
        rules_arr = _rules_arrays.setdefault(rules, np.array(native.rules_array(rules)))
    trick_size = len(trick) if trick else 0
    return index, masks, sizes, categories, sum(1 << c for c in hand), trick_size, trick_category, trick_mask, rules_arr


class SmartPolicy(Policy):
    """The paper's Smart baseline (Algorithm 2), deterministic, from the observation only.

    Notation: H is the acting player's hand before the play, T the active trick
    (none when leading), A the legal actions, B the non-pass ones. Ranks are
    0..12 (3 low .. 2 high).

    Decision:

    1. If B is empty or |A| = 1, return the only legal action.
    2. Score every a in B with s(a) (lower is better); a* = argmin. Ties go to the
       weaker play under Greedy's ordering (category, comparison key, then the
       sorted card tuple), so the choice is deterministic.
    3. If PASS is legal, the phase is early, a* contains at least two 2s and
       s(a*) > 30: return PASS.
    4. If PASS is legal and T is a four of a kind or a straight flush: return PASS
       (even when a* would win at once: the paper's rule has no exception).
    5. Return a*.

    Score s(a), exactly the paper's terms:

    * |a| = |H| (the play empties the hand): s = -1000 and nothing else.
    * Otherwise the sum of: 0.8 * (sum of the ranks of a's cards); +10 per 2 in a
      in the early phase, +5 per 2 in the mid phase; + BreakPenalty(a, H);
      + 6 * LowOrphans(H \\ a); - 4 * |a|; -10 in the late phase; another -10
      when T is very strong and the phase is late; +25 when T is a four of a kind
      or straight flush. The last three terms are the same for every a in one
      decision (they only shift s(a*) against the pass threshold, and that
      threshold applies only in the early phase), so on their own they never
      change the choice; they are kept so that the scores match the paper.
      The paper's two trick terms are independent ``if`` s, so a four of a kind
      facing a late-phase hand gets both -10 and +25.

    Phase (of H, before the play): early if |H| > 10, mid if 6 <= |H| <= 10, late
    if |H| <= 5 .

    Scores are computed exactly (in tenths), so ties and the "> 30" test involve
    no rounding.

    Definitions the paper leaves open. They follow the public Smart implementation
    whose weights, phases and pass rules are exactly Algorithm 2's (it appears to
    be the paper's own code: github.com/vsingh18567/big2,
    ``big2/simulator/smart_strategy.py``), re-implemented here; the one deliberate
    difference is that the two trick terms are independent, as in the paper's
    listing (that code skips +25 when the late very-strong bonus applies; neither
    version changes a choice):

    * BreakPenalty(a, H) is added once per play: 20 / 8 / 4 (early / mid / late)
      if a breaks at least one potential five-card structure of H, otherwise
      8 / 4 / 0 if a breaks a pair or triple, otherwise 0. Breaking several
      structures costs no more than breaking one.
    * Only plays of fewer than five cards can break anything: a five-card play
      (itself a five-card structure) gets BreakPenalty 0.
    * Let n_r be the number of cards of rank r in H and k_r the number in a;
      likewise m_s and j_s per suit. A play a (|a| < 5) breaks
      - the *four of a kind* of rank r if n_r = 4 and 0 < k_r < 4 (playing all
        four, only possible as a four-card play, does not break it);
      - a *full house* if H holds a potential full house (some rank with n_r >= 3
        and at least two ranks with n_r >= 2) and for some rank r in a,
        0 < n_r - k_r < min(n_r, 3): a triple (or four) is cut below three cards,
        or a pair is cut to one, without playing the whole rank (playing the whole
        pair or triple does not break it);
      - a *flush* if some suit s with m_s >= 5 has j_s >= 1 and m_s - j_s < 5
        (fewer than five cards of the suit would stay);
      - a *straight* if for some straight window W of the rules (for the default
        rules the eight windows 34567 .. TJQKA, never containing a 2) with every
        rank of W in H, a plays the last card of some rank of W (so W is no longer
        complete in H \\ a);
      - a *pair or triple* ("breaks a remaining pair or triple") if a is a single
        and at least two cards of its rank stay in H \\ a, or a is a single or a
        pair and at least three stay. With four suits this means: a single played
        from a rank held three or four times. Splitting a pair into two singles is
        not a pair break (it can still be a full-house break, and it may leave a
        low orphan).
    * LowOrphans(X) counts the ranks 3, 4, 5, 6, 7 (rank index 0..4) held exactly
      once in X = H \\ a.
    * T is *very strong* if it is a five-card hand (straight or better), a
      four-card four of a kind (variant), contains a 2, or is a single K or A

    * "T is four of a kind or straight flush" covers the five-card four of a kind,
      the four-card four of a kind of the ``four_card_plays`` variant and the
      straight flush.

    Args:
        rules: the game's rule set (a :class:`Rules`, preset name or dict); it fixes
            how plays and the trick are classified and which straight windows exist.
    """

    name = "smart"

    def __init__(self, rules: Rules | str | dict | None = None) -> None:
        self.rules = Rules.coerce(rules)

    def act(self, obs: Observation) -> int:
        decoded = decode_observation(obs)
        return decoded.actions[smart_choice(decoded.hand, decoded.trick, decoded.plays, self.rules)]

    def __repr__(self) -> str:
        return f"SmartPolicy(rules={self.rules!r})"


def smart_choice(hand: Sequence[int], trick: Sequence[int] | None, plays: Sequence[tuple[int, ...]], rules: Rules) -> int:
    """The index in ``plays`` (the legal plays, ``()`` for pass) that :class:`SmartPolicy` chooses:
    the compiled :func:`~big2_env.players.kernels.smart.smart_pick`'s choice.

    The whole decision of Algorithm 2 (see :class:`SmartPolicy`) on plain data, so that the
    observation-dict policy and the engine-level rollouts of :mod:`big2_env.players.search` make
    exactly the same moves. ``hand`` is the acting player's hand, ``trick`` the active
    trick (``None`` when leading); ``plays`` in any order.

    >>> from big2_env import Rules, parse_cards
    >>> plays = [(), tuple(parse_cards("5H")), tuple(parse_cards("6H"))]
    >>> smart_choice(parse_cards("3D 3S 5H 6H KS"), parse_cards("4C"), plays, Rules())
    1
    """
    if len(plays) == 1:
        return 0
    index, masks, sizes, categories, hand_mask, trick_size, trick_category, trick_mask, rules_arr = _decision(
        hand, trick, plays, rules)
    k = len(index)
    pick = _smart_kernel().smart_pick(hand_mask, masks, sizes, categories, np.arange(k, dtype=np.int64), k, trick_size,
                                      trick_category, trick_mask, rules_arr)
    return index[pick] if pick < k else list(plays).index(())


def _scores10(hand: Sequence[int], trick: Sequence[int] | None, plays: Sequence[tuple[int, ...]],
              rules: Rules) -> list[tuple[int, int]]:
    """``(index in plays, s(a) in tenths)`` of each non-pass play, in the engine's order (the compiled
    :func:`~big2_env.players.kernels.smart.smart_scores`)."""
    index, masks, sizes, _, hand_mask, trick_size, trick_category, trick_mask, rules_arr = _decision(hand, trick, plays, rules)
    k = len(index)
    out = np.empty(k, dtype=np.int64)
    _smart_kernel().smart_scores(hand_mask, masks, sizes, np.arange(k, dtype=np.int64), k, trick_size, trick_category,
                                 trick_mask, rules_arr, out)
    return list(zip(index, out.tolist()))


def smart_ranking(hand: Sequence[int], trick: Sequence[int] | None, plays: Sequence[tuple[int, ...]], rules: Rules) -> list[int]:
    """Indices of the non-pass ``plays`` from Smart's favourite to its least favourite (by s(a), ties by
    Greedy's ordering); pass is left out. A prior for search (:mod:`big2_env.players.search`)."""
    keyed = [(score, _greedy_key(plays[i], rules), i) for i, score in _scores10(hand, trick, plays, rules)]
    return [i for _, _, i in sorted(keyed)]
