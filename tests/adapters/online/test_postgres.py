"""The game server on PostgreSQL (docs/online.md, *Storage*): a temporary cluster is started
(skipped with a message where PostgreSQL's programs are missing or it cannot start), a game
is played, the database is restarted in the middle, and the game goes on."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from adapters.online.app import add_bot, create_app
from adapters.online.play import Limits
from tests.adapters.online.conftest import FakeClock, auth
from tests.adapters.online.helpers import move, start

pytestmark = pytest.mark.slow


def program(name: str) -> str | None:
    found = shutil.which(name) or sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found if isinstance(found, str) else (found[-1] if found else None)


class Cluster:
    """A PostgreSQL server in a temporary directory (as the user ``postgres`` when run by
    root, which PostgreSQL refuses to run as)."""

    def __init__(self) -> None:
        initdb, self.pg_ctl = program("initdb"), program("pg_ctl")
        if initdb is None or self.pg_ctl is None:
            pytest.skip("PostgreSQL is not installed (initdb, pg_ctl)")
        self.base = Path(tempfile.mkdtemp(prefix="gtpgames-pg-"))
        self.user: list[str] = []
        if os.geteuid() == 0:
            import pwd

            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                pytest.skip("running as root and there is no user postgres to run PostgreSQL")
            os.chown(self.base, owner.pw_uid, owner.pw_gid)
            self.user = ["runuser", "-u", "postgres", "--"]
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.data = self.base / "data"
        done = subprocess.run([*self.user, initdb, "-D", str(self.data), "-U", "gtpgames",
                               "--auth=trust", "-E", "UTF8"], capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"initdb failed: {done.stderr.strip()[-300:]}")
        self.url = f"postgresql://gtpgames@127.0.0.1:{self.port}/postgres"

    def ctl(self, *args: str) -> subprocess.CompletedProcess[str]:
        assert self.pg_ctl is not None
        options = f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1"
        return subprocess.run([*self.user, self.pg_ctl, "-D", str(self.data), "-l",
                               str(self.base / "log"), "-o", options, "-w", *args],
                              capture_output=True, text=True, timeout=120)

    def remove(self) -> None:
        self.ctl("-m", "immediate", "stop")
        shutil.rmtree(self.base, ignore_errors=True)


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    made = Cluster()
    started = made.ctl("start")
    if started.returncode != 0:
        made.remove()
        pytest.skip(f"PostgreSQL did not start: {started.stderr.strip()[-300:]}")
    yield made
    made.remove()


def test_a_game_goes_on_after_a_database_restart(cluster: Cluster) -> None:
    clock = FakeClock()
    alpha, beta = add_bot(cluster.url, "alpha"), add_bot(cluster.url, "beta")
    with TestClient(create_app(cluster.url, Limits(rate=1e6), clock=clock,
                               login_delay=0.0)) as client:
        game = start(client, alpha, beta, rated=True)
        assert move(client, alpha, game, 0, "c3").status_code == 200
        assert cluster.ctl("-m", "fast", "restart").returncode == 0
        answer = move(client, beta, game, 1, "d4")
        assert answer.status_code == 200, answer.text
        client.post(f"/api/game/{game}/resign", json={}, headers=auth(beta))
    with TestClient(create_app(cluster.url, Limits(rate=1e6), clock=clock)) as client:
        record = client.get(f"/api/game/{game}").json()
        assert [m["move"] for m in record["moves"]] == ["c3", "d4"]
        assert record["result"]["reason"] == "resign"
        assert client.get("/api/players/alpha").json()["ratings"]["brique"]["rating"] > 1500
