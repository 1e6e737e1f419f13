"""A progress bar for long runs: tqdm when installed (with its time left), else a line on stderr
about every 10% with the time left.

Example:
    >>> from big2_env.evaluation.progress import Progress
    >>> bar = Progress(total=8, desc="arena", enabled=False)   # disabled: prints nothing
    >>> bar.update(8); bar.done
    8
    >>> bar.close()
    >>> time_left(done=2, total=8, elapsed_s=30.0)
    '1:30'
"""

from __future__ import annotations

import sys
import time
from typing import Any

__all__ = ["Progress", "time_left"]


def time_left(done: float, total: float, elapsed_s: float) -> str:
    """The time left at the pace so far, as ``M:SS`` (``H:MM:SS`` past an hour; ``?`` before any progress)."""
    if done <= 0:
        return "?"
    seconds = int(round(elapsed_s * max(0.0, total - done) / done))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """tqdm when installed; otherwise a line on stderr about every 10% (done, total and time left).

    Args:
        total: units of work (games).
        desc: the label in front of the bar.
        enabled: ``False`` shows nothing (the counts still add up).
        initial: units already done before this run (a resumed run), shown but not timed.
    """

    def __init__(self, total: int, desc: str, enabled: bool, initial: int = 0) -> None:
        self.total, self.done, self.desc, self.enabled = total, initial, desc, enabled
        self.bar: Any = None
        self._initial = initial
        self._start = time.perf_counter()
        self._next_report = initial
        if enabled:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                pass
            else:
                self.bar = tqdm(total=total, initial=initial, desc=desc, unit="game")

    def update(self, n: int) -> None:
        """``n`` more units done."""
        if n == 0:
            return
        self.done += n
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.update(n)
        elif self.done >= self._next_report or self.done == self.total:
            left = time_left(self.done - self._initial, self.total - self._initial, time.perf_counter() - self._start)
            print(f"{self.desc}: {self.done}/{self.total} games, {left} left", file=sys.stderr)
            self._next_report = self.done + max(1, self.total // 10)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
