"""The value learners: exact targets on hand-built four-player trajectories, epsilon-greedy
collection, target-network synchronisation, greedy evaluation and a smoke run of each."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

import numpy as np  # noqa: E402

from agents.config import TrainArgs, ValueConfig  # noqa: E402
from agents.curriculum import SelfPlay  # noqa: E402
from agents.config import NetworkConfig  # noqa: E402
from agents.network import Big2Net, pack_candidates  # noqa: E402
from agents.policy import NetworkPolicy, choose  # noqa: E402
from agents.collect.rollout import Rollout, collect  # noqa: E402
from agents.train import Trainer, train  # noqa: E402
from agents.learners.value import chosen_q, epsilon_at, max_q, q_targets, value_update  # noqa: E402
from big2_env import Game  # noqa: E402

SMALL = {"card_dim": 16, "hand_heads": 2, "hand_ff": 32, "field_dim": 16, "count_dim": 16, "state_dim": 32, "state_ff": 64,
         "action_hidden": 32, "action_dim": 16}

# A hand-built batch of two four-player games, rows in the order they were played
# (interleaved across games); turns skipped are other seats' or forced moves, not recorded.
#   row: game seat turn
ROWS = [
    (0, 0, 0),
    (1, 2, 0),
    (0, 1, 1),
    (1, 3, 1),
    (0, 2, 2),
    (0, 0, 4),
    (1, 2, 4),
    (0, 1, 5),
    (0, 0, 8),
]
SCORES = np.array([[5, -2, -1, -2], [-3, -4, 10, -3]])
CHOICE_OFFSET = (0.0, 1.0, -1.0)  # candidate j of row r has Q = r / 10 + CHOICE_OFFSET[j]


class StubQ(torch.nn.Module):
    """Q(o, a) = the first feature of the candidate (the state does not matter)."""

    def score_pairs(self, obs, features):
        return features[:, 0] + 0.0 * obs[:, 0]

    def tensor(self, array):
        return torch.from_numpy(array)

    def forward(self, obs, features, owner, slot, k, feature_index=None):
        scores = torch.full((obs.shape[0], k), -math.inf)
        scores[owner, slot] = features[:, 0]
        return scores, None


def hand_built_rollout() -> Rollout:
    n = len(ROWS)
    game, seat, turn = (np.array(col, dtype=np.int64) for col in zip(*ROWS))
    counts = np.full(n, 3, dtype=np.int64)
    features = np.zeros((3 * n, 80), dtype=np.float32)
    for r in range(n):
        features[3 * r : 3 * r + 3, 0] = [r / 10 + off for off in CHOICE_OFFSET]
    return Rollout(
        obs=np.zeros((n, 277), np.float32),
        features=features,
        candidate_actions=np.tile(np.array([0, 1, 1694]), n),
        counts=counts,
        offsets=np.cumsum(counts) - counts,
        choice=np.arange(n, dtype=np.int64) % 3,  # row r chose candidate r % 3: Q = r/10 + (0, 1, -1)[r % 3]
        action=np.zeros(n, np.int64),
        logp=np.zeros(n, np.float32),
        value=np.zeros(n, np.float32),
        game=game,
        seat=seat,
        turn=turn,
        scores=SCORES,
        turns=np.array([9, 5]),
        winners=np.array([0, 2]),
    )


def config(algo: str) -> ValueConfig:
    return ValueConfig(algo=algo, gamma=0.5)  # rewards / 13, the paper's scale


def test_monte_carlo_targets_are_each_seats_discounted_final_score():
    y = q_targets(hand_built_rollout(), config("mcq"))
    expected = [
        0.25 * 5 / 13,  # game 0 seat 0: two more of its decisions before its last (the win, +5)
        0.5 * 10 / 13,  # game 1 seat 2: one more decision, then +10
        0.5 * -2 / 13,  # game 0 seat 1
        -3 / 13,  # game 1 seat 3: its only decision is its last
        -1 / 13,  # game 0 seat 2
        0.5 * 5 / 13,
        10 / 13,
        -2 / 13,
        5 / 13,
    ]
    assert y.tolist() == pytest.approx(expected)


def test_sarsa_bootstraps_from_the_action_taken_at_the_same_seats_next_decision():
    y = q_targets(hand_built_rollout(), config("sarsa"), StubQ())
    # Q of the chosen action at row r: r/10 + (0, 1, -1)[r % 3]
    expected = [
        0.5 * (0.5 - 1.0),  # row 0 -> row 5 (game 0 seat 0's next decision; rows 1-4 are others')
        0.5 * (0.6 + 0.0),  # row 1 -> row 6 (game 1 seat 2)
        0.5 * (0.7 + 1.0),  # row 2 -> row 7 (game 0 seat 1)
        -3 / 13,  # row 3: seat's last decision, no bootstrap
        -1 / 13,  # row 4
        0.5 * (0.8 - 1.0),  # row 5 -> row 8
        10 / 13,
        -2 / 13,
        5 / 13,
    ]
    assert y.tolist() == pytest.approx(expected)


def test_q_learning_bootstraps_from_the_best_legal_action_at_the_next_decision():
    y = q_targets(hand_built_rollout(), config("qlearning"), StubQ())
    # the best candidate of row r has Q = r/10 + 1, whatever was chosen there
    expected = [0.5 * 1.5, 0.5 * 1.6, 0.5 * 1.7, -3 / 13, -1 / 13, 0.5 * 1.8, 10 / 13, -2 / 13, 5 / 13]
    assert y.tolist() == pytest.approx(expected)
    with pytest.raises(ValueError, match="target network"):
        q_targets(hand_built_rollout(), config("qlearning"), None)


def collected_self_play(model, n_games=3, seed=0):
    seeds = np.random.default_rng(seed).integers(0, 2**63, size=n_games)
    games = [Game(seed=int(s)) for s in seeds]
    rng = np.random.default_rng(seed)
    return collect(games, SelfPlay(0).plan(n_games), {"current": model}, rng, skip_forced=True, epsilon=0.3)


def test_next_decision_bookkeeping_matches_a_brute_force_search_on_real_games():
    torch.manual_seed(0)
    model = Big2Net(NetworkConfig.from_dict({**SMALL, "value_head": False}))
    rollout = collected_self_play(model)
    stub = StubQ()
    sarsa = q_targets(rollout, config("sarsa"), stub)
    qlearn = q_targets(rollout, config("qlearning"), stub)
    for r in range(len(rollout)):
        later = [i for i in range(len(rollout))
                 if rollout.game[i] == rollout.game[r] and rollout.seat[i] == rollout.seat[r]
                 and rollout.turn[i] > rollout.turn[r]]
        if not later:  # the seat's last decision: its own final score / 13
            final = rollout.scores[rollout.game[r], rollout.seat[r]] / 13
            assert sarsa[r] == pytest.approx(final) and qlearn[r] == pytest.approx(final)
            continue
        nxt = min(later, key=lambda i: rollout.turn[i])
        start = rollout.offsets[nxt]
        candidates = rollout.features[start : start + rollout.counts[nxt], 0]
        assert sarsa[r] == pytest.approx(0.5 * candidates[rollout.choice[nxt]])
        assert qlearn[r] == pytest.approx(0.5 * candidates.max())


def test_chosen_and_max_q_agree_with_the_full_forward_pass():
    torch.manual_seed(1)
    model = Big2Net(NetworkConfig.from_dict({**SMALL, "value_head": False})).eval()
    rollout = collected_self_play(model, n_games=2, seed=3)
    owner, slot, k = pack_candidates(rollout.counts)
    with torch.no_grad():
        scores, value = model(torch.from_numpy(rollout.obs), torch.from_numpy(rollout.features), torch.from_numpy(owner),
                              torch.from_numpy(slot), k)
    assert value is None
    index = np.arange(len(rollout))
    chosen = scores.gather(1, torch.from_numpy(rollout.choice)[:, None])[:, 0].numpy()
    np.testing.assert_allclose(chosen_q(model, rollout, index), chosen, atol=1e-5)
    np.testing.assert_allclose(max_q(model, rollout, index), scores.max(1).values.numpy(), atol=1e-5)


def test_epsilon_decays_linearly_over_the_planned_batches():
    assert epsilon_at(0, 5000) == 0.5 and epsilon_at(4999, 5000) == 0.0 and epsilon_at(6000, 5000) == 0.0
    assert epsilon_at(2500, 5001) == pytest.approx(0.25)
    assert epsilon_at(0, 1) == 0.0


def test_epsilon_greedy_choice_explores_uniformly_over_legal_candidates_only():
    rng = np.random.default_rng(0)
    n = 6000
    counts = np.array([3] * n)
    logp = np.tile(np.array([np.log(0.2), np.log(0.7), np.log(0.1), -np.inf]), (n, 1))  # slot 3 is padding
    assert (choose(logp, counts, rng, epsilon=0.0) == 1).all()
    explored = choose(logp, counts, rng, epsilon=1.0)
    assert set(explored.tolist()) == {0, 1, 2}
    assert np.bincount(explored, minlength=3).min() > 0.3 * n  # uniform, not the softmax (0.1 for slot 2)
    half = choose(logp, counts, rng, epsilon=0.5)
    assert (half != 1).mean() == pytest.approx(0.5 * 2 / 3, abs=0.03)


@pytest.mark.parametrize("algo", ["mcq", "sarsa", "qlearning"])
def test_value_learner_smoke_run(algo):
    args = TrainArgs(algo=algo, batches=4, games_per_batch=4, target_sync=2, model=SMALL, progress=False, tensorboard=False)
    trainer = Trainer(args)
    assert trainer.model.value is None and not trainer.learner.samples
    assert (trainer.learner.target is not None) == (algo != "mcq")
    before = {k: v.clone() for k, v in trainer.model.state_dict().items()}
    epsilons = []
    for batch in range(1, 5):
        stats = trainer.train_batch()
        epsilons.append(stats["epsilon"])
        assert stats["minibatches"] == 1 and all(math.isfinite(stats[k]) for k in ("q_loss", "mean_q", "grad_norm"))
        assert stats["trained_decisions"] < stats["batch_decisions"]
        if trainer.learner.target is not None:  # synchronised after batches 2 and 4 only
            same = all(torch.equal(v, trainer.model.state_dict()[k]) for k, v in trainer.learner.target.state_dict().items())
            assert same == (batch % 2 == 0)
    assert epsilons == pytest.approx([0.5, 1 / 3, 1 / 6, 0.0])
    changed = [k for k, v in trainer.model.state_dict().items() if not torch.equal(v, before[k])]
    assert len(changed) > len(before) // 2
    assert trainer.lr == args.algo_default("lr") == 3e-5  # constant learning rate (the paper's)


def test_one_update_reduces_the_squared_error_on_its_batch():
    torch.manual_seed(2)
    model = Big2Net(NetworkConfig.from_dict({**SMALL, "value_head": False}))
    rollout = collected_self_play(model, n_games=4, seed=5)
    cfg = ValueConfig(algo="mcq", lr=1e-3)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    first = value_update(model, optimizer, rollout, cfg)["q_loss"]
    for _ in range(20):
        last = value_update(model, optimizer, rollout, cfg)["q_loss"]
    assert last < first


def test_a_value_learner_model_file_plays_greedily_by_default(tmp_path):
    result = train(TrainArgs(algo="sarsa", batches=1, games_per_batch=2, model=SMALL, out=str(tmp_path / "q"),
                             eval_opponents=[], progress=False, tensorboard=False))
    assert result.finished
    assert NetworkPolicy.from_file(str(tmp_path / "q" / "model.pt")).deterministic
    assert not NetworkPolicy.from_file(str(tmp_path / "q" / "model.pt"), deterministic=False).deterministic


def test_bad_value_learner_arguments_are_refused():
    with pytest.raises(ValueError, match="algo must be one of ppo, mcq, sarsa, qlearning"):
        TrainArgs(algo="dqn").validate()
    with pytest.raises(ValueError, match="epsilon_start must be a number in"):
        TrainArgs(algo="mcq", epsilon_start=1.5).validate()
    with pytest.raises(ValueError, match="value_head=True does not fit algo 'mcq'"):
        TrainArgs(algo="mcq", model={"value_head": True}).validate()
    with pytest.raises(ValueError, match=r"max_grad_norm must be a number in \(0, "):
        TrainArgs(algo="sarsa", max_grad_norm=0).validate()
    with pytest.raises(ValueError, match="value learner algo"):
        ValueConfig(algo="ppo")
    assert TrainArgs(algo="qlearning").value_config().max_grad_norm == 1.0
    assert TrainArgs(algo="qlearning").value_config().reward_scale == pytest.approx(1 / 13)
    assert TrainArgs().ppo_config().max_grad_norm == 0.5 and TrainArgs().ppo_config().reward_scale == pytest.approx(1 / 13)
    assert TrainArgs(preset="paper").ppo_config().reward_scale == 1.0
