"""One learner per algorithm and one collector per run, both picked once; TrainArgs's field groups."""

from __future__ import annotations

from dataclasses import fields

import pytest

torch = pytest.importorskip("torch")

from agents.collect.base import EngineCollector  # noqa: E402
from agents.collect.parallel import PoolCollector  # noqa: E402
from agents.collect.vector import VectorCollector  # noqa: E402
from agents.config import ALGOS, FLAG_GROUPS, PPOArgs, TrainArgs  # noqa: E402
from agents.learners.ppo import PPOLearner  # noqa: E402
from agents.learners.registry import LEARNERS  # noqa: E402
from agents.learners.value import ValueLearner  # noqa: E402
from agents.trainer import Trainer  # noqa: E402

SMALL = {"card_dim": 16, "hand_heads": 2, "hand_ff": 32, "field_dim": 16, "count_dim": 16, "state_dim": 32, "state_ff": 64,
         "action_hidden": 32, "action_dim": 16, "value_hidden": 32}


def test_every_algorithm_has_its_learner():
    assert tuple(LEARNERS) == ALGOS
    assert LEARNERS["ppo"] is PPOLearner
    assert {LEARNERS[a] for a in ("mcq", "sarsa", "qlearning", "dmc")} == {ValueLearner}


@pytest.mark.parametrize(
    "kwargs, learner, collector",
    [
        (dict(algo="ppo", env="vector"), PPOLearner, VectorCollector),
        (dict(algo="ppo", env="vector", steps_per_batch=3), PPOLearner, VectorCollector),
        (dict(algo="sarsa", env="engine", workers=1), ValueLearner, EngineCollector),
        (dict(algo="dmc", env="engine", workers=2, backend="ray"), ValueLearner, PoolCollector),
    ],
)
def test_the_trainer_picks_the_learner_and_the_collector_once(kwargs, learner, collector):
    trainer = Trainer(TrainArgs(model=dict(SMALL), games_per_batch=2, batches=2, progress=False, **kwargs))
    try:
        assert type(trainer.learner) is learner and type(trainer.collector) is collector
        assert trainer.learner.samples == (kwargs["algo"] == "ppo")
        assert (trainer.epsilon is None) == (kwargs["algo"] != "sarsa" and kwargs["algo"] != "dmc")
        if collector is not PoolCollector:  # (starting Ray actors is the Ray tests')
            stats = trainer.train_batch()
            assert stats["batch_decisions"] > 0 and type(trainer.collector) is collector
    finally:
        trainer.close()


def test_a_learner_keeps_its_part_of_the_checkpoint():
    sarsa = Trainer(TrainArgs(algo="sarsa", env="engine", workers=1, model=dict(SMALL), games_per_batch=2, progress=False))
    state = sarsa.state_dict()
    assert state["target_state"] is not None
    ppo = Trainer(TrainArgs(algo="ppo", env="vector", model=dict(SMALL), games_per_batch=2, progress=False))
    assert ppo.state_dict()["target_state"] is None


def test_train_args_is_its_groups_and_the_shared_fields_each_flag_once():
    names = [f.name for f in fields(TrainArgs)]
    assert len(names) == len(set(names)) == 53
    grouped = {f.name for group in FLAG_GROUPS for f in fields(group)}
    shared = set(names) - grouped
    assert {"algo", "lr", "batches", "seed", "model"} <= shared and len(shared) < len(grouped)
    assert {"entropy", "clip", "steps_per_batch"} <= {f.name for f in fields(PPOArgs)}


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(steps_per_batch=3, env="engine"), "--steps-per-batch runs games on across batches"),  # PPO's group
        (dict(curriculum="x"), "curriculum must be one of"),  # the curriculum's
        (dict(eval_opponents=["smart", "smart"]), "must name each opponent once"),  # the evaluation's
        (dict(ray_address="auto"), "ray_address applies to --backend ray only"),  # the run's
        (dict(target_sync=0), "target_sync must be a positive int"),  # a bound declared on a field
        (dict(epsilon_end=1.5), r"epsilon_end must be a number in \[0, 1\]"),
    ],
)
def test_each_group_checks_its_fields(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TrainArgs(**kwargs).validate()
