"""``benchmarks/setup_time.py``: it follows the README's set-up, reads pytest's counts right, and records
every step (the processes it would start are replaced here by canned outputs)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.scripts import REPO, load_script

module = load_script("benchmarks/setup_time.py")


def readme_setup() -> list[str]:
    """The commands of the README's first ``bash`` block, split at ``&&``, comments dropped."""
    text = (REPO / "README.md").read_text()
    block = re.search(r"```bash\n(.*?)```", text[text.index("## Set up and run"):], re.S)
    assert block, "the README's set-up section has no bash block"
    commands = []
    for line in block[1].splitlines():
        commands += [part.strip() for part in line.split("#", 1)[0].split("&&") if part.strip()]
    return commands


def test_the_steps_are_the_readmes_set_up():
    assert [command for _, command in module.STEPS] == readme_setup()
    assert "-m \"not slow\" -n 2" in module.QUICK and module.QUICK in (REPO / "README.md").read_text().replace("`", "")


@pytest.mark.parametrize("line, counts", [
    ("=========== 2442 passed, 8 skipped, 6 warnings in 925.25s (0:15:25) ============",
     {"passed": 2442, "skipped": 8, "warning": 6}),
    ("==== 157 passed, 3 skipped, 1 xfailed, 5 warnings in 15.40s ====",
     {"passed": 157, "skipped": 3, "xfailed": 1, "warning": 5}),
    ("== 3 failed, 10 passed, 1 error in 2.00s ==", {"failed": 3, "passed": 10, "error": 1}),
])
def test_suite_counts_reads_pytests_last_summary(line, counts):
    assert module.suite_counts(f"collected 12 items\n....\n{line}\n") == counts


def test_suite_counts_refuses_output_without_a_summary():
    with pytest.raises(ValueError, match="no pytest summary"):
        module.suite_counts("ImportError: no module named big2_env\n")


def test_skipped_lists_the_reasons_pytest_gives():
    output = ("=== short test summary info ===\n"
              "SKIPPED [2] tests/docs/test_examples_rllib.py:16: RLlib is not installed: its tests need the [rllib] extra\n"
              "SKIPPED [1] tests/agents/test_agents_workers.py:188: needs a CUDA GPU\n"
              "XFAIL tests/test_x.py::test_y - a known limit\n"
              "== 10 passed, 3 skipped in 1.00s ==\n")
    assert module.skipped(output) == [
        {"count": 2, "file": "tests/docs/test_examples_rllib.py",
         "reason": "RLlib is not installed: its tests need the [rllib] extra"},
        {"count": 1, "file": "tests/agents/test_agents_workers.py", "reason": "needs a CUDA GPU"},
    ]


def test_failures_lists_the_failed_tests_and_their_messages():
    output = ("SKIPPED [1] tests/test_gpu.py:3: needs a CUDA GPU\n"
              "FAILED tests/test_a.py::test_x[3] - AssertionError: assert 1 == 2\n"
              "ERROR tests/test_b.py - ModuleNotFoundError: No module named 'mkdocs'\n"
              "== 1 failed, 10 passed, 1 skipped, 1 error in 1.00s ==\n")
    assert module.failures(output) == [
        {"kind": "FAILED", "test": "tests/test_a.py::test_x[3]", "message": "AssertionError: assert 1 == 2"},
        {"kind": "ERROR", "test": "tests/test_b.py", "message": "ModuleNotFoundError: No module named 'mkdocs'"},
    ]
    assert module.failures("== 10 passed in 1.00s ==\n") == []


@pytest.mark.parametrize("output, selected", [
    ("tests/test_a.py::test_x\n\n2446 tests collected in 12.31s\n", 2446),
    ("tests/test_a.py::test_x\n\n1768/2446 tests collected (678 deselected) in 11.02s\n", 1768),
    ("1 test collected in 0.1s\n", 1),
])
def test_collected_reads_the_selected_count(output, selected):
    assert module.collected(output) == selected


def test_a_run_records_every_step(tmp_path: Path, monkeypatch):
    said = {
        "demo_cold": "big2: compiling took 12.3 s (cached now: later runs skip it)\nseat 0 wins\n",
        "collect_all": "2446 tests collected in 12.31s\n",
        "collect_quick": "1768/2446 tests collected (678 deselected) in 11.02s\n",
        "suite_quick": "== 1760 passed, 8 skipped in 240.00s ==\n",
        "suite_full": "SKIPPED [8] tests/test_gpu.py:3: needs a CUDA GPU\n== 2438 passed, 8 skipped in 925.25s ==\n",
    }
    started: list[list[str]] = []

    def execute(self, argv, cwd):
        started.append(argv)
        command = " ".join(argv)
        for key, text in (("collect_quick", "--collect-only -q -m"), ("collect_all", "--collect-only"),
                          ("suite_quick", "-n 2"), ("demo_cold", "big2 demo")):
            if text in command:  # the second demo finds the core compiled
                return 0, "seat 0 wins\n" if key == "demo_cold" and "demo_cold" in self.times else said[key]
        if command == "python -m pytest":
            return 0, said["suite_full"]
        return 0, ""

    monkeypatch.setattr(module.Runner, "execute", execute)
    out = tmp_path / "times.json"
    assert module.main(["--suite", "both", "--keep", str(tmp_path / "scratch"), "--json", str(out)]) == 0
    record = json.loads(out.read_text())
    assert list(record["steps"]) == ["clone", "venv", "install", "demo_cold", "demo_warm", "torch", "test_extra",
                                     "collect_all", "collect_quick", "suite_quick", "suite_full"]
    assert record["tests"] == {"all": 2446, "quick": 1768}
    assert record["suites"]["quick"] == {"passed": 1760, "skipped": 8}
    assert record["suites"]["full"] == {"passed": 2438, "skipped": 8}
    assert record["failures"] == {"quick": [], "full": []}
    assert record["skips"] == {"quick": [], "full": [{"count": 8, "file": "tests/test_gpu.py", "reason": "needs a CUDA GPU"}]}
    assert record["demo_says_it_compiled"] is True
    assert record["pip_cache"] is False
    assert set(record["minutes"]) == {"install_and_demo", "test_installs", "suite_quick", "suite_full"}
    # the README's words, run as written: pip, big2 and python come from the new environment's PATH
    assert ["pip", "install", "-e", "."] in started and ["big2", "demo", "--seed", "0"] in started
    assert ["pip", "install", "-e", ".[test]"] in started and ["python", "-m", "pytest"] in started
    assert started[0][:2] == ["git", "clone"] and "--depth" in started[0]


def test_a_failing_suite_makes_the_run_fail(tmp_path: Path, monkeypatch):
    def execute(self, argv, cwd):
        command = " ".join(argv)
        if "--collect-only" in command:
            return 0, "10 tests collected in 1.0s\n"
        if command.startswith("python -m pytest"):
            return 1, "FAILED tests/test_a.py::test_x - assert 0\n== 1 failed, 9 passed in 3.00s ==\n"
        return 0, ""

    monkeypatch.setattr(module.Runner, "execute", execute)
    out = tmp_path / "times.json"
    assert module.main(["--suite", "full", "--keep", str(tmp_path / "scratch"), "--json", str(out)]) == 1
    assert json.loads(out.read_text())["failures"] == {
        "full": [{"kind": "FAILED", "test": "tests/test_a.py::test_x", "message": "assert 0"}]}


def test_the_environment_is_the_new_one(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/somewhere/else")
    monkeypatch.setenv("NUMBA_CACHE_DIR", "/a/warm/cache")
    monkeypatch.delenv("PIP_NO_CACHE_DIR", raising=False)
    runner = module.Runner(tmp_path / "big2-env", pip_cache=False)
    assert "PYTHONPATH" not in runner.env and "NUMBA_CACHE_DIR" not in runner.env
    assert runner.env["PATH"].startswith(str(tmp_path / "big2-env" / ".venv" / "bin"))
    assert runner.env["VIRTUAL_ENV"] == str(tmp_path / "big2-env" / ".venv")
    assert runner.env["PIP_NO_CACHE_DIR"] == "1"
    assert "PIP_NO_CACHE_DIR" not in module.Runner(tmp_path / "x", pip_cache=True).env


def test_the_stored_run_is_the_one_the_testing_page_describes():
    # the testing page quotes benchmarks/setup/times.json and says that no test failed in it
    record = json.loads((REPO / "benchmarks" / "setup" / "times.json").read_text())
    assert record["steps"]["install"]["command"] == "pip install -e ." and record["pip_cache"] is False
    assert set(record["suites"]) == {"quick", "full"}
    for name, counts in record["suites"].items():
        assert not counts.get("failed") and not counts.get("error") and not record["failures"][name], name
    assert "none failed" in (REPO / "docs" / "testing.md").read_text()
    assert sum(skip["count"] for skip in record["skips"]["full"]) == record["suites"]["full"]["skipped"]
