"""The training recipe: presets, defaults made concrete, learner health (gradient ratio, clip monitor, plot), threads."""

from __future__ import annotations

import csv
import math

import pytest

torch = pytest.importorskip("torch")

import agents.train as train_module  # noqa: E402
import agents.trainer as trainer_module  # noqa: E402
from agents.config import PAPER_PPO, PPOConfig, TrainArgs  # noqa: E402
from agents.learners.ppo import ClipMonitor  # noqa: E402
from agents.train import Trainer, idle_cores, process_layout, resolve_resume_args, train  # noqa: E402

SMALL = {"card_dim": 16, "hand_heads": 2, "hand_ff": 32, "field_dim": 16, "count_dim": 16, "state_dim": 32, "state_ff": 64,
         "action_hidden": 32, "action_dim": 16, "value_hidden": 32}


def test_default_preset_is_the_recipe_that_learns():
    args = TrainArgs().validate().resolved()
    assert (args.lr, args.min_lr_fraction, args.reward_scale) == (1e-3, 0.1, 1.0 / 13.0)
    assert (args.minibatch, args.epochs, args.env, args.games_per_batch) == (4096, 2, "vector", 512)
    assert args.ppo_config() == PPOConfig()


def test_paper_preset_is_the_papers_exact_settings():
    args = TrainArgs(preset="paper").validate().resolved()
    assert (args.lr, args.min_lr_fraction, args.reward_scale) == (3e-5, 0.0, 1.0)
    assert (args.minibatch, args.epochs, args.games_per_batch, args.entropy) == (256, 4, 64, 0.05)
    assert args.ppo_config() == PAPER_PPO
    assert PAPER_PPO.max_grad_norm == 0.5 and PAPER_PPO.clip == 0.2 and PAPER_PPO.gamma == 0.99


def test_explicit_fields_override_either_preset():
    args = TrainArgs(preset="paper", lr=1e-4, minibatch=512, games_per_batch=32, env="engine").validate().resolved()
    assert (args.lr, args.minibatch, args.games_per_batch, args.env, args.reward_scale) == (1e-4, 512, 32, "engine", 1.0)


def test_other_learners_keep_their_paper_defaults_under_both_presets():
    for preset in ("default", "paper"):
        args = TrainArgs(algo="mcq", preset=preset).validate().resolved()
        assert (args.lr, args.minibatch, args.games_per_batch, args.reward_scale) == (3e-5, 256, 64, 1.0 / 13.0)


def test_auto_env_falls_back_to_the_engine_where_the_vector_env_does_not_apply():
    assert TrainArgs(curriculum="fixed:smart").validate().resolved().env == "engine"
    assert TrainArgs(model={"observation": "extended"}).validate().resolved().env == "engine"
    assert TrainArgs(curriculum="fixed:smart").validate().resolved().games_per_batch == 64


def test_bad_preset_is_refused_naming_the_allowed_ones():
    with pytest.raises(ValueError, match="preset must be one of default, paper"):
        TrainArgs(preset="fast").validate()


def test_a_run_saves_concrete_arguments_and_resumes_with_them(tmp_path):
    out = tmp_path / "run"
    args = TrainArgs(batches=2, games_per_batch=4, minibatch=64, model=dict(SMALL), out=str(out), eval_opponents=[],
                     progress=False, tensorboard=False, stop_after=1)
    train(args)
    saved = train_module.read_file(out / "checkpoint.pt", kinds=(train_module.CHECKPOINT_KIND,))["args"]
    assert saved["lr"] == 1e-3 and saved["env"] == "vector" and saved["reward_scale"] == 1.0 / 13.0
    # an explicit resume with the defaults given as None (the Python API) is accepted and keeps the saved values
    resumed = resolve_resume_args(saved, TrainArgs(out=str(out), model=dict(SMALL), batches=2, games_per_batch=4,
                                                    minibatch=64, eval_opponents=[], progress=False,
                                                    tensorboard=False), None)
    assert resumed.lr == 1e-3 and resumed.preset == "default"
    result = train(TrainArgs(out=str(out), batches=2, progress=False, tensorboard=False), resume=True,
                   explicit={"out", "batches", "progress", "tensorboard", "stop_after"})  # stop_after 0: to --batches
    assert result.finished and result.batch == 2


def test_runs_saved_before_presets_resume_with_the_raw_scores_they_trained_on():
    legacy = TrainArgs(lr=3e-5, min_lr_fraction=0.0, minibatch=256, epochs=4, games_per_batch=64, env="engine").to_dict()
    del legacy["preset"]
    legacy["reward_scale"] = None
    resumed = resolve_resume_args(legacy, TrainArgs(), ["batches"])
    assert resumed.algo_default("reward_scale") == 1.0


def test_gradient_ratio_and_health_are_logged_and_plotted(tmp_path):
    pytest.importorskip("matplotlib")
    from agents.plot import plot_health

    out = tmp_path / "run"
    train(TrainArgs(batches=2, games_per_batch=4, minibatch=64, model=dict(SMALL), out=str(out), eval_opponents=[],
                    progress=False, tensorboard=False))
    with open(out / "train_log.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    ratio = float(rows[0]["grad_ratio"])  # the first batch is probed; the second, a few hundred decisions on, is not
    assert math.isfinite(ratio) and ratio > 0
    assert rows[1]["grad_ratio"] == ""
    for row in rows:
        assert math.isfinite(float(row["explained_variance"])) and float(row["approx_kl"]) >= 0
    assert (out / "training_health.png").stat().st_size > 10_000
    path = plot_health(out, tmp_path / "again.png")
    assert path.is_file()


def test_the_gradient_ratio_is_probed_once_every_16384_decisions():
    from agents.learners.ppo import GRADIENT_PROBE_EVERY, probe_due

    # his recipe's batches of 1,280 decisions: the first batch, then those that cross a multiple
    counts = [1280 * i for i in range(40)]
    probed = [i for i, (a, b) in enumerate(zip(counts, counts[1:])) if probe_due(a, b)]
    assert probed == [0, 12, 25, 38]
    assert all(probe_due(d, d + GRADIENT_PROBE_EVERY) for d in range(0, 100_000, 977))  # the default's: every batch
    with pytest.raises(ValueError, match="every must be a positive"):
        probe_due(0, 10, every=0)


def test_gradient_ratio_measures_the_shared_layers():
    import numpy as np

    from agents.collect.vector import collect_vector
    from agents.learners.ppo import UpdateData, gradient_ratio
    from agents.network import Big2Net, NetworkConfig
    from big2_env.envs.vector import Big2VectorEnv

    model = Big2Net(NetworkConfig(**SMALL))
    rollout = collect_vector(Big2VectorEnv(4), model, np.random.default_rng(0), 0, skip_forced=True)
    config = PPOConfig()
    data = UpdateData.from_rollout(rollout, config)
    index = np.arange(len(rollout))
    ratio = gradient_ratio(model, data, index, config)
    louder = gradient_ratio(model, data, index, PPOConfig(value_coef=5.0))
    assert math.isfinite(ratio) and louder == pytest.approx(10 * ratio, rel=1e-4)  # linear in the value weight


def test_clip_monitor_warns_once_after_its_patience():
    monitor = ClipMonitor(patience=3, threshold=1e-3)
    assert [monitor.update(0.0) for _ in range(2)] == [None, None]
    assert monitor.update(0.5) is None  # a batch that binds starts the count again
    assert [monitor.update(0.0) for _ in range(2)] == [None, None]
    message = monitor.update(0.0, lr=3e-5)
    assert message is not None and "not learning" in message and "3e-05" in message
    assert monitor.update(0.0) is None  # once


def test_a_run_whose_clip_never_binds_is_warned(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(train_module, "ClipMonitor", lambda: ClipMonitor(patience=2, threshold=2.0))  # never binds
    train(TrainArgs(batches=2, games_per_batch=4, minibatch=64, model=dict(SMALL), out=str(tmp_path / "run"),
                    eval_opponents=[], progress=False, tensorboard=False))
    assert "the policy is not learning" in capsys.readouterr().err


def test_threads_follow_the_idle_cores(monkeypatch):
    monkeypatch.setattr(trainer_module, "free_cores", lambda: 4)
    monkeypatch.setattr(trainer_module, "busy_cores", lambda: 3.0)
    assert idle_cores() == 1
    assert process_layout(1, 0) == (1, 1)
    monkeypatch.setattr(trainer_module, "busy_cores", lambda: 0.2)
    assert idle_cores() == 4 and process_layout(1, 0) == (1, 4) and process_layout(2, 0) == (2, 2)
    assert process_layout(1, 8) == (1, 4)  # never more than the cores
    monkeypatch.setattr(trainer_module, "busy_cores", lambda: 9.0)
    assert idle_cores() == 1  # at least one


@pytest.mark.machine_load
def test_busy_cores_reads_the_machine_now():
    import os as os_module
    import threading

    quiet = trainer_module.busy_cores(0.2)
    assert 0.0 <= quiet <= (os_module.cpu_count() or 1)
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            pass

    worker = threading.Thread(target=spin)
    worker.start()
    try:
        loaded = trainer_module.busy_cores(0.3)
    finally:
        stop.set()
        worker.join()
    assert loaded >= 0.5  # a spinning thread keeps (most of) a core busy


def test_the_vector_trainer_runs_in_one_process_with_every_thread(tmp_path, monkeypatch):
    monkeypatch.setattr(trainer_module, "free_cores", lambda: 2)
    monkeypatch.setattr(trainer_module, "busy_cores", lambda: 0.0)
    trainer = Trainer(TrainArgs(workers=2, games_per_batch=4, model=dict(SMALL), out=str(tmp_path)))
    assert trainer.args.env == "vector" and trainer.process_count == 1 and trainer.process_threads == 2


def test_the_ceiling_benchmark_leaves_the_trainer_as_it_was(tmp_path):
    import numpy as np
    from tests.scripts import load_script

    module = load_script("benchmarks/trainer_ceiling.py")

    trainer = Trainer(TrainArgs(games_per_batch=4, minibatch=16, model=dict(SMALL), out=str(tmp_path)))
    trainer.train_batch()
    before = {k: v.clone() for k, v in trainer.model.state_dict().items()}
    steps_before = [s["step"].clone() for s in trainer.optimizer.state.values()]
    assert trainer.last_rollout is not None
    rate = module.ceiling_rate(trainer, trainer.last_rollout, 3, np.random.default_rng(0))
    assert rate > 0
    after = trainer.model.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert [s["step"] for s in trainer.optimizer.state.values()] == steps_before


# ----------------------------------------------------------------------------- a fixed action head
HIS_SMALL = {"design": "charlesworth", "observation": "charlesworth", "mlp_hidden": 32}


@pytest.mark.parametrize("rules", ["paper", "charlesworth"])
def test_a_fixed_action_head_scores_each_candidate_by_its_1695_action_index(rules):
    import numpy as np

    from agents.collect.vector import collect_vector
    from agents.config import NetworkConfig
    from agents.network import Big2Net
    from big2_env import Rules
    from big2_env.envs.vector import Big2VectorEnv

    model = Big2Net(NetworkConfig(**HIS_SMALL))
    venv = Big2VectorEnv(6, rules=Rules.preset(rules), observation="charlesworth")
    rollout = collect_vector(venv, model, np.random.default_rng(1), 3)
    owner = torch.from_numpy(np.repeat(np.arange(len(rollout.counts)), rollout.counts))
    obs, features = torch.from_numpy(rollout.obs), torch.from_numpy(rollout.features)
    index = model.action_indices(obs, features, owner)
    assert index.tolist() == rollout.candidate_actions.tolist()  # the env's own action index, every candidate
    with torch.no_grad():
        state = model.encode_state(obs)
        logits = model.action_head(model.policy_branch(state))
        flat = model.candidate_outputs(state, obs, features, features, owner)
    assert torch.allclose(flat, logits[owner, index])


def test_a_removed_design_is_refused_naming_the_commit_that_runs_it():
    from agents.config import NetworkConfig

    with pytest.raises(ValueError, match="design='mlp' was removed .*commit cbad168 still runs it"):
        NetworkConfig(design="mlp")
