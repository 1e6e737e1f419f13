"""One finished arena game as a record, and ``games.csv``, the file of every record (one row a game).

Columns: ``game`` (its number in the schedule), ``deal``, ``deal_seed`` (what ``Game(rules,
seed=deal_seed)`` deals), ``table``, ``rotation``, ``seat0`` .. ``seat3`` (the agent in each
seat), ``order`` (the finishing order, seats best first, e.g. ``2 0 3 1``: the winner, then the
others by cards left, ties in seat order after the winner), ``score0`` .. ``score3`` and
``turns`` (moves in the game). A name ending in ``.gz`` (``games.csv.gz``) is read and written
compressed with gzip (written with no time stamp, so the same games give the same bytes).

Example:
    >>> record = GameRecord(0, 0, 7, 0, 0, ("smart", "random", "greedy", "random"), (0, 2, 1, 3), (9, -3, -2, -4), 50)
    >>> row = record.to_row(); row["order"], row["seat2"]
    ('0 2 1 3', 'greedy')
    >>> GameRecord.from_row(row) == record
    True
    >>> finishing_order(winner=2, cards_left=[3, 5, 0, 3])   # seat 3 is nearer after the winner than seat 0
    (2, 3, 0, 1)
"""

from __future__ import annotations

import csv
import gzip
import io
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["COLUMNS", "GameRecord", "finishing_order", "read_games", "write_games", "append_games"]

SEATS = 4
COLUMNS = (
    ["game", "deal", "deal_seed", "table", "rotation"]
    + [f"seat{s}" for s in range(SEATS)]
    + ["order"]
    + [f"score{s}" for s in range(SEATS)]
    + ["turns"]
)


def finishing_order(winner: int, cards_left: Sequence[int]) -> tuple[int, ...]:
    """Seats best first: the winner, then the others by cards left, ties in seat order after the winner."""
    others = sorted((s for s in range(SEATS) if s != winner), key=lambda s: (cards_left[s], (s - winner) % SEATS))
    return (winner, *others)


@dataclass(frozen=True)
class GameRecord:
    """One finished game (the columns of ``games.csv``; ``agents`` in seat order)."""

    game: int
    deal: int
    deal_seed: int
    table: int
    rotation: int
    agents: tuple[str, ...]
    order: tuple[int, ...]
    scores: tuple[int, ...]
    turns: int

    def to_row(self) -> dict[str, str]:
        row = {"game": str(self.game), "deal": str(self.deal), "deal_seed": str(self.deal_seed),
               "table": str(self.table), "rotation": str(self.rotation), "order": " ".join(map(str, self.order)),
               "turns": str(self.turns)}
        for seat in range(SEATS):
            row[f"seat{seat}"] = self.agents[seat]
            row[f"score{seat}"] = str(self.scores[seat])
        return row

    @classmethod
    def from_row(cls, row: Mapping[str, str]) -> "GameRecord":
        """The record of a ``games.csv`` row; ``ValueError`` for a row that is not one."""
        try:
            order = tuple(int(s) for s in row["order"].split())
            record = cls(
                game=int(row["game"]), deal=int(row["deal"]), deal_seed=int(row["deal_seed"]), table=int(row["table"]),
                rotation=int(row["rotation"]), agents=tuple(row[f"seat{s}"] for s in range(SEATS)), order=order,
                scores=tuple(int(row[f"score{s}"]) for s in range(SEATS)), turns=int(row["turns"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise ValueError(f"not a games.csv row ({err}): {dict(row)!r}") from None
        if sorted(record.order) != list(range(SEATS)) or sum(record.scores) != 0 or record.order[0] != max(
            range(SEATS), key=lambda s: record.scores[s]
        ):
            raise ValueError(f"not a finished game (order {row['order']!r}, scores {record.scores}): {dict(row)!r}")
        return record


def csv_rows(path: str | os.PathLike[str], columns: Sequence[str]) -> list[tuple[int, dict[str, str]]]:
    """The rows of a CSV file with ``columns`` (``.gz``: compressed), each with its line number; ``[]`` when the
    file is missing. A last line cut short (a run killed while writing it) is no row. ``ValueError`` for a file
    that cannot be read or has other columns."""
    if not os.path.exists(path):
        return []
    opener: Any = gzip.open if _compressed(path) else open
    try:
        with opener(path, "rt", newline="", encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, EOFError, UnicodeDecodeError) as err:
        raise ValueError(f"{os.fspath(path)}: cannot read it ({err})") from None
    reader = csv.DictReader(io.StringIO(text[: text.rfind("\n") + 1], newline=""))
    if reader.fieldnames is not None and list(reader.fieldnames) != list(columns):
        raise ValueError(f"{os.fspath(path)}: the columns are {reader.fieldnames}, expected {list(columns)}")
    return list(enumerate(reader, start=2))


def read_games(path: str | os.PathLike[str]) -> list[GameRecord]:
    """Every record of a ``games.csv`` (``[]`` when the file is missing); ``ValueError`` names a bad line."""
    records: list[GameRecord] = []
    for line, row in csv_rows(path, COLUMNS):
        try:
            records.append(GameRecord.from_row(row))
        except ValueError as err:
            raise ValueError(f"{os.fspath(path)} line {line}: {err}") from None
    return records


def _compressed(path: str | os.PathLike[str]) -> bool:
    return os.fspath(path).endswith(".gz")


def write_games(path: str | os.PathLike[str], records: Iterable[GameRecord]) -> None:
    """Write ``records`` as a new ``games.csv`` (``.gz``: compressed) through a temporary file, so a crash leaves
    the old one."""
    temporary = f"{os.fspath(path)}.tmp"
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(r.to_row() for r in records)
    data = buffer.getvalue().encode("utf-8")
    if _compressed(path):
        with open(temporary, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as packed:
            packed.write(data)
    else:
        with open(temporary, "wb") as raw:
            raw.write(data)
    os.replace(temporary, path)


def append_games(path: str | os.PathLike[str], records: Iterable[GameRecord]) -> None:
    """Add ``records`` to the end of an existing (uncompressed) ``games.csv`` and flush them to disk."""
    if _compressed(path):
        raise ValueError(f"{os.fspath(path)}: games are appended to an uncompressed games.csv only")
    with open(path, "a", newline="", encoding="utf-8") as handle:
        csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n").writerows(r.to_row() for r in records)
        handle.flush()
        os.fsync(handle.fileno())
