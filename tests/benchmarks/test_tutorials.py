"""The two tutorials (``docs/tutorial-train.md``, ``docs/tutorial-leaderboard.md``): ``benchmarks/tutorials.py`` runs the
pages' commands as written, the recorded results are of those commands, and the pages quote them through figure tags
(the processes the script would start are replaced here by a stub)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.scripts import REPO, load_script

SCRIPT = "benchmarks/tutorials.py"
tutorials = load_script(SCRIPT)
TUTORIALS = {  # the script's tutorial: (page, results file, its commands)
    "train": ("docs/tutorial-train.md", "benchmarks/tutorial/train.json", tutorials.TRAIN_COMMANDS),
    "leaderboard": ("docs/tutorial-leaderboard.md", "benchmarks/tutorial/leaderboard.json", tutorials.BOARD_COMMANDS),
}


def page_commands(page: str) -> list[str]:
    """The ``big2`` commands of the page's ``bash`` blocks, in order, split at ``&&``, comments dropped."""
    text = (REPO / page).read_text()
    found = []
    for block in re.findall(r"^```bash\n(.*?)^```", text, re.S | re.M):
        for line in block.splitlines():
            found += [part.strip() for part in line.split("#", 1)[0].split("&&") if part.strip()]
    return [command for command in found if command.startswith("big2 ")]


@pytest.mark.parametrize("tutorial", TUTORIALS)
def test_the_commands_are_the_pages_and_so_are_the_recorded_ones(tutorial):
    page, results, commands = TUTORIALS[tutorial]
    assert [command for _, command in commands] == page_commands(page)
    record = json.loads((REPO / results).read_text())
    assert [step["command"] for step in record["steps"].values()] == page_commands(page)
    assert all(step["returncode"] == 0 for step in record["steps"].values())
    assert record["command"] == f"python {SCRIPT} {tutorial} --json {results}"
    text = (REPO / page).read_text()
    assert f"<!-- fig {results} " in text, f"{page} quotes none of {results}'s figures"
    assert len(text.splitlines()) < 150, f"{page} is a tutorial: under 150 lines"


def test_the_training_tutorial_shows_its_runs_curve():
    picture = REPO / "benchmarks" / "tutorial" / "learning_curves.png"
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and picture.stat().st_size < 150_000
    assert "](tutorial/learning_curves.png)" in (REPO / "docs" / "tutorial-train.md").read_text()
    hooks = load_script("docs/hooks.py")
    assert hooks.PAGES["tutorial/learning_curves.png"] == "benchmarks/tutorial/learning_curves.png"
    train = json.loads((REPO / "benchmarks" / "tutorial" / "train.json").read_text())["train"]
    assert train["last"] == train["curve"][-1] and train["games"] == train["last"]["games"]


def test_the_shipped_boards_addition_is_sized_as_recorded():
    module = tutorials
    record = json.loads((REPO / "benchmarks" / "tutorial" / "leaderboard.json").read_text())
    assert module.shipped_addition() == record["shipped"]
    assert record["shipped"]["games"] == 4 * record["shipped"]["matches"] >= record["shipped"]["searcher_games"]
    assert f"--pool {module.SHIPPED} --add {module.AGENT}" in (REPO / "docs" / "tutorial-leaderboard.md").read_text()


def _fake_outputs(folder: Path) -> None:
    """What the pages' commands leave behind, as small as each script reads it."""
    run = folder / "runs" / "vs-smart"
    run.mkdir(parents=True)
    (run / "metrics.csv").write_text("batch,games,opponent,eval_games,win_rate,mean_score\n"
                                     "0,0,smart,200,0.05,-5\n10,640,smart,200,0.1,-3\n")
    (run / "train_log.csv").write_text("batch,elapsed_s\n1,2.0\n2,5.0\n3,7.5\n")
    (run / "learning_curves.png").write_bytes(b"png")
    evaluation = {"agent": "A", "opponent": "smart", "games": 400, "seed": 0, "win_rate": 0.1, "win_rate_ci": [0, 0.2],
                  "mean_score": -3.0, "mean_score_ci": [-4, -2], "command": "big2 eval"}
    (run / "eval.json").write_text(json.dumps(evaluation))
    (folder / "search32-vs-smart.json").write_text(json.dumps(evaluation))
    row = {"agent": "smart", "points": 1.0, "points_ci": [0, 2], "plackett_luce": 0.1, "plackett_luce_ci": [0, 0.2],
           "games": 40, "win_rate": 0.3, "win_rate_ci": [0.2, 0.4], "mean_score": 1.0, "mean_score_ci": [0, 2]}
    for board in ("board", "board+search32"):
        (folder / "runs" / board).mkdir()
        (folder / "runs" / board / "ratings.json").write_text(json.dumps([row]))


@pytest.mark.parametrize("tutorial", TUTORIALS)
def test_it_runs_each_command_in_one_folder_and_records_it(tutorial, tmp_path, monkeypatch):
    module = load_script(SCRIPT)
    commands = TUTORIALS[tutorial][2]
    ran = []

    def fake_run(argv, cwd, capture_output, text, env=None):
        ran.append((argv, Path(cwd)))
        assert env is None or env["PYTHONPATH"].split(os.pathsep)[0] == str(REPO)  # this checkout's big2 runs
        if len(ran) == 2:  # the first command (ran[0] read the commit) leaves what all of them would
            _fake_outputs(Path(cwd))
        out = "finished: 10 batches; wall time 10 s (8 s training, 2 s evaluation)\nmodel: x\n"
        return SimpleNamespace(returncode=0, stdout=out, stderr="")

    monkeypatch.setattr(subprocess, "run", fake_run)
    out = tmp_path / "record.json"
    argv = [tutorial, "--dir", str(tmp_path), "--json", str(out)]
    if tutorial == "train":
        argv += ["--picture", str(tmp_path / "curve.png")]
    assert module.main(argv) == 0
    for (argv_, cwd), (_, command) in zip(ran[1:], commands):  # ran[0] read the commit
        words = command.split()[1:]
        assert argv_[-len(words):] == words and argv_[1:3] == ["-m", "big2_env.cli"] and cwd == tmp_path, (argv_, command)
    record = json.loads(out.read_text())
    assert [step["command"] for step in record["steps"].values()] == [command for _, command in commands]
    assert "output" not in json.dumps(record["steps"])
    assert record["command"].startswith(f"python {SCRIPT} {tutorial} --json ")
    if tutorial == "train":
        assert record["train"]["last"] == record["train"]["curve"][-1] and (tmp_path / "curve.png").read_bytes() == b"png"
    else:
        assert set(record) >= {"eval", "board", "added", "shipped"} and "last_line" not in json.dumps(record["steps"])
