"""``big2 train``, ``big2 plot`` and trained agents in ``big2 eval`` / ``big2 play``, with tiny budgets."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

from agents.checkpoint import save_policy  # noqa: E402
from agents.config import NetworkConfig  # noqa: E402
from agents.network import Big2Net  # noqa: E402
from big2_env.cli import main  # noqa: E402

SMALL = {"card_dim": 16, "hand_heads": 2, "hand_ff": 32, "field_dim": 16, "count_dim": 16, "state_dim": 32, "state_ff": 64,
         "action_hidden": 32, "action_dim": 16, "value_hidden": 32}


def big2(*args: str, input_text: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "big2_env.cli", *args], input=input_text, capture_output=True, text=True, timeout=180
    )


@pytest.fixture
def tiny_model(tmp_path):
    torch.manual_seed(0)
    return save_policy(tmp_path / "tiny.pt", Big2Net(NetworkConfig.from_dict(SMALL)), {"note": "test"})


def test_train_from_a_toml_config_resume_and_plot(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "run"
    model = "\n".join(f"{k} = {v}" for k, v in SMALL.items())
    (tmp_path / "run.toml").write_text(
        f'curriculum = "fixed:greedy"\nbatches = 2\ngames-per-batch = 4\nminibatch = 64\neval_games = 6\n'
        f'eval_opponents = ["random", "smart"]\ncheckpoint_every = 1\n[model]\n{model}\n'
    )
    first = big2("train", "--config", str(tmp_path / "run.toml"), "--out", str(out), "--stop-after", "1", "--no-progress",
                 "--entropy", "0.01")
    assert first.returncode == 0, first.stderr
    assert "stopped at batch 1, its --stop-after (resume with --resume and a larger --stop-after" in first.stdout
    saved = json.loads((out / "args.json").read_text())
    assert (saved["curriculum"], saved["entropy"], saved["games_per_batch"], saved["model"]["card_dim"]) == (
        "fixed:greedy", 0.01, 4, 16
    )
    refused = big2("train", "--out", str(out), "--resume", "--entropy", "0.2")
    assert refused.returncode == 2 and "cannot resume with entropy=0.2" in refused.stderr
    kept = big2("train", "--out", str(out), "--resume", "--no-progress")  # the run's --stop-after 1 holds
    assert kept.returncode == 0 and "stopped at batch 1, its --stop-after" in kept.stdout, kept.stderr
    resumed = big2("train", "--out", str(out), "--resume", "--no-progress", "--stop-after", "0")
    assert resumed.returncode == 0, resumed.stderr
    assert "finished: 2 batches, 8 games" in resumed.stdout
    with open(out / "metrics.csv", newline="") as handle:
        assert [(r["batch"], r["opponent"]) for r in csv.DictReader(handle)] == [
            ("0", "random"), ("0", "smart"), ("2", "random"), ("2", "smart")
        ]
    (out / "learning_curves.png").unlink()
    plotted = big2("plot", str(out))
    assert plotted.returncode == 0, plotted.stderr
    assert (out / "learning_curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_train_reports_bad_arguments(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["train", "--curriculum", "league", "--out", str(tmp_path / "x")])
    assert exit_info.value.code == 2 and "curriculum must be one of" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", "--batches", "many"])
    assert "expected int" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", "--algo", "dqn", "--out", str(tmp_path / "y")])
    assert "algo must be one of ppo, mcq, sarsa, qlearning" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", "--algo", "mcq", "--max-grad-norm", "big"])
    assert "expected float" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", "--resume", "--out", str(tmp_path / "none")])
    assert "nothing to resume" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["plot", str(tmp_path)])
    assert "no metrics.csv" in capsys.readouterr().err


def test_eval_loads_a_trained_model_file(tiny_model, capsys):
    assert main(["eval", "--agent", str(tiny_model), "--opponent", "random", "--games", "12", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "tiny vs 3 x random: 12 games" in out and "win rate" in out


def test_eval_plays_networks_at_argmax_or_a_temperature(tiny_model, capsys, monkeypatch):
    from agents.policy import NetworkPolicy

    seen = []
    original = NetworkPolicy.act_batch
    monkeypatch.setattr(NetworkPolicy, "act_batch", lambda self, obs: seen.append((self.deterministic, self.temperature))
                        or original(self, obs))
    base = ["eval", "--agent", str(tiny_model), "--opponent", "random", "--games", "4", "--no-progress"]
    assert main(base + ["--argmax"]) == 0 and set(seen) == {(True, 1.0)}
    seen.clear()
    assert main(base + ["--temperature", "0.5"]) == 0 and set(seen) == {(False, 0.5)}
    capsys.readouterr()
    for bad, message in ((["--argmax", "--temperature", "0.5"], "exclude each other"), (["--temperature", "0"], "(0, 100]")):
        with pytest.raises(SystemExit):
            main(base + bad)
        assert message in capsys.readouterr().err


def test_eval_refuses_corrupt_or_missing_model_files(tmp_path, capsys):
    (tmp_path / "broken.pt").write_bytes(b"not a checkpoint at all")
    for path, message in ((tmp_path / "broken.pt", "corrupt"), (tmp_path / "absent.pt", "no such model file")):
        with pytest.raises(SystemExit) as exit_info:
            main(["eval", "--agent", str(path), "--opponent", "greedy", "--games", "2", "--no-progress"])
        assert exit_info.value.code == 2
        assert message in capsys.readouterr().err


def test_pretrained_agent_in_eval(tiny_model, tmp_path, monkeypatch, capsys):
    import agents.pretrained as pretrained

    monkeypatch.setenv("BIG2_PRETRAINED", str(tiny_model))
    assert main(["eval", "--agent", "pretrained", "--opponent", "greedy", "--games", "8", "--no-progress"]) == 0
    assert "pretrained vs 3 x greedy" in capsys.readouterr().out
    monkeypatch.delenv("BIG2_PRETRAINED")
    monkeypatch.setattr(pretrained, "PRETRAINED_PATH", tmp_path / "missing.pt")
    with pytest.raises(SystemExit):
        main(["eval", "--agent", "pretrained", "--opponent", "greedy", "--games", "8", "--no-progress"])
    err = capsys.readouterr().err
    assert "no pretrained agent" in err and "big2 train" in err


def test_play_against_a_trained_model(tiny_model):
    result = big2("play", "--opponent", str(tiny_model), "--seat", "2", "--seed", "5", input_text="?\nq\n")
    assert result.returncode == 0, result.stderr  # quitting with q is no failure
    assert f"opponents: {tiny_model}" in result.stdout and "Legal plays:" in result.stdout
    bad = big2("play", "--opponent", "wizard")
    assert bad.returncode == 2 and "--opponent must be one of" in bad.stderr
