"""Training never loses more than minutes of work and never leaves processes behind.

Interrupts (Ctrl-C, SIGTERM) save the last finished batch; checkpoints are bounded by
time as well as batches; helpers die with the trainer, however it dies; a finished run,
stale temporary files, a changed process count, bad float flags, divergence, damaged
or oversized checkpoints all get a clear answer.
"""

from __future__ import annotations

import csv
import re
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from agents import train as train_module  # noqa: E402
from agents import trainer as trainer_module  # noqa: E402
from agents.checkpoint import CheckpointError, atomic_save, load_model, read_file  # noqa: E402
from agents.config import TrainArgs  # noqa: E402
from agents.config import NetworkConfig  # noqa: E402
from agents.network import Big2Net  # noqa: E402
from agents.learners.processes import TrainHelpers  # noqa: E402
from agents.train import MODEL_NAME, TrainingDiverged, free_cores, train  # noqa: E402

SMALL = {"card_dim": 16, "hand_heads": 2, "hand_ff": 32, "field_dim": 16, "count_dim": 16, "state_dim": 32, "state_ff": 64,
         "action_hidden": 32, "action_dim": 16, "value_hidden": 32}
REPO = Path(__file__).resolve().parents[2]


def tiny(out, **kwargs) -> TrainArgs:
    values = dict(
        batches=4, games_per_batch=4, minibatch=64, model=dict(SMALL), out=str(out), eval_opponents=[],
        checkpoint_every=0, progress=False, tensorboard=False, workers=1,
    )
    values.update(kwargs)
    return TrainArgs(**values)


def same_weights(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


# ----------------------------------------------------------------------------- processes
def _alive(pid: int) -> bool:
    """A process that exists and is not a zombie (a dead child nobody has reaped yet)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _wait_gone(pids: set[int], timeout: float = 15.0) -> set[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = {p for p in pids if _alive(p)}
        if not left:
            return left
        time.sleep(0.2)
    return {p for p in pids if _alive(p)}


linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

HELPER_SCRIPT = textwrap.dedent(
    """
    import sys, time
    from agents.network import Big2Net, NetworkConfig
    from agents.learners.processes import TrainHelpers

    if __name__ == "__main__":
        helpers = TrainHelpers(Big2Net(NetworkConfig(**{small})), 2)
        print(" ".join(str(p.pid) for p in helpers.processes), flush=True)
        time.sleep(120)
    """
)


@linux_only
def test_helpers_exit_when_the_trainer_is_killed_with_sigkill(tmp_path):
    script = tmp_path / "trainer.py"
    script.write_text(HELPER_SCRIPT.format(small=SMALL))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        helper_pids = {int(p) for p in proc.stdout.readline().split()}
        assert len(helper_pids) == 2 and all(_alive(p) for p in helper_pids)
        everything = _descendants(proc.pid) | helper_pids  # helpers and the forkserver they come from
        proc.kill()  # SIGKILL: no Python cleanup runs in the trainer
        proc.wait(timeout=10)
        assert _wait_gone(everything) == set()
    finally:
        proc.kill()
        proc.stdout.close()


@linux_only
def test_big2_train_killed_mid_run_leaves_no_process_and_resumes(tmp_path):
    out = tmp_path / "run"
    command = [sys.executable, "-m", "big2_env.cli", "train", "--out", str(out), "--batches", "500", "--games-per-batch", "4",
               "--minibatch", "64", "--eval-opponents", "", "--no-progress", "--no-tensorboard", "--workers", "2",
               "--checkpoint-every", "2"] + [f"--model={k}={v}" for k, v in SMALL.items()]
    proc = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (out / "checkpoint.pt").is_file() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert (out / "checkpoint.pt").is_file(), proc.stderr.read() if proc.poll() is not None else "no checkpoint"
        family = _descendants(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        assert _wait_gone(family) == set()
    finally:
        proc.kill()
        proc.stderr.close()
    saved = read_file(out / "checkpoint.pt")["batch"]
    assert saved >= 2 and (out / MODEL_NAME).is_file()
    resumed = train(tiny(out, batches=saved + 1, workers=2), resume=True, explicit={"batches", "workers"})
    assert resumed.finished and resumed.batch == saved + 1


def test_helpers_work_with_several_torch_threads_each():
    """Helpers are never forked from a process whose thread pool runs (the deadlock seen on 16 cores)."""
    previous = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        model = Big2Net(NetworkConfig(**SMALL))
        model(torch.zeros(8, 277), torch.zeros(8, 80), torch.arange(8), torch.zeros(8, dtype=torch.long), 1)  # pool running
        helpers = TrainHelpers(model, 1, threads=2)
        try:
            from big2_env.engine.rules import Rules

            from agents.curriculum import CURRENT
            from agents.collect.rollout import ModelSeat
            import numpy as np

            plans = [[ModelSeat(CURRENT)] * 4 for _ in range(4)]
            rollout = helpers.collect(Rules(), [1, 2, 3, 4], plans, {"current": model}, np.random.default_rng(0), True, None)
            assert len(rollout.turns) == 4 and rollout.decisions > 0
        finally:
            helpers.close()
        assert not any(p.is_alive() for p in helpers.processes)
    finally:
        torch.set_num_threads(previous)


# ----------------------------------------------------------------------------- interrupts and checkpoints
def test_ctrl_c_saves_the_last_finished_batch_and_the_resume_is_exact(tmp_path, monkeypatch):
    straight = train(tiny(tmp_path / "straight", checkpoint_every=100))
    real = train_module.Trainer.train_batch
    calls = {"n": 0}

    def interrupted(self):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt  # Ctrl-C in the middle of batch 3
        return real(self)

    monkeypatch.setattr(train_module.Trainer, "train_batch", interrupted)
    with pytest.raises(KeyboardInterrupt):
        train(tiny(tmp_path / "split", checkpoint_every=100))  # no checkpoint would be due before batch 100
    monkeypatch.setattr(train_module.Trainer, "train_batch", real)
    saved = read_file(tmp_path / "split" / "checkpoint.pt")
    assert saved["batch"] == 2
    assert same_weights(load_model(tmp_path / "split" / MODEL_NAME)[0].state_dict(), saved["model_state"])
    resumed = train(tiny(tmp_path / "split", checkpoint_every=100), resume=True)
    assert resumed.batch == 4 and same_weights(resumed.model.state_dict(), straight.model.state_dict())


def test_a_resumed_run_keeps_its_stop_after_unless_given_again(tmp_path, monkeypatch, capsys):
    real = train_module.Trainer.train_batch
    calls = {"n": 0}

    def interrupted(self):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt  # Ctrl-C in batch 2 of a run planned to stop after batch 3
        return real(self)

    monkeypatch.setattr(train_module.Trainer, "train_batch", interrupted)
    with pytest.raises(KeyboardInterrupt):
        train(tiny(tmp_path, batches=5, stop_after=3, checkpoint_every=100))
    monkeypatch.setattr(train_module.Trainer, "train_batch", real)
    assert read_file(tmp_path / "checkpoint.pt")["batch"] == 1
    # resumed as `big2 train --out RUN --resume` does: no --stop-after given, so the saved one holds
    resumed = train(tiny(tmp_path), resume=True, explicit=set())
    assert (resumed.batch, resumed.finished, resumed.stop_after) == (3, False, 3)
    again = train(tiny(tmp_path), resume=True, explicit=set())  # at its stop: nothing to train, and it says so
    assert again.batch == 3 and "already at this run's --stop-after 3: nothing to train" in capsys.readouterr().err
    moved = train(tiny(tmp_path, stop_after=4), resume=True, explicit={"stop_after"})  # given again: the new one
    assert (moved.batch, moved.stop_after) == (4, 4)
    assert read_file(tmp_path / "checkpoint.pt")["args"]["stop_after"] == 4
    assert train(tiny(tmp_path), resume=True, explicit=set()).batch == 4  # and the new one is kept in turn
    done = train(tiny(tmp_path, stop_after=0), resume=True, explicit={"stop_after"})  # 0: run on to --batches
    assert (done.batch, done.finished) == (5, True)


@linux_only
def test_sigint_to_big2_train_writes_a_checkpoint(tmp_path):
    out = tmp_path / "run"
    command = [sys.executable, "-m", "big2_env.cli", "train", "--out", str(out), "--batches", "500", "--games-per-batch", "4",
               "--minibatch", "64", "--eval-opponents", "", "--no-progress", "--no-tensorboard", "--workers", "1"]
    command += [f"--model={k}={v}" for k, v in SMALL.items()]
    # As from an interactive shell: a job started in the background by a non-interactive shell (CI runners) inherits
    # SIGINT ignored, and Python then never turns it into KeyboardInterrupt; give the child the default disposition.
    proc = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    log = out / "train_log.csv"
    deadline = time.monotonic() + 300  # generous: a busy CI machine can take minutes to import torch and start
    while time.monotonic() < deadline and proc.poll() is None:
        if log.is_file() and len(log.read_text().splitlines()) >= 3:  # header and two finished batches
            break
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 130, stderr
    saved = read_file(out / "checkpoint.pt")["batch"]
    assert saved >= 2 and f"the checkpoint in {out} is at batch {saved}: continue with --resume" in stderr
    with open(log, newline="") as handle:
        assert int(list(csv.DictReader(handle))[-1]["batch"]) >= saved


def test_checkpoints_are_also_bounded_by_time(tmp_path, monkeypatch):
    written = []
    real = trainer_module.atomic_save

    def recording(obj, path):
        if Path(path).name == "checkpoint.pt":
            written.append(obj["batch"])
        return real(obj, path)

    monkeypatch.setattr(trainer_module, "atomic_save", recording)
    train(tiny(tmp_path / "by_time", batches=3, checkpoint_every=0, checkpoint_minutes=1e-9))
    assert written == [1, 2, 3]
    written.clear()
    train(tiny(tmp_path / "by_batches", batches=3, checkpoint_every=0, checkpoint_minutes=0))
    assert written == [3]


def test_resuming_a_finished_run_writes_a_missing_model_and_trains_nothing(tmp_path):
    first = train(tiny(tmp_path, batches=2))
    (tmp_path / MODEL_NAME).unlink()  # killed just after the final checkpoint (old write order)
    again = train(tiny(tmp_path, batches=2), resume=True)
    assert again.already_finished and again.batch == 2
    assert same_weights(load_model(tmp_path / MODEL_NAME)[0].state_dict(), first.model.state_dict())
    longer = train(tiny(tmp_path, batches=3), resume=True, explicit={"batches"})
    assert not longer.already_finished and longer.batch == 3


def test_big2_train_resume_of_a_finished_run_says_so(tmp_path):
    train(tiny(tmp_path, batches=1))
    done = subprocess.run([sys.executable, "-m", "big2_env.cli", "train", "--out", str(tmp_path), "--resume", "--no-progress"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "already finished" in done.stdout and "--resume --batches N" in done.stdout


def test_model_is_written_before_the_checkpoint(tmp_path, monkeypatch):
    order = []
    real = trainer_module.atomic_save
    monkeypatch.setattr(trainer_module, "atomic_save", lambda obj, path: (order.append(Path(path).name), real(obj, path))[1])
    train(tiny(tmp_path, batches=1))
    assert order == ["model.pt", "checkpoint.pt"]


def test_stale_temporary_files_are_cleaned_up(tmp_path):
    train(tiny(tmp_path, batches=2, stop_after=1))
    stale = [tmp_path / ".checkpoint.pt.k3j2.tmp", tmp_path / ".model.pt.x9.tmp", tmp_path / ".metrics.csv.tmp"]
    for path in stale:
        path.write_bytes(b"half a file")
    (tmp_path / "notes.tmp").write_text("not ours")
    train(tiny(tmp_path, batches=2), resume=True)
    assert not any(p.exists() for p in stale) and (tmp_path / "notes.tmp").exists()


@pytest.mark.skipif(free_cores() < 2, reason="needs two free cores for a two-process run")
def test_resuming_with_another_process_count_is_refused(tmp_path):
    train(tiny(tmp_path, batches=2, stop_after=1, workers=2, env="engine"))
    with pytest.raises(CheckpointError, match=r"trained with 2 process\(es\).*would resume with 1"):
        train(tiny(tmp_path, batches=2, workers=1), resume=True, explicit={"workers"})
    assert read_file(tmp_path / "checkpoint.pt")["batch"] == 1
    assert train(tiny(tmp_path, batches=2, workers=2, env="engine"), resume=True).batch == 2


# ----------------------------------------------------------------------------- bad values
@pytest.mark.parametrize(
    "field, value",
    [("lr", math.inf), ("lr", 0.0), ("entropy", math.nan), ("gamma", 5.0), ("gae_lambda", -0.1), ("clip", -1.0),
     ("warmup_fraction", 2.0), ("min_lr_fraction", math.nan), ("value_coef", math.inf), ("max_grad_norm", math.nan),
     ("reward_scale", -math.inf), ("epsilon_start", math.nan), ("checkpoint_minutes", -1.0), ("lr", "0.1"), ("gamma", True)],
)
def test_every_float_argument_is_checked(tmp_path, field, value):
    with pytest.raises(ValueError, match=f"{field} must be a number in"):
        train(tiny(tmp_path, **{field: value}))
    assert not (tmp_path / "checkpoint.pt").exists()


@pytest.mark.parametrize("flag, value", [("--lr", "inf"), ("--entropy", "nan"), ("--gamma", "5"), ("--clip", "-1"),
                                         ("--warmup-fraction", "2")])
def test_big2_train_rejects_bad_floats_with_a_clear_message(tmp_path, capsys, flag, value):
    from big2_env.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["train", "--out", str(tmp_path), "--batches", "1", "--no-progress", flag, value])
    assert exit_info.value.code == 2
    assert "must be a number in" in capsys.readouterr().err
    assert not (tmp_path / "checkpoint.pt").exists()


def test_divergence_stops_training_and_leaves_the_checkpoint_untouched(tmp_path, monkeypatch):
    from agents.learners import ppo as ppo_module

    real = ppo_module.ppo_update

    def poisoned(model, optimizer, rollout, config, rng, helpers=None, **options):
        stats = real(model, optimizer, rollout, config, rng, helpers, **options)
        if poisoned.calls == 1:
            with torch.no_grad():
                next(model.parameters()).fill_(math.nan)
        poisoned.calls += 1
        return stats

    poisoned.calls = 0
    monkeypatch.setattr(ppo_module, "ppo_update", poisoned)
    with pytest.raises(TrainingDiverged, match=r"diverged in batch 2: the network's weights became non-finite.*untouched"):
        train(tiny(tmp_path, checkpoint_every=1))
    saved = read_file(tmp_path / "checkpoint.pt")
    assert saved["batch"] == 1 and all(bool(torch.isfinite(v).all()) for v in saved["model_state"].values())


def test_a_checkpoint_missing_an_entry_is_refused_clearly(tmp_path):
    train(tiny(tmp_path, batches=2, stop_after=1))
    state = read_file(tmp_path / "checkpoint.pt")
    for broken in ({k: v for k, v in state.items() if k != "optimizer_state"}, {**state, "batch": "one"},
                   {**state, "rng": {k: v for k, v in state["rng"].items() if k != "games"}}):
        atomic_save(broken, tmp_path / "checkpoint.pt")
        with pytest.raises(CheckpointError, match="is not a complete") as err:
            train(tiny(tmp_path, batches=2), resume=True)
        assert "optimizer_state" in str(err.value) or "batch" in str(err.value) or "games" in str(err.value)


def test_a_file_asking_for_a_huge_model_is_refused_before_allocating_it(tmp_path):
    from agents.checkpoint import weights_payload

    huge = dict(NetworkConfig().to_dict(), card_dim=4096, hand_ff=4096, field_dim=4096, state_dim=4096, state_ff=4096)
    atomic_save(weights_payload(huge, {}), tmp_path / "huge.pt")
    with pytest.raises(CheckpointError, match="parameters, more than the"):
        load_model(tmp_path / "huge.pt")


# ----------------------------------------------------------------------------- progress and summary
def test_the_progress_bar_names_the_evaluation_phase(tmp_path, capsys):
    train(tiny(tmp_path, batches=1, progress=True, eval_opponents=["random", "greedy"], eval_games=4, eval_every=1))
    err = capsys.readouterr().err
    assert "eval vs random (4 games)" in err and "eval vs greedy (4 games)" in err


def test_the_progress_lines_without_tqdm_name_the_evaluation_phase(tmp_path, capsys, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name.startswith("tqdm"):
            raise ImportError("no tqdm here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    train(tiny(tmp_path, batches=1, progress=True, eval_opponents=["smart"], eval_games=4))
    assert "train: eval vs smart (4 games) ..." in capsys.readouterr().err


def test_big2_train_reports_wall_time_split_into_training_and_evaluation(tmp_path, capsys):
    from big2_env.cli import main

    args = ["train", "--out", str(tmp_path), "--batches", "1", "--games-per-batch", "4", "--minibatch", "64", "--no-progress",
            "--no-tensorboard", "--eval-opponents", "random", "--eval-games", "4", "--workers", "1"]
    args += [f"--model={k}={v}" for k, v in SMALL.items()]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert re.search(r"wall time \d+ s \(\d+ s training, \d+ s evaluation\)", out), out
