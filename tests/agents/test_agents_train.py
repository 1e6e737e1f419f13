"""The trainer: exact resume, checkpoints (atomic, refused when foreign or corrupt), logs and plots."""

from __future__ import annotations

import csv
import os

import pytest

torch = pytest.importorskip("torch")

from agents import checkpoint as ckpt  # noqa: E402
from agents.checkpoint import CheckpointError, atomic_save, load_model, read_file, save_policy  # noqa: E402
from agents.config import TrainArgs, args_from_mapping, load_config_file  # noqa: E402
from agents.config import NetworkConfig  # noqa: E402
from agents.network import Big2Net  # noqa: E402
from agents.pretrained import load_pretrained  # noqa: E402
from agents.train import train  # noqa: E402

SMALL = {"card_dim": 16, "hand_heads": 2, "hand_ff": 32, "field_dim": 16, "count_dim": 16, "state_dim": 32, "state_ff": 64,
         "action_hidden": 32, "action_dim": 16, "value_hidden": 32}


def tiny(out, **kwargs) -> TrainArgs:
    values = dict(
        batches=4, games_per_batch=4, minibatch=64, model=dict(SMALL), out=str(out), eval_opponents=[],
        checkpoint_every=0, progress=False, tensorboard=False,
    )
    values.update(kwargs)
    return TrainArgs(**values)


def assert_same_state(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        assert torch.equal(a[name], b[name]), name


@pytest.mark.parametrize(
    "curriculum, algo",
    [("self", "ppo"), ("checkpoint", "ppo"), ("fixed:random", "ppo"), ("mixed", "ppo"),
     ("self", "sarsa"), ("checkpoint", "qlearning"), ("osfp", "ppo"), ("osfp", "mcq"), ("self", "dmc"),
     ("self", "dmc+win")],
)
def test_resumed_run_matches_an_uninterrupted_one_bit_for_bit(tmp_path, curriculum, algo):
    extra: dict = {"snapshot_every": 1, "pool_size": 2} if curriculum in ("checkpoint", "osfp") else {}
    if algo == "dmc+win":  # Deep Monte Carlo with AlphaDou's win head, on a residual plus scorer
        algo = "dmc"
        extra["model"] = dict(SMALL, design="plus", scorer_hidden=32, scorer_blocks=1, win_head=True)
    if algo != "ppo":  # the target network is synchronised after batch 3: once after the split
        extra.update(algo=algo, target_sync=3)
    straight = train(tiny(tmp_path / "straight", curriculum=curriculum, **extra))
    assert straight.finished and straight.batch == 4
    half = train(tiny(tmp_path / "split", curriculum=curriculum, stop_after=2, **extra))
    assert not half.finished and half.batch == 2
    with pytest.raises(CheckpointError, match="already holds a training run"):
        train(tiny(tmp_path / "split", curriculum=curriculum, **extra))
    resumed = train(tiny(tmp_path / "split", curriculum=curriculum, **extra), resume=True)
    assert resumed.finished and resumed.batch == 4 and resumed.decisions == straight.decisions
    assert_same_state(straight.model.state_dict(), resumed.model.state_dict())
    a = read_file(tmp_path / "straight" / "checkpoint.pt")
    b = read_file(tmp_path / "split" / "checkpoint.pt")
    assert a["rng"]["games"] == b["rng"]["games"] and a["rng"]["actions"] == b["rng"]["actions"]
    for x, y in zip(a["optimizer_state"]["state"].values(), b["optimizer_state"]["state"].values()):
        assert_same_state(x, y)
    if algo in ("sarsa", "qlearning"):
        assert_same_state(a["target_state"], b["target_state"])
        assert not all(torch.equal(v, a["model_state"][k]) for k, v in a["target_state"].items())
    if curriculum in ("checkpoint", "osfp"):
        assert [s["batch"] for s in a["curriculum"]["pool"]] == [3, 4]
        for x, y in zip(a["curriculum"]["pool"], b["curriculum"]["pool"]):
            assert_same_state(x["weights"], y["weights"])
    with open(tmp_path / "split" / "train_log.csv", newline="") as handle:
        assert [int(r["batch"]) for r in csv.DictReader(handle)] == [1, 2, 3, 4]


def test_resume_refuses_changes_to_the_experiment(tmp_path):
    train(tiny(tmp_path, batches=2, stop_after=1))
    with pytest.raises(ValueError, match="cannot resume with entropy=0.1"):
        train(tiny(tmp_path, batches=2, entropy=0.1), resume=True)
    with pytest.raises(ValueError, match="cannot resume with model="):
        train(tiny(tmp_path, batches=2, model={}), resume=True)
    with pytest.raises(CheckpointError, match="nothing to resume"):
        train(tiny(tmp_path / "empty"), resume=True)
    # only the explicitly given fields are compared; a longer budget is allowed (and stop_after 0 runs to it)
    result = train(tiny(tmp_path, batches=3, entropy=0.1), resume=True, explicit={"batches", "stop_after"})
    assert result.batch == 3


def test_a_run_saved_with_a_removed_algorithm_or_option_says_which_commit_runs_it(tmp_path):
    train(tiny(tmp_path, batches=2, stop_after=1))
    path = tmp_path / "checkpoint.pt"
    state = read_file(path)
    saved = dict(state["args"])
    for bad, what in (({"algo": "distill", "teacher": "search:64"}, "algo 'distill'"), ({"replay": 4}, "replay=4"),
                      ({"critic": "full"}, "critic='full'"), ({"win_bonus": 15.0}, "win_bonus=15.0")):
        state["args"] = {**saved, **bad}
        atomic_save(state, path)
        with pytest.raises(ValueError, match=f"{what} was removed .*commit cbad168 still runs it"):
            train(tiny(tmp_path, batches=2), resume=True)
    state["args"] = {**saved, "teacher": "smart", "replay": 1, "soft_targets": 0.0, "leaf_value": 0.0,  # left off
                     "critic": "observation", "win_bonus": 0.0}
    atomic_save(state, path)
    assert train(tiny(tmp_path, batches=2), resume=True).batch == 2


def test_checkpoint_of_another_model_config_or_format_version_is_refused(tmp_path):
    model = Big2Net(NetworkConfig.from_dict(SMALL))
    path = save_policy(tmp_path / "m.pt", model, {"note": "tiny"})
    loaded, data = load_model(path)
    assert loaded.config == model.config and data["info"] == {"note": "tiny"}
    with pytest.raises(CheckpointError, match=r"another model config \(card_dim: checkpoint 16, this run 32"):
        load_model(path, expected=NetworkConfig())
    data = torch.load(path, weights_only=True)
    data["format_version"] = 99
    torch.save(data, tmp_path / "future.pt")
    with pytest.raises(CheckpointError, match="format version 99; this big2-env reads version 1"):
        load_model(tmp_path / "future.pt")
    data["format_version"] = 1
    data["model_config"]["card_dim"] = 24  # weights no longer fit
    torch.save(data, tmp_path / "mismatch.pt")
    with pytest.raises(CheckpointError, match="do not fit"):
        load_model(tmp_path / "mismatch.pt")
    data["model_config"]["colour"] = 1
    torch.save(data, tmp_path / "unknown.pt")
    with pytest.raises(CheckpointError, match="unusable model config"):
        load_model(tmp_path / "unknown.pt")
    torch.save({"weights": torch.zeros(3)}, tmp_path / "foreign.pt")
    with pytest.raises(CheckpointError, match="not a big2 agents checkpoint"):
        load_model(tmp_path / "foreign.pt")
    with pytest.raises(CheckpointError, match="expected big2-agents/checkpoint"):
        read_file(path, kinds=(ckpt.CHECKPOINT_KIND,))


def test_corrupt_or_missing_checkpoint_is_refused(tmp_path):
    path = save_policy(tmp_path / "m.pt", Big2Net(NetworkConfig.from_dict(SMALL)))
    blob = path.read_bytes()
    (tmp_path / "truncated.pt").write_bytes(blob[: len(blob) // 2])
    (tmp_path / "noise.pt").write_bytes(os.urandom(4096))
    for name in ("truncated.pt", "noise.pt"):
        with pytest.raises(CheckpointError, match="is not a big2 agents checkpoint") as info:
            load_model(tmp_path / name)
        assert "weights_only" not in str(info.value) and "big2 train" in str(info.value)
    with pytest.raises(CheckpointError, match="no such file"):
        load_model(tmp_path / "absent.pt")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "checkpoint.pt").write_bytes(blob[:100])
    with pytest.raises(CheckpointError, match="corrupt"):
        train(tiny(tmp_path / "run"), resume=True)


def test_writes_are_atomic(tmp_path, monkeypatch):
    target = tmp_path / "state.pt"
    atomic_save({"kind": "x", "n": 1}, target)
    original = target.read_bytes()
    replaced = []
    real_replace = os.replace
    monkeypatch.setattr(ckpt.os, "replace", lambda a, b: replaced.append((a, b)) or real_replace(a, b))
    atomic_save({"kind": "x", "n": 2}, target)
    assert len(replaced) == 1 and os.path.dirname(replaced[0][0]) == str(tmp_path)  # temp file in the same folder
    assert torch.load(target, weights_only=True)["n"] == 2

    def crash(obj, handle):  # a write that dies half way
        handle.write(b"partial")
        raise OSError("disk full")

    before = target.read_bytes()
    monkeypatch.setattr(ckpt.torch, "save", crash)
    with pytest.raises(OSError, match="disk full"):
        atomic_save({"kind": "x", "n": 3}, target)
    assert target.read_bytes() == before != original  # the old file is intact ...
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.pt"]  # ... and no temp file is left


def test_a_run_writes_logs_checkpoints_model_and_plot(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "run"
    result = train(tiny(out, batches=2, eval_opponents=["random", "greedy"], eval_games=8, eval_every=1, checkpoint_every=1))
    names = sorted(p.name for p in out.iterdir())
    assert names == ["args.json", "checkpoint.pt", "learning_curves.png", "metrics.csv", "model.pt", "train_log.csv",
                     "training_health.png"]
    with open(out / "metrics.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["batch"], r["opponent"]) for r in rows] == [
        (b, o) for b in ("0", "1", "2") for o in ("random", "greedy")
    ]
    assert set(result.last_eval) == {"random", "greedy"}
    policy = load_pretrained(out / "model.pt")  # a run's model.pt is what the pretrained loader reads
    assert policy.model.config == NetworkConfig.from_dict(SMALL)
    assert (out / "model.pt").stat().st_size < (out / "checkpoint.pt").stat().st_size


def test_tensorboard_logs_when_installed(tmp_path):
    pytest.importorskip("tensorboard")
    train(tiny(tmp_path, batches=1, tensorboard=True))
    assert any(p.name.startswith("events.out.tfevents") for p in (tmp_path / "tb").iterdir())


def test_config_files_json_and_toml(tmp_path):
    (tmp_path / "a.json").write_text('{"batches": 7, "curriculum": "fixed:smart", "model": {"state_dim": 64}}')
    (tmp_path / "b.toml").write_text('batches = 9\nentropy = 0.1\neval-opponents = ["smart"]\n[model]\ncard_dim = 16\n')
    a = args_from_mapping(load_config_file(tmp_path / "a.json"))
    assert (a.batches, a.curriculum, a.network_config().state_dim) == (7, "fixed:smart", 64)
    b = args_from_mapping(load_config_file(tmp_path / "b.toml"))
    assert (b.batches, b.entropy, b.eval_opponents, b.network_config().card_dim) == (9, 0.1, ["smart"], 16)
    (tmp_path / "bad.json").write_text('{"batchez": 7}')
    with pytest.raises(ValueError, match="unknown training argument"):
        load_config_file(tmp_path / "bad.json")
    (tmp_path / "broken.toml").write_text("batches = = 3")
    with pytest.raises(ValueError, match="could not parse"):
        load_config_file(tmp_path / "broken.toml")
    with pytest.raises(ValueError, match="curriculum must be one of"):
        TrainArgs(curriculum="league").validate()
    with pytest.raises(ValueError, match="games_per_batch must be a positive int"):
        TrainArgs(games_per_batch=0).validate()
    with pytest.raises(ValueError, match="workers must be a positive int"):
        TrainArgs(workers=0).validate()
    with pytest.raises(ValueError, match="mixed_self_prob must be a number in"):
        TrainArgs(curriculum="mixed", mixed_self_prob=1.5).validate()


def test_pretrained_loader_says_how_to_train_when_the_file_is_missing(tmp_path, monkeypatch):
    import agents.pretrained as pretrained

    monkeypatch.delenv("BIG2_PRETRAINED", raising=False)
    monkeypatch.setattr(pretrained, "PRETRAINED_PATH", tmp_path / "nothing.pt")
    with pytest.raises(FileNotFoundError, match="big2 train"):
        pretrained.load_pretrained()
    save_policy(tmp_path / "tiny.pt", Big2Net(NetworkConfig.from_dict(SMALL)))
    monkeypatch.setenv("BIG2_PRETRAINED", str(tmp_path / "tiny.pt"))
    policy = pretrained.load_pretrained(deterministic=True)
    assert policy.deterministic and policy.name == "pretrained"
