"""The Ray backend (agents.collect.ray_workers): a local Ray with two workers trains reproducibly, plays
the process backend's games, resumes exactly, and survives (or reports) a killed actor."""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch")
ray = pytest.importorskip("ray")

import numpy as np  # noqa: E402

from agents.config import TrainArgs  # noqa: E402
from agents.curriculum import CheckpointPlay, FixedOpponent  # noqa: E402
from agents.config import NetworkConfig  # noqa: E402
from agents.network import Big2Net  # noqa: E402
from agents.collect.ray_workers import RAY_WORKER_NICENESS, RayWorkers, init_local_ray  # noqa: E402
from agents.train import train  # noqa: E402
from big2_env.engine.rules import Rules  # noqa: E402
from tests.deadline import deadline  # noqa: E402

SMALL = {"card_dim": 16, "hand_heads": 2, "hand_ff": 32, "field_dim": 16, "count_dim": 16, "state_dim": 32, "state_ff": 64,
         "action_hidden": 32, "action_dim": 16, "value_hidden": 32}
FIELDS = ("obs", "features", "counts", "choice", "action", "logp", "game", "seat", "turn", "scores", "winners")


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """One local Ray for the module (starting one takes seconds), started as the trainer starts one, its workers
    at this process's niceness (Ray's own default, 15 more, starves them on a busy machine); the trainer joins it
    and leaves it running."""
    init_local_ray(num_cpus=3, include_dashboard=False, logging_level="warning")
    yield
    ray.shutdown()


def tiny(out, **kwargs) -> TrainArgs:
    values = dict(
        batches=3, games_per_batch=6, minibatch=64, model=dict(SMALL), out=str(out), eval_opponents=[], checkpoint_every=0,
        progress=False, tensorboard=False, backend="ray", workers=2, env="engine",
    )
    values.update(kwargs)
    return TrainArgs(**values)


def _state(result) -> dict:
    return {k: v.detach().clone() for k, v in result.model.state_dict().items()}


def _same_state(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        assert torch.equal(a[name], b[name]), name


def test_two_ray_workers_train_and_match_themselves_on_a_rerun(tmp_path):
    args = dict(curriculum="checkpoint", snapshot_every=1, pool_size=2)
    first = train(tiny(tmp_path / "a", **args))
    second = train(tiny(tmp_path / "b", **args))
    assert first.finished and first.decisions == second.decisions
    _same_state(_state(first), _state(second))
    assert ray.is_initialized()  # a Ray the trainer did not start is left running


def test_ray_workers_play_the_process_backends_games(tmp_path, monkeypatch):
    """A value learner's update runs in the trainer alone with either backend, so the runs are equal."""
    monkeypatch.setattr("agents.trainer.free_cores", lambda: 2)
    by_ray = train(tiny(tmp_path / "ray", algo="mcq", curriculum="fixed:random"))
    by_processes = train(tiny(tmp_path / "proc", algo="mcq", curriculum="fixed:random", backend="process"))
    assert by_ray.decisions == by_processes.decisions
    _same_state(_state(by_ray), _state(by_processes))


def test_a_resumed_ray_run_equals_an_uninterrupted_one(tmp_path):
    straight = train(tiny(tmp_path / "straight", batches=4, curriculum="osfp", snapshot_every=1))
    half = train(tiny(tmp_path / "split", batches=4, curriculum="osfp", snapshot_every=1, stop_after=2))
    assert not half.finished
    resumed = train(tiny(tmp_path / "split", batches=4, curriculum="osfp", snapshot_every=1), resume=True)
    assert resumed.finished and resumed.decisions == straight.decisions
    _same_state(_state(straight), _state(resumed))
    with pytest.raises(ValueError, match="cannot resume with backend='process'"):
        train(tiny(tmp_path / "split", batches=5, curriculum="osfp", snapshot_every=1, backend="process"), resume=True)


def _model() -> Big2Net:
    torch.manual_seed(0)
    return Big2Net(NetworkConfig.from_dict(SMALL))


def _collect(workers: RayWorkers, model: Big2Net, curriculum: CheckpointPlay, seed: int):
    plans = CheckpointPlay(seed, current_prob=curriculum.current_prob)
    plans.pool = curriculum.pool  # the same plans for the same seed
    return workers.collect(Rules(), np.arange(seed, seed + 6), plans.plan(6), curriculum.models(model),
                           np.random.default_rng(seed), True, None)


def test_a_killed_actor_is_restarted_and_its_part_replayed_with_the_same_result(monkeypatch):
    model = _model()
    curriculum = CheckpointPlay(1, snapshot_every=1, current_prob=0.0)
    curriculum.after_batch(1, model)  # every opponent seat a snapshot: the restarted actor needs it again
    workers = RayWorkers(model, 1)
    try:
        reference = _collect(workers, model, curriculum, 7)
        pid = ray.get(workers.actors[0].ready.remote())
        submit = RayWorkers._submit

        def submit_then_kill(self, i, request):
            submit(self, i, request)
            ray.kill(self.actors[i], no_restart=False)

        monkeypatch.setattr(RayWorkers, "_submit", submit_then_kill)
        with deadline(180):
            again = _collect(workers, model, curriculum, 7)
        monkeypatch.undo()
        assert ray.get(workers.actors[0].ready.remote()) != pid  # a new process played the part again
        for name in FIELDS:
            assert np.allclose(getattr(again, name), getattr(reference, name), atol=1e-6), name
        _collect(workers, model, curriculum, 8)  # and it goes on working
    finally:
        workers.close()


def test_an_actor_killed_while_idle_comes_back_and_gets_its_snapshots_again():
    model = _model()
    curriculum = CheckpointPlay(1, snapshot_every=1, current_prob=0.0)
    curriculum.after_batch(1, model)
    workers = RayWorkers(model, 1)
    try:
        reference = _collect(workers, model, curriculum, 5)
        pid = ray.get(workers.actors[0].ready.remote())
        ray.kill(workers.actors[0], no_restart=False)  # between batches, e.g. during the learner's update
        with deadline(180):
            again = _collect(workers, model, curriculum, 5)
        assert ray.get(workers.actors[0].ready.remote()) != pid
        for name in FIELDS:
            assert np.allclose(getattr(again, name), getattr(reference, name), atol=1e-6), name
    finally:
        workers.close()


def test_the_actors_of_a_local_ray_run_at_the_callers_niceness():
    workers = RayWorkers(_model(), 1)
    try:
        pid = ray.get(workers.actors[0].ready.remote())
        added = int(os.environ.get(RAY_WORKER_NICENESS, "0"))  # a value the user sets is kept (none: 0, not Ray's 15)
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, os.getpriority(os.PRIO_PROCESS, 0) + added)
    finally:
        workers.close()


def test_init_local_ray_sets_the_worker_niceness_for_its_call_only_and_keeps_a_users(monkeypatch):
    seen = []
    monkeypatch.setattr(ray, "init", lambda **kwargs: seen.append((os.environ.get(RAY_WORKER_NICENESS), kwargs)))
    monkeypatch.delenv(RAY_WORKER_NICENESS, raising=False)
    init_local_ray(num_cpus=1)
    assert seen == [("0", {"num_cpus": 1})] and RAY_WORKER_NICENESS not in os.environ
    monkeypatch.setenv(RAY_WORKER_NICENESS, "7")
    init_local_ray(num_cpus=2)
    assert seen[1] == ("7", {"num_cpus": 2}) and os.environ[RAY_WORKER_NICENESS] == "7"


def test_more_actors_than_the_running_rays_cpus_is_an_error_at_once():
    with deadline(60), pytest.raises(RuntimeError, match="5 Ray rollout actors need 5 CPUs, but the running Ray has 3"):
        RayWorkers(_model(), 5)


def test_an_actor_that_cannot_come_back_is_reported_not_waited_for(monkeypatch):
    model = _model()
    workers = RayWorkers(model, 1, max_restarts=0)
    submit = RayWorkers._submit

    def submit_then_kill(self, i, request):
        submit(self, i, request)
        ray.kill(self.actors[i], no_restart=True)

    monkeypatch.setattr(RayWorkers, "_submit", submit_then_kill)
    try:
        with deadline(180), pytest.raises(RuntimeError, match="Ray rollout actor 0"):
            _collect(workers, model, CheckpointPlay(2), 3)
    finally:
        workers.close()


def test_an_error_inside_an_actor_is_raised_with_its_traceback():
    model = _model()
    workers = RayWorkers(model, 1)
    plans = FixedOpponent(0, "smart", Rules()).plan(4)
    try:
        with deadline(120), pytest.raises(RuntimeError, match="(?s)Ray rollout actor failed.*seed must be"):
            # the trainer's part (seeds 1, 2) is fine; the actor's deals from invalid seeds
            workers.collect(Rules(), [1, 2, -1, -2], plans, {"current": model}, np.random.default_rng(0), True, None)
        workers.collect(Rules(), np.arange(4), plans, {"current": model}, np.random.default_rng(0), True, None)
    finally:
        workers.close()

