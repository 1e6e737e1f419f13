"""The HTTP server of ``big2 serve``: the page's files and a small JSON API, on the standard library.

Why the standard library (:class:`http.server.ThreadingHTTPServer`): the page polls a handful of
JSON endpoints and each request is a few milliseconds of engine work, so one thread per request
is enough for the 50 concurrent games the load benchmark asks of it; no websocket or async
framework is needed, and ``pip install big2-env`` stays free of a web stack.

Endpoints (JSON in and out; errors are ``{"error": message}`` with a 4xx status, and leave
every game as it was):

* ``GET /`` and ``GET /static/NAME``: the page (only the package's own files);
* ``GET /api/info``: the agents this server offers, the rule presets, the limits;
* ``POST /api/games``: a new game (:meth:`~big2_env.web.tables.TableStore.create`) -> its view;
* ``GET /api/games/ID``: the game as its viewer sees it (:meth:`~big2_env.web.tables.Table.view`);
* ``POST /api/games/ID/move`` ``{"cards": [...]}``: your move ([] passes) -> the view;
* ``POST /api/games/ID/advance``: the agent on move plays -> the view;
* ``GET /api/games/ID/replay``: the game as a replay (:mod:`big2_env.engine.replay`);
* ``POST /api/replays``: a replay to step through -> every position (checked on the engine).

Bodies are at most :data:`MAX_BODY` bytes of ``application/json``. Game ids are 128-bit random
tokens: a page acts only in the games it created, since no other page can name them.
"""

from __future__ import annotations

import ipaddress
import json
import socket
import sys
import threading
import webbrowser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any, Callable, Sequence

from ..engine.rules import Rules
from ..engine.replay import ReplayError, replay_positions
from .tables import DEFAULT_AGENTS, TableError, TableStore

__all__ = ["MAX_BODY", "STATIC_FILES", "Big2Server", "is_loopback", "make_server", "serve"]

MAX_BODY = 256 * 1024
"""The largest request body accepted (a replay of the longest game is about 10 KiB)."""
STATIC_FILES = {"index.html": "text/html", "app.js": "text/javascript", "style.css": "text/css"}
"""The page's files (``big2_env/web/static``) and their content types: nothing else is served."""
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'",
}


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _static(name: str) -> bytes:
    return resources.files("big2_env.web").joinpath("static").joinpath(name).read_bytes()


class Big2Server(ThreadingHTTPServer):
    """The threading HTTP server with the games (``store``) its handler serves."""

    daemon_threads = True  # a client that vanishes mid-request never keeps the server from stopping
    allow_reuse_address = True
    request_queue_size = 128  # the listen backlog (socketserver's 5 resets connections when many pages poll at once)

    def __init__(self, address: tuple[str, int], store: TableStore, quiet: bool = True) -> None:
        self.store, self.quiet = store, quiet
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, _Handler)


class _Handler(BaseHTTPRequestHandler):
    server: Big2Server
    protocol_version = "HTTP/1.1"
    timeout = 30  # seconds a client may take to send its request

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        if not self.server.quiet:
            super().log_message(format, *args)

    # ------------------------------------------------------------ responses
    def _send(self, status: int, body: bytes, content_type: str, cache: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type + "; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=300" if cache else "no-store")
        for key, value in SECURITY_HEADERS.items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, data: Any) -> None:
        self._send(status, json.dumps(data).encode(), "application/json")

    def _error(self, status: int, message: str) -> None:
        self._json(status, {"error": message})

    def _body(self) -> Any:
        """The request's JSON body (``{}`` when empty); :class:`TableError` if too large, not JSON or mistyped."""
        length_text = self.headers.get("Content-Length", "0")
        try:
            length = int(length_text)
        except ValueError:
            raise TableError(400, f"Content-Length must be a number; got {length_text!r}") from None
        if length < 0:
            raise TableError(400, "Content-Length must not be negative")
        if length > MAX_BODY:
            self.close_connection = True  # the body is not read: the connection cannot be reused
            raise TableError(413, f"the request body is {length} bytes; at most {MAX_BODY} are accepted")
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return {}
        kind = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise TableError(415, f"the request body must be application/json; got {kind or 'no Content-Type'!r}")
        try:
            return json.loads(raw)
        except (UnicodeDecodeError, ValueError) as err:
            raise TableError(400, f"the request body is not valid JSON: {err}") from None

    # ------------------------------------------------------------ routing
    def do_HEAD(self) -> None:  # noqa: N802 - the base class's name
        self.do_GET()

    def do_GET(self) -> None:  # noqa: N802
        self._route("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._route("POST")

    def _route(self, method: str) -> None:
        path = self.path.split("?", 1)[0]
        parts = [p for p in path.split("/") if p]
        try:
            try:
                handler = self._find(method, parts)
                handler()
            except TableError as err:
                self._error(err.status, err.message)
            except (BrokenPipeError, ConnectionResetError):
                raise
            except Exception as err:  # noqa: BLE001 - one bad request must not bring the server down
                self._error(500, f"internal error: {type(err).__name__}: {err}")
        except (BrokenPipeError, ConnectionResetError):  # the client went away: nothing to answer
            self.close_connection = True

    def _find(self, method: str, parts: list[str]) -> Callable[[], None]:
        store = self.server.store
        if method == "GET" and parts in ([], ["index.html"]):
            return lambda: self._send(200, _static("index.html"), "text/html")
        if method == "GET" and len(parts) == 2 and parts[0] == "static":
            name = parts[1]
            if name not in STATIC_FILES:
                raise TableError(404, f"no such file: {name!r}")
            return lambda: self._send(200, _static(name), STATIC_FILES[name], cache=True)
        if parts[:1] != ["api"]:
            raise TableError(404, f"no such page: {self.path!r}")
        rest = parts[1:]
        if rest == ["info"] and method == "GET":
            return lambda: self._json(200, {
                "agents": list(store.allowed), "rules": list(Rules.PRESETS),
                "default_rules": store.default_rules.to_dict(), "max_games": store.max_tables,
                "idle_seconds": store.idle_seconds,
            })
        if rest == ["games"] and method == "POST":
            return lambda: self._json(201, store.create(self._body()).view())
        if rest == ["replays"] and method == "POST":
            return self._replay_positions
        if len(rest) >= 2 and rest[0] == "games":
            action = rest[2] if len(rest) == 3 else None
            if len(rest) > 3:
                raise TableError(404, f"no such endpoint: {self.path!r}")
            if method == "GET" and action is None:
                return lambda: self._json(200, store.get(rest[1]).view())
            if method == "GET" and action == "replay":
                return lambda: self._json(200, store.get(rest[1]).replay())
            if method == "POST" and action == "move":
                return lambda: self._move(rest[1])
            if method == "POST" and action == "advance":
                return lambda: self._advance(rest[1])
        if method == "GET" or method == "POST":
            raise TableError(404 if method == "GET" else 405, f"no such endpoint: {method} {self.path}")
        raise TableError(405, f"method {method} is not allowed")

    def _move(self, table_id: str) -> None:
        table = self.server.store.get(table_id)
        body = self._body()
        if not isinstance(body, dict) or set(body) != {"cards"}:
            raise TableError(400, 'a move is {"cards": [card ids]} ([] passes)')
        table.play(body["cards"])
        self._json(200, table.view())

    def _advance(self, table_id: str) -> None:
        table = self.server.store.get(table_id)
        self._body()  # read (and check) any body, so that the connection stays usable
        table.advance()
        self._json(200, table.view())

    def _replay_positions(self) -> None:
        body = self._body()
        try:
            frames = replay_positions(body)
        except ReplayError as err:
            raise TableError(422, f"not a valid replay: {err}") from None
        self._json(200, {"replay": body, "positions": frames})


def make_server(host: str = "127.0.0.1", port: int = 8000, store: TableStore | None = None, quiet: bool = True) -> Big2Server:
    """The server bound to ``host:port`` (port 0: any free port; ``server.server_address`` says which)."""
    return Big2Server((host, port), store if store is not None else TableStore(), quiet=quiet)


def warm_up(rules: str = "paper") -> None:
    """Load what the first game needs (the compiled core's cache, Smart) so that its first moves
    answer fast; run in a background thread once the server listens, so the page is not kept waiting."""
    from ..evaluation.arena import evaluate

    evaluate("smart", "random", n_games=1, seed=0, rules=rules, progress=False)


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    agents: Sequence[str] = DEFAULT_AGENTS,
    rules: str = "paper",
    open_browser: bool = True,
    max_games: int = 100,
    idle_minutes: float = 30.0,
    ready: Callable[[str], None] | None = None,
    exit_after: float | None = None,
) -> None:
    """Run ``big2 serve`` until interrupted: the page at ``http://host:port/``.

    ``agents`` are the specs the page may seat; ``ready(url)`` is called once the server listens
    (by default it prints the address and opens the browser unless ``open_browser`` is false);
    ``exit_after`` seconds, if given, stop it.
    """
    store = TableStore(agents, max_tables=max_games, idle_seconds=idle_minutes * 60, default_rules=rules)
    server = make_server(host, port, store, quiet=True)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{server.server_address[1]}/"
    if not is_loopback(host):
        print(f"warning: serving on {host}, not only this machine: anyone who can reach it can open games",
              file=sys.stderr)
    threading.Thread(target=warm_up, args=(rules,), daemon=True).start()
    if ready is not None:
        ready(url)
    else:
        print(f"big2 serve: the table is at {url} (Ctrl+C stops it)", flush=True)
        if open_browser:
            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    if exit_after is not None:
        timer = threading.Timer(exit_after, server.shutdown)
        timer.daemon = True
        timer.start()
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
