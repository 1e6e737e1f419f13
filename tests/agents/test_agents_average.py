"""Weight averaging (``big2 average``): the mean of the members' weights, refused for files that differ."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from agents.average import average_files, average_weights  # noqa: E402
from agents.checkpoint import CheckpointError, read_file, save_policy  # noqa: E402
from agents.config import NetworkConfig  # noqa: E402
from agents.network import Big2Net  # noqa: E402
from agents.policy import NetworkPolicy  # noqa: E402
from big2_env import evaluate  # noqa: E402
from big2_env.cli import main  # noqa: E402

SMALL = {"card_dim": 16, "hand_heads": 2, "hand_ff": 32, "field_dim": 16, "count_dim": 16, "state_dim": 32, "state_ff": 64,
         "action_hidden": 32, "action_dim": 16, "value_hidden": 32}


def members(tmp_path, n=3, rules="paper", **config):
    paths, models = [], []
    for i in range(n):
        torch.manual_seed(i)
        model = Big2Net(NetworkConfig(**{**SMALL, **config}))
        paths.append(save_policy(tmp_path / f"m{i}.pt", model, {"algo": "ppo", "games": 100 * (i + 1), "rules": rules}))
        models.append(model)
    return paths, models


def test_the_average_holds_each_weights_mean_and_plays(tmp_path):
    paths, models = members(tmp_path)
    data = average_files(paths, tmp_path / "mean.pt")
    states = [m.state_dict() for m in models]
    for name, tensor in data["model_state"].items():
        expected = sum(s[name].double() for s in states) / 3
        assert tensor.dtype == states[0][name].dtype
        assert torch.allclose(tensor.double(), expected, atol=1e-6), name
    assert data["info"]["averaged_games"] == [100, 200, 300] and data["info"]["rules"] == "paper"
    assert data["info"]["algo"] == "ppo" and "games" not in data["info"]  # kept where the members agree
    assert read_file(tmp_path / "mean.pt")["kind"] == "big2-agents/policy"  # a policy file like any other
    result = evaluate(NetworkPolicy.from_file(str(tmp_path / "mean.pt"), deterministic=True), "random", n_games=2, seed=1)
    assert result.n_games == 2


def test_the_mean_of_one_model_repeated_is_that_model(tmp_path):
    paths, models = members(tmp_path, n=1)
    data = average_files([paths[0], paths[0]], tmp_path / "same.pt")
    assert all(torch.equal(data["model_state"][k], v) for k, v in models[0].state_dict().items())


def test_files_that_differ_are_refused(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "c").mkdir()
    paper, _ = members(tmp_path / "a", n=1)
    wider, _ = members(tmp_path / "b", n=1, state_dim=64)
    his_rules, _ = members(tmp_path / "c", n=1, rules="charlesworth")
    with pytest.raises(CheckpointError, match="holds another network than .*state_dim 64 against 32.*same network config"):
        average_files([paper[0], wider[0]], tmp_path / "out.pt")
    with pytest.raises(CheckpointError, match=r"m0.pt' was trained under the 'charlesworth' rules, .*m0.pt' under 'paper'"):
        average_files([paper[0], his_rules[0]], tmp_path / "out.pt")
    with pytest.raises(CheckpointError, match="at least two"):
        average_files([paper[0]], tmp_path / "out.pt")
    with pytest.raises(ValueError, match="other entries"):
        average_weights([{"w": torch.zeros(2)}, {"v": torch.zeros(2)}])
    assert not (tmp_path / "out.pt").exists()


def test_the_command_writes_the_file_and_refuses_bad_arguments(tmp_path, capsys):
    paths, _ = members(tmp_path, n=2)
    assert main(["average", str(paths[0]), str(paths[1]), "--out", str(tmp_path / "swa.pt")]) == 0
    assert "the mean of 2 models (games [100, 200])" in capsys.readouterr().out
    for argv, message in (
        ([str(paths[0]), str(paths[1]), "--out", str(paths[0])], "is one of the models being averaged"),
        ([str(paths[0]), str(paths[1]), "--out", str(tmp_path)], "is a folder"),
        ([str(paths[0]), str(paths[1]), "--out", str(tmp_path / "swa.pth")], "ends in .pt; got '.pth'"),
        ([str(paths[0]), str(paths[1]), "--out", str(paths[0] / "swa.pt")], "cannot write there"),
        ([str(paths[0]), str(tmp_path / "missing.pt"), "--out", str(tmp_path / "x.pt")], "no such file"),
    ):
        with pytest.raises(SystemExit) as exit_info:
            main(["average", *argv])
        assert exit_info.value.code != 0
        assert message in capsys.readouterr().err
    assert not (tmp_path / "x.pt").exists()


def test_a_run_keeps_its_snapshots_for_averaging(tmp_path):
    from agents.config import TrainArgs
    from agents.train import train

    def args(**kwargs):
        return TrainArgs(**{**dict(batches=3, games_per_batch=4, minibatch=64, model=dict(SMALL), out=str(tmp_path / "run"),
                                   eval_opponents=[], checkpoint_every=0, progress=False, tensorboard=False, workers=1,
                                   threads=1, keep_models_every=2), **kwargs})

    train(args(stop_after=2))
    kept = sorted(p.name for p in (tmp_path / "run" / "models").iterdir())
    assert kept == ["model_0000002.pt"]
    snapshot = read_file(tmp_path / "run" / "models" / kept[0])
    assert snapshot["info"]["batch"] == 2 and snapshot["kind"] == "big2-agents/policy"
    assert all(torch.equal(v, read_file(tmp_path / "run" / "model.pt")["model_state"][k])
               for k, v in snapshot["model_state"].items())  # the policy as of batch 2, as model.pt was then
    # keep_models_every may change on --resume; stop_after 0 runs on past the saved stop to --batches
    train(args(keep_models_every=1), resume=True, explicit={"keep_models_every", "stop_after"})
    assert sorted(p.name for p in (tmp_path / "run" / "models").iterdir()) == ["model_0000002.pt", "model_0000003.pt"]
    data = average_files([*sorted((tmp_path / "run" / "models").iterdir()), tmp_path / "run" / "checkpoint.pt"],
                         tmp_path / "swa.pt")  # policy files and a checkpoint
    assert data["info"]["averaged_games"] == [8, 12, 12]
    assert {k: data["info"][k] for k in ("algo", "curriculum", "rules", "seed")} == {
        "algo": "ppo", "curriculum": "self", "rules": "paper", "seed": 0}
