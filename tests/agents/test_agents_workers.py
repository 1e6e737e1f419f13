"""Rollout workers for every curriculum (agents.collect.parallel): helper processes play snapshot and
heuristic seats exactly as an in-process worker does, die loudly, and old runs resume as they were."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

import numpy as np  # noqa: E402

from agents.config import TrainArgs  # noqa: E402
from agents.curriculum import CheckpointPlay, FixedOpponent, MixedPlay  # noqa: E402
from agents.config import NetworkConfig  # noqa: E402
from agents.network import Big2Net  # noqa: E402
from agents.collect.parallel import CollectRequest, RolloutPool, RolloutWorker  # noqa: E402
from agents.learners.processes import TrainHelpers  # noqa: E402
from agents.collect.rollout import Rollout  # noqa: E402
from agents.train import Trainer, train  # noqa: E402
from big2_env.engine.rules import Rules  # noqa: E402
from tests.deadline import deadline  # noqa: E402

SMALL = {"card_dim": 16, "hand_heads": 2, "hand_ff": 32, "field_dim": 16, "count_dim": 16, "state_dim": 32, "state_ff": 64,
         "action_hidden": 32, "action_dim": 16, "value_hidden": 32}
FIELDS = ("obs", "features", "candidate_actions", "counts", "choice", "action", "logp", "game", "seat", "turn", "scores",
          "winners")


def _model(seed: int = 0) -> Big2Net:
    torch.manual_seed(seed)
    return Big2Net(NetworkConfig.from_dict(SMALL))


class LocalPool(RolloutPool):
    """The reference: the same protocol with in-process workers acting on the trainer's model."""

    def __init__(self, model: Big2Net, n: int) -> None:
        super().__init__(n)
        self.workers = [RolloutWorker(model) for _ in range(n)]
        self.results: dict[int, tuple[Rollout, float]] = {}

    def _submit(self, i: int, request: CollectRequest) -> None:
        import pickle

        self.results[i] = self.workers[i].collect(pickle.loads(pickle.dumps(request)))  # a copy, as a pipe sends

    def _result(self, i: int) -> tuple[Rollout, float]:
        return self.results.pop(i)

    def close(self) -> None:
        pass


def _same(a: Rollout, b: Rollout) -> None:
    assert a.decisions == b.decisions and a.model_decisions == b.model_decisions
    for name in FIELDS:
        assert np.allclose(getattr(a, name), getattr(b, name), atol=1e-5), name


def test_helpers_play_snapshot_and_heuristic_seats_as_an_in_process_worker_does():
    model = _model(1)
    curriculum = CheckpointPlay(3, snapshot_every=1, pool_size=2, current_prob=0.3)
    mixed = MixedPlay(4, Rules())
    helpers = TrainHelpers(model, 2)
    local = LocalPool(model, 2)
    try:
        for batch in range(1, 4):  # the pool grows, then drops its oldest snapshot: the caches follow
            plans = curriculum.plan(9) + mixed.plan(6)
            seeds = np.arange(100 * batch, 100 * batch + len(plans))
            models = curriculum.models(model)
            merged = helpers.collect(Rules(), seeds, plans, models, np.random.default_rng(batch), True, None)
            expected = local.collect(Rules(), seeds, plans, models, np.random.default_rng(batch), True, None)
            _same(merged, expected)
            assert merged.seat_plans == plans
            assert set(helpers.last) == {"own_s", "wait_s", "worker_decisions_per_s"} and helpers.last["wait_s"] >= 0
            with torch.no_grad():
                for p in model.parameters():
                    p.add_(0.01)  # the trainer's update: helpers see it through shared memory
            curriculum.after_batch(batch, model)
        # the bookkeeping is what the workers really hold: sent once, dropped with the pool (at most its 2)
        assert [set(w.snapshots) for w in local.workers] == local.held and any(local.held)
        assert helpers.held == local.held and all(len(h) <= 2 for h in helpers.held)
    finally:
        helpers.close()


def test_a_random_heuristic_seat_in_a_helper_is_reseeded_from_the_part_not_the_trainers_stream():
    model = _model(2)
    fixed = FixedOpponent(0, "random", Rules())
    worker = RolloutWorker(model)
    plans = fixed.plan(2)
    request = CollectRequest(Rules(), [5, 6], plans, action_seed=11, skip_forced=True, epsilon=None)
    first, _ = worker.collect(request)
    again, _ = worker.collect(CollectRequest(Rules(), [5, 6], plans, action_seed=11, skip_forced=True, epsilon=None))
    _same(first, again)  # the same request plays the same games, whatever the policy's state before
    other, _ = worker.collect(CollectRequest(Rules(), [5, 6], plans, action_seed=12, skip_forced=True, epsilon=None))
    assert not np.array_equal(first.action, other.action) or first.decisions != other.decisions


def test_a_worker_asked_for_a_snapshot_it_lacks_says_so():
    worker = RolloutWorker(_model())
    plans = CheckpointPlay(0, snapshot_every=1, current_prob=0.0)
    plans.after_batch(1, worker.model)
    request = CollectRequest(Rules(), [1], plans.plan(1), 0, True, None)
    with pytest.raises(RuntimeError, match="does not hold"):
        worker.collect(request)


def test_a_helper_killed_mid_batch_raises_a_clear_error_never_a_hang(monkeypatch):
    model = _model(3)
    helpers = TrainHelpers(model, 1)
    submit = TrainHelpers._submit

    def submit_then_kill(self, i, request):
        submit(self, i, request)
        os.kill(self.processes[i].pid, signal.SIGKILL)

    monkeypatch.setattr(TrainHelpers, "_submit", submit_then_kill)
    plans = FixedOpponent(0, "smart", Rules()).plan(4)
    try:
        with deadline(120), pytest.raises(RuntimeError, match="killed by signal 9"):
            helpers.collect(Rules(), np.arange(4), plans, {"current": model}, np.random.default_rng(0), True, None)
    finally:
        helpers.close()


def test_value_learners_and_every_curriculum_share_their_games_with_the_workers(monkeypatch):
    monkeypatch.setattr("agents.trainer.free_cores", lambda: 2)
    for algo, curriculum in (("mcq", "fixed:greedy"), ("ppo", "checkpoint"), ("dmc", "mixed")):
        trainer = Trainer(TrainArgs(algo=algo, curriculum=curriculum, env="engine", model=SMALL, games_per_batch=4, batches=2,
                                    workers=2, snapshot_every=1, progress=False))
        try:
            assert trainer.process_count == 2
            for _ in range(2):
                stats = trainer.train_batch()
            assert trainer.collector.pool is not None and stats["trained_decisions"] > 0
            assert stats["wait_share"] >= 0 and stats["worker_decisions_per_s"] > 0 and stats["learner_decisions_per_s"] > 0
        finally:
            trainer.close()


def test_a_run_saved_before_workers_played_every_curriculum_resumes_as_it_was(tmp_path, monkeypatch):
    """Checkpoints without ``rollout_split`` collected the games of other curricula in the trainer:
    they continue so, exactly; new runs share them."""
    monkeypatch.setattr("agents.trainer.free_cores", lambda: 2)
    args = TrainArgs(curriculum="fixed:smart", model=SMALL, games_per_batch=4, batches=2, workers=2, out=str(tmp_path),
                     eval_opponents=[], progress=False, tensorboard=False, stop_after=1)
    train(args)
    from agents.checkpoint import atomic_save, read_file

    state = read_file(tmp_path / "checkpoint.pt")
    assert state["rollout_split"] == "all"
    del state["rollout_split"]
    atomic_save(state, tmp_path / "checkpoint.pt")
    trainer = Trainer(args)
    trainer.load_state_dict(state)
    assert trainer.rollout_split == "self"
    calls = []
    monkeypatch.setattr(TrainHelpers, "collect", lambda *a, **k: calls.append(1))
    try:
        trainer.train_batch()  # the trainer played the games; the helper only shared the gradient
    finally:
        trainer.close()
    assert calls == []


def test_backend_arguments_are_checked():
    with pytest.raises(ValueError, match="backend must be one of process, ray"):
        TrainArgs(backend="dask").validate()
    with pytest.raises(ValueError, match="ray_address applies to --backend ray only"):
        TrainArgs(ray_address="auto").validate()
    TrainArgs(backend="ray", ray_address="auto").validate()


def test_without_ray_the_ray_backend_says_how_to_install_it(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails as if it were not installed
    trainer = Trainer(TrainArgs(backend="ray", env="engine", workers=2, model=SMALL, games_per_batch=2, progress=False))
    with pytest.raises(ImportError, match=r"pip install -e \"\.\[ray\]\""):
        trainer.collector.workers()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_a_gpu_learner_trains_with_cpu_workers_and_its_checkpoint_loads_on_the_cpu(tmp_path):
    from agents.checkpoint import load_model

    result = train(TrainArgs(model=SMALL, env="engine", games_per_batch=4, batches=2, workers=2, device="cuda", out=str(tmp_path),
                             eval_opponents=[], progress=False, tensorboard=False))
    assert result.finished and result.model.device.type == "cuda"
    model, _ = load_model(tmp_path / "model.pt")
    assert next(model.parameters()).device.type == "cpu"


def test_the_learner_takes_the_idle_workers_cores_for_its_update_unless_they_share_it(monkeypatch):
    monkeypatch.setattr("agents.trainer.free_cores", lambda: 2)
    seen = []
    import agents.learners.ppo as ppo_module
    import agents.learners.value as value_module

    for module, name in ((value_module, "value_update"), (ppo_module, "ppo_update")):
        original = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, _f=original, **k: seen.append(torch.get_num_threads()) or _f(*a, **k))
    previous = torch.get_num_threads()
    torch.set_num_threads(1)  # what a two-process layout gives each process on two cores
    try:
        for algo, expected in (("mcq", 2), ("ppo", 1)):  # PPO's helper shares the gradient: one thread each
            trainer = Trainer(TrainArgs(algo=algo, env="engine", model=SMALL, games_per_batch=2, batches=2, workers=2, threads=2,
                                        progress=False))
            try:
                trainer.train_batch()
            finally:
                trainer.close()
            assert seen.pop() == expected and torch.get_num_threads() == 1, algo
    finally:
        torch.set_num_threads(previous)


def test_the_vector_trainer_keeps_torch_at_its_threads_after_starting_the_compiled_envs_pool():
    """numba and torch share one OpenMP runtime, and numba's first ``set_num_threads`` resets its
    thread count to every core: the trainer must put torch's back (two runs at ``--threads 1`` side
    by side were 10x slower without it). A fresh process, so that numba's pool is not yet started."""
    script = (
        "import torch\n"
        "from agents.config import TrainArgs\n"
        "from agents.trainer import Trainer\n"
        f"args = TrainArgs(env='vector', model={SMALL!r}, games_per_batch=4, batches=1, threads=1, progress=False,\n"
        "                 tensorboard=False, eval_opponents=[])\n"
        "trainer = Trainer(args)\n"
        "torch.set_num_threads(trainer.process_threads)\n"
        "trainer.vector_env()\n"
        "print(trainer.process_threads, torch.get_num_threads())\n"
    )
    env = dict(os.environ, NUMBA_NUM_THREADS="2")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300, check=True)
    assert out.stdout.split() == ["1", "1"], out.stdout + out.stderr
