"""A word when the compiled core compiles: the first use after an install is not a silent wait.

numba compiles the core's kernels on first use (10 to 30 s once after an install) and caches them
on disk (:mod:`big2_env.engine.core`); it fires ``numba:compile`` events on cache misses only.
:func:`watch` (started when :mod:`big2_env.engine.core` is imported) listens to them and logs two
lines at WARNING through the logger ``"big2_env.compile"`` (so that Python's last-resort handler
prints them on stderr when logging is not configured; the first is cut short here)::

    big2_env: compiling the game's core for this machine (numba; once after an install; later runs ...) ...
    big2_env: compiling took 12.8 s (cached now: later runs skip it)

The first comes when a big2_env kernel starts compiling, the second once none has compiled for
:data:`QUIET_S` seconds (the kernels compile lazily, one after another: the pause joins them into
one notice), at the end of a :meth:`CompileNotice.section` (:func:`big2_env.warm_up`, and the ``big2``
command line, whose :func:`command_line_notice` says ``big2:``) or at exit. When everything loads from
the cache, nothing is said. Silence it with ``logging.getLogger("big2_env").setLevel(logging.ERROR)``.

Example (a notice of one's own, with a kernel that passes for one of big2_env's):
    >>> import numba
    >>> def probe(x):
    ...     return x + 1
    >>> probe.__module__ = "big2_env.probe"
    >>> notice = CompileNotice(quiet_s=60).install()
    >>> with notice.section():  # logs the two lines (on stderr, where logging is not configured)
    ...     _ = numba.njit(probe)(1)
    >>> notice.last_s > 0
    True
    >>> notice.uninstall()
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from numba.core import event

__all__ = ["ANNOUNCE", "QUIET_S", "TOOK", "CompileNotice", "command_line_notice", "logger", "watch"]

logger = logging.getLogger("big2_env.compile")
"""Where the notice goes (a child of ``"big2_env"``; WARNING level, so it shows unless logging says otherwise)."""

ANNOUNCE = ("{who}: compiling the game's core for this machine (numba; once after an install; later runs load it from "
            "the disk cache) ...")
TOOK = "{who}: compiling took {seconds:.1f} s (cached now: later runs skip it)"
QUIET_S = 1.0
"""Seconds without a compilation that end a notice (outside a section)."""


def _is_ours(data: Any) -> bool:
    """Whether a ``numba:compile`` event's data names a dispatcher of big2_env's."""
    function = getattr(data.get("dispatcher") if isinstance(data, dict) else None, "py_func", None)
    module = getattr(function, "__module__", None) or ""
    return module == "big2_env" or module.startswith("big2_env.")


class CompileNotice(event.Listener):
    """Logs one line when numba starts compiling a kernel of big2_env's and one with the seconds it took
    (module docstring). Only top-level compilations count (a kernel compiling the kernels it calls is
    one compilation). :meth:`install` starts listening."""

    def __init__(self, who: str = "big2_env", quiet_s: float = QUIET_S) -> None:
        self.who = who
        self.quiet_s = quiet_s
        self.last_s: float | None = None
        """The seconds the last finished notice reported (None before any)."""
        self._installed = False
        self._held = 0  # sections open
        self._reset()

    def _reset(self) -> None:
        self._lock = threading.RLock()
        self._timer: threading.Timer | None = None
        self._pending = False  # the start line is out, the end line is not
        self._compiled_s = 0.0
        self._depth = 0  # compilations under way, nested
        self._started: float | None = None  # when the outermost one under way started, if it is ours

    def install(self) -> CompileNotice:
        """Listen to numba's compile events, and say what is pending at exit."""
        if not self._installed:
            event.register("numba:compile", self)
            atexit.register(self.finish)
            self._installed = True
        return self

    def uninstall(self) -> None:
        """Stop listening (what is pending is said first)."""
        self.finish()
        if self._installed:
            event.unregister("numba:compile", self)
            atexit.unregister(self.finish)
            self._installed = False

    def on_start(self, ev: Any) -> None:
        with self._lock:
            self._depth += 1
            if self._depth > 1 or not _is_ours(ev.data):
                return
            if self._timer is not None:
                self._timer.cancel()
            self._started = time.perf_counter()
            if not self._pending:
                self._pending, self._compiled_s = True, 0.0
                logger.warning(ANNOUNCE.format(who=self.who))

    def on_end(self, ev: Any) -> None:
        with self._lock:
            self._depth = max(self._depth - 1, 0)
            if self._depth or self._started is None:
                return
            self._compiled_s += time.perf_counter() - self._started
            self._started = None
            if not self._held:  # more may follow at once (the next kernel, the next call): wait for a pause
                self._timer = threading.Timer(self.quiet_s, self.finish)
                self._timer.daemon = True
                self._timer.start()

    def finish(self) -> float | None:
        """Say how long the compiling since the start line took, if a notice is pending and nothing compiles now;
        return those seconds (None if nothing was said)."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            if not self._pending or self._depth:
                return None
            self._pending, self.last_s = False, self._compiled_s
            logger.warning(TOOK.format(who=self.who, seconds=self._compiled_s))
            return self.last_s

    @contextmanager
    def section(self, who: str | None = None) -> Iterator[CompileNotice]:
        """Within the block, the end line waits for the block's end; the outermost section may say ``who``
        instead of ``big2_env``."""
        with self._lock:
            outermost = not self._held
            if outermost:
                self.finish()  # a notice from before the block ends before it
                saved, self.who = self.who, who or self.who
            self._held += 1
        try:
            yield self
        finally:
            with self._lock:
                self._held -= 1
                if outermost:
                    self.finish()
                    self.who = saved


_watching: CompileNotice | None = None


def watch() -> CompileNotice:
    """The process's notice of big2_env's compilations, listening from the first call on."""
    global _watching
    if _watching is None:
        _watching = CompileNotice().install()
        if hasattr(os, "register_at_fork"):  # a child starts afresh: its parent says what the parent compiled
            os.register_at_fork(after_in_child=_watching._reset)
    return _watching


@contextmanager
def command_line_notice() -> Iterator[CompileNotice]:
    """The ``big2`` command line's notice: ``big2:`` on stderr, as written (whatever logging's set-up, but its level),
    the end line at the command's end."""
    notice = watch()
    notice.finish()  # a notice from before the command ends as it began
    handler = logging.StreamHandler(sys.stderr)  # its default format: the message alone
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        with notice.section(who="big2"):
            yield notice
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate
