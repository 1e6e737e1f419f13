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

Bodies are at most :data:`MAX_BODY` bytes, and every POST is ``application/json`` (which another
site's page cannot send without the browser asking the server first). On a loopback address,
requests whose ``Host`` is not this machine are refused (DNS rebinding). Game ids are 128-bit
random tokens: a page acts only in the games it created, since no other page can name them.
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

from ..engine.rules import RULE_MEANINGS, Rules
from ..engine.replay import ReplayError, replay_positions
from .tables import DEFAULT_AGENTS, HOUSE_OPTIONS, TableError, TableStore

__all__ = ["LOOPBACK_NAMES", "MAX_BODY", "STATIC_FILES", "Big2Server", "ListenError", "is_loopback", "make_server", "serve"]

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


LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
"""The Host names a loopback server answers to (any port)."""


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def path_text(path: str) -> str:
    """A request path for an error message (shortened)."""
    return repr(path if len(path) <= 120 else path[:117] + "...")


class ListenError(OSError):
    """The server could not listen where it was asked to (the address is in use, or not this machine's)."""


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
        self.loopback = is_loopback(address[0])
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        try:
            super().__init__(address, _Handler)
        except OSError as err:
            raise ListenError(err.errno, f"cannot listen on {address[0]}:{address[1]}: {err.strerror or err}") from None


class _Handler(BaseHTTPRequestHandler):
    server: Big2Server
    _raw: bytes = b""  # this request's body, read first
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

    def _read_body(self) -> None:
        """Read the request's body (by ``Content-Length``) before anything else, so that the
        connection stays usable whatever the answer; a body that cannot be read closes it."""
        self._raw = b""
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            raise TableError(411, "send the body with a Content-Length (chunked bodies are not accepted)")
        length_text = self.headers.get("Content-Length", "0")
        try:
            length = int(length_text)
        except ValueError:
            self.close_connection = True
            raise TableError(400, f"Content-Length must be a number; got {length_text!r}") from None
        if length < 0:
            self.close_connection = True
            raise TableError(400, "Content-Length must not be negative")
        if length > MAX_BODY:
            self.close_connection = True  # the body is not read: the connection cannot be reused
            raise TableError(413, f"the request body is {length} bytes; at most {MAX_BODY} are accepted")
        self._raw = self.rfile.read(length) if length else b""

    def _body(self) -> Any:
        """The request's JSON body (``{}`` when empty); :class:`TableError` if not JSON or mistyped."""
        if not self._raw:
            return {}
        try:
            return json.loads(self._raw, parse_constant=_refuse_constant)
        except (UnicodeDecodeError, ValueError, RecursionError) as err:
            raise TableError(400, f"the request body is not valid JSON: {err}") from None

    def _check_request(self, method: str) -> None:
        """Refuse what a page of this server never sends: a POST that is not JSON (what another
        site could send without the browser asking first) and, on a loopback address, a Host
        header that is not this machine (DNS rebinding)."""
        if method == "POST":
            kind = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
            if kind != "application/json":
                raise TableError(415, f"a POST must be application/json; got {kind or 'no Content-Type'!r}")
        if self.server.loopback:
            host = (self.headers.get("Host") or "").rsplit(":", 1)[0].strip("[]").lower()
            if host not in LOOPBACK_NAMES:
                raise TableError(403, f"this server answers requests to this machine only; Host was {host!r}")

    # ------------------------------------------------------------ routing
    def _dispatch(self) -> None:
        self._route("GET" if self.command == "HEAD" else self.command)

    do_HEAD = do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _dispatch  # the base class's names

    def _route(self, method: str) -> None:
        path = self.path.split("?", 1)[0]
        parts = [p for p in path.split("/") if p]
        try:
            try:
                self._read_body()
                self._check_request(method)
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
        """The handler of ``method`` on ``parts``: 404 for a path that names nothing, 405 for a
        method the path does not take."""
        store = self.server.store
        routes: dict[str, Callable[[], None]] = {}
        if parts in ([], ["index.html"]):
            routes["GET"] = lambda: self._send(200, _static("index.html"), "text/html")
        elif len(parts) == 2 and parts[0] == "static":
            name = parts[1]
            if name not in STATIC_FILES:
                raise TableError(404, f"no such file: {name!r}")
            routes["GET"] = lambda: self._send(200, _static(name), STATIC_FILES[name], cache=True)
        elif parts == ["api", "info"]:
            routes["GET"] = lambda: self._json(200, {
                "agents": list(store.allowed), "rules": list(Rules.PRESETS), "default_rules": store.default_rules_name,
                "options": {name: {json.dumps(value): meaning for value, meaning in RULE_MEANINGS[name].items()}
                            for name in HOUSE_OPTIONS},
                "max_games": store.max_tables, "idle_seconds": store.idle_seconds,
            })
        elif parts == ["api", "games"]:
            routes["POST"] = lambda: self._json(201, store.create(self._body()).view())
        elif parts == ["api", "replays"]:
            routes["POST"] = self._replay_positions
        elif len(parts) == 3 and parts[:2] == ["api", "games"]:
            routes["GET"] = lambda: self._json(200, store.get(parts[2]).view())
        elif len(parts) == 4 and parts[:2] == ["api", "games"] and parts[3] == "replay":
            routes["GET"] = lambda: self._json(200, store.get(parts[2]).replay())
        elif len(parts) == 4 and parts[:2] == ["api", "games"] and parts[3] == "move":
            routes["POST"] = lambda: self._move(parts[2])
        elif len(parts) == 4 and parts[:2] == ["api", "games"] and parts[3] == "advance":
            routes["POST"] = lambda: self._advance(parts[2])
        else:
            raise TableError(404, f"no such page or endpoint: {path_text(self.path)}")
        if method not in routes:
            raise TableError(405, f"{path_text(self.path)} takes {', '.join(routes)}, not {method}")
        return routes[method]

    def _move(self, table_id: str) -> None:
        table = self.server.store.get(table_id)
        body = self._body()
        if not isinstance(body, dict) or set(body) != {"cards"}:
            raise TableError(400, 'a move is {"cards": [card ids]} ([] passes)')
        table.play(body["cards"])
        self._json(200, table.view())

    def _advance(self, table_id: str) -> None:
        table = self.server.store.get(table_id)
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
    from ..evaluation.versus import evaluate

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
    store.check_agents()
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
