"""Charlesworth's recipe in our trainer (``--preset charlesworth``): his network on his 412 inputs,
his cadence (games stepped 20 decisions a batch, running on across batches) and his schedules."""

from __future__ import annotations

import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.config import CHARLESWORTH_PRESET, NetworkConfig, args_from_mapping  # noqa: E402
from agents.learners.ppo import PPOConfig, UpdateData, advantages_and_returns, seat_trajectories  # noqa: E402
from agents.network import Big2Net, charlesworth_network  # noqa: E402
from agents.policy import NetworkPolicy  # noqa: E402
from agents.train import train  # noqa: E402
from agents.trainer import Trainer  # noqa: E402
from agents.collect.vector import SteppedCollector  # noqa: E402
from big2_env.envs.vector import Big2VectorEnv  # noqa: E402
from big2_env.evaluation.versus import evaluate  # noqa: E402
from big2_env.players.charlesworth import PARAMETER_SHAPES, CharlesworthNetwork, network_input, write_parameters  # noqa: E402

HIS = NetworkConfig(design="charlesworth", observation="charlesworth")


def his_arrays(seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.normal(size=shape).astype(np.float32) * 0.05 for shape in PARAMETER_SHAPES]


def test_the_design_is_his_network_weight_for_weight():
    assert [tuple(p.shape) for p in Big2Net(HIS).parameters()] == [
        (512, 412), (512,), (256, 512), (256,), (1695, 256), (1695,), (256, 512), (256,), (1, 256), (1,)]
    arrays = his_arrays()
    model = charlesworth_network(arrays)
    assert model.config == HIS
    for bad in (arrays[:9], arrays[:4] + [arrays[4].T] + arrays[5:]):
        with pytest.raises(ValueError, match="his network is ten arrays of shapes"):
            charlesworth_network(bad)
    his = CharlesworthNetwork(arrays)
    rng = np.random.default_rng(1)
    hands = [sorted(rng.choice(52, size=13, replace=False).tolist()) for _ in range(6)]
    x = np.stack([network_input([], h) for h in hands])
    with torch.no_grad():
        state = model.encode_state(torch.from_numpy(x))
        assert np.allclose(model.state_value(state).numpy(), his.value(x), atol=1e-4)
    # the logits of every legal action, through the ragged interface: his masked logits
    env = Big2VectorEnv(6, seed=3, rules="charlesworth", observation="charlesworth")
    obs, _ = env.reset()
    features, actions, counts = env.candidates()
    owner = np.repeat(np.arange(6), counts)
    slot = np.concatenate([np.arange(c) for c in counts])
    with torch.no_grad():
        scores, _ = model(torch.from_numpy(obs["observation"]), torch.from_numpy(features), torch.from_numpy(owner),
                          torch.from_numpy(slot), int(counts.max()))
    logits = his.logits(obs["observation"])
    assert np.allclose(scores.numpy()[owner, slot], logits[owner, actions], atol=1e-4)


def test_the_hand_is_read_back_from_his_inputs():
    rng = np.random.default_rng(2)
    model = Big2Net(HIS)
    for size in (13, 7, 1):
        hand = sorted(rng.choice(52, size=size, replace=False).tolist())
        indicator = model.hand_indicator(torch.from_numpy(network_input([], hand)[None]))[0]
        assert np.flatnonzero(indicator.numpy()).tolist() == hand


def test_a_network_of_his_design_plays_legal_games_from_the_table_view():
    policy = NetworkPolicy(Big2Net(HIS), rules="charlesworth", seed=0)
    assert policy.observation_kind == "extended"
    result = evaluate(policy, "random", n_games=8, seed=0, rules="charlesworth")
    assert result.n_games == 8


OURS_ON_HIS = NetworkConfig(observation="charlesworth")  # row (d): his 412 inputs, our network


def test_our_network_reads_his_inputs_and_scores_candidates_as_ours():
    model = Big2Net(OURS_ON_HIS)
    assert model.obs_size == 412 and model.config.design == "paper"
    assert not hasattr(model, "card_embedding")  # his inputs replace the card encoders
    env = Big2VectorEnv(6, seed=4, rules="charlesworth", observation="charlesworth")
    obs, _ = env.reset()
    features, _, counts = env.candidates()
    owner = np.repeat(np.arange(6), counts)
    slot = np.concatenate([np.arange(c) for c in counts])
    x = torch.from_numpy(obs["observation"])
    with torch.no_grad():
        scores, value = model(x, torch.from_numpy(features), torch.from_numpy(owner), torch.from_numpy(slot),
                              int(counts.max()))
        # the paper design's scorer: <action embedding, W s> / sqrt(action_dim) on the state from his inputs
        state = model.encode_state(x)
        expected = (model.encode_actions(torch.from_numpy(features))
                    * model.state_to_action(state)[torch.from_numpy(owner)]).sum(-1) * model.score_scale
        assert torch.allclose(scores[torch.from_numpy(owner), torch.from_numpy(slot)], expected, atol=1e-5)
        assert value is not None and value.shape == (6,)
        # every one of his 412 numbers reaches the state: a change in any input moves it
        moved = model.encode_state(x + torch.eye(412)[torch.arange(6) * 70])
        assert (moved - state).abs().amax(1).gt(0).all()
    with pytest.raises(ValueError, match="412-number observations"):
        model.encode_state(torch.zeros(2, 277))


def test_our_network_on_his_inputs_plays_legal_games_from_the_table_view():
    policy = NetworkPolicy(Big2Net(OURS_ON_HIS), rules="charlesworth", seed=0)
    result = evaluate(policy, "random", n_games=8, seed=0, rules="charlesworth")
    assert result.n_games == 8


def test_his_inputs_are_read_by_his_design_or_ours_only():
    with pytest.raises(ValueError, match="design='charlesworth' .his network. or design='paper'"):
        NetworkConfig(design="plus", observation="charlesworth")
    with pytest.raises(ValueError, match="design='charlesworth' reads observation='charlesworth'"):
        NetworkConfig(design="charlesworth")


def test_the_preset_is_his_recipe_and_flags_override_it():
    args = args_from_mapping({"preset": "charlesworth"}).validate().resolved()
    assert (args.rules, args.env, args.games_per_batch, args.steps_per_batch, args.epochs, args.minibatch) == (
        "charlesworth", "vector", 64, 20, 5, 320)
    assert (args.lr, args.lr_schedule, args.clip, args.clip_anneal, args.entropy) == (2.5e-4, "linear", 0.2, True, 0.01)
    assert (args.gamma, args.gae_lambda, args.reward_scale, args.train_forced) == (0.995, 0.95, 0.2, True)
    assert args.model == {"design": "charlesworth", "observation": "charlesworth"}
    assert args.batches == CHARLESWORTH_PRESET["batches"] == 781_250
    mine = args_from_mapping({"preset": "charlesworth", "lr": 1e-3, "entropy": 0.02}).validate().resolved()
    assert mine.lr == 1e-3 and mine.entropy == 0.02 and mine.epochs == 5


def test_built_in_python_the_preset_is_the_same_recipe_and_a_direct_build_is_refused():
    from agents.config import TrainArgs

    assert TrainArgs.from_preset("charlesworth", rules="paper") == args_from_mapping(
        {"preset": "charlesworth", "rules": "paper"})
    assert TrainArgs.from_preset("charlesworth", rules="paper").validate().resolved().rules == "paper"
    with pytest.raises(ValueError, match=r"TrainArgs.from_preset\('charlesworth'"):
        TrainArgs(preset="charlesworth").validate()  # would train a hybrid: paper rules, our network, entropy 0.05
    assert TrainArgs.from_preset("paper") == TrainArgs(preset="paper")


def test_his_schedules_fall_linearly():
    trainer = Trainer(args_from_mapping({"preset": "charlesworth", "batches": 10, "eval_opponents": [], "progress": False,
                                         "out": "unused", "threads": 1}))
    assert [round(trainer.learner.lr_at(b) / 2.5e-4, 3) for b in (0, 5, 10)] == [1.0, 0.5, 0.004]
    assert [round(trainer.learner.clip_at(b), 3) for b in (0, 5, 10)] == [0.2, 0.1, 0.0]


def stepped_batches(batches: int, games: int = 6, steps: int = 20, seed: int = 0):
    torch.manual_seed(0)
    venv = Big2VectorEnv(games, rules="charlesworth", observation="charlesworth")
    collector = SteppedCollector(venv, seed)
    model = Big2Net(HIS)
    rng = np.random.default_rng(seed)
    return collector, [collector.collect(model, rng, steps) for _ in range(batches)]


def test_every_decision_is_learned_exactly_once_across_batches():
    collector, rollouts = stepped_batches(6)
    learned = []
    for rollout in rollouts:
        assert rollout.cut is not None and rollout.decisions == 6 * 20
        keep = ~rollout.cut
        learned += [row.tobytes() + bytes(str(lp), "ascii") for row, lp in zip(rollout.obs[keep], rollout.logp[keep])]
    assert collector.held is not None
    held = [row.tobytes() + bytes(str(lp), "ascii") for row, lp in zip(collector.held.obs, collector.held.logp)]
    assert len(learned) + len(held) == 6 * 6 * 20  # every decision made, learned once or still held
    assert len(set(learned + held)) == len(learned) + len(held)


def test_cut_rows_are_each_seats_last_decision_in_a_game_still_under_way():
    _, rollouts = stepped_batches(4)
    for rollout in rollouts:
        assert rollout.ended is not None and rollout.cut is not None
        for g in range(len(rollout.ended)):
            for seat in range(4):
                rows = np.flatnonzero((rollout.game == g) & (rollout.seat == seat))
                if not len(rows):
                    continue
                last = rows[np.argmax(rollout.turn[rows])]
                assert rollout.cut[rows].tolist() == [(r == last and not rollout.ended[g]) for r in rows]
        order, rewards, dones = seat_trajectories(rollout, 0.2)
        rewarded = order[rewards != 0]
        assert rollout.ended[rollout.game[rewarded]].all()  # only games that ended pay out
        assert not rollout.cut[rewarded].any()


def test_a_cut_row_bootstraps_the_decision_before_it():
    _, rollouts = stepped_batches(2)
    rollout = rollouts[1]
    config = PPOConfig(gamma=0.995, gae_lambda=0.95, reward_scale=0.2)
    advantages, returns = advantages_and_returns(rollout, config)
    cuts = np.flatnonzero(rollout.cut)
    assert len(cuts)
    for c in cuts[:10]:
        same = np.flatnonzero((rollout.game == rollout.game[c]) & (rollout.seat == rollout.seat[c]))
        before = same[rollout.turn[same] < rollout.turn[c]]
        if not len(before):
            continue
        prev = before[np.argmax(rollout.turn[before])]
        assert advantages[prev] == pytest.approx(0.995 * rollout.value[c] - rollout.value[prev], abs=1e-5)
    data = UpdateData.from_rollout(rollout, config)
    assert len(data.obs) == len(rollout) - len(cuts)  # the cut rows are learned in the next batch


def test_games_are_counted_when_they_end(tmp_path):
    result = train(args_from_mapping({
        "preset": "charlesworth", "out": str(tmp_path / "run"), "games_per_batch": 4, "minibatch": 40,
        "epochs": 1, "stop_after": 3, "eval_opponents": [], "progress": False, "tensorboard": False,
        "checkpoint_every": 0, "threads": 1}))
    assert result.decisions == 3 * 4 * 20
    assert 0 <= result.games <= 4 * 2  # a game lasts more than 20 decisions: at most two per slot in 60


def test_his_network_as_an_evaluation_opponent_is_checked_before_training(tmp_path):
    params = tmp_path / "modelParameters0"
    write_parameters(his_arrays(), params)
    base = {"preset": "charlesworth", "out": str(tmp_path / "run")}
    args_from_mapping({**base, "eval_opponents": ["smart", f"charlesworth:{params}"]}).validate()
    with pytest.raises(ValueError, match="must be played under --rules charlesworth; this run's rules are 'paper'"):
        args_from_mapping({**base, "rules": "paper", "eval_opponents": [f"charlesworth:{params}"]}).validate()
    with pytest.raises(ValueError, match="no such file"):
        args_from_mapping({**base, "eval_opponents": [f"charlesworth:{tmp_path / 'missing'}"]}).validate()
    (tmp_path / "notes.txt").write_text("not his parameters")
    with pytest.raises(ValueError, match="eval_opponents: 'charlesworth:.*notes.txt': .* is not a parameter file"):
        args_from_mapping({**base, "eval_opponents": [f"charlesworth:{tmp_path / 'notes.txt'}"]}).validate()
    with pytest.raises(ValueError, match=r"unknown opponent 'search:4' \(random, greedy, smart, or charlesworth:PATH"):
        args_from_mapping({**base, "eval_opponents": ["search:4"]}).validate()
    with pytest.raises(ValueError, match="must name each opponent once .*charlesworth, charlesworth"):
        args_from_mapping({**base, "eval_opponents": [f"charlesworth:{params}", f"charlesworth:{params}"]}).validate()
    with pytest.raises(ValueError, match="must name each opponent once"):
        args_from_mapping({**base, "eval_opponents": ["smart", "smart"]}).validate()


def test_eval_opponent_errors_name_the_flag_on_the_command_line(tmp_path, capsys):
    from big2_env.cli import main

    params = tmp_path / "modelParameters0"
    write_parameters(his_arrays(), params)
    (tmp_path / "notes.txt").write_text("not his parameters")
    for opponents, expected in ((f"charlesworth:{params}", "--eval-opponents: .* must be played under --rules charlesworth"),
                                (f"charlesworth:{tmp_path / 'notes.txt'}", "--eval-opponents: 'charlesworth:"),
                                ("smart,smart", "--eval-opponents must name each opponent once")):
        with pytest.raises(SystemExit) as exit_info:
            main(["train", "--rules", "paper" if "must be played" in expected else "charlesworth", "--out",
                  str(tmp_path / "run"), "--eval-opponents", opponents, "--no-progress"])
        assert exit_info.value.code != 0
        assert re.search(expected, capsys.readouterr().err), expected
    assert not (tmp_path / "run" / "checkpoint.pt").exists()


def test_a_run_logs_its_duel_against_his_network(tmp_path):
    import csv

    params = tmp_path / "modelParameters0"
    write_parameters(his_arrays(), params)
    result = train(args_from_mapping({
        "preset": "charlesworth", "out": str(tmp_path / "run"), "games_per_batch": 4, "minibatch": 40, "epochs": 1,
        "batches": 2, "eval_every": 0, "eval_games": 8, "eval_opponents": ["random", f"charlesworth:{params}"],
        "eval_deterministic": True, "progress": False, "tensorboard": False, "checkpoint_every": 0, "threads": 1}))
    rows = list(csv.DictReader(open(tmp_path / "run" / "metrics.csv")))
    assert [(r["batch"], r["opponent"], r["eval_games"]) for r in rows] == [
        ("0", "random", "8"), ("0", "charlesworth", "8"), ("2", "random", "8"), ("2", "charlesworth", "8")]
    assert set(result.last_eval) == {"random", "charlesworth"}
    # the logged duel is the duplicate duel on eval_games / 4 deals that `evaluate` plays for the same model
    duel = evaluate(NetworkPolicy.from_file(str(tmp_path / "run" / "model.pt"), deterministic=True), f"charlesworth:{params}",
                    n_games=2, seed=12345, rules="charlesworth", duplicate=True)
    assert float(rows[-1]["win_rate"]) == pytest.approx(duel.win_rate)
    assert float(rows[-1]["mean_score"]) == pytest.approx(duel.mean_score)


def test_against_random_players_only_the_networks_seat_is_recorded():
    torch.manual_seed(0)
    venv = Big2VectorEnv(8, rules="paper", observation="charlesworth")
    collector = SteppedCollector(venv, 3, random_prob=1.0)
    model, rng = Big2Net(HIS), np.random.default_rng(0)
    seats, ended = set(), 0
    for _ in range(8):
        rollout = collector.collect(model, rng, 20)
        assert rollout.decisions == 8 * 20
        assert 8 * 20 / 8 < rollout.model_decisions < 8 * 20 / 2  # about one decision in four is the network's
        for g in range(len(rollout.turns)):
            recorded = set(rollout.seat[rollout.game == g].tolist())
            assert len(recorded) <= 1  # one seat per game: the other three are Random's, never recorded
            seats |= recorded
        assert rollout.ended is not None
        ended += int(rollout.ended.sum())
        assert set(rollout.winners[rollout.ended].tolist()) <= {0, 1, 2, 3}
        assert (rollout.scores[rollout.ended].sum(axis=1) == 0).all()  # zero-sum, as every game
    assert seats == {0, 1, 2, 3} and ended > 0


def test_a_share_of_games_against_random_players():
    torch.manual_seed(0)
    model = Big2Net(HIS)
    recorded = {}
    for prob in (0.0, 0.5):
        venv = Big2VectorEnv(16, rules="paper", observation="charlesworth")
        collector = SteppedCollector(venv, 3, random_prob=prob)
        rng = np.random.default_rng(0)
        recorded[prob] = sum(collector.collect(model, rng, 20).model_decisions for _ in range(6))
    assert recorded[0.0] == 6 * 16 * 20  # self-play: every decision is the network's
    assert 0.45 * 6 * 16 * 20 < recorded[0.5] < 0.8 * 6 * 16 * 20  # half the games give a quarter: about 62%
    with pytest.raises(ValueError, match="random_prob"):
        SteppedCollector(Big2VectorEnv(2, rules="paper", observation="charlesworth"), 0, random_prob=1.5)


def test_random_opponents_need_his_cadence_and_a_probability(tmp_path):
    base = {"preset": "charlesworth", "out": str(tmp_path / "run"), "eval_opponents": [], "progress": False,
            "threads": 1}
    with pytest.raises(ValueError, match="steps-per-batch"):
        args_from_mapping({**base, "steps_per_batch": 0, "random_opponent_prob": 0.5}).validate()
    with pytest.raises(ValueError, match="random_opponent_prob"):
        args_from_mapping({**base, "random_opponent_prob": 2.0}).validate()
    result = train(args_from_mapping({**base, "rules": "paper", "games_per_batch": 4, "minibatch": 20, "epochs": 1,
                                      "stop_after": 3, "random_opponent_prob": 0.5, "tensorboard": False,
                                      "checkpoint_every": 0}))
    assert result.decisions == 3 * 4 * 20
    from agents.checkpoint import read_file

    info = read_file(tmp_path / "run" / "model.pt")["info"]  # the file says how it was trained
    assert info["random_opponent_prob"] == 0.5 and "init" not in info and "win_bonus" not in info
