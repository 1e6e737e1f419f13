"""What a newcomer meets in the first hour: clear errors instead of tracebacks, warnings where
rules or flags are ignored, a word while the core compiles, help and pages that agree."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from pathlib import Path

import pytest

from big2_env import cli
from big2_env.errors import LoadError
from big2_env.evaluation.loading import load_agent

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()
GETTING_STARTED = (REPO / "docs" / "getting-started.md").read_text()


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = cli.main(argv)
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ big2 train --out, and its errors' names
def test_train_out_an_existing_file_is_a_clear_error(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("x")
    code, _, err = _run(["train", "--batches", "1", "--out", str(afile)], capsys)
    assert code == 2 and "is a file, not a folder" in err and "Traceback" not in err


def test_train_out_through_a_file_is_a_clear_error(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("x")
    code, _, err = _run(["train", "--batches", "1", "--out", str(afile / "sub")], capsys)
    assert code == 2 and "a part of that path is a file" in err


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc, where no folder can be made")
def test_train_out_where_no_folder_can_be_made_is_a_clear_error(capsys):
    code, _, err = _run(["train", "--batches", "1", "--out", "/proc/big2-no-such/run"], capsys)
    assert code == 2 and "cannot make that folder" in err


def test_train_errors_name_the_flag_not_the_field(tmp_path, capsys):
    code, _, err = _run(["train", "--games-per-batch", "0", "--out", str(tmp_path / "run")], capsys)
    assert code == 2 and "--games-per-batch must be" in err and " games_per_batch must" not in err


# ------------------------------------------------------------------ flags' own messages
def test_a_bad_seat_names_the_flag_once(capsys):
    code, _, err = _run(["play", "--seat", "5"], capsys)
    error = err.strip().splitlines()[-1]  # the usage line above it names every flag
    assert code == 2 and error.count("--seat") == 1 and "must be 0, 1, 2 or 3" in error


def test_serve_lists_every_agent_form_as_eval_does(capsys):
    code, _, err = _run(["serve", "--opponents", "foo", "--no-browser"], capsys)
    assert code == 2
    for form in ("ismcts", "fast", "charlesworth:PATH", "pretrained-charlesworth", ".zip"):
        assert form in err, form


def test_charlesworth_names_the_missing_file_before_the_rules():
    with pytest.raises(LoadError, match="cannot read his parameter file '/nonexistent': no such file"):
        load_agent("charlesworth:/nonexistent")  # under the default (paper) rules


# ------------------------------------------------------------------ big2 play --replay, big2 demo's seed
def test_play_refuses_an_unwritable_replay_before_playing(tmp_path, capsys, monkeypatch):
    (tmp_path / "afile").write_text("x")
    monkeypatch.setattr("builtins.input", lambda *_: pytest.fail("a game was started"))
    code, out, err = _run(["play", "--seed", "1", "--replay", str(tmp_path / "afile" / "x.json")], capsys)
    assert code == 2 and "is a file, not a folder" in err and "Big 2:" not in out


def test_demo_without_a_seed_prints_one_that_replays_the_game(capsys):
    code, out, _ = _run(["demo", "--view", "none"], capsys)
    first, rest = out.split("\n", 1)
    seed = int(re.fullmatch(r"seed (\d+) \(big2 demo --seed \1 replays this game\)", first).group(1))
    assert code == 0
    assert _run(["demo", "--view", "none", "--seed", str(seed)], capsys)[1] == rest


# ------------------------------------------------------------------ rules and flags that change nothing warn
@pytest.mark.parametrize("spec, rules, trained", [("pretrained", "charlesworth", "paper"),
                                                   ("pretrained-charlesworth", "paper", "charlesworth")])
def test_a_network_under_other_rules_than_its_training_warns(spec, rules, trained, capsys):
    pytest.importorskip("torch")
    code, _, err = _run(["eval", "--agent", spec, "--opponent", "random", "--rules", rules, "--games", "1",
                         "--no-progress"], capsys)
    assert code == 0 and f"warning: --agent {spec} was trained under the {trained!r} rules" in err


def test_a_network_under_its_own_rules_does_not_warn(capsys):
    pytest.importorskip("torch")
    code, _, err = _run(["eval", "--agent", "pretrained-charlesworth", "--opponent", "random", "--rules",
                         "charlesworth", "--games", "1", "--no-progress"], capsys)
    assert code == 0 and "warning" not in err


def _model_file(path: Path, rules: str | None) -> Path:
    """The shipped network's file, saying it was trained under ``rules`` (or saying nothing)."""
    torch = pytest.importorskip("torch")
    data = torch.load(REPO / "agents" / "data" / "pretrained.pt", map_location="cpu", weights_only=True)
    data["info"] = {k: v for k, v in data["info"].items() if k != "rules"} | ({"rules": rules} if rules else {})
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(data, path)
    return path


@pytest.mark.parametrize("form", ["file", "run folder"])
def test_a_model_file_under_other_rules_than_its_training_warns(form, tmp_path, capsys):
    model = _model_file(tmp_path / "run" / "model.pt", "charlesworth")
    spec = str(model if form == "file" else model.parent)
    code, _, err = _run(["eval", "--agent", spec, "--opponent", "random", "--rules", "paper", "--games", "1",
                         "--no-progress"], capsys)
    assert code == 0 and f"warning: --agent {spec} was trained under the 'charlesworth' rules" in err
    code, _, err = _run(["eval", "--agent", "random", "--opponent", spec, "--rules", "charlesworth", "--games", "1",
                         "--no-progress"], capsys)
    assert code == 0 and "warning" not in err  # its own rules


def test_a_model_file_that_names_no_rules_does_not_warn(tmp_path, capsys):
    spec = str(_model_file(tmp_path / "old.pt", None))
    code, _, err = _run(["eval", "--agent", spec, "--opponent", "random", "--rules", "charlesworth", "--games", "1",
                         "--no-progress"], capsys)
    assert code == 0 and "warning" not in err


def test_a_checkpoint_names_its_rules_in_its_args():
    pytest.importorskip("torch")
    from agents.checkpoint import rules_of

    assert rules_of({"args": {"rules": "charlesworth"}}) == "charlesworth"
    assert rules_of({"info": {"rules": "paper"}, "args": {"rules": "charlesworth"}}) == "paper"
    assert rules_of({"info": {"algo": "ppo"}}) is None


def test_argmax_for_agents_without_one_warns(capsys):
    code, _, err = _run(["eval", "--agent", "search:4", "--opponent", "random", "--games", "1", "--argmax",
                         "--no-progress"], capsys)
    assert code == 0 and "warning: --argmax changes nothing here" in err


# ------------------------------------------------------------------ the first run's compile is announced
def test_the_command_line_says_when_it_compiles_and_how_long(monkeypatch, capsys):
    numba = pytest.importorskip("numba")

    def kernel(factor):  # a fresh function that passes for one of big2_env's kernels (never cached)
        def times(x):
            return x * factor

        times.__module__ = "big2_env.probe"
        return numba.njit(times)

    def compiling(args):  # stands for a first run: the core's kernels compile
        kernel(2)(3)
        kernel(3)(3)
        return 0

    monkeypatch.setattr(cli, "cmd_rules", compiling)
    code, _, err = _run(["rules"], capsys)
    assert code == 0
    assert err.count("big2: compiling the game's core") == 1  # once, however many kernels compile
    assert re.search(r"big2: compiling took \d+\.\d s \(cached now", err)


def test_nothing_is_said_when_nothing_compiles(capsys):
    code, _, err = _run(["rules"], capsys)
    assert code == 0 and "compil" not in err


# ------------------------------------------------------------------ the pages agree with the code
def test_the_summaries_name_every_agent_form_and_algo():
    pytest.importorskip("torch")
    from agents.config import ALGOS

    for page, text in (("README.md", README), ("docs/getting-started.md", GETTING_STARTED)):
        for form in ("ismcts", "fast", "search"):
            assert f"`{form}" in text or f"| {form}" in text, f"{page} does not name the agent {form}"
    synopsis = re.search(r"big2 train --algo (\S+)", GETTING_STARTED).group(1).split("|")
    assert synopsis == list(ALGOS), synopsis


_NUMBERS = {"four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}


def test_the_readme_counts_the_rule_options():
    from big2_env.engine.rules import RULE_MEANINGS

    word = re.search(r"(\w+) rule options", README).group(1).lower()
    assert _NUMBERS[word] == len(RULE_MEANINGS)


CPU_INDEX = "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
"""The CPU build of the pinned torch, as PyTorch's install page gives it (issue 85)."""


def test_the_install_line_says_which_torch_build_the_pin_gets():
    # a plain torch==2.13.0 is the CPU build only where a mirror holds a +cpu wheel: from the public index on
    # Linux it is the CUDA build with its nvidia-* packages. The pages say so and give PyTorch's CPU index;
    # no sentence of the set-up calls the plain pin the CPU build (or the way to avoid CUDA).
    for page, text in (("README.md", README), ("docs/getting-started.md", GETTING_STARTED)):
        setup = text.split("## Set up and run", 1)[1].split("\n## ", 1)[0]
        assert f"`{CPU_INDEX}`" in setup, f"{page}: the set-up does not give PyTorch's CPU index"
        assert re.search(r"plain `pip install torch==2\.13\.0`[^.]*?\bCUDA build\b[^.]*?`nvidia-\*`", setup), (
            f"{page}: the set-up does not say that a plain torch pin pulls the CUDA build and nvidia-* packages")
        for piece in re.split(r"(?<=[.;)])\s+|\n(?=#)", setup):
            if "CPU" in piece:
                assert "download.pytorch.org/whl/cpu" in piece or "mirror" in piece, (
                    f"{page}: {' '.join(piece.split())!r} ties the CPU build to the plain pin")


def test_the_core_dependencies_are_all_named():
    dependencies = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    names = [re.match(r"[A-Za-z0-9_.-]+", d).group(0) for d in dependencies]
    for page, text in (("README.md", README), ("docs/getting-started.md", GETTING_STARTED)):
        sentence = re.search(r"The core needs only (.*?);", text, re.S).group(1)
        for name in names:
            assert f"`{name}`" in sentence, f"{page}: the core's dependencies omit {name}"


def test_the_reproduction_report_does_not_call_the_paper_settings_the_defaults():
    for path in (REPO / "benchmarks" / "reproduce_paper.py", REPO / "benchmarks" / "reproduction" / "REPORT.md"):
        assert "(`big2 train` defaults)" not in path.read_text(), path


def test_replaced_agents_are_marked_as_history_with_dates():
    text = (REPO / "agents" / "data" / "README.md").read_text()
    for heading in re.findall(r"^#+ .*(?:replaced|shipped before|[Ll]ater experiments).*$", text, re.M):
        assert heading.startswith(("## History", "### History")) and re.search(r"\d{4}-\d{2}-\d{2}", heading), heading
    assert "The figures below\nthis line, until the next heading" not in text


# ------------------------------------------------------------------ big2 eval --json: the figures as a results file
def test_eval_json_writes_the_figures_and_the_command_that_repeats_them(tmp_path, capsys):
    out = tmp_path / "eval.json"
    code, printed, _ = _run(["eval", "--agent", "smart", "--opponent", "greedy", "--games", "6", "--seed", "5",
                             "--no-progress", "--json", str(out)], capsys)
    assert code == 0 and f"figures written to {out}" in printed
    data = json.loads(out.read_text())
    assert (data["agent"], data["opponent"], data["rules"], data["games"], data["seed"]) == ("smart", "greedy", "paper", 6, 5)
    assert data["win_rate_ci"][0] <= data["win_rate"] <= data["win_rate_ci"][1]
    assert data["mean_score_ci"][0] <= data["mean_score"] <= data["mean_score_ci"][1]
    assert f"{data['win_rate']:.1%}" in printed and f"{data['mean_score']:+.2f}" in printed
    command = shlex.split(data["command"])
    assert command[:2] == ["big2", "eval"]
    again = tmp_path / "again.json"
    assert _run(command[1:] + ["--no-progress", "--json", str(again)], capsys)[0] == 0
    repeated = json.loads(again.read_text())
    assert all(repeated[key] == data[key] for key in ("win_rate", "win_rate_ci", "mean_score", "mean_score_ci", "command"))


def test_eval_json_of_one_game_is_strict_json(tmp_path, capsys):
    out = tmp_path / "one.json"
    assert _run(["eval", "--agent", "smart", "--opponent", "random", "--games", "1", "--no-progress", "--json",
                 str(out)], capsys)[0] == 0
    data = json.loads(out.read_text(), parse_constant=lambda c: pytest.fail(f"{c} in strict JSON"))
    assert data["mean_score_ci"] == [None, None]


def test_eval_json_to_an_unwritable_path_fails_before_the_games(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    code, out, err = _run(["eval", "--agent", "smart", "--opponent", "random", "--games", "1", "--no-progress",
                           "--json", str(tmp_path / "afile" / "x.json")], capsys)
    assert code == 2 and "cannot write the figures" in err and "is a file, not a folder" in err and "win rate" not in out


@pytest.mark.parametrize("folder, spec", [("learner/paper_rules", "pretrained"), ("long", "default_recipe")])
def test_the_shipped_networks_figures_are_what_big2_eval_json_wrote(folder, spec):
    for opponent in ("smart", "greedy", "random"):
        data = json.loads((REPO / "experiments" / "results" / folder / f"{spec}_eval_{opponent}.json").read_text())
        command = shlex.split(data["command"])
        assert command[:2] == ["big2", "eval"] and "--argmax" in command and data["argmax"] is True
        flags = dict(zip(command[2::2], command[3::2]))
        assert (flags["--agent"], flags["--opponent"], int(flags["--games"]), int(flags["--seed"])) == (
            data["agent"], opponent, data["games"], data["seed"])


def test_the_test_counts_are_read_from_the_setup_run():
    # the counts and times come from benchmarks/setup/times.json (dated there), through figure tags the
    # figures check keeps equal to the file; no page types a count of its own
    testing = (REPO / "docs" / "testing.md").read_text()
    tag = r"<!-- fig benchmarks/setup/times\.json (tests\.(?:all|quick)) ,d -->"
    assert set(re.findall(tag, README)) == set() and set(re.findall(tag, testing)) == {"tests.all", "tests.quick"}
    untagged = re.sub(r"<!-- fig .*?<!-- /fig -->", "", testing + README, flags=re.S)
    typed = re.findall(r"\d[\d,]* tests (?:when counted|collected)|(?:about|the other) \d[\d,]* tests", untagged)
    assert not typed, f"test counts typed into the pages: {typed}"
