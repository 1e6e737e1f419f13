"""A word when the compiled core compiles: the first run after an install is not a silent wait.

numba compiles the core's kernels on first use and caches them on disk (:mod:`big2_env.engine.core`);
the first ``big2 demo``, ``big2 play`` or ``big2 eval`` after an install spends about 10 s on a
quiet 2-core machine compiling, later runs under a second loading the cache. A
:class:`CompileNotice` listens to numba's compile events (fired on cache misses only): at the first
compilation it says once what is happening, and :meth:`CompileNotice.finish` says how long all of it
took. The ``big2`` command line runs every command inside one.

Example:
    >>> import io, numba
    >>> out = io.StringIO()
    >>> with CompileNotice(out) as notice:
    ...     _ = numba.njit(lambda x: x + 1)(1)
    >>> out.getvalue().startswith("big2: compiling the game's core")
    True
    >>> notice.compiled_s > 0
    True
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

__all__ = ["CompileNotice"]

ANNOUNCE = (
    "big2: compiling the game's core for this machine (numba; once after an install, about 10 s on a quiet "
    "2-core machine; later runs load it from the disk cache) ..."
)


class CompileNotice:
    """Tell ``stream`` once when numba starts compiling, and (:meth:`finish`) how long it compiled.

    Only top-level compilations are timed (a kernel compiling the functions it calls is one
    compilation). Use it as a context manager, or :meth:`start` and :meth:`finish`.
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream
        self.compiled_s = 0.0
        self.announced = False
        self._depth = 0
        self._started = 0.0
        self._listener: Any = None

    def _out(self) -> TextIO:
        return self.stream if self.stream is not None else sys.stderr

    def _on_start(self) -> None:
        if self._depth == 0:
            self._started = time.perf_counter()
            if not self.announced:
                self.announced = True
                print(ANNOUNCE, file=self._out(), flush=True)
        self._depth += 1

    def _on_end(self) -> None:
        self._depth = max(self._depth - 1, 0)
        if self._depth == 0:
            self.compiled_s += time.perf_counter() - self._started

    def start(self) -> CompileNotice:
        """Listen to numba's compile events (importing numba; nothing of the core)."""
        from numba.core import event

        notice = self

        class _Listener(event.Listener):
            def on_start(self, _event: Any) -> None:
                notice._on_start()

            def on_end(self, _event: Any) -> None:
                notice._on_end()

        self._listener = _Listener()
        event.register("numba:compile", self._listener)
        return self

    def finish(self) -> None:
        """Stop listening; if anything compiled, say how long it took (once)."""
        if self._listener is not None:
            from numba.core import event

            event.unregister("numba:compile", self._listener)
            self._listener = None
        if self.announced:
            print(f"big2: compiling took {self.compiled_s:.1f} s (cached now: later runs skip it)", file=self._out(),
                  flush=True)

    def __enter__(self) -> CompileNotice:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.finish()
