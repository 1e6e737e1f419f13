"""The layout: no import circles, big2_env never imports agents, layers import only downwards,
and the learners reach the environment through entry points (big2_env.plugins)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tools.imports import check, main
from big2_env.plugins import AGENT_SPECS_GROUP, COMMANDS_GROUP, AgentSpecs, agent_spec_plugins, entry_points

REPO = Path(__file__).resolve().parents[2]


def test_the_repository_has_no_circle_no_import_of_agents_and_no_upward_import():
    report = check(REPO)
    assert report.ok, report.text()
    assert report.modules > 40 and report.edges > 100  # it did read the packages


def test_the_script_exits_0_on_the_repository(capsys):
    assert main(["--root", str(REPO)]) == 0
    assert "no import circles" in capsys.readouterr().out


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def _minimal(extra: dict[str, str]) -> dict[str, str]:
    files = {
        "big2_env/__init__.py": "",
        "big2_env/engine/__init__.py": "",
        "big2_env/engine/game.py": "",
        "big2_env/players/__init__.py": "",
        "big2_env/players/smart.py": "from ..engine import game\n",
        "agents/__init__.py": "",
        "agents/a.py": "import big2_env.players.smart\n",
    }
    files.update(extra)
    return files


def test_a_clean_tree_passes(tmp_path):
    assert check(_tree(tmp_path, _minimal({}))).ok


def test_a_circle_through_an_import_inside_a_function_is_found(tmp_path):
    root = _tree(tmp_path, _minimal({
        "agents/b.py": "from . import a\n",
        "agents/a.py": "def late():\n    from .b import thing\n",
    }))
    report = check(root)
    assert not report.ok and len(report.cycles) == 1
    assert {e.source for e in report.cycles[0]} == {"agents.a", "agents.b"}
    assert "import circle" in report.text() and "agents/a.py:2" in report.text()


def test_a_longer_circle_is_reported_as_a_path(tmp_path):
    root = _tree(tmp_path, _minimal({
        "agents/x.py": "from .y import f\n",
        "agents/y.py": "from .z import g\n",
        "agents/z.py": "if False:\n    import agents.x\n",
    }))
    (cycle,) = check(root).cycles
    assert [e.source for e in cycle] == ["agents.x", "agents.y", "agents.z"] and cycle[-1].target == "agents.x"


def test_an_import_of_agents_from_big2_env_is_forbidden(tmp_path):
    root = _tree(tmp_path, _minimal({"big2_env/engine/game.py": "def f():\n    import agents.a\n"}))
    report = check(root)
    assert [str(e.target) for e in report.forbidden] == ["agents.a"]
    assert not report.ok


def test_an_upward_import_between_layers_is_refused(tmp_path):
    root = _tree(tmp_path, _minimal({"big2_env/engine/game.py": "from ..players.smart import x\n"}))
    report = check(root)
    assert [(e.source, e.target) for e in report.upward] == [("big2_env.engine.game", "big2_env.players.smart")]
    assert report.cycles  # engine.game <-> players.smart is also a circle
    assert main(["--root", str(root)]) == 1


def test_a_collector_that_imports_a_learner_runs_back_up_agents_layers(tmp_path):
    root = _tree(tmp_path, _minimal({
        "agents/collect/__init__.py": "",
        "agents/collect/parallel.py": "from ..learners.ppo import minibatch_loss\n",
        "agents/learners/__init__.py": "",
        "agents/learners/ppo.py": "from ..collect import parallel\n",
    }))
    report = check(root)
    assert [(e.source, e.target) for e in report.upward] == [("agents.collect.parallel", "agents.learners.ppo")]
    assert "layer broken" in report.text()


def test_a_learner_may_import_a_collector_and_the_trainer_both(tmp_path):
    root = _tree(tmp_path, _minimal({
        "agents/collect/__init__.py": "",
        "agents/collect/parallel.py": "from ..network import Net\n",
        "agents/network.py": "",
        "agents/learners/__init__.py": "",
        "agents/learners/processes.py": "from ..collect.parallel import RolloutPool\n",
        "agents/trainer.py": "from .learners.processes import TrainHelpers\nfrom .collect import parallel\n",
    }))
    assert check(root).ok


def test_a_shared_module_imports_no_layer(tmp_path):
    root = _tree(tmp_path, _minimal({"big2_env/errors.py": "from .players import smart\n"}))
    assert [(e.source, e.target) for e in check(root).upward] == [("big2_env.errors", "big2_env.players.smart")]


def test_the_script_runs_as_a_module_from_the_checkout():
    done = subprocess.run([sys.executable, "-m", "tools.imports"], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no import circles" in done.stdout


# ------------------------------------------------------------------ plugins
def test_the_agents_package_registers_its_specs_and_commands():
    assert [ep.value for ep in entry_points(AGENT_SPECS_GROUP)] == ["agents.plugin:AGENT_SPECS"]
    assert {ep.name: ep.value for ep in entry_points(COMMANDS_GROUP)} == {
        "train": "agents.plugin:add_train_command",
        "plot": "agents.plugin:add_plot_command",
        "average": "agents.plugin:add_average_command",
    }
    (plugin,) = agent_spec_plugins()
    assert isinstance(plugin, AgentSpecs) and "pretrained" in plugin.describe


def test_the_plugin_leaves_other_specs_alone(tmp_path):
    (plugin,) = agent_spec_plugins()
    for spec in ("smart", "search:8", "model.zip", "nothing"):
        assert plugin.load(spec, rules=None, what="agent", seed=None) is None


def _without_torch(code: str) -> subprocess.CompletedProcess:
    script = "import sys; sys.modules['torch'] = None\n" + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=120)


def test_without_torch_big2_env_works_and_the_agents_commands_name_the_extra():
    done = _without_torch("""
        import big2_env
        from big2_env.cli import main
        from big2_env.evaluation import load_agent
        print(load_agent("smart").name)
        try:
            main(["train", "--batches", "1"])
        except SystemExit as exit:
            print("exit", exit.code)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == ["smart", "exit 2"]
    assert "training needs torch (pip install torch==2.13.0, then pip install -e '.[agents]')" in done.stderr


@pytest.mark.parametrize("module", ["big2_env", "big2_env.cli", "big2_env.evaluation.loading", "big2_env.envs.gym"])
def test_importing_big2_env_never_imports_agents(module):
    done = subprocess.run(
        [sys.executable, "-c", f"import sys, {module}; print(sorted(m for m in sys.modules if m.split('.')[0] == 'agents'))"],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr


def test_a_broken_plugin_does_not_break_the_other_commands_or_specs(monkeypatch, capsys):
    import importlib.metadata

    import big2_env.plugins as plugins
    from big2_env.cli import main
    from big2_env.evaluation import load_agent

    broken = importlib.metadata.EntryPoint("wizard", "no_such_module.anywhere:add", COMMANDS_GROUP)
    broken_specs = importlib.metadata.EntryPoint("wizard", "no_such_module.anywhere:SPECS", AGENT_SPECS_GROUP)
    real = plugins.entry_points
    extra = {COMMANDS_GROUP: broken, AGENT_SPECS_GROUP: broken_specs}
    monkeypatch.setattr(plugins, "entry_points", lambda group: real(group) + [extra[group]])
    plugins.agent_spec_plugins.cache_clear()
    try:
        with pytest.warns(RuntimeWarning, match="'wizard' .* could not be imported"):
            assert load_agent("pretrained").name == "pretrained"  # the agents plugin still answers
        with pytest.raises(SystemExit) as exit_info:
            main(["wizard"])
        assert exit_info.value.code == 2
        assert "big2 wizard: error: this command's plugin (no_such_module.anywhere:add) could not be imported" in (
            capsys.readouterr().err
        )
        assert main(["rules"]) == 0
    finally:
        plugins.agent_spec_plugins.cache_clear()
