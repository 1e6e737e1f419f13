"""The rgb_array picture of the table (big2_env.render.picture) and its use by the envs, SB3 and Gymnasium."""

from __future__ import annotations

import importlib.util
import warnings

import gymnasium
import numpy as np
import pytest

from big2_env import CATEGORY_NAMES, Game, Rules, raw_env
from big2_env.envs.gym import ENV_ID, Big2SingleAgentEnv
from big2_env.render.picture import FRAME_SHAPE, _GLYPHS, card_sprite, render_rgb, text_mask
from big2_env.engine.rules import OPENINGS

VARIANTS = [
    Rules(),
    Rules.preset("charlesworth"),
    Rules(straights="wrap"),
    Rules(four_card_plays=True),
    Rules(scoring="hk"),
    Rules(opening="3D_leads_free"),
    Rules(opening="3D_single"),
]
VIEWERS = ["current", "all", "none", None, 0, 3]
HAS_MOVIEPY = importlib.util.find_spec("moviepy") is not None


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def _check_frame(frame):
    assert isinstance(frame, np.ndarray)
    assert frame.shape == FRAME_SHAPE == (480, 640, 3)
    assert frame.dtype == np.uint8
    assert frame.flags.writeable  # a fresh array each call, not the cached background


def _legal_actions(venv):
    return [int(np.flatnonzero(m)[0]) for m in venv.env_method("action_masks")]


# ---------------------------------------------------------------- the picture itself
@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.straights}-{r.opening}-{r.scoring}-{r.four_card_plays}")
def test_shape_and_dtype_fixed_over_a_game(rules):
    rng = np.random.default_rng(1)
    game = Game(rules, seed=4)
    names = ["player_0", "player_1 (learner)", "a", "Zz 0123456789 +-:_()|/!?'#*=<>,."]
    while True:
        for viewer in VIEWERS:
            _check_frame(render_rgb(game, viewer))
        _check_frame(render_rgb(game, 1, names))
        if game.is_over:
            break
        plays = game.legal_plays()
        game.play(plays[int(rng.integers(len(plays)))])
    _check_frame(render_rgb(None))  # the empty table of an env before reset


def test_picture_changes_when_a_play_is_made():
    game = Game(seed=0)
    frames = [render_rgb(game, "all")]
    for _ in range(6):
        game.play(game.legal_plays()[-1])
        frames.append(render_rgb(game, "all"))
        assert not np.array_equal(frames[-2], frames[-1])
    assert np.array_equal(render_rgb(game, "all"), frames[-1])  # deterministic


def test_hidden_hands_are_face_down():
    # the same counts, trick and position; seats 1 and 2 swapped 8D and 9D
    kw = {"current_player": 0, "trick": "5S", "trick_player": 2, "passes": 1}
    a = Game.from_hands(["3D 4D 5D 6S", "6D 7D 8D", "9D TD JD", "QD KD AD"], **kw)
    b = Game.from_hands(["3D 4D 5D 6S", "6D 7D 9D", "8D TD JD", "QD KD AD"], **kw)
    for viewer in (0, 3, "none", "current"):  # no one who sees seat 1 or 2
        assert np.array_equal(render_rgb(a, viewer), render_rgb(b, viewer)), viewer
    for viewer in (1, 2, "all"):
        assert not np.array_equal(render_rgb(a, viewer), render_rgb(b, viewer)), viewer


def test_only_the_viewers_hand_region_changes():
    game = Game(seed=3)
    shown, hidden = render_rgb(game, 0), render_rgb(game, "none")  # seat 0 at the bottom in both
    rows = np.flatnonzero((shown != hidden).any(axis=(1, 2)))
    assert rows.size and rows.min() >= 400 and rows.max() < 450  # the bottom hand's cards only
    back = card_sprite(None)
    x0 = 320 - (12 * 26 + 36) // 2
    assert np.array_equal(hidden[400:450, x0 + 12 * 26 : x0 + 12 * 26 + 36][5:-5, 5:-5], back[5:-5, 5:-5])


def test_all_hands_shown_once_the_game_is_over():
    game = Game(seed=8)
    while not game.is_over:
        game.play(game.legal_plays()[0])
    everything = render_rgb(game, "all")
    for viewer in ("none", "current", 0):
        assert np.array_equal(render_rgb(game, viewer), everything)
    assert not np.array_equal(render_rgb(game, 2), everything)  # a seat viewer sits at the bottom


@pytest.mark.parametrize(
    "kwargs, message",
    [({"viewer": 7}, "viewer"), ({"viewer": "me"}, "viewer"), ({"names": ["a"]}, "names")],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        render_rgb(Game(seed=0), **kwargs)


def test_font_covers_the_texts_drawn():
    texts = ["Big 2 | turn 12 | game over", "played 52", "3456789TJQKA2", "player_0 (learner) wins", "score +39 -13"]
    texts += list(CATEGORY_NAMES) + [o.replace("_", " ") for o in OPENINGS] + ["2 passes since", "opens leads by pass"]
    missing = {ch for text in texts for ch in text} - set(_GLYPHS)
    assert not missing
    mask = text_mask("pass", 2)
    assert mask.shape == (14, (4 * 6 - 1) * 2) and mask.dtype == bool and mask.any()
    assert text_mask("\u263a", 1).shape == (7, 5)  # unknown characters are drawn, not dropped


def test_suit_colours():
    red = np.array([200, 30, 36], dtype=np.uint8)
    for card in range(52):
        rgb = card_sprite(card)
        is_red = (rgb == red).all(axis=2).any()
        assert is_red == (card & 3 in (0, 2)), card  # diamonds and hearts red, clubs and spades black


# ---------------------------------------------------------------- the envs
def test_aec_env_rgb_array_follows_render_view():
    frames = {}
    for view in ("all", "none", "current"):
        e = raw_env(render_mode="rgb_array", render_view=view)
        with pytest.raises(RuntimeError, match="reset"):
            e.render()
        e.reset(seed=5)
        frames[view] = e.render()
        _check_frame(frames[view])
        assert np.array_equal(frames[view], render_rgb(e.game, view))
    assert not np.array_equal(frames["all"], frames["none"])
    assert "rgb_array" in raw_env.metadata["render_modes"]


def test_gym_env_rgb_array_shows_the_learner():
    env = Big2SingleAgentEnv(render_mode="rgb_array", learner_seat=2)
    _check_frame(env.render())  # before reset: the empty table
    env.reset(seed=0)
    frame = env.render()
    _check_frame(frame)
    names = ["player_0", "player_1", "player_2 (learner)", "player_3"]
    assert np.array_equal(frame, render_rgb(env.game, 2, names))
    while True:
        _, _, terminated, _, _ = env.step(int(env.action_masks().argmax()))
        _check_frame(env.render())
        if terminated:
            break


def test_gymnasium_make_and_render_collection():
    env = gymnasium.wrappers.RenderCollection(gymnasium.make(ENV_ID, render_mode="rgb_array", learner_seat=0))
    env.reset(seed=1)
    for _ in range(3):
        env.step(int(env.unwrapped.action_masks().argmax()))
    frames = env.render()
    assert len(frames) == 4
    for frame in frames:
        _check_frame(frame)
    assert not np.array_equal(frames[0], frames[-1])


@pytest.mark.skipif(not HAS_MOVIEPY, reason="moviepy is not installed (Gymnasium's RecordVideo needs it: pip install moviepy)")
def test_gymnasium_record_video(tmp_path):
    env = gymnasium.wrappers.RecordVideo(
        gymnasium.make(ENV_ID, render_mode="rgb_array"), str(tmp_path), episode_trigger=lambda i: True
    )
    env.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(int(env.unwrapped.action_masks().argmax()))
        done = terminated or truncated
    env.close()
    assert list(tmp_path.glob("*.mp4"))


@pytest.mark.parametrize("vec_env, by_id", [("dummy", True), ("dummy", False), ("subproc", True)])  # subproc: ~7 s
def test_sb3_make_vec_env_get_images(vec_env, by_id):
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    cls = DummyVecEnv if vec_env == "dummy" else SubprocVecEnv
    if by_id:  # make_vec_env adds render_mode="rgb_array" itself for an env id
        # "module:id" makes gymnasium import big2_env (and so register the id) in fresh worker processes
        env_id = ENV_ID if vec_env == "dummy" else f"big2_env:{ENV_ID}"
        venv = make_vec_env(env_id, n_envs=2, seed=0, vec_env_cls=cls, env_kwargs={"opponents": "greedy"})
    else:
        venv = make_vec_env(Big2SingleAgentEnv, n_envs=2, seed=0, vec_env_cls=cls, env_kwargs={"render_mode": "rgb_array"})
    try:
        assert venv.render_mode == "rgb_array"
        venv.reset()
        first = venv.get_images()
        for _ in range(3):
            venv.step(np.array(_legal_actions(venv)))
        images = venv.get_images()
        assert len(images) == 2
        for image in images:
            _check_frame(image)
        assert any(not np.array_equal(a, b) for a, b in zip(first, images))
        tiled = venv.render()
        assert tiled is not None and tiled.dtype == np.uint8 and tiled.ndim == 3 and tiled.shape[2] == 3
    finally:
        venv.close()


@pytest.mark.skipif(not HAS_MOVIEPY, reason="moviepy is not installed (SB3's VecVideoRecorder needs it: pip install moviepy)")
def test_sb3_vec_video_recorder(tmp_path):
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import VecVideoRecorder

    venv = VecVideoRecorder(
        make_vec_env(ENV_ID, n_envs=1, seed=0), str(tmp_path), record_video_trigger=lambda i: i == 0, video_length=5
    )
    venv.reset()
    for _ in range(6):
        venv.step(np.array(_legal_actions(venv)))
    venv.close()
    assert list(tmp_path.glob("*.mp4"))
