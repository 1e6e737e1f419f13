"""Charlesworth's network as a player: his file format read safely, his 412 numbers, the policy and its spec.

The tests write their own small files in his format (``write_parameters``, checked opcode by
opcode against the layout ``joblib.dump`` gives his real file); his file is never shipped.
"""

from __future__ import annotations

import os
import pickle
import pickletools

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from big2_env import Game, Rules, evaluate
from big2_env.evaluation.loading import load_agent
from big2_env.errors import LoadError
from big2_env.observations.decision import Decision, PolicyObservation
from big2_env.players.charlesworth import (
    PARAMETER_SHAPES,
    CharlesworthNetwork,
    CharlesworthPolicy,
    load_parameters,
    network_input,
    write_parameters,
)

LAST, OTHERS, RECORD = 383, 286, 367


def random_arrays(seed: int = 0, scale: float = 0.05) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=shape) * scale).astype(np.float32) for shape in PARAMETER_SHAPES]


@pytest.fixture()
def params_file(tmp_path):
    path = tmp_path / "modelParameters0"
    write_parameters(random_arrays(), path)
    return str(path)


def test_the_file_round_trips_and_has_joblibs_layout(params_file):
    arrays = load_parameters(params_file)
    for got, want in zip(arrays, random_arrays()):
        assert got.dtype == np.float32 and np.array_equal(got, want)
    data = open(params_file, "rb").read()
    ops = []
    for op, arg, _ in pickletools.genops(data):  # the header of the first array, as in his file
        ops.append((op.name, arg))
        if op.name == "BUILD" and ops[-2][0] == "SETITEMS":
            break
    assert ops[0] == ("PROTO", 3) and ("GLOBAL", "joblib.numpy_pickle NumpyArrayWrapper") in ops
    assert ("GLOBAL", "numpy ndarray") in ops and ("GLOBAL", "numpy dtype") in ops and ("BININT2", 412) in ops
    raw = sum(int(np.prod(s)) * 4 for s in PARAMETER_SHAPES)  # the float32 bytes, each array's after its header
    assert data.endswith(b"e.") and raw < len(data) < raw + 10 * 300


def test_unsafe_or_wrong_files_are_refused_without_running_anything(tmp_path):
    class Boom:
        def __reduce__(self):
            return (os.system, ("echo pwned > " + str(tmp_path / "pwned"),))

    evil = tmp_path / "evil"
    evil.write_bytes(pickle.dumps([Boom()], protocol=3))
    with pytest.raises(LoadError, match="names posix.system|names nt.system|names os.system"):
        load_parameters(evil)
    assert not (tmp_path / "pwned").exists()
    plain = tmp_path / "plain"
    plain.write_bytes(pickle.dumps([np.zeros(3)], protocol=3))  # numpy's own pickling: _reconstruct is refused
    with pytest.raises(LoadError, match="not a parameter file"):
        load_parameters(plain)
    wrong = tmp_path / "wrong"
    arrays = random_arrays()
    write_parameters(arrays, wrong)
    truncated = tmp_path / "truncated"
    truncated.write_bytes(wrong.read_bytes()[:5000])
    with pytest.raises(LoadError, match="ends inside an array|not a parameter file"):
        load_parameters(truncated)
    with pytest.raises(LoadError, match="cannot read"):
        load_parameters(tmp_path / "missing")
    with pytest.raises(ValueError, match="shapes"):
        write_parameters(arrays[:9], wrong)


def test_the_network_is_his_architecture():
    arrays = random_arrays(1)
    net = CharlesworthNetwork(arrays)
    x = np.random.default_rng(2).integers(0, 2, size=(3, 412)).astype(np.float32)
    w1, b1, w2, b2, wp, bp, w3, b3, wv, bv = arrays
    h1 = np.maximum(x @ w1 + b1, 0)
    np.testing.assert_allclose(net.logits(x), np.maximum(h1 @ w2 + b2, 0) @ wp + bp, rtol=1e-5)
    np.testing.assert_allclose(net.value(x), (np.maximum(h1 @ w3 + b3, 0) @ wv + bv)[:, 0], rtol=1e-5)


HAND = [1, 5, 9, 13, 17, 21, 25, 29, 33, 37, 41, 45, 49]  # one club of each rank, 3 .. 2


def test_the_hand_section():
    x = network_input([], [32, 36, 40, 44, 48, 49, 50, 51, 3, 7, 11, 15, 19])  # J Q K A + four 2s, spades 3..7
    hand = sorted([32, 36, 40, 44, 48, 49, 50, 51, 3, 7, 11, 15, 19])
    for slot, card in enumerate(hand):
        row = x[22 * slot : 22 * slot + 22]
        assert row[card >> 2] == 1 and row[13 + (card & 3)] == 1 and row[:13].sum() == 1
        rank = card >> 2
        assert row[17] == row[18] == row[19] == (rank == 12)  # only the 2s are held more than once
        assert row[20] == (rank in (8, 9, 10, 11, 12) or rank in (0, 1, 2, 3, 4))  # J-Q-K-A-2 and 3-7 are runs
        assert row[21] == ((card & 3) in (0, 3))  # five diamonds (J Q K A 2) and six spades: flush suits
    short = network_input([], hand[:5])
    assert short[22 * 5 : 286].sum() == 0 and short[:22 * 5].sum() > 0  # empty slots stay zero


def test_a_single_then_passes_then_control():
    x = network_input([(3, (0,))], HAND)  # the previous player led the three of diamonds
    block = OTHERS + 27 * 2  # the previous player is the third block
    assert x[block + 11] == 1 and x[block : block + 13].sum() == 1  # 12 cards left
    assert x[LAST + 18] == 1 and x[LAST + 0] == 1 and x[LAST + 13] == 1 and x[LAST + 26] == 1
    assert x[LAST:].sum() == 4
    # we lead the two of spades, three passes: control comes back to us
    hand = [c for c in HAND if c != 49]
    x = network_input([(3, (0,)), (0, (51,)), (1, ()), (2, ()), (3, ())], hand)
    assert x[LAST:].tolist() == [0] * 17 + [1] + [0] * 11
    assert x[RECORD + 15] == 1 and x[RECORD:LAST].sum() == 1  # the 2 of spades is on the record


def test_passes_count_for_the_others_only():
    straight = (2, 6, 9, 13, 19)  # 3-H 4-H 5-C 6-C 7-S: a plain straight
    x = network_input([(1, straight), (2, ()), (3, ())], HAND)
    assert x[LAST + 23] == 1 and x[LAST + 25] == 1  # his quirk: straight and full house
    assert x[LAST + 2] == 1 and x[LAST + 13 : LAST + 17].sum() == 0  # keyed by the middle card (5), no suit
    assert x[LAST + 28] == 1 and x[LAST + 26] == 0 and x[LAST + 27] == 0  # two passes since
    block = OTHERS  # the next player (seat 1) played it
    assert x[block + 7] == 1 and x[block + 24] == 1 and x[block + 26] == 1 and x[block + 25] == 0
    x = network_input([(1, straight), (2, ())], HAND)  # one pass
    assert x[LAST + 27] == 1 and x[LAST + 26] == 0
    x = network_input([(3, straight), (0, ())], HAND)  # our own pass does not move our view
    assert x[LAST + 26] == 1 and x[LAST + 27] == 0


def test_flushes_and_four_card_hands():
    flush = (3, 11, 23, 35, 47)  # spades 3 5 8 J A
    x = network_input([(2, flush)], HAND)
    assert x[LAST + 24] == 1 and x[LAST + 25] == 0 and x[LAST + 23] == 0
    assert x[LAST + 11] == 1 and x[LAST + 16] == 1  # keyed by A-S
    assert x[OTHERS + 27 + 25] == 1 and x[OTHERS + 27 + 26] == 0
    assert x[OTHERS + 27 + 13 + 3] == 1  # A-S among the top eight cards played by seat 2
    x = network_input([(2, (40, 42, 44, 46))], HAND)  # two pair K-K A-A
    assert x[LAST + 21] == 1 and x[LAST + 11] == 1 and x[LAST + 15] == 1 and x[OTHERS + 27 + 23] == 1
    x = network_input([(2, (40, 41, 42, 43))], HAND)  # four kings
    assert x[LAST + 22] == 1 and x[LAST + 21] == 0


def test_the_policy_plays_legal_moves_and_is_reproducible(params_file):
    policy = load_agent(f"charlesworth:{params_file}", rules="charlesworth", seed=3)
    assert isinstance(policy, CharlesworthPolicy) and not policy.greedy
    greedy = load_agent(f"charlesworth-greedy:{params_file}", rules="charlesworth")
    game = Game("charlesworth", seed=5)
    for _ in range(40):
        if game.is_over:
            break
        obs = PolicyObservation(Decision(game), extended=True)
        action = policy.act(obs)
        assert action in obs["candidate_actions"].tolist()
        assert greedy.act(obs) == greedy.act(obs)
        probabilities = policy.probabilities(obs)
        assert list(probabilities) == obs["candidate_actions"].tolist() and abs(sum(probabilities.values()) - 1) < 1e-5
        assert np.isfinite(policy.observation_value(obs))
        game.play(Decision(game).play_for_action(action))
    first = evaluate(f"charlesworth:{params_file}", "random", n_games=8, rules="charlesworth", seed=1)
    again = evaluate(f"charlesworth:{params_file}", "random", n_games=8, rules="charlesworth", seed=1)
    assert first.scores.tolist() == again.scores.tolist() and len(first.scores) == 8


def test_bad_specs_rules_and_observations_are_refused(params_file):
    with pytest.raises(LoadError, match="charlesworth' rules"):
        load_agent(f"charlesworth:{params_file}")
    with pytest.raises(LoadError, match="give the path"):
        load_agent("charlesworth:", rules="charlesworth")
    with pytest.raises(LoadError, match="cannot read"):
        load_agent("charlesworth:/no/such/file", rules="charlesworth")
    with pytest.raises(ValueError, match="charlesworth"):
        CharlesworthPolicy(params_file, rules="paper")
    with pytest.raises(ValueError, match="greedy"):
        CharlesworthPolicy(params_file, greedy=1)
    policy = CharlesworthPolicy(arrays=random_arrays())
    obs = PolicyObservation(Decision(Game("charlesworth", seed=0)), extended=False)
    with pytest.raises(ValueError, match="history"):  # an env made with history=False
        policy.act({key: obs[key] for key in obs if key != "history"})
    with pytest.raises(ValueError, match="action_mask"):
        policy.act({"observation": np.zeros(315), "history": np.zeros((0, 6)), "action_mask": np.ones(5)})


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), rules=st.sampled_from(["charlesworth", Rules(four_card_plays=True, straights="wrap")]))
def test_network_input_matches_the_reference_view_at_every_decision(seed, rules):
    """The compiled 412 numbers against the pure-Python view of ``tests/reference/charlesworth_view.py``
    (his game's move-by-move updates) at every decision of a random game."""
    from tests.reference.charlesworth_view import network_input as reference_input

    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    while not game.is_over:
        player = game.current_player
        history = [((seat - player) % 4, tuple(cards)) for seat, cards in game.history]
        hand = game.hand(player)
        np.testing.assert_array_equal(network_input(history, hand), reference_input(history, hand))
        game.play_index(rng.randrange(len(game.legal_plays())))


@pytest.mark.parametrize(
    "history, hand, message",
    [
        ([(4, (0,))], [4], "seat must be an int in 0..3"),
        ([(True, (0,))], [4], "seat must be an int in 0..3"),
        ([(3, (0,)), (1, (0, 1))], [4], "played before"),
        ([(3, (52,))], [4], "history move 0"),
        ([], [4, 4], "hand"),
    ],
)
def test_network_input_refuses_a_malformed_history_or_hand(history, hand, message):
    with pytest.raises(ValueError, match=message):
        network_input(history, hand)
