"""The paper's evaluation protocol: one agent against three copies of an opponent.

:func:`evaluate` plays ``n_games`` four-player games. In each game the evaluated
agent holds one seat, drawn uniformly at random per game from the seeded RNG (the
paper: "the evaluated agent's seat is randomized across games"); the other three
seats are played by the opponent policy. It reports the agent's win rate and mean
score (the final score of the agent's seat, section 2 of the spec) with 95%
confidence intervals, the paper's success criterion (win rate > 25% and mean
score > 0) and per-seat figures.

Example:
    >>> from big2_env.evaluation import evaluate
    >>> result = evaluate("random", "random", n_games=40, seed=1)
    >>> result.n_games, sum(s.games for s in result.per_seat)
    (40, 40)
    >>> 0.0 <= result.win_rate <= 1.0
    True

Speed: the games are stepped together. Each round, every unfinished game makes one
move; the decisions of all games where the agent is on move go to
``agent.act_batch`` in one call, and those of the opponents to
``opponent.act_batch`` in another, so a neural policy can run one forward pass per
round. The engine (:class:`big2_env.engine.game.Game`) is driven directly, with no
environment loop in between. The observations handed to the policies are
read-only mappings with the candidate-view keys (``"observation"``,
``"action_mask"``, ``"candidate_actions"``, ``"candidate_features"``);
``"action_mask"`` and ``"candidate_features"`` are built only when a policy reads
them (``dict(obs)`` gives a plain dict).

Confidence intervals (95%, ``z = 1.96``):

* win rate: the Wilson score interval (games are independent Bernoulli trials);
* mean score: the normal approximation, mean +- z * sd / sqrt(n) (sample sd);
* duplicate mode (``duplicate=True``): every deal is played four times, with the
  agent in each seat in turn, so ``n_games`` deals give ``4 * n_games`` games.
  The four games of a deal share its cards and are not independent, so the deal is
  the unit: both intervals are normal intervals over the per-deal means (win
  fraction 0, 1/4, ..., 1 and mean score of the four games), the win-rate one
  clipped to [0, 1]. Duplicate play removes most of the luck of the deal and
  balances the seats exactly, so it needs far fewer deals for the same precision.

Policies are expected to be memoryless (an action from the observation alone, as
the :class:`big2_env.players.Policy` interface is), because one opponent object
plays all three opponent seats of every game and games are interleaved.
``evaluate`` calls ``seed`` on both policies with seeds derived from ``seed``, so
the same arguments give the same result (``elapsed_s`` aside).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..checks import is_int
from ..observations.decision import Decision, PolicyObservation
from ..engine.game import NUM_PLAYERS, Game
from ..engine.replay import replay_dict, write_replay
from ..players.base import Policy, policy_actions
from .loading import resolve_policy
from .progress import Progress
from .workers import worker_pool
from ..engine.rules import Rules

__all__ = ["EvaluationResult", "SeatResult", "evaluate", "normal_interval", "wilson_interval"]

Z95 = 1.959963984540054
WIN_RATE_TARGET = 0.25  # the paper's success criterion: win rate above 25% ...
SCORE_TARGET = 0.0  # ... and mean score above 0


def policy_name(policy: Any) -> str:
    """A short display name: the registered name, else the class name (strings are shown as given)."""
    if isinstance(policy, (str, os.PathLike)):
        return os.fspath(policy)
    name = getattr(policy, "name", None)
    if isinstance(name, str) and name and name != Policy.name:
        return name
    return type(policy).__name__


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (``(nan, nan)`` when ``n == 0``)."""
    if n <= 0:
        return (math.nan, math.nan)
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n)) / denom
    lo = 0.0 if successes <= 0 else max(0.0, min(p, centre - half))  # exact ends at 0 and n, and
    hi = 1.0 if successes >= n else min(1.0, max(p, centre + half))  # never excluding p to rounding
    return (lo, hi)


def normal_interval(values: np.ndarray, z: float = Z95) -> tuple[float, float]:
    """mean +- z * sd / sqrt(n) with the sample sd (``(nan, nan)`` with fewer than two values)."""
    n = len(values)
    if n < 2:
        return (math.nan, math.nan)
    mean = float(np.mean(values))
    half = z * float(np.std(values, ddof=1)) / math.sqrt(n)
    return (mean - half, mean + half)


@dataclass(frozen=True)
class SeatResult:
    """The agent's figures over the games it played from one seat (``win_rate`` and
    ``mean_score`` are NaN for a seat with no games, ``None`` in :meth:`to_dict`, "-" in the table)."""

    seat: int
    games: int
    wins: int
    win_rate: float
    mean_score: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.win_rate if self.games else None,  # strict JSON has no NaN
            "mean_score": self.mean_score if self.games else None,
        }


@dataclass(frozen=True)
class EvaluationResult:
    """What :func:`evaluate` measured. ``str(result)`` is a readable table.

    Attributes:
        agent, opponent: display names of the policies.
        n_games: games played (``4 * n_deals`` in duplicate mode).
        n_deals: distinct deals (``n_games`` unless duplicate).
        duplicate, seed, rules: the arguments.
        wins, win_rate, win_rate_ci: the agent's wins, their fraction and its 95% CI.
        mean_score, score_std, mean_score_ci: the agent's mean final score, the sample
            sd over games and the 95% CI of the mean.
        ci_method: how the intervals were computed (see the module docstring).
        per_seat: one :class:`SeatResult` per seat 0..3.
        mean_turns: mean decisions per game (all players).
        elapsed_s: wall-clock seconds.
        seats, scores, winners, turns: per-game records (agent seat, agent score,
            winning seat, decisions), in game order; duplicate mode lists the four
            games of deal ``k`` at ``4k .. 4k + 3`` (agent in seats 0..3).
    """

    agent: str
    opponent: str
    n_games: int
    n_deals: int
    duplicate: bool
    seed: int | None
    rules: Rules
    wins: int
    win_rate: float
    win_rate_ci: tuple[float, float]
    mean_score: float
    score_std: float
    mean_score_ci: tuple[float, float]
    ci_method: str
    per_seat: tuple[SeatResult, ...]
    mean_turns: float
    elapsed_s: float
    seats: np.ndarray = field(repr=False, compare=False)
    scores: np.ndarray = field(repr=False, compare=False)
    winners: np.ndarray = field(repr=False, compare=False)
    turns: np.ndarray = field(repr=False, compare=False)

    @property
    def success(self) -> bool:
        """The paper's criterion: win rate > 25% and mean score > 0 (point estimates)."""
        return self.win_rate > WIN_RATE_TARGET and self.mean_score > SCORE_TARGET

    @property
    def significant_success(self) -> bool:
        """Stricter: the lower ends of both 95% intervals clear the criterion."""
        return self.win_rate_ci[0] > WIN_RATE_TARGET and self.mean_score_ci[0] > SCORE_TARGET

    @property
    def games_per_s(self) -> float:
        return self.n_games / self.elapsed_s if self.elapsed_s > 0 else math.inf

    def figures(self) -> dict[str, Any]:
        """The headline figures a results file keeps: win rate and mean score, each with its 95% CI.

        >>> from big2_env.evaluation import evaluate
        >>> sorted(evaluate("random", "random", n_games=8, seed=0).figures())
        ['mean_score', 'mean_score_ci', 'win_rate', 'win_rate_ci']
        """
        return {"win_rate": self.win_rate, "win_rate_ci": list(self.win_rate_ci),
                "mean_score": self.mean_score, "mean_score_ci": list(self.mean_score_ci)}

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict of the figures (the per-game arrays left out)."""
        return {
            "agent": self.agent,
            "opponent": self.opponent,
            "n_games": self.n_games,
            "n_deals": self.n_deals,
            "duplicate": self.duplicate,
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "wins": self.wins,
            **self.figures(),
            "score_std": self.score_std,
            "ci_method": self.ci_method,
            "success": self.success,
            "significant_success": self.significant_success,
            "per_seat": [s.to_dict() for s in self.per_seat],
            "mean_turns": self.mean_turns,
            "elapsed_s": self.elapsed_s,
        }

    def to_table(self) -> str:
        games = f"{self.n_deals} deals x 4 seats = {self.n_games} games" if self.duplicate else f"{self.n_games} games"
        lo, hi = self.win_rate_ci
        slo, shi = self.mean_score_ci
        verdict = "yes" if self.success else "no"
        if self.success and not self.significant_success:
            verdict += " (not significant at 95%)"
        lines = [
            (
                f"{self.agent} vs 3 x {self.opponent}: {games}, seed {self.seed}, "
                f"{self.elapsed_s:.2f} s ({self.games_per_s:.0f} games/s)"
            ),
            f"  win rate    {self.win_rate:7.1%}   95% CI [{lo:.1%}, {hi:.1%}]",
            f"  mean score  {self.mean_score:+7.2f}   95% CI [{slo:+.2f}, {shi:+.2f}]   (sd {self.score_std:.2f})",
            f"  success     {verdict}   (win rate > 25% and mean score > 0)",
            f"  CI method   {self.ci_method}",
            "  seat  games  win rate  mean score",
        ]
        for s in self.per_seat:
            if s.games:
                lines.append(f"  {s.seat:>4}  {s.games:>5}  {s.win_rate:>8.1%}  {s.mean_score:>+10.2f}")
            else:  # a seat the random seating never gave the agent: no rate to show
                lines.append(f"  {s.seat:>4}  {s.games:>5}  {'-':>8}  {'-':>10}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_table()


def _seed_policies(agent: Any, opponent: Any, agent_seq: np.random.SeedSequence, opponent_seq: np.random.SeedSequence) -> None:
    if hasattr(agent, "seed"):
        agent.seed(int(agent_seq.generate_state(1, np.uint64)[0]))
    if hasattr(opponent, "seed") and opponent is not agent:
        opponent.seed(int(opponent_seq.generate_state(1, np.uint64)[0]))


EXPECTED_TURNS = 60
"""About how many moves a game takes, for the progress within unfinished games."""


def play_round(active: Sequence[tuple[Any, Game]], policy_of: Callable[[Any, int], int], policies: Sequence[Any],
               who: Callable[[int, Any], str]) -> list[tuple[Any, Game]]:
    """One move in every game of ``active`` (``(key, game)`` pairs), where ``policies[policy_of(key, seat)]`` plays
    ``seat``: one ``act_batch`` call a policy, in index order, over the games where it is on move. An illegal
    choice raises ``ValueError`` naming ``who(policy index, key)``. Returns the games that finished."""
    moves: dict[int, list[tuple[Any, Game, Decision]]] = {}
    for key, game in active:
        decision = Decision(game)
        moves.setdefault(policy_of(key, decision.player), []).append((key, game, decision))
    finished: list[tuple[Any, Game]] = []
    for index in sorted(moves):
        batch = moves[index]
        actions = policy_actions(policies[index], [PolicyObservation(d) for _, _, d in batch])
        for (key, game, decision), action in zip(batch, actions):
            game._apply(decision.require_entry(action, who(index, key)))
            if game.winner is not None:
                finished.append((key, game))
    return finished


def report_progress(report: Callable[[int], None] | None, done: int, active: Sequence[tuple[Any, Game]],
                    reported: int) -> int:
    """Tell ``report`` the whole games' worth of progress made since ``reported``; returns the new count. The games
    step together and most finish near the end, so the unfinished ones' moves count too (never a whole game for one
    not over), and a slow policy's progress bar moves from the start."""
    if report is None:
        return reported
    progress = int(done + sum(min(g.turn / EXPECTED_TURNS, 0.95) for _, g in active))
    if progress > reported:
        report(progress - reported)
    return max(progress, reported)


def _play_games(
    agent_policy: Any,
    opponent_policy: Any,
    rules: Rules,
    deal_seeds: np.ndarray,
    seats: np.ndarray,
    duplicate: bool,
    lo: int,
    hi: int,
    batch_size: int,
    report: Callable[[int], None] | None = None,
    replays: str | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play games ``lo..hi-1`` (``lo`` a multiple of 4 in duplicate mode); their agent scores,
    winning seats and turns. Each round, every unfinished game makes one move (:func:`play_round`:
    the agent's moves first). With ``replays`` (a folder), each finished game's replay is written
    there (:func:`_write_replay`)."""
    scores = np.zeros(hi - lo, dtype=np.int64)
    winners = np.zeros(hi - lo, dtype=np.int64)
    turns = np.zeros(hi - lo, dtype=np.int64)
    base: list[Game | None] = [None]

    def new_game(index: int) -> Game:
        if not duplicate:
            return Game(rules, seed=int(deal_seeds[index]))
        if index % NUM_PLAYERS == 0:
            base[0] = Game(rules, seed=int(deal_seeds[index // NUM_PLAYERS]))
        dealt = base[0]
        assert dealt is not None
        return dealt.copy()  # the same deal for each seat of the agent

    seat_of = seats.tolist()  # plain ints: faster to index and compare in the loop
    policies, roles = (agent_policy, opponent_policy), ("agent", "opponent")
    next_index = lo
    active: list[tuple[int, Game]] = []
    done = reported = 0
    while active or next_index < hi:
        while len(active) < batch_size and next_index < hi:
            active.append((next_index, new_game(next_index)))
            next_index += 1
        finished = play_round(active, lambda index, player: int(player != seat_of[index]), policies,
                              lambda role, index: f"{roles[role]} policy {policies[role]!r} in game {index}")
        for index, game in finished:
            assert game.winner is not None
            scores[index - lo] = game.scores()[seat_of[index]]
            winners[index - lo] = game.winner
            turns[index - lo] = game.turn
            if replays is not None:
                names = [policy_name(opponent_policy)] * NUM_PLAYERS
                names[seat_of[index]] = policy_name(agent_policy)
                deal = index // NUM_PLAYERS if duplicate else index
                _write_replay(replays, index, game, int(deal_seeds[deal]), names)
        if finished:
            active = [(i, g) for i, g in active if g.winner is None]
            done += len(finished)
        reported = report_progress(report, done, active, reported)
    return scores, winners, turns


def _write_replay(folder: str, index: int, game: Game, seed: int, names: list[str]) -> None:
    """Game ``index``'s replay (:mod:`big2_env.engine.replay`) as ``folder/game-NNNNN.json``."""
    write_replay(os.path.join(folder, f"game-{index:05d}.json"), replay_dict(game, seed, names))


def _chunk_worker(task: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One chunk of a ``jobs > 1`` evaluation, in a worker process."""
    agent, opponent, rules, trust, deal_seeds, seats, duplicate, lo, hi, batch_size, agent_seq, opponent_seq, replays = task
    agent_policy = resolve_policy(agent, "agent", rules, trust=trust)
    opponent_policy = agent_policy if opponent is agent else resolve_policy(opponent, "opponent", rules, trust=trust)
    _seed_policies(agent_policy, opponent_policy, agent_seq, opponent_seq)
    return _play_games(agent_policy, opponent_policy, rules, deal_seeds, seats, duplicate, lo, hi, batch_size, replays=replays)


def _play_in_processes(
    agent: Any,
    opponent: Any,
    rules: Rules,
    trust: bool,
    deal_seeds: np.ndarray,
    seats: np.ndarray,
    duplicate: bool,
    batch_size: int,
    jobs: int,
    agent_seq: np.random.SeedSequence,
    opponent_seq: np.random.SeedSequence,
    report: Callable[[int], None],
    replays: str | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_play_games` over ``4 * jobs`` chunks in ``jobs`` worker processes (see :func:`evaluate`)."""
    from concurrent.futures import as_completed

    total = len(seats)
    unit = NUM_PLAYERS if duplicate else 1
    units = total // unit
    cuts = [unit * (units * k // (4 * jobs)) for k in range(4 * jobs + 1)]
    chunks = [(lo, hi) for lo, hi in zip(cuts, cuts[1:]) if hi > lo]
    agent_seqs, opponent_seqs = agent_seq.spawn(len(chunks)), opponent_seq.spawn(len(chunks))
    parts: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    from ..players.kernels import warm_up

    warm_up()  # the core compiles (or loads its cache) here once, not racing in every worker
    with worker_pool(jobs) as pool:
        futures = {
            pool.submit(_chunk_worker, (agent, opponent, rules, trust, deal_seeds, seats, duplicate, lo, hi, batch_size,
                                        agent_seqs[k], opponent_seqs[k], replays)): k
            for k, (lo, hi) in enumerate(chunks)
        }
        for future in as_completed(futures):
            k = futures[future]
            parts[k] = future.result()
            report(chunks[k][1] - chunks[k][0])
    return tuple(np.concatenate([parts[k][i] for k in range(len(chunks))]) for i in range(3))  # type: ignore[return-value]


def _check_positive_int(value: Any, what: str) -> int:
    if not is_int(value, 1):
        raise ValueError(f"{what} must be a positive int; got {value!r}")
    return int(value)


def duplicate_intervals(won: np.ndarray, scores: np.ndarray) -> tuple[tuple[float, float], tuple[float, float]]:
    """The 95% intervals of duplicate play (the deal is the unit): normal intervals over the per-deal
    means of ``won`` (clipped to [0, 1]) and of ``scores``, both the agent's games four a deal, in deal order.

    >>> wins, points = duplicate_intervals(np.array([1, 0, 0, 0, 1, 1, 0, 0]), np.array([5, -1, -2, -2, 4, 3, -1, -6]))
    >>> [round(x, 2) for x in wins], [round(x, 2) for x in points]
    ([0.13, 0.62], [0.0, 0.0])
    """
    won_by_deal = np.asarray(won, dtype=np.float64).reshape(-1, NUM_PLAYERS).mean(axis=1)
    low, high = normal_interval(won_by_deal)
    scores_by_deal = np.asarray(scores, dtype=np.float64).reshape(-1, NUM_PLAYERS).mean(axis=1)
    return (max(0.0, low), min(1.0, high)), normal_interval(scores_by_deal)


def evaluate(
    agent: Any,
    opponent: Any,
    n_games: int = 1000,
    seed: int | None = 0,
    rules: Rules | str | Mapping[str, Any] | None = None,
    duplicate: bool = False,
    progress: bool = False,
    batch_size: int = 512,
    trust: bool = False,
    jobs: int = 1,
    replays: str | os.PathLike[str] | None = None,
    first_deal: int = 0,
) -> EvaluationResult:
    """Evaluate ``agent`` against three copies of ``opponent`` (the paper's protocol).

    Args:
        agent: the evaluated policy: an object with ``act(obs) -> int`` (``act_batch`` used
            when present) or a spec for :func:`big2_env.evaluation.loading.load_agent`: a name in
            :data:`big2_env.players.POLICIES`, ``"pretrained"``, a ``.pt`` model file, a
            ``big2 train`` run folder or a MaskablePPO ``.zip``.
        opponent: the opponent, same forms; it plays the other three seats.
        n_games: games to play (deals, in duplicate mode); a positive int.
        seed: seeds the deals, the agent's seats and both policies (``policy.seed``);
            the same seed (and ``batch_size``) gives the same result. ``None``: fresh entropy.
        rules: the rule set (a :class:`Rules`, preset name or dict; ``None``: the default rules).
        duplicate: play every deal four times, the agent once in each seat
            (``4 * n_games`` games in all; see the module docstring for the intervals).
        progress: show a progress bar (tqdm if installed, else a line on stderr per ~10%).
        batch_size: games stepped together (the most observations in one ``act_batch``).
        trust: let an SB3 ``.zip`` spec be unpickled by Stable-Baselines3's own loader (which
            can run code from the file); by default it is loaded without unpickling.
        jobs: processes to spread the games over (``1``: this process). The games are cut
            into ``4 * jobs`` consecutive chunks (whole deals in duplicate mode), each played
            by a worker process with its own copies of the policies (a spec is loaded
            there; an object is pickled), seeded per chunk: the same seed and ``jobs`` give
            the same result, and ``jobs > 1`` results differ from ``jobs=1`` only through
            the policies' own random choices. Workers start with ``forkserver`` (or
            ``spawn``), so call this under ``if __name__ == "__main__":`` in a script.
        replays: a folder (made if missing) to write every game's replay into, as
            ``game-NNNNN.json`` in the format of :mod:`big2_env.engine.replay` (what the web
            table, ``big2 serve``, loads and steps through); ``None`` (default) writes none.
        first_deal: play deals ``first_deal .. first_deal + n_games - 1`` of the seed's deal
            sequence (default 0), so that one long evaluation can be split into parts run
            apart (separate processes or machines) whose deals together are exactly those of
            the whole: ``first_deal=500, n_games=500`` plays the second half of ``n_games=1000``.

    Returns:
        An :class:`EvaluationResult`.

    Raises:
        ValueError: a spec that names no loadable agent (:class:`big2_env.evaluation.loading.LoadError`),
            ``n_games`` or ``batch_size`` not a positive int, ``first_deal`` not a non-negative int.
        TypeError: a policy that is neither a spec nor an object with ``act``.
    """
    n_deals = _check_positive_int(n_games, "n_games")
    batch_size = _check_positive_int(batch_size, "batch_size")
    if seed is not None and not is_int(seed, 0):
        raise ValueError(f"seed must be a non-negative int or None; got {seed!r}")
    if not is_int(first_deal, 0):
        raise ValueError(f"first_deal must be a non-negative int; got {first_deal!r}")
    rules = Rules.coerce(rules)
    folder = None
    if replays is not None:
        folder = os.fspath(replays)
        os.makedirs(folder, exist_ok=True)
    agent_policy = resolve_policy(agent, "agent", rules, trust=trust)
    opponent_policy = resolve_policy(opponent, "opponent", rules, trust=trust)
    agent_label, opponent_label = policy_name(agent_policy), policy_name(opponent_policy)

    root = np.random.SeedSequence(seed)
    deal_seq, seat_seq, agent_seq, opponent_seq = root.spawn(4)
    deal_seeds = deal_seq.generate_state(int(first_deal) + n_deals, np.uint64)[int(first_deal):]
    jobs = _check_positive_int(jobs, "jobs")
    _seed_policies(agent_policy, opponent_policy, agent_seq, opponent_seq)

    total = 4 * n_deals if duplicate else n_deals
    if duplicate:
        seats = np.tile(np.arange(NUM_PLAYERS, dtype=np.int64), n_deals)
    else:
        seats = np.random.default_rng(seat_seq).integers(NUM_PLAYERS, size=n_deals).astype(np.int64)
    bar = Progress(total, f"{agent_label} vs {opponent_label}", progress)
    start = time.perf_counter()
    try:
        if jobs == 1:
            scores, winners, turns = _play_games(
                agent_policy, opponent_policy, rules, deal_seeds, seats, duplicate, 0, total, batch_size, bar.update, folder
            )
        else:
            scores, winners, turns = _play_in_processes(
                agent if isinstance(agent, str) else agent_policy,
                opponent if isinstance(opponent, str) else opponent_policy,
                rules, trust, deal_seeds, seats, duplicate, batch_size, jobs, agent_seq, opponent_seq, bar.update, folder,
            )
    finally:
        bar.close()
    elapsed = time.perf_counter() - start

    won = winners == seats
    wins = int(won.sum())
    score_std = float(np.std(scores, ddof=1)) if total > 1 else math.nan
    if duplicate:
        win_rate_ci, mean_score_ci = duplicate_intervals(won, scores)
        method = "duplicate: normal intervals over per-deal means (deal = unit), z=1.96"
    else:
        win_rate_ci = wilson_interval(wins, total)
        mean_score_ci = normal_interval(scores.astype(np.float64))
        method = "win rate: Wilson score interval; mean score: normal approximation; z=1.96"
    per_seat = []
    for seat in range(NUM_PLAYERS):
        here = seats == seat
        games = int(here.sum())
        seat_wins = int(won[here].sum())
        per_seat.append(
            SeatResult(
                seat=seat,
                games=games,
                wins=seat_wins,
                win_rate=seat_wins / games if games else math.nan,
                mean_score=float(scores[here].mean()) if games else math.nan,
            )
        )
    return EvaluationResult(
        agent=agent_label,
        opponent=opponent_label,
        n_games=total,
        n_deals=n_deals,
        duplicate=bool(duplicate),
        seed=None if seed is None else int(seed),
        rules=rules,
        wins=wins,
        win_rate=wins / total,
        win_rate_ci=win_rate_ci,
        mean_score=float(scores.mean()),
        score_std=score_std,
        mean_score_ci=mean_score_ci,
        ci_method=method,
        per_seat=tuple(per_seat),
        mean_turns=float(turns.mean()),
        elapsed_s=elapsed,
        seats=seats,
        scores=scores,
        winners=winners,
        turns=turns,
    )
