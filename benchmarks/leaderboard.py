"""The docs' leaderboard (docs/leaderboard.md): every shipped agent rated by ``big2 arena``, under each rule set.

Two boards:

* ``paper``: random, greedy, smart, pretrained, the search, ISMCTS, the fast model, the search over our network
  (``search-net``, over ``pretrained``) and pretrained-default-recipe, under the paper's rules;
* ``charlesworth``: the first eight (``search-net`` over ``pretrained-charlesworth``) plus pretrained-charlesworth
  and, given ``--params``, Charlesworth's own network (his parameter file, ``modelParameters136500``, which you
  download from his repository), under his rules.

and ``check``, the arena's four-agent check (random, greedy, smart and the search at its default budget,
paper rules, one table), which the page's introduction cites. The sentences that read the results (how
the ratings' order meets the mean scores and the head to head) are written from the stored files too.

Each board is one arena run (:func:`big2_env.evaluation.arena.run_arena`) into ``--runs/BOARD`` (resumed when
there, so a finished folder is refitted without playing, and one played with fewer deals goes on to the new
deals: a board grows a few deals at a time, each step equal to a straight run of that many deals); its ratings
(points first, then the finishing-order rating), head-to-head matrix, the command that measured it, the date and the deals go
to ``benchmarks/leaderboard/BOARD.json``, its picture to ``benchmarks/leaderboard/BOARD.png``, and its
games, as a pool others can refit or add an agent to (``big2 arena --pool benchmarks/leaderboard/BOARD
--add AGENT --out DIR``), to ``benchmarks/leaderboard/BOARD/`` (``arena.json`` and ``games.csv.gz``).
The three agents that search (the search, ISMCTS and search-net: tenths of a second a decision, ISMCTS the slowest, where
the others take under a millisecond) join each board by ``big2 arena --pool --add`` with matched seats
(``--searchers add``, the default): the other agents play every table on every deal, and each searcher gets about
as many seats as each of them held, spread over the same deals, all fitted together: on two cores about a minute
a deal for the paper board (79 of their games a deal at about 1.6 process-seconds a game, ``timing.csv``; search-net's
network rollouts the most of it since ISMCTS's rollouts run in the core), so its 60 deals take about an hour;
Charlesworth's board seats them at 167 games a deal (about 1.34 process-seconds a game: 12,500 games in 16,750
process-seconds), so its 75 deals take about two and a third hours on two cores.
Seating them at every table as well (``--searchers tables``: the 111 tables that seat one of them on every deal,
444 games a deal for the paper board) takes between five and six times as long.

The page is written from those files (``--page-only`` rewrites it without measuring; ``--pictures``
redraws the pictures from the stored files).

Usage:
    python benchmarks/leaderboard.py --board paper --deals 60 --jobs 2
    python benchmarks/leaderboard.py --board charlesworth --deals 60 --jobs 2 --params PATH
    python benchmarks/leaderboard.py --board check --deals 40 --seed 1
    python benchmarks/leaderboard.py --page-only            # the page from the stored results
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import platform
import shutil
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from big2_env.records import portable
from big2_env.evaluation.arena import add_to_arena, run_arena
from big2_env.evaluation.arena.ratings import AgentRating
from big2_env.evaluation.arena.records import write_games
from big2_env.evaluation.arena.report import write_json
from big2_env.evaluation.arena.run import read_arena
from big2_env.evaluation.arena.timing import TIMING

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "leaderboard"
PAGE = HERE.parent / "docs" / "leaderboard.md"
WRITTEN_MARK = "<!-- written by benchmarks/leaderboard.py from benchmarks/leaderboard/*.json: edit the script, not the page -->"
BOARDS = ("paper", "charlesworth")
TITLES = {"paper": "Paper rules", "charlesworth": "Charlesworth's rules"}
UNDER = {"paper": "the paper's rules", "charlesworth": "Charlesworth's rules"}
"""Each board's rules as a sentence names them (``under ...``)."""
BOARD_NAMES = {"paper": "paper-rules", "charlesworth": "Charlesworth"}
CHECK = "check"
"""The four-agent check: not a board of the page, a sentence of its introduction."""
RULES = {"paper": "paper", "charlesworth": "charlesworth", CHECK: "paper"}
TARGET_HALF_WIDTH = 0.5
"""The points interval the boards aim at: +-0.5 a game for every agent (issue 61)."""


def pool(board: str, search: str, ismcts: str, params: str | None, search_net: str = "search-net") -> list[str]:
    """The board's agents (his network only with his parameter file; ``search_net`` ``"none"`` leaves it out)."""
    if board == CHECK:
        return ["random", "greedy", "smart", "search"]
    agents = ["random", "greedy", "smart", "pretrained", search, ismcts, "fast"]
    if search_net != "none":
        agents.append(search_net)  # over pretrained under the paper's rules, pretrained-charlesworth under his
    if board == "paper":
        agents.append("pretrained-default-recipe")  # the paper's design, pretrained until 2026-11-27
    if board == "charlesworth":
        agents.append("pretrained-charlesworth")
        if params:
            agents.append(f"charlesworth:{params}")
    return agents


def store_pool(run: Path, board: str) -> Path:
    """The run's games as a pool anyone can refit or add to: ``benchmarks/leaderboard/BOARD/`` with ``arena.json``
    and ``games.csv.gz``, the agents named without this machine's paths (his network as
    ``charlesworth:modelParameters136500``: ``--load`` says where it is on yours)."""
    config, _, records = read_arena(run)
    rename = {name: portable(name) for name in config["agents"]}
    folder = RESULTS / board
    folder.mkdir(parents=True, exist_ok=True)
    write_json(folder / "arena.json", dict(config, agents=[rename[a] for a in config["agents"]]))
    write_games(folder / "games.csv.gz",
                [replace(r, agents=tuple(rename[a] for a in r.agents)) for r in records])
    timing = folder / TIMING  # what the games cost, chunk by chunk, where the run kept it
    if (run / TIMING).is_file():
        shutil.copyfile(run / TIMING, timing)
    elif timing.exists():
        timing.unlink()
    return folder


def draw_board(data: dict[str, Any], path: Path) -> None:
    """The board's picture: each agent's points and placing with their 95% intervals, best at the top."""
    from big2_env.evaluation.arena.plot import draw_ratings

    rows = [replace(AgentRating.from_dict(row), agent=row["agent_shown"]) for row in data["ratings"]]
    draw_ratings(path, rows, title=f"{TITLES[data['board']]}: {data['deals']} deals, {data['games']} games")


def searchers(board: str, agents: list[str], args: argparse.Namespace) -> list[str]:
    """The board's agents that join it by ``--add`` (``--searchers add``): the search, ISMCTS and search-net."""
    if board == CHECK or args.searchers != "add":
        return []
    return [a for a in agents if a in (args.search, args.ismcts, args.search_net)]


def _added_folder(base: Path, deals: int) -> Path:
    """The folder the searchers are added into; one added to a smaller board is moved aside (it cannot grow)."""
    added = base.with_name(base.name + "+searchers")
    if added.is_dir() and (added / "arena.json").is_file():
        saved = json.loads((added / "arena.json").read_text()).get("deals")
        if saved != deals:
            aside = added.with_name(f"{added.name}.{saved}deals")
            print(f"moving {added} (added to {saved} deals) aside to {aside}: the board has {deals} now", file=sys.stderr)
            added.rename(aside)
    return added


def measure(args: argparse.Namespace, board: str) -> dict[str, Any]:
    agents = pool(board, args.search, args.ismcts, args.params, args.search_net)
    slow = searchers(board, agents, args)
    base = [a for a in agents if a not in slow]
    out = Path(args.runs) / board
    result = run_arena(base, deals=args.deals, out=out, seed=args.seed, rules=RULES[board], tables=args.tables,
                       jobs=args.jobs, resume=out.exists(), progress=True, compress=True)
    run = out
    if slow:
        run = _added_folder(out, args.deals)
        result = add_to_arena(out, slow, out=run, add_tables="matched", jobs=args.jobs, resume=run.exists(),
                              progress=True, compress=True)
    print(result.to_table())
    shown = [a if not a.startswith("charlesworth:") else "charlesworth:PATH" for a in agents]
    command = (f"python benchmarks/leaderboard.py --board {board} --deals {args.deals} --seed {args.seed} "
               f"--tables {result.schedule.mode} --search {args.search} --ismcts {args.ismcts}"
               + (f" --search-net {args.search_net} --searchers {args.searchers}" if board != CHECK else "")
               + (" --params PATH" if args.params and board == "charlesworth" else ""))
    name = dict(zip(agents, shown))
    matrix = result.head_to_head.to_dict()
    arena_command = (f"big2 arena {' '.join(name[a] for a in base)} --rules {RULES[board]} --deals {args.deals} "
                     f"--seed {args.seed} --tables {result.schedule.mode} --compress --out runs/leaderboard/{board}")
    if slow:
        arena_command += (f" && big2 arena --pool runs/leaderboard/{board} --add {' '.join(name[a] for a in slow)} "
                          f"--add-tables matched --compress --out runs/leaderboard/{board}+searchers")
    data = {
        "board": board,
        "command": command,
        "arena_command": arena_command,
        "added": [name[a] for a in slow],
        "search_net_opponent_models": True,  # its rollouts' opponent models (the default since 2026-11-29)
        "date": datetime.date.today().isoformat(),
        "deals": args.deals,
        "tables": result.schedule.mode,
        "tables_played": len({m.table for m in result.schedule.matches}),
        "games": len(result.records),
        "elapsed_s": result.elapsed_s,  # this call's; a board resumed across sessions: play_time
        "play_time": result.play_time.to_dict() if result.play_time is not None else None,
        "jobs": args.jobs,
        "his_network": bool(args.params) if board == "charlesworth" else None,
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
        "rating": result.rating,
        "ratings": [
            dict(rank=rank, **row.to_dict(), agent_shown=name[row.agent])
            for rank, row in enumerate(result.ratings, start=1)
        ],
        "head_to_head": dict(matrix, agents=[name[a] for a in matrix["agents"]]),
        "conflicts": [[name[a], name[b]] for a, b in result.conflicts],
    }
    if board != CHECK:
        data["pool"] = str(store_pool(run, board).relative_to(HERE.parent))
        draw_board(data, RESULTS / f"{board}.png")
    return portable(data)


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else format(value, spec)


def _points_board(data: dict[str, Any]) -> bool:
    """Whether the board was measured with the points rating (else it predates it: OpenSkill's ``mu`` only)."""
    return all("points" in row for row in data["ratings"])


def _cell(value: float | None, interval: list[float | None], spec: str) -> str:
    return f"{_fmt(value, spec)}<br>[{_fmt(interval[0], spec)}, {_fmt(interval[1], spec)}]"


def _seats(data: dict[str, Any]) -> str:
    seats = sorted({row["games"] for row in data["ratings"]})
    return f"{seats[0]} seats" if len(seats) == 1 else f"{seats[0]} to {seats[-1]} seats"


def widest_interval(data: dict[str, Any]) -> float:
    """The largest half-width of an agent's points interval on the board."""
    return max((row["points_ci"][1] - row["points_ci"][0]) / 2 for row in data["ratings"])


def deals_for_target(data: dict[str, Any]) -> int:
    """About how many deals bring every points interval to the target, from the board's widest: an interval narrows
    as one over the square root of the deals (the deal is the bootstrap's unit, and most of the spread is between
    deals, so more tables would not narrow it much).

    >>> deals_for_target({"deals": 20, "ratings": [dict(points_ci=[-1.0, 0.6])]})   # +-0.8 at 20 deals
    52
    """
    return max(int(data["deals"]), math.ceil(data["deals"] * (widest_interval(data) / TARGET_HALF_WIDTH) ** 2))


def agreement_note(data: dict[str, Any]) -> str:
    """What a board's points intervals tell apart, and whether the head to head and the mean scores agree.

    >>> rows = [dict(rank=1, agent_shown="a", points=2.0, points_ci=[1.5, 2.5], mean_score=1.8),
    ...         dict(rank=2, agent_shown="b", points=0.5, points_ci=[0.1, 1.6], mean_score=0.4),
    ...         dict(rank=3, agent_shown="c", points=-2.5, points_ci=[-2.9, -2.1], mean_score=-2.2)]
    >>> note = agreement_note({"ratings": rows, "conflicts": [], "deals": 20})
    >>> note.split(", which")[0]
    "Every agent's points interval is within +-0.75 a game (the target is +-0.5"
    >>> "about 45 deals would reach" in note  # 20 deals x (0.75 / 0.5) ** 2
    True
    >>> "2 have points intervals that do not overlap" in note, note.endswith("the points order is the mean score's.")
    (True, True)
    """
    rows = data["ratings"]
    pairs = len(rows) * (len(rows) - 1) // 2
    apart = sum(1 for a in rows for b in rows if a["points_ci"][0] > b["points_ci"][1])
    conflicts = data.get("conflicts", [])
    head = ("for each the head to head (the mean score difference where both sat) agrees with the order"
            if not conflicts else "the head to head (the mean score difference where both sat) goes against the "
            "order for " + _listed([f"`{a}` over `{b}`" for a, b in conflicts]))
    scores = order_disagreements(data)
    wide = widest_interval(data)
    grows = ("the same command with more `--deals` goes on from the other agents' games and seats the searchers "
             "again" if data.get("added") else "the same command with more `--deals` going on from these games")
    more = (f", which about {deals_for_target(data)} deals would reach: the board is grown a few deals at a time, "
            f"{grows}" if wide > TARGET_HALF_WIDTH else "")
    return (
        f"Every agent's points interval is within +-{wide:.2f} a game (the target is "
        f"+-{TARGET_HALF_WIDTH}{more}). Of the {pairs} pairs of agents, {apart} have points intervals that do not overlap, "
        f"and {head}; " + ("the points order is the mean score's." if not scores else _listed(scores) + ".")
    )


def board_section(data: dict[str, Any]) -> list[str]:
    if not _points_board(data):
        return legacy_section(data)
    board = data["board"]
    lines = [f"## {TITLES[board]}", ""]
    added = data.get("added") or []
    how = (f"{data['deals']} deals, {data['tables']} tables ({data['tables_played']} tables played)"
           if not added else
           f"{data['deals']} deals; every table of the other agents on every deal, and "
           f"{_listed([f'`{a}`' for a in added])} added to them with `big2 arena --pool --add` (matched seats: about "
           f"as many as each of the others held, spread over the same deals; {data['tables_played']} tables in all)")
    lines += [
        f"Measured {data['date']}: {how}, {data['games']} games, each deal in the four seat rotations; each agent "
        f"held {_seats(data)}.",
        "",
        "```text",
        data["command"],
        f"# which runs: {data['arena_command']}",
        "```",
        "",
    ]
    if (RESULTS / f"{board}.png").is_file():
        lines += [f"![{TITLES[board]}: each agent's points and placing with their 95% intervals]"
                  f"(leaderboard/{board}.png)", ""]
    lines += [
        '<div class="leaderboard" markdown>',
        "",
        "| rank | agent | points [95%] | placing [95%] | win rate [95%] | mean score [95%] |",
        "|---:|---|---|---|---|---|",
    ]
    for row in data["ratings"]:
        lines.append(
            f"| {row['rank']} | `{row['agent_shown']}` | {_cell(row['points'], row['points_ci'], '+.2f')} | "
            f"{_cell(row['plackett_luce'], row['plackett_luce_ci'], '+.2f')} | "
            f"{_cell(row['win_rate'], row['win_rate_ci'], '.1%')} | {_cell(row['mean_score'], row['mean_score_ci'], '+.2f')} |"
        )
    lines += ["", "</div>", "", agreement_note(data), ""]
    if data.get("pool"):
        his = [row["agent"] for row in data["ratings"] if row["agent"].startswith("charlesworth:")]
        load = f" --load {his[0]}=charlesworth:PATH" if his else ""
        lines += [
            f"The games are stored in `{data['pool']}/` (`arena.json`, `games.csv.gz`): `big2 arena --refit` fits them "
            f"again, and `big2 arena --pool {data['pool']} --add AGENT --out DIR{load}` rates a new agent against "
            "this board, playing only the tables that seat it.",
            "",
        ]
    return lines


def legacy_section(data: dict[str, Any]) -> list[str]:
    """A board measured before the points rating: OpenSkill's ``mu`` and the figures, as it was."""
    lines = [f"## {TITLES[data['board']]}", ""]
    lines += [
        f"Measured {data['date']}: {data['deals']} deals, {data['tables']} tables ({data['tables_played']} tables "
        f"played), {data['games']} games, each deal in the four seat rotations. Measured before the points rating: "
        "its games were not kept, so this table has OpenSkill's rating; the board's next run gives the points.",
        "",
        "```text",
        data["command"],
        f"# which runs: {data['arena_command']}",
        "```",
        "",
        '<div class="leaderboard" markdown>',
        "",
        "| rank | agent | rating mu [95%] | games | win rate [95%] | mean score [95%] |",
        "|---:|---|---|---:|---|---|",
    ]
    for row in data["ratings"]:
        lines.append(
            f"| {row['rank']} | `{row['agent_shown']}` | {_cell(row['mu'], row['interval'], '.2f')} | {row['games']} | "
            f"{_cell(row['win_rate'], row['win_rate_ci'], '.1%')} | {_cell(row['mean_score'], row['mean_score_ci'], '+.2f')} |"
        )
    lines += ["", "</div>", ""]
    return lines


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _listed(items: list[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + ", and " + items[-1]


def _load(path: Path) -> dict[str, Any] | None:
    return json.loads(path.read_text()) if path.is_file() else None


def order_disagreements(data: dict[str, Any]) -> list[str]:
    """Where a board's rating order and its mean-score order part: the best mean score when it is not
    rated first, and each agent two places or more apart in the two orders.

    >>> rows = [dict(rank=1, agent_shown="a", mean_score=1.0), dict(rank=2, agent_shown="b", mean_score=3.0),
    ...         dict(rank=3, agent_shown="c", mean_score=0.5), dict(rank=4, agent_shown="d", mean_score=2.0)]
    >>> for note in order_disagreements({"ratings": rows}):
    ...     print(note)
    `a` rates 1st with the 3rd mean score
    `b` has the best mean score yet the 2nd rating
    `d` rates 4th with the 2nd mean score
    """
    by_score = sorted(data["ratings"], key=lambda r: -r["mean_score"])
    score_rank = {r["agent_shown"]: i for i, r in enumerate(by_score, start=1)}
    notes = []
    for row in data["ratings"]:
        name, rank, by = row["agent_shown"], row["rank"], score_rank[row["agent_shown"]]
        if by == 1 and rank != 1:
            notes.append(f"`{name}` has the best mean score yet the {_ordinal(rank)} rating")
        elif abs(rank - by) >= 2:
            notes.append(f"`{name}` rates {_ordinal(rank)} with the {_ordinal(by)} mean score")
    return notes


def reading_note(boards: dict[str, dict[str, Any]]) -> str:
    """The introduction's paragraph on reading the ratings, from the stored boards."""
    legacy = {board: data for board, data in boards.items() if not _points_board(data)}
    points = (
        "Read the ratings with their intervals: neighbours whose intervals overlap are not told apart. Under "
        "each board: how wide its intervals are, how many pairs of agents they separate, and whether the head to "
        "head agrees with the order there (it need not: strengths can be non-transitive)."
    )
    if any(data.get("added") for board, data in boards.items() if board not in legacy):
        points += (" A mean score depends on whom an agent sat with: the searchers, added with matched seats, met "
                   "another mix of opponents than the others did. The points rating counts whom each agent met, so "
                   "where its order and the mean scores' part, the points are the fair comparison.")
    if not legacy:
        return points + (" For a sharp comparison of two agents use `big2 eval --duplicate`; to place a new agent, "
                         "add it to a stored board with `big2 arena --pool`.")
    seats = [r["games"] for data in legacy.values() for r in data["ratings"]]
    sampled = any(data["tables"] == "sampled" for data in legacy.values())
    held = (f"{min(seats)} to {max(seats)} seats an agent" if seats else "a few dozen seats an agent") + (
        ", sampled tables, so that agents met different opponents" if sampled else "")
    parts = [f"on the {BOARD_NAMES[board]} board " + _listed(notes)
             for board, data in legacy.items() if (notes := order_disagreements(data))]
    where = ("; ".join(parts) + ".") if parts else "on these runs no agent is two places apart in the two orders."
    lead = points + " " if len(legacy) < len(boards) else "Read the ratings with their intervals. "
    return (
        lead + f"On the boards measured before the points rating, with so few games "
        f"({held}), OpenSkill's order can disagree with the mean score's: {where} That rating counts finishing "
        "places only, not the points won, and its one pass over the games is an approximation that more deals "
        "settle. For a sharp comparison of two agents use `big2 eval --duplicate` or a larger arena."
    )


def check_note(data: dict[str, Any] | None) -> str:
    """The introduction's sentence on the arena's four-agent check, from ``check.json``."""
    if data is None:
        return ("The arena's four-agent check is not measured yet: run "
                "`python benchmarks/leaderboard.py --board check --deals 40 --seed 1 --tables all`.")
    rows = data["ratings"]
    if _points_board(data):
        ranks = ", ".join(f"{r['agent_shown']} {r['points']:+.2f}" for r in rows) + " points a game"
    else:
        ranks = ", ".join(f"{r['agent_shown']} {r['mu']:.1f}" for r in rows)
    if _points_board(data) and all(abs(r["points"] - r["mean_score"]) < 5e-3 for r in rows):
        scores = "at one table of four, each agent's points are its mean score"
    else:
        scores = "mean scores " + ", ".join(f"{r['mean_score']:+.2f}" for r in rows)
    return (f"The arena's four-agent check (`{data['arena_command']}`, measured {data['date']}, the search at its "
            f"default budget of 640 rollouts, {data['games']} games) ranks {ranks} ({scores}).")


def budgets_note(boards: dict[str, dict[str, Any]]) -> str:
    """Which budgets the search and ISMCTS played at, from the boards' commands (and how search-net's rollouts played)."""
    return _budgets(boards) + _search_net_note(boards)


def _search_net_note(boards: dict[str, dict[str, Any]]) -> str:
    """A board measured before search-net's opponent models (its file says nothing of them) rated the older default."""
    before = [UNDER[b] for b, data in boards.items() if "search_net_opponent_models" not in data
              and any(a["agent_shown"].startswith("search-net") for a in data["ratings"])]
    if not before:
        return ""
    return (f" On the board{'s' if len(before) > 1 else ''} under {' and '.join(before)}, `search-net` was rated with the "
            "network in every seat of its rollouts, its default until 2026-11-29; since then its rollouts give a seat "
            "whose moves Smart, Greedy or Random explain clearly better to that model "
            "([opponent models](experiments/search-net-opponent-models.md)).")


def _budgets(boards: dict[str, dict[str, Any]]) -> str:
    named = sorted({a["agent_shown"] for data in boards.values() for a in data["ratings"]
                    if a["agent_shown"].split(":")[0] in ("search", "ismcts") and ":" in a["agent_shown"]})
    if not named:
        return ("Every agent plays at its default budget: the search with 640 nested rollouts a decision, ISMCTS "
                "with 640 iterations, `search-net` with 640 rollouts of the board's network (`pretrained` under the "
                "paper's rules, `pretrained-charlesworth` under his).")
    return ("The search and ISMCTS play at the budgets in the agent names where they have one: `search:64` is 64 "
            "rollouts a decision (the default `search` has 640), `ismcts:64` 64 iterations; `search-net` plays "
            "640 rollouts of the board's network (`pretrained` under the paper's rules, `pretrained-charlesworth` "
            "under his).")


def write_page(params_note: str) -> None:
    stored = {board: data for board in BOARDS if (data := _load(RESULTS / f"{board}.json")) is not None}
    lines = [
        "---",
        "hide:",
        "  - toc",
        "---",
        "",
        "# Leaderboard",
        "",
        WRITTEN_MARK,
        "",
        "Every shipped agent rated by [`big2 arena`](evaluation.md#the-arena) at four-seat tables of mixed agents, "
        "best first by points (its expected score a game against the pool's average), with 95% intervals; how the "
        "boards are made and how to read them is [below the boards](#how-the-boards-are-made).",
        "",
    ]
    tail = [
        "## How the boards are made",
        "",
        "Each table plays each deal in the four seat rotations, so every agent holds every hand. Best first by "
        "**points**, the game's own unit: an agent's expected score a game against the pool's average (at a table, "
        "its rating minus the mean rating of the four seats), fitted by least squares to all the games at once. "
        "Beside it, **placing**: the log strength of a Plackett-Luce model of the finishing orders, fitted to all "
        "the games too (finishing places are not what the game pays: an agent that often comes second and rarely "
        "wins can out-place one that wins more and bigger). Intervals are 95%, from a bootstrap over deals. Win "
        "rate and mean score are over the seats each agent held. Parity is 0 points, a 25% win rate and a mean "
        "score of 0.",
        "",
        budgets_note(stored) + " `benchmarks/leaderboard.py` refreshes the boards; a new agent is placed on a "
        "stored board with `big2 arena --pool` (below each board).",
        "",
        reading_note(stored),
        "",
        check_note(_load(RESULTS / f"{CHECK}.json")),
        "",
    ]
    for board in BOARDS:
        if board in stored:
            lines += board_section(stored[board])
        else:
            lines += [f"## {TITLES[board]}", "", "Not measured yet: run `python benchmarks/leaderboard.py "
                      f"--board {board}`.", ""]
        if board == "charlesworth":
            lines += [params_note, ""]
    lines += tail
    PAGE.write_text("\n".join(lines).rstrip() + "\n")
    print(f"wrote {PAGE}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", choices=(*BOARDS, "both", CHECK), default="both",
                        help="a board, both, or check (the introduction's four-agent check)")
    parser.add_argument("--deals", type=int, default=60,
                        help="deals every table plays (default 60: about +-0.5 points a game for every agent)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tables", choices=("all", "sampled"), default="all")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--search", default="search", help="the search's spec and budget (default: search, 640)")
    parser.add_argument("--ismcts", default="ismcts", help="ISMCTS's spec and budget (default: ismcts, 640)")
    parser.add_argument("--search-net", default="search-net",
                        help="the search over our network's spec and budget (default: search-net, 640 rollouts, "
                             "over the board's network); none leaves it out")
    parser.add_argument("--searchers", choices=("add", "tables"), default="add",
                        help="add (default): the search, ISMCTS and search-net (tenths of a second a "
                             "decision) join a board of the others by big2 arena --add, with as many seats as each "
                             "of those holds; tables: they play every table too (five to six times the time)")
    parser.add_argument("--params", default=None, help="Charlesworth's parameter file (modelParameters136500)")
    parser.add_argument("--runs", default="runs/leaderboard", help="the arena folders (resumed when there)")
    parser.add_argument("--page-only", action="store_true", help="rewrite docs/leaderboard.md from the stored results")
    parser.add_argument("--pictures", action="store_true",
                        help="with --page-only: redraw benchmarks/leaderboard/BOARD.png from the stored results")
    args = parser.parse_args(argv)
    if args.params and not Path(args.params).is_file():
        sys.exit(f"no such file {args.params!r}: download modelParameters136500 from his repository")
    if not args.page_only:
        RESULTS.mkdir(exist_ok=True)
        for board in BOARDS if args.board == "both" else (args.board,):  # check too
            data = measure(args, board)
            (RESULTS / f"{board}.json").write_text(json.dumps(data, indent=2) + "\n")
    if args.pictures:
        for board in BOARDS:
            data = _load(RESULTS / f"{board}.json")
            if data is not None and _points_board(data):
                draw_board(data, RESULTS / f"{board}.png")
    stored = RESULTS / "charlesworth.json"
    with_his = stored.is_file() and json.loads(stored.read_text()).get("his_network")
    note = (
        "His network (`charlesworth:PATH`) is measured here with his parameter file, `modelParameters136500`, "
        "downloaded from [his repository](https://github.com/henrycharlesworth/big2_PPOalgorithm); the command "
        "above shows its path as PATH."
        if with_his else
        "His network is not on this board: it needs his parameter file, `modelParameters136500`, which you "
        "download from [his repository](https://github.com/henrycharlesworth/big2_PPOalgorithm) (it has no "
        "licence, so the package cannot ship it). With it, run the command above with `--params PATH`."
    )
    write_page(note)


if __name__ == "__main__":
    main()
