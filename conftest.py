"""pytest set-up for the whole checkout (the tests' own is ``tests/conftest.py``).

:mod:`big2_env.jax` needs jax (the ``[jax]`` extra), which the ``[test]`` extra does not bring:
without jax its modules' doctests are not collected, and ``tests/differential/test_jax_core.py`` skips the
tests that need it.
"""

from __future__ import annotations

from importlib.util import find_spec

collect_ignore_glob = [] if find_spec("jax") is not None else ["big2_env/jax/*.py"]
