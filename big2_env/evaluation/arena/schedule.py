"""Who plays which deal in which seat: the arena's tables, duplicate seat rotations and work chunks.

A **table** seats four agents of the pool (indices into the agent list), in slot order. A pool of
five or more gives every 4-subset as a table; a pool of two to four gives every way to fill the
four seats with each agent at least once (``A A A B``, ``A A B B``, ``A B B B`` for two agents), so
an agent may fill more than one seat. Each table's slot order is a seeded shuffle, so that no agent
always plays right after another.

A **match** is one deal at one table, played as four games, the seat rotations ``r = 0..3``: in
rotation ``r`` seat ``s`` is held by the table's slot ``(s - r) % 4``. Over a match every slot
holds every seat's hand once: duplicate play, and seats balanced exactly.

``tables="all"`` plays every deal at every table; ``tables="sampled"`` plays each deal at one
table, the tables taken in seeded shuffled rounds so that each is used equally often (for a large
pool, where every table for every deal would take too long).

Matches are ordered by deal, then table, and cut into **chunks** of :data:`CHUNK_MATCHES`
consecutive matches: the unit of work of a worker process, of seeding (each agent is reseeded at
the start of each chunk, from the seed, the chunk and the agent) and of resuming. The cut depends
only on the schedule, never on the number of processes, so the results do not either.

**Adding agents to a pool** (:meth:`Schedule.extend`, ``big2 arena --pool DIR --add AGENT``): the
pool's matches stay as they were, and after them come matches at the new tables, those of the
larger pool that seat a new agent, on the pool's deals. ``add_tables="all"`` plays every new
table on every deal; ``"matched"`` (the default) plays as many as give each new agent as many
seats as a pool agent held on average (a pool of ``n`` with every table: ``C(n-1, 3)`` of the
``C(n, 3)`` new tables a deal), so its interval is as narrow as theirs at a fraction of the games,
the new tables taken in a seeded cyclic order so that each is used equally often and no deal plays
one twice. The added matches are a **part** of their own: their chunks start after the pool's.

Example:
    >>> schedule = Schedule.build(n_agents=2, deals=3, seed=0)
    >>> sorted(sorted(t.slots) for t in schedule.tables)
    [[0, 0, 0, 1], [0, 0, 1, 1], [0, 1, 1, 1]]
    >>> len(schedule.matches), len(schedule.games())
    (9, 36)
    >>> game = schedule.games()[1]          # the first match's rotation 1
    >>> game.rotation, game.seats == tuple(schedule.tables[game.table].slots[(s - 1) % 4] for s in range(4))
    (1, True)
    >>> bigger = Schedule.build(n_agents=5, deals=3, seed=0).extend(n_pool=5, n_new=1, seed=0)
    >>> len(bigger.tables), len(bigger.matches), bigger.parts   # 5 + 10 tables; 4 of the 10 new ones a deal
    (15, 27, (0, 15))
"""

from __future__ import annotations

import bisect
import itertools
import math
from dataclasses import dataclass

import numpy as np

__all__ = ["ADD_TABLE_MODES", "CHUNK_MATCHES", "MAX_ALL_TABLES", "Match", "Schedule", "ScheduledGame", "Table",
           "TABLE_MODES"]

SEATS = 4
CHUNK_MATCHES = 16
"""Matches (4 games each) per chunk: 64 games stepped together, their decisions batched per agent."""
MAX_ALL_TABLES = 35
"""The default ``tables`` is ``"all"`` up to this many tables (a pool of seven), else ``"sampled"``."""
TABLE_MODES = ("all", "sampled")
ADD_TABLE_MODES = ("matched", "all")
"""How :meth:`Schedule.extend` plays the new tables (see the module docstring)."""


@dataclass(frozen=True)
class Table:
    """Four agents (indices into the pool) in slot order."""

    index: int
    slots: tuple[int, ...]


@dataclass(frozen=True)
class Match:
    """One deal (its index) at one table (its index): four games, one per seat rotation."""

    deal: int
    table: int


@dataclass(frozen=True)
class ScheduledGame:
    """One game: its number (``4 * match + rotation``), deal, table, rotation, the agent in each seat and its chunk."""

    game: int
    deal: int
    table: int
    rotation: int
    seats: tuple[int, ...]
    chunk: int


def _compositions(n_agents: int) -> list[tuple[int, ...]]:
    """Every table of a pool: the 4-subsets (five agents or more), or the 4-seat fillings that use every agent."""
    if n_agents >= SEATS:
        return list(itertools.combinations(range(n_agents), SEATS))
    return [c for c in itertools.combinations_with_replacement(range(n_agents), SEATS) if len(set(c)) == n_agents]


def default_table_mode(n_agents: int) -> str:
    """``"all"`` when the pool has at most :data:`MAX_ALL_TABLES` tables, else ``"sampled"``."""
    return "all" if len(_compositions(n_agents)) <= MAX_ALL_TABLES else "sampled"


@dataclass(frozen=True)
class Schedule:
    """The arena's tables, deals and matches (see the module docstring); build it with :meth:`build`."""

    tables: tuple[Table, ...]
    deal_seeds: tuple[int, ...]
    matches: tuple[Match, ...]
    mode: str
    parts: tuple[int, ...] = (0,)
    """The first match of each part: the pool's, then each addition's (a chunk never holds two parts' matches)."""

    @classmethod
    def build(cls, n_agents: int, deals: int, seed: int, mode: str | None = None) -> "Schedule":
        """The schedule for a pool of ``n_agents``, ``deals`` deals and ``seed`` (``mode``: see the module docstring;
        ``None``: :func:`default_table_mode`)."""
        mode = default_table_mode(n_agents) if mode is None else mode
        if mode not in TABLE_MODES:
            raise ValueError(f"tables must be one of {', '.join(TABLE_MODES)}; got {mode!r}")
        deal_seq, table_seq, sample_seq = np.random.SeedSequence(seed).spawn(3)
        deal_seeds = tuple(int(s) for s in deal_seq.generate_state(deals, np.uint64))
        order_rng = np.random.default_rng(table_seq)
        tables = tuple(
            Table(index, tuple(int(a) for a in order_rng.permutation(np.array(members))))
            for index, members in enumerate(_compositions(n_agents))
        )
        if mode == "all":
            matches = tuple(Match(deal, table.index) for deal in range(deals) for table in tables)
        else:
            sample_rng = np.random.default_rng(sample_seq)
            picks: list[int] = []
            while len(picks) < deals:  # whole shuffled rounds of the tables: each used equally often
                picks.extend(int(t) for t in sample_rng.permutation(len(tables)))
            matches = tuple(Match(deal, picks[deal]) for deal in range(deals))
        return cls(tables, deal_seeds, matches, mode)

    def extend(self, n_pool: int, n_new: int, seed: int, add_tables: str = "matched") -> "Schedule":
        """This schedule, of a pool of ``n_pool`` agents, followed by the matches that seat ``n_new`` new agents
        (indices ``n_pool`` on) on the same deals (see the module docstring); ``seed`` is the pool's."""
        if add_tables not in ADD_TABLE_MODES:
            raise ValueError(f"add_tables must be one of {', '.join(ADD_TABLE_MODES)}; got {add_tables!r}")
        if n_new < 1:
            raise ValueError(f"n_new must be a positive integer; got {n_new!r}")
        total = n_pool + n_new
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(4, n_pool, n_new)))
        new = [c for c in _compositions(total) if max(c) >= n_pool]
        tables = self.tables + tuple(
            Table(len(self.tables) + i, tuple(int(a) for a in rng.permutation(np.array(members))))
            for i, members in enumerate(new)
        )
        deals = len(self.deal_seeds)
        every = len(new) * deals
        if add_tables == "all":
            count = every
        else:
            held = [sum(self.tables[m.table].slots.count(a) for m in self.matches) for a in range(n_pool)]
            per_table = sum(sum(1 for a in members if a >= n_pool) for members in new) / (len(new) * n_new)
            count = min(every, max(1, math.ceil(float(np.mean(held)) / per_table - 1e-9)))
        cycle = [len(self.tables) + int(i) for i in rng.permutation(len(new))]
        added = tuple(Match(i * deals // count, cycle[i % len(new)]) for i in range(count))
        return Schedule(tables, self.deal_seeds, self.matches + added, self.mode, self.parts + (len(self.matches),))

    def games(self) -> list[ScheduledGame]:
        """Every game, in game-number order (match by match, rotations 0..3)."""
        out = []
        chunk = -1
        for number, match in enumerate(self.matches):
            part_start = self.parts[bisect.bisect_right(self.parts, number) - 1]
            if (number - part_start) % CHUNK_MATCHES == 0:  # a new chunk every CHUNK_MATCHES matches of a part
                chunk += 1
            slots = self.tables[match.table].slots
            for rotation in range(SEATS):
                seats = tuple(slots[(seat - rotation) % SEATS] for seat in range(SEATS))
                out.append(ScheduledGame(SEATS * number + rotation, match.deal, match.table, rotation, seats, chunk))
        return out

    def chunks(self) -> list[list[ScheduledGame]]:
        """The games cut into chunks of :data:`CHUNK_MATCHES` matches (a part's last chunk may be shorter), in order."""
        out: list[list[ScheduledGame]] = []
        for game in self.games():
            if game.chunk == len(out):
                out.append([])
            out[game.chunk].append(game)
        return out


def chunk_seed(seed: int, chunk: int, agent: int) -> int:
    """The seed agent ``agent`` gets at the start of chunk ``chunk`` (the same whichever process plays it).

    >>> chunk_seed(1, 0, 0) == chunk_seed(1, 0, 0) != chunk_seed(1, 1, 0)
    True
    """
    sequence = np.random.SeedSequence(seed, spawn_key=(3, chunk, agent))
    return int(sequence.generate_state(1, np.uint64)[0])
