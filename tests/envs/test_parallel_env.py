"""PettingZoo's Parallel API over the turn-based game: registration, the API test, and the
same game as the AEC env."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import parallel_api_test

import big2_env


@pytest.mark.skipif(not hasattr(pettingzoo, "make"), reason="pettingzoo.make (the env registry) exists from PettingZoo 1.27 on")
@pytest.mark.parametrize("candidate_view", [False, True])
def test_pettingzoo_make_parallel_passes_the_parallel_api_test(candidate_view):
    env = pettingzoo.make("parallel", "big2-v0", candidate_view=candidate_view)
    parallel_api_test(env, num_cycles=300)


@pytest.mark.parametrize("keywords", [{}, {"candidate_view": False}, {"candidate_view": False, "mask_in_observation": False}])
def test_parallel_env_passes_the_parallel_api_test(keywords):
    parallel_api_test(big2_env.parallel_env(**keywords), num_cycles=300)


def first_legal(obs) -> int:
    return int(np.flatnonzero(obs["action_mask"])[0])


def test_one_agent_on_move_and_the_same_game_as_the_aec_env():
    parallel = big2_env.parallel_env(candidate_view=False)
    observations, _ = parallel.reset(seed=5)
    steps = 0
    while parallel.agents:
        on_move = [a for a, o in observations.items() if o["action_mask"].any()]
        assert len(on_move) == 1  # the others' masks are all zeros
        actions = {a: first_legal(o) if a in on_move else 0 for a, o in observations.items()}
        observations, rewards, terminations, truncations, infos = parallel.step(actions)
        steps += 1
    aec = big2_env.env(candidate_view=False)
    aec.reset(seed=5)
    for agent in aec.agent_iter():
        obs, reward, termination, truncation, info = aec.last()
        aec.step(None if termination or truncation else first_legal(obs))
    assert rewards == {a: float(s) for a, s in info["scores"].items()} and sum(rewards.values()) == 0
    assert steps == info["turns"]
