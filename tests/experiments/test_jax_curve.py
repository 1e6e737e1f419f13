"""``experiments/scripts/jax_curve.py``: every snapshot of a run in spells plays the same duel, with its chunk's health."""

from __future__ import annotations

import json
import sys

import pytest
from tests.scripts import REPO, load_script

pytest.importorskip("torch")
jax = pytest.importorskip("jax")


def test_each_snapshot_plays_the_same_deals_and_the_curve_grows_as_spells_come_back(tmp_path):
    from big2_env.players.charlesworth import write_parameters
    from tests.players.test_charlesworth import random_arrays

    sys.path.insert(0, str(REPO / "examples"))
    try:
        import jax_ppo
    finally:
        sys.path.remove(str(REPO / "examples"))
    params = tmp_path / "modelParameters0"  # a stand-in for his file, of its shapes
    write_parameters(random_arrays(), params)
    policy = jax_ppo.init_params(jax.random.PRNGKey(0))
    spells = [tmp_path / "spell1" / "ppo_a", tmp_path / "spell2" / "ppo_a"]
    log = [{"update": 0, "decisions": 0}] + [
        {"update": u, "decisions": 64 * u, "entropy": 1.0 / u, "approx_kl": 0.01, "clip_fraction": 0.05,
         "explained_variance": 0.5, "policy_loss": -0.01, "value_loss": 0.1, "chunk_s": 1.0} for u in (2, 4)]
    for spell, updates in zip(spells, (2, 4)):
        (spell / "snapshots").mkdir(parents=True)
        jax_ppo.save_policy(policy, spell / "snapshots" / f"model_{64 * updates}.pt", {"algo": "ppo"})
        (spell / "log.json").write_text(json.dumps({"decisions": 64 * updates, "log": log[: updates // 2 + 1]}))
    script = load_script("experiments/scripts/jax_curve.py")
    out = tmp_path / "curve.json"
    first = script.main([str(spells[0]), "--params", str(params), "--deals", "2", "--json", str(out)])
    assert [p["decisions"] for p in first["points"]] == [128]
    both = script.main([str(spells[0]), str(spells[1]), "--params", str(params), "--deals", "2", "--json", str(out)])
    assert [p["decisions"] for p in both["points"]] == [128, 256]
    assert both["points"][0] == first["points"][0]  # kept, not played again
    second = both["points"][1]
    assert second["games"] == 8 and 0.0 <= second["win_rate"] <= 1.0 and len(second["win_rate_ci"]) == 2
    assert second["health"] == {"update": 4, "entropy": 0.25, "approx_kl": 0.01, "clip_fraction": 0.05,
                                "explained_variance": 0.5, "policy_loss": -0.01, "value_loss": 0.1}
    # the same policy on the same deals: the same games at every point
    assert (second["win_rate"], second["mean_score"]) == (first["points"][0]["win_rate"], first["points"][0]["mean_score"])
    assert json.loads(out.read_text())["points"] == both["points"] and both["deals"] == 2 and both["argmax"]
    assert both["command"].startswith("python experiments/scripts/jax_curve.py RUN --params PATH --json ")
    with pytest.raises(SystemExit, match="download modelParameters136500"):
        script.main([str(spells[0]), "--params", str(tmp_path / "absent"), "--json", str(out)])
