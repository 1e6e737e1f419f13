"""Training rollouts: the trainer sees exactly what the PettingZoo env shows, and curricula seat the right players."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import numpy as np  # noqa: E402
from gymnasium.utils import seeding  # noqa: E402

from agents.curriculum import CheckpointPlay, FixedOpponent, SelfPlay, make_curriculum  # noqa: E402
from agents.config import NetworkConfig  # noqa: E402
from agents.network import Big2Net  # noqa: E402
from agents.collect.rollout import ModelSeat, PolicySeat, collect  # noqa: E402
from big2_env import Game, raw_env  # noqa: E402
from big2_env.observations.paper import action_index  # noqa: E402
from big2_env.players.smart import SmartPolicy  # noqa: E402
from big2_env.engine.rules import Rules  # noqa: E402

SMALL = NetworkConfig(card_dim=16, hand_heads=2, hand_ff=32, field_dim=16, count_dim=16, state_dim=32, state_ff=64,
                      action_hidden=32, action_dim=16, value_hidden=32)


@pytest.fixture(scope="module")
def model() -> Big2Net:
    torch.manual_seed(0)
    return Big2Net(SMALL)


def env_games(seeds, rules=Rules()):
    """Games dealt exactly as ``raw_env.reset(seed)`` deals them."""
    return [Game(rules, seed=seeding.np_random(s)[0]) for s in seeds]


def replay_and_compare(seeds, games, rollout, rules=Rules()):
    """Replay every game's history in the PettingZoo env; at each recorded decision compare
    observation, candidate actions and candidate features; return the number compared."""
    rows = {(int(g), int(t)): i for i, (g, t) in enumerate(zip(rollout.game, rollout.turn))}
    compared = 0
    for g, (seed, game) in enumerate(zip(seeds, games)):
        env = raw_env(rules=rules)
        env.reset(seed=seed)
        for turn, (player, play) in enumerate(game.history):
            agent = env.agent_selection
            assert agent == f"player_{player}"
            obs = env.observe(agent)
            action = action_index(play, env.game.hand(player))
            row = rows.get((g, turn))
            if row is not None:
                start, n = rollout.offsets[row], rollout.counts[row]
                np.testing.assert_array_equal(obs["observation"], rollout.obs[row])
                np.testing.assert_array_equal(obs["candidate_actions"], rollout.candidate_actions[start : start + n])
                np.testing.assert_array_equal(obs["candidate_features"], rollout.features[start : start + n])
                assert rollout.seat[row] == player
                assert rollout.action[row] == action == obs["candidate_actions"][rollout.choice[row]]
                compared += 1
            env.step(action)
        assert all(env.terminations.values())
        assert [env.rewards[f"player_{i}"] for i in range(4)] == rollout.scores[g].tolist()
    return compared


@pytest.mark.parametrize("skip_forced", [False, True])
def test_trainer_observations_equal_the_pettingzoo_env(model, skip_forced):
    seeds = [3, 11, 2024, 7, 99, 5]
    games = env_games(seeds)
    plans = SelfPlay(0).plan(len(seeds))
    rollout = collect(games, plans, {"current": model}, np.random.default_rng(1), skip_forced=skip_forced)
    compared = replay_and_compare(seeds, games, rollout)
    assert compared == len(rollout) > 0
    total = sum(len(g.history) for g in games)
    assert rollout.decisions == total
    if skip_forced:
        assert (rollout.counts > 1).all() and len(rollout) < total
    else:
        assert len(rollout) == total


def test_trainer_observations_equal_the_env_with_heuristic_seats_and_variant_rules(model):
    rules = Rules.preset("charlesworth")
    seeds = [1, 2, 3, 4]
    games = env_games(seeds, rules)
    curriculum = FixedOpponent(0, "smart", rules)
    plans = curriculum.plan(len(seeds))
    rollout = collect(games, plans, {"current": model}, np.random.default_rng(2))
    assert replay_and_compare(seeds, games, rollout, rules) == len(rollout) > 0


def test_one_forward_pass_per_step_for_all_waiting_games(model, monkeypatch):
    calls = []
    original = model.forward_heads
    monkeypatch.setattr(model, "forward_heads", lambda obs, *a, **k: calls.append(len(obs)) or original(obs, *a, **k))
    games = env_games(range(8))
    rollout = collect(games, SelfPlay(0).plan(8), {"current": model}, np.random.default_rng(0))
    steps = max(g.turn for g in games)
    assert len(calls) == steps  # one batched call per step, never one per game
    assert calls[0] == 8 and sum(calls) == rollout.decisions


def test_self_play_trains_every_seat(model):
    games = env_games(range(4))
    rollout = collect(games, SelfPlay(0).plan(4), {"current": model}, np.random.default_rng(0))
    for g in range(4):
        assert set(rollout.seat[rollout.game == g].tolist()) == {0, 1, 2, 3}


def test_fixed_opponent_trains_only_the_learner_seat(model):
    curriculum = make_curriculum("fixed:greedy", 5, Rules())
    plans = curriculum.plan(40)
    learners = []
    for plan in plans:
        trained = [s for s, seat in enumerate(plan) if seat.train]
        assert len(trained) == 1
        learners.append(trained[0])
        assert sum(isinstance(seat, PolicySeat) for seat in plan) == 3
    assert set(learners) == {0, 1, 2, 3}  # the learner seat varies per game
    games = env_games(range(6))
    rollout = collect(games, plans[:6], {"current": model}, np.random.default_rng(0))
    for g in range(6):
        assert set(rollout.seat[rollout.game == g].tolist()) == {learners[g]}
    assert rollout.model_decisions < rollout.decisions


def test_checkpoint_curriculum_pool_mixture_and_bookkeeping(model):
    curriculum = CheckpointPlay(7, snapshot_every=2, pool_size=3, current_prob=0.5)
    assert all(seat == ModelSeat("current", train=False) for plan in curriculum.plan(20) for seat in plan if not seat.train)
    for batch in range(1, 11):  # snapshots after batches 2, 4, 6, 8, 10; the newest 3 kept
        with torch.no_grad():
            for p in model.parameters():
                p.add_(0.01)
        curriculum.after_batch(batch, model)
    assert [taken for taken, _ in curriculum.pool] == [6, 8, 10]
    for name, tensor in model.state_dict().items():
        assert torch.equal(curriculum.pool[-1][1][name], tensor)  # the newest snapshot = the weights then
    plans = curriculum.plan(400)
    kinds = {"current": 0, "snapshot": 0}
    for plan in plans:
        assert sum(seat.train for seat in plan) == 1
        for seat in plan:
            if not seat.train:
                kinds["current" if seat.key == "current" else "snapshot"] += 1
    share = kinds["current"] / (kinds["current"] + kinds["snapshot"])
    assert 0.45 < share < 0.55
    nets = curriculum.models(model)
    assert set(nets) == {"current", ("snapshot", 6), ("snapshot", 8), ("snapshot", 10)}
    games = env_games(range(5))
    rollout = collect(games, plans[:5], nets, np.random.default_rng(0))
    for g in range(5):
        learner = next(s for s, seat in enumerate(plans[g]) if seat.train)
        assert set(rollout.seat[rollout.game == g].tolist()) == {learner}
    # state round trip (resume): same future plans
    state = curriculum.state_dict()
    other = CheckpointPlay(0, snapshot_every=2, pool_size=3)
    other.load_state_dict(state)
    assert [[repr(s) for s in p] for p in other.plan(10)] == [[repr(s) for s in p] for p in curriculum.plan(10)]


def test_fixed_random_opponent_state_round_trips():
    a = FixedOpponent(3, "random", Rules())
    a.policy.rng.random(5)
    b = FixedOpponent(0, "random", Rules())
    b.load_state_dict(a.state_dict())
    assert b.policy.rng.random() == a.policy.rng.random()
    with pytest.raises(ValueError, match="unknown curriculum"):
        make_curriculum("league", 0)
    with pytest.raises(ValueError, match="unknown fixed opponent"):
        make_curriculum("fixed:human", 0)


def test_mixed_curriculum_mixes_self_play_and_the_three_heuristics(model):
    curriculum = make_curriculum("mixed", 4, Rules(), self_prob=0.4)
    plans = curriculum.plan(600)
    kinds = {"self": 0, "smart": 0, "greedy": 0, "random": 0}
    learners = set()
    for plan in plans:
        if all(seat.train for seat in plan):
            kinds["self"] += 1
            continue
        trained = [s for s, seat in enumerate(plan) if seat.train]
        assert len(trained) == 1
        learners.add(trained[0])
        others = {seat.policy.name for seat in plan if isinstance(seat, PolicySeat)}
        assert len(others) == 1 and sum(isinstance(seat, PolicySeat) for seat in plan) == 3
        kinds[others.pop()] += 1
    assert 0.34 < kinds["self"] / 600 < 0.46
    for name in ("smart", "greedy", "random"):
        assert 0.15 < kinds[name] / 600 < 0.25, kinds
    assert learners == {0, 1, 2, 3}
    games = env_games(range(6))
    rollout = collect(games, plans[:6], {"current": model}, np.random.default_rng(0))
    for g in range(6):
        trained = {s for s, seat in enumerate(plans[g]) if seat.train}
        assert set(rollout.seat[rollout.game == g].tolist()) == trained
    # state round trip (resume): same future plans and the same Random opponent stream
    curriculum.policies["random"].rng.random(3)
    other = make_curriculum("mixed", 0, Rules(), self_prob=0.4)
    other.load_state_dict(curriculum.state_dict())
    describe = [[getattr(seat, "policy", None) and seat.policy.name or repr(seat) for seat in p] for p in curriculum.plan(20)]
    assert [[getattr(seat, "policy", None) and seat.policy.name or repr(seat) for seat in p] for p in other.plan(20)] == describe
    assert other.policies["random"].rng.random() == curriculum.policies["random"].rng.random()
    with pytest.raises(ValueError, match="self_prob"):
        make_curriculum("mixed", 0, Rules(), self_prob=1.5)


def test_collect_rejects_bad_plans(model):
    with pytest.raises(ValueError, match="seat plans"):
        collect(env_games([1]), [], {"current": model}, None)
    with pytest.raises(ValueError, match="no model"):
        collect(env_games([1]), [[ModelSeat("other")] * 4], {"current": model}, None)
    plan = [ModelSeat(), PolicySeat(SmartPolicy()), ModelSeat(), ModelSeat()]
    rollout = collect(env_games([1]), [plan], {"current": model}, None)  # argmax play
    assert 1 not in rollout.seat.tolist()
