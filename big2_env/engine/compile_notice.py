"""A word when the compiled core compiles: the first use after an install is not a silent wait.

numba compiles the core's kernels on first use and caches them on disk (:mod:`big2_env.engine.core`):
the README's PettingZoo loop, a vector env's first ``reset`` and ``step`` or the first ``big2 demo``
after an install spend 10 to 30 s compiling, later runs under a second loading the cache. numba
fires its ``numba:compile`` events on cache misses only; :func:`watch` (called when
:mod:`big2_env.engine.core` is imported, so ``import big2_env`` stays free of numba) listens to them
for the whole process and logs, through the standard :mod:`logging` module (logger
``"big2_env.compile"``, level WARNING, so that Python's last-resort handler prints it on stderr
when logging is not configured), two lines on stderr (the first cut short here)::

    big2_env: compiling the game's core for this machine (numba; once after an install; later runs ...) ...
    big2_env: compiling took 12.8 s (cached now: later runs skip it)

The first comes at the first compilation of a big2_env kernel; the second once no kernel has
started compiling for :data:`QUIET_S` seconds (the kernels compile lazily, one after another, across
``reset`` and ``step``: the pause joins them into one notice), or at exit, whichever comes first,
with the seconds spent compiling. When everything loads from the cache, nothing is said.
Silence it with ``logging.getLogger("big2_env").setLevel(logging.ERROR)``.

Inside :meth:`CompileNotice.section` the second line waits for the end of the block instead:
:func:`big2_env.warm_up` is one section, and the ``big2`` command line runs every command in
:func:`command_line_notice`, a section that says ``big2:`` on stderr whatever logging's set-up.

Example (a notice of one's own, counting every compilation, not only big2_env's):
    >>> import numba
    >>> notice = CompileNotice(everything=True).install()
    >>> with notice.section():  # logs the two lines (on stderr, where logging is not configured)
    ...     _ = numba.njit(lambda x: x + 1)(1)
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


class CompileNotice:
    """Logs one line when numba starts compiling and one with the seconds it took (module docstring).

    Only top-level compilations are timed (a kernel compiling the kernels it calls is one
    compilation), and only big2_env's unless ``everything``. :meth:`install` starts listening.
    """

    def __init__(self, who: str = "big2_env", everything: bool = False, quiet_s: float = QUIET_S) -> None:
        self.who = who
        self.everything = everything
        self.quiet_s = quiet_s
        self.last_s: float | None = None
        """The seconds the last finished notice reported (None before any)."""
        self._listener: Any = None
        self._held = 0  # sections open
        self._reset()

    def _reset(self) -> None:
        self._lock = threading.RLock()
        self._timer: threading.Timer | None = None
        self._pending = False  # the start line is out, the end line is not
        self._compiled_s = 0.0
        self._depth = 0
        self._timing = False  # the outermost compilation under way is one this notice times
        self._started = 0.0

    def install(self) -> CompileNotice:
        """Listen to numba's compile events (this imports numba), and say what is pending at exit."""
        from numba.core import event

        notice = self

        class _Listener(event.Listener):
            def on_start(self, ev: Any) -> None:
                notice._on_start(ev.data)

            def on_end(self, ev: Any) -> None:
                notice._on_end()

        if self._listener is None:
            self._listener = _Listener()
            event.register("numba:compile", self._listener)
            atexit.register(self.finish)
        return self

    def uninstall(self) -> None:
        """Stop listening (what is pending is said first)."""
        self.finish()
        if self._listener is not None:
            from numba.core import event

            event.unregister("numba:compile", self._listener)
            atexit.unregister(self.finish)
            self._listener = None

    def _on_start(self, data: Any) -> None:
        with self._lock:
            self._depth += 1
            if self._depth > 1 or not (self.everything or _is_ours(data)):
                return
            self._cancel_timer()
            self._timing, self._started = True, time.perf_counter()
            if not self._pending:
                self._pending, self._compiled_s = True, 0.0
                logger.warning(ANNOUNCE.format(who=self.who))

    def _on_end(self) -> None:
        with self._lock:
            self._depth = max(self._depth - 1, 0)
            if self._depth or not self._timing:
                return
            self._timing = False
            self._compiled_s += time.perf_counter() - self._started
            if not self._held:  # more may follow at once (the next kernel, the next call): wait for a pause
                self._timer = threading.Timer(self.quiet_s, self.finish)
                self._timer.daemon = True
                self._timer.start()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def finish(self) -> float | None:
        """Say how long the compiling since the start line took, if a notice is pending and nothing compiles now;
        return those seconds (None if nothing was said)."""
        with self._lock:
            self._cancel_timer()
            if not self._pending or self._depth:
                return None
            self._pending, self.last_s = False, self._compiled_s
            logger.warning(TOOK.format(who=self.who, seconds=self._compiled_s))
            return self.last_s

    @contextmanager
    def section(self, who: str | None = None, everything: bool = False) -> Iterator[CompileNotice]:
        """Within the block, the end line waits for the block's end; the outermost section may say ``who``
        instead of ``big2_env`` and count ``everything`` numba compiles."""
        with self._lock:
            outermost = not self._held
            if outermost:
                self.finish()  # a notice from before the block ends before it
                saved = self.who, self.everything
                self.who, self.everything = who or self.who, everything or self.everything
            self._held += 1
        try:
            yield self
        finally:
            with self._lock:
                self._held -= 1
                if outermost:
                    self.finish()
                    self.who, self.everything = saved


_watching: CompileNotice | None = None


def watch() -> CompileNotice:
    """The process's notice of big2_env's compilations, listening from the first call on (imports numba)."""
    global _watching
    if _watching is None:
        _watching = CompileNotice().install()
        if hasattr(os, "register_at_fork"):  # a child starts afresh: its parent says what the parent compiled
            os.register_at_fork(after_in_child=_watching._reset)
    return _watching


@contextmanager
def command_line_notice() -> Iterator[CompileNotice]:
    """The ``big2`` command line's notice: ``big2:`` on stderr, as written (whatever logging's set-up, but its level),
    for every compilation during the command, the end line at the command's end."""
    notice = watch()
    notice.finish()  # a notice from before the command ends as it began
    handler = logging.StreamHandler(sys.stderr)  # its default format: the message alone
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        with notice.section(who="big2", everything=True):
            yield notice
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate
