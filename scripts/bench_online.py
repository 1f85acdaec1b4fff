"""Load on the game server: many simultaneous bot-against-bot games of random movers, the
server's added latency per move, its memory, and no game lost or corrupted when the server is
killed (SIGKILL) in the middle and started again.

Usage: python -m scripts.bench_online [--games 200] [--kill-at MOVES] [--timeout S]

``gtpgames serve`` runs on a temporary SQLite database on loopback; bot accounts are made in
it (two per ten games, each pair playing ten games at once, the five games in turn, small
boards). The bots are asyncio WebSocket clients in this process speaking the bot API of
docs/online.md; each plays random legal moves of the rules core at once. The latency of a move
is the time from sending it to receiving the ``game_state`` that includes it (median and 99th
percentile); the memory is the server's resident set size at its largest. After ``--kill-at``
moves the server is killed with SIGKILL and started again; the bots reconnect and their games
resume. At the end every game's record (``GET /api/game/ID``) must be finished, keep every move
that was acknowledged before the kill, and replay in the rules core to its result.
Targets (issue text): median under 20 ms, 99th percentile under 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from engine.games.core import Game
from engine.games.registry import new_game
from scripts.bench_web import cpu_seconds, free_port

SCRIPT = Path(sys.executable).with_name("gtpgames")
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "gtpgames"]
#: The games played, in turn, with their options.
GAMES: list[tuple[str, dict[str, str]]] = [
    ("brique", {"size": "7"}), ("trisq", {"size": "5"}), ("flicker", {"size": "7"}),
    ("brax", {}), ("bricka", {})]
GAMES_PER_PAIR = 10


def rss_mb(pid: int) -> float:
    """The resident set size of a running process, in MB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Run:
    """The server process, the bots and what they measured."""

    def __init__(self, games: int, kill_at: int, seed: int, think: float) -> None:
        self.games = games
        self.think = think
        #: CPU seconds used by the server processes (the killed one and its successor).
        self.cpu = 0.0
        self.kill_at = kill_at
        self.rng = random.Random(seed)
        self.tmp = Path(tempfile.mkdtemp(prefix="bench-online-"))
        self.db = f"sqlite:///{self.tmp / 'online.sqlite'}"
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.server: subprocess.Popen[bytes] | None = None
        self.latencies: list[float] = []
        self.moves = 0
        self.killed = False
        #: The kill and the restart, run on a thread while the bots go on.
        self.restart: asyncio.Task[None] | None = None
        self.bots: list[Bot] = []
        #: Every challenge is sent and accepted (the kill waits for it).
        self.all_started = False
        self.peak_rss = 0.0
        self.ended: set[int] = set()
        #: The moves of each game acknowledged before the kill (they must all be kept).
        self.before_kill: dict[int, list[str]] = {}
        self.seen: dict[int, list[str]] = {}
        self.progress = time.monotonic()

    def start_server(self) -> None:
        log = open(self.tmp / "serve.log", "ab")  # noqa: SIM115 - kept by the child
        self.server = subprocess.Popen(
            [*COMMAND, "serve", "--port", str(self.port), "--db", self.db,
             "--max-challenges", "1000", "--max-bot-games", "1000", "--rate", "10000"],
            stdout=subprocess.DEVNULL, stderr=log)
        log.close()
        while True:
            try:
                with urllib.request.urlopen(f"{self.base}/api/lobby", timeout=5):
                    return
            except OSError:
                if self.server.poll() is not None:
                    raise RuntimeError("gtpgames serve ended: see "
                                       f"{self.tmp / 'serve.log'}") from None
                time.sleep(0.05)

    def server_cpu(self) -> None:
        """Count the CPU time the server process has used so far (before it ends)."""
        if self.server is not None and self.server.poll() is None:
            self.cpu += cpu_seconds(self.server.pid)

    def kill_and_restart(self) -> None:
        assert self.server is not None
        self.server_cpu()
        self.server.send_signal(signal.SIGKILL)
        self.server.wait()
        self.start_server()

    def stop(self) -> None:
        self.server_cpu()
        if self.server is not None and self.server.poll() is None:
            self.server.kill()
            self.server.wait()

    def request(self, method: str, path: str, token: str | None = None,
                body: dict[str, Any] | None = None) -> Any:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, headers=headers,
                                         method=method)
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.load(answer)


class Bot:
    """One bot account's WebSocket: accepts every challenge, plays random legal moves at
    once, reconnects while the server is down."""

    def __init__(self, run: Run, name: str, token: str) -> None:
        self.run = run
        self.name = name
        self.token = token
        self.games: dict[int, tuple[str, Game[Any]]] = {}
        self.sent: dict[tuple[int, int], float] = {}
        self.thinking: set[asyncio.Task[None]] = set()
        self.ready = asyncio.Event()

    async def play(self) -> None:
        url = f"ws://127.0.0.1:{self.run.port}/api/bot"
        headers = {"Authorization": f"Bearer {self.token}"}
        while len(self.run.ended) < self.run.games:
            try:
                async with connect(url, additional_headers=headers, max_size=2**22) as ws:
                    await self.session(ws)
            except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError):
                pass
            self.sent.clear()  # moves in flight across a kill are not timed
            await asyncio.sleep(0.2)

    async def session(self, ws: Any) -> None:
        async for raw in ws:
            message = json.loads(raw)
            kind = message["type"]
            if kind == "hello":
                self.ready.set()
            elif kind == "challenge":
                await ws.send(json.dumps({"type": "accept",
                                          "challenge": message["challenge"]["id"]}))
            elif kind in ("game_start", "game_state"):
                record = message["game"]
                if kind == "game_start":
                    self.games[record["id"]] = (message["color"], new_game(
                        record["game"], **record["options"]))
                await self.on_record(ws, record)
            elif kind == "game_end":
                record = message["game"]
                sent = self.sent.pop((record["id"], record["ply"]), None)
                if sent is not None:
                    self.run.latencies.append(time.perf_counter() - sent)
                    self.run.moves += 1
                self.games.pop(record["id"], None)
                self.run.ended.add(record["id"])
                self.run.progress = time.monotonic()

    async def on_record(self, ws: Any, record: dict[str, Any]) -> None:
        ident, ply = record["id"], record["ply"]
        moves = [entry["move"] for entry in record["moves"]]
        self.run.seen[ident] = moves
        sent = self.sent.pop((ident, ply), None)
        if sent is not None:
            self.run.latencies.append(time.perf_counter() - sent)
            self.run.moves += 1
            self.run.progress = time.monotonic()
            if (self.run.all_started and not self.run.killed
                    and self.run.moves >= self.run.kill_at):
                self.run.killed = True
                self.run.before_kill = {game: list(moves)
                                        for game, moves in self.run.seen.items()}
                for bot in self.run.bots:  # moves in flight across the kill are not timed
                    bot.sent.clear()
                self.run.restart = asyncio.create_task(
                    asyncio.to_thread(self.run.kill_and_restart))
                return
        colour, game = self.games.get(ident, (None, None))
        if game is None or record["status"] != "playing" or record["to_move"] != colour:
            return
        while len(game.history) < len(moves):
            game.play_text(moves[len(game.history)], "gtp")
        move = game.format_move(game.random_move(self.run.rng), "gtp")
        if self.run.think > 0:
            task = asyncio.create_task(self.send_later(ws, ident, ply, move))
            self.thinking.add(task)
            task.add_done_callback(self.thinking.discard)
        else:
            await self.send(ws, ident, ply, move)

    async def send_later(self, ws: Any, ident: int, ply: int, move: str) -> None:
        """The move after a pause of about ``--think`` seconds (a bot that thinks)."""
        await asyncio.sleep(self.run.think * self.run.rng.uniform(0.5, 1.5))
        with contextlib.suppress(ConnectionClosed):
            await self.send(ws, ident, ply, move)

    async def send(self, ws: Any, ident: int, ply: int, move: str) -> None:
        self.sent[(ident, ply + 1)] = time.perf_counter()
        try:
            await ws.send(json.dumps({"type": "move", "game": ident, "ply": ply,
                                      "move": move}))
        except ConnectionClosed:
            self.sent.pop((ident, ply + 1), None)
            raise


def check(run: Run, ids: list[int]) -> tuple[int, int, int, list[str]]:
    """Lost games (missing, or unfinished with moves missing), games unfinished when the
    time ran out (their moves intact), and corrupted games (moves lost, illegal, or a
    result the rules core does not give), with a line for each."""
    lost = unfinished = corrupted = 0
    notes = []
    for ident in ids:
        try:
            record = run.request("GET", f"/api/game/{ident}")
        except OSError as error:
            lost += 1
            notes.append(f"game {ident}: {error}")
            continue
        if record["status"] != "finished":
            moves = [entry["move"] for entry in record["moves"]]
            kept = run.before_kill.get(ident, [])
            if moves[:len(kept)] != kept:
                lost += 1
                notes.append(f"game {ident}: moves acknowledged before the kill are missing")
            else:
                unfinished += 1
                notes.append(f"game {ident}: still {record['status']} at ply {record['ply']} "
                             "when the time ran out (its moves intact)")
            continue
        moves = [entry["move"] for entry in record["moves"]]
        kept = run.before_kill.get(ident, [])
        try:
            game = new_game(record["game"], **record["options"])
            for token in moves:
                game.play_text(token, "gtp")
            outcome = game.outcome()
            if moves[:len(kept)] != kept:
                raise ValueError("moves acknowledged before the kill are missing")
            if record["result"]["reason"] == "rules":
                if outcome is None:
                    raise ValueError("the rules do not end the game there")
                winner = None if outcome.winner is None else game.color_name(outcome.winner)
                if winner != record["result"]["winner"]:
                    raise ValueError(f"the rules give {winner}, the record "
                                     f"{record['result']['winner']}")
            else:
                raise ValueError(f"ended by {record['result']['reason']}, not by the rules")
        except ValueError as error:
            corrupted += 1
            notes.append(f"game {ident}: {error}")
    return lost, unfinished, corrupted, notes


async def bench(run: Run, timeout: float) -> list[int]:
    """Play the games; their ids."""
    from adapters.online.app import add_bot

    pairs = max(1, -(-run.games // GAMES_PER_PAIR))
    bots = []
    for number in range(2 * pairs):
        name = f"bench{number}"
        bots.append(Bot(run, name, await asyncio.to_thread(add_bot, run.db, name)))
    run.start_server()
    run.bots = bots
    tasks = [asyncio.create_task(bot.play()) for bot in bots]
    await asyncio.wait_for(asyncio.gather(*(bot.ready.wait() for bot in bots)), 60)

    async def sample() -> None:
        while True:
            if run.server is not None and run.server.poll() is None:
                run.peak_rss = max(run.peak_rss, rss_mb(run.server.pid))
            await asyncio.sleep(0.2)

    sampler = asyncio.create_task(sample())

    async def open_game(number: int) -> int | None:
        white, black = bots[2 * (number % pairs)], bots[2 * (number % pairs) + 1]
        game, options = GAMES[number % len(GAMES)]
        challenge = {"game": game, "options": options, "color": "b", "opponent": white.name,
                     "time": {"initial": 3600, "increment": 0}}
        sent = await asyncio.to_thread(run.request, "POST", "/api/challenges", black.token,
                                       challenge)
        for _ in range(400):
            state = await asyncio.to_thread(run.request, "GET", f"/api/challenges/{sent['id']}")
            if state.get("game_id") is not None:
                return int(state["game_id"])
            await asyncio.sleep(0.05)
        return None

    opened = await asyncio.gather(*(open_game(number) for number in range(run.games)))
    ids = [ident for ident in opened if ident is not None]
    run.all_started = True
    deadline = time.monotonic() + timeout
    while len(run.ended) < run.games and time.monotonic() < deadline:
        await asyncio.sleep(0.5)
        if time.monotonic() - run.progress > 10:  # stalled: ends not seen over a socket
            break
    sampler.cancel()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, sampler, return_exceptions=True)
    return ids


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--games", type=int, default=200, help="simultaneous games")
    parser.add_argument("--kill-at", type=int, default=5000,
                        help="kill the server (SIGKILL) and restart it after this many moves")
    parser.add_argument("--timeout", type=float, default=900.0,
                        help="seconds at most for the games")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random movers")
    parser.add_argument("--think", type=float, default=0.0,
                        help="seconds a bot waits before each move, on average (0: none, "
                        "the server's load is then as high as it can answer)")
    args = parser.parse_args()
    run = Run(args.games, args.kill_at, args.seed, args.think)
    begin = time.perf_counter()
    try:
        ids = asyncio.run(bench(run, args.timeout))
        peak = run.peak_rss
        lost, unfinished, corrupted, notes = check(run, ids)
    finally:
        run.stop()
    lost += args.games - len(ids)
    took = time.perf_counter() - begin
    ms = sorted(1000 * value for value in run.latencies)
    print(f"games: {args.games} at once ({len(GAMES)} games in turn), {run.moves} moves "
          f"timed in {took:.1f} s ({run.moves / took:.0f} a second), think {args.think:g} s")
    if run.moves:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        mine = usage.ru_utime + usage.ru_stime
        print(f"server CPU: {1000 * run.cpu / run.moves:.1f} ms a move "
              f"({run.cpu:.1f} s in all); the bots' process: {mine:.1f} s")
    if len(ms) >= 2:
        p99 = statistics.quantiles(ms, n=100)[98]
        print(f"latency per move: median {statistics.median(ms):.1f} ms, "
              f"99th percentile {p99:.1f} ms (targets 20 ms, 100 ms)")
    print(f"server memory: {peak:.0f} MB resident at most")
    print(f"killed and restarted: {'yes' if run.killed else 'no (the games ended first)'}"
          f" after {args.kill_at} moves; lost games: {lost}, corrupted games: {corrupted}")
    if unfinished:
        print(f"unfinished when the time ran out: {unfinished} (give a longer --timeout)")
    for note in notes[:20]:
        print(f"  {note}")
    if lost or unfinished or corrupted or not run.killed:
        print(f"server log: {run.tmp / 'serve.log'}")
        sys.exit(1)
    shutil.rmtree(run.tmp, ignore_errors=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
