"""PPO: GAE on a hand-built trajectory, per-seat credit assignment, the schedule, and a smoke run."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

import numpy as np  # noqa: E402

from agents.config import TrainArgs  # noqa: E402
from agents.curriculum import SelfPlay  # noqa: E402
from agents.config import NetworkConfig  # noqa: E402
from agents.network import Big2Net, pack_candidates  # noqa: E402
from agents.learners.ppo import advantages_and_returns, candidate_keys, gae, lr_at, seat_trajectories  # noqa: E402
from agents.collect.rollout import collect  # noqa: E402
from agents.train import Trainer  # noqa: E402
from big2_env import Game  # noqa: E402

SMALL = {"card_dim": 16, "hand_heads": 2, "hand_ff": 32, "field_dim": 16, "count_dim": 16, "state_dim": 32, "state_ff": 64,
         "action_hidden": 32, "action_dim": 16, "value_hidden": 32}


def test_gae_on_a_hand_built_pair_of_trajectories():
    rewards = np.array([0.0, 0.0, 5.0, 0.0, -2.0])
    values = np.array([1.0, 2.0, 3.0, 0.5, -1.0])
    dones = np.array([False, False, True, False, True])
    adv, ret = gae(rewards, values, dones, gamma=0.9, lam=0.8)
    # trajectory 1: deltas 0.8, 0.7, 2.0; A2 = 2, A1 = 0.7 + 0.72 * 2, A0 = 0.8 + 0.72 * A1
    # trajectory 2 (nothing leaks from trajectory 1): deltas -1.4, -1.0
    assert adv.tolist() == pytest.approx([2.3408, 2.14, 2.0, -2.12, -1.0])
    assert ret.tolist() == pytest.approx([3.3408, 4.14, 5.0, -1.62, -2.0])
    lam1, _ = gae(rewards, values, dones, gamma=0.9, lam=1.0)  # lambda 1: discounted return - value
    assert lam1[0] == pytest.approx(0.9**2 * 5 - 1.0)
    lam0, _ = gae(rewards, values, dones, gamma=0.9, lam=0.0)  # lambda 0: one-step TD error
    assert lam0.tolist() == pytest.approx([0.8, 0.7, 2.0, -1.4, -1.0])


def test_each_seat_is_credited_with_its_own_score_in_a_four_player_game():
    torch.manual_seed(0)
    model = Big2Net(NetworkConfig.from_dict(SMALL))
    games = [Game(seed=s) for s in (4, 5)]
    rollout = collect(games, SelfPlay(0).plan(2), {"current": model}, np.random.default_rng(0))
    order, rewards, dones = seat_trajectories(rollout)
    assert sorted(order.tolist()) == list(range(len(rollout)))
    for g, game in enumerate(games):
        scores = game.scores()
        assert sorted(scores) != [0, 0, 0, 0]
        for seat in range(4):
            mine = (rollout.game[order] == g) & (rollout.seat[order] == seat)
            assert rewards[mine].sum() == scores[seat]  # the seat's own final score, nobody else's
            turns = rollout.turn[order][mine]
            assert (np.diff(turns) > 0).all()  # in time order
            last = np.flatnonzero(mine)[-1]
            assert dones[last] and dones[mine].sum() == 1  # reward only at the seat's last decision
            assert rewards[mine][:-1].tolist() == [0.0] * (mine.sum() - 1)
    # GAE per seat equals GAE of the whole batch: trajectories never leak into each other
    config = TrainArgs(model=SMALL).ppo_config()
    adv, ret = advantages_and_returns(rollout, config)
    for g in range(2):
        for seat in range(4):
            rows = np.flatnonzero((rollout.game == g) & (rollout.seat == seat))
            rows = rows[np.argsort(rollout.turn[rows])]
            r = np.zeros(len(rows))
            r[-1] = games[g].scores()[seat] * config.reward_scale
            d = np.zeros(len(rows), bool)
            d[-1] = True
            alone, alone_ret = gae(r, rollout.value[rows], d, config.gamma, config.gae_lambda)
            np.testing.assert_allclose(adv[rows], alone)
            np.testing.assert_allclose(ret[rows], alone_ret)


def test_learning_rate_warms_up_then_decays_by_cosine():
    total, peak = 100, 3e-5
    lrs = [lr_at(b, total, peak, 0.1) for b in range(total)]
    assert lrs[0] == pytest.approx(peak / 10) and lrs[9] == pytest.approx(peak) and lrs[10] == pytest.approx(peak)
    assert all(a >= b for a, b in zip(lrs[10:], lrs[11:]))  # non-increasing after warm-up
    assert lrs[55] == pytest.approx(peak / 2)  # half way through the decay
    assert 0 < lrs[-1] < peak * 0.01
    assert lr_at(150, total, peak, 0.1) == 0.0
    assert lr_at(99, total, peak, 0.1, min_fraction=0.1) > 0.1 * peak


def test_candidate_keys_identify_combinations():
    from big2_env.observations.paper import play_features

    rows = np.stack([play_features(p) for p in [(), (0,), (0, 3), (0,), ()]])
    keys = candidate_keys(rows)
    assert keys[0] == keys[4] and keys[1] == keys[3] and len(set(keys.tolist())) == 3


def test_ppo_smoke_two_batches_change_the_parameters_and_stay_finite():
    args = TrainArgs(batches=2, games_per_batch=4, minibatch=64, model=SMALL, progress=False, tensorboard=False)
    trainer = Trainer(args)
    before = {k: v.clone() for k, v in trainer.model.state_dict().items()}
    # the rollout's log-probabilities are those the update recomputes (ratio 1 before any step)
    seeds = np.random.default_rng(0).integers(0, 2**63, size=4)
    games = [Game(seed=int(s)) for s in seeds]
    rollout = collect(games, SelfPlay(0).plan(4), {"current": trainer.model}, np.random.default_rng(0))
    owner, slot, k = pack_candidates(rollout.counts)
    with torch.no_grad():
        scores, value = trainer.model(
            torch.from_numpy(rollout.obs), torch.from_numpy(rollout.features), torch.from_numpy(owner), torch.from_numpy(slot), k
        )
    logp = torch.log_softmax(scores, -1).gather(1, torch.from_numpy(rollout.choice)[:, None])[:, 0]
    np.testing.assert_allclose(logp.numpy(), rollout.logp, atol=1e-5)
    np.testing.assert_allclose(value.numpy(), rollout.value, atol=1e-5)
    stats = [trainer.train_batch() for _ in range(2)]
    for s in stats:
        for key in ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction", "grad_norm"):
            assert math.isfinite(s[key]), key
        assert s["entropy"] > 0 and s["minibatches"] >= 4  # 4 epochs
        assert s["trained_decisions"] < s["batch_decisions"]  # forced moves are not trained
    changed = [k for k, v in trainer.model.state_dict().items() if not torch.equal(v, before[k])]
    assert len(changed) > len(before) // 2
    assert all(torch.isfinite(v).all() for v in trainer.model.state_dict().values())
    assert trainer.batch == 2 and trainer.games == 8
