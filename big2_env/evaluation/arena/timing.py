"""What an arena's games cost to play: ``timing.csv``, one row per chunk, beside ``games.csv``.

Each chunk's row says how many games it held and how many seconds its process took to play them
(wall time in that process, agents' loading excluded). The rows are appended as the chunks finish,
like the games, so the cost of a run survives its interruptions: a resumed run keeps the rows of the
chunks it reads back, and at the end :class:`PlayTime` sums them over every chunk of the folder,
whichever call played it. With several processes the seconds add up across them (process-seconds;
the wall time is about that over the number of processes).

A folder copied without its ``timing.csv`` has rows for the chunks played since, and
:class:`PlayTime` says how many of the games they cover.

Example:
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), TIMING)
    >>> append_time(path, chunk=0, games=64, seconds=12.5)
    >>> append_time(path, chunk=1, games=64, seconds=11.5)
    >>> play_time(read_times(path), games=128)
    PlayTime(seconds=24.0, games=128, of_games=128)
"""

from __future__ import annotations

import csv
import os
from collections.abc import Mapping
from dataclasses import dataclass

from .records import csv_rows

__all__ = ["TIMING", "PlayTime", "append_time", "play_time", "read_times", "write_times"]

TIMING = "timing.csv"
COLUMNS = ["chunk", "games", "seconds"]


@dataclass(frozen=True)
class PlayTime:
    """The seconds the timed chunks took (summed over processes), the games they held, and the run's games in all."""

    seconds: float
    games: int
    of_games: int

    @property
    def complete(self) -> bool:
        """Whether every game of the run is covered."""
        return self.games == self.of_games

    def to_dict(self) -> dict[str, float | int]:
        return {"process_seconds": self.seconds, "games_timed": self.games, "games": self.of_games}


def read_times(path: str | os.PathLike[str]) -> dict[int, tuple[int, float]]:
    """``{chunk: (games, seconds)}`` from a ``timing.csv`` (``{}`` when it is missing; a chunk timed twice keeps
    its last row; a last line cut short is not a row); ``ValueError`` names a bad line."""
    times: dict[int, tuple[int, float]] = {}
    for line, row in csv_rows(path, COLUMNS):
        try:
            chunk, games, seconds = int(row["chunk"]), int(row["games"]), float(row["seconds"])
        except (TypeError, ValueError):
            raise ValueError(f"{os.fspath(path)} line {line}: not a chunk's timing: {dict(row)!r}") from None
        if chunk < 0 or games < 1 or not seconds >= 0.0:
            raise ValueError(f"{os.fspath(path)} line {line}: chunk, games and seconds must be >= 0, >= 1, >= 0: "
                             f"{dict(row)!r}")
        times[chunk] = (games, seconds)
    return times


def write_times(path: str | os.PathLike[str], times: Mapping[int, tuple[int, float]]) -> None:
    """Write ``times`` as a new ``timing.csv``, in chunk order, through a temporary file."""
    temporary = f"{os.fspath(path)}.tmp"
    with open(temporary, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows([chunk, games, f"{seconds:.3f}"] for chunk, (games, seconds) in sorted(times.items()))
    os.replace(temporary, path)


def append_time(path: str | os.PathLike[str], chunk: int, games: int, seconds: float) -> None:
    """Add one chunk's row (the header first, for a new file)."""
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        if new:
            writer.writerow(COLUMNS)
        writer.writerow([chunk, games, f"{seconds:.3f}"])


def play_time(times: Mapping[int, tuple[int, float]], games: int) -> PlayTime:
    """The sum of ``times`` for a run of ``games`` games."""
    return PlayTime(float(sum(s for _, s in times.values())), int(sum(g for g, _ in times.values())), int(games))
