"""One determinised search: deal the hidden cards, play each candidate on the same deals, value, choose.

The loop (:func:`determinized_search`) knows nothing of cards. A decision gives it

* the number of candidates (which moves are tried: :func:`top_candidates` keeps a ranking's
  favourites, and pass);
* a dealer (:mod:`big2_env.players.dealers`): ``deal(n)``, ``n`` determinisations of the hidden
  cards;
* a valuer (:mod:`big2_env.players.valuers`): ``values(deals, alive)``, what each deal is worth
  to the searcher after each candidate still in contention (rollouts by Smart, the fast model,
  a network, or nested rollouts);
* a budget (:func:`parse_budget`: rollouts or seconds) and a schedule: every candidate on the
  same deals throughout (``halving=False``), or successive halving, whose rounds keep the better
  half of the candidates for the next (``halving=True``); ``batch`` caps the deals valued at once.

It returns a :class:`Tally`; the caller chooses from it: the best mean (:func:`best_mean`), or
the blueprint's own move unless another beats it by a margin of standard errors, paired deal by
deal (:func:`leave_blueprint`). ``search`` (:class:`~big2_env.players.search.SearchPolicy`) and
``search-net`` (``agents.net_search.NetworkSearch``) are configurations of it; ISMCTS
(:mod:`big2_env.players.ismcts`) deals and values with the same parts.

All candidates are compared on the *same* deals (common random numbers), so the noise of the deal
cancels out of their differences.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from ..checks import is_int
from .dealers import Dealer
from .valuers import Valuer

__all__ = ["Tally", "best_mean", "determinized_search", "leave_blueprint", "parse_budget", "top_candidates"]


def parse_budget(budget: Any, unit: str = "rollouts") -> tuple[int | None, float | None]:
    """``(count, seconds)`` of a budget: an int (or a string of digits) is ``unit`` (rollouts,
    iterations) per decision, in 1..10000000; a float or a string such as ``"0.25s"`` is seconds
    per decision, in [0.001, 600].

    >>> parse_budget(200), parse_budget("64"), parse_budget("0.25s"), parse_budget(1.0)
    ((200, None), (64, None), (None, 0.25), (None, 1.0))
    """
    count = int(budget) if isinstance(budget, str) and budget.isdigit() else budget
    if is_int(count, 1, 10_000_000):
        return int(count), None
    text = budget[:-1] if isinstance(budget, str) and budget.endswith("s") else budget
    try:
        seconds = math.nan if isinstance(budget, bool) else float(text)
    except (TypeError, ValueError):
        seconds = math.nan
    if not 0.001 <= seconds <= 600:
        raise ValueError(f"budget must be {unit} per decision (an int in 1..10000000) or seconds in [0.001, 600] "
                         f"(such as '0.25s' or 0.25); got {budget!r}")
    return None, seconds


def top_candidates(ranked: Sequence[int], k: int, pass_action: int | None = None) -> list[int]:
    """The first ``k`` moves of ``ranked`` (best first; ``k = 0``: all), then ``pass_action`` where it
    is given (legal) and not among them: passing is always tried."""
    kept = list(ranked[:k] if k else ranked)
    if pass_action is not None and pass_action not in kept:
        kept.append(pass_action)
    return kept


@dataclass
class Tally:
    """What the loop measured for ``n`` candidates: per candidate the sum of its values and the deals
    it was valued on, the candidates still alive at the end (halving drops the others), and each
    batch's ``(alive, values)``."""

    n: int
    rounds: int = 1
    sums: list[float] = field(init=False)
    counts: list[int] = field(init=False)
    alive: list[int] = field(init=False)
    batches: list[tuple[list[int], np.ndarray]] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self.sums, self.counts, self.alive = [0.0] * self.n, [0] * self.n, list(range(self.n))

    @property
    def rollouts(self) -> int:
        return sum(self.counts)

    def add(self, alive: Sequence[int], values: np.ndarray) -> None:
        self.batches.append((list(alive), values))
        for row in values.tolist():
            for i, value in zip(alive, row):
                self.sums[i] += value
                self.counts[i] += 1

    def means(self) -> list[float]:
        """Every candidate's mean value (``-inf`` where it has none), those dropped by halving included."""
        return [self.sums[i] / self.counts[i] if self.counts[i] else -math.inf for i in range(self.n)]

    def table(self) -> np.ndarray:
        """``(deals, n)``: the values of the batches that valued every candidate (all of them without halving)."""
        rows = [values for alive, values in self.batches if len(alive) == self.n]
        return np.concatenate(rows) if rows else np.empty((0, self.n))


def determinized_search(n: int, dealer: Dealer, valuer: Valuer, rollouts: int | None = None,
                        seconds: float | None = None, halving: bool = False, batch: int | None = None,
                        first: Sequence[Sequence[int]] = (), started: float | None = None,
                        clock: Callable[[], float] = time.perf_counter) -> Tally:
    """Value ``n`` candidates on deals of ``dealer`` by ``valuer`` within the budget: ``rollouts``
    (candidate-deal pairs) or ``seconds`` (from ``started``, by default now).

    Rounds: 1 without ``halving``, else ``ceil(log2(n))``, each with an equal share of the budget
    spread over the candidates still alive, every one of them on the same fresh deals (at least
    one deal); after every round but the last, halving keeps the better half by mean (ties: the
    lower index). A round deals in batches of at most ``batch`` deals (``None``: the round's
    deals at once). A budget in seconds (read off ``clock``) gives every round an equal share of
    the time: batches of ``batch`` deals until the next would end past it, or without ``batch``
    batches each sized from the time the one before took. ``first``: deals already made, used
    before any other.
    """
    if n < 1 or (rollouts is None) == (seconds is None) or (batch is not None and batch < 1):
        raise ValueError(f"a search needs candidates, one budget (rollouts or seconds) and batches of >= 1 deal; "
                         f"got n={n!r}, rollouts={rollouts!r}, seconds={seconds!r}, batch={batch!r}")
    started = clock() if started is None else started
    rounds = max(1, math.ceil(math.log2(n))) if halving else 1
    tally = Tally(n, rounds)
    pending = [list(hands) for hands in first]

    def value(deals: int) -> None:
        made = [pending.pop() for _ in range(min(deals, len(pending)))]
        hands = np.asarray(made, dtype=np.int64).reshape(len(made), 4)
        if deals > len(made):
            hands = np.concatenate([hands, dealer.deal(deals - len(made))])
        tally.add(tally.alive, valuer.values(hands, tally.alive))

    def spend(deals: int) -> None:
        while deals > 0:
            size = deals if batch is None else min(batch, deals)
            value(size)
            deals -= size

    def spend_until(deadline: float) -> None:
        size = 2 if batch is None else batch  # the first of 2 deals only calibrates: per-call overhead makes it slow
        while True:
            begun = clock()
            value(size)
            now = clock()
            took = now - begun
            if batch is not None:
                if now + took > deadline:
                    return
                continue
            per_deal = took / size
            if deadline - now < per_deal:
                return
            size = max(1, int(0.8 * (deadline - now) / per_deal))  # a margin: rollouts vary in length

    for r in range(rounds):
        if rollouts is None:
            spend_until(started + seconds * (r + 1) / rounds)  # type: ignore[operator]
        else:
            share = (rollouts - tally.rollouts) // (rounds - r)
            if share >= len(tally.alive) or not tally.rollouts:
                spend(max(1, share // len(tally.alive)))
        if r < rounds - 1 and len(tally.alive) > 1:
            current = tally.means()
            alive = sorted(tally.alive, key=lambda i: (-current[i], i))
            tally.alive = sorted(alive[: (len(alive) + 1) // 2])
    return tally


def best_mean(tally: Tally) -> int:
    """The alive candidate with the best mean (ties: the lower index)."""
    means = tally.means()
    return max(tally.alive, key=lambda i: (means[i], -i))


def leave_blueprint(values: np.ndarray, blueprint: int, margin: float) -> tuple[int, float, float]:
    """The candidate to play, from ``values`` ``(deals, candidates)``: the best mean, if its paired gain
    over the ``blueprint``'s (a column) clears ``margin`` standard errors of the paired difference
    (SPARTA's threshold), else the blueprint's; with that gain and its standard error."""
    means = values.mean(axis=0)
    best = int(np.argmax(means))
    if best == blueprint:
        return blueprint, 0.0, 0.0
    diff = values[:, best] - values[:, blueprint]
    gain = float(diff.mean())
    error = float(diff.std(ddof=1) / math.sqrt(len(diff))) if len(diff) > 1 else math.inf
    if gain > 0 and (gain > margin * error or (error == 0 and len(diff) > 1)):
        return best, gain, error
    return blueprint, gain, error
