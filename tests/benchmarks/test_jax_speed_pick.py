"""The JAX speed benchmark's random legal choice (benchmarks/jax_speed.py): the k-th legal action, exactly."""

from __future__ import annotations

import numpy as np
import pytest

from tests.scripts import load_script

jnp = pytest.importorskip("jax.numpy")


def test_random_legal_is_the_kth_legal_action() -> None:
    speed = load_script("benchmarks/jax_speed.py")
    rng = np.random.default_rng(0)
    density = rng.choice([0.001, 0.01, 0.2, 1.0], size=(256, 1))
    mask = rng.random((256, 1695)) < density
    mask[np.arange(256), rng.integers(0, 1695, 256)] = True  # every row has a legal action
    mask[0] = False
    mask[0, 1694] = True  # pass alone
    mask[1] = False
    mask[1, 0] = True  # the first action alone
    u = rng.random(256)
    u[2:6] = [0.0, 0.999999, 0.5, 0.25]
    got = np.asarray(speed.random_legal(jnp.asarray(mask), jnp.asarray(u, dtype=jnp.float32)))
    counts = mask.sum(axis=1)
    picks = np.minimum((u.astype(np.float32) * counts).astype(np.int64), counts - 1)
    expected = [np.flatnonzero(row)[k] for row, k in zip(mask, picks)]
    assert got.tolist() == expected
    assert mask[np.arange(256), got].all()


@pytest.mark.parametrize("bad", [["--decisions", "0"], ["--jax-decisions", "-1"]])
def test_the_speed_benchmark_refuses_bad_counts(bad, capsys) -> None:
    speed = load_script("benchmarks/jax_speed.py")
    with pytest.raises(SystemExit):
        speed.main(bad)
    assert "--jax-decisions at least 0" in capsys.readouterr().err
