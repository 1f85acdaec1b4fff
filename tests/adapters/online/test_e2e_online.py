"""End to end on loopback, every part a real process: ``gtpgames serve`` on a temporary
SQLite database (and on the PostgreSQL server of ``GTPGAMES_TEST_POSTGRES``, which .ci/run
starts), bot accounts made with ``gtpgames serve add-bot``, ``gtpgames bot`` bridges (two with
our engine, one with an engine that crashes), games of the five games started with
``gtpgames challenge``; each stored record is replayed in the rules core to its result. A
bridge killed in the middle of a game is started again and the game goes on."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.games.registry import new_game
from tests.adapters.web_helpers import free_port
from tests.protocol.test_e2e import COMMAND, warm

pytestmark = pytest.mark.slow

ENGINES = Path(__file__).parents[2] / "engines"
GOOD = [*COMMAND, "gtp", "{game}", "--level", "1"]
CRASHER = [sys.executable, str(ENGINES / "crasher.py"), "--game", "{game}"]
#: A game of each, small: (game, options).
GAMES = [("brique", {"size": "5"}), ("trisq", {"size": "4"}), ("flicker", {"size": "5"}),
         ("brax", {}), ("bricka", {})]


def postgres_url() -> str:
    """The PostgreSQL database of the tests (skip with the reason when there is none)."""
    url = os.environ.get("GTPGAMES_TEST_POSTGRES")
    if not url:
        pytest.skip("GTPGAMES_TEST_POSTGRES is not set (.ci/run sets it): no PostgreSQL test")
    try:
        import psycopg

        psycopg.connect(url, connect_timeout=5).close()
    except Exception as error:  # noqa: BLE001 - any failure means: not reachable
        pytest.skip(f"PostgreSQL at GTPGAMES_TEST_POSTGRES is unreachable: {error}")
    return url


class Site:
    """A ``gtpgames serve`` process, its bots and their bridges; everything is killed by
    :meth:`close`."""

    def __init__(self, tmp_path: Path, db: str) -> None:
        self.tmp = tmp_path
        self.db = db
        self.env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.procs: list[subprocess.Popen[bytes]] = []
        self.tokens: dict[str, str] = {}
        self.bridges: dict[str, subprocess.Popen[bytes]] = {}
        self.suffix = secrets.token_hex(3)  # a PostgreSQL database outlives a run
        self.server = self.spawn([*COMMAND, "serve", "--port", str(self.port), "--db", db,
                                  "--max-challenges", "20"], "serve")
        for _ in range(600):
            try:
                self.get("/api/lobby")
                break
            except OSError:
                assert self.server.poll() is None, self.log("serve")
                time.sleep(0.1)

    def spawn(self, args: list[str], name: str) -> subprocess.Popen[bytes]:
        with open(self.tmp / f"{name}.log", "ab") as log:
            proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=log, env=self.env)
        self.procs.append(proc)
        return proc

    def log(self, name: str) -> str:
        return (self.tmp / f"{name}.log").read_text(errors="replace")

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.base + path, timeout=30) as answer:
            return json.load(answer)

    def add_bot(self, name: str) -> str:
        full = f"{name}{self.suffix}"
        done = subprocess.run([*COMMAND, "serve", "add-bot", full, "--db", self.db],
                              capture_output=True, text=True, timeout=120, env=self.env)
        assert done.returncode == 0, done.stderr
        self.tokens[full] = done.stdout.strip()
        return full

    def bridge(self, bot: str, engine: list[str]) -> subprocess.Popen[bytes]:
        proc = self.spawn([*COMMAND, "bot", "--server", self.base, "--token",
                           self.tokens[bot], "--max-games", "8", "--", *engine], bot)
        self.bridges[bot] = proc
        return proc

    def challenge(self, by: str, opponent: str, game: str, options: dict[str, str],
                  *extra: str) -> subprocess.Popen[bytes]:
        words = [f"--option={key}={value}" for key, value in options.items()]
        return self.spawn([*COMMAND, "challenge", "--server", self.base, "--token",
                           self.tokens[by], opponent, "--game", game, *words,
                           "--time", "3+1", "--wait", "120", *extra],
                          f"challenge-{opponent}-{game}")

    def close(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in reversed(self.procs):
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()


@pytest.fixture(params=["sqlite", "postgres"])
def site(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Site]:
    db = (f"sqlite:///{tmp_path / 'online.sqlite'}" if request.param == "sqlite"
          else postgres_url())
    for game, _ in GAMES:
        warm(game)
    running = Site(tmp_path, db)
    try:
        yield running
    finally:
        running.close()


def finished(proc: subprocess.Popen[bytes], timeout: float = 600) -> tuple[int, str]:
    out, _ = proc.communicate(timeout=timeout)
    return proc.returncode, out.decode()


def game_id(line: str) -> int:
    assert line.startswith("game "), line
    return int(line.split()[1])


def replay(record: dict[str, Any]) -> Any:
    """The record's moves played in the rules core: the game at their end."""
    game = new_game(record["game"], **record["options"])
    for entry in record["moves"]:
        game.play_text(entry["move"], "gtp")
    return game


def test_five_games_and_a_crashing_engine(site: Site) -> None:
    alpha, beta, bad = site.add_bot("alpha"), site.add_bot("beta"), site.add_bot("bad")
    site.bridge(alpha, GOOD)
    site.bridge(beta, GOOD)
    site.bridge(bad, CRASHER)
    games = {game: site.challenge(alpha, beta, game, options) for game, options in GAMES}
    crashed = {game: site.challenge(alpha, bad, game, options, "--color", "b")
               for game, options in GAMES[:2]}
    for game, proc in games.items():
        code, line = finished(proc)
        assert code == 0, site.log(f"challenge-{beta}-{game}")
        record = site.get(f"/api/game/{game_id(line)}")
        assert record["status"] == "finished" and record["result"]["reason"] == "rules"
        end = replay(record)
        outcome = end.outcome()
        assert outcome is not None, record
        winner = None if outcome.winner is None else end.color_name(outcome.winner)
        assert record["result"]["winner"] == winner
        assert f" {site.base}/game/{record['id']}" in line
    for game, proc in crashed.items():
        code, line = finished(proc)
        assert code == 0, site.log(f"challenge-{bad}-{game}")
        record = site.get(f"/api/game/{game_id(line)}")
        assert record["result"]["reason"] == "forfeit", record
        assert record["result"]["winner"] == "b"  # alpha's side
        assert "the engine ended (exit status 3)" in record["result"]["text"]
        assert replay(record).outcome() is None  # the rules did not end it
        assert "forfeit" in line
    # the bad engine's bridge went on: it played both games and is still connected
    assert site.bridges[bad].poll() is None
    assert site.get(f"/api/players/{bad}")["online"] is True
    assert "Traceback" not in site.log("serve") + site.log(alpha) + site.log(bad)


def test_a_bridge_killed_mid_game_comes_back_and_the_game_goes_on(site: Site) -> None:
    alpha, beta = site.add_bot("alpha"), site.add_bot("beta")
    site.bridge(alpha, GOOD)
    site.bridge(beta, GOOD)
    play = site.challenge(alpha, beta, "brique", {"size": "9"}, "--color", "b")
    ident = None
    for _ in range(1200):
        playing = [g for g in site.get("/api/lobby")["playing"]
                   if beta in g["players"].values()]
        if playing and playing[0]["ply"] >= 3:
            ident = playing[0]["id"]
            break
        time.sleep(0.1)
    assert ident is not None, site.log(beta)
    site.bridges[beta].kill()
    site.bridges[beta].wait()
    time.sleep(1.0)  # alpha may still answer; then the game waits for beta
    before = site.get(f"/api/game/{ident}")
    assert before["status"] == "playing"
    site.bridge(beta, GOOD)
    code, line = finished(play)
    assert code == 0 and game_id(line) == ident
    record = site.get(f"/api/game/{ident}")
    assert record["result"]["reason"] == "rules", record
    assert [m["move"] for m in record["moves"][:len(before["moves"])]] == \
        [m["move"] for m in before["moves"]]
    end = replay(record)
    assert end.outcome() is not None
    assert f"game {ident}: resumes brique" in site.log(beta)


def test_a_game_goes_on_while_postgresql_restarts(tmp_path: Path) -> None:
    """PostgreSQL restarted in the middle of a game between two bridges: the server goes on,
    a move it could not store is sent again, and no move is lost."""
    url = postgres_url()
    restart = os.environ.get("GTPGAMES_TEST_POSTGRES_RESTART")
    if not restart:
        pytest.skip("GTPGAMES_TEST_POSTGRES_RESTART (the command that restarts that "
                    "PostgreSQL server; .ci/run sets it) is not set")
    warm("brique")
    site = Site(tmp_path, url)
    try:
        alpha, beta = site.add_bot("alpha"), site.add_bot("beta")
        site.bridge(alpha, GOOD)
        site.bridge(beta, GOOD)
        play = site.challenge(alpha, beta, "brique", {"size": "11"}, "--color", "b")
        before: dict[str, Any] | None = None
        for _ in range(1200):
            playing = [g for g in site.get("/api/lobby")["playing"]
                       if beta in g["players"].values()]
            if playing and playing[0]["ply"] >= 4:
                before = site.get(f"/api/game/{playing[0]['id']}")
                break
            time.sleep(0.1)
        assert before is not None, site.log(beta)
        done = subprocess.run(restart, shell=True, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        code, line = finished(play)
        assert code == 0 and game_id(line) == before["id"], site.log(f"challenge-{beta}-brique")
        record = site.get(f"/api/game/{before['id']}")
        assert record["result"]["reason"] == "rules", record
        kept = [m["move"] for m in before["moves"]]
        assert [m["move"] for m in record["moves"]][:len(kept)] == kept
        assert replay(record).outcome() is not None
    finally:
        site.close()
