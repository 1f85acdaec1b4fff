"""``gtpgames challenge`` (adapters/online/challenge.py and client.py) against a scripted HTTP
server of the API of docs/online.md, in a thread on loopback: the requests it sends, the
line it prints and its exit status."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from typer.testing import CliRunner

from adapters.online import challenge as scripted
from adapters.online.client import ApiError, Client, ServerUnreachable, parse_time, websocket_url
from gtpgames.cli import app
from tests.protocol.test_e2e import COMMAND

RECORD = {"id": 7, "game": "brique", "options": {"size": "5"}, "rated": False,
          "players": {"b": "me", "w": "otherbot"}, "time": {"initial": 60, "increment": 0},
          "moves": [{"move": "c3", "ms": 5}], "clocks": {"b": 60000, "w": 60000},
          "to_move": "w", "ply": 1, "status": "playing", "result": None, "specials": []}


class Script:
    """What the server answers: the challenge's status after ``accept_after`` reads, the
    game finished after ``finish_after`` reads; every request is kept."""

    def __init__(self, status: str = "accepted", accept_after: int = 1,
                 finish_after: int = 2) -> None:
        self.status = status
        self.accept_after = accept_after
        self.finish_after = finish_after
        self.requests: list[tuple[str, str, Any, str | None]] = []

    def answer(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        if method == "POST" and path == "/api/challenges":
            if body.get("game") == "trisq":
                return 400, {"error": "unknown option 'pie'"}
            return 200, dict(body, id=3, status="open", **{"from": "me"})
        reads = sum(1 for r in self.requests if r[1] == path)
        if path == "/api/challenges/3":
            if method == "DELETE":
                return 200, {}
            if reads > self.accept_after:
                return 200, {"id": 3, "status": self.status,
                             "game_id": 7 if self.status == "accepted" else None}
            return 200, {"id": 3, "status": "open"}
        if path == "/api/game/7":
            if reads > self.finish_after:
                return 200, dict(RECORD, status="finished", result={
                    "winner": "w", "reason": "forfeit", "text": "the engine ended"})
            return 200, RECORD
        return 404, {"error": "no such page"}


@pytest.fixture
def server() -> Iterator[tuple[str, Script]]:
    script = Script()

    class Handler(BaseHTTPRequestHandler):
        def handle_one(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length)) if length else None
            script.requests.append((method, self.path, body,
                                    self.headers.get("Authorization")))
            status, answer = script.answer(method, self.path, body)
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self.handle_one("GET")

        def do_POST(self) -> None:
            self.handle_one("POST")

        def do_DELETE(self) -> None:
            self.handle_one("DELETE")

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", script
    finally:
        httpd.shutdown()
        httpd.server_close()


def challenge(*args: str, env: dict[str, str] | None = None) -> Done:
    """``gtpgames challenge ARGS...``, run in-process (the real process in one test)."""
    result = CliRunner().invoke(app, ["challenge", *args], env=env)
    return Done(result.exit_code, result.stdout, result.stderr)


@dataclasses.dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


def test_plays_and_prints_the_result(server: tuple[str, Script]) -> None:
    url, script = server
    done = challenge("--server", url, "--token", "tok", "otherbot", "--game", "brique",
                     "--option", "size=5", "--color", "b", "--time", "1+2", "--rated")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (f"game 7 brique: me (b) vs otherbot (w): otherbot wins by forfeit: "
                           f"the engine ended {url}/game/7\n")
    method, path, body, auth = script.requests[0]
    assert (method, path, auth) == ("POST", "/api/challenges", "Bearer tok")
    assert body == {"game": "brique", "options": {"size": "5"}, "color": "b",
                    "time": {"initial": 60, "increment": 2}, "opponent": "otherbot",
                    "rated": True}
    assert all(request[3] == "Bearer tok" for request in script.requests)


def test_token_from_the_environment_and_declined(server: tuple[str, Script]) -> None:
    url, script = server
    script.status = "declined"
    done = subprocess.run([*COMMAND, "challenge", "--server", url, "otherbot", "--game",
                           "brique"], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, GTPGAMES_TOKEN="envtok"))
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("challenge 3 declined")
    assert script.requests[0][3] == "Bearer envtok"


def test_not_accepted_in_time_is_withdrawn(server: tuple[str, Script]) -> None:
    url, script = server
    script.accept_after = 10**6
    outcome = scripted.play(Client(url, "tok"), {"game": "brique"}, wait=0.0, poll=0.01)
    assert outcome.status == scripted.NOT_PLAYED
    assert "not accepted within 0 s" in outcome.line
    assert script.requests[-1][:2] == ("DELETE", "/api/challenges/3")


def test_errors_exit_2_with_the_servers_message(server: tuple[str, Script]) -> None:
    url, _ = server
    done = challenge("--server", url, "--token", "t", "bob", "--game", "trisq")
    assert (done.returncode, done.stdout) == (2, "")
    assert "unknown option 'pie'" in done.stderr
    with pytest.raises(ApiError, match="HTTP 404: no such page"):
        Client(url, None).get("/nowhere")


@pytest.mark.parametrize(("args", "message"), [
    (["--game", "chess"], "chess"),
    (["--game", "brique", "--option", "size=99"], "size"),
    (["--game", "brique", "--color", "red"], "--color"),
    (["--game", "brique", "--time", "x"], "--time"),
    (["--game", "brique", "--time", "0+0"], "--time"),
    (["--game", "brique", "--server", "ftp://x"], "--server"),
])
def test_bad_arguments_exit_2(args: list[str], message: str) -> None:
    done = challenge("--server", "http://127.0.0.1:9", "--token", "t", "bob", *args)
    assert done.returncode == 2 and message in done.stderr, done.stderr


def test_an_unreachable_server_exits_2() -> None:
    done = challenge("--server", "http://127.0.0.1:9", "--token", "t", "bob",
                     "--game", "brique")
    assert done.returncode == 2 and "127.0.0.1:9" in done.stderr
    with pytest.raises(ServerUnreachable):
        Client("http://127.0.0.1:9", None).get("/api/lobby")


def test_time_and_addresses() -> None:
    assert parse_time("5+3") == {"initial": 300, "increment": 3}
    assert parse_time("0.5") == {"initial": 30, "increment": 0}
    for bad in ("5+-1", "nan", "inf", "99999+0", "5+3601"):
        with pytest.raises(ValueError, match="--time"):
            parse_time(bad)
    assert websocket_url("https://example.org/", "/api/bot") == "wss://example.org/api/bot"
    assert websocket_url("http://127.0.0.1:8000", "/api/bot") == "ws://127.0.0.1:8000/api/bot"


def test_reads_are_tried_again_after_server_errors_not_client_errors() -> None:
    """A read answered with a server error (5xx, as while the server's database restarts) is
    tried again; a client error (4xx) is raised at once."""
    answers: list[Any] = [ApiError(500, "internal error"), ApiError(503, "busy"), {"ok": 1}]
    slept: list[float] = []

    def get() -> Any:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert scripted._retrying(get, None, slept.append) == {"ok": 1}
    assert slept == [1.0, 1.0]
    answers[:] = [ApiError(404, "no such game"), {"ok": 2}]
    with pytest.raises(ApiError, match="404"):
        scripted._retrying(get, None, slept.append)
    answers[:] = [ApiError(500, "internal error")] * 3
    with pytest.raises(ApiError, match="500"):  # no patience left
        scripted._retrying(get, None, slept.append, patience=0.0)

