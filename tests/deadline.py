"""``deadline(seconds)``: fail a block that hangs instead of hanging the test suite."""

from __future__ import annotations

import signal
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Raise ``TimeoutError`` in the main thread if the block takes longer than ``seconds`` (SIGALRM)."""
    def expire(signum, frame):
        raise TimeoutError(f"no answer within {seconds} s: the trainer hung")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
