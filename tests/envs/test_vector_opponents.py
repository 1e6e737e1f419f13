"""The compiled single-agent vector env (gymnasium.make_vec("Big2-v0")) against the Python engine
and policies: the opponents choose, move by move, what GreedyPolicy and SmartPolicy choose."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import big2_env  # noqa: F401  (registers Big2-v0)
from big2_env import Game, Rules
from big2_env.engine.cards import mask_to_cards
from big2_env.envs.vector_opponents import Big2OpponentsVectorEnv
from big2_env.observations import observation_dict
from big2_env.observations.decision import Decision
from big2_env.observations.extended import extended_observation
from big2_env.observations.paper import PASS_ACTION, action_cards, observation
from big2_env.envs.batch.layout import records
from big2_env.players import GreedyPolicy, SmartPolicy

from tests.differential.test_bruteforce import VARIANT_IDS, VARIANTS


def dealt(env: Big2OpponentsVectorEnv) -> np.ndarray:
    """Every game's four dealt hands as bitmasks: the cards held and the cards played."""
    state = records(env._state)
    return state["hands"] | state["played"]


class Reference:
    """One game of the vector env replayed in the Python engine with the Python policies."""

    def __init__(self, hands: np.ndarray, learner: int, rules: Rules, kinds: list[str]) -> None:
        self.game = Game.from_hands([mask_to_cards(int(h)) for h in hands], rules)
        self.learner = learner
        policies = {"greedy": GreedyPolicy(rules), "smart": SmartPolicy(rules)}
        self.policies = {(learner + k + 1) % 4: policies[kinds[k]] for k in range(3)}
        self.opponents()

    def opponents(self) -> None:
        game = self.game
        while not game.is_over and game.current_player != self.learner:
            self.play(self.policies[game.current_player].act(observation_dict(game)))

    def play(self, action: int) -> None:
        hand = self.game.hand(self.game.current_player)
        self.game.play(() if action == PASS_ACTION else action_cards(action, hand))

    def step(self, action: int) -> None:
        self.play(action)
        self.opponents()


@pytest.mark.parametrize("rules", VARIANTS, ids=VARIANT_IDS)
@pytest.mark.parametrize(
    "kinds, view", [(["smart"] * 3, "paper"), (["greedy", "smart", "greedy"], "extended")], ids=["smart", "mixed-extended"]
)
def test_opponents_move_as_the_python_policies_and_games_match_the_engine(rules, kinds, view):
    n = 6
    env = Big2OpponentsVectorEnv(n, opponents=kinds, rules=rules, observation=view)
    see = observation if view == "paper" else extended_observation
    obs, infos = env.reset(seed=11)
    start = dealt(env)
    refs = [Reference(start[g], int(infos["learner_seat"][g]), rules, kinds) for g in range(n)]
    rng = np.random.default_rng(0)
    finished = 0
    while finished < 2 * n:
        features, candidates, counts = env.candidates()
        offsets = np.cumsum(counts) - counts
        for g, ref in enumerate(refs):  # the learner's view, mask and candidate rows are the reference's
            game = ref.game
            decision = Decision(game)
            rows = slice(offsets[g], offsets[g] + counts[g])
            assert candidates[rows].tolist() == decision.actions.tolist()
            np.testing.assert_array_equal(features[rows], decision.features)
            assert game.current_player == ref.learner
            np.testing.assert_array_equal(obs["observation"][g], see(game, ref.learner))
            assert obs["action_mask"][g].tolist() == observation_dict(game)["action_mask"].astype(np.int8).tolist()
            assert env.hands()[g].tolist() == [sum(1 << c for c in game.hand(p)) for p in range(4)]
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, rewards, terminations, truncations, infos = env.step(actions)
        start = dealt(env)
        for g, ref in enumerate(refs):
            ref.step(int(actions[g]))
            assert terminations[g] == ref.game.is_over
            if ref.game.is_over:
                finished += 1
                assert rewards[g] == ref.game.scores()[ref.learner]
                assert infos["final_info"]["winner"][g] == ref.game.winner
                assert infos["final_info"]["scores"][g].tolist() == ref.game.scores()
                np.testing.assert_array_equal(infos["final_obs"][g]["observation"], see(ref.game, ref.learner))
                refs[g] = Reference(start[g], int(infos["learner_seat"][g]), rules, kinds)
            else:
                assert rewards[g] == 0
        assert not truncations.any()


def test_make_vec_gives_the_compiled_env_and_sync_gives_the_python_one():
    envs = gymnasium.make_vec("Big2-v0", num_envs=3, opponents="smart", learner_seat=2)
    assert isinstance(envs, Big2OpponentsVectorEnv)
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    obs, infos = envs.reset(seed=0)
    assert envs.observation_space.contains(obs) and infos["learner_seat"].tolist() == [2, 2, 2]
    assert envs.single_action_space == gymnasium.spaces.Discrete(1695)
    sync = gymnasium.make_vec("Big2-v0", num_envs=2, vectorization_mode="sync", opponents="smart")
    assert isinstance(sync, gymnasium.vector.SyncVectorEnv)
    sync.close()
    with pytest.raises(ValueError, match="vectorization_mode='sync'"):
        gymnasium.make_vec("Big2-v0", num_envs=2, candidate_view=True)
    with pytest.raises(ValueError, match="vectorization_mode='sync'"):
        gymnasium.make_vec("Big2-v0", num_envs=2, opponents="search")


def test_seeded_and_reproducible_with_random_opponents():
    def run(seed):
        env = Big2OpponentsVectorEnv(8, opponents="random")
        obs, _ = env.reset(seed=seed)
        out = []
        for _ in range(80):
            obs, rewards, terminations, _, _ = env.step(obs["action_mask"].argmax(axis=1))
            out.append((obs["observation"].copy(), rewards.copy()))
        return out

    a, b, c = run(3), run(3), run(4)
    assert all(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) for x, y in zip(a, b))
    assert not all(np.array_equal(x[0], y[0]) for x, y in zip(a, c))


def test_random_opponents_play_legal_games_that_the_engine_replays():
    """Each ended game's scores sum to zero, and a learner playing its first legal action against
    three Random wins about as often as in the Python evaluation's statistics."""
    env = Big2OpponentsVectorEnv(64, opponents="random", learner_seat=0)
    obs, _ = env.reset(seed=1)
    wins = games = 0
    while games < 400:
        obs, rewards, terminations, _, infos = env.step(obs["action_mask"].argmax(axis=1))
        if terminations.any():
            scores = infos["final_info"]["scores"][terminations]
            assert np.all(scores.sum(axis=1) == 0)
            wins += int((infos["final_info"]["winner"][terminations] == 0).sum())
            games += int(terminations.sum())
    assert 0.45 < wins / games < 0.9  # Greedy-like play against Random (the paper: about 70% for Greedy)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"num_envs": 0}, "num_envs"),
        ({"num_envs": 2.5}, "num_envs"),
        ({"opponents": "search"}, "opponents"),
        ({"opponents": ["smart", "smart"]}, "opponents"),
        ({"learner_seat": 4}, "learner_seat"),
        ({"learner_seat": True}, "learner_seat"),
        ({"observation": "full"}, "observation"),
        ({"seed": -1}, "seed"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"illegal_penalty": float("nan")}, "illegal_penalty"),
    ],
)
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Big2OpponentsVectorEnv(**{"num_envs": 2, **kwargs})


def test_bad_actions_never_reach_compiled_code_and_leave_the_state_unchanged():
    env = Big2OpponentsVectorEnv(3, illegal_action="raise")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(3, dtype=np.int64))
    obs, _ = env.reset(seed=0)
    before = env.hands()
    legal = obs["action_mask"].argmax(axis=1)
    illegal = legal.copy()
    illegal[1] = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
    for bad, match in [
        (legal[:2], "shape"),
        (legal.astype(float), "dtype"),
        (np.array([0, -1, 0]), "out of range"),
        (np.array([0, 1695, 0]), "out of range"),
        (illegal, "not legal in game 1"),
    ]:
        with pytest.raises(ValueError, match=match):
            env.step(bad)
        assert np.array_equal(env.hands(), before)
    env.step(legal)
    with pytest.raises(ValueError, match="reset options"):
        env.reset(options={"learner_seat": 1})


def test_an_illegal_action_ends_its_game_with_the_penalty_by_default():
    env = Big2OpponentsVectorEnv(3, opponents="smart")
    obs, _ = env.reset(seed=2)
    actions = obs["action_mask"].argmax(axis=1)
    actions[1] = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
    obs, rewards, terminations, _, infos = env.step(actions)
    assert terminations.tolist() == [False, True, False] and rewards[1] == -13.0  # the worst score under the paper's scoring
    assert infos["final_info"]["illegal_action"].tolist() == [False, True, False]
    assert infos["final_info"]["winner"][1] == -1
    assert obs["action_mask"][1].any()  # game 1 was dealt again and is on the learner's move
    env = Big2OpponentsVectorEnv(1, illegal_penalty=-5)
    obs, _ = env.reset(seed=0)
    assert env.step(np.array([int(np.flatnonzero(obs["action_mask"][0] == 0)[0])]))[1][0] == -5.0


def test_candidates_before_reset_is_an_error():
    with pytest.raises(RuntimeError, match="reset"):
        Big2OpponentsVectorEnv(2).candidates()
