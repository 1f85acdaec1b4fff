"""The bot bridge (adapters/online/bridge.py) against a scripted server of the bot API of
docs/online.md, run in-process on loopback: it plays the other side with random legal moves
of the rules core and checks every message the bridge sends. The engines are the tiny
misbehaving ones of tests/engines/, which log every command they receive."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.server import Server, ServerConnection, serve

from adapters.online import bridge
from adapters.online.bridge import Bridge, Policy
from engine.games.core import Game, GameError
from engine.games.registry import new_game

ENGINES = Path(__file__).parents[2] / "engines"
TOKEN = "secret-token"


def engine(script: str, log: Path, *extra: str) -> list[str]:
    return [sys.executable, str(ENGINES / f"{script}.py"), "--game", "{game}",
            "--log", str(log), *extra]


class FakeServer:
    """One game for the bot at a time, offered as a challenge; the server's side plays
    random legal moves. ``refuse`` refuses the bot's moves; ``drop_at`` closes the first
    connection when the game reaches that ply (the game then resumes on the next one)."""

    def __init__(self, game: str = "brique", options: dict[str, str] | None = None,
                 colour: str = "b", clock_ms: int = 60_000, refuse: bool = False,
                 drop_at: int | None = None, games: int = 1, refuse_times: int = 0) -> None:
        self.game_name = game
        self.options = {"size": "4"} if options is None else options
        self.colour = colour
        self.clock_ms = clock_ms
        self.refuse = refuse
        self.refuse_times = refuse_times
        self.drop_at = drop_at
        self.games_left = games
        self.received: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []
        self.connections = 0
        self.headers: list[str | None] = []
        self.rng = random.Random(1)
        self.game: Game[Any] | None = None
        self.ident = 0
        self.moves: list[str] = []
        self.done = asyncio.Event()

    def record(self, status: str = "playing", result: Any = None) -> dict[str, Any]:
        assert self.game is not None
        other = "w" if self.colour == "b" else "b"
        return {"id": self.ident, "game": self.game_name, "options": self.options,
                "rated": False, "players": {self.colour: "testbot", other: "alice"},
                "time": {"initial": self.clock_ms // 1000, "increment": 0},
                "moves": [{"move": move, "ms": 10} for move in self.moves],
                "clocks": {"b": self.clock_ms, "w": self.clock_ms},
                "to_move": self.game.color_name(self.game.to_move), "ply": len(self.moves),
                "status": status, "result": result, "specials": []}

    async def finish(self, ws: ServerConnection, result: dict[str, Any]) -> None:
        self.results.append(result)
        await ws.send(json.dumps({"type": "game_end",
                                  "game": self.record("finished", result)}))
        self.game = None
        self.games_left -= 1
        if self.games_left == 0:
            self.done.set()
        else:
            await self.offer(ws)

    async def offer(self, ws: ServerConnection) -> None:
        self.ident += 100
        await ws.send(json.dumps({"type": "challenge", "challenge": {
            "id": self.ident, "from": "alice", "game": self.game_name,
            "options": self.options, "color": "random", "rated": False,
            "time": {"initial": self.clock_ms // 1000, "increment": 0}}}))

    async def server_moves(self, ws: ServerConnection) -> None:
        """The server's side plays until it is the bot's turn or the game is over."""
        assert self.game is not None
        while True:
            outcome = self.game.outcome()
            if outcome is not None:
                winner = None if outcome.winner is None else self.game.color_name(
                    outcome.winner)
                await self.finish(ws, {"winner": winner, "reason": "rules", "text": ""})
                return
            if self.game.color_name(self.game.to_move) == self.colour:
                await ws.send(json.dumps({"type": "game_state", "game": self.record()}))
                return
            move = self.game.random_move(self.rng)
            self.moves.append(self.game.format_move(move, "gtp"))
            self.game.play(move)

    async def handler(self, ws: ServerConnection) -> None:
        self.connections += 1
        self.headers.append(ws.request.headers.get("Authorization") if ws.request else None)
        await ws.send(json.dumps({"type": "hello", "account": "testbot", "protocol": 1}))
        for junk in ("not json", "[]", '{"type": "game_state"}', '{"type": "challenge", '
                     '"challenge": 5}', '{"type": "game_start", "game": {}}', '{"type": "x"}'):
            await ws.send(junk)  # logged and passed over
        if self.game is None:
            await self.offer(ws)
        else:  # a game in progress resumes
            await ws.send(json.dumps({"type": "game_start", "game": self.record(),
                                      "color": self.colour}))
            await self.server_moves(ws)
        async for raw in ws:
            message = json.loads(raw)
            self.received.append(message)
            kind = message["type"]
            if kind == "accept":
                assert message["challenge"] == self.ident
                self.game = new_game(self.game_name, **self.options)
                self.moves = []
                await ws.send(json.dumps({"type": "game_start", "game": self.record(),
                                          "color": self.colour}))
                await self.server_moves(ws)
            elif kind == "decline":
                self.results.append({"declined": message.get("reason")})
                self.done.set()
            elif kind == "resign":
                winner = "w" if self.colour == "b" else "b"
                reason = "forfeit" if message.get("reason") else "resign"
                await self.finish(ws, {"winner": winner, "reason": reason,
                                       "text": message.get("reason", "")})
            elif kind == "move":
                assert self.game is not None and message["game"] == self.ident
                assert message["ply"] == len(self.moves), message
                try:
                    if self.refuse or self.refuse_times > 0:
                        self.refuse_times -= 1
                        raise GameError("refused")
                    self.game.play_text(message["move"], "gtp")
                except GameError as error:
                    await ws.send(json.dumps({"type": "error", "game": self.ident,
                                              "message": f"illegal move: {error}"}))
                    continue
                self.moves.append(message["move"])
                if self.drop_at is not None and len(self.moves) >= self.drop_at:
                    self.drop_at = None
                    await ws.close()
                    return
                await ws.send(json.dumps({"type": "game_state", "game": self.record()}))
                await self.server_moves(ws)


async def with_bridge(server: FakeServer, command: list[str],
                      policy: Policy | None = None,
                      check: Callable[[Bridge], Awaitable[None]] | None = None) -> None:
    """Run the bridge against ``server`` until the server's games are done."""
    async with serve(server.handler, "127.0.0.1", 0) as running:
        port = port_of(running)
        the_bridge = Bridge(f"http://127.0.0.1:{port}", TOKEN, command, policy or Policy())
        task = asyncio.create_task(the_bridge.run())
        try:
            await asyncio.wait_for(server.done.wait(), 90)
            if check is not None:
                await check(the_bridge)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def port_of(running: Server) -> int:
    port: int = next(iter(running.sockets)).getsockname()[1]
    return port


def commands(log: Path) -> list[str]:
    return log.read_text().splitlines()


def test_plays_a_game_to_its_end_with_the_clock_and_colours(tmp_path: Path) -> None:
    log = tmp_path / "engine.log"
    server = FakeServer(colour="w", clock_ms=90_500)
    asyncio.run(with_bridge(server, engine("tinygtp", log)))
    assert server.results and server.results[0]["reason"] == "rules"
    seen = commands(log)
    # set up as the doc says: no gtpgames-game in tinygtp, so boardsize; then the clock
    assert seen[:3] == ["list_commands", "boardsize 4", "clear_board"]
    assert seen[3] == "time_settings 90 0 0"
    genmoves = [i for i, line in enumerate(seen) if line.startswith("genmove")]
    assert genmoves and all(seen[i] == "genmove w" for i in genmoves)
    assert all(seen[i - 1] == "time_left w 90 0" for i in genmoves)
    plays = [line for line in seen if line.startswith("play")]
    assert plays and all(line.startswith("play b ") for line in plays)
    # every move was sent with the ply it is played at, in order
    moves = [m for m in server.received if m["type"] == "move"]
    assert [m["ply"] for m in moves] == list(range(1, 2 * len(moves), 2))


def test_our_engine_is_set_up_with_gtpgames_game(tmp_path: Path) -> None:
    log = tmp_path / "proxy.log"
    server = FakeServer(game="trisq", options={"size": "4"})
    root = Path(__file__).parents[3]
    proxy = [sys.executable, str(root / "scripts" / "gtp_log_proxy.py"), str(log),
             sys.executable, "-m", "gtpgames", "gtp", "{game}", "--player", "random"]
    asyncio.run(with_bridge(server, proxy))
    assert server.results[0]["reason"] == "rules"
    assert "gtpgames-game trisq size=4" in log.read_text()


@pytest.mark.parametrize(("script", "reason", "games"), [
    ("crasher", "the engine ended (exit status 3) during genmove", 2),
    ("illegal", "the engine played", 2),
    ("hanger", "the engine did not answer genmove within", 1),  # (one: it takes its clock)
])
def test_a_bad_engine_forfeits_and_the_bridge_goes_on(
    tmp_path: Path, script: str, reason: str, games: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bridge, "GENMOVE_GRACE", 0.5)
    server = FakeServer(clock_ms=1_000, games=games)
    asyncio.run(with_bridge(server, engine(script, tmp_path / "log")))
    assert [r["reason"] for r in server.results] == ["forfeit"] * games
    assert all(r["text"].startswith(reason) for r in server.results), server.results
    assert server.connections == 1


def test_a_move_the_server_keeps_refusing_is_a_forfeit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bridge, "MOVE_RETRY_DELAYS", (0.01, 0.02))
    server = FakeServer(refuse=True)
    asyncio.run(with_bridge(server, engine("tinygtp", tmp_path / "log")))
    assert server.results[0]["reason"] == "forfeit"
    assert "refused" in server.results[0]["text"]
    sent = [(m["ply"], m["move"]) for m in server.received if m["type"] == "move"]
    assert len(sent) == 3 and len(set(sent)) == 1  # the move, then twice again


def test_a_move_refused_for_a_while_is_sent_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that cannot store a move (its database restarts) refuses it: the bridge
    sends it again and the game goes on."""
    monkeypatch.setattr(bridge, "MOVE_RETRY_DELAYS", (0.01, 0.02, 0.05))
    log = tmp_path / "engine.log"
    server = FakeServer(refuse_times=3)
    asyncio.run(with_bridge(server, engine("tinygtp", log)))
    assert server.results[0]["reason"] == "rules", server.results
    sent = [(m["ply"], m["move"]) for m in server.received if m["type"] == "move"]
    assert sent[0] == sent[1] == sent[2] == sent[3] and sent[4][0] == sent[0][0] + 2
    assert commands(log).count("clear_board") == 1  # the engine was not restarted


def test_reconnects_and_resumes_with_a_new_engine(tmp_path: Path) -> None:
    log = tmp_path / "engine.log"
    server = FakeServer(game="brique", options={"size": "5"}, drop_at=3)
    asyncio.run(with_bridge(server, engine("tinygtp", log)))
    assert server.connections == 2
    assert server.results[0]["reason"] == "rules"
    assert set(server.headers) == {f"Bearer {TOKEN}"}
    seen = commands(log)
    second = [i for i, line in enumerate(seen) if line == "clear_board"][1]
    # the new engine is given the three moves played before the drop, then plays on
    replayed = [line.split()[2] for line in seen[second:] if line.startswith("play")][:3]
    played = [m["move"] for m in server.received if m["type"] == "move"]
    assert replayed[0] == played[0] and replayed[2] == played[1]


def test_declines_what_its_policy_refuses(tmp_path: Path) -> None:
    server = FakeServer(game="trisq")
    policy = Policy.parse("brique,flicker", "any", 2)
    asyncio.run(with_bridge(server, engine("tinygtp", tmp_path / "log"), policy))
    assert server.results == [{"declined": "this bot plays brique, flicker, not trisq"}]


@pytest.mark.parametrize(("games", "accept", "challenge", "reason"), [
    (None, "rated", {"game": "brique", "rated": False}, "rated games only"),
    (None, "from:bob", {"game": "brique", "from": "alice"}, "from bob only"),
    (None, "any", {"game": "brique", "options": {"size": "99"}}, "out of range"),
    (None, "any", {"game": "brax", "options": {"players": "3"}}, "two-player"),
    ("brique", "any", {"game": "brax"}, "plays brique, not brax"),
])
def test_policy_refusals(games: str | None, accept: str, challenge: dict[str, Any],
                         reason: str) -> None:
    found = Policy.parse(games, accept, 4).refusal(challenge, 0)
    assert found is not None and reason in found


def test_policy_accepts_and_counts_games() -> None:
    policy = Policy.parse(None, "from:bob", 1)
    assert policy.refusal({"game": "bricka", "from": "bob"}, 0) is None
    assert "busy" in str(policy.refusal({"game": "bricka", "from": "bob"}, 1))


@pytest.mark.parametrize(("games", "accept", "max_games", "message"), [
    ("brique,chess", "any", 1, "chess"),
    (",", "any", 1, "--games"),
    (None, "some", 1, "--accept"),
    (None, "from:", 1, "--accept"),
    (None, "any", 0, "--max-games"),
])
def test_policy_options_are_checked(games: str | None, accept: str, max_games: int,
                                    message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Policy.parse(games, accept, max_games)


def test_engine_command_names_the_game() -> None:
    assert bridge.engine_command(["x", "--game={game}", "{game}"], "trisq") == \
        ["x", "--game=trisq", "trisq"]
    with pytest.raises(bridge.BridgeError, match="not found"):
        bridge.check_engine(["/no/such/engine-{game}"])


@pytest.mark.parametrize("game", ["bricka", "brax"])
def test_moves_are_translated_to_the_servers_notation(tmp_path: Path, game: str) -> None:
    """The server speaks gtp notation; tinygtp speaks the game's default (native in
    Bricka, where the two differ): a move written the engine's way would be refused."""
    log = tmp_path / "engine.log"
    server = FakeServer(game=game, options={})
    asyncio.run(with_bridge(server, engine("tinygtp", log)))
    assert server.results[0]["reason"] == "rules", server.results
    referee, expected = new_game(game), []
    for token in server.moves:  # the server's moves, as the engine must have been told them
        move = referee.parse_move(token, "gtp")
        if referee.color_name(referee.to_move) != server.colour:
            expected.append(referee.format_move(move, referee.DEFAULT_NOTATION))
        referee.play_text(token, "gtp")
    told = [line.split()[2] for line in commands(log) if line.startswith("play")]
    # (a last move of the server that ends the game is not told)
    assert len(server.moves) > 2 and told == expected[:len(told)]
    assert len(told) >= len(expected) - 1


def test_a_token_refused_over_the_socket_stops_the_bridge() -> None:
    async def refuse(ws: ServerConnection) -> None:
        await ws.send(json.dumps({"type": "error", "message": "invalid or absent bot token"}))
        await ws.close(code=1008)

    async def main() -> None:
        async with serve(refuse, "127.0.0.1", 0) as running:
            the_bridge = Bridge(f"http://127.0.0.1:{port_of(running)}", TOKEN, ["x"],
                                Policy())
            with pytest.raises(bridge.BridgeError, match="invalid or absent bot token"):
                await asyncio.wait_for(the_bridge.run(), 30)

    asyncio.run(main())


def test_a_refused_token_stops_the_bridge() -> None:
    async def refuse(connection: ServerConnection, request: Any) -> Any:
        return connection.respond(401, "bad token\n")

    async def main() -> None:
        async with serve(lambda ws: asyncio.sleep(0), "127.0.0.1", 0,
                         process_request=refuse) as running:
            the_bridge = Bridge(f"http://127.0.0.1:{port_of(running)}", TOKEN, ["x"],
                                Policy())
            with pytest.raises(bridge.BridgeError, match="HTTP 401"):
                await asyncio.wait_for(the_bridge.run(), 30)

    asyncio.run(main())
