"""The docs' leaderboard (docs/leaderboard.md): every shipped agent rated by ``big2 arena``, under each rule set.

Two boards:

* ``paper``: random, greedy, smart, pretrained, the search, ISMCTS, the fast model and
  pretrained-default-recipe, under the paper's rules;
* ``charlesworth``: the first seven plus pretrained-charlesworth and, given ``--params``, Charlesworth's own network
  (his parameter file, ``modelParameters136500``, which you download from his repository), under his rules.

and ``check``, the arena's four-agent check (random, greedy, smart and the search at its default budget,
paper rules, one table), which the page's introduction cites. The sentences that read the results (how
many seats an agent held, where the rating's order and the mean score's disagree) are written from the
stored files too.

Each board is one arena run (:func:`big2_env.evaluation.arena.run_arena`) into ``--runs/BOARD``; its
ratings, the command that measured it, the date and the deals go to ``benchmarks/leaderboard/BOARD.json``,
and the page is written from those files (``--page-only`` rewrites it without measuring).

Usage:
    python benchmarks/leaderboard.py --board paper --deals 35 --tables sampled
    python benchmarks/leaderboard.py --board charlesworth --deals 36 --tables sampled --params PATH
    python benchmarks/leaderboard.py --board check --deals 40 --seed 1 --tables all
    python benchmarks/leaderboard.py --page-only            # the page from the stored results
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import platform
import sys
from pathlib import Path
from typing import Any

from big2_env.devtools.records import portable
from big2_env.evaluation.arena import run_arena

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "leaderboard"
PAGE = HERE.parent / "docs" / "leaderboard.md"
BOARDS = ("paper", "charlesworth")
TITLES = {"paper": "Paper rules", "charlesworth": "Charlesworth's rules"}
BOARD_NAMES = {"paper": "paper-rules", "charlesworth": "Charlesworth"}
CHECK = "check"
"""The four-agent check: not a board of the page, a sentence of its introduction."""
RULES = {"paper": "paper", "charlesworth": "charlesworth", CHECK: "paper"}


def pool(board: str, search: str, ismcts: str, params: str | None) -> list[str]:
    """The board's agents (his network only with his parameter file)."""
    if board == CHECK:
        return ["random", "greedy", "smart", "search"]
    agents = ["random", "greedy", "smart", "pretrained", search, ismcts, "fast"]
    if board == "paper":
        agents.append("pretrained-default-recipe")  # the paper's design, pretrained until 2026-11-27
    if board == "charlesworth":
        agents.append("pretrained-charlesworth")
        if params:
            agents.append(f"charlesworth:{params}")
    return agents


def measure(args: argparse.Namespace, board: str) -> dict[str, Any]:
    agents = pool(board, args.search, args.ismcts, args.params)
    out = Path(args.runs) / board
    result = run_arena(agents, deals=args.deals, out=out, seed=args.seed, rules=RULES[board], tables=args.tables,
                       jobs=args.jobs, resume=out.exists(), progress=True)
    print(result.to_table())
    shown = [a if not a.startswith("charlesworth:") else "charlesworth:PATH" for a in agents]
    command = (f"python benchmarks/leaderboard.py --board {board} --deals {args.deals} --seed {args.seed} "
               f"--tables {result.schedule.mode} --search {args.search} --ismcts {args.ismcts}"
               + (" --params PATH" if args.params and board == "charlesworth" else ""))
    return {
        "board": board,
        "command": command,
        "arena_command": f"big2 arena {' '.join(shown)} --rules {RULES[board]} --deals {args.deals} --seed {args.seed} "
                         f"--tables {result.schedule.mode} --out runs/leaderboard/{board}",
        "date": datetime.date.today().isoformat(),
        "deals": args.deals,
        "tables": result.schedule.mode,
        "tables_played": len({m.table for m in result.schedule.matches}),
        "games": len(result.records),
        "his_network": bool(args.params) if board == "charlesworth" else None,
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
        "ratings": [
            dict(rank=rank, **portable(row.to_dict()), agent_shown=shown[agents.index(row.agent)])  # his file by name
            for rank, row in enumerate(result.ratings, start=1)
        ],
    }


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else format(value, spec)


def board_section(data: dict[str, Any]) -> list[str]:
    lines = [f"## {TITLES[data['board']]}", ""]
    lines += [
        f"Measured {data['date']}: {data['deals']} deals, {data['tables']} tables ({data['tables_played']} tables "
        f"played), {data['games']} games, each deal in the four seat rotations.",
        "",
        "```text",
        data["command"],
        f"# which runs: {data['arena_command']}",
        "```",
        "",
        "| rank | agent | rating mu | 95% interval | games | win rate [95%] | mean score [95%] |",
        "|---:|---|---:|---|---:|---|---|",
    ]
    for row in data["ratings"]:
        lo, hi = row["interval"]
        wlo, whi = row["win_rate_ci"]
        slo, shi = row["mean_score_ci"]
        lines.append(
            f"| {row['rank']} | `{row['agent_shown']}` | {row['mu']:.2f} | [{lo:.2f}, {hi:.2f}] | {row['games']} | "
            f"{_fmt(row['win_rate'], '.1%')} [{_fmt(wlo, '.1%')}, {_fmt(whi, '.1%')}] | "
            f"{_fmt(row['mean_score'], '+.2f')} [{_fmt(slo, '+.2f')}, {_fmt(shi, '+.2f')}] |"
        )
    lines.append("")
    return lines


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + ", and " + items[-1]


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
    seats = [r["games"] for data in boards.values() for r in data["ratings"]]
    sampled = any(data["tables"] == "sampled" for data in boards.values())
    held = (f"{min(seats)} to {max(seats)} seats an agent" if seats else "a few dozen seats an agent") + (
        ", sampled tables, so that agents met different opponents" if sampled else "")
    parts = [f"on the {BOARD_NAMES[board]} board " + _listed(notes)
             for board, data in boards.items() if (notes := order_disagreements(data))]
    where = ("; ".join(parts) + ".") if parts else "on these runs no agent is two places apart in the two orders."
    return (
        f"Read the ratings with their intervals. With so few games ({held}) the rating's order can disagree "
        f"with the mean score's: {where} The rating counts finishing places only, not the points won, and "
        "OpenSkill's one pass over the games is an approximation that more deals settle. For a sharp comparison "
        "of two agents use `big2 eval --duplicate` or a larger arena."
    )


def check_note(data: dict[str, Any] | None) -> str:
    """The introduction's sentence on the arena's four-agent check, from ``check.json``."""
    if data is None:
        return ("The arena's four-agent check is not measured yet: run "
                "`python benchmarks/leaderboard.py --board check --deals 40 --seed 1 --tables all`.")
    rows = data["ratings"]
    ranks = ", ".join(f"{r['agent_shown']} {r['mu']:.1f}" for r in rows)
    scores = ", ".join(f"{r['mean_score']:+.2f}" for r in rows)
    return (f"The arena's four-agent check (`{data['arena_command']}`, measured {data['date']}, the search at its "
            f"default budget of 640 rollouts, {data['games']} games) ranks {ranks} (mean scores {scores}).")


def write_page(params_note: str) -> None:
    stored = {board: data for board in BOARDS if (data := _load(RESULTS / f"{board}.json")) is not None}
    lines = [
        "# Leaderboard",
        "",
        "Every shipped agent rated at four-seat tables of mixed agents by [`big2 arena`](evaluation.md#the-arena): "
        "each table plays each deal in the four seat rotations, so every agent holds every hand, and every game's "
        "finishing order updates an OpenSkill (Plackett-Luce) rating. Best first, by the rating's mean `mu` (it "
        "starts at 25); its interval is `mu +- 1.96 sigma`. Win rate and mean score are over the seats each "
        "agent held, with 95% intervals over deals. Parity is a 25% win rate and a mean score of 0.",
        "",
        "The runs are small (each agent meets each other on a few dozen deals), so neighbours whose intervals "
        "overlap are not told apart; `benchmarks/leaderboard.py` refreshes the tables (run it again with more "
        "`--deals` when an agent ships). The search and ISMCTS play at the budgets in the agent names: "
        "`search:64` is 64 rollouts a decision (the default `search` has 640), `ismcts:64` 64 iterations.",
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
    PAGE.write_text("\n".join(lines).rstrip() + "\n")
    print(f"wrote {PAGE}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", choices=(*BOARDS, "both", CHECK), default="both",
                        help="a board, both, or check (the introduction's four-agent check)")
    parser.add_argument("--deals", type=int, default=35)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tables", choices=("all", "sampled"), default="sampled")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--search", default="search:64", help="the search's spec and budget (default search:64)")
    parser.add_argument("--ismcts", default="ismcts:64", help="ISMCTS's spec and budget (default ismcts:64)")
    parser.add_argument("--params", default=None, help="Charlesworth's parameter file (modelParameters136500)")
    parser.add_argument("--runs", default="runs/leaderboard", help="the arena folders (resumed when there)")
    parser.add_argument("--page-only", action="store_true", help="rewrite docs/leaderboard.md from the stored results")
    args = parser.parse_args(argv)
    if args.params and not Path(args.params).is_file():
        sys.exit(f"no such file {args.params!r}: download modelParameters136500 from his repository")
    if not args.page_only:
        RESULTS.mkdir(exist_ok=True)
        for board in BOARDS if args.board == "both" else (args.board,):  # check too
            data = measure(args, board)
            (RESULTS / f"{board}.json").write_text(json.dumps(data, indent=2) + "\n")
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
