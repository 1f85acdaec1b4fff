"""The browser app's server (adapters/web): the page and its API, and every WebSocket action
with its bad inputs, through Starlette's TestClient (real engine processes behind it)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from adapters.match_record import sgf_bytes
from adapters.web.records import RecordError, parse_record
from adapters.web.room import Caps, parse_info
from adapters.web.server import MAX_MESSAGE, create_app
from tests.protocol.test_e2e import COMMAND

Message = dict[str, Any]
GAMES = ("brique", "trisq", "flicker", "brax", "bricka")
#: Small, quick games: (options, a legal first click).
SMALL: dict[str, dict[str, str]] = {
    "brique": {"size": "4"}, "trisq": {"size": "4"}, "flicker": {"size": "4"},
    "brax": {}, "bricka": {},
}


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Caps(max_games=2, max_think=1.0))) as test_client:
        yield test_client
        lobby = test_client.app.state.lobby  # type: ignore[attr-defined]
        assert eventually(lambda: not lobby.rooms)  # every page's engine ended


def until(ws: Any, test: Callable[[Message], bool], limit: int = 400) -> Message:
    """The first message that passes ``test`` (the others are read and dropped)."""
    for _ in range(limit):
        message: Message = ws.receive_json()
        if test(message):
            return message
    raise AssertionError("no such message")


def state(ws: Any) -> Message:
    ws.send_json({"action": "state"})
    return until(ws, lambda m: m["type"] == "state")


def idle_state(m: Message) -> bool:
    return m["type"] == "state" and m["game"] is not None and not m["thinking"]


def finished(m: Message) -> bool:
    return m["type"] == "state" and m.get("result") is not None


def eventually(test: Callable[[], bool]) -> bool:
    """Whether ``test`` comes true within a few seconds (the server ends a page's engine
    after the client has gone)."""
    for _ in range(100):
        if test():
            return True
        time.sleep(0.05)
    return False


def error(ws: Any, message: Message | str) -> str:
    """Send a message (a dict, or raw text) and return the error it gets."""
    if isinstance(message, str):
        ws.send_text(message)
    else:
        ws.send_json(message)
    answer: str = until(ws, lambda m: m["type"] in ("error", "state"))["message"]
    return answer


def new(ws: Any, game: str, mode: str = "human", **extra: Any) -> Message:
    ws.send_json({"action": "new", "game": game, "options": SMALL[game], "mode": mode,
                  "level": 1, **extra})
    return until(ws, lambda m: m["type"] == "state" and m["game"] == game)


def click(ws: Any, target: str) -> Message:
    ws.send_json({"action": "click", "target": target})
    return until(ws, lambda m: m["type"] in ("state", "error"))


def test_page_and_games_list(client: TestClient) -> None:
    page = client.get("/analysis")
    assert page.status_code == 200
    for element in ('id="board"', 'id="game"', "/static/app.js", "/static/style.css"):
        assert element in page.text
    assert client.get("/static/app.js").status_code == 200
    data = client.get("/api/games").json()
    assert [g["name"] for g in data["games"]] == list(GAMES)
    brique = data["games"][0]
    assert [o["name"] for o in brique["options"]] == ["size", "pie"]
    assert brique["players"] == [{"token": "b", "label": "Black"},
                                 {"token": "w", "label": "White"}]
    bricka = data["games"][4]
    assert [p["label"] for p in bricka["players"]] == ["White", "Black"]  # White first
    assert data["caps"] == {"max_games": 2, "max_think": 1.0}


@pytest.mark.parametrize("game", GAMES)
def test_new_game_state(client: TestClient, game: str) -> None:
    with client.websocket_connect("/ws") as ws:
        assert ws.receive_json() == {"type": "state", "game": None}
        s = new(ws, game)
        assert s["moves"] == [] and s["result"] is None and s["pending"] == []
        assert "data-target=" in s["svg"]
        assert s["position"] != ""
        assert s["mode"] == "human" and s["engine"] == []


def test_human_game_clicks_and_engine_messages(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        new(ws, "brique")
        s = click(ws, "b2")
        assert s["moves"] == ["b2"] and s["to_move"] == "w"
        assert s["specials"] == ["swap"]
        # an illegal click is explained by the engine, the game unchanged
        assert error(ws, {"action": "click", "target": "b2"}) == \
            "illegal move: b2 is occupied by Black"
        assert error(ws, {"action": "click", "target": "z9"}).startswith(
            "syntax error: invalid move 'z9'")
        assert state(ws)["moves"] == ["b2"]
        ws.send_json({"action": "move", "move": "swap"})
        s = until(ws, lambda m: m["type"] == "state")
        assert s["moves"] == ["b2", "swap"]
        ws.send_json({"action": "undo"})
        assert until(ws, lambda m: m["type"] == "state")["moves"] == ["b2"]


def test_legal_targets_on_request(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        s = new(ws, "flicker")
        assert s["targets"] == []
        ws.send_json({"action": "legal", "on": True})
        s = until(ws, lambda m: m["type"] == "state")
        assert len(s["targets"]) == 16
        assert all(f'data-target="{t}"' in s["svg"] for t in s["targets"])
        assert error(ws, {"action": "legal", "on": "yes"}) == "on: expected bool, got 'yes'"


def test_trisq_clicks_second_piece_confirm_and_take_back(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        new(ws, "trisq")
        s = click(ws, "b2hsw")  # Red's first turn: one piece, played at once
        assert s["moves"] == ["b2hsw"]
        s = click(ws, "c3vsw")
        assert s["pending"] == ["c3vsw"] and "second piece" in s["hint"]
        s = click(ws, "c3vsw")  # the same slot again: taken back
        assert s["pending"] == [] and s["moves"] == ["b2hsw"]
        click(ws, "c3vsw")
        s = click(ws, "c3vse")
        assert s["moves"] == ["b2hsw", "c3vsw+c3vse"] and s["pending"] == []
        click(ws, "a1hsw")
        ws.send_json({"action": "confirm"})
        s = until(ws, lambda m: m["type"] == "state")
        assert s["moves"][-1] == "a1hsw"
        assert error(ws, {"action": "confirm"}).startswith("nothing to confirm")
        click(ws, "d4hne")
        ws.send_json({"action": "cancel"})
        assert until(ws, lambda m: m["type"] == "state")["pending"] == []
        # a second piece that breaks the rules: the engine's reason, the first kept
        s = click(ws, "d4hne")
        message = error(ws, {"action": "click", "target": "d4vsw"})
        assert message.startswith("illegal move:")
        assert state(ws)["pending"] == ["d4hne"]


def test_brax_piece_path_and_call(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        new(ws, "brax")
        ws.send_json({"action": "legal", "on": True})
        s = until(ws, lambda m: m["type"] == "state")
        starts = s["targets"]
        assert starts and all(f'data-piece="{p}"' in s["svg"] for p in starts)
        assert error(ws, {"action": "click", "target": "e5"}).startswith(
            "e5: no piece of the player to move")
        piece = starts[0]
        s = click(ws, piece)
        assert s["pending"] == [piece] and s["targets"]
        s = click(ws, piece)  # again: taken back
        assert s["pending"] == []
        s = click(ws, "b1")
        assert s["pending"] == ["b1"] and s["targets"] == ["a1", "b2"]
        s = click(ws, "a1")  # the only path to a1: played at once
        assert s["moves"] == ["b1-a1"] and s["pending"] == []
        s = click(ws, "b9")
        s = click(ws, "a9")  # a9 could be the end, or go on
        assert s["pending"] == ["b9", "a9"] and "confirm" in s["hint"]
        ws.send_json({"action": "call", "on": True})
        assert until(ws, lambda m: m["type"] == "state")["call"] is True
        # the call is part of the move; the engine says why it is not allowed here
        assert error(ws, {"action": "confirm"}) == (
            "illegal move: no threatened piece to call Brax on (X8, X9)")
        ws.send_json({"action": "call", "on": False})
        until(ws, lambda m: m["type"] == "state")
        ws.send_json({"action": "confirm"})
        s = until(ws, lambda m: m["type"] == "state")
        assert s["moves"] == ["b1-a1", "b9-a9"] and s["pending"] == []


def test_engine_answers_with_live_analysis_and_undo_takes_back_its_move(
        client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"action": "new", "game": "brique", "options": {"size": "7"},
                      "mode": "engine", "engine": "w", "time": 0.8})
        until(ws, lambda m: m["type"] == "state" and m["game"] == "brique")
        ws.send_json({"action": "click", "target": "d4"})
        analysis = until(ws, lambda m: m["type"] == "analysis")
        best = analysis["moves"][0]
        assert set(best) >= {"move", "visits", "winrate", "pv"} and analysis["player"] == "White"
        assert error(ws, {"action": "click", "target": "a1"}) in (
            "the engine is thinking: wait, or stop it", None)
        s = until(ws, lambda m: idle_state(m) and len(m["moves"]) == 2)
        assert s["to_move"] == "b"
        ws.send_json({"action": "undo"})
        s = until(ws, idle_state)
        assert s["moves"] == []
        assert error(ws, {"action": "undo"}) == "cannot undo: no move to take back"


def test_engine_plays_first_and_refuses_a_click_on_its_turn(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"action": "new", "game": "bricka", "mode": "engine", "engine": "w",
                      "time": 0.2})
        s = until(ws, lambda m: idle_state(m) and len(m["moves"]) == 1)
        assert s["to_move"] == "b" and s["engine"] == ["w"]
        ws.send_json({"action": "stop"})
        until(ws, lambda m: m["type"] == "state")


@pytest.mark.slow  # a whole game (2-4 s)
def test_watch_mode_plays_a_whole_game_then_undo_pauses(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"action": "new", "game": "brique", "options": {"size": "3"},
                      "mode": "watch", "time": 0.05})
        s = until(ws, finished)
        assert s["result"]["winner"] in ("Black", "White") and s["result"]["reason"]
        ws.send_json({"action": "undo"})
        s = until(ws, lambda m: m["type"] == "state")
        assert s["result"] is None and s["paused"] is True
        assert error(ws, {"action": "click", "target": "a1"}).startswith(
            "it is the engine's turn")
        ws.send_json({"action": "go"})
        s = until(ws, finished)


def test_setup_from_position_string_and_move_list(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        new(ws, "brique")
        click(ws, "a1")
        s = click(ws, "c3")
        position, moves = s["position"], s["moves"]
        new(ws, "brique")
        ws.send_json({"action": "setup", "text": position})
        s = until(ws, lambda m: m["type"] == "state")
        assert s["position"] == position and s["to_move"] == "b"
        ws.send_json({"action": "setup", "text": " ".join(moves)})
        s = until(ws, lambda m: m["type"] == "state")
        assert s["moves"] == moves and s["position"] == position
        message = error(ws, {"action": "setup", "text": "a1 a1"})
        assert "move 2 'a1'" in message and "position string" in message
        assert error(ws, {"action": "setup", "text": ""}).startswith("paste a position")
        assert state(ws)["moves"] == moves


def test_replay_a_json_record_and_an_sgf(client: TestClient) -> None:
    moves = ["a2", "b1", "d3", "c1", "d1", "b2", "b3", "b4", "a1", "d2", "c4"]
    record = {"game_name": "brique", "options": {"pie": "on", "size": "4"}, "notation": "gtp",
              "opening": [], "moves": moves, "result": "b",
              "reason": "Black's chain joins the bottom and top edges",
              "colours": ["b", "w"] * 5 + ["b"], "black": "a", "white": "b", "index": 0,
              "reason_kind": "win", "winner_colour": "b"}
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"action": "replay", "record": json.dumps(record)})
        s = until(ws, lambda m: m["type"] == "state" and m["game"] == "brique")
        assert s["mode"] == "replay" and s["replay"]["length"] == 11 and s["moves"] == []
        ws.send_json({"action": "step", "to": 11})
        s = until(ws, lambda m: m["type"] == "state")
        assert s["moves"] == moves and s["result"]["winner"] == "Black"
        ws.send_json({"action": "step", "to": 3})
        assert until(ws, lambda m: m["type"] == "state")["moves"] == moves[:3]
        assert error(ws, {"action": "step", "to": 12}) == "to: 12 is out of range 0..11"
        assert error(ws, {"action": "click", "target": "a3"}).startswith("this is a replay")
        assert error(ws, {"action": "undo"}).startswith("this is a replay")
        sgf = sgf_bytes(record, 4, moves).decode()
        ws.send_json({"action": "replay", "record": sgf})
        s = until(ws, lambda m: m["type"] == "state" and m["replay"] is not None)
        assert s["replay"]["moves"] == moves
        assert error(ws, {"action": "replay", "record": "(;GM[1]"}).startswith("not an SGF")
        assert error(ws, {"action": "replay", "record": "{}"}).startswith(
            "not a gtpgames match record")


def test_record_errors_name_the_move() -> None:
    line = json.dumps({"game_name": "brique", "options": {"size": "4"},
                       "moves": ["a1", "a1"], "notation": "gtp"})
    with pytest.raises(RecordError, match="move 2 'a1'"):
        parse_record(line)
    with pytest.raises(RecordError, match="game 2 is not in the record"):
        parse_record(line, 1)


@pytest.mark.parametrize(("message", "expected"), [
    ("not json", "not JSON: Expecting value"),
    ("[1, 2]", "a message is a JSON object with an action"),
    ('{"action": "fly"}', "unknown action 'fly' (actions: call, cancel, click,"),
    ('{"action": "click", "target": "a1"}', "no game is open: start one"),
    ('{"action": "new", "game": "chess"}', "unknown game 'chess' (games: brique, trisq,"),
    ('{"action": "new", "game": "brique", "options": {"size": "99"}}',
     "option size: 99 is out of range 3..25"),
    ('{"action": "new", "game": "brique", "options": {"colour": "red"}}',
     "unknown option 'colour'"),
    ('{"action": "new", "game": "brique", "options": {"size": [1]}}', "bad option 'size'"),
    ('{"action": "new", "game": "brique", "options": "size=5"}', "options: expected dict"),
    ('{"action": "new", "game": "brique", "mode": "solo"}', "mode: expected engine, human"),
    ('{"action": "new", "game": "brique", "engine": "green"}',
     "engine: invalid color 'green'"),
    ('{"action": "new", "game": "brique", "level": 9}', "level: 9 is out of range 1..7"),
    ('{"action": "new", "game": "brique", "level": "3"}', "level: expected int, got '3'"),
    ('{"action": "new", "game": "brique", "time": 60}', "time: 60.0 is out of range 0.01..1"),
])
def test_bad_messages_get_clear_errors(client: TestClient, message: str, expected: str) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        assert error(ws, message).startswith(expected)
        assert state(ws) == {"type": "state", "game": None}


@pytest.mark.parametrize(("message", "expected"), [
    ({"action": "click", "target": "a1; rm"}, "target: not a move or place of the board"),
    ({"action": "click", "target": 3}, "target: expected str, got 3"),
    ({"action": "click", "target": "a1\nquit"}, "target: not a move or place of the board"),
    ({"action": "move", "move": "resign"}, "syntax error: invalid move 'resign'"),
    ({"action": "call", "on": True}, "only Brax has a Brax call"),
    ({"action": "step", "to": 1}, "step works in a replay"),
    ({"action": "setup", "text": "x x x"}, "neither a position string"),
    ({"action": "new", "game": "flicker", "options": {"size": "2"}},
     "option size: 2 is out of range"),
    ({"action": "replay", "record": ""}, "the record is empty"),
])
def test_bad_actions_leave_the_game_unchanged(client: TestClient, message: Message,
                                              expected: str) -> None:
    with client.websocket_connect("/ws") as ws:
        new(ws, "brique")
        before = click(ws, "b3")
        assert error(ws, message).startswith(expected)
        after = state(ws)
        assert (after["game"], after["moves"], after["position"]) == (
            before["game"], before["moves"], before["position"])


def test_oversize_and_binary_messages_are_refused(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        new(ws, "brique")
        text = json.dumps({"action": "setup", "text": "a1 " * MAX_MESSAGE})
        assert error(ws, text).startswith("message too long")
        ws.send_bytes(b"\x00\x01")
        assert until(ws, lambda m: m["type"] == "error")["message"] == "messages are JSON text"
        assert state(ws)["moves"] == []


def test_cap_on_open_games_and_engine_ended_with_the_page(client: TestClient) -> None:
    lobby = client.app.state.lobby  # type: ignore[attr-defined]
    with client.websocket_connect("/ws") as one, client.websocket_connect("/ws") as two:
        new(one, "brique")
        new(two, "brique")
        procs = [room.engine.proc for room in lobby.rooms]
        assert len(procs) == 2 and all(p.returncode is None for p in procs)
        with client.websocket_connect("/ws") as three:
            three.receive_json()
            assert error(three, {"action": "new", "game": "brique"}) == \
                "too many open games (2): close another page first"
        new(two, "flicker")  # a page that has a game may start another
        two.close()
    with client.websocket_connect("/ws") as four:
        four.receive_json()
        assert new(four, "brique")["game"] == "brique"
    assert eventually(lambda: all(p.returncode is not None for p in procs))


def test_idle_page_is_closed() -> None:
    with TestClient(create_app(idle=0.3)) as client, client.websocket_connect("/ws") as ws:
        ws.receive_json()
        new(ws, "brique")
        assert until(ws, lambda m: m["type"] == "error")["message"].startswith(
            "closed after 0.3 s")
        with pytest.raises(WebSocketDisconnect):
            ws.receive_json()
        lobby = client.app.state.lobby  # type: ignore[attr-defined]
        assert eventually(lambda: not lobby.rooms)


def test_a_page_of_another_site_cannot_open_games(client: TestClient) -> None:
    with pytest.raises(WebSocketDisconnect), client.websocket_connect(
            "/ws", headers={"origin": "http://evil.example"}) as ws:
        ws.receive_json()


def test_parse_info_reads_analysis_lines() -> None:
    line = ("info move c3 visits 45 winrate 0.6222 pv c3 swap b1 c3 "
            "info move a2 visits 30 winrate 0.5667 proven win pv a2 b1")
    assert parse_info(line) == [
        {"move": "c3", "visits": 45, "winrate": 0.6222, "pv": ["c3", "swap", "b1", "c3"]},
        {"move": "a2", "visits": 30, "winrate": 0.5667, "proven": "win", "pv": ["a2", "b1"]},
    ]


def serve_process(*flags: str) -> tuple[subprocess.Popen[bytes], int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    # the game site's database goes to a new data directory, not the user's
    env = {**os.environ, "XDG_DATA_HOME": tempfile.mkdtemp(prefix="gtpgames-")}
    proc = subprocess.Popen([*COMMAND, "serve", "--port", str(port), *flags],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    return proc, port


def test_serve_binds_127_0_0_1_and_answers() -> None:
    proc, port = serve_process("--max-games", "1")
    try:
        for _ in range(400):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games") as answer:
                    data = json.load(answer)
                break
            except OSError:
                assert proc.poll() is None
                time.sleep(0.05)
        assert data["caps"]["max_games"] == 1
        with pytest.raises(OSError):  # 127.0.0.1 only, not another address
            socket.create_connection(("127.0.0.2", port), timeout=2).close()
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert f"serving on http://127.0.0.1:{port}/" in err.decode()


def test_serve_says_when_it_opens_the_app_to_others() -> None:
    proc, port = serve_process("--host", "127.0.0.2")
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline().decode()
        assert line == ("gtpgames: serving on 127.0.0.2: anyone who can reach it can open "
                        "games\n")
    finally:
        proc.terminate()
        proc.communicate(timeout=10)


@pytest.mark.parametrize(("flag", "value"), [("--port", "0"), ("--max-games", "0"),
                                             ("--max-think", "0"), ("--idle", "0")])
def test_serve_refuses_bad_flags(flag: str, value: str) -> None:
    done = subprocess.run([*COMMAND, "serve", flag, value], capture_output=True, timeout=60)
    assert done.returncode == 2
    assert flag in done.stderr.decode()


def test_stop_ends_the_search_and_pauses_the_engine_against_itself(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"action": "new", "game": "brique", "options": {"size": "7"},
                      "mode": "watch", "time": 1.0})
        until(ws, lambda m: m["type"] == "analysis")
        ws.send_json({"action": "stop"})
        s = until(ws, lambda m: m["type"] == "state" and m["paused"])
        assert len(s["moves"]) == 1  # the move of the stopped search was played
        s = state(ws)
        assert s["thinking"] is False and len(s["moves"]) == 1
        ws.send_json({"action": "go"})
        s = until(ws, lambda m: m["type"] == "state" and not m["paused"])
        assert s["thinking"] is True


def test_undo_while_the_engine_thinks_takes_back_its_move_and_no_other_starts(
        client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"action": "new", "game": "brique", "options": {"size": "7"},
                      "mode": "watch", "time": 1.0})
        until(ws, lambda m: m["type"] == "analysis")
        ws.send_json({"action": "undo"})  # the search stops, its move is played, then undone
        s = until(ws, lambda m: m["type"] == "state" and m["paused"])
        assert s["moves"] == [] and s["thinking"] is False
