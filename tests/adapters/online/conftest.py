"""Fixtures of the game server's tests: an app on a temporary SQLite file, a fake clock,
bot accounts and signed-in people."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from adapters.online.app import add_bot, create_app
from adapters.online.play import Limits


class FakeClock:
    """A monotonic clock moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'online.sqlite'}"


Server = Callable[..., TestClient]


@pytest.fixture
def server(db: str, clock: FakeClock) -> Iterator[Server]:
    """Open apps on ``db`` (``server(limits=...)``): each a started TestClient."""
    opened: list[TestClient] = []

    def open_app(**extra: Any) -> TestClient:
        settings: dict[str, Any] = {"clock": clock, "login_delay": 0.0,
                                    "rng": random.Random(1)}
        settings.update(extra)
        client = TestClient(create_app(db, **settings), base_url="http://testserver")
        client.__enter__()
        opened.append(client)
        return client

    yield open_app
    for client in opened:
        client.__exit__(None, None, None)


@pytest.fixture
def client(server: Server) -> TestClient:
    return server(limits=Limits(rate=1e6))


@pytest.fixture
def bots(client: TestClient) -> dict[str, str]:
    """Two bot accounts and their tokens."""
    store = client.app.state.store  # type: ignore[attr-defined]
    return {name: add_bot(store, name) for name in ("alpha", "beta")}


@pytest.fixture(autouse=True)
def quick_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Argon2 with its smallest costs: the tests hash many passwords (the server keeps the
    library's defaults, which test_password_hashes_are_argon2id checks)."""
    from argon2 import PasswordHasher

    from adapters.online import accounts

    monkeypatch.setattr(accounts, "_hasher", PasswordHasher(time_cost=1, memory_cost=8,
                                                            parallelism=1))


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
