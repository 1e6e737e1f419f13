"""The seed papers' methods: Deep Monte Carlo (004), AlphaDou's win head and move choice (003),
the optimistic smooth fictitious-play curriculum (002).

Exact resume of each is tested with the other curricula and algorithms in
``tests/agents/test_agents_train.py``.
"""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

import numpy as np  # noqa: E402

from agents.checkpoint import CheckpointError, read_file, save_policy  # noqa: E402
from agents.config import ALGO_DEFAULTS, TrainArgs  # noqa: E402
from agents.curriculum import CURRENT, OSFPPlay, make_curriculum  # noqa: E402
from agents.config import NetworkConfig  # noqa: E402
from agents.network import Big2Net, count_parameters, pack_candidates, parameter_count  # noqa: E402
from agents.policy import NetworkPolicy, alphadou_scores, score_numpy  # noqa: E402
from agents.collect.rollout import collect  # noqa: E402
from agents.train import Trainer, train  # noqa: E402
from agents.learners.value import q_targets, value_update, won_games  # noqa: E402
from big2_env import Game  # noqa: E402
from big2_env.cli import main  # noqa: E402
from big2_env.observations.decision import observation_dict  # noqa: E402

SMALL = {"card_dim": 16, "hand_heads": 2, "hand_ff": 32, "field_dim": 16, "count_dim": 16, "state_dim": 32, "state_ff": 64,
         "action_hidden": 32, "action_dim": 16, "value_hidden": 32}
INF = math.inf


def tiny(out, **kwargs) -> TrainArgs:
    values = dict(
        batches=3, games_per_batch=4, minibatch=64, model=dict(SMALL), out=str(out), eval_opponents=[],
        checkpoint_every=0, progress=False, tensorboard=False, workers=1,
    )
    values.update(kwargs)
    return TrainArgs(**values)


# ----------------------------------------------------------------------------- AlphaDou's choice rule
def test_alphadou_rule_plays_the_likeliest_winner_inside_the_band_never_outside():
    q = torch.tensor([
        [2.00, 1.95, 1.80, -INF],   # band: Q >= 2 - 0.05 * 2 = 1.9 -> slots 0, 1; slot 2 wins more but is outside
        [-1.00, -1.04, -1.06, -0.3],  # best -0.3: band Q >= -0.315 -> slot 3 alone, however likely the others win
        [0.0, 0.0, -0.01, -INF],    # best 0: the band is the ties at 0 (the best is always in it)
    ])
    win = torch.tensor([
        [0.1, 0.5, 9.0, 99.0],
        [5.0, 6.0, 7.0, -2.0],
        [-1.0, 1.0, 9.0, 99.0],
    ])
    assert alphadou_scores(q, win, 0.05).argmax(1).tolist() == [1, 3, 1]
    wide = alphadou_scores(q, win, 0.8)  # band Q >= -0.54 in row 1: still slot 3 only; row 0: Q >= 0.4, all three
    assert wide.argmax(1).tolist() == [2, 3, 1]
    assert torch.isinf(alphadou_scores(q, win, 1.0)[0, 3])  # padding never enters the band
    assert alphadou_scores(q, win, 0.0).argmax(1).tolist() == [0, 3, 1]  # rho 0: best Q, ties by win


def test_a_win_head_network_acts_by_the_rule_and_rho_zero_by_expected_score():
    torch.manual_seed(0)
    model = Big2Net(NetworkConfig(**SMALL, design="plus", value_head=False, win_head=True, win_rho=0.5))
    view = observation_dict(Game(seed=3))
    obs = np.stack([np.asarray(view["observation"], dtype=np.float32)])
    features = np.asarray(view["candidate_features"], dtype=np.float32)
    counts = np.array([len(features)])
    owner, slot, k = pack_candidates(counts)
    with torch.no_grad():
        q, win, _ = model.forward_heads(*(torch.from_numpy(a) for a in (obs, features, owner, slot)), k)
    assert win is not None and q.shape == win.shape == (1, len(features))
    band = (q >= q.max() - 0.5 * q.max().abs())[0]
    expected = int(torch.where(band, win[0], torch.tensor(-INF)).argmax())
    assert int(np.argmax(score_numpy(model, obs, features, counts)[0])) == expected
    assert int(np.argmax(score_numpy(model, obs, features, counts, rho=0.0)[0])) == int(q.argmax())
    greedy = NetworkPolicy(model, deterministic=True, rho=0.0)
    assert greedy.act(view) == int(view["candidate_actions"][int(q.argmax())])
    with pytest.raises(ValueError, match="rho must be a number in"):
        NetworkPolicy(model, rho=1.5)
    with pytest.raises(ValueError, match="no"):
        NetworkPolicy(Big2Net(NetworkConfig(**SMALL)), rho=0.05)  # no win head


def test_win_head_configs_and_their_parameter_counts():
    plus_win = {"design": "plus", "win_head": True, "scorer_blocks": 2}
    for extra in ({"win_head": True}, plus_win, {"design": "plus", "scorer_blocks": 3}):
        head = {"value_head": False} if extra.get("win_head") else {}
        config = NetworkConfig(**SMALL, **extra, **head)
        assert parameter_count(config) == count_parameters(Big2Net(config))
    with pytest.raises(ValueError, match="win_head is for the value learners"):
        NetworkConfig(win_head=True)  # PPO's value head: PPO samples its policy
    with pytest.raises(ValueError, match="scorer_blocks applies to design='plus' only"):
        NetworkConfig(scorer_blocks=1)
    with pytest.raises(ValueError, match=r"scorer_blocks must be an int in 0\.\.16"):
        NetworkConfig(design="plus", scorer_blocks=17)
    with pytest.raises(ValueError, match=r"win_rho must be a number in \[0, 1\]"):
        NetworkConfig(value_head=False, win_head=True, win_rho=-0.1)
    with pytest.raises(ValueError, match="win_head is for the value learners"):
        TrainArgs(algo="ppo", model={"win_head": True}).validate()


def test_win_targets_are_whether_the_seat_went_out_first_and_the_update_learns_them():
    torch.manual_seed(1)
    model = Big2Net(NetworkConfig(**SMALL, value_head=False, win_head=True))
    games = [Game(seed=s) for s in range(6)]
    rollout = collect(games, self_play_plans(6), {CURRENT: model}, np.random.default_rng(0), epsilon=0.1)
    won = won_games(rollout)
    for row in range(len(rollout)):
        assert won[row] == float(games[rollout.game[row]].winner == rollout.seat[row])
    assert 0 < won.mean() < 1
    config = TrainArgs(algo="mcq", win_coef=1.0, model={"win_head": True}).value_config()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    first = value_update(model, optimizer, rollout, config)
    for _ in range(30):
        last = value_update(model, optimizer, rollout, config)
    assert last["win_loss"] < first["win_loss"] and last["q_loss"] < first["q_loss"]


def self_play_plans(n: int) -> list:
    return make_curriculum("self", 0).plan(n)


# ----------------------------------------------------------------------------- Deep Monte Carlo
def test_dmc_defaults_are_the_studys_and_its_targets_are_undiscounted_final_scores():
    args = TrainArgs(algo="dmc")
    config = args.value_config()
    assert (config.gamma, config.epsilon_start, config.epsilon_end) == (1.0, 0.01, 0.01)
    assert not config.uses_target
    assert ALGO_DEFAULTS["mcq"]["gamma"] == 0.99 and TrainArgs(algo="mcq").value_config().epsilon_start == 0.5
    assert TrainArgs(algo="dmc", gamma=0.9).value_config().gamma == 0.9  # an explicit value wins
    model = Big2Net(NetworkConfig(**SMALL, value_head=False))
    games = [Game(seed=s) for s in range(3)]
    rollout = collect(games, self_play_plans(3), {CURRENT: model}, np.random.default_rng(0), epsilon=0.01)
    targets = q_targets(rollout, config)
    expected = rollout.scores[rollout.game, rollout.seat] / 13.0
    np.testing.assert_allclose(targets, expected)


def test_dmc_takes_epochs_of_minibatch_steps_and_needs_an_rng():
    model = Big2Net(NetworkConfig(**SMALL, value_head=False))
    games = [Game(seed=s) for s in range(4)]
    rollout = collect(games, self_play_plans(4), {CURRENT: model}, np.random.default_rng(0), epsilon=0.01)
    config = TrainArgs(algo="dmc", epochs=2, minibatch=50).value_config()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    stats = value_update(model, optimizer, rollout, config, rng=np.random.default_rng(0))
    assert stats["minibatches"] == 2 * math.ceil(len(rollout) / 50)
    with pytest.raises(ValueError, match="dmc shuffles its minibatches"):
        value_update(model, optimizer, rollout, config)


def test_dmc_run_trains_evaluates_greedily_and_refuses_another_model_config(tmp_path):
    model = dict(SMALL, design="plus", observation="extended", scorer_hidden=32, scorer_blocks=2)
    result = train(tiny(tmp_path / "dmc", algo="dmc", model=model, eval_opponents=["random"], eval_games=4))
    assert result.finished and result.model.config.scorer_blocks == 2
    policy = NetworkPolicy.from_file(str(tmp_path / "dmc" / "model.pt"))
    assert policy.deterministic and policy.observation_kind == "extended"
    with pytest.raises(ValueError, match="cannot resume with model="):
        train(tiny(tmp_path / "dmc", algo="dmc", batches=4, model=dict(model, scorer_blocks=1)), resume=True)
    with pytest.raises(CheckpointError, match="scorer_blocks: checkpoint 2, this run 1"):
        train(tiny(tmp_path / "init", algo="dmc", model=dict(model, scorer_blocks=1), init=str(tmp_path / "dmc")))


def test_dmc_games_are_shared_with_the_helper_process_in_every_curriculum(tmp_path):
    trainer = Trainer(tiny(tmp_path, algo="dmc", env="engine", workers=2, threads=1))
    try:
        if trainer.processes < 2:
            pytest.skip("one free core: no helper process")
        assert trainer.process_count == 2 and trainer.collector.workers() is not None
        stats = trainer.train_batch()
        assert stats["batch_decisions"] > 0
    finally:
        trainer.close()
    other = Trainer(tiny(tmp_path, algo="dmc", curriculum="fixed:smart", env="engine", workers=2, threads=1))
    try:
        assert other.process_count == 2 and other.collector.workers() is not None  # heuristic seats too
        assert other.train_batch()["worker_decisions_per_s"] > 0
    finally:
        other.close()


# ----------------------------------------------------------------------------- OSFP
def test_osfp_mixture_counts_the_current_policy_twice_and_only_current_seats_train():
    play = OSFPPlay(0, snapshot_every=1, pool_size=3)
    model = Big2Net(NetworkConfig(**SMALL))
    assert all(seat.train for plan in play.plan(5) for seat in plan)  # no snapshot yet: current policy everywhere
    for batch in (1, 2, 3):
        play.after_batch(batch, model)
    np.testing.assert_allclose(play.weights(), [0.2, 0.2, 0.2, 0.4])
    plans = play.plan(4000)
    current = snapshots = 0
    for plan in plans:
        learners = [s for s in plan if getattr(s, "key", None) == CURRENT]
        assert len(learners) >= 1 and all(s.train for s in learners)
        assert all(not s.train for s in plan if getattr(s, "key", None) != CURRENT)
        current += len(learners) - 1
        snapshots += sum(1 for s in plan if getattr(s, "key", None) != CURRENT)
    assert abs(current / (3 * len(plans)) - 0.4) < 0.02  # the three non-learner seats: current with 2 / 5
    keys = {s.key for plan in plans for s in plan if s.key != CURRENT}
    assert keys == {("snapshot", 1), ("snapshot", 2), ("snapshot", 3)}
    play.after_batch(4, model)  # pool_size 3: the oldest is dropped
    assert [b for b, _ in play.pool] == [2, 3, 4]
    assert snapshots > 0


def test_cli_eval_rho_and_train_model_numbers(tmp_path, capsys):
    config = NetworkConfig(**SMALL, value_head=False, win_head=True)
    path = save_policy(tmp_path / "win.pt", Big2Net(config), {"algo": "mcq"})
    assert main(["eval", "--agent", str(path), "--opponent", "random", "--games", "4", "--rho", "0", "--no-progress"]) == 0
    assert "win rate" in capsys.readouterr().out.lower()
    plain = save_policy(tmp_path / "plain.pt", Big2Net(NetworkConfig(**SMALL, value_head=False)), {"algo": "mcq"})
    with pytest.raises(SystemExit):
        main(["eval", "--agent", str(plain), "--opponent", "random", "--games", "4", "--rho", "0.05"])
    assert "--rho applies to networks with a win head" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["eval", "--agent", str(path), "--opponent", "random", "--rho", "2"])
    assert "expected a number in [0, 1]" in capsys.readouterr().err
    out = tmp_path / "run"
    code = main(["train", "--algo", "mcq", "--batches", "1", "--games-per-batch", "2", "--eval-opponents", "",
                 "--out", str(out), "--no-progress", "--no-tensorboard", "--workers", "1",
                 "--model", "win_head=true", "--model", "win_rho=0.1", "--model", "card_dim=16", "--model", "hand_heads=2"])
    assert code == 0
    assert NetworkPolicy.from_file(str(out / "model.pt")).model.config.win_rho == 0.1


def test_resume_compares_the_values_in_effect_and_one_process_value_runs_continue_in_one(tmp_path, monkeypatch):
    from agents.train import resolve_resume_args

    saved = TrainArgs(algo="dmc").to_dict()  # gamma, epsilons: None, the algorithm's defaults
    resumed = resolve_resume_args(saved, TrainArgs(algo="dmc", gamma=1.0, epsilon_start=0.01), {"gamma", "epsilon_start"})
    assert resumed.value_config().gamma == 1.0
    with pytest.raises(ValueError, match="cannot resume with gamma=0.9"):
        resolve_resume_args(saved, TrainArgs(algo="dmc", gamma=0.9), {"gamma"})
    # a value-learner run that collected in one process (as all did before they shared self-play games with helpers)
    monkeypatch.setattr("agents.trainer.free_cores", lambda: 2)
    train(tiny(tmp_path, algo="mcq", env="engine", workers=1, stop_after=1))
    result = train(tiny(tmp_path, algo="mcq", env="engine", workers=2), resume=True, explicit={"workers", "stop_after"})
    assert result.batch == 3 and read_file(tmp_path / "checkpoint.pt")["processes"] == 1
