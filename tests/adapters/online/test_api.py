"""The game server's HTTP API and bot WebSocket against hostile and careless clients
(docs/online.md): accounts, tokens, challenges, refused moves, bounds on every input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from adapters.online.play import Limits
from tests.adapters.online.conftest import FakeClock, Server, auth
from tests.adapters.online.helpers import challenge, move, person, start, until

SIGNUP = "/api/account/signup"
LOGIN = "/api/account/login"


def test_sign_up_in_and_out(client: TestClient) -> None:
    answer = client.post(SIGNUP, json={"name": "alice", "password": "password1"})
    assert answer.status_code == 200 and answer.json() == {"name": "alice"}
    cookie = answer.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "secure" not in cookie
    assert client.get("/api/account").json() == {"name": "alice", "kind": "person"}
    assert client.post("/api/account/logout").json() == {}
    assert client.get("/api/account").status_code == 401
    answer = client.post(LOGIN, json={"name": "ALICE", "password": "password1"})
    assert answer.status_code == 200 and answer.json() == {"name": "alice"}
    assert client.get("/api/account").json()["name"] == "alice"


def test_secure_cookies(server: Server) -> None:
    client = server(secure_cookies=True)
    answer = client.post(SIGNUP, json={"name": "alice", "password": "password1"})
    assert "secure" in answer.headers["set-cookie"].lower()


@pytest.mark.parametrize(("body", "status", "error"), [
    ({"name": "a", "password": "password1"}, 400, "2 to 20 characters"),
    ({"name": "al ice", "password": "password1"}, 400, "2 to 20 characters"),
    ({"name": "x" * 21, "password": "password1"}, 400, "2 to 20 characters"),
    ({"name": "alice", "password": "short"}, 400, "8 to 200"),
    ({"name": "alice", "password": 12345678}, 400, "8 to 200"),
    ({"name": "alice"}, 400, "missing field 'password'"),
    ({"name": "alice", "password": "password1", "admin": True}, 400, "unknown field 'admin'"),
    ({"name": "taken", "password": "password1"}, 409, "taken"),
    ({"name": "TAKEN", "password": "password1"}, 409, "taken"),
])
def test_sign_up_refusals(client: TestClient, body: dict[str, Any], status: int,
                          error: str) -> None:
    person(client, "taken")
    answer = client.post(SIGNUP, json=body)
    assert answer.status_code == status
    assert error in answer.json()["error"]


def test_wrong_passwords_lock_the_name_for_a_minute(client: TestClient,
                                                    clock: FakeClock) -> None:
    person(client, "alice")
    for _ in range(5):
        answer = client.post(LOGIN, json={"name": "alice", "password": "wrong-one"})
        assert answer.status_code == 401 and answer.json() == {"error": "wrong name or password"}
    answer = client.post(LOGIN, json={"name": "alice", "password": "password1"})
    assert answer.status_code == 429 and "try again in a minute" in answer.json()["error"]
    clock.advance(61)
    assert client.post(LOGIN, json={"name": "alice", "password": "password1"}).status_code == 200


def test_four_wrong_passwords_do_not_lock(client: TestClient) -> None:
    person(client, "alice")
    for _ in range(4):
        client.post(LOGIN, json={"name": "alice", "password": "wrong-one"})
    assert client.post(LOGIN, json={"name": "alice", "password": "password1"}).status_code == 200


def test_a_bot_cannot_sign_in_with_a_password(client: TestClient, bots: dict[str, str]) -> None:
    answer = client.post(LOGIN, json={"name": "alpha", "password": bots["alpha"]})
    assert answer.status_code == 401


ACTING = [
    ("GET", "/api/account"),
    ("POST", "/api/account/token"),
    ("POST", "/api/challenges"),
    ("POST", "/api/challenges/1/accept"),
    ("POST", "/api/challenges/1/decline"),
    ("DELETE", "/api/challenges/1"),
    ("POST", "/api/game/1/move"),
    ("POST", "/api/game/1/resign"),
]


@pytest.mark.parametrize(("method", "path"), ACTING)
@pytest.mark.parametrize("header", [None, "Bearer wrong", "Bearer ", "Basic abc",
                                    "Bearer " + "x" * 300])
def test_wrong_or_absent_tokens_on_every_acting_route(
        client: TestClient, bots: dict[str, str], method: str, path: str,
        header: str | None) -> None:
    made = challenge(client, bots["alpha"])
    assert made["id"] == 1
    headers = {} if header is None else {"Authorization": header}
    body = {"ply": 0, "move": "c3"} if path.endswith("move") else (
        {"game": "brique"} if path.endswith("challenges") else {})
    answer = client.request(method, path, json=body, headers=headers)
    assert answer.status_code == 401
    assert "token" in answer.json()["error"] or "TOKEN" in answer.json()["error"]
    assert client.get("/api/challenges/1").json()["status"] == "open"


def test_a_person_token_is_not_a_bot_token(client: TestClient) -> None:
    token = person(client, "alice")
    with client.websocket_connect("/api/bot", headers=auth(token)) as ws:
        assert "invalid or absent bot token" in ws.receive_json()["message"]
        with pytest.raises(WebSocketDisconnect):
            ws.receive_json()


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer nope"}])
def test_bot_socket_refuses_wrong_tokens(client: TestClient, headers: dict[str, str]) -> None:
    with client.websocket_connect("/api/bot", headers=headers) as ws:
        message = ws.receive_json()
        assert message["type"] == "error" and "token" in message["message"]
        with pytest.raises(WebSocketDisconnect):
            ws.receive_json()


def test_a_new_api_token_ends_the_old_one(client: TestClient) -> None:
    old = person(client, "alice")
    assert client.get("/api/account", headers=auth(old)).status_code == 200
    new = client.post("/api/account/token", headers=auth(old)).json()["token"]
    assert client.get("/api/account", headers=auth(old)).status_code == 401
    assert client.get("/api/account", headers=auth(new)).json()["name"] == "alice"


def test_a_cookie_request_from_another_site_is_refused(client: TestClient,
                                                       bots: dict[str, str]) -> None:
    client.post(SIGNUP, json={"name": "alice", "password": "password1"})
    body = {"game": "brique"}
    answer = client.post("/api/challenges", json=body,
                         headers={"Origin": "http://evil.example"})
    assert answer.status_code == 403 and "another site" in answer.json()["error"]
    answer = client.post("/api/challenges", json=body,
                         headers={"Origin": "http://testserver"})
    assert answer.status_code == 200


def test_a_bot_cannot_act_in_a_game_not_its_own(client: TestClient, db: str,
                                                 bots: dict[str, str]) -> None:
    from adapters.online.app import add_bot

    intruder = add_bot(db, "gamma")
    game = start(client, bots["alpha"], bots["beta"])
    answer = move(client, intruder, game, 0, "c3")
    assert answer.status_code == 403 and "does not play in game" in answer.json()["error"]
    answer = client.post(f"/api/game/{game}/resign", json={}, headers=auth(intruder))
    assert answer.status_code == 403
    with client.websocket_connect("/api/bot", headers=auth(intruder)) as ws:
        until(ws, "hello")
        ws.send_json({"type": "move", "game": game, "ply": 0, "move": "c3"})
        error = until(ws, "error")
        assert error["game"] == game and "does not play" in error["message"]
    record = client.get(f"/api/game/{game}").json()
    assert record["ply"] == 0 and record["status"] == "playing"


def test_a_move_for_the_other_side_and_a_replayed_move(client: TestClient,
                                                       bots: dict[str, str]) -> None:
    game = start(client, bots["alpha"], bots["beta"])
    answer = move(client, bots["beta"], game, 0, "c3")
    assert answer.status_code == 409 and "b is to move" in answer.json()["error"]
    assert move(client, bots["alpha"], game, 0, "c3").status_code == 200
    again = move(client, bots["alpha"], game, 0, "c3")  # the same message, replayed
    assert again.status_code == 409
    stale = move(client, bots["beta"], game, 0, "d4")  # the right side, a stale ply
    assert stale.status_code == 409 and "stale" in stale.json()["error"]
    record = client.get(f"/api/game/{game}").json()
    assert [m["move"] for m in record["moves"]] == ["c3"] and record["to_move"] == "w"


@pytest.mark.parametrize(("token", "error"), [
    ("z9", "z9"), ("c3", "occupied"), ("hello", "hello"), ("", "move"),
])
def test_illegal_moves_are_refused_with_the_reason(client: TestClient, bots: dict[str, str],
                                                   token: str, error: str) -> None:
    game = start(client, bots["alpha"], bots["beta"], options={"size": "5", "pie": "off"})
    move(client, bots["alpha"], game, 0, "c3")
    answer = move(client, bots["beta"], game, 1, token)
    assert answer.status_code == 400 and error in answer.json()["error"].lower()
    if token:  # the move is named once
        assert answer.json()["error"].count(token) == 1, answer.json()["error"]
    assert client.get(f"/api/game/{game}").json()["ply"] == 1


@pytest.mark.parametrize(("body", "error"), [
    (b"{not json", "not JSON"),
    (b"[1, 2]", "expected a JSON object"),
    (b'{"ply": 0, "move": "c3", "extra": 1}', "unknown field 'extra'"),
    (b'{"ply": "0", "move": "c3"}', "ply"),
    (b'{"ply": 0}', "missing field 'move'"),
    (b'{"ply": 0, "move": "' + b"x" * 20000 + b'"}', "too long"),
    (b"\xff\xfe", "not JSON"),
])
def test_malformed_requests_get_an_error_not_a_traceback(
        client: TestClient, bots: dict[str, str], body: bytes, error: str) -> None:
    game = start(client, bots["alpha"], bots["beta"])
    answer = client.post(f"/api/game/{game}/move", content=body,
                         headers=auth(bots["alpha"]) | {"Content-Type": "application/json"})
    assert 400 <= answer.status_code < 500
    assert error in answer.json()["error"]
    assert "Traceback" not in answer.text


@pytest.mark.parametrize(("fields", "error"), [
    ({"game": "chess"}, "unknown game"),
    ({"game": "brique", "options": {"size": "99"}}, "out of range"),
    ({"game": "brique", "options": {"colour": "x"}}, "unknown option"),
    ({"game": "brax", "options": {"players": "4"}}, "2 players"),
    ({"game": "brique", "color": "red"}, "color"),
    ({"game": "brique", "time": {"initial": 0}}, "time.initial"),
    ({"game": "brique", "time": {"initial": 60, "increment": 4000}}, "time.increment"),
    ({"game": "brique", "time": {"initial": 60, "delay": 1}}, "unknown field 'delay'"),
    ({"game": "brique", "rated": "yes"}, "rated"),
    ({"game": "brique", "opponent": "nobody"}, "no player nobody"),
    ({"game": "brique", "opponent": "alpha"}, "oneself"),
    ({"game": "brique", "colour": "b"}, "unknown field 'colour'"),
])
def test_bad_challenges_are_refused(client: TestClient, bots: dict[str, str],
                                    fields: dict[str, Any], error: str) -> None:
    answer = client.post("/api/challenges", json=fields, headers=auth(bots["alpha"]))
    assert 400 <= answer.status_code < 500 and error in answer.json()["error"]


def test_a_flood_of_challenges_stops_at_the_limit(client: TestClient,
                                                  bots: dict[str, str]) -> None:
    made = [challenge(client, bots["alpha"]) for _ in range(5)]
    answer = client.post("/api/challenges", json={"game": "brique"},
                         headers=auth(bots["alpha"]))
    assert answer.status_code == 429 and "5 open challenges" in answer.json()["error"]
    assert client.delete(f"/api/challenges/{made[0]['id']}",
                         headers=auth(bots["alpha"])).json() == {}
    assert challenge(client, bots["alpha"])["status"] == "open"
    # the others' challenges are not counted
    assert challenge(client, bots["beta"])["status"] == "open"


def test_challenge_life(client: TestClient, bots: dict[str, str]) -> None:
    alpha, beta = bots["alpha"], bots["beta"]
    made = challenge(client, alpha, opponent="beta", time={"initial": 60, "increment": 2},
                     rated=True)
    assert made["from"] == "alpha" and made["opponent"] == "beta" and made["rated"] is True
    assert made["options"] == {"size": "5", "pie": "on"}
    listed = client.get("/api/lobby").json()["challenges"]
    assert [c["id"] for c in listed] == [made["id"]]
    path = f"/api/challenges/{made['id']}"
    assert client.delete(path, headers=auth(beta)).status_code == 403  # not its author
    assert client.post(path + "/accept", headers=auth(alpha)).status_code == 403  # its author
    assert client.post(path + "/decline", json={"reason": "busy"},
                       headers=auth(beta)).json() == {}
    assert client.get(path).json()["status"] == "declined"
    assert client.post(path + "/accept", headers=auth(beta)).status_code == 409
    other = challenge(client, alpha, opponent="beta")
    person_token = person(client, "carol")
    answer = client.post(f"/api/challenges/{other['id']}/accept", headers=auth(person_token))
    assert answer.status_code == 403 and "for beta" in answer.json()["error"]
    game = client.post(f"/api/challenges/{other['id']}/accept", headers=auth(beta)).json()
    assert client.get(f"/api/challenges/{other['id']}").json()["game_id"] == game["game"]
    assert client.get("/api/challenges/999").status_code == 404


def test_an_open_challenge_declined_by_one_stays_open(client: TestClient,
                                                      bots: dict[str, str]) -> None:
    made = challenge(client, bots["alpha"])
    path = f"/api/challenges/{made['id']}"
    assert client.post(path + "/decline", headers=auth(bots["beta"])).json() == {}
    assert client.get(path).json()["status"] == "open"


def test_games_per_bot_limit(server: Server, db: str) -> None:
    from adapters.online.app import add_bot

    client = server(limits=Limits(max_bot_games=1, rate=1e6))
    alpha, beta, gamma = (add_bot(db, name) for name in ("alpha", "beta", "gamma"))
    start(client, alpha, beta)
    made = challenge(client, gamma)
    answer = client.post(f"/api/challenges/{made['id']}/accept", headers=auth(alpha))
    assert answer.status_code == 429 and "alpha has 1 games" in answer.json()["error"]
    assert client.get(f"/api/challenges/{made['id']}").json()["status"] == "open"


def test_bot_socket_bad_messages(client: TestClient, bots: dict[str, str]) -> None:
    game = start(client, bots["alpha"], bots["beta"])
    with client.websocket_connect("/api/bot", headers=auth(bots["alpha"])) as ws:
        assert ws.receive_json() == {"type": "hello", "account": "alpha", "protocol": 1}
        assert until(ws, "game_start")["color"] == "b"
        for raw, error in [
            ("{nope", "not JSON"),
            ("[]", "with a type"),
            ('{"type": "dance"}', "unknown message type"),
            ('{"type": "ping", "x": 1}', "unknown field 'x'"),
            (f'{{"type": "move", "game": {game}, "ply": 0}}', "missing field 'move'"),
            ('{"type": "move", "game": "one", "ply": 0, "move": "c3"}', "game"),
            ('{"type": "accept", "challenge": 99}', "no challenge 99"),
            ('{"type": "ping", "pad": "' + "x" * 17000 + '"}', "too long"),
        ]:
            ws.send_text(raw)
            message = ws.receive_json()
            assert message["type"] == "error" and error in message["message"], raw
        ws.send_bytes(b"\x00\x01")
        assert "JSON text" in ws.receive_json()["message"]
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
    assert client.get(f"/api/game/{game}").json()["ply"] == 0


def test_rate_limit_per_connection(server: Server, db: str, clock: FakeClock) -> None:
    from adapters.online.app import add_bot

    client = server(limits=Limits(rate=5))
    token = add_bot(db, "alpha")
    with client.websocket_connect("/api/bot", headers=auth(token)) as ws:
        until(ws, "hello")
        for _ in range(10):  # a burst of twice the rate passes
            ws.send_json({"type": "ping"})
            assert ws.receive_json() == {"type": "pong"}
        ws.send_json({"type": "ping"})
        message = ws.receive_json()
        assert message["type"] == "error" and "more than 5 messages a second" in message["message"]
        clock.advance(1.0)
        for _ in range(5):
            ws.send_json({"type": "ping"})
            assert ws.receive_json() == {"type": "pong"}
        ws.send_json({"type": "ping"})
        assert ws.receive_json()["type"] == "error"
        # a refused move names its game, so that the bot can send it again later
        ws.send_json({"type": "move", "game": 7, "ply": 0, "move": "c3"})
        refused = ws.receive_json()
        assert refused["type"] == "error" and refused["game"] == 7, refused


def test_challenges_reach_the_bots(client: TestClient, bots: dict[str, str]) -> None:
    with client.websocket_connect("/api/bot", headers=auth(bots["beta"])) as ws:
        until(ws, "hello")
        made = challenge(client, bots["alpha"], opponent="beta")
        got = until(ws, "challenge")["challenge"]
        assert got["id"] == made["id"] and got["from"] == "alpha"
        ws.send_json({"type": "accept", "challenge": made["id"]})
        started = until(ws, "game_start")
        assert started["color"] == "w" and started["game"]["players"] == {"b": "alpha",
                                                                          "w": "beta"}
    # a challenge made while the bot is away is sent when it connects
    later = challenge(client, bots["alpha"], opponent="beta")
    with client.websocket_connect("/api/bot", headers=auth(bots["beta"])) as ws:
        until(ws, "hello")
        assert until(ws, "game_start")["game"]["id"] == started["game"]["id"]
        assert until(ws, "challenge")["challenge"]["id"] == later["id"]
        ws.send_json({"type": "decline", "challenge": later["id"], "reason": "no"})
        ws.send_json({"type": "ping"})
        until(ws, "pong")
    assert client.get(f"/api/challenges/{later['id']}").json()["status"] == "declined"


def test_lobby_and_player(client: TestClient, bots: dict[str, str]) -> None:
    game = start(client, bots["alpha"], bots["beta"])
    with client.websocket_connect("/api/bot", headers=auth(bots["beta"])):
        lobby = client.get("/api/lobby").json()
        assert {b["name"]: b["online"] for b in lobby["bots"]} == {"alpha": False, "beta": True}
    assert [g["id"] for g in lobby["playing"]] == [game] and lobby["finished"] == []
    assert "moves" not in lobby["playing"][0]
    move(client, bots["alpha"], game, 0, "c3")
    client.post(f"/api/game/{game}/resign", json={}, headers=auth(bots["beta"]))
    lobby = client.get("/api/lobby").json()
    assert lobby["playing"] == [] and [g["id"] for g in lobby["finished"]] == [game]
    assert lobby["finished"][0]["ply"] == 1 and "moves" not in lobby["finished"][0]
    ratings = {b["name"]: b["ratings"] for b in lobby["bots"]}
    assert ratings["alpha"]["brique"]["wins"] == 1 and ratings["beta"]["brique"]["losses"] == 1
    assert lobby["finished"][0]["players"] == {"b": "alpha", "w": "beta"}
    player = client.get("/api/players/alpha").json()
    assert player["kind"] == "bot" and player["online"] is False
    assert player["ratings"]["brique"]["wins"] == 1
    assert [g["id"] for g in player["games"]] == [game]
    assert client.get("/api/players/nobody").status_code == 404


def test_clicks_and_pictures(client: TestClient, bots: dict[str, str]) -> None:
    game = start(client, bots["alpha"], bots["beta"], game="trisq", options={"size": "4"})
    answer = client.post(f"/api/game/{game}/clicks", json={"pending": [], "click": "b2hne"})
    assert answer.json() == {"move": "b2hne"}  # Red's first turn is one piece
    move(client, bots["alpha"], game, 0, "b2hne")
    answer = client.post(f"/api/game/{game}/clicks", json={"pending": [], "click": "c3hne"})
    step = answer.json()
    assert step["pending"] == ["c3hne"] and "second piece" in step["hint"]
    answer = client.post(f"/api/game/{game}/clicks", json={"pending": ["c3hne"],
                                                           "confirm": True})
    assert answer.json() == {"move": "c3hne"}
    answer = client.post(f"/api/game/{game}/clicks", json={"pending": [], "bad": 1})
    assert answer.status_code == 400
    start_svg = client.get(f"/api/game/{game}/svg?ply=0")
    now_svg = client.get(f"/api/game/{game}/svg")
    assert start_svg.headers["content-type"].startswith("image/svg+xml")
    assert start_svg.text.startswith("<svg") and start_svg.text != now_svg.text
    assert client.get(f"/api/game/{game}/svg?ply=1").text == now_svg.text
    assert client.get(f"/api/game/{game}/svg?ply=2").status_code == 400
    assert client.get(f"/api/game/{game}/svg?ply=-1").status_code == 400
    assert client.get("/api/game/999/svg").status_code == 404


def test_unknown_paths_answer_json(client: TestClient) -> None:
    answer = client.get("/api/nothing")
    assert answer.status_code == 404 and "error" in answer.json()
    assert client.get("/api/game/abc").status_code == 404


def test_the_pages_and_the_single_user_board(client: TestClient, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    import adapters.online.app as app_module

    assert 'id="board"' in client.get("/analysis").text
    assert client.get("/api/games").status_code == 200
    monkeypatch.setattr(app_module, "ONLINE", tmp_path)
    answer = client.get("/")
    assert answer.status_code == 404 and "index.html" in answer.json()["error"]
    (tmp_path / "index.html").write_text("<p>lobby</p>")
    (tmp_path / "game.html").write_text("<p>game</p>")
    assert client.get("/").text == "<p>lobby</p>"
    answer = client.get("/game/12")
    assert answer.text == "<p>game</p>"
    assert answer.headers["content-type"].startswith("text/html")
    assert client.get("/game/x").status_code == 404


def test_a_sign_in_lasts_thirty_days(client: TestClient) -> None:
    import datetime as dt

    from sqlalchemy import update

    from adapters.online.store import TokenRow

    client.post(SIGNUP, json={"name": "alice", "password": "password1"})
    assert client.get("/api/account").status_code == 200
    store = client.app.state.store  # type: ignore[attr-defined]
    with store.sessions() as session:
        session.execute(update(TokenRow).values(
            created=dt.datetime(2000, 1, 1)))
        session.commit()
    assert client.get("/api/account").status_code == 401


def test_a_client_that_does_not_read_is_disconnected() -> None:
    """A WebSocket whose client reads nothing holds up no one: its messages wait in its own
    queue, and past the limit the server closes it."""
    import asyncio

    from starlette.websockets import WebSocketState

    from adapters.online.app import Outbox

    class Stuck:
        application_state = WebSocketState.CONNECTED
        closed: int | None = None
        sent = 0

        async def send_text(self, text: str) -> None:
            self.sent += 1
            await asyncio.Event().wait()  # the client never reads

        async def close(self, code: int) -> None:
            self.closed = code

    async def scenario() -> Stuck:
        socket = Stuck()
        outbox = Outbox(socket, limit=3)  # type: ignore[arg-type]
        for _ in range(4):  # one in the writer's hands, three waiting
            await asyncio.wait_for(outbox.send({"type": "pong"}), 1.0)
            await asyncio.sleep(0)
        assert socket.closed is None
        await asyncio.wait_for(outbox.send({"type": "pong"}), 1.0)
        assert socket.closed == 1008 and outbox.broken
        await asyncio.wait_for(outbox.send({"type": "pong"}), 1.0)  # dropped at once
        await asyncio.wait_for(outbox.close(), 10.0)
        return socket

    socket = asyncio.run(scenario())
    assert socket.sent == 1


def test_a_fault_of_the_server_is_an_error_message_not_a_lost_socket(
        client: TestClient, bots: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    hub = client.app.state.hub  # type: ignore[attr-defined]

    async def broken(*args: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(hub, "accept", broken)
    with client.websocket_connect("/api/bot", headers=auth(bots["alpha"])) as ws:
        until(ws, "hello")
        ws.send_json({"type": "accept", "challenge": 1})
        assert ws.receive_json() == {"type": "error", "message": "internal error"}
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}


def test_a_flood_of_names_does_not_unlock_a_name() -> None:
    """The memory of wrong passwords is bounded; a flood of other names fills it with names
    that are not locked, which go first."""
    from adapters.online.accounts import Throttle

    clock = FakeClock()
    throttle = Throttle(clock, most=100)
    for _ in range(5):
        throttle.failed("alice")
    for index in range(300):  # one wrong password for each of many names, within the minute
        throttle.failed(f"name{index}")
        clock.advance(0.01)
    assert len(throttle.failures) <= 100
    assert throttle.locked("alice") and throttle.locked("ALICE")
    assert not throttle.locked("bob")
    clock.advance(60)
    assert not throttle.locked("alice")
