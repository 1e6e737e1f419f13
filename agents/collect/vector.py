"""Self-play rollouts on the compiled vector env: every game's mover in one batched forward pass.

:func:`collect_vector` is :func:`agents.collect.rollout.collect` for the commonest curriculum (the
current policy in all four seats, every decision recorded) on
:class:`big2_env.envs.vector.Big2VectorEnv`: the rules, the observations and the candidate rows
are computed in the compiled core, parallel over games, and the network scores the mover of
every unfinished game in one forward pass per step. Each of the env's ``num_envs`` games is
played once from a fresh deal; a game that has ended is stepped with its first legal action
(the env deals it again) and nothing of it is recorded.

The result is the same :class:`agents.collect.rollout.Rollout` as the engine's collector gives, so
every learner trains on it unchanged (``big2 train --env vector``). The deals come from the
vector env's generator (seeded per batch), not from ``Game(rules, seed=...)``: the two
collectors play different deals, each reproducibly.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from big2_env.envs.vector import Big2VectorEnv

from ..network import Big2Net
from ..policy import choose, score_numpy
from .base import Batch, Collector
from .rollout import Rollout, _Recorder, candidate_rows, concat_rollouts, select_rows


def collect_vector(
    venv: Big2VectorEnv,
    model: Big2Net,
    rng: np.random.Generator | None,
    seed: int,
    skip_forced: bool = False,
    epsilon: float | None = None,
) -> Rollout:
    """Play ``venv.num_envs`` self-play games of ``model`` (all four seats) and record every decision.

    Args:
        venv: the vector env (paper observation); it is reset with ``seed``.
        model: the network in every seat (its decisions are all recorded).
        rng: draws the sampled actions (``None``: argmax), as in :func:`agents.collect.rollout.collect`.
        seed: the deals' seed for this batch.
        skip_forced: a decision with one legal action is played without a forward pass and not recorded.
        epsilon: ``None`` samples the softmax (PPO); a number plays epsilon-greedy (value learners).
    """
    check_view(venv, model)
    n = venv.num_envs
    obs, _ = venv.reset(seed=seed)
    active = np.ones(n, dtype=bool)
    turn = np.zeros(n, dtype=np.int64)
    scores = np.zeros((n, 4), dtype=np.int64)
    turns = np.zeros(n, dtype=np.int64)
    winners = np.full(n, -1, dtype=np.int64)
    recorder = _Recorder(model.obs_size)
    decisions = 0
    games = np.arange(n, dtype=np.int64)
    while active.any():
        features, candidates, counts = venv.candidates()
        offsets = np.cumsum(counts) - counts
        actions = candidates[offsets]  # every game's first legal action: what an ended game plays
        decide = active & (counts > 1) if skip_forced else active.copy()
        decisions += int(active.sum())
        if decide.any():
            index = np.flatnonzero(decide)
            rows = candidate_rows(counts, offsets, index)[0]
            state = obs["observation"][index]
            chosen_features, chosen_counts = features[rows], counts[index]
            logp, value = score_numpy(model, state, chosen_features, chosen_counts)
            choice = choose(logp, chosen_counts, rng, epsilon)
            picked = candidates[offsets[index] + choice]
            actions[index] = picked
            values = value if value is not None else np.zeros(len(index), np.float32)
            recorder.add(state, chosen_features, candidates[rows], chosen_counts, choice, picked, games[index],
                         obs["current_player"][index], turn[index], logp[np.arange(len(index)), choice], values)
        obs, rewards, terminations, _, infos = venv.step(actions)
        turn[active] += 1
        ended = active & terminations
        if ended.any():
            scores[ended] = rewards[ended].astype(np.int64)
            turns[ended] = infos["turns"][ended]
            winners[ended] = infos["winner"][ended]
            active &= ~terminations
    return recorder.build(scores, turns, winners, decisions, decisions, [])


def check_view(venv: Big2VectorEnv, model: Big2Net) -> None:
    """``ValueError`` unless the vector env gives the numbers the network reads (277 or Charlesworth's 412)."""
    wanted = getattr(model.config, "observation", "paper")
    if wanted == "extended" or venv.observation != wanted:
        raise ValueError(f"the vector env gives the {venv.observation} view; this network reads the {wanted} view")


class SteppedCollector:
    """Charlesworth's cadence: each of the vector env's games is stepped ``steps`` decisions a batch,
    and the games run on across batches (``big2 train --steps-per-batch N``).

    Every decision is recorded. A seat's trajectory in a game still going at the batch's end has no
    next value yet: its last decision is marked ``cut`` (its value bootstraps the decisions before it)
    and is held back to be learned in the next batch, where what follows it is known. His trainer does
    the same with the last four decisions of each game. Game ids are the batch's own (0..G-1, the held
    rows' games first); ``Rollout.ended`` says which games ended in it.

    With ``random_prob`` > 0 (``big2 train --random-opponent-prob P``), each new game is, with that
    chance, played by the network in one seat (uniform) against three Random players (uniform over
    the legal actions, as the evaluation's Random); only the network's decisions are recorded. The
    other games stay self-play. Those draws have their own generator (from ``seed``), so with
    ``random_prob`` 0 the collector plays and records exactly what it did without the option.

    The env is reset once, with ``seed``, at the first batch; the collector is not checkpointed
    (a resumed run starts new deals).
    """

    def __init__(self, venv: Big2VectorEnv, seed: int, random_prob: float = 0.0) -> None:
        if not 0.0 <= random_prob <= 1.0:
            raise ValueError(f"random_prob must be in [0, 1]; got {random_prob!r}")
        self.venv = venv
        self.obs, _ = venv.reset(seed=seed)
        n = venv.num_envs
        self.uid = np.arange(n, dtype=np.int64)  # each slot's game, numbered across batches
        self.next_uid = n
        self.turn = np.zeros(n, dtype=np.int64)
        self.held: Rollout | None = None  # the cut rows of the last batch (their games are still under way)
        self.random_prob = random_prob
        self.seat_rng = np.random.default_rng([seed, 0x52414E44])  # the Random games' draws, apart from the policy's
        self.versus_random = np.zeros(n, dtype=bool)  # each slot's game: the network in one seat against three Random
        self.model_seat = np.zeros(n, dtype=np.int64)
        self._draw_games(np.arange(n))

    def _draw_games(self, slots: np.ndarray) -> None:
        """Decide, for the new games in ``slots``, which are played against three Random and the network's seat there."""
        if self.random_prob > 0 and len(slots):
            self.versus_random[slots] = self.seat_rng.random(len(slots)) < self.random_prob
            self.model_seat[slots] = self.seat_rng.integers(0, 4, len(slots))

    def collect(self, model: Big2Net, rng: np.random.Generator | None, steps: int) -> Rollout:
        """Step every game ``steps`` decisions, ``model`` in all four seats (in one against Random where
        ``random_prob`` > 0); see the class docstring."""
        check_view(self.venv, model)
        venv, n = self.venv, self.venv.num_envs
        recorder = _Recorder(model.obs_size)
        results: dict[int, tuple[np.ndarray, int, int]] = {}  # uid -> scores, turns, winner
        slots = np.arange(n, dtype=np.int64)
        recorded = 0
        for _ in range(steps):
            features, candidates, counts = venv.candidates()
            offsets = np.cumsum(counts) - counts
            state = self.obs["observation"]
            mover = self.obs["current_player"]
            if self.random_prob > 0:  # a Random seat's move: uniform over its legal actions, not recorded
                random_move = self.versus_random & (mover != self.model_seat)
                picked = candidates[offsets + np.floor(self.seat_rng.random(n) * counts).astype(np.int64)]
                index = np.flatnonzero(~random_move)
            else:
                picked = np.empty(n, dtype=candidates.dtype)
                index = slots
            if len(index):
                rows = candidate_rows(counts, offsets, index)[0]
                chosen_features, chosen_counts = features[rows], counts[index]
                logp, value = score_numpy(model, state[index], chosen_features, chosen_counts)
                choice = choose(logp, chosen_counts, rng, None)
                picked[index] = candidates[offsets[index] + choice]
                values = value if value is not None else np.zeros(len(index), np.float32)
                recorder.add(state[index], chosen_features, candidates[rows], chosen_counts, choice, picked[index],
                             self.uid[index], mover[index], self.turn[index], logp[np.arange(len(index)), choice], values)
                recorded += len(index)
            self.obs, rewards, terminations, _, infos = venv.step(picked)
            self.turn += 1
            ended = np.flatnonzero(terminations)
            for g in ended.tolist():
                results[int(self.uid[g])] = (rewards[g].astype(np.int64), int(infos["turns"][g]), int(infos["winner"][g]))
                self.uid[g] = self.next_uid
                self.next_uid += 1
                self.turn[g] = 0
            self._draw_games(ended)
        fresh = recorder.build(np.zeros((0, 4), np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64), steps * n,
                               steps * n, [])
        fresh.cut = np.zeros(len(fresh), dtype=bool)
        rollout = fresh if self.held is None else concat_rollouts([self.held, fresh])
        if self.held is not None:  # concat_rollouts renumbers games per part: keep the numbering across batches
            rollout.game = np.concatenate([self.held.game, fresh.game])
        rollout.decisions, rollout.model_decisions = steps * n, recorded
        # batch-local game ids, the per-game arrays, and the cut rows: each seat's last in a game under way
        uids, local = np.unique(rollout.game, return_inverse=True)
        rollout.game = local.astype(np.int64)
        ended = np.array([int(u) in results for u in uids], dtype=bool)
        rollout.ended = ended
        rollout.scores = np.zeros((len(uids), 4), dtype=np.int64)
        rollout.turns = np.zeros(len(uids), dtype=np.int64)
        rollout.winners = np.full(len(uids), -1, dtype=np.int64)
        for i in np.flatnonzero(ended).tolist():
            rollout.scores[i], rollout.turns[i], rollout.winners[i] = results[int(uids[i])]
        order = np.lexsort((rollout.turn, rollout.seat, rollout.game))
        last = np.ones(len(order), dtype=bool)
        last[:-1] = (rollout.game[order][1:] != rollout.game[order][:-1]) | (rollout.seat[order][1:] != rollout.seat[order][:-1])
        cut = np.zeros(len(order), dtype=bool)
        cut[order[last]] = ~ended[rollout.game[order[last]]]
        rollout.cut = cut
        held = select_rows(rollout, np.flatnonzero(cut))
        held.game = uids[held.game]  # back to the numbering across batches
        held.cut = np.zeros(len(held), dtype=bool)
        self.held = held
        return rollout


class VectorCollector(Collector):
    """The trainer's collector on the compiled vector env (``--env vector``): each batch a fresh set of
    games played to the end (:func:`collect_vector`, seeded with the batch's first seed), or, with
    ``steps`` > 0, the :class:`SteppedCollector`'s games stepped ``steps`` decisions each (it is
    started at the first batch, with that batch's first seed).

    ``make_env`` gives the env (made at the first batch: it sets the compiled core's threads).
    """

    def __init__(self, make_env: Callable[[], Big2VectorEnv], skip_forced: bool, steps: int = 0,
                 random_prob: float = 0.0) -> None:
        self.make_env, self.skip_forced = make_env, skip_forced
        self.steps, self.random_prob = steps, random_prob
        self.stepper: SteppedCollector | None = None

    def collect(self, batch: Batch) -> Rollout:
        seed = int(batch.seeds[0])
        if not self.steps:
            return collect_vector(self.make_env(), batch.actor, batch.rng, seed, skip_forced=self.skip_forced,
                                  epsilon=batch.epsilon)
        if self.stepper is None:
            self.stepper = SteppedCollector(self.make_env(), seed, self.random_prob)
        return self.stepper.collect(batch.actor, batch.rng, self.steps)
