"""``benchmarks/setup_time.py --measure quick-train``: it times the README's short training run as written, and the README
quotes what it wrote (the processes it would start are replaced here by a stub)."""

from __future__ import annotations

import json
import re
import subprocess
from types import SimpleNamespace

from tests.scripts import REPO, load_script

module = load_script("benchmarks/setup_time.py")
RESULTS = REPO / "benchmarks" / "setup" / "quick_train.json"


def readme_training() -> list[str]:
    """The commands of the README's ``bash`` block that trains, split at ``&&``, comments dropped."""
    text = (REPO / "README.md").read_text()
    block = next(b for b in re.findall(r"```bash\n(.*?)```", text, re.S) if "big2 train" in b)
    return [part.strip() for line in block.splitlines() for part in line.split("#", 1)[0].split("&&") if part.strip()]


def test_the_commands_are_the_readmes_and_so_are_the_recorded_ones():
    assert [command for _, command in module.TRAIN_COMMANDS] == readme_training()
    record = json.loads(RESULTS.read_text())
    assert [step["command"] for step in record["steps"].values()] == readme_training()
    assert all(step["returncode"] == 0 for step in record["steps"].values())
    assert record["seconds"] == round(sum(step["seconds"] for step in record["steps"].values()), 1)
    # the README states the time through a figure tag on that file, not typed by hand
    readme = (REPO / "README.md").read_text()
    assert "<!-- fig benchmarks/setup/quick_train.json steps.train.seconds .0f -->" in readme
    assert "about 2 minutes" not in readme


def test_it_times_each_command_in_a_scratch_folder_and_writes_the_record(tmp_path, monkeypatch):
    ran = []

    def fake_run(argv, cwd, capture_output, text):
        ran.append((argv, cwd))
        return SimpleNamespace(returncode=0, stdout="done\n", stderr="")

    monkeypatch.setattr(subprocess, "run", fake_run)
    out = tmp_path / "quick.json"
    assert module.main(["--measure", "quick-train", "--json", str(out)]) == 0
    record = json.loads(out.read_text())
    assert list(record["steps"]) == ["train", "plot", "eval"]
    for (argv, _), (_, command) in zip(ran[1:], module.TRAIN_COMMANDS):  # ran[0] read the commit
        words = command.split()[1:]
        assert argv[-len(words):] == words, (argv, command)
    assert len({cwd for _, cwd in ran[1:]}) == 1 and all(s["last_line"] == "done" for s in record["steps"].values())
    assert record["command"].startswith("python benchmarks/setup_time.py --measure quick-train --json ")
