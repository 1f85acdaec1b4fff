"""Helpers of the game server's tests: people, challenges and bot connections."""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient

from tests.adapters.online.conftest import auth


def person(client: TestClient, name: str, password: str = "password1") -> str:
    """Sign ``name`` up and return an API token (the client keeps no cookie)."""
    answer = client.post("/api/account/signup", json={"name": name, "password": password})
    assert answer.status_code == 200, answer.text
    token = client.post("/api/account/token").json()["token"]
    client.cookies.clear()
    assert isinstance(token, str)
    return token


def challenge(client: TestClient, token: str, **fields: Any) -> dict[str, Any]:
    body = {"game": "brique", "options": {"size": "5"}, "color": "b"} | fields
    answer = client.post("/api/challenges", json=body, headers=auth(token))
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def start(client: TestClient, black: str, white: str, **fields: Any) -> int:
    """A game between the tokens' accounts (``black`` challenges, ``white`` accepts)."""
    made = challenge(client, black, **fields)
    answer = client.post(f"/api/challenges/{made['id']}/accept", headers=auth(white))
    assert answer.status_code == 200, answer.text
    game: int = answer.json()["game"]
    return game


def move(client: TestClient, token: str, game: int, ply: int, token_: str) -> Any:
    return client.post(f"/api/game/{game}/move", json={"ply": ply, "move": token_},
                       headers=auth(token))


def until(ws: Any, kind: str) -> dict[str, Any]:
    """The next message of ``kind`` on the WebSocket (others are skipped)."""
    for _ in range(10_000):
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind} message")
