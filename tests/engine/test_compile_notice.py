"""The compiled core says when it compiles, from Python as from the command line: one line through
``logging`` when compiling starts, one with the seconds it took, nothing when everything loads from
numba's disk cache (:mod:`big2_env.engine.compile_notice`)."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import textwrap
import time

import numba
import pytest

import big2_env.engine.core  # noqa: F401  (starts the process's notice, as any use of the core does)
from big2_env.engine.compile_notice import CompileNotice, _is_ours, watch

START = "compiling the game's core for this machine"
TOOK = re.compile(r"big2_env: compiling took \d+\.\d s \(cached now")


def _kernel(name: str = "big2_env._probe"):
    """A fresh numba function that passes for one of big2_env's (never cached: it compiles at its first call)."""

    def probe(x):
        return x + 1

    probe.__module__ = name
    return numba.njit(probe)


def _said(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "big2_env.compile"]


@pytest.fixture(autouse=True)
def _nothing_pending():
    watch().finish()  # a notice of an earlier test's compiling ends before this test
    yield


def _wait_for(caplog, count: int, seconds: float = 10.0) -> list[str]:
    deadline = time.monotonic() + seconds
    while len(_said(caplog)) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    return _said(caplog)


def test_the_notices_are_big2_envs_logging_at_warning():
    parent = logging.getLogger("big2_env")
    assert logging.getLogger("big2_env.compile").parent is parent
    assert watch() is watch()  # one per process, listening since the core was imported


@pytest.mark.parametrize("module, ours", [("big2_env", True), ("big2_env.engine.core.kernels", True),
                                          ("big2_envy", False), ("__main__", False), (None, False)])
def test_only_big2_envs_kernels_count(module, ours):
    function = type("F", (), {"__module__": module})()
    assert _is_ours({"dispatcher": type("D", (), {"py_func": function})()}) is ours
    assert _is_ours(None) is False


def test_kernels_compiled_one_after_another_make_one_notice(caplog, monkeypatch):
    monkeypatch.setattr(watch(), "quiet_s", 0.3)
    caplog.set_level(logging.WARNING, logger="big2_env")
    first, second = _kernel(), _kernel()
    first(1)
    said = _said(caplog)
    assert len(said) == 1 and said[0].startswith("big2_env: " + START)
    assert {r.levelno for r in caplog.records if r.name == "big2_env.compile"} == {logging.WARNING}
    second(1)  # compiles before the pause: the same notice
    said = _wait_for(caplog, 2)
    assert len(said) == 2 and TOOK.match(said[1])
    first(2), second(3)  # compiled already: nothing more
    numba.njit(lambda x: x * 2)(1)  # the user's own numba code: not the core's, not announced
    time.sleep(0.5)
    assert len(_said(caplog)) == 2
    _kernel()(1)  # a later first use: a notice of its own
    assert len(_wait_for(caplog, 4)) == 4


def test_a_section_says_how_long_at_its_end(caplog):
    caplog.set_level(logging.WARNING, logger="big2_env")
    notice = CompileNotice(who="probe", quiet_s=0.01).install()

    def said() -> list[str]:  # this notice's lines (the process's own notice says "big2_env:")
        return [m for m in _said(caplog) if m.startswith("probe: ")]

    try:
        with notice.section():
            with notice.section():
                _kernel()(1)
            time.sleep(0.1)  # no timer ends it inside the section
            assert len(said()) == 1
            _kernel()(1)
        assert len(said()) == 2 and said()[0].startswith("probe: " + START) and said()[1].startswith("probe: compiling took")
        assert notice.last_s is not None and notice.last_s > 0
        with notice.section():  # nothing compiled: nothing said
            pass
        assert len(said()) == 2
    finally:
        notice.uninstall()


def test_a_level_above_warning_silences_it(caplog):
    caplog.set_level(logging.WARNING)
    logging.getLogger("big2_env").setLevel(logging.ERROR)
    try:
        with watch().section():
            _kernel()(1)
    finally:
        logging.getLogger("big2_env").setLevel(logging.NOTSET)
    assert _said(caplog) == []


LOOP = textwrap.dedent("""
    import big2_env
    env = big2_env.env()
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        env.step(None if termination or truncation else int(obs["candidate_actions"][0]))
    print(info["winner"])
""")


@pytest.mark.slow  # a cold compile: about 15 s on a quiet 2-core machine
def test_the_pettingzoo_loop_says_it_compiles_once_and_then_not_again(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}  # an empty cache: a first run after an install
    env.pop("NUMBA_DISABLE_JIT", None)

    def run() -> str:
        done = subprocess.run([sys.executable, "-c", LOOP], env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return done.stderr

    cold = run()
    assert cold.count("big2_env: " + START) == 1, cold
    assert len(TOOK.findall(cold)) == 1, cold  # the kernels of reset, observe and step: one notice
    assert cold.index(START) < cold.index("compiling took")
    warm = run()
    assert "compiling" not in warm, warm  # loaded from the disk cache: not a word
