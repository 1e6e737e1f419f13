"""The card-aware network: shapes, masking of ragged candidate sets, symmetries, size, and the policy wrapper."""

from __future__ import annotations

import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

import numpy as np  # noqa: E402

from agents.config import NetworkConfig  # noqa: E402
from agents.network import Big2Net, HandEncoder, count_parameters, pack_candidates, parameter_count  # noqa: E402
from agents.policy import NetworkPolicy, choose, score_numpy  # noqa: E402
from big2_env import Game  # noqa: E402
from big2_env.observations.decision import Decision  # noqa: E402
from big2_env.observations.decision import observation_dict  # noqa: E402


def decisions(n_games: int = 3, seed: int = 0) -> list[Decision]:
    """Decisions of a few random games (ragged candidate sets, leads and responses)."""
    rng = np.random.default_rng(seed)
    out = []
    for g in range(n_games):
        game = Game(seed=seed * 100 + g)
        while not game.is_over:
            d = Decision(game)
            out.append(d)
            game._apply(d.entry_for_action(int(rng.choice(d.actions))))
    return out


DESIGNS = [NetworkConfig(), NetworkConfig(design="plus"), NetworkConfig(design="plus", observation="extended")]


@pytest.fixture(scope="module", params=DESIGNS, ids=lambda c: f"{c.design}-{c.observation}")
def model(request) -> Big2Net:
    torch.manual_seed(0)
    return Big2Net(request.param).eval()


def observation_of(d: Decision, model: Big2Net) -> np.ndarray:
    return d.extended_observation if model.config.observation == "extended" else d.observation


@pytest.fixture(scope="module")
def batch(model):
    ds = [d for d in decisions() if len(d.actions) > 1][:40]
    obs = torch.from_numpy(np.stack([observation_of(d, model) for d in ds]))
    counts = [len(d.actions) for d in ds]
    features = torch.from_numpy(np.concatenate([d.features for d in ds]))
    owner, slot, k = pack_candidates(counts)
    return ds, obs, features, torch.from_numpy(owner), torch.from_numpy(slot), k, counts


def test_shapes_and_padding_is_minus_infinity(model, batch):
    ds, obs, features, owner, slot, k, counts = batch
    with torch.no_grad():
        scores, value = model(obs, features, owner, slot, k)
    assert scores.shape == (len(ds), k) and value.shape == (len(ds),)
    assert k == max(counts)
    for i, n in enumerate(counts):
        assert torch.isfinite(scores[i, :n]).all()
        assert torch.isneginf(scores[i, n:]).all()
    probs = torch.softmax(scores, dim=-1)
    for i, n in enumerate(counts):
        assert float(probs[i, n:].sum()) == 0.0  # padding never gets probability
        assert probs[i, :n].sum().item() == pytest.approx(1.0, abs=1e-6)


def test_padded_form_ignores_whatever_is_in_the_padding(model, batch):
    ds, obs, features, owner, slot, k, counts = batch
    padded = torch.randn(len(ds), k, 80) * 100  # garbage everywhere ...
    mask = torch.zeros(len(ds), k, dtype=torch.bool)
    for i, d in enumerate(ds):
        padded[i, : counts[i]] = torch.from_numpy(d.features)  # ... except the real candidates
        mask[i, : counts[i]] = True
    flat_scores, flat_value = model(obs, features, owner, slot, k)
    pad_scores, pad_value = model.forward_padded(obs, padded, mask)
    torch.testing.assert_close(pad_scores, flat_scores)
    torch.testing.assert_close(pad_value, flat_value)


def test_scores_are_permutation_equivariant_over_candidates(model, batch):
    ds, obs, features, owner, slot, k, counts = batch
    scores, _ = model(obs, features, owner, slot, k)
    rng = np.random.default_rng(1)
    perms = [rng.permutation(n) for n in counts]
    shuffled = torch.from_numpy(np.concatenate([d.features[p] for d, p in zip(ds, perms)]))
    new_scores, _ = model(obs, shuffled, owner, slot, k)
    for i, p in enumerate(perms):
        torch.testing.assert_close(new_scores[i, : counts[i]], scores[i, : counts[i]][torch.from_numpy(p)])


def test_batch_of_states_equals_states_one_by_one(model, batch):
    ds, obs, features, owner, slot, k, counts = batch
    scores, value = model(obs, features, owner, slot, k)
    for i in (0, 7, len(ds) - 1):
        one_o, one_s, one_k = pack_candidates([counts[i]])
        s1, v1 = model(obs[i : i + 1], torch.from_numpy(ds[i].features), torch.from_numpy(one_o), torch.from_numpy(one_s), one_k)
        torch.testing.assert_close(s1[0], scores[i, : counts[i]], rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(v1, value[i : i + 1], rtol=1e-5, atol=1e-5)


def test_deduplicated_candidates_give_the_same_scores(model, batch):
    ds, obs, features, owner, slot, k, counts = batch
    scores, _ = model(obs, features, owner, slot, k)
    keys = [tuple(row) for row in features.numpy().astype(np.int8)[:, :53].tolist()]
    unique = {key: j for j, key in reversed(list(enumerate(keys)))}
    first = sorted(set(unique.values()))
    position = {j: n for n, j in enumerate(first)}
    index = torch.tensor([position[unique[key]] for key in keys])
    assert len(first) < len(keys)
    dedup_scores, _ = model(obs, features[first], owner, slot, k, index)
    torch.testing.assert_close(dedup_scores, scores)


def test_hand_order_does_not_matter(model, batch):
    _, obs, features, owner, slot, k, _ = batch
    shuffled = obs.clone()
    rng = np.random.default_rng(2)
    for i in range(len(obs)):
        shuffled[i, :13] = obs[i, :13][torch.from_numpy(rng.permutation(13))]  # padding ids move too
    a, _ = model(obs, features, owner, slot, k)
    b, _ = model(shuffled, features, owner, slot, k)
    torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)


def test_hand_attention_is_multihead_attention_with_a_key_padding_mask():
    torch.manual_seed(3)
    encoder = HandEncoder(32, 4, 64)
    reference = torch.nn.MultiheadAttention(32, 4, batch_first=True)
    with torch.no_grad():
        reference.in_proj_weight.copy_(encoder.qkv.weight)
        reference.in_proj_bias.copy_(encoder.qkv.bias)
        reference.out_proj.weight.copy_(encoder.out.weight)
        reference.out_proj.bias.copy_(encoder.out.bias)
    cards = torch.randn(5, 13, 32)
    pad = torch.zeros(5, 13, dtype=torch.bool)
    for i, n in enumerate((13, 9, 4, 1, 7)):
        pad[i, n:] = True
    ours = encoder.attend(cards, pad)
    theirs, _ = reference(cards, cards, cards, key_padding_mask=pad, need_weights=False)
    torch.testing.assert_close(ours[~pad], theirs[~pad], rtol=1e-5, atol=1e-5)
    # forward_ids (the projection applied to the embedding table) is the same function
    embedding = torch.nn.Embedding(53, 32, padding_idx=52)
    ids = torch.full((3, 13), 52)
    ids[0, :13] = torch.arange(13)
    ids[1, :5] = torch.tensor([0, 7, 19, 30, 51])
    ids[2, :1] = torch.tensor([44])
    torch.testing.assert_close(encoder.forward_ids(ids, embedding), encoder(embedding(ids), ids == 52))


def test_fast_hand_path_has_the_plain_forward_and_gradients():
    """forward_ids (pair-logit table, keys padded to 16, held cards packed) against
    forward on the embedded hand: same outputs and same gradients, hands of every size,
    padding anywhere."""
    torch.manual_seed(4)
    embedding = torch.nn.Embedding(53, 32, padding_idx=52)
    encoder = HandEncoder(32, 4, 64)
    rng = np.random.default_rng(4)
    ids = torch.full((40, 13), 52)
    for i in range(len(ids)):
        n = 1 + i % 13
        ids[i, rng.permutation(13)[:n]] = torch.from_numpy(rng.permutation(52)[:n])
    weights = torch.randn(len(ids), 32)
    results = []
    for fast in (True, False):
        encoder.zero_grad()
        embedding.zero_grad()
        out = encoder.forward_ids(ids, embedding) if fast else encoder(embedding(ids), ids == 52)
        (out * weights).sum().backward()
        grads = [p.grad.clone() for p in [*encoder.parameters(), embedding.weight]]
        results.append((out.detach(), grads))
    (fast_out, fast_grads), (plain_out, plain_grads) = results
    torch.testing.assert_close(fast_out, plain_out, rtol=1e-5, atol=1e-5)
    for a, b in zip(fast_grads, plain_grads):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)


def test_size_is_small_and_config_round_trips(model, tmp_path):
    n = count_parameters(model)
    assert 100_000 <= n <= 1_000_000
    from agents.checkpoint import save_policy

    path = save_policy(tmp_path / "m.pt", model)
    assert path.stat().st_size < 2_000_000
    config = NetworkConfig(card_dim=16, hand_heads=2, state_dim=64)
    assert NetworkConfig.from_dict(config.to_dict()) == config
    with pytest.raises(ValueError, match="unknown NetworkConfig field"):
        NetworkConfig.from_dict({"card_dims": 8})
    with pytest.raises(ValueError, match="must divide"):
        NetworkConfig(card_dim=30, hand_heads=4)
    with pytest.raises(ValueError, match=r"an int in 1\.\.4096"):
        NetworkConfig(state_dim=0)


def test_gradients_reach_every_parameter(model, batch):
    torch.manual_seed(0)
    net = Big2Net(model.config)
    _, obs, features, owner, slot, k, _ = batch
    scores, value = net(obs, features, owner, slot, k)
    (torch.log_softmax(scores, -1)[:, 0].sum() + value.sum()).backward()
    missing = [name for name, p in net.named_parameters() if p.grad is None or not torch.isfinite(p.grad).all()]
    assert not missing


def test_choose_samples_only_real_candidates_and_argmax_when_deterministic():
    with np.errstate(divide="ignore"):
        logp = np.log(np.array([[0.5, 0.5, 0.0], [0.1, 0.2, 0.7], [1.0, 0.0, 0.0]], dtype=np.float32))
    counts = np.array([2, 3, 1])
    rng = np.random.default_rng(0)
    picks = np.array([choose(logp, counts, rng) for _ in range(2000)])
    assert (picks[:, 0] < 2).all() and (picks[:, 2] == 0).all()
    assert abs((picks[:, 1] == 2).mean() - 0.7) < 0.05
    assert choose(logp, counts, None).tolist() == [0, 2, 0]


def test_network_policy_acts_legally_with_one_forward_pass(model, monkeypatch):
    games = [Game(seed=s) for s in range(6)]
    observations = [observation_dict(g) for g in games]
    for o, g in zip(observations, games):
        o["observation"] = observation_of(Decision(g), model)
    policy = NetworkPolicy(model, deterministic=True)
    calls = []
    original = model.forward_heads
    monkeypatch.setattr(model, "forward_heads", lambda *a, **k: calls.append(1) or original(*a, **k))
    actions = policy.act_batch(observations)
    assert len(calls) == 1
    assert all(a in o["candidate_actions"] for a, o in zip(actions, observations))
    # without the candidate view the candidates are rebuilt from the mask: same choice
    bare = [{"observation": o["observation"], "action_mask": o["action_mask"]} for o in observations]
    assert policy.act_batch(bare) == actions
    probs = policy.probabilities(observations[0])
    assert sorted(probs) == observations[0]["candidate_actions"].tolist()
    assert sum(probs.values()) == pytest.approx(1.0, abs=1e-5)
    sampler = NetworkPolicy(model, seed=5)
    first = sampler.act_batch(observations)
    sampler.seed(5)
    assert sampler.act_batch(observations) == first


def test_score_numpy_matches_the_torch_forward(model, batch):
    ds, obs, features, owner, slot, k, counts = batch
    logp, value = score_numpy(model, obs.numpy(), features.numpy(), np.array(counts))
    scores, v = model(obs, features, owner, slot, k)
    np.testing.assert_allclose(logp, torch.log_softmax(scores, -1).detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(value, v.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_importing_the_environment_and_cli_never_imports_torch():
    code = (
        "import sys, big2_env, agents, agents.config, big2_env.cli as cli\n"
        "cli.build_parser().parse_args(['train', '--batches', '3'])\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("seed", range(5))
def test_parameter_count_formula_matches_built_networks(seed):
    rng = np.random.default_rng(seed)
    heads = int(rng.choice([1, 2, 4]))
    values = {name: int(rng.integers(1, 40)) for name in
              ("hand_ff", "field_dim", "count_dim", "state_dim", "state_ff", "action_hidden", "action_dim", "value_hidden")}
    config = NetworkConfig(card_dim=heads * int(rng.integers(1, 10)), hand_heads=heads, value_head=bool(seed % 2), **values)
    assert parameter_count(config) == count_parameters(Big2Net(config))


def test_a_huge_config_is_refused_before_anything_is_allocated():
    huge = NetworkConfig(card_dim=4096, hand_ff=4096, field_dim=4096, state_dim=4096, state_ff=4096)
    with pytest.raises(ValueError, match="parameters, more than the"):
        Big2Net(huge)
    with pytest.raises(ValueError, match=r"must be an int in 1\.\.4096"):
        NetworkConfig(state_ff=10**9)


@pytest.mark.parametrize("seed", range(6))
def test_parameter_count_formula_matches_built_networks_of_every_design(seed):
    rng = np.random.default_rng(seed)
    design, observation = [("paper", "paper"), ("plus", "paper"), ("paper", "extended"), ("plus", "extended"),
                           ("paper", "charlesworth"), ("paper", "charlesworth")][seed]
    config = NetworkConfig(
        design=design, observation=observation, mlp_hidden=int(rng.integers(1, 40)),
        state_dim=int(rng.integers(1, 40)), action_dim=int(rng.integers(1, 40)), scorer_hidden=int(rng.integers(1, 40)),
        count_dim=int(rng.integers(1, 40)), field_dim=int(rng.integers(1, 40)), value_head=bool(seed % 3),
    )
    assert parameter_count(config) == count_parameters(Big2Net(config))


def test_the_plus_scorer_sees_the_hand_each_play_leaves(batch):
    ds, obs, features, owner, slot, k, counts = batch
    net = Big2Net(NetworkConfig(design="plus"))
    hand = net.hand_indicator(obs[:, :277])
    left = hand.index_select(0, owner) - features[:, :52]
    assert set(left.unique().tolist()) <= {0.0, 1.0}  # a play's cards are always in the hand
    sizes = (obs[:, :13] != 52).sum(1).to(torch.float32).index_select(0, owner)
    torch.testing.assert_close(left.sum(1), sizes - features[:, :52].sum(1))
    # The scores read l: changing only the hand-left encoder changes them.
    with torch.no_grad():
        first = torch.from_numpy(np.stack([d.features[0] for d in ds]))
        before = net.score_pairs(obs[:, :277], first)
        net.left_encoder.weight.add_(1.0)
        after = net.score_pairs(obs[:, :277], first)
    assert not torch.allclose(before, after)


def test_a_network_refuses_observations_of_the_wrong_width():
    with pytest.raises(ValueError, match="315-number observations"):
        Big2Net(NetworkConfig(observation="extended")).encode_state(torch.zeros(2, 277))
    with pytest.raises(ValueError, match="277-number observations"):
        Big2Net(NetworkConfig()).encode_state(torch.zeros(2, 315))
    with pytest.raises(ValueError, match="design must be one of paper, plus"):
        NetworkConfig(design="huge")
