"""Helper processes (agents.learners.processes): the split gradient equals the one-process gradient, split
rollouts are the games each part would play alone, and helper failures surface as clear errors."""

from __future__ import annotations

import copy

import pytest

torch = pytest.importorskip("torch")

import numpy as np  # noqa: E402

from agents.config import TrainArgs  # noqa: E402
from agents.curriculum import CURRENT_OPPONENT, LEARNER, SelfPlay  # noqa: E402
from agents.config import NetworkConfig  # noqa: E402
from agents.network import Big2Net  # noqa: E402
from agents.learners.ppo import split_minibatch  # noqa: E402
from agents.collect.parallel import parallel_plans  # noqa: E402
from agents.learners.processes import TrainHelpers  # noqa: E402
from agents.learners.ppo import ppo_update  # noqa: E402
from agents.collect.rollout import PolicySeat, collect, concat_rollouts  # noqa: E402
from agents.train import Trainer, process_layout  # noqa: E402
from big2_env import Game  # noqa: E402
from big2_env.players.registry import make_policy  # noqa: E402
from big2_env.engine.rules import Rules  # noqa: E402

SMALL = {"card_dim": 16, "hand_heads": 2, "hand_ff": 32, "field_dim": 16, "count_dim": 16, "state_dim": 32, "state_ff": 64,
         "action_hidden": 32, "action_dim": 16, "value_hidden": 32}
ROLLOUT_FIELDS = ("obs", "counts", "choice", "action", "logp", "value", "seat", "turn")  # one row per decision


def _model(seed: int = 0) -> Big2Net:
    torch.manual_seed(seed)
    return Big2Net(NetworkConfig.from_dict(SMALL))


def _params(model: Big2Net) -> torch.Tensor:
    return torch.cat([p.detach().reshape(-1) for p in model.parameters()])


def test_split_minibatch_covers_the_index_in_order_with_the_largest_part_first():
    index = np.array([7, 3, 9, 1, 4])
    parts = split_minibatch(index, 3)
    assert [p.tolist() for p in parts] == [[7, 3], [9, 1], [4]]
    assert [p.tolist() for p in split_minibatch(index[:1], 2)] == [[7], []]


def test_concat_rollouts_equals_playing_the_games_together():
    model = _model()
    seeds = [11, 12, 13]
    plans = SelfPlay(0).plan(3)
    together = collect([Game(seed=s) for s in seeds], plans, {"current": model}, None)  # argmax: no RNG coupling
    apart = concat_rollouts([
        collect([Game(seed=seeds[0])], plans[:1], {"current": model}, None),
        collect([Game(seed=s) for s in seeds[1:]], plans[1:], {"current": model}, None),
    ])
    assert apart.decisions == together.decisions and apart.model_decisions == together.model_decisions
    for name in ("scores", "turns", "winners"):
        assert np.array_equal(getattr(apart, name), getattr(together, name))
    a = np.lexsort((apart.turn, apart.seat, apart.game))
    b = np.lexsort((together.turn, together.seat, together.game))
    assert np.array_equal(apart.game[a], together.game[b])
    for name in ROLLOUT_FIELDS[2:]:
        assert np.allclose(getattr(apart, name)[a], getattr(together, name)[b], atol=1e-5), name
    assert np.allclose(apart.obs[a], together.obs[b])
    # every decision's candidate block moved with it
    for i, j in zip(a[:50].tolist(), b[:50].tolist()):
        rows_a = slice(apart.offsets[i], apart.offsets[i] + apart.counts[i])
        rows_b = slice(together.offsets[j], together.offsets[j] + together.counts[j])
        assert np.array_equal(apart.features[rows_a], together.features[rows_b])
        assert np.array_equal(apart.candidate_actions[rows_a], together.candidate_actions[rows_b])


def test_a_split_ppo_update_equals_the_one_process_update():
    model = _model(1)
    rollout = collect([Game(seed=s) for s in range(6)], SelfPlay(0).plan(6), {"current": model}, np.random.default_rng(2))
    config = TrainArgs(model=SMALL, lr=1e-3, minibatch=100, epochs=2).ppo_config()
    alone, split = copy.deepcopy(model), copy.deepcopy(model)
    # plain SGD: Adam's normalisation would blow float rounding of near-zero gradients up to lr-sized steps
    stats_alone = ppo_update(alone, torch.optim.SGD(alone.parameters(), lr=0.1), rollout, config, np.random.default_rng(5))
    helpers = TrainHelpers(split, 2)  # three processes: uneven parts
    try:
        sgd = torch.optim.SGD(split.parameters(), lr=0.1)
        stats_split = ppo_update(split, sgd, rollout, config, np.random.default_rng(5), helpers)
    finally:
        helpers.close()
    assert stats_split["minibatches"] == stats_alone["minibatches"] > 2
    for key in ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction", "grad_norm"):
        assert stats_split[key] == pytest.approx(stats_alone[key], rel=1e-4, abs=1e-6), key
    assert not torch.equal(_params(alone), _params(model))  # it did learn ...
    assert torch.allclose(_params(split), _params(alone), atol=1e-5)  # ... the same thing


def test_helpers_play_their_share_of_self_play_games_with_their_own_seeded_rng():
    model = _model(2)
    seeds = [21, 22, 23, 24, 25]
    plans = SelfPlay(0).plan(5)
    helpers = TrainHelpers(model, 1)
    try:
        merged = helpers.collect(Rules(), seeds, plans, {"current": model}, np.random.default_rng(9), True, None)
    finally:
        helpers.close()
    rng = np.random.default_rng(9)
    helper_rng = np.random.default_rng(int(rng.integers(2**63)))  # drawn before the trainer plays its part
    own = collect([Game(seed=s) for s in seeds[:3]], plans[:3], {"current": model}, rng, skip_forced=True)
    other = collect([Game(seed=s) for s in seeds[3:]], plans[3:], {"current": model}, helper_rng, skip_forced=True)
    expected = concat_rollouts([own, other])
    for name in ROLLOUT_FIELDS + ("game", "scores", "winners"):
        assert np.allclose(getattr(merged, name), getattr(expected, name), atol=1e-5), name
    assert merged.seat_plans == list(plans)


def test_all_current_policy_plans_are_the_ones_legacy_runs_shared():
    assert parallel_plans(SelfPlay(0).plan(3))
    assert parallel_plans([[LEARNER, CURRENT_OPPONENT, CURRENT_OPPONENT, LEARNER]])
    smart = PolicySeat(make_policy("smart"))
    assert not parallel_plans([[LEARNER, smart, smart, smart]])


def test_a_failing_helper_raises_with_its_traceback():
    model = _model(3)
    rollout = collect([Game(seed=1)], SelfPlay(0).plan(1), {"current": model}, np.random.default_rng(0))
    config = TrainArgs(model=SMALL).ppo_config()
    helpers = TrainHelpers(model, 1)
    try:
        from agents.learners.ppo import UpdateData

        helpers.set_data(UpdateData.from_rollout(rollout, config), config)
        busy = helpers.start([np.array([len(rollout) + 5])], 1)  # a decision that does not exist
        with pytest.raises(RuntimeError, match="(?s)helper process failed.*IndexError"):
            helpers.finish(busy, torch.zeros(sum(p.numel() for p in model.parameters())))
    finally:
        helpers.close()
    assert all(not p.is_alive() for p in helpers.processes)
    with pytest.raises(ValueError, match="at least one helper"):
        TrainHelpers(model, 0)


def test_process_layout_never_oversubscribes_the_cores(monkeypatch):
    monkeypatch.setattr("agents.trainer.free_cores", lambda: 2)
    assert process_layout(1, 2) == (1, 2)
    assert process_layout(2, 2) == (2, 1)
    assert process_layout(4, 1) == (2, 1)
    monkeypatch.setattr("agents.trainer.free_cores", lambda: 1)
    assert process_layout(2, 2) == (1, 1)


def test_value_learners_share_their_games_and_ppo_also_its_gradients(monkeypatch):
    monkeypatch.setattr("agents.trainer.free_cores", lambda: 2)
    for algo in ("mcq", "dmc"):
        trainer = Trainer(TrainArgs(algo=algo, env="engine", model=SMALL, games_per_batch=2, batches=2, workers=2,
                                    progress=False))
        try:
            assert trainer.process_count == 2
            stats = trainer.train_batch()  # the helper plays one of the two self-play games
            assert trainer.collector.pool is not None and stats["trained_decisions"] > 0
        finally:
            trainer.close()
    trainer = Trainer(TrainArgs(curriculum="fixed:greedy", model=SMALL, games_per_batch=2, batches=2, workers=2, progress=False))
    steps = []
    start = TrainHelpers.start
    monkeypatch.setattr(TrainHelpers, "start", lambda self, *a: steps.append(1) or start(self, *a))
    try:
        stats = trainer.train_batch()  # the helper plays one of the heuristic games and shares the update
        assert trainer.collector.pool is not None and stats["trained_decisions"] > 0 and steps
    finally:
        trainer.close()
    assert trainer.collector.pool is None
