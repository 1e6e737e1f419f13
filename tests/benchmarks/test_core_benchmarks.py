"""The compiled core's start-up benchmark writes what the performance page quotes:
``benchmarks/core_compile.py --json`` (the cold and warm first game)."""

from __future__ import annotations

import json


from tests.scripts import load_script


def test_core_compile_records_the_cold_and_warm_times(tmp_path, monkeypatch):
    module = load_script("benchmarks/core_compile.py")
    times = iter([9.0, 0.5, 0.7, 12.0, 0.6, 0.4, 70.0, 1.2, 0.9])  # three children, each cold then two warm runs
    children = []

    def fake_first_game(cache_dir, child=module.CHILD):
        children.append(child)
        return next(times)

    monkeypatch.setattr(module, "first_game", fake_first_game)
    out = tmp_path / "compile.json"
    module.main(["--warm-runs", "2", "--json", str(out)])
    record = json.loads(out.read_text())
    assert record["warm_runs"] == 2
    assert record["rows"] == {
        "core_game": {"cold_s": 9.0, "warm_best_s": 0.5, "warm_worst_s": 0.7},
        "aec_game": {"cold_s": 12.0, "warm_best_s": 0.4, "warm_worst_s": 0.6},
        "warm_up": {"cold_s": 70.0, "warm_best_s": 0.9, "warm_worst_s": 1.2},
    }
    assert children == [module.CHILD] * 3 + [module.CHILD_AEC] * 3 + [module.CHILD_ALL] * 3
