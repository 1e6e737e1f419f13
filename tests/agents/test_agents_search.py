"""The network in the search agent: as the rollout policy (one batched forward pass per step
across every rollout of a round) and as the prior over candidates."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from agents.config import NetworkConfig  # noqa: E402
from agents.network import Big2Net  # noqa: E402
from agents.policy import NetworkPolicy  # noqa: E402
from big2_env import evaluate  # noqa: E402
from big2_env.players.search import PolicyRollout, SearchPolicy  # noqa: E402

SMALL = NetworkConfig(card_dim=16, hand_heads=2, hand_ff=32, field_dim=16, count_dim=16, state_dim=32, state_ff=64,
                      action_hidden=32, action_dim=16, value_hidden=32)


class Counting(NetworkPolicy):
    calls = 0
    observations = 0

    def act_batch(self, observations):
        Counting.calls += 1
        Counting.observations += len(observations)
        return super().act_batch(observations)


def test_the_network_as_rollout_policy_is_batched_across_the_deals():
    torch.manual_seed(0)
    network = Counting(Big2Net(SMALL), deterministic=True)
    search = SearchPolicy(budget=12, rollout=network, seed=0)
    assert isinstance(search.rollout, PolicyRollout)
    result = evaluate(search, "smart", n_games=1, seed=0)
    assert result.n_games == 1  # every move legal
    assert Counting.calls > 0 and Counting.observations / Counting.calls > 2  # several rollouts per forward pass (1 if unbatched)


def test_the_network_as_prior_over_candidates():
    torch.manual_seed(0)
    network = NetworkPolicy(Big2Net(SMALL), deterministic=True)
    search = SearchPolicy(budget=8, prior=network, prior_top=2, seed=0)
    result = evaluate(search, "random", n_games=1, seed=1)
    assert result.n_games == 1
    with pytest.raises(TypeError, match="prior must be"):
        SearchPolicy(prior="network")


def test_the_options_benchmark_searches_with_a_learned_prior_and_refuses_a_policy_without_one():
    from tests.players.test_beliefs import load_options_benchmark

    module = load_options_benchmark()
    result = module.run({"budget": 6, "prior_top": 2}, "random", games=1, seed=5, prior="pretrained-default-recipe")
    assert result["prior"] == "pretrained-default-recipe" and 0 <= result["win_rate"] <= 1
    assert module.learned_prior("pretrained-paper").name == "pretrained-paper"
    with pytest.raises(ValueError, match="--prior must name a network.*'smart' gives no probabilities"):
        module.learned_prior("smart")
    with pytest.raises(ValueError, match="--prior must be one of"):
        module.learned_prior("wizard")


def test_state_values_is_the_value_head_of_the_networks_forward_pass():
    import numpy as np

    from agents.policy import score_numpy

    torch.manual_seed(0)
    network = NetworkPolicy(Big2Net(SMALL), deterministic=True)
    obs = np.random.default_rng(0).random((5, 277)).astype(np.float32)
    features = np.zeros((5, 80), dtype=np.float32)
    _, value = score_numpy(network.model, obs, features, np.ones(5, dtype=np.int64))
    assert np.allclose(network.state_values(obs), value, atol=1e-6)
    with pytest.raises(ValueError, match=r"observations must be \(N, 277\)"):
        network.state_values(obs[:, :100])
    headless = NetworkPolicy(Big2Net(NetworkConfig(**{**SMALL.to_dict(), "value_head": False})))
    with pytest.raises(ValueError, match="no value head"):
        headless.state_values(obs)


def test_the_paired_benchmark_puts_a_network_into_the_search(tmp_path, capsys):
    import json

    from tests.scripts import load_script

    module = load_script("experiments/scripts/search_paired.py")
    assert set(module.network_options("pretrained-default-recipe", "both")) == {"prior", "value"}
    assert set(module.network_options("pretrained-default-recipe", "value")) == {"value"}
    assert module.network_options(None, "both") == {}
    with pytest.raises(ValueError, match="--network must name a network"):
        module.network_options("smart", "value")
    out = tmp_path / "paired.json"
    module.main(["--opponent", "random", "--deals", "1", "--options", '{"budget": 6}',
                 "--network", "pretrained-default-recipe", "--network-as", "prior", "--json", str(out)])
    figures = json.loads(out.read_text())
    assert figures["games"] == 4 and figures["network"] == "pretrained-default-recipe" and figures["network_as"] == "prior"
    assert "--network pretrained-default-recipe --network-as prior" in figures["command"]
    assert "with pretrained-default-recipe as prior" in capsys.readouterr().out
