"""The web table's server (big2_env.web): its API, every refused request, replays and limits,
against a real server on a free localhost port."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request

import numpy as np
import pytest

from big2_env import Game, Rules
from big2_env.engine.replay import ReplayError, check_replay, read_replay, replay_dict, replay_positions, write_replay
from big2_env.web.server import MAX_BODY, is_loopback, make_server
from big2_env.web.tables import TableError, TableStore


class Client:
    def __init__(self, store: TableStore) -> None:
        self.server = make_server("127.0.0.1", 0, store)
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def raw(self, method: str, path: str, data: bytes | None = None, content_type: str | None = "application/json"):
        headers = {} if content_type is None else {"Content-Type": content_type}
        request = urllib.request.Request(self.base + path, method=method, data=data, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as err:
            return err.code, dict(err.headers), err.read()

    def call(self, method: str, path: str, body=None):
        status, _, raw = self.raw(method, path, None if body is None else json.dumps(body).encode())
        return status, json.loads(raw)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def client():
    c = Client(TableStore(("random", "greedy", "smart", "search:8")))
    yield c
    c.close()


def finish(client: Client, view: dict, rng: np.random.Generator) -> dict:
    """Play the game to its end: a random legal play for the person, the agents otherwise."""
    while not view["over"]:
        if view["player"] == view["human"]:
            legal = view["legal"]
            status, view = client.call("POST", f"/api/games/{view['id']}/move", {"cards": legal[rng.integers(len(legal))]})
        else:
            status, view = client.call("POST", f"/api/games/{view['id']}/advance")
        assert status == 200, view
    return view


def test_the_page_and_only_its_own_files_are_served(client):
    status, headers, body = client.raw("GET", "/")
    assert status == 200 and b"<script src=\"/static/app.js\"" in body and headers["Content-Type"].startswith("text/html")
    assert "default-src 'self'" in headers["Content-Security-Policy"] and headers["X-Content-Type-Options"] == "nosniff"
    for name, kind in (("app.js", "text/javascript"), ("style.css", "text/css")):
        status, headers, body = client.raw("GET", f"/static/{name}")
        assert status == 200 and headers["Content-Type"].startswith(kind) and body
    for path in ("/static/../tables.py", "/static/secret.txt", "/etc/passwd", "/api/nothing"):
        status, _, body = client.raw("GET", path)
        assert status == 404 and "error" in json.loads(body)
    status, info = client.call("GET", "/api/info")
    assert status == 200 and info["agents"] == ["random", "greedy", "smart", "search:8"] and "charlesworth" in info["rules"]


@pytest.mark.parametrize("human", [0, 2])
def test_a_game_played_through_the_api_scores_as_the_engine_replaying_its_moves(client, human):
    status, view = client.call("POST", "/api/games", {"opponents": ["random", "smart", "greedy"], "seed": 11, "human": human})
    assert status == 201 and view["seats"][human] == "you" and view["mode"] == "play"
    assert all((hand is None) == (seat != human) for seat, hand in enumerate(view["hands"]))  # only your own hand
    view = finish(client, view, np.random.default_rng(human))
    game = Game(Rules(), seed=11)
    for seat, cards in view["history"]:
        assert seat == game.current_player
        game.play(cards)
    assert game.is_over and view["scores"] == game.scores() and view["winner"] == game.winner
    assert all(hand is not None for hand in view["hands"])  # every hand shown at the end
    status, replay = client.call("GET", f"/api/games/{view['id']}/replay")
    assert status == 200 and replay["scores"] == game.scores() and check_replay(replay).scores() == game.scores()
    status, frames = client.call("POST", "/api/replays", replay)
    assert status == 200 and len(frames["positions"]) == len(view["history"]) + 1
    assert frames["positions"][-1]["scores"] == game.scores()


def test_a_game_to_watch_shows_every_hand_and_takes_no_moves(client):
    status, view = client.call("POST", "/api/games", {"mode": "watch", "seats": ["search:8", "smart", "greedy", "random"],
                                                     "seed": 4, "rules": "charlesworth"})
    assert status == 201 and view["human"] is None and all(len(hand) == 13 for hand in view["hands"])
    assert view["rules"] == Rules.preset("charlesworth").to_dict()
    while view["player"] != 0:  # on to the search's turn: its insight is its candidates' means and deals
        assert view["insight"] is None  # heuristics show none
        view = client.call("POST", f"/api/games/{view['id']}/advance")[1]
    seen = view["insight"]
    assert seen["kind"] == "search" and seen["candidates"] and all(c["visits"] > 0 for c in seen["candidates"])
    assert [c["mean"] for c in seen["candidates"]] == sorted((c["mean"] for c in seen["candidates"]), reverse=True)
    view = client.call("POST", f"/api/games/{view['id']}/advance")[1]
    assert view["history"][-1][1] == seen["chosen"]  # the move made is the move shown
    status, error = client.call("POST", f"/api/games/{view['id']}/move", {"cards": []})
    assert status == 409 and "watch" in error["error"]
    view = finish(client, view, np.random.default_rng(0))
    assert sum(view["scores"]) == 0
    status, error = client.call("POST", f"/api/games/{view['id']}/advance")
    assert status == 409 and error["error"] == "the game is over"


def test_every_bad_request_is_refused_with_a_message_and_changes_nothing(client):
    status, view = client.call("POST", "/api/games", {"opponents": ["random"] * 3, "seed": 2})
    gid = view["id"]
    while view["player"] != view["human"]:
        view = client.call("POST", f"/api/games/{gid}/advance")[1]
    before = client.call("GET", f"/api/games/{gid}")[1]
    hand = before["hands"][0]
    bad_moves = [
        ({"cards": [hand[0], hand[1], hand[2], hand[3]]}, 422, "illegal play"),  # no four-card plays in the paper's rules
        ({"cards": [52]}, 400, "bad cards"),
        ({"cards": "3D"}, 400, "list of at most 13"),
        ({"cards": [True]}, 400, "list of at most 13"),
        ({"cards": [], "extra": 1}, 400, "a move is"),
        ([1, 2], 400, "a move is"),
    ]
    not_held = next(c for c in range(52) if c not in hand)
    bad_moves.append(({"cards": [not_held]}, 422, "illegal play"))
    if not before["trick"]:
        bad_moves.append(({"cards": []}, 422, "illegal play"))  # leading: no pass
    for body, code, words in bad_moves:
        status, error = client.call("POST", f"/api/games/{gid}/move", body)
        assert status == code and words in error["error"], (body, error)
        assert "illegal play: illegal play" not in error["error"]  # said once
        assert client.call("GET", f"/api/games/{gid}")[1] == before
    status, error = client.call("POST", f"/api/games/{gid}/advance")
    assert status == 409 and "your turn" in error["error"]
    checks = [
        (client.raw("POST", f"/api/games/{gid}/move", b"{not json"), 400, "not valid JSON"),
        (client.raw("POST", f"/api/games/{gid}/move", b'{"cards": NaN}'), 400, "not valid JSON"),
        (client.raw("POST", f"/api/games/{gid}/move", b"[" * 100_000), 400, "not valid JSON"),
        (client.raw("POST", f"/api/games/{gid}/move", b'{"cards": []}', "text/plain"), 415, "application/json"),
        (client.raw("POST", f"/api/games/{gid}/advance", b"", None), 415, "application/json"),  # what another site could send
        (client.raw("POST", "/api/games", b"", None), 415, "application/json"),
        (client.raw("POST", f"/api/games/{gid}/move", b"x" * (MAX_BODY + 1)), 413, "at most"),
        (client.raw("POST", "/api/games/not-a-game/move", b'{"cards": []}'), 404, "no such game"),
        (client.raw("GET", "/api/games/not-a-game"), 404, "no such game"),
        (client.raw("POST", "/api/nothing", b"{}"), 404, "no such page or endpoint"),
        (client.raw("GET", f"/api/games/{gid}/move"), 405, "takes POST, not GET"),
        (client.raw("DELETE", f"/api/games/{gid}"), 405, "takes GET, not DELETE"),
        (client.raw("PUT", "/api/games", b"{}"), 405, "takes POST, not PUT"),
    ]
    for (status, _, raw), code, words in checks:
        assert status == code and words in json.loads(raw)["error"], (code, raw[:200])
    assert client.call("GET", f"/api/games/{gid}")[1] == before
    bad_games = [
        ({"opponents": ["random"] * 2}, "list of 3 agent names"),
        ({"opponents": ["random", "random", "charlesworth:/etc/passwd"]}, "not offered by this server"),
        ({"opponents": ["random"] * 3, "mode": "solo"}, "mode must be one of"),
        ({"opponents": ["random"] * 3, "rules": "house"}, "rules must be a preset"),
        ({"opponents": ["random"] * 3, "rules": {"scoring": "paper"}}, "rules must be a preset"),
        ({"opponents": ["random"] * 3, "seed": -1}, "seed must be an int"),
        ({"opponents": ["random"] * 3, "seed": 1.5}, "seed must be an int"),
        ({"opponents": ["random"] * 3, "human": 4}, "human must be a seat"),
        ({"opponents": ["random"] * 3, "insight": "yes"}, "insight must be true or false"),
        ({"opponents": ["random"] * 3, "colour": "red"}, "unknown fields ['colour']"),
        ({"mode": "watch", "opponents": ["random"] * 3}, "takes seats"),
        ({"seats": ["random"] * 4}, "takes opponents"),
        ([], "must be a JSON object"),
    ]
    for body, words in bad_games:
        status, error = client.call("POST", "/api/games", body)
        assert status == 400 and words in error["error"], (body, error)


def test_game_ids_are_unguessable_and_only_name_their_own_game(client):
    ids = {client.call("POST", "/api/games", {"opponents": ["random"] * 3})[1]["id"] for _ in range(20)}
    assert len(ids) == 20 and all(len(i) >= 22 for i in ids)  # 128-bit random tokens
    one = sorted(ids)[0]
    assert client.call("GET", f"/api/games/{one}")[1]["id"] == one
    assert client.call("GET", f"/api/games/{one[:-1]}")[0] == 404


def test_games_are_bounded_and_idle_ones_expire():
    c = Client(TableStore(("random",), max_tables=2, idle_seconds=0.3))
    try:
        first = c.call("POST", "/api/games", {"opponents": ["random"] * 3})[1]["id"]
        assert c.call("POST", "/api/games", {"opponents": ["random"] * 3})[0] == 201
        status, error = c.call("POST", "/api/games", {"opponents": ["random"] * 3})
        assert status == 503 and "already holds 2 games" in error["error"]
        time.sleep(0.5)
        assert c.call("GET", f"/api/games/{first}")[0] == 404  # expired
        assert c.call("POST", "/api/games", {"opponents": ["random"] * 3})[0] == 201  # room again
    finally:
        c.close()


def test_the_server_survives_a_client_that_vanishes_mid_request(client):
    gid = client.call("POST", "/api/games", {"opponents": ["random"] * 3, "seed": 1})[1]["id"]
    before, games = client.call("GET", f"/api/games/{gid}")[1], len(client.server.store)
    for partial in (b"POST /api/games HTTP/1.1\r\nContent-Length: 500\r\nContent-Type: application/json\r\n\r\n{\"opp",
                    b"GET /api/ga", b"POST /api/games/" + gid.encode() + b"/move HTTP/1.1\r\nContent-Length: 40\r\n\r\n{"):
        with socket.create_connection(("127.0.0.1", client.port)) as sock:
            sock.sendall(partial)
    time.sleep(0.2)
    assert client.call("GET", f"/api/games/{gid}")[1] == before and len(client.server.store) == games
    assert client.call("GET", "/api/info")[0] == 200


def test_one_connection_serves_request_after_request_whatever_the_answers(client):
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", client.port, timeout=10)
    json_headers = {"Content-Type": "application/json"}
    for method, path, body, code in (("POST", "/api/games/nope/move", b'{"cards": [3]}', 404),
                                     ("POST", "/api/nothing", b'{"a": 1}', 404), ("GET", "/api/info", b'{"a": 1}', 200),
                                     ("GET", "/api/games/nope/move", None, 405), ("GET", "/api/info", None, 200)):
        connection.request(method, path, body=body, headers=json_headers)
        response = connection.getresponse()
        payload = json.loads(response.read())
        assert response.status == code and (code == 200 or "error" in payload), (method, path, payload)
    connection.request("GET", "/api/info", headers={"Host": "attacker.example:8000"})  # DNS rebinding
    response = connection.getresponse()
    assert response.status == 403 and "this machine only" in json.loads(response.read())["error"]
    connection.close()


def test_insight_is_off_by_default_while_playing_and_passes_belong_to_the_trick_on_the_table():
    store = TableStore(("search:8", "random"))
    assert store.create({"opponents": ["search:8"] * 3, "seed": 3}).show_insight is False  # it would show their cards
    assert store.create({"mode": "watch", "seats": ["random"] * 4, "seed": 3}).show_insight is True
    table = store.create({"mode": "watch", "seats": ["random"] * 4, "seed": 8, "insight": False})
    while not table.game.is_over:
        view = table.view()
        if not view["trick"]:
            assert view["passed"] == []
        else:
            assert all(seat != view["trick_player"] for seat in view["passed"])
        table.advance()


def test_the_offered_agents_are_checked_before_serving_and_the_page_starts_on_the_servers_rules(tmp_path):
    TableStore(("random", "search:16", "pretrained", "pretrained-paper", "pretrained-default-recipe",
                "pretrained-charlesworth", "search-net", "search-net@640", "search-net:pretrained@1s")).check_agents()
    for bad, words in ((("wizard",), "no such agent name or file"), (("search:fast",), "search:fast"),
                       ((str(tmp_path / "missing.pt"),), "no such agent name or file"),
                       (("charlesworth:" + str(tmp_path / "nothing.bin"),), "no such agent name or file"),
                       (("search-net@0",), "budget must be rollouts"), (("search-net@fast",), "budget must be rollouts"),
                       (("search-net:" + str(tmp_path / "none.pt"),), "neither a shipped network"),
                       (("search-net:",), r"search-net\[:NETWORK\]\[@BUDGET\]")):
        with pytest.raises(ValueError, match=words):
            TableStore(bad).check_agents()
    with pytest.raises(ValueError, match="default_rules must be a preset"):
        TableStore(("random",), default_rules="house")
    c = Client(TableStore(("random",), default_rules="charlesworth"))
    try:
        assert c.call("GET", "/api/info")[1]["default_rules"] == "charlesworth"
        view = c.call("POST", "/api/games", {"opponents": ["random"] * 3})[1]
        assert view["rules"] == Rules.preset("charlesworth").to_dict()
    finally:
        c.close()


def test_a_refused_replay_names_its_first_bad_move(client, tmp_path):
    game = Game(seed=9)
    while not game.is_over:
        game.play(game.legal_plays()[-1])
    data = replay_dict(game, 9, ["a", "b", "c", "d"])
    path = write_replay(tmp_path / "game.json", data)
    assert read_replay(path) == data and len(replay_positions(data)) == len(game.history) + 1
    bad = json.loads(json.dumps(data))
    bad["moves"][3][1] = [51, 50, 49, 48]
    with pytest.raises(ReplayError, match="move 3: "):
        check_replay(bad)
    status, error = client.call("POST", "/api/replays", bad)
    assert status == 422 and "not a valid replay: move 3" in error["error"]
    for change, words in ((lambda d: d.update(format="other"), "format must be"), (lambda d: d.update(seed="x"), "seed must"),
                          (lambda d: d.update(seats=["a"]), "seats must"), (lambda d: d["moves"].append([0, []]), "move"),
                          (lambda d: d.pop("rules"), "rules must be an object"),
                          (lambda d: d["moves"].__setitem__(0, [float(d["moves"][0][0]), d["moves"][0][1]]), "is on move"),
                          (lambda d: d.update(scores=[1, 2, 3, -6]), "differ from the engine's"),
                          (lambda d: d["moves"].__setitem__(0, [(d["moves"][0][0] + 1) % 4, d["moves"][0][1]]), "is on move")):
        broken = json.loads(json.dumps(data))
        change(broken)
        with pytest.raises(ReplayError, match=words):
            check_replay(broken)
    (tmp_path / "junk.json").write_text("{")
    with pytest.raises(ReplayError, match="cannot read a replay"):
        read_replay(tmp_path / "junk.json")


def test_hosts_and_the_table_store_refuse_what_they_must():
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.2") and not is_loopback("example.org")
    with pytest.raises(ValueError, match="at least one agent"):
        TableStore(())
    store = TableStore(("random",))
    with pytest.raises(TableError) as err:
        store.get(None)
    assert err.value.status == 404


def test_big2_serve_starts_warns_off_localhost_and_refuses_a_bad_port(capsys):
    from big2_env.cli import main
    from big2_env.web import server as server_module

    with pytest.raises(SystemExit):
        main(["serve", "--port", "70000"])
    assert "port number" in capsys.readouterr().err
    seen = []

    def stop_at_once(self, poll_interval=0.5):
        seen.append(self.server_address)

    original = server_module.Big2Server.serve_forever
    server_module.Big2Server.serve_forever = stop_at_once
    try:
        assert main(["serve", "--port", "0", "--no-browser", "--host", "0.0.0.0"]) == 0
    finally:
        server_module.Big2Server.serve_forever = original
    out = capsys.readouterr()
    assert seen and "warning: serving on 0.0.0.0" in out.err and "the table is at http://0.0.0.0:" in out.out


def test_evaluate_and_big2_play_write_replays_the_page_loads(tmp_path, monkeypatch, capsys):
    from big2_env import evaluate
    from big2_env.cli import main

    result = evaluate("smart", "random", n_games=3, seed=4, replays=tmp_path / "games", jobs=1)
    files = sorted((tmp_path / "games").glob("game-*.json"))
    assert [f.name for f in files] == ["game-00000.json", "game-00001.json", "game-00002.json"]
    scores = []
    for path in files:
        data = read_replay(path)
        assert sorted(data["seats"]) == ["random", "random", "random", "smart"]
        scores.append(data["scores"][data["seats"].index("smart")])
    assert sum(scores) / 3 == pytest.approx(result.mean_score)
    duplicate = evaluate("greedy", "random", n_games=1, seed=1, duplicate=True, replays=tmp_path / "dup", jobs=2)
    dealt = {read_replay(p)["seed"] for p in (tmp_path / "dup").glob("*.json")}
    assert duplicate.n_games == 4 and len(dealt) == 1 and len(list((tmp_path / "dup").glob("*.json"))) == 4
    answers = iter(["pass"] * 200)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    code = main(["play", "--opponent", "random", "--seed", "6", "--replay", str(tmp_path / "mine.json")])
    data = read_replay(tmp_path / "mine.json")
    assert code == 0 and data["seed"] == 6 and data["seats"][0] == "you" and "replay written to" in capsys.readouterr().out


def test_the_rule_picker_sets_the_house_rules_and_every_seat_plays_by_them(client):
    """The two house options on top of a preset: the agents (the search included) only ever make legal
    plays under them, the view says who is locked out, and a bad option is refused."""
    status, info = client.call("GET", "/api/info")
    assert status == 200 and set(info["options"]) == {"lone_triples", "pass_locks"}
    assert "pass locks them out" in info["options"]["pass_locks"]["true"]
    request = {"mode": "watch", "seats": ["search:8", "smart", "greedy", "random"], "seed": 7, "rules": "charlesworth",
               "options": {"lone_triples": False, "pass_locks": True}}
    status, view = client.call("POST", "/api/games", request)
    assert status == 201
    assert view["rules"] == {**Rules.preset("charlesworth").to_dict(), "lone_triples": False, "pass_locks": True}
    saw_locked = False
    while not view["over"]:
        saw_locked |= view["player"] in view["locked"]
        status, view = client.call("POST", f"/api/games/{view['id']}/advance")
        assert status == 200, view  # an illegal agent move would be refused here
    replayed = Game(Rules(**view["rules"]), seed=7)
    for _, cards in view["history"]:
        replayed.play(cards)  # the engine under the same rules accepts every move
    assert replayed.scores() == view["scores"] and not any(len(c) == 3 for _, c in view["history"])
    assert saw_locked  # this deal reaches a locked seat
    for bad in ({"pass_locks": 1}, {"four_card_plays": True}, ["pass_locks"]):
        status, error = client.call("POST", "/api/games", {**request, "options": bad})
        assert status == 400 and "options must be" in error["error"]
