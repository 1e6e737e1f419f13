"""No committed results file holds a path of the machine it was made on, and the writers of
new ones (``big2 train``'s ``args.json``, ``big2 eval --json``, the benchmarks' figures) name files
without it: :mod:`big2_env.records`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from big2_env import cli
from big2_env.records import machine_paths, portable, portable_path

REPO = Path(__file__).resolve().parents[2]
RESULTS = {  # folder: the suffixes of the results files kept there
    "benchmarks": (".json", ".csv", ".md", ".txt", ".log"),
    "docs": (".json", ".csv", ".md", ".txt"),
    "agents/data": (".json", ".md"),
    "experiments": (".json", ".csv", ".md", ".txt", ".log"),
}
"""Where the results files are: the figures, logs, run arguments and the pages that quote them."""


def results_files() -> list[Path]:
    found = []
    for folder, suffixes in RESULTS.items():
        found += [p for p in sorted((REPO / folder).rglob("*")) if p.suffix in suffixes and p.is_file()]
    return found


def test_no_results_file_holds_a_machine_path():
    files = results_files()
    assert len(files) > 100 and REPO / "benchmarks" / "leaderboard" / "charlesworth.json" in files
    found = []
    for path in files:
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
            found += [f"{path.relative_to(REPO)}:{number}: {hit}" for hit in machine_paths(line)]
    assert not found, (
        f"{len(found)} machine paths in the results files (name the file, as big2_env.records.portable "
        "does: his parameter file by its name, a run folder relative to the repository):\n" + "\n".join(found[:40])
    )


@pytest.mark.parametrize("text, hits", [
    ('"agent": "charlesworth:/work/charlesworth/modelParameters136500"', ["/work/charlesworth/modelParameters136500"]),
    ("--out /home/ann/runs/x --init /tmp/m.pt", ["/home/ann/runs/x", "/tmp/m.pt"]),
    (r'"params": "C:\\Users\\ann\\mp.bin"', [r"C:\\Users\\ann\\mp.bin"]),
    ("/Users/ann/big2/runs/c", ["/Users/ann/big2/runs/c"]),
    ("https://github.com/henrycharlesworth/big2_PPOalgorithm and https://x.org/home/page", []),
    ("runs/long_paper/model.pt, benchmarks/work/x, /proc/self, /api/info, charlesworth:/path/to/modelParameters136500",
     []),
])
def test_machine_paths_finds_a_machines_folders_only(text, hits):
    assert machine_paths(text) == hits


def test_portable_keeps_the_form_and_drops_the_machine():
    assert portable_path(str(REPO / "experiments" / "results" / "learner" / "c.json")) == "experiments/results/learner/c.json"
    assert portable_path("/work/runs/rand100/model.pt") == "rand100/model.pt"  # a run's file with its run
    assert portable_path("/work/charlesworth/modelParameters136500") == "modelParameters136500"
    assert portable_path("runs/ppo") == "runs/ppo"
    args = {"out": "/srv/x/long_paper", "eval_opponents": ["smart", "charlesworth:/home/ann/mp.bin"],
            "model": {"card_dim": 16}, "init": "", "lr": 1e-3, "note": "win rate 1/2, /1e6"}
    assert portable(args) == {"out": "long_paper", "eval_opponents": ["smart", "charlesworth:mp.bin"],
                              "model": {"card_dim": 16}, "init": "", "lr": 1e-3, "note": "win rate 1/2, /1e6"}
    assert not machine_paths(json.dumps(portable(args)))


def test_big2_eval_json_names_a_model_file_without_its_folders(tmp_path, capsys):
    from tests.evaluation.test_loading import save_tiny_network

    tiny = save_tiny_network(tmp_path / "models" / "tiny.pt")
    out = tmp_path / "eval.json"
    code = cli.main(["eval", "--agent", str(tiny), "--opponent", "random", "--games", "2", "--no-progress",
                     "--json", str(out)])
    capsys.readouterr()
    data = json.loads(out.read_text())
    assert code == 0 and data["agent"] == "tiny.pt" and "--agent tiny.pt " in data["command"]
    assert str(tmp_path) not in out.read_text()


def test_a_runs_args_json_names_its_files_without_the_machines_folders(tmp_path):
    pytest.importorskip("torch")
    from tests.agents.test_agents_train import tiny
    from tests.evaluation.test_loading import save_tiny_network

    from agents.train import train

    init = save_tiny_network(tmp_path / "models" / "start.pt")
    out = tmp_path / "runs" / "probe"
    train(tiny(out, batches=1, init=str(init)))
    saved = json.loads((out / "args.json").read_text())
    assert (saved["out"], saved["init"], saved["batches"]) == ("probe", "start.pt", 1)
    assert str(tmp_path) not in (out / "args.json").read_text()
