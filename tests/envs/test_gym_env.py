"""The Gymnasium single-agent env: env checkers, seeding, seats, rewards, masks, illegal actions, render."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from big2_env import NUM_ACTIONS, Game, Rules
from big2_env.envs.gym import ENV_ID, Big2SingleAgentEnv, register_gymnasium, worst_score
from big2_env.players.base import Policy
from big2_env.players.random import RandomPolicy
from big2_env.players.registry import POLICIES

OPPONENT_NAMES = sorted(POLICIES)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def play_episode(env, seed=None, chooser=None, options=None):
    """Play one episode with legal actions (first legal by default); return the transitions."""
    obs, info = env.reset(seed=seed, options=options)
    steps = [(obs, info)]
    rng = np.random.default_rng(0 if seed is None else seed)
    while True:
        legal = np.flatnonzero(env.action_masks())
        action = int(legal[0]) if chooser is None else chooser(obs, legal, rng)
        obs, reward, terminated, truncated, info = env.step(action)
        steps.append((action, obs, reward, terminated, truncated, info))
        assert not truncated
        if terminated:
            return steps
        assert reward == 0.0


def random_legal(obs, legal, rng):
    return int(rng.choice(legal))


# ---------------------------------------------------------------- env checkers
@pytest.mark.parametrize("candidate_view", [False, True])
@pytest.mark.parametrize("opponents", OPPONENT_NAMES)
def test_gymnasium_check_env(candidate_view, opponents):
    env = Big2SingleAgentEnv(opponents=opponents, candidate_view=candidate_view, render_mode="ansi")
    check_env(env)


def test_gymnasium_check_env_registered():
    register_gymnasium()
    env = gymnasium.make(ENV_ID, render_mode="ansi")
    check_env(env.unwrapped)  # with a spec, so the other render mode is checked too


@pytest.mark.parametrize("candidate_view", [False, True])
def test_sb3_check_env(candidate_view):
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    env = Big2SingleAgentEnv(candidate_view=candidate_view)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_checker.check_env(env, warn=True)
    messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    if candidate_view:  # SB3 cannot use Sequence spaces: it says so and skips the value checks
        assert any("Sequence observation space is not supported" in m for m in messages)
    else:  # the (256, 6) history is neither an image nor a vector: SB3 only recommends flattening it
        assert [m for m in messages if "history" not in m] == []
        assert all("unconventional shape" in m for m in messages)
    without_history = Big2SingleAgentEnv(candidate_view=candidate_view, history=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_checker.check_env(without_history, warn=True)
    messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert messages == [] or candidate_view


def test_maskable_ppo_trains_on_registered_env():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    register_gymnasium()
    env = gymnasium.make(ENV_ID, opponents="random")
    model = MaskablePPO("MultiInputPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(32)
    obs, _ = env.reset(seed=5)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks())
    assert env.unwrapped.action_masks()[int(action)]
    env.step(action)  # a 0-d numpy array is accepted


def test_registration_is_idempotent():
    register_gymnasium()
    register_gymnasium()
    assert ENV_ID in gymnasium.registry
    env = gymnasium.make(ENV_ID, learner_seat=2, opponents="random")
    _, info = env.reset(seed=0)
    assert info["learner_seat"] == 2


# ---------------------------------------------------------------- spaces and observations
@pytest.mark.parametrize("candidate_view", [False, True])
def test_observations_in_space_and_masks_match(candidate_view):
    env = Big2SingleAgentEnv(candidate_view=candidate_view)
    assert set(env.observation_space.spaces) == (
        {"observation", "action_mask", "history", "candidate_actions", "candidate_features"}
        if candidate_view
        else {"observation", "action_mask", "history"}
    )
    assert env.action_space == gymnasium.spaces.Discrete(NUM_ACTIONS)
    for seed in range(3):
        steps = play_episode(env, seed=seed, chooser=random_legal)
        observations = [steps[0][0]] + [s[1] for s in steps[1:]]
        for obs in observations:
            assert env.observation_space.contains(obs)
        for obs in observations[:-1]:  # on move: something is legal
            assert obs["action_mask"].sum() >= 1
        # the last observation: the learner's state with nothing legal
        assert observations[-1]["action_mask"].sum() == 0 and not env.action_masks().any()
        if candidate_view:
            assert observations[-1]["candidate_actions"].shape == (0,)
            assert observations[-1]["candidate_features"].shape == (0, 80)


def test_action_masks_match_legal_actions_of_the_learner():
    env = Big2SingleAgentEnv(candidate_view=True, opponents="random")
    obs, info = env.reset(seed=11)
    rng = np.random.default_rng(1)
    while True:
        game = env.game
        assert game.current_player == info["learner_seat"] == env.learner_seat
        mask = env.action_masks()
        assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
        legal = np.flatnonzero(mask)
        assert legal.tolist() == obs["candidate_actions"].tolist()
        assert np.array_equal(obs["action_mask"], mask.astype(np.int8))
        assert len(legal) == len(game.legal_plays())
        obs, reward, terminated, _, info = env.step(int(rng.choice(legal)))
        if terminated:
            break


# ---------------------------------------------------------------- rewards and infos
@pytest.mark.parametrize("rules", [Rules(), Rules(scoring="hk"), Rules.preset("charlesworth")])
def test_reward_is_learners_final_score(rules):
    env = Big2SingleAgentEnv(rules=rules, opponents=OPPONENT_NAMES[-1])
    outcomes = set()
    for seed in range(8):
        *_, (action, obs, reward, terminated, truncated, info) = play_episode(env, seed=seed, chooser=random_legal)
        assert terminated and not truncated
        scores = env.game.scores()
        assert info["scores"] == scores and sum(scores) == 0
        assert reward == float(scores[info["learner_seat"]]) and isinstance(reward, float)
        assert info["winner"] == env.game.winner
        assert info["turns"] == env.game.turn
        assert info["illegal_action"] is False
        assert info["is_success"] == (info["winner"] == info["learner_seat"])
        outcomes.add(info["is_success"])
    assert False in outcomes  # a random learner loses sometimes


def test_step_after_end_and_before_reset_raise():
    env = Big2SingleAgentEnv()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    play_episode(env, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


# ---------------------------------------------------------------- seats
def test_learner_seat_fixed():
    for seat in range(4):
        env = Big2SingleAgentEnv(learner_seat=seat)
        for seed in range(3):
            steps = play_episode(env, seed=seed)
            assert steps[0][1]["learner_seat"] == seat
            assert all(s[-1]["learner_seat"] == seat for s in steps[1:])


def test_learner_seat_random_per_episode_and_option():
    env = Big2SingleAgentEnv()
    env.reset(seed=0)
    seats = [env.reset()[1]["learner_seat"] for _ in range(60)]
    assert set(seats) == {0, 1, 2, 3}
    _, info = env.reset(seed=1, options={"learner_seat": 3})
    assert info["learner_seat"] == 3 and env.game.current_player == 3
    with pytest.raises(ValueError, match="learner_seat"):
        env.reset(options={"learner_seat": 4})
    with pytest.raises(ValueError, match="learner_seat"):
        Big2SingleAgentEnv(learner_seat=-1)


def test_opponents_play_until_learner_is_on_move():
    env = Big2SingleAgentEnv(opponents="random")
    for seed in range(10):
        _, info = env.reset(seed=seed)
        game = env.game
        seat = info["learner_seat"]
        assert game.current_player == seat and not game.is_over
        # everything played so far was played by the opponents (before the learner's first move)
        assert all(player != seat for player, _ in game.history)
        holder = next(p for p in range(4) if 0 in game.hand(p)) if game.turn == 0 else game.history[0][0]
        assert len(game.history) == (seat - holder) % 4


# ---------------------------------------------------------------- seeding
def _trajectory(env, seed):
    steps = play_episode(env, seed=seed, chooser=random_legal)
    out = [steps[0][1]["learner_seat"], steps[0][0]["observation"].tolist()]
    for action, obs, reward, terminated, _, info in steps[1:]:
        out.append((action, obs["observation"].tolist(), reward, terminated))
    out.append(env.game.history)
    return out


@pytest.mark.parametrize("opponents", ["random", RandomPolicy(), ["random", RandomPolicy(), "random"]])
def test_same_seed_same_episode(opponents):
    env = Big2SingleAgentEnv(opponents=opponents)
    first = _trajectory(env, 123)
    env.reset(seed=999)
    for _ in range(3):  # consume the streams
        play_episode(env, chooser=random_legal)
    assert _trajectory(env, 123) == first
    other = Big2SingleAgentEnv(opponents=opponents)
    assert _trajectory(other, 123) == first
    assert _trajectory(other, 124) != first


def test_seed_reseeds_opponents():
    env = Big2SingleAgentEnv(opponents="random", learner_seat=0)
    env.reset(seed=5)
    first = list(env.game.history)
    env.opponents[0].seed(12345)  # disturb an opponent's stream; reset(seed) must restore it
    env.reset(seed=5)
    assert env.game.history == first


def test_sequence_of_episodes_is_reproducible():
    def run():
        env = Big2SingleAgentEnv()
        env.reset(seed=7)
        return [play_episode(env, chooser=random_legal)[-1][-1]["scores"] for _ in range(4)]

    assert run() == run()


# ---------------------------------------------------------------- opponents
class CountingPolicy(Policy):
    name = "counting"

    def __init__(self):
        self.calls = 0
        self.seeds = []

    def act(self, obs):
        self.calls += 1
        assert "candidate_actions" in obs and obs["action_mask"][int(obs["candidate_actions"][0])] == 1
        return int(obs["candidate_actions"][0])

    def seed(self, seed=None):
        self.seeds.append(seed)


def test_opponent_forms():
    shared = CountingPolicy()
    env = Big2SingleAgentEnv(opponents=shared)
    assert env.opponents == (shared, shared, shared)
    play_episode(env, seed=0)
    assert shared.calls > 0 and len(shared.seeds) == 1  # one object: seeded once per seeded reset

    a, b, c = CountingPolicy(), CountingPolicy(), CountingPolicy()
    env = Big2SingleAgentEnv(opponents=[a, b, c], learner_seat=0)
    assert env.opponents == (a, b, c)
    env.reset(seed=0)
    assert [len(p.seeds) for p in (a, b, c)] == [1, 1, 1] and len({a.seeds[0], b.seeds[0], c.seeds[0]}) == 3
    play_episode(env, seed=0)
    assert min(a.calls, b.calls, c.calls) > 0

    env = Big2SingleAgentEnv(opponents={"next": a, "across": "random", "previous": c})
    assert env.opponents[0] is a and env.opponents[2] is c and env.opponents[1].name == "random"
    env = Big2SingleAgentEnv(opponents={3: a, 1: b, 2: c})
    assert env.opponents == (b, c, a)

    env = Big2SingleAgentEnv(opponents="random")
    assert len({id(p) for p in env.opponents}) == 3


def test_seat_mapping_of_opponent_list():
    """opponents[k] plays the seat k + 1 places clockwise from the learner."""
    a, b, c = CountingPolicy(), CountingPolicy(), CountingPolicy()
    seen = {}

    def tracking(policy, tag):
        original = policy.act

        def act(obs):
            seen.setdefault(tag, set()).add(env.game.current_player)
            return original(obs)

        policy.act = act

    for p, tag in ((a, "a"), (b, "b"), (c, "c")):
        tracking(p, tag)
    env = Big2SingleAgentEnv(opponents=[a, b, c], learner_seat=1)
    for seed in range(3):
        play_episode(env, seed=seed)
    assert seen == {"a": {2}, "b": {3}, "c": {0}}


@pytest.mark.parametrize(
    "opponents, error",
    [
        ("nobody", ValueError),
        (["random", "random"], ValueError),
        ({"next": "random", "left": "random", "previous": "random"}, ValueError),
        (42, TypeError),
    ],
)
def test_bad_opponents(opponents, error):
    with pytest.raises(error):
        Big2SingleAgentEnv(opponents=opponents)


def test_bad_keywords():
    with pytest.raises(ValueError, match="illegal_action"):
        Big2SingleAgentEnv(illegal_action="ignore")
    with pytest.raises(ValueError, match="render_mode"):
        Big2SingleAgentEnv(render_mode="rgb")
    with pytest.raises(ValueError, match="candidate_view"):
        Big2SingleAgentEnv(candidate_view="yes")


# ---------------------------------------------------------------- illegal actions
def _an_illegal_action(env):
    return int(np.flatnonzero(env.action_masks() == 0)[0])


@pytest.mark.parametrize("rules, penalty", [(Rules(), -13.0), (Rules(scoring="hk"), -39.0)])
def test_illegal_action_penalize_default(rules, penalty):
    env = Big2SingleAgentEnv(rules=rules, candidate_view=True)
    assert env.illegal_penalty == penalty == worst_score(rules)
    env.reset(seed=3)
    turn = env.game.turn
    obs, reward, terminated, truncated, info = env.step(_an_illegal_action(env))
    assert (reward, terminated, truncated) == (penalty, True, False)
    assert info["illegal_action"] is True and info["scores"] is None and info["winner"] is None
    assert info["is_success"] is False and info["turns"] == turn == env.game.turn
    assert env.observation_space.contains(obs) and obs["action_mask"].sum() == 0
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError):
        env.step(0)
    env.reset()  # and a new episode starts normally
    assert env.action_masks().any()


def test_illegal_action_custom_penalty():
    env = Big2SingleAgentEnv(illegal_penalty=-100)
    env.reset(seed=0)
    assert env.step(_an_illegal_action(env))[1] == -100.0


def test_illegal_action_raise_leaves_state_unchanged():
    env = Big2SingleAgentEnv(illegal_action="raise")
    obs, _ = env.reset(seed=3)
    history = list(env.game.history)
    bad = _an_illegal_action(env)
    with pytest.raises(ValueError, match=rf"illegal action {bad}.*legal actions: \d+"):
        env.step(bad)
    assert env.game.history == history and env.action_masks().any()
    legal = int(np.flatnonzero(env.action_masks())[0])
    env.step(legal)  # play continues


@pytest.mark.parametrize("mode", ["penalize", "raise"])
@pytest.mark.parametrize("action", [-1, NUM_ACTIONS, 3.0, "7", True, None, np.array([1, 2])])
def test_actions_outside_the_space_raise(mode, action):
    env = Big2SingleAgentEnv(illegal_action=mode)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action must be an int"):
        env.step(action)


def test_numpy_actions_accepted():
    env = Big2SingleAgentEnv(learner_seat=0)
    env.reset(seed=0)
    legal = int(np.flatnonzero(env.action_masks())[0])
    for action in (np.int64(legal), np.array(legal), np.array([legal], dtype=np.int32)):
        env.reset(seed=0)
        _, _, terminated, _, info = env.step(action)
        assert "illegal_action" not in info or not info["illegal_action"]


# ---------------------------------------------------------------- render
def test_render_ansi_shows_only_the_learners_hand():
    env = Big2SingleAgentEnv(render_mode="ansi", learner_seat=2)
    env.reset(seed=0)
    text = env.render()
    assert "player_2 (learner)" in text and text.count("(hidden)") == 3
    env2 = Big2SingleAgentEnv()
    env2.reset(seed=0)
    assert env2.render() is None


def test_render_human_prints(capsys):
    env = Big2SingleAgentEnv(render_mode="human")
    env.reset(seed=0)
    assert "(learner)" in capsys.readouterr().out
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert "Big 2" in capsys.readouterr().out


def test_pickle_roundtrip():
    import pickle

    env = Big2SingleAgentEnv(opponents="random", learner_seat=1, rules=Rules(scoring="hk"), illegal_action="raise")
    clone = pickle.loads(pickle.dumps(env))
    assert (clone.rules, clone._fixed_seat, clone.illegal_action) == (Rules(scoring="hk"), 1, "raise")


def test_game_never_ends_before_learner_moves():
    env = Big2SingleAgentEnv(rules=Rules(opening="3D_leads_free"), opponents=OPPONENT_NAMES[0])
    for seed in range(30):
        env.reset(seed=seed)
        assert isinstance(env.game, Game) and not env.game.is_over


@pytest.mark.parametrize("keys, names", [("tianshou", ("obs", "mask")), ("rllib", ("observations", "action_mask"))])
def test_keys_rename_the_observation_entries_and_change_nothing_else(keys, names):
    plain = Big2SingleAgentEnv(opponents="greedy", candidate_view=True)
    renamed = Big2SingleAgentEnv(opponents="greedy", candidate_view=True, keys=keys)
    assert set(renamed.observation_space.spaces) == set(names) | {"candidate_actions", "candidate_features", "history"}
    a, _ = plain.reset(seed=5)
    b, _ = renamed.reset(seed=5)
    done = False
    while True:
        assert renamed.observation_space.contains(b)
        np.testing.assert_array_equal(a["observation"], b[names[0]])
        np.testing.assert_array_equal(a["action_mask"], b[names[1]])
        np.testing.assert_array_equal(a["candidate_actions"], b["candidate_actions"])
        if done:
            break
        action = int(a["candidate_actions"][0])
        a, ra, done, _, _ = plain.step(action)
        b, rb, done_b, _, _ = renamed.step(action)
        assert ra == rb and done == done_b
    with pytest.raises(ValueError, match="keys must be one of 'pettingzoo', 'rllib', 'tianshou'; got 'obs'"):
        Big2SingleAgentEnv(keys="obs")
    assert Big2SingleAgentEnv(keys=keys, mask_in_observation=False).observation_space.shape == (277,)  # the Box alone
