"""The JAX core (big2_env.jax) against the compiled core, decision by decision, and its Pgx surface.

Every test but the first needs jax (the ``[jax]`` extra) and is skipped without it. The quick run
compares a few thousand decisions for the two presets and one house-rules combination; the
``slow`` ones cover every variant of the brute-force tests. ``benchmarks/jax_vs_core.py`` runs
at least 100,000 decisions per rule set and records them in ``benchmarks/jax/differential.json``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest

from big2_env import Rules

REPO = Path(__file__).resolve().parents[2]
HAS_JAX = find_spec("jax") is not None
needs_jax = pytest.mark.skipif(not HAS_JAX, reason="big2_env.jax needs jax: pip install -e '.[jax]'")

HOUSE = Rules(lone_triples=False, pass_locks=True, straights="wrap", flush_order="suit_first", four_card_plays=True,
              scoring="hk", opening="3D_leads_free")
QUICK = {"paper": Rules(), "charlesworth": Rules.preset("charlesworth"), "house": HOUSE}
SLOW = {
    "wrap": Rules(straights="wrap"),
    "suit_first": Rules(flush_order="suit_first"),
    "four_card": Rules(four_card_plays=True),
    "no_five_quads": Rules(five_card_quads=False),
    "hk": Rules(scoring="hk"),
    "leads_free": Rules(opening="3D_leads_free"),
    "3D_single": Rules(opening="3D_single"),
    "no_lone_triples": Rules(lone_triples=False),
    "pass_locks": Rules(pass_locks=True),
    "house_charlesworth": Rules(lone_triples=False, pass_locks=True, straights="to_two", four_card_plays=True,
                                five_card_quads=False, opening="3D_single"),
}


def test_without_jax_the_package_imports_and_big2_env_jax_names_the_extra():
    script = textwrap.dedent("""
        import sys
        sys.modules['jax'] = None
        import big2_env, big2_env.envs.vector
        try:
            import big2_env.jax
        except ImportError as error:
            print(type(error).__name__, error)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "MissingDependencyError big2_env.jax needs jax: pip install -e '.[jax]' (or pip install 'jax[cpu]')"
    )


# ------------------------------------------------------------------ the differential test
@needs_jax
@pytest.mark.parametrize("name", list(QUICK))
def test_the_jax_core_equals_the_compiled_core(name):
    from tests.differential.jax_compare import compare

    report = compare(QUICK[name], decisions=2_500, num_envs=16, seed=7)
    assert report.equal, report.first_mismatch
    assert report.decisions >= 2_500 and report.games >= 20 and report.smart_moves > 500


@needs_jax
@pytest.mark.slow
@pytest.mark.parametrize("name", list(SLOW))
def test_the_jax_core_equals_the_compiled_core_under_every_variant(name):
    from tests.differential.jax_compare import compare

    report = compare(SLOW[name], decisions=20_000, num_envs=64, seed=11)
    assert report.equal, report.first_mismatch
    assert report.games >= 200


@needs_jax
def test_the_comparison_sees_a_wrong_rule(monkeypatch):
    import tests.differential.jax_compare as differential
    from big2_env.jax import Big2

    monkeypatch.setattr(differential, "Big2", lambda rules: Big2(Rules(opening="3D_leads_free")))
    report = differential.compare("paper", decisions=8, num_envs=8, seed=0)
    assert report.mismatches.get("action_mask") == 8 and "action_mask of game 0" in report.first_mismatch


# ------------------------------------------------------------------ combinations, one by one
@needs_jax
@pytest.mark.parametrize("rules", [Rules(), Rules.preset("charlesworth"), HOUSE, Rules(four_card_plays=True)],
                         ids=["paper", "charlesworth", "house", "four_card"])
def test_every_action_is_classified_as_the_compiled_core_lists_it(rules):
    import jax
    import jax.numpy as jnp

    from big2_env.engine.core import hand_combinations
    from big2_env.jax import Game
    from big2_env.jax.tables import BLOCKS, SLOTS
    from big2_env.observations.paper import action_index

    game = Game(rules)

    @jax.jit
    def classified(hand_cards):
        cards = jnp.append(hand_cards, 52)
        out = [game.classify(cards[jnp.asarray(SLOTS[a:b, :k])], k) for a, b, k in BLOCKS]
        return [jnp.concatenate([o[i] for o in out]) for i in range(3)]

    rng = np.random.default_rng(5)
    hands = [np.sort(rng.choice(52, 13, replace=False)) for _ in range(40)]
    hands += [np.arange(13), np.arange(0, 52, 4)[:13], np.array([0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48]),
              np.array([1, 5, 9, 13, 17, 33, 37, 41, 45, 49, 0, 2, 3])]  # runs, one suit, a wrap-around
    for hand in hands:
        hand = np.sort(hand)
        ok, strength, category = (np.asarray(v) for v in classified(jnp.asarray(hand, dtype=jnp.int32)))
        masks, _, strengths, categories = hand_combinations(hand.tolist(), rules)
        expected = {action_index([c for c in range(52) if (m >> c) & 1], hand.tolist()): (s, k)
                    for m, s, k in zip(masks.tolist(), strengths.tolist(), categories.tolist())}
        assert set(np.flatnonzero(ok).tolist()) == set(expected)
        for a, (s, k) in expected.items():
            assert (strength[a], category[a]) == (s, k), a


# ------------------------------------------------------------------ hidden information
@needs_jax
def test_an_observation_does_not_change_when_unseen_cards_move_between_the_other_hands():
    import jax
    import jax.numpy as jnp

    from big2_env.jax import Big2, charlesworth_observation, paper_observation

    env = Big2("charlesworth")
    n = 32
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(3), n))
    step = jax.jit(jax.vmap(env.step))
    rng = np.random.default_rng(4)
    paper_view = jax.jit(jax.vmap(paper_observation))
    cw_view = jax.jit(jax.vmap(charlesworth_observation))
    mask = jax.jit(jax.vmap(env.game.legal_action_mask))
    checked = 0
    for turn in range(60):
        if turn % 6 == 5:
            x = state._x
            hands = np.array(x.hands)
            for viewer_offset in range(4):
                viewers = (np.asarray(state.current_player) + viewer_offset) % 4
                moved = hands.copy()
                for g in range(n):
                    others = [s for s in range(4) if s != viewers[g]]
                    pool = np.flatnonzero(hands[g, others].any(axis=0))
                    rng.shuffle(pool)
                    at = 0
                    for s in others:  # each other hand keeps its size, with other unseen cards
                        k = int(hands[g, s].sum())
                        moved[g, s] = False
                        moved[g, s, pool[at : at + k]] = True
                        at += k
                changed = x._replace(hands=jnp.asarray(moved))
                assert (moved != hands).any()
                who = jnp.asarray(viewers, dtype=jnp.int32)
                assert (np.asarray(paper_view(x, who)) == np.asarray(paper_view(changed, who))).all()
                assert (np.asarray(cw_view(x, who)) == np.asarray(cw_view(changed, who))).all()
                if viewer_offset == 0:  # the mover's legal actions depend on its own hand only
                    assert (np.asarray(mask(x)) == np.asarray(mask(changed))).all()
                checked += n
        legal = np.asarray(state.legal_action_mask)
        actions = np.argmax(np.where(legal, rng.random(legal.shape), -1.0), axis=1)
        state = step(state, jnp.asarray(actions, dtype=jnp.int32))
    assert checked >= 4 * 10 * n


# ------------------------------------------------------------------ Pgx's form
@needs_jax
def test_jit_and_vmap_give_pgx_fields_of_the_documented_shapes_and_dtypes():
    import jax
    import jax.numpy as jnp

    from big2_env.jax import Big2

    env = Big2("charlesworth", observation="charlesworth")
    assert env.num_players == 4 and env.num_actions == 1695 and env.observation_shape == (412,) and env.id == "big2"
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), 5))
    assert state.observation.shape == (5, 412) and state.observation.dtype == jnp.float32
    assert state.legal_action_mask.shape == (5, 1695) and state.legal_action_mask.dtype == jnp.bool_
    assert state.current_player.dtype == jnp.int32 and state.rewards.shape == (5, 4)
    assert state.rewards.dtype == jnp.float32 and state.terminated.dtype == jnp.bool_
    assert (np.asarray(state.legal_action_mask.sum(axis=1)) == 1).all()  # charlesworth: 3D alone opens


@needs_jax
def test_a_finished_game_stays_finished_and_an_illegal_action_ends_the_game():
    import jax
    import jax.numpy as jnp

    from big2_env.jax import Big2

    env = Big2()
    step = jax.jit(env.step)
    state = jax.jit(env.init)(jax.random.PRNGKey(1))
    illegal = int(np.flatnonzero(~np.asarray(state.legal_action_mask))[0])
    lost = step(state, illegal)
    assert bool(lost.terminated) and lost.rewards.tolist()[int(state.current_player)] == -3.0
    assert float(lost.rewards.sum()) == 0.0 and bool(lost.legal_action_mask.all())
    rng = np.random.default_rng(0)
    while not bool(state.terminated):
        state = step(state, int(rng.choice(np.flatnonzero(np.asarray(state.legal_action_mask)))))
    scores = jax.jit(env.scores)(state)
    assert float(state.rewards.sum()) == 0.0 and (np.asarray(state.rewards) == np.asarray(scores)).all()
    assert int(env.winner(state)) == int(state.current_player) and bool(state.legal_action_mask.all())
    again = step(state, 0)
    assert (np.asarray(again.rewards) == 0).all() and int(again._step_count) == int(state._step_count)
    assert (np.asarray(again._x.hands) == np.asarray(state._x.hands)).all()
    assert jnp.array_equal(again.observation, state.observation)


@needs_jax
def test_pgx_api_test_passes(monkeypatch):
    pytest.importorskip("pgx", reason="Pgx's API test needs pgx (pip install pgx)")
    from typing import Literal, get_args

    import jax
    import jax.numpy as jnp
    import pgx
    import pgx._src.api_test as api_test

    from big2_env.jax import Big2

    env = Big2()
    assert isinstance(env, pgx.Env)
    # Pgx's test also checks the id against Pgx's own list of games, which cannot name ours; and its
    # act_randomly samples along axis 1, which a single game's mask lacks (Pgx 2.6.0's own tic_tac_toe
    # fails its single-game test so under jax 0.10): both are given what they mean
    monkeypatch.setattr(api_test, "EnvId", Literal[get_args(pgx.core.EnvId) + ("big2",)])  # type: ignore[misc]
    monkeypatch.setattr(api_test, "act_randomly", jax.jit(
        lambda key, mask: jax.random.categorical(key, jnp.log(mask.astype(jnp.float32)), axis=-1)))
    api_test.api_test(env, num=1)


@needs_jax
def test_bad_settings_are_refused():
    from big2_env.jax import Big2, Game

    with pytest.raises(ValueError, match="observation must be 'paper'"):
        Big2(observation="extended")
    with pytest.raises(ValueError, match="unknown rules preset"):
        Game("bogus")
    with pytest.raises(ValueError, match="size must be 1 to 5"):
        Game().classify(np.zeros(6, dtype=np.int32), 6)
    env = Big2()
    with pytest.raises(ValueError, match="a key or a deck"):
        env.step_autoreset(None, 0)


# ------------------------------------------------------------------ the PPO example
@needs_jax
def test_the_jax_ppo_example_refuses_a_negative_time_limit(capsys):
    sys.path.insert(0, str(REPO / "examples"))
    try:
        import jax_ppo
    finally:
        sys.path.remove(str(REPO / "examples"))
    with pytest.raises(SystemExit):
        jax_ppo.main(["--max-seconds", "-1", "--out", "unused"])
    assert "--max-seconds must be 0 (no limit) or more; got -1.0" in capsys.readouterr().err


@needs_jax
@pytest.mark.slow
def test_the_jax_ppo_example_trains_saves_a_policy_file_and_the_file_plays(tmp_path):
    pytest.importorskip("torch")
    from big2_env.evaluation import evaluate, load_agent

    sys.path.insert(0, str(REPO / "examples"))
    try:
        import jax_ppo
    finally:
        sys.path.remove(str(REPO / "examples"))
    summary = jax_ppo.main(["--updates", "4", "--eval-every", "2", "--eval-games", "16", "--out", str(tmp_path)])
    assert summary["decisions"] == 4 * 1280 and len(summary["log"]) == 3
    for row in summary["log"][1:]:
        assert row["last_decisions"] == pytest.approx(4 * row["games_ended"])  # each seat's last decision, once
        assert row["credited_sum"] == 0.0  # the four last decisions are the four seats' (scores sum to 0)
        assert np.isfinite([row["policy_loss"], row["value_loss"], row["entropy"], row["approx_kl"]]).all()
        assert 0.0 <= row["clip_fraction"] <= 1.0 and row["entropy"] > 0.0
    policy = load_agent(str(tmp_path / "model.pt"), rules="charlesworth")
    result = evaluate(policy, "random", n_games=8, seed=0, rules="charlesworth")
    assert result.n_games == 8
    assert not summary["stopped_by_max_seconds"]
    # --max-seconds: the first chunk always runs, and no chunk starts that would end past the limit;
    # what was trained is kept (the log and the policy file are written after every chunk)
    short = jax_ppo.main(["--updates", "6", "--eval-every", "2", "--eval-games", "16", "--max-seconds", "1e-6",
                          "--out", str(tmp_path / "short")])
    assert short["stopped_by_max_seconds"] and short["decisions"] == 2 * 1280 and len(short["log"]) == 2
    assert json.loads((tmp_path / "short" / "log.json").read_text())["decisions"] == 2 * 1280
    assert (tmp_path / "short" / "model.pt").is_file()
    # the checkpoint is written at every chunk's end, the last one's too
    assert json.loads(str(np.load(tmp_path / "short" / "checkpoint.npz")["meta.json"]))["update"] == 2


def jax_ppo_module():
    sys.path.insert(0, str(REPO / "examples"))
    try:
        import jax_ppo
    finally:
        sys.path.remove(str(REPO / "examples"))
    return jax_ppo


@needs_jax
def test_the_jax_ppo_checkpoint_is_replaced_whole_and_a_resume_that_changes_the_recipe_is_refused(tmp_path, capsys,
                                                                                                  monkeypatch):
    from dataclasses import asdict

    jax_ppo = jax_ppo_module()
    args = asdict(jax_ppo.Args(num_envs=8, num_steps=8, minibatch=32, out=str(tmp_path)))
    runner = {"params": {"w": np.arange(6, dtype=np.float32).reshape(2, 3)}, "key": np.array([1, 2], np.uint32)}
    jax_ppo.save_checkpoint(tmp_path, runner, np.array([3, 4], np.uint32), {"args": args, "update": 2, "chunk": 2, "log": []})
    meta, arrays = jax_ppo.load_checkpoint(tmp_path)  # read with allow_pickle=False
    assert meta["update"] == 2 and meta["args"] == args
    assert sorted(arrays) == ["eval_key", "runner['key']", "runner['params']['w']"]
    assert arrays["runner['params']['w']"].tolist() == [[0, 1, 2], [3, 4, 5]]

    def killed(file, **arrays):  # a write that dies half way
        file.write(b"PK\x03\x04 half a zip")
        raise KeyboardInterrupt

    monkeypatch.setattr(jax_ppo.np, "savez_compressed", killed)
    with pytest.raises(KeyboardInterrupt):
        jax_ppo.save_checkpoint(tmp_path, runner, np.array([3, 4], np.uint32), {"args": args, "update": 4})
    assert jax_ppo.load_checkpoint(tmp_path)[0]["update"] == 2  # the last whole one is kept
    monkeypatch.undo()

    with pytest.raises(SystemExit):
        jax_ppo.main(["--resume", str(tmp_path), "--updates", "8", "--lr", "0.001", "--num-envs", "16"])
    assert ("these arguments shape the state or the schedule and must be the checkpoint's: "
            "--num-envs 16 (the checkpoint's: 8), --lr 0.001 (the checkpoint's: 0.00025)") in capsys.readouterr().err
    with pytest.raises(SystemExit):
        jax_ppo.main(["--resume", str(tmp_path / "nothing")])
    assert f"--resume {tmp_path / 'nothing'}: no checkpoint.npz there" in capsys.readouterr().err


@needs_jax
@pytest.mark.slow
def test_a_resumed_jax_ppo_run_continues_bit_for_bit_where_a_straight_run_would_be(tmp_path):
    pytest.importorskip("torch")
    jax_ppo = jax_ppo_module()
    tiny = ["--num-envs", "8", "--num-steps", "8", "--minibatch", "32", "--eval-every", "2", "--eval-games", "8",
            "--snapshot-every", "100"]
    straight = jax_ppo.main(tiny + ["--updates", "4", "--out", str(tmp_path / "straight")])
    jax_ppo.main(tiny + ["--updates", "2", "--out", str(tmp_path / "spells")])
    first, _ = jax_ppo.load_checkpoint(tmp_path / "spells")
    resumed = jax_ppo.main(["--resume", str(tmp_path / "spells"), "--updates", "4"])
    meta, arrays = jax_ppo.load_checkpoint(tmp_path / "straight")
    resumed_meta, resumed_arrays = jax_ppo.load_checkpoint(tmp_path / "spells")
    # every array of the state: the parameters, Adam's moments and step, the games, the held decisions, the keys
    assert sorted(arrays) == sorted(resumed_arrays) and "runner.opt.mean['trunk_w']" in arrays
    for name, value in arrays.items():
        assert value.dtype == resumed_arrays[name].dtype and np.array_equal(value, resumed_arrays[name]), name
    assert int(arrays["runner.opt.step"]) == 4 * 5 * 2  # updates x epochs x minibatches
    assert int(arrays["runner.update"]) == meta["update"] == resumed_meta["update"] == 4
    # the log goes on from the checkpoint's, and the health figures of the last chunk are the straight run's
    assert [row["update"] for row in resumed["log"]] == [0, 2, 4] and resumed["log"][:2] == first["log"]
    timing = {"chunk_s"}
    assert ({k: v for k, v in resumed["log"][-1].items() if k not in timing}
            == {k: v for k, v in straight["log"][-1].items() if k not in timing})
    assert resumed["spells"] == [0, 2] and straight["spells"] == [0]
    # a policy file at the first chunk end past each multiple of --snapshot-every decisions (chunks of 128)
    for run in ("straight", "spells"):
        assert sorted(p.name for p in (tmp_path / run / "snapshots").iterdir()) == ["model_128.pt", "model_256.pt"]
