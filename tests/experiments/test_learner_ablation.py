"""``experiments/scripts/learner_ablation.py``: each row is measured under the rules its run trained on."""

from __future__ import annotations

import json

import pytest
from tests.scripts import load_script


SMALL = {"card_dim": 16, "hand_heads": 2, "hand_ff": 32, "field_dim": 16, "count_dim": 16, "state_dim": 32, "state_ff": 64,
         "action_hidden": 32, "action_dim": 16, "value_hidden": 32}


def _policy(path, info: dict):
    """A small policy file with ``info``, as ``big2 train`` or ``big2 average`` writes one."""
    torch = pytest.importorskip("torch")
    from agents.checkpoint import save_policy
    from agents.config import NetworkConfig
    from agents.network import Big2Net

    torch.manual_seed(0)
    return save_policy(path, Big2Net(NetworkConfig.from_dict(SMALL)), info)


def _run(tmp_path, rules: str | None):
    run = tmp_path / "run"
    run.mkdir()
    if rules is not None:
        (run / "args.json").write_text(json.dumps({"preset": "charlesworth", "rules": rules}))
    return run


def test_the_rules_come_from_the_run(tmp_path):
    ablation = load_script("experiments/scripts/learner_ablation.py")
    assert ablation.run_rules(_run(tmp_path, "paper")) == "paper"
    assert ablation.run_rules(tmp_path) == "charlesworth"  # no args.json: his, as every row of the ablation


def test_no_duel_for_a_run_under_the_papers_rules(tmp_path):
    ablation = load_script("experiments/scripts/learner_ablation.py")
    run = _run(tmp_path, "paper")
    with pytest.raises(SystemExit, match="the duel against his network is under his rules"):
        ablation.measure("c", run, "PATH", games=1, deals=1, jobs=1, out=tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_the_curves_set_another_run_beside_the_rows(tmp_path):
    pytest.importorskip("matplotlib")
    ablation = load_script("experiments/scripts/learner_ablation.py")
    header = "batch,games,decisions,elapsed_s,opponent,eval_games,win_rate,win_rate_lo,win_rate_hi,mean_score\n"
    folder = tmp_path / "paper_rules"
    (folder / "c").mkdir(parents=True)
    (folder / "c" / "args.json").write_text(json.dumps({"rules": "paper"}))
    (folder / "c" / "metrics.csv").write_text(header + "0,0,0,0,smart,600,0.03,0,0,-5\n10,500,0,0,smart,600,0.3,0,0,1\n")
    other = _run(tmp_path, "paper")
    (other / "metrics.csv").write_text(header + "0,0,0,0,smart,600,0.04,0,0,-4\n5,900,0,0,greedy,600,0.5,0,0,3\n")
    (folder / "c" / "metrics.csv").write_text((folder / "c" / "metrics.csv").read_text()
                                              + "10,500,0,0,charlesworth,600,0.2,0,0,-1\n")
    found = ablation.curves(folder)
    assert list(found) == ["c"] and [r["games"] for r in found["c"]] == ["0", "500"]
    duel = ablation.curves(folder, "charlesworth")
    assert list(duel) == ["c"] and [r["win_rate"] for r in duel["c"]] == ["0.2"]
    assert ablation.curves(folder, "greedy") == {}  # no row logs it
    out = ablation.plot(folder, tmp_path / "curves.png", 10**9, (("the default", other),))
    assert out.stat().st_size > 10_000
    with pytest.raises(SystemExit):
        ablation.main(["plot", "--dir", str(folder), "--also", "no equals sign"])


def test_the_collected_log_is_thinned_to_window_means(tmp_path):
    ablation = load_script("experiments/scripts/learner_ablation.py")
    rows = [{"batch": str(b), "games": str(20 * b), "entropy": str(float(b)), "grad_ratio": "2.0" if b == 4 else ""}
            for b in range(1, 8)]
    assert ablation.thinned(rows, 10) == rows  # already short enough: unchanged
    thin = ablation.thinned(rows, 3)  # windows of 3: batches 1-3, 4-6, 7
    assert [r["batch"] for r in thin] == ["3", "6", "7"] and [r["games"] for r in thin] == ["60", "120", "140"]
    assert [float(r["entropy"]) for r in thin] == [2.0, 5.0, 7.0]
    assert [r["grad_ratio"] for r in thin] == ["", "2", ""]  # the probe's one value; blank where none ran
    for r in rows:
        r["turns"] = "nan" if r["batch"] in ("1", "2", "7") else r["batch"]  # nan: no game ended in that batch
    assert [r["turns"] for r in ablation.thinned(rows, 3)] == ["3", "5", ""]  # the mean of the ended games only


def test_collect_copies_the_run_with_a_thinned_log(tmp_path, monkeypatch):
    ablation = load_script("experiments/scripts/learner_ablation.py")
    monkeypatch.setattr(ablation.subprocess, "run", lambda *a, **k: None)  # `big2 plot` of the whole log
    run = _run(tmp_path, "charlesworth")
    (run / "train_log.csv").write_text("batch,games,decisions,elapsed_s,entropy\n"
                                       "1,20,900,1,1\n2,40,1800,2,3\n3,60,2700,3,5\n4,80,3600,4,7\n")
    (run / "checkpoint.pt").write_bytes(b"weights")
    target = ablation.collect("c", run, tmp_path / "out", log_rows=2)
    assert (target / "checkpoint.pt").read_bytes() == b"weights"
    assert (target / "train_log.csv").read_text() == ("batch,games,decisions,elapsed_s,entropy\n"
                                                      "2,40,1800,2,2\n4,80,3600,4,6\n")
    assert (run / "train_log.csv").read_text().count("\n") == 5  # the run's own log untouched
    pace = json.loads((target / "pace.json").read_text())  # from the whole log: its last two rows
    assert pace["games"] == 80 and pace["over_batches"] == [3, 4] and pace["games_per_minute"] == 1200
    assert pace["hours_to"]["3m_games"]["here"] == pytest.approx((3_000_000 - 80) * 45 / 900 / 3600)
    assert pace["hours_to"]["his_budget"]["target"] == "174,720,000 decisions"
    fork = ablation.collect("fork", run, tmp_path / "out", weights=False)  # a finished fork: its logs only
    assert sorted(p.name for p in fork.iterdir()) == ["args.json", "train_log.csv"]


def test_pace_counts_the_last_tenth_and_stops_at_the_goal():
    ablation = load_script("experiments/scripts/learner_ablation.py")
    log = [{"batch": str(b), "games": str(10 * b), "decisions": str(450 * b), "elapsed_s": str(b * (1 if b <= 90 else 2))}
           for b in range(1, 101)]
    figures = ablation.pace(log, 4500.0)
    assert figures["over_batches"] == [91, 100] and figures["decisions_per_s"] == 225  # the slower last tenth
    assert figures["gpu_decisions_per_s"] == 4500.0  # the GPU rate it used, kept beside the hours
    assert figures["hours_to"]["his_budget"]["gpu"] == pytest.approx((136_500 * 1_280 - 45_000) / 4500 / 3600)
    done = [dict(r, games=str(int(r["games"]) * 10**5)) for r in log]  # past 3M games: nothing to go
    assert ablation.pace(done, 4500.0)["hours_to"]["3m_games"] == {"target": "3,000,000 games", "here": 0, "gpu": 0}
    with pytest.raises(ValueError, match="no training time"):
        ablation.pace([dict(log[0]), dict(log[0])], 4500.0)


def test_run_health_reads_the_last_row_and_the_last_tenth(tmp_path):
    ablation = load_script("experiments/scripts/learner_ablation.py")
    rows = "".join(f"{b},{10 * b},{470 * b},{0.5 if b < 10 else 0.7}\n" for b in range(1, 11))
    (tmp_path / "train_log.csv").write_text("batch,games,decisions,explained_variance\n" + rows)
    health = ablation.run_health(tmp_path)
    assert (health["batches"], health["games"], health["decisions"]) == (10, 100, 4700)
    assert health["decisions_per_game"] == 47.0 and health["explained_variance"] == 0.7  # the last tenth: one row


def test_duel_points_come_from_each_measured_row(tmp_path):
    ablation = load_script("experiments/scripts/learner_ablation.py")
    duel = {"win_rate": 0.2, "win_rate_ci": [0.19, 0.21]}
    (tmp_path / "a.json").write_text(json.dumps({"row": "a", "games": 512, "vs": {"charlesworth": {**duel, "at_games": 547}}}))
    (tmp_path / "c_200k.json").write_text(json.dumps({"row": "c@200k", "games": 200, "vs": {"charlesworth": duel}}))
    (tmp_path / "p.json").write_text(json.dumps({"row": "p", "games": 9, "vs": {"smart": duel}}))  # no duel: no point
    (tmp_path / "speed.json").write_text(json.dumps({"rows": []}))  # not a row
    (tmp_path / "c_seed1.json").write_text(json.dumps({"row": "c", "games": 9, "seed": 1, "vs": {"charlesworth": duel}}))
    (tmp_path / "swa.json").write_text(json.dumps({"row": "c", "games": 9, "model": "swa.pt", "vs": {"charlesworth": duel}}))
    fork = {"row": "anneal", "games": 20, "init_games": 180, "vs": {"charlesworth": duel}}  # at 180 + 20 games
    (tmp_path / "fork.json").write_text(json.dumps(fork))
    assert ablation.duel_points(tmp_path) == [("a", 547, 0.2, (0.19, 0.21)), ("c", 200, 0.2, (0.19, 0.21)),
                                              ("anneal", 200, 0.2, (0.19, 0.21))]


def test_measure_takes_another_model_of_the_run_and_other_deals(tmp_path, monkeypatch):
    import types

    import big2_env
    import big2_env.evaluation.loading as loading

    ablation = load_script("experiments/scripts/learner_ablation.py")
    run = _run(tmp_path, "paper")
    (run / "train_log.csv").write_text("batch,games,decisions\n1,10,470\n")
    _policy(tmp_path / "average.pt", {"algo": "ppo", "averaged_games": [5, 10]})  # no games of its own: the log's
    loaded, seeds = [], []
    monkeypatch.setattr(loading, "load_agent", lambda spec, rules, what: loaded.append(spec) or types.SimpleNamespace())

    def evaluate(agent, opponent, n_games, seed, rules, jobs, progress):
        seeds.append((opponent, seed, rules, agent.deterministic))
        return types.SimpleNamespace(figures=lambda: {"win_rate": 0.5, "win_rate_ci": [0.4, 0.6], "mean_score": 1.0,
                                                      "mean_score_ci": [0.0, 2.0]}, win_rate=0.5, mean_score=1.0)

    monkeypatch.setattr(big2_env, "evaluate", evaluate)
    figures = ablation.measure("swa", run, "", games=7, deals=1, jobs=1, out=tmp_path / "out",
                               model=tmp_path / "average.pt", seed=3)
    assert loaded == [str(tmp_path / "average.pt")] * 3  # the file given, not the run's model.pt
    assert seeds == [(o, 3, "paper", True) for o in ablation.OPPONENTS]  # its deals, at argmax, under the run's rules
    assert figures["model"] == "average.pt" and figures["seed"] == 3 and "charlesworth" not in figures["vs"]
    assert (figures["batches"], figures["games"], figures["decisions"]) == (1, 10, 470)
    assert "--model FILE --seed 3 --games 7" in figures["command"]
    written = json.loads((tmp_path / "out" / "swa.json").read_text())
    assert written["command"] == figures["command"] and written["vs"] == figures["vs"]


def test_measure_takes_the_games_and_batches_from_the_model_file_not_the_log(tmp_path):
    ablation = load_script("experiments/scripts/learner_ablation.py")
    run = _run(tmp_path, "paper")
    # the log ran on past the snapshot measured (batch 3), as the paper-rules run's did past batch 110,000
    (run / "train_log.csv").write_text("batch,games,decisions,explained_variance\n"
                                       + "".join(f"{b},{20 * b + 1},{900 * b},0.5\n" for b in range(1, 6)))
    _policy(run / "model.pt", {"algo": "ppo", "batch": 5, "games": 101})
    _policy(tmp_path / "snapshot.pt", {"algo": "ppo", "batch": 3, "games": 61})
    counters = ablation.model_counters(tmp_path / "snapshot.pt", run)
    assert counters == {"batches": 3, "games": 61, "decisions": 2700, "decisions_per_game": 2700 / 61}
    figures = ablation.measure("c_latest", run, "", games=1, deals=1, jobs=1, out=tmp_path / "out",
                               model=tmp_path / "snapshot.pt")
    written = json.loads((tmp_path / "out" / "c_latest.json").read_text())
    assert (figures["batches"], figures["games"], figures["decisions"]) == (3, 61, 2700)
    assert (written["batches"], written["games"], written["model"]) == (3, 61, "snapshot.pt")
    # a row the log does not hold (thinned): the file's games and batch, no decisions made up
    _policy(tmp_path / "unlogged.pt", {"algo": "ppo", "batch": 4, "games": 77})
    assert ablation.model_counters(tmp_path / "unlogged.pt", run)["decisions"] is None
    # a file that states no games (a weight average lists its members'): the log's last row speaks for it
    _policy(tmp_path / "swa.pt", {"algo": "ppo", "averaged_games": [61, 101]})
    assert ablation.model_counters(tmp_path / "swa.pt", run) == {}
    averaged = ablation.measure("swa", run, "", games=1, deals=1, jobs=1, out=tmp_path / "out", model=tmp_path / "swa.pt")
    assert (averaged["batches"], averaged["games"], averaged["decisions"]) == (5, 101, 4500)
