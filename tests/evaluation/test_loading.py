"""big2_env.evaluation.loading: one resolver for every agent spec, and SB3 files loaded without unpickling.

The helpers at the top (tiny network files, genuine and crafted SB3 zips) are reused by
test_cli.py, test_cli_play.py, test_evaluation.py and test_sb3_adapter.py.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import shlex
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

from big2_env import Game, Rules
from big2_env.errors import LoadError, MissingDependencyError, UntrustedModelError
from big2_env.evaluation.loading import load_agent
from big2_env.players.sb3 import load_sb3_model
from big2_env.observations.decision import observation_dict
from big2_env.players.greedy import GreedyPolicy
from big2_env.players.smart import SmartPolicy

SMALL = {"card_dim": 16, "hand_heads": 2, "hand_ff": 32, "field_dim": 16, "count_dim": 16, "state_dim": 32, "state_ff": 64,
         "action_hidden": 32, "action_dim": 16, "value_hidden": 32}


# ---------------------------------------------------------------- helpers
class Payload:
    """Unpickling this runs ``touch MARKER``: what a crafted model file would do."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (os.system, (f"touch {shlex.quote(self.marker)}",))


def payload_b64(marker: Path) -> str:
    return base64.b64encode(pickle.dumps(Payload(marker))).decode()


def write_zip(path: Path, data: dict, extra: dict[str, bytes] | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps(data))
        for name, raw in (extra or {}).items():
            archive.writestr(name, raw)
    return path


def malicious_zip(path: Path, marker: Path) -> Path:
    """The reproducer: a zip whose only data entry is a pickled "policy_class" that runs ``touch MARKER``."""
    return write_zip(path, {"policy_class": {":type:": "x", ":serialized:": payload_b64(marker)}})


def edit_zip(source: Path, target: Path, edit) -> Path:
    """A copy of an SB3 zip with its data JSON changed by ``edit(data)``."""
    with zipfile.ZipFile(source) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    data = json.loads(entries.pop("data"))
    edit(data)
    return write_zip(target, data, entries)


def save_maskable_ppo(path: Path, **kwargs) -> Path:
    pytest.importorskip("sb3_contrib")
    import gymnasium
    from sb3_contrib import MaskablePPO

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MaskablePPO("MultiInputPolicy", gymnasium.make("Big2-v0"), n_steps=64, batch_size=64, seed=0, device="cpu",
                            **kwargs)
        model.save(str(path))
    return path


def save_tiny_network(path: Path, seed: int = 0) -> Path:
    pytest.importorskip("torch")
    import torch

    from agents.checkpoint import save_policy
    from agents.config import NetworkConfig
    from agents.network import Big2Net

    torch.manual_seed(seed)
    return save_policy(path, Big2Net(NetworkConfig.from_dict(SMALL)), {"note": "test"})


def sample_batch(n: int = 12) -> dict[str, np.ndarray]:
    obs = [observation_dict(Game(seed=s), candidate_view=False) for s in range(n)]
    return {k: np.stack([o[k] for o in obs]) for k in ("observation", "action_mask", "history")}


def predictions(model, batch) -> list[int]:
    actions, _ = model.predict(batch, action_masks=batch["action_mask"].astype(bool), deterministic=True)
    return np.asarray(actions).tolist()


@pytest.fixture(scope="session")
def genuine_zip(tmp_path_factory) -> Path:
    """A genuine MaskablePPO save (trained for one short rollout, so its training state is pickled too)."""
    pytest.importorskip("sb3_contrib")
    import gymnasium
    from sb3_contrib import MaskablePPO

    path = tmp_path_factory.mktemp("sb3") / "trained.zip"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MaskablePPO("MultiInputPolicy", gymnasium.make("Big2-v0"), n_steps=64, batch_size=64, n_epochs=1, seed=0,
                            device="cpu")
        model.learn(64)
        model.save(str(path))
    return path


@pytest.fixture
def tiny_pt(tmp_path) -> Path:
    return save_tiny_network(tmp_path / "tiny.pt")


# ---------------------------------------------------------------- names and errors
def test_heuristic_names_seeded():
    smart = load_agent("smart", rules="charlesworth", seed=3)
    assert isinstance(smart, SmartPolicy) and smart.name == "smart" and smart.rules == Rules.preset("charlesworth")
    assert isinstance(load_agent("greedy"), GreedyPolicy)
    obs = observation_dict(Game(seed=1))
    first = [load_agent("random", seed=5).act(obs) for _ in range(2)]
    assert first[0] == first[1]


@pytest.mark.parametrize(
    "spec, message",
    [
        (
            "wizard",
            "agent must be one of greedy, random, search, smart, pretrained, pretrained-paper, pretrained-charlesworth, "
            "pretrained-default-recipe, a trained model file (.pt), a run folder",
        ),
        ("missing.pt", "agent: no such model file 'missing.pt'"),
        ("missing.zip", "agent: no such model file 'missing.zip'"),
        ("runs/missing", "no such model file or run folder 'runs/missing'"),
    ],
)
def test_unknown_specs_are_refused(spec, message):
    with pytest.raises(LoadError) as info:
        load_agent(spec)
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


def test_an_existing_file_that_is_no_model_is_named_as_such(tmp_path):
    notes = tmp_path / "README.md"
    notes.write_text("# notes\n")
    with pytest.raises(LoadError) as info:
        load_agent(str(notes))
    assert f"{str(notes)!r} is a file but not a model" in str(info.value) and "no such" not in str(info.value)


def test_the_spec_is_named_as_asked():
    with pytest.raises(LoadError, match=r"^--opponent must be one of"):
        load_agent("wizard", what="--opponent")
    with pytest.raises(LoadError, match="must be a policy name or a path"):
        load_agent(42)  # type: ignore[arg-type]


def test_a_folder_without_model_pt(tmp_path):
    with pytest.raises(LoadError, match=r"has no model.pt \(a `big2 train --out` folder"):
        load_agent(str(tmp_path))
    (tmp_path / "checkpoint.pt").write_bytes(b"")
    with pytest.raises(LoadError, match="to use its training checkpoint"):
        load_agent(tmp_path)


# ---------------------------------------------------------------- networks (.pt, folders, pretrained)
def test_pt_file_folder_and_pretrained(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from agents.policy import NetworkPolicy

    tiny = save_tiny_network(tmp_path / "tiny.pt")
    by_file = load_agent(str(tiny), rules={"scoring": "hk"}, seed=1)
    assert isinstance(by_file, NetworkPolicy) and by_file.name == "tiny" and by_file.rules == Rules(scoring="hk")
    run = tmp_path / "myrun"
    save_tiny_network(run / "model.pt")
    by_folder = load_agent(run)
    assert isinstance(by_folder, NetworkPolicy) and by_folder.name == "myrun"
    assert load_agent(run / "model.pt").name == "myrun/model"
    monkeypatch.setenv("BIG2_PRETRAINED", str(tiny))
    pretrained = load_agent("pretrained", seed=0)
    assert isinstance(pretrained, NetworkPolicy) and pretrained.name == "pretrained"
    obs = observation_dict(Game(seed=2))
    assert obs["action_mask"][pretrained.act(obs)] == 1


def test_corrupt_and_missing_network_files(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    import agents.pretrained as pretrained

    (tmp_path / "broken.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(LoadError, match="corrupt"):
        load_agent(str(tmp_path / "broken.pt"))
    monkeypatch.delenv("BIG2_PRETRAINED", raising=False)
    monkeypatch.setattr(pretrained, "PRETRAINED_PATH", tmp_path / "absent.pt")
    with pytest.raises(LoadError, match="no pretrained agent.*big2 train"):
        load_agent("pretrained")


def test_pt_pickle_payload_is_refused_without_running(tmp_path):
    """.pt files are read with torch.load(weights_only=True): a pickled __reduce__ payload is refused, never run."""
    torch = pytest.importorskip("torch")
    marker = tmp_path / "pwned"
    evil = tmp_path / "evil.pt"
    torch.save({"kind": "big2-agents/policy", "payload": Payload(marker)}, evil)
    with pytest.raises(LoadError, match="is not a big2 agents checkpoint") as info:
        load_agent(str(evil))
    assert "weights_only" not in str(info.value) and "trust" not in str(info.value)
    assert not marker.exists()


def test_missing_torch_names_the_pip_command(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "agents.checkpoint", None)  # import fails as without torch
    (tmp_path / "x.pt").write_bytes(b"")
    for spec in ("pretrained", "pretrained-paper", str(tmp_path / "x.pt")):
        with pytest.raises(MissingDependencyError, match=r"needs torch \(pip install torch") as info:
            load_agent(spec)
        assert isinstance(info.value, ImportError) and isinstance(info.value, LoadError)
        assert repr(spec) in str(info.value)  # names the spec that needs torch


def test_missing_sb3_names_the_pip_command(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)
    with pytest.raises(MissingDependencyError, match=r"needs sb3-contrib \(pip install -e '\.\[sb3\]'"):
        load_agent(str(write_zip(tmp_path / "m.zip", {})))


def test_core_imports_without_torch():
    """``import big2_env`` (CLI and loader included) needs no torch; the heuristics load without it."""
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import big2_env, big2_env.cli, big2_env.evaluation.loading, big2_env.evaluation\n"
        "from big2_env.evaluation.loading import load_agent, MissingDependencyError\n"
        "print(load_agent('smart').name)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('agents', 'stable_baselines3', 'sb3_contrib')))\n"
        "try:\n    load_agent('pretrained')\nexcept MissingDependencyError as err:\n    print(err)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:2] == ["smart", "[]"] and "needs torch (pip install torch" in lines[2]


# ---------------------------------------------------------------- SB3 zips: safe by default
def test_the_reproducer_is_refused_and_never_runs(tmp_path):
    pytest.importorskip("sb3_contrib")
    marker = tmp_path / "MARKER"
    evil = malicious_zip(tmp_path / "evil.zip", marker)
    with pytest.raises(UntrustedModelError) as info:
        load_agent(str(evil))
    message = str(info.value)
    assert "policy_class" in message and "--trust-model" in message and "trust=True" in message
    assert not marker.exists()


def test_trust_uses_sb3s_own_loader(tmp_path, genuine_zip, monkeypatch):
    """trust=True is MaskablePPO.load on the path, no substitutes: it does unpickle (the payload runs)."""
    from sb3_contrib import MaskablePPO

    marker = tmp_path / "MARKER"
    with pytest.raises(LoadError, match="could not load"):
        load_agent(str(malicious_zip(tmp_path / "evil.zip", marker)), trust=True)
    assert marker.exists(), "trust=True must go through SB3's normal (unpickling) path"
    calls = []
    original = MaskablePPO.load.__func__

    def spy(cls, path, *args, **kwargs):
        calls.append((path, kwargs))
        return original(cls, path, *args, **kwargs)

    monkeypatch.setattr(MaskablePPO, "load", classmethod(spy))
    load_agent(str(genuine_zip), trust=True)
    load_agent(str(genuine_zip))
    (trusted_path, trusted_kwargs), (safe_path, safe_kwargs) = calls
    assert trusted_path == str(genuine_zip) and "custom_objects" not in trusted_kwargs
    assert set(safe_kwargs["custom_objects"]) >= {"policy_class", "observation_space", "action_space", "lr_schedule",
                                                  "clip_range", "rollout_buffer_class", "_last_obs", "ep_info_buffer"}


def test_a_genuine_model_loads_without_trust(genuine_zip):
    safe = load_sb3_model(genuine_zip)
    trusted = load_sb3_model(genuine_zip, trust=True)
    batch = sample_batch()
    assert predictions(safe, batch) == predictions(trusted, batch)
    assert type(safe.policy) is type(trusted.policy)
    assert safe.observation_space == trusted.observation_space and safe.action_space == trusted.action_space
    policy = load_agent(str(genuine_zip))
    assert policy.name == "sb3(trained)"
    game = Game(seed=9)
    while not game.is_over:  # the loaded model plays whole games with legal moves only
        from big2_env.observations.paper import action_cards

        obs = observation_dict(game, candidate_view=False)
        action = policy.act(obs)
        assert obs["action_mask"][action] == 1
        game.play(action_cards(action, game.hand(game.current_player)))


def test_policy_kwargs_with_whitelisted_classes(tmp_path):
    import torch.nn as nn

    path = save_maskable_ppo(tmp_path / "relu.zip", policy_kwargs={"activation_fn": nn.ReLU, "net_arch": [32]})
    safe, trusted = load_sb3_model(path), load_sb3_model(path, trust=True)
    assert safe.policy_kwargs["activation_fn"] is nn.ReLU
    batch = sample_batch()
    assert predictions(safe, batch) == predictions(trusted, batch)


class Custom:  # an activation class no whitelist knows
    pass


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d, p: d.update(evil={":type:": "<class 'int'>", ":serialized:": p}), "its entry 'evil'"),
        (lambda d, p: d.update(policy_kwargs={":type:": "<class 'dict'>", ":serialized:": p,
                                              "activation_fn": f"<class '{__name__}.Custom'>"}),
         "policy_kwargs['activation_fn']"),
        (lambda d, p: d.update(policy_kwargs={":type:": "<class 'dict'>", ":serialized:": p, "net_arch": "[64]"}),
         "policy_kwargs['net_arch']"),
        (lambda d, p: d["policy_class"].update({"__module__": "evil.module", ":serialized:": p}),
         "not one of sb3-contrib's maskable policies"),
        (lambda d, p: d["policy_class"].update({"__init__": "<function ActorCriticPolicy.__init__ at 0x1>", ":serialized:": p}),
         "not one of sb3-contrib's maskable policies"),
        (lambda d, p: d["observation_space"].update({"spaces": "{'obs': Box(0, 1, (4,), float32)}", ":serialized:": p}),
         "not Big2-v0's"),
        (lambda d, p: d["action_space"].update({"n": "7", ":serialized:": p}), "action_space has n='7'"),
    ],
)
def test_crafted_entries_are_refused_and_never_run(tmp_path, genuine_zip, edit, message):
    marker = tmp_path / "MARKER"
    evil = edit_zip(genuine_zip, tmp_path / "evil.zip", lambda d: edit(d, payload_b64(marker)))
    with pytest.raises(UntrustedModelError) as info:
        load_sb3_model(evil)
    assert message in str(info.value)
    assert not marker.exists()


def test_pickles_behind_whitelisted_metadata_are_never_run(tmp_path, genuine_zip):
    """Every pickled entry replaced by a payload, the readable metadata kept: loads, and no payload runs."""
    marker = tmp_path / "MARKER"

    def poison(data):
        for item in data.values():
            if isinstance(item, dict) and ":serialized:" in item:
                item[":serialized:"] = payload_b64(marker)

    evil = edit_zip(genuine_zip, tmp_path / "evil.zip", poison)
    model = load_sb3_model(evil)
    batch = sample_batch(4)
    assert predictions(model, batch) == predictions(load_sb3_model(genuine_zip), batch)
    assert not marker.exists()


@pytest.mark.parametrize(
    "content, message",
    [(b"not a zip", "not a Stable-Baselines3 zip file"), (None, "no 'data' entry"), (b"PK-json", "not a JSON object")],
)
def test_foreign_files(tmp_path, content, message):
    pytest.importorskip("sb3_contrib")
    path = tmp_path / "foreign.zip"
    if content is None:
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("other", "x")
    elif content == b"PK-json":
        write_zip(path, [1, 2])  # type: ignore[arg-type]
    else:
        path.write_bytes(content)
    with pytest.raises(LoadError, match=message):
        load_agent(str(path))
