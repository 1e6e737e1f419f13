"""The batch stepper's parts: the rules state's record type and each view's own memory."""

from __future__ import annotations

import numpy as np
import pytest

from big2_env import vector_env
from big2_env.engine.core.games import TABLE_FIELDS
from big2_env.envs.batch.layout import H0, P0, STATE_DTYPE, STATE_SIZE, T0, TURNS, new_state, records
from big2_env.envs.batch.views import MEMORY_SIZES, VIEW_IDS, VIEW_SIZES, new_memory


def test_the_record_type_names_the_columns():
    assert STATE_DTYPE.itemsize == 8 * STATE_SIZE
    offsets = {name: STATE_DTYPE.fields[name][1] // 8 for name in STATE_DTYPE.names}
    assert offsets == {"hands": H0, "played": P0, "table": T0, "turns": TURNS}
    assert STATE_DTYPE["table"].names == TABLE_FIELDS
    state = new_state(3)
    for column in range(STATE_SIZE):
        state[2, column] = 100 + column
    rows = records(state)
    assert rows.shape == (3,) and rows["hands"][2].tolist() == [100, 101, 102, 103]
    assert rows["played"][2].tolist() == [104, 105, 106, 107] and int(rows["turns"][2]) == 100 + TURNS
    assert [int(rows["table"][name][2]) for name in TABLE_FIELDS] == list(range(100 + T0, 100 + TURNS))
    rows["table"]["winner"][0] = 2  # a view of the same memory
    assert state[0, T0 + TABLE_FIELDS.index("winner")] == 2


def test_each_view_has_its_own_memory_and_id():
    assert sorted(VIEW_IDS.values()) == [0, 1, 2] and set(VIEW_IDS) == set(VIEW_SIZES) == set(MEMORY_SIZES)
    assert {view: new_memory(view, 5).shape for view in VIEW_IDS} == {"paper": (5, 0), "extended": (5, 21),
                                                                        "charlesworth": (5, 9)}


@pytest.mark.parametrize("view", ["extended", "charlesworth"])
def test_a_views_memory_is_kept_beside_the_rules_state(view):
    """The same games under another view: the same rules state, and the view's memory apart from it
    (set at each deal: -1 in the extended view's columns, 0 in Charlesworth's)."""
    a, b = vector_env(6, seed=2, observation="paper"), vector_env(6, seed=2, observation=view)
    (obs, _), _ = a.reset(), b.reset()
    assert b._memory.shape == (6, MEMORY_SIZES[view])
    assert (b._memory == (-1 if view == "extended" else 0)).all()
    rng = np.random.default_rng(1)
    for _ in range(60):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, *_ = a.step(actions)
        b.step(actions)
        assert np.array_equal(a._state, b._state)
    assert (b._memory != (-1 if view == "extended" else 0)).any()


def test_each_step_returns_fresh_arrays_that_later_steps_leave_alone():
    """The kernels write every step's observations and masks into new arrays: what a caller keeps stays as it was."""
    import numpy as np

    from big2_env.envs.vector import vector_env

    venv = vector_env(16, seed=3)
    first, _ = venv.reset()
    kept = {k: v.copy() for k, v in first.items()}
    second, *_ = venv.step(np.argmax(first["action_mask"], axis=1))
    for key in kept:
        assert np.array_equal(first[key], kept[key]) and not np.shares_memory(first[key], second[key])
    assert second["action_mask"].dtype == np.int8 and not np.array_equal(second["observation"], first["observation"])
