"""benchmarks/model_check.py: what search-net's model check sees against each opponent."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("model_check_bench", ROOT / "benchmarks" / "model_check.py")
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def test_the_table_lists_each_heuristic_with_ordered_quantiles_and_shares(tmp_path, capsys):
    out = tmp_path / "check.json"
    bench.main(["--games", "1", "--seed", "2", "--json", str(out)])
    figures = json.loads(out.read_text())
    assert "charlesworth" not in figures["opponents"]  # no --params: his network left out, and said so
    assert "left out" in capsys.readouterr().err
    assert set(figures["opponents"]) == {"smart", "greedy", "random"}
    for row in figures["opponents"].values():
        assert row["decisions"] > 0 and row["quantiles"] == sorted(row["quantiles"])
        kept = row["kept"]
        assert len(kept) == len(bench.THRESHOLDS)
        assert all(0 <= k <= 1 for k in kept) and kept == sorted(kept, reverse=True)  # a higher bar keeps fewer
    assert figures["command"] == "python benchmarks/model_check.py --games 1 --seed 2"


def test_bad_arguments_are_refused(tmp_path):
    for argv in (["--games", "0"], ["--params", str(tmp_path / "missing")]):
        with pytest.raises(SystemExit) as stop:
            bench.main(argv)
        assert stop.value.code == 2


def test_the_committed_table_is_the_scripts_with_his_network():
    figures = json.loads((ROOT / "benchmarks" / "search_net" / "model_check.json").read_text())
    assert set(figures["opponents"]) == set(bench.OPPONENTS)
    wanted = f"python benchmarks/model_check.py --params PATH --games {figures['games']} --seed {figures['seed']}"
    assert figures["command"] == wanted
