"""Training rollouts on the compiled vector env: every recorded decision is the Python engine's."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.network import Big2Net, NetworkConfig  # noqa: E402
from agents.collect.vector import collect_vector  # noqa: E402
from big2_env import Game, Rules, action_cards, observation  # noqa: E402
from big2_env.envs.vector import Big2VectorEnv  # noqa: E402
from big2_env.observations.decision import Decision  # noqa: E402
from big2_env.observations.paper import PASS_ACTION  # noqa: E402


@pytest.mark.parametrize("rules", [Rules(), Rules.preset("charlesworth")], ids=["paper", "charlesworth"])
@pytest.mark.parametrize("skip_forced", [False, True])
def test_every_recorded_decision_replays_in_the_engine(rules, skip_forced):
    torch.manual_seed(0)
    model = Big2Net(NetworkConfig(value_head=True))
    venv = Big2VectorEnv(6, rules=rules)
    rollout = collect_vector(venv, model, np.random.default_rng(0), seed=3, skip_forced=skip_forced)
    mirror = np.random.default_rng(3)  # the env's deals, as it documents them
    decks = np.tile(np.arange(52, dtype=np.int64), (6, 1))
    mirror.permuted(decks, axis=1, out=decks)
    assert len(rollout.scores) == 6 and rollout.decisions == int(rollout.turns.sum())
    assert (rollout.counts > 1).all() if skip_forced else len(rollout) == rollout.decisions
    for g in range(6):
        game = Game.from_hands([sorted(int(c) for c in decks[g][13 * i : 13 * i + 13]) for i in range(4)], rules)
        rows = np.flatnonzero(rollout.game == g)
        moves = {int(rollout.turn[r]): r for r in rows}
        while not game.is_over:
            decision = Decision(game)
            r = moves.get(game.turn)
            if r is None:  # a forced move, not recorded
                assert skip_forced and len(decision.actions) == 1
                action = int(decision.actions[0])
            else:
                assert rollout.seat[r] == game.current_player
                np.testing.assert_array_equal(rollout.obs[r], observation(game, game.current_player))
                start, count = rollout.offsets[r], rollout.counts[r]
                assert rollout.candidate_actions[start : start + count].tolist() == decision.actions.tolist()
                np.testing.assert_array_equal(rollout.features[start : start + count], decision.features)
                action = int(rollout.action[r])
                assert decision.actions[rollout.choice[r]] == action
            game.play(() if action == PASS_ACTION else action_cards(action, game.hand(game.current_player)))
        assert rollout.scores[g].tolist() == game.scores() and rollout.winners[g] == game.winner
        assert rollout.turns[g] == game.turn


def test_big2_train_runs_on_the_vector_env(tmp_path):
    from agents.config import TrainArgs
    from agents.train import train

    args = TrainArgs(algo="ppo", env="vector", batches=2, games_per_batch=8, eval_every=0, eval_games=4,
                     eval_opponents=["random"], workers=1, threads=1, progress=False, tensorboard=False,
                     out=str(tmp_path / "run"))
    result = train(args)
    assert result.batch == 2 and result.games == 16 and result.finished and result.decisions > 16 * 20
    assert (tmp_path / "run" / "model.pt").exists()
    with pytest.raises(ValueError, match="curriculum self"):
        TrainArgs(env="vector", curriculum="checkpoint").validate()
    with pytest.raises(ValueError, match="env must be one of"):
        TrainArgs(env="gpu").validate()
    with pytest.raises(ValueError, match="observation=extended"):
        TrainArgs(env="vector", model={"observation": "extended"}).validate()


def test_the_vector_collector_refuses_a_network_of_the_extended_view():
    model = Big2Net(NetworkConfig(value_head=True, observation="extended"))
    with pytest.raises(ValueError, match="extended view"):
        collect_vector(Big2VectorEnv(2), model, None, seed=0)
