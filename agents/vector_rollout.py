"""Self-play rollouts on the compiled vector env: every game's mover in one batched forward pass.

:func:`collect_vector` is :func:`agents.rollout.collect` for the commonest curriculum (the
current policy in all four seats, every decision recorded) on
:class:`big2_env.envs.vector.Big2VectorEnv`: the rules, the observations and the candidate rows
are computed in the compiled core, parallel over games, and the network scores the mover of
every unfinished game in one forward pass per step. Each of the env's ``num_envs`` games is
played once from a fresh deal; a game that has ended is stepped with its first legal action
(the env deals it again) and nothing of it is recorded.

The result is the same :class:`agents.rollout.Rollout` as the engine's collector gives, so
every learner trains on it unchanged (``big2 train --env vector``). The deals come from the
vector env's generator (seeded per batch), not from ``Game(rules, seed=...)``: the two
collectors play different deals, each reproducibly.
"""

from __future__ import annotations

import numpy as np

from big2_env.envs.vector import Big2VectorEnv

from .network import Big2Net
from .policy import choose, score_numpy
from .rollout import Rollout, _Recorder, candidate_rows


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
        rng: draws the sampled actions (``None``: argmax), as in :func:`agents.rollout.collect`.
        seed: the deals' seed for this batch.
        skip_forced: a decision with one legal action is played without a forward pass and not recorded.
        epsilon: ``None`` samples the softmax (PPO); a number plays epsilon-greedy (value learners).
    """
    if getattr(model.config, "observation", "paper") != "paper":
        raise ValueError("the vector env gives the paper's 277 numbers; this network reads the extended view")
    n = venv.num_envs
    obs, _ = venv.reset(seed=seed)
    active = np.ones(n, dtype=bool)
    turn = np.zeros(n, dtype=np.int64)
    scores = np.zeros((n, 4), dtype=np.int64)
    turns = np.zeros(n, dtype=np.int64)
    winners = np.full(n, -1, dtype=np.int64)
    recorder = _Recorder(277)
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
