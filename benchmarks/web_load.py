"""Load on the web table: many concurrent games against a ``big2 serve`` on localhost.

Starts ``big2 serve --no-browser`` as its own process (as a user would), measures how long the
first page takes from the process's start, then plays ``--games`` games at once, each from its
own client thread: the person makes a random legal play when on move, the page's
``advance`` request is sent for every agent move (no delay between them, so the server is
pushed harder than a page at human speed pushes it). Every request's latency is recorded.

    python benchmarks/web_load.py --games 50 --opponents smart --json benchmarks/web/load_50.json

Prints the time to the first page, the number of requests and errors, and the latency
percentiles of every request, of the person's moves and of the agents' moves (``advance``:
the agent's thinking included).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def request(base: str, method: str, path: str, body: object = None) -> tuple[int, dict, float]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method, headers={"Content-Type": "application/json"})
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=60) as response:
            status, payload = response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        status, payload = err.code, json.loads(err.read())
    except (urllib.error.URLError, ConnectionError, TimeoutError) as err:  # counted as an error, not a crash
        status, payload = 0, {"error": f"{type(err).__name__}: {err}"}
    return status, payload, time.perf_counter() - started


def play_one(base: str, opponents: list[str], seed: int, out: dict) -> None:
    rng = np.random.default_rng(seed)
    status, view, seconds = request(base, "POST", "/api/games", {"opponents": opponents, "seed": seed, "insight": False})
    out["create"].append(seconds)
    if status != 201:
        out["errors"].append(f"create: {status} {view}")
        return
    while not view["over"]:
        if view["player"] == view["human"]:
            legal = view["legal"]
            status, view, seconds = request(base, "POST", f"/api/games/{view['id']}/move",
                                            {"cards": legal[rng.integers(len(legal))]})
            out["move"].append(seconds)
        else:
            status, view, seconds = request(base, "POST", f"/api/games/{view['id']}/advance")
            out["advance"].append(seconds)
        if status != 200:
            out["errors"].append(f"{status} {view}")
            return
    out["scores"].append(view["scores"])


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    array = np.array(values) * 1000
    return {"n": len(values), "p50_ms": float(np.percentile(array, 50)), "p95_ms": float(np.percentile(array, 95)),
            "p99_ms": float(np.percentile(array, 99)), "max_ms": float(array.max())}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50, help="concurrent games (default 50)")
    parser.add_argument("--opponents", default="smart", help="the agent in the three other seats (default smart)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start-after", type=float, default=0.0, metavar="S",
                        help="start the games S seconds after the first page (default 0: at once, while the server "
                        "still loads the compiled core in the background)")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "big2_env.cli", "serve", "--no-browser", "--port", str(port),
               "--opponents", args.opponents, "--max-games", str(max(100, args.games))]
    started = time.perf_counter()
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        while True:  # the first page, from the process's start
            try:
                with urllib.request.urlopen(base + "/", timeout=5) as response:
                    response.read()
                break
            except (urllib.error.URLError, ConnectionError):
                if server.poll() is not None:
                    raise RuntimeError(f"big2 serve exited: {server.stderr.read().decode() if server.stderr else ''}")
                if time.perf_counter() - started > 60:
                    raise RuntimeError("big2 serve did not answer within 60 s") from None
                time.sleep(0.01)
        first_page = time.perf_counter() - started
        time.sleep(args.start_after)
        out: dict[str, list] = {"create": [], "move": [], "advance": [], "errors": [], "scores": []}
        threads = [threading.Thread(target=play_one, args=(base, [args.opponents] * 3, args.seed + g, out))
                   for g in range(args.games)]
        begun = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - begun
    finally:
        server.terminate()
        server.wait(timeout=10)
    every = out["create"] + out["move"] + out["advance"]
    figures = {
        "games": args.games, "opponents": args.opponents, "start_after_s": args.start_after,
        "finished": len(out["scores"]), "errors": out["errors"][:10],
        "error_count": len(out["errors"]), "first_page_s": first_page, "elapsed_s": elapsed,
        "requests": len(every), "requests_per_s": len(every) / elapsed,
        "all": percentiles(every), "move": percentiles(out["move"]), "advance": percentiles(out["advance"]),
        "create": percentiles(out["create"]),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "command": f"python benchmarks/web_load.py --games {args.games} --opponents {args.opponents} --seed {args.seed} "
                   f"--start-after {args.start_after}",
    }
    print(f"first page {first_page * 1000:.0f} ms after big2 serve started; {args.games} concurrent games against "
          f"{args.opponents}: {figures['finished']} finished, {figures['error_count']} errors, {len(every)} requests in "
          f"{elapsed:.1f} s ({figures['requests_per_s']:.0f}/s)")
    for name in ("all", "move", "advance", "create"):
        p = figures[name]
        if p:
            print(f"  {name:8s} n={p['n']:5d}  p50 {p['p50_ms']:6.1f} ms  p95 {p['p95_ms']:6.1f} ms  "
                  f"p99 {p['p99_ms']:6.1f} ms  max {p['max_ms']:6.1f} ms")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return figures


if __name__ == "__main__":
    main()
