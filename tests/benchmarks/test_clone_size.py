"""``benchmarks/setup_time.py --measure clone``: a full and a shallow clone measured, on a small repository built here."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.scripts import load_script

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, check=True,
                   capture_output=True)


def test_a_shallow_clone_leaves_the_old_commits_behind(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    rng = random.Random(0)
    (repo / "big.bin").write_bytes(rng.randbytes(1 << 20))  # incompressible: the pack keeps its size
    git(repo, "add", "big.bin")
    git(repo, "commit", "-qm", "a finished run's checkpoint")
    git(repo, "rm", "-q", "big.bin")
    (repo / "code.py").write_text("print('hello')\n")
    git(repo, "add", "code.py")
    git(repo, "commit", "-qm", "the checkpoint leaves the tree")
    out = tmp_path / "sizes.json"
    assert load_script("benchmarks/setup_time.py").main(["--measure", "clone", "--repo", str(repo), "--json", str(out)]) == 0
    sizes = json.loads(out.read_text())
    assert sizes["full"]["pack_mib"] > 1.0 > 0.1 > sizes["shallow"]["pack_mib"]  # the old commit's megabyte
    for clone in ("full", "shallow"):
        assert sizes[clone]["files"] == 1
        assert sizes[clone]["checkout_mib"] * (1 << 20) == pytest.approx(len("print('hello')\n"))
        assert sizes[clone]["git_mib"] >= sizes[clone]["pack_mib"]
    assert len(sizes["commit"]) == 40
    assert sizes["command"] == f"python benchmarks/setup_time.py --measure clone --json {out}"


def test_a_folder_that_is_not_a_repository_is_refused_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = load_script("benchmarks/setup_time.py")
    out = tmp_path / "sizes.json"
    for repo in (tmp_path / "plain", tmp_path / "absent"):
        if repo.name == "plain":
            repo.mkdir()
        with pytest.raises(SystemExit) as stopped:
            script.main(["--measure", "clone", "--repo", str(repo), "--json", str(out)])
        assert stopped.value.code == 2
        assert ("git failed" if repo.name == "plain" else "is not a folder") in capsys.readouterr().err
    assert not out.exists()
