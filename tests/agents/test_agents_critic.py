"""The critic that sees every hand (``--critic full``): what it reads, that the policy never sees it,
that the saved policy holds nothing of it, exact resume, health logs and refusals."""

from __future__ import annotations

import csv

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.checkpoint import read_file  # noqa: E402
from agents.config import TrainArgs  # noqa: E402
from agents.critic import FullCritic, hidden_hands  # noqa: E402
from agents.network import Big2Net  # noqa: E402
from agents.policy import NetworkPolicy  # noqa: E402
from agents.train import train  # noqa: E402
from big2_env.engine.game import Game  # noqa: E402
from big2_env.observations.decision import Decision, PolicyObservation  # noqa: E402
from big2_env.observations.paper import observation  # noqa: E402

from tests.agents.test_agents_train import SMALL, assert_same_state, tiny  # noqa: E402


def test_hidden_hands_are_the_next_across_and_previous_seats_hands():
    rng = np.random.default_rng(3)
    for _ in range(20):
        deck = rng.permutation(52)
        hands = np.array([sum(1 << int(c) for c in deck[13 * s : 13 * (s + 1)]) for s in range(4)], dtype=np.int64)
        seat = int(rng.integers(4))
        bits = hidden_hands(hands[None], np.array([seat]))[0]
        for k in range(3):
            held = set(np.flatnonzero(bits[52 * k : 52 * (k + 1)]).tolist())
            assert held == set(deck[13 * ((seat + 1 + k) % 4) : 13 * ((seat + 1 + k) % 4 + 1)].tolist())


def test_swapping_hidden_cards_changes_the_critic_not_the_policy():
    """Two deals that differ only in which opponent holds two unplayed cards, the same moves played:
    the mover's observation, and so the policy's probabilities, are the same; the critic's value is not."""
    torch.manual_seed(0)
    first = Game(seed=11)
    moves = []
    for _ in range(9):
        play = first.legal_plays()[-1]  # the largest play: a few cards leave the hands
        moves.append(play)
        first.play(play)
    mover = first.current_player
    a, b = (mover + 1) % 4, (mover + 2) % 4
    deal = [list(h) for h in Game(seed=11).hands]
    card_a, card_b = first.hands[a][0], first.hands[b][0]  # both still held: unplayed
    deal[a][deal[a].index(card_a)], deal[b][deal[b].index(card_b)] = card_b, card_a
    second = Game.from_hands(deal, rules=first.rules)
    for play in moves:
        second.play(play)
    assert second.current_player == mover and second.hands[a] != first.hands[a]
    views = [dict(PolicyObservation(Decision(game))) for game in (first, second)]
    assert np.array_equal(views[0]["observation"], views[1]["observation"])
    policy = NetworkPolicy(Big2Net(), rules=first.rules)
    assert policy.probabilities(views[0]) == policy.probabilities(views[1])
    masks = np.array([[sum(1 << c for c in h) for h in g.hands] for g in (first, second)], dtype=np.int64)
    obs = np.stack([observation(first, mover)] * 2).astype(np.float32)
    values = FullCritic(277).values(obs, masks, np.array([mover, mover]))
    assert abs(float(values[0] - values[1])) > 1e-6


def test_a_full_critic_run_keeps_the_critic_out_of_model_pt_and_logs_both_variances(tmp_path):
    result = train(tiny(tmp_path / "run", env="vector", critic="full", batches=2))
    assert result.finished
    model = read_file(tmp_path / "run" / "model.pt")
    plain = Big2Net(result.model.config).state_dict()
    assert set(model["model_state"]) == set(plain)  # the policy's weights, nothing else
    assert not any("critic" in key for key in model)
    checkpoint = read_file(tmp_path / "run" / "checkpoint.pt")
    assert checkpoint["critic_state"] and checkpoint["critic_optimizer_state"]
    with open(tmp_path / "run" / "train_log.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert all(r["explained_variance"] and r["policy_explained_variance"] and r["critic_loss"] for r in rows)
    assert all(float(r["critic_loss"]) > 0 for r in rows)


def test_a_full_critic_run_resumes_bit_for_bit(tmp_path):
    args = dict(env="vector", critic="full")
    straight = train(tiny(tmp_path / "straight", **args))
    train(tiny(tmp_path / "split", stop_after=2, **args))
    resumed = train(tiny(tmp_path / "split", **args), resume=True)
    assert_same_state(straight.model.state_dict(), resumed.model.state_dict())
    a = read_file(tmp_path / "straight" / "checkpoint.pt")
    b = read_file(tmp_path / "split" / "checkpoint.pt")
    assert_same_state(a["critic_state"], b["critic_state"])


def test_the_default_critic_is_the_observation_one(tmp_path):
    assert TrainArgs().critic == "observation"
    result = train(tiny(tmp_path / "run", env="vector", batches=1))
    assert read_file(tmp_path / "run" / "checkpoint.pt")["critic_state"] is None
    with open(tmp_path / "run" / "train_log.csv", newline="") as handle:
        assert [r["policy_explained_variance"] for r in csv.DictReader(handle)] == [""]
    assert result.finished


@pytest.mark.parametrize("extra, message", [
    ({"env": "engine"}, "critic full is PPO's on the compiled vector env"),
    ({"algo": "mcq", "env": "vector"}, "critic full is PPO's"),
    ({"critic": "oracle"}, "critic must be one of observation, full"),
])
def test_bad_critic_settings_are_refused(tmp_path, extra, message):
    values = {"critic": "full", **extra}
    with pytest.raises(ValueError, match=message):
        tiny(tmp_path, **values).validate()


def test_the_critic_refuses_inputs_of_the_wrong_shape():
    with pytest.raises(ValueError, match="reads"):
        FullCritic(277)(torch.zeros(2, 412), torch.zeros(2, 156))
    assert SMALL  # the shared small network sizes are importable for the runs above
