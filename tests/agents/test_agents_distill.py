"""Learning from search (``--algo distill``), ``--init``, the entropy schedule, the sampling
temperature and the learner's device."""

from __future__ import annotations

import csv

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.checkpoint import CheckpointError, load_model  # noqa: E402
from agents.config import TrainArgs  # noqa: E402
from agents.collect.teachers import TeacherPool, teacher_rollout  # noqa: E402
from agents.learners.distill import distill_update  # noqa: E402
from agents.config import NetworkConfig  # noqa: E402
from agents.network import Big2Net  # noqa: E402
from agents.policy import NetworkPolicy  # noqa: E402
from agents.learners.ppo import make_optimizer  # noqa: E402
from agents.train import Trainer, resolve_device, train  # noqa: E402
from big2_env import Game, Rules  # noqa: E402
from big2_env.observations.decision import Decision  # noqa: E402
from big2_env.observations.decision import PolicyObservation, observation_dict  # noqa: E402
from big2_env.evaluation.loading import load_agent  # noqa: E402
from big2_env.players.base import policy_actions  # noqa: E402
from big2_env.players.registry import make_policy  # noqa: E402

from tests.agents.test_agents_train import SMALL, tiny  # noqa: E402


def test_teacher_games_record_every_choice_the_teacher_made():
    seeds = [3, 4]
    rollout = teacher_rollout(Rules(), seeds, "greedy", observation="paper")
    greedy = make_policy("greedy")
    rows = 0
    for g, seed in enumerate(seeds):  # replay each game: the recorded rows are its non-forced decisions, in order
        game = Game(Rules(), seed=seed)
        while game.winner is None:
            decision = Decision(game)
            action = greedy.act(observation_dict(game))
            if len(decision.actions) > 1:
                assert rollout.game[rows] == g and rollout.seat[rows] == decision.player
                np.testing.assert_array_equal(rollout.obs[rows], decision.observation)
                assert decision.actions[rollout.choice[rows]] == action == rollout.action[rows]
                count, offset = rollout.counts[rows], rollout.offsets[rows]
                np.testing.assert_array_equal(rollout.features[offset : offset + count], decision.features)
                rows += 1
            game._apply(decision.entry_for_action(action))
        assert rollout.scores[g].tolist() == list(game.scores())
    assert rows == len(rollout)
    extended = teacher_rollout(Rules(), seeds[:1], "greedy", observation="extended")
    assert extended.obs.shape[1] == 315 and np.array_equal(extended.obs[:, :277], rollout.obs[: len(extended)])


def test_the_teacher_pool_gives_the_same_data_with_any_process_count():
    from agents.collect.teachers import network_payload

    seeds = list(range(10, 16))
    torch.manual_seed(0)
    prior = network_payload(Big2Net(NetworkConfig(**SMALL)))  # expert iteration's teacher, too
    alone = TeacherPool(1, Rules(), "search:4", observation="extended")
    alone_data = [alone.collect(seeds), alone.collect(seeds, prior)]
    pool = TeacherPool(2, Rules(), "search:4", observation="extended")
    try:
        spread_data = [pool.collect(seeds), pool.collect(seeds, prior)]
    finally:
        pool.close()
    for one, spread in zip(alone_data, spread_data):
        for name in ("obs", "features", "choice", "action", "game", "seat", "scores", "candidate_values"):
            np.testing.assert_array_equal(getattr(one, name), getattr(spread, name), err_msg=name)
    assert not np.array_equal(alone_data[0].choice, alone_data[1].choice)  # the prior changed the search's moves


def test_a_search_teacher_records_its_candidate_means():
    rollout = teacher_rollout(Rules(), [5], "search:24", observation="paper")
    assert teacher_rollout(Rules(), [5], "greedy", observation="paper").candidate_values is None
    values = rollout.candidate_values
    assert values is not None and values.shape == (len(rollout.features),)
    for i in range(len(rollout)):
        mine = values[rollout.offsets[i] : rollout.offsets[i] + rollout.counts[i]]
        assert np.isfinite(mine[rollout.choice[i]])  # the move made was searched
        assert np.isfinite(mine).sum() >= 2  # and compared with at least one other
    # a decision replayed with the teacher's own seed gives the same means
    game = Game(Rules(), seed=5)
    search = load_agent("search:24", Rules())
    search.seed(5)
    while len(Decision(game).actions) == 1:
        game._apply(Decision(game).require_entry(int(Decision(game).actions[0]), "forced"))
    decision = Decision(game)
    policy_actions(search, [PolicyObservation(decision)])
    expected = [search.last_stats["means"].get(int(a), np.nan) for a in decision.actions]
    np.testing.assert_allclose(values[: rollout.counts[0]], expected, rtol=1e-6)


def test_soft_targets_learn_the_search_means_and_need_a_search_teacher(tmp_path):
    data = teacher_rollout(Rules(), range(4), "search:24", observation="paper")
    torch.manual_seed(0)
    model = Big2Net(NetworkConfig(**SMALL, design="plus"))
    optimizer = make_optimizer(model, 3e-3)
    config = TrainArgs(algo="distill", soft_targets=2.0).distill_config()
    first = distill_update(model, optimizer, data, config, np.random.default_rng(0))
    for _ in range(8):
        last = distill_update(model, optimizer, data, config, np.random.default_rng(1))
    assert last["cross_entropy"] < 0.8 * first["cross_entropy"]
    greedy = teacher_rollout(Rules(), range(2), "greedy", observation="paper")
    with pytest.raises(ValueError, match="search teacher"):
        distill_update(model, optimizer, greedy, config, np.random.default_rng(0))
    with pytest.raises(ValueError, match="is not a search"):
        Trainer(tiny(tmp_path / "soft", algo="distill", teacher="greedy", soft_targets=1.0))


def _networks_asked(monkeypatch) -> list:
    """The networks whose probabilities are asked for from now on (NetworkPolicy.probabilities, spied on)."""
    asked: list = []
    ranking = NetworkPolicy.probabilities

    def spy(self, obs):
        asked.append(self.model)
        return ranking(self, obs)

    monkeypatch.setattr(NetworkPolicy, "probabilities", spy)
    return asked


def _assert_same_weights(model, other) -> None:
    for name, tensor in model.state_dict().items():
        assert torch.equal(tensor, other.state_dict()[name]), name


def test_expert_iteration_gives_the_teacher_search_the_current_network_as_its_prior(monkeypatch):
    from agents.collect.teachers import network_payload, payload_network

    torch.manual_seed(0)
    model = Big2Net(NetworkConfig(**SMALL))
    payload = network_payload(model)
    _assert_same_weights(model, payload_network(payload))
    asked = _networks_asked(monkeypatch)
    with_prior = teacher_rollout(Rules(), [7], "search:8", observation="paper", prior=payload)
    assert asked  # the search ranked its candidates (where it had more than prior_top + 1) by the network
    _assert_same_weights(model, asked[0])
    asked.clear()
    without = teacher_rollout(Rules(), [7], "search:8", observation="paper")
    assert not asked  # without a payload, Smart's score ranks them
    assert len(with_prior) > 0 and len(without) > 0
    with pytest.raises(ValueError, match="needs a search teacher"):
        teacher_rollout(Rules(), [7], "greedy", observation="paper", prior=payload)


def test_big2_train_exit_runs_and_checks_its_teacher(tmp_path):
    result = train(tiny(tmp_path / "exit", algo="exit", teacher="search:4", batches=2, workers=1, soft_targets=1.0))
    assert result.finished
    with open(tmp_path / "exit" / "train_log.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 2 and all(float(r["cross_entropy"]) > 0 for r in rows)
    with pytest.raises(ValueError, match="--algo exit needs a search --teacher"):
        Trainer(tiny(tmp_path / "bad", algo="exit", teacher="greedy"))
    with pytest.raises(ValueError, match="exit plays the --teacher in all four seats"):
        TrainArgs(algo="exit", curriculum="mixed").validate()


def test_teacher_games_in_charlesworths_view_are_what_his_design_reads():
    from agents.collect.teachers import teacher_observation
    from big2_env.players.charlesworth import observation_input

    rules = Rules.preset("charlesworth")
    rollout = teacher_rollout(rules, [3], "greedy", observation="charlesworth")
    assert rollout.obs.shape[1] == 412
    greedy, game, rows = make_policy("greedy"), Game(rules, seed=3), 0
    model = Big2Net(NetworkConfig(design="charlesworth", observation="charlesworth"))
    while game.winner is None:  # replay: each recorded row is his 412 numbers at that decision
        decision = Decision(game)
        action = greedy.act(observation_dict(game))
        if len(decision.actions) > 1:
            mine = observation_input(PolicyObservation(decision, extended=True))
            np.testing.assert_array_equal(rollout.obs[rows], mine)
            held = model.hand_indicator(torch.as_tensor(rollout.obs[rows : rows + 1], dtype=torch.float32))[0]
            assert sorted(np.flatnonzero(held.numpy()).tolist()) == sorted(game.hands[decision.player])
            rows += 1
        game._apply(decision.entry_for_action(action))
    assert rows == len(rollout)
    with pytest.raises(ValueError, match="observation must be one of paper, extended, charlesworth; got 'his'"):
        teacher_observation(Decision(Game(rules, seed=3)), "his")
    with pytest.raises(ValueError, match="observation must be one of"):
        teacher_rollout(rules, [3], "greedy", observation="his")


def test_expert_iteration_makes_the_network_being_trained_search_nets_blueprint(monkeypatch):
    from agents.collect.teachers import network_payload

    rules = Rules.preset("charlesworth")
    torch.manual_seed(0)
    model = Big2Net(NetworkConfig(design="charlesworth", observation="charlesworth"))  # untrained: not the shipped one
    asked = _networks_asked(monkeypatch)
    data = teacher_rollout(rules, [7], "search-net@8", observation="charlesworth", prior=network_payload(model))
    assert asked and data.obs.shape[1] == 412
    _assert_same_weights(model, asked[-1])  # the blueprint that ranked the candidates is the payload's
    values = data.candidate_values
    assert values is not None and len(values) == len(data.features)
    searched = ~np.isnan(values)
    assert 0 < searched.sum() < len(values)  # its candidates' means; NaN for the legal moves it did not search
    with pytest.raises(ValueError, match="search-net plays every rollout to the end"):
        teacher_rollout(rules, [7], "search-net@8", observation="charlesworth", prior=network_payload(model),
                        leaf_value=0.5)


def test_big2_train_exit_with_search_net_in_his_view(tmp_path):
    args = dict(algo="exit", rules="charlesworth", teacher="search-net@8", soft_targets=1.0, batches=1,
                games_per_batch=2, workers=1, model={"design": "charlesworth", "observation": "charlesworth"})
    result = train(tiny(tmp_path / "exit", **args))
    assert result.finished
    with open(tmp_path / "exit" / "train_log.csv") as handle:
        [row] = list(csv.DictReader(handle))
    assert float(row["cross_entropy"]) > 0 and float(row["value_loss"]) > 0
    with pytest.raises(ValueError, match="search-net plays every rollout to the end"):
        Trainer(tiny(tmp_path / "bad", algo="exit", teacher="search-net@8", leaf_value=0.5))  # the paper's view


def test_replay_learns_from_the_recent_batches(tmp_path, monkeypatch):
    import agents.learners.distill as distill_module

    collected, learned = [], []
    collect = TeacherPool.collect

    def recording_collect(self, seeds, prior=None):
        rollout = collect(self, seeds, prior)
        collected.append(len(rollout))
        return rollout

    def recording_update(model, optimizer, rollout, config, rng):
        learned.append(len(rollout))
        return distill_update(model, optimizer, rollout, config, rng)

    monkeypatch.setattr(TeacherPool, "collect", recording_collect)
    monkeypatch.setattr(distill_module, "distill_update", recording_update)
    train(tiny(tmp_path / "replay", algo="distill", teacher="greedy", replay=2, workers=1))
    assert len(collected) == len(learned) == 4 and min(collected) > 0
    assert learned == [collected[0]] + [a + b for a, b in zip(collected, collected[1:])]


def test_distillation_learns_the_teachers_moves():
    data = teacher_rollout(Rules(), range(12), "greedy", observation="paper")
    torch.manual_seed(0)
    model = Big2Net(NetworkConfig(**SMALL, design="plus"))
    optimizer = make_optimizer(model, 3e-3)
    config = TrainArgs(algo="distill").distill_config()
    first = distill_update(model, optimizer, data, config, np.random.default_rng(0))
    for _ in range(8):
        last = distill_update(model, optimizer, data, config, np.random.default_rng(1))
    assert last["cross_entropy"] < 0.5 * first["cross_entropy"]
    assert last["accuracy"] > 0.9 > first["accuracy"]
    assert np.isfinite(last["value_loss"]) and last["minibatches"] == first["minibatches"] > 0


def test_big2_train_distill_resumes_exactly_and_ppo_continues_from_it(tmp_path):
    args = dict(algo="distill", teacher="greedy", model={**SMALL, "design": "plus", "observation": "extended"}, workers=1)
    straight = train(tiny(tmp_path / "straight", **args))
    train(tiny(tmp_path / "split", stop_after=2, **args))
    resumed = train(tiny(tmp_path / "split", **args), resume=True)
    for name, tensor in straight.model.state_dict().items():
        assert torch.equal(tensor, resumed.model.state_dict()[name]), name
    with open(tmp_path / "straight" / "train_log.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 4 and all(0 <= float(r["accuracy"]) <= 1 and float(r["cross_entropy"]) > 0 for r in rows)
    model, data = load_model(tmp_path / "straight" / "model.pt")
    assert data["info"]["algo"] == "distill" and model.config.observation == "extended"
    assert NetworkPolicy.from_file(str(tmp_path / "straight" / "model.pt")).deterministic  # plays its argmax
    # PPO from the distilled weights: the first batch starts from exactly them.
    ppo = Trainer(tiny(tmp_path / "ppo", init=str(tmp_path / "straight"), model=args["model"]))
    for name, tensor in straight.model.state_dict().items():
        assert torch.equal(tensor, ppo.model.state_dict()[name]), name
    with pytest.raises(CheckpointError, match="another model config"):
        Trainer(tiny(tmp_path / "other", init=str(tmp_path / "straight")))


def test_init_names_a_shipped_network_of_the_default_design(tmp_path, monkeypatch):
    from agents.pretrained import DEFAULT_RECIPE_PATH

    monkeypatch.chdir(tmp_path)  # no file of that name here: the name means the shipped network
    shipped, _ = load_model(DEFAULT_RECIPE_PATH)
    trainer = Trainer(tiny(tmp_path / "run", init="pretrained-default-recipe", model={}))
    for name, tensor in shipped.state_dict().items():
        assert torch.equal(tensor, trainer.model.state_dict()[name]), name


def test_distill_arguments_are_checked():
    with pytest.raises(ValueError, match="--curriculum does not apply"):
        TrainArgs(algo="distill", curriculum="mixed").validate()
    with pytest.raises(ValueError, match="teacher"):
        Trainer(TrainArgs(algo="distill", teacher="grandmaster", out="unused"))
    with pytest.raises(ValueError, match="device must be auto, cpu, cuda or cuda:N"):
        TrainArgs(device="gpu").validate()
    with pytest.raises(ValueError, match="entropy_anneal"):
        TrainArgs(entropy_anneal=1.5).validate()
    with pytest.raises(ValueError, match="replay must be a positive int"):
        TrainArgs(algo="distill", replay=0).validate()
    with pytest.raises(ValueError, match="soft_targets must be a number"):
        TrainArgs(algo="distill", soft_targets=-1.0).validate()
    with pytest.raises(ValueError, match="replay and soft_targets are distill's"):
        TrainArgs(algo="ppo", replay=3).validate()


def test_the_learner_device():
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device("auto") == torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="torch sees no CUDA GPU"):
            resolve_device("cuda")


def test_the_entropy_coefficient_anneals_to_zero_over_the_last_part(tmp_path):
    result = train(tiny(tmp_path / "run", batches=5, entropy=0.04, entropy_anneal=0.4))
    with open(tmp_path / "run" / "train_log.csv") as handle:
        coefs = [float(r["entropy_coef"]) for r in csv.DictReader(handle)]
    assert result.finished
    assert coefs == pytest.approx([0.04, 0.04, 0.04, 0.04 * 2 / 3, 0.04 / 3], rel=1e-5)  # the CSV keeps 6 digits


def test_sampling_temperature():
    torch.manual_seed(0)
    model = Big2Net(NetworkConfig(**SMALL))
    observations = []
    for s in range(40):  # positions whose best candidate leads the next by a clear margin
        obs = observation_dict(Game(seed=s))
        top = sorted(NetworkPolicy(model).probabilities(obs).values())[-2:]
        if len(top) == 2 and np.log(top[1]) - np.log(top[0]) > 1e-2:
            observations.append(obs)
    assert len(observations) >= 8
    argmax = NetworkPolicy(model, deterministic=True).act_batch(observations)
    cold = NetworkPolicy(model, seed=0, temperature=1e-4)  # exp(-100) odds against any other move
    assert cold.act_batch(observations) == argmax
    hot = NetworkPolicy(model, seed=0, temperature=100.0)  # nearly uniform: not the argmax everywhere
    assert hot.act_batch(observations) != argmax
    with pytest.raises(ValueError, match="temperature"):
        NetworkPolicy(model, temperature=0)


def test_a_leaf_value_is_refused_and_checked(tmp_path):
    from agents.collect.teachers import network_payload

    model = Big2Net(NetworkConfig(**SMALL))
    with pytest.raises(ValueError, match="--leaf-value must be 0"):
        teacher_rollout(Rules(), [3], "search:8", observation="paper", prior=network_payload(model), leaf_value=0.5)
    with pytest.raises(ValueError, match="a leaf value comes with the network prior"):
        teacher_rollout(Rules(), [3], "search:8", observation="paper", leaf_value=0.5)
    with pytest.raises(ValueError, match="--leaf-value must be 0"):
        Trainer(tiny(tmp_path / "exit", algo="exit", teacher="search:4", leaf_value=1.0))
    with pytest.raises(ValueError, match="leaf_value is expert iteration's"):
        TrainArgs(algo="distill", leaf_value=0.5).validate()
    with pytest.raises(ValueError, match="leaf_value needs a network with a value head"):
        TrainArgs(algo="exit", leaf_value=0.5, model={"value_head": False}).validate()
    with pytest.raises(ValueError, match="leaf_value"):
        TrainArgs(algo="exit", leaf_value=1.5).validate()


def test_init_from_a_shipped_network_of_another_design_names_the_designs(tmp_path):
    with pytest.raises(CheckpointError, match="--init pretrained: .*the shipped networks' designs: pretrained: charlesworth"):
        Trainer(tiny(tmp_path / "run", init="pretrained", model={}))


def test_his_preset_under_exit_plays_the_teacher_on_the_engine():
    exit_args = TrainArgs.from_preset("charlesworth", algo="exit", teacher="search-net@128", out="runs/x")
    exit_args.validate()  # his rules, network and learning rate; the teacher's games on the engine
    assert exit_args.env_in_use() == "engine" and exit_args.steps_per_batch == 0 and exit_args.rules == "charlesworth"
    assert exit_args.model == {"design": "charlesworth", "observation": "charlesworth"} and exit_args.lr == 2.5e-4
    ppo = TrainArgs.from_preset("charlesworth", out="runs/y")
    assert ppo.env == "vector" and ppo.steps_per_batch == 20  # PPO keeps his cadence on the vector env
