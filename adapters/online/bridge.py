"""The bot bridge, ``gtpgames bot``: connects any GTP engine to the game server as a bot
account through the bot API of docs/online.md (one outgoing WebSocket to ``/api/bot``).

It takes the challenges its policy allows, plays each game with its own engine process
(:class:`adapters.web.gtp_process.GtpProcess`), set up as ``gtpgames match`` sets one up
(:func:`adapters.match.setup_commands`), tells the engine the clock (``time_settings``,
``time_left``) and relays the moves both ways, each sent with the ply it is played at. An
engine that crashes, stops answering or answers a move the rules refuse loses that game by
forfeit, with the reason (a move the server refuses is sent again a few times first: it
refuses a move it could not store); the bridge goes on with its other games. After a
dropped connection it reconnects with a growing pause (the ``websockets`` client's backoff)
and the server sends ``game_start`` again for each game in progress: a new engine is given
the moves so far. Logs go to stderr, one line per event.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import shutil
import signal
from collections.abc import Mapping, Sequence
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from adapters.match import setup_commands
from adapters.online.client import websocket_url
from adapters.web.gtp_process import EngineGone, GtpProcess
from engine.games.core import Game, GameError
from engine.games.notation import Notation
from engine.games.registry import new_game

log = logging.getLogger("gtpgames.bot")

#: Seconds an engine may take to start and to answer a command other than ``genmove``.
COMMAND_TIMEOUT = 60.0
#: Seconds past the engine's clock that a ``genmove`` may take before the engine counts as
#: hung (the server's own clock usually ends the game first).
GENMOVE_GRACE = 5.0
#: The pauses before sending again a move the server refused (it refuses a legal move it
#: could not store, as while its database restarts); then the engine forfeits.
MOVE_RETRY_DELAYS = (0.5, 1.0, 2.0, 4.0, 8.0)
#: Bytes of one message from the server (a long game's record is the largest).
MAX_MESSAGE = 2**22
#: The notation of the moves the server sends and takes (the engine speaks its game's
#: default, native in Bricka: the bridge translates).
SERVER_NOTATION: Notation = "gtp"


class Forfeit(Exception):
    """The engine lost the game by misbehaving; the text is the reason sent to the server."""


class BridgeError(RuntimeError):
    """The bridge cannot go on (the server refused the token, the engine cannot be found)."""


@dataclasses.dataclass(frozen=True)
class Policy:
    """Which challenges the bridge takes: the games (None: all), ``any``, ``rated`` or
    ``from:NAME``, and how many games it plays at once."""

    games: frozenset[str] | None = None
    accept: str = "any"
    max_games: int = 4

    @classmethod
    def parse(cls, games: str | None, accept: str, max_games: int) -> Policy:
        """The policy of the command line (ValueError naming a bad value)."""
        from engine.games.registry import game_class

        chosen = None
        if games is not None:
            names = [name.strip().lower() for name in games.split(",") if name.strip()]
            if not names:
                raise ValueError(f"--games expects game names separated by commas, "
                                 f"got {games!r}")
            for name in names:
                game_class(name)  # GameError (a ValueError) naming an unknown game
            chosen = frozenset(names)
        if accept not in ("any", "rated") and not (
            accept.startswith("from:") and accept[5:].strip()
        ):
            raise ValueError(f"--accept expects any, rated or from:NAME, got {accept!r}")
        if max_games < 1:
            raise ValueError(f"--max-games must be at least 1, got {max_games}")
        return cls(chosen, accept, max_games)

    def refusal(self, challenge: Mapping[str, Any], playing: int) -> str | None:
        """Why ``challenge`` is declined, or None to accept it."""
        game = str(challenge.get("game", ""))
        if self.games is not None and game not in self.games:
            return f"this bot plays {', '.join(sorted(self.games))}, not {game}"
        if self.accept == "rated" and not challenge.get("rated"):
            return "this bot takes rated games only"
        if self.accept.startswith("from:") and challenge.get("from") != self.accept[5:]:
            return f"this bot takes challenges from {self.accept[5:]} only"
        if playing >= self.max_games:
            return f"this bot is busy ({playing} games)"
        try:
            referee = new_game(game, **dict(challenge.get("options") or {}))
        except (GameError, ValueError, TypeError) as error:
            return f"this bot cannot play it: {error}"
        if referee.num_players != 2:
            return "this bot plays two-player games only"
        return None


def engine_command(command: Sequence[str], game: str) -> list[str]:
    """The engine's command line for a game of ``game``: every ``{game}`` replaced."""
    return [word.replace("{game}", game) for word in command]


def check_engine(command: Sequence[str]) -> None:
    """BridgeError when the engine's program cannot be found (before connecting)."""
    if not command:
        raise BridgeError("no engine command: give it after --")
    program = engine_command(command, "brique")[0]
    if shutil.which(program) is None:
        raise BridgeError(f"engine {program!r} not found")


class Engine:
    """One engine process, set up for one game, with our own copy of the game (the
    referee) to name the colours, check the engine's moves and write them as the server
    reads them."""

    def __init__(self, proc: GtpProcess, referee: Game[Any]) -> None:
        self.proc = proc
        self.referee = referee
        #: The moves the engine has been given or has played, as the server writes them.
        self.moves: list[str] = []
        self.knows_time_left = False

    @classmethod
    async def start(
        cls, command: Sequence[str], game: str, options: Mapping[str, str], initial: int
    ) -> Engine:
        """Start the engine and set it up (Forfeit when it fails to)."""
        referee = new_game(game, **dict(options))
        args = engine_command(command, game)
        try:
            process = await asyncio.create_subprocess_exec(
                *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL)
        except OSError as error:
            raise Forfeit(f"the engine could not start: {error}") from None
        engine = cls(GtpProcess(process), referee)
        try:
            listed = set((await engine.must("list_commands")).split())
            for line in setup_commands(referee, options, listed.__contains__):
                await engine.must(line)
            if "time_settings" in listed:
                await engine.must(f"time_settings {initial} 0 0")
        except BaseException:
            await engine.close()
            raise
        engine.knows_time_left = "time_left" in listed
        return engine

    async def call(self, line: str, timeout: float = COMMAND_TIMEOUT) -> tuple[bool, str]:
        """One command and its response; Forfeit when the engine ends or is silent."""
        try:
            return await asyncio.wait_for(self.proc.command(line), timeout)
        except EngineGone:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.proc.proc.wait(), 1.0)
            code = self.proc.proc.returncode
            status = "" if code is None else f" (exit status {code})"
            raise Forfeit(f"the engine ended{status} during {line.split()[0]}") from None
        except TimeoutError:
            raise Forfeit(f"the engine did not answer {line.split()[0]} "
                          f"within {timeout:g} s") from None

    async def must(self, line: str) -> str:
        ok, text = await self.call(line)
        if not ok:
            raise Forfeit(f"the engine failed {line!r}: {text}")
        return text

    def colour(self) -> str:
        return self.referee.color_name(self.referee.to_move)

    async def replay(self, moves: Sequence[str]) -> None:
        """Give the engine the moves it has not seen (``play COLOUR MOVE``)."""
        for token in moves[len(self.moves):]:
            colour = self.colour()
            try:
                move = self.referee.parse_move(token, SERVER_NOTATION)
                self.referee.check_move(move, SERVER_NOTATION)
            except GameError as error:
                raise Forfeit(f"the server's move {token!r} is illegal here: {error}") from None
            said = self.referee.format_move(move, self.referee.DEFAULT_NOTATION)
            self.referee.play(move)
            await self.must(f"play {colour} {said}")
            self.moves.append(token)

    async def genmove(self, seconds_left: float) -> str | None:
        """The engine's move (as the server writes it; None: it resigns), after telling it
        the time left; Forfeit for a crash, a hang past the clock or an illegal move."""
        colour = self.colour()
        if self.knows_time_left:
            await self.must(f"time_left {colour} {max(0, int(seconds_left))} 0")
        ok, text = await self.call(f"genmove {colour}", seconds_left + GENMOVE_GRACE)
        if not ok:
            raise Forfeit(f"the engine failed genmove: {text}")
        words = text.split()
        if not words:
            raise Forfeit("the engine answered genmove with no move")
        if words[0].lower() == "resign":
            return None
        try:
            move = self.referee.parse_move(words[0], self.referee.DEFAULT_NOTATION)
            self.referee.check_move(move, self.referee.DEFAULT_NOTATION)
            token = self.referee.format_move(move, SERVER_NOTATION)
            self.referee.play(move)
        except GameError as error:
            raise Forfeit(f"the engine played {words[0]!r}: {error}") from None
        self.moves.append(token)
        return token

    async def close(self, timeout: float = 2.0) -> None:
        """Say quit; kill the engine if it has not ended in ``timeout`` seconds."""
        with contextlib.suppress(Exception):
            await self.proc.close(timeout)


class GameRunner:
    """One game in progress: its engine and the records the server sends, handled in order
    by one task."""

    def __init__(self, bridge: Bridge, record: Mapping[str, Any], colour: str) -> None:
        self.bridge = bridge
        self.id = int(record["id"])
        self.colour = colour
        self.engine: Engine | None = None
        #: Our last move and the ply it was sent at, until the server's answer.
        self.pending: tuple[int, str] | None = None
        self.retries = 0
        self.closing = False
        self.inbox: asyncio.Queue[Mapping[str, Any] | str] = asyncio.Queue()
        self.inbox.put_nowait(record)
        self.task = asyncio.create_task(self.run(), name=f"game {self.id}")
        bridge.tasks.add(self.task)
        self.task.add_done_callback(bridge.tasks.discard)

    def update(self, record: Mapping[str, Any]) -> None:
        self.inbox.put_nowait(record)

    def refused(self, message: str) -> bool:
        """The server refused a message about this game: if it was our move, it is sent
        again after a pause, and after :data:`MOVE_RETRY_DELAYS` the engine forfeits."""
        if self.pending is None:
            return False
        self.inbox.put_nowait(message)
        return True

    async def stop(self) -> None:
        """End the game's task and its engine."""
        if not self.closing:  # (an engine being closed is left to end)
            self.task.cancel()
        await asyncio.wait([self.task])  # (a cancellation of the caller goes through)

    async def run(self) -> None:
        patience = 2.0
        try:
            while True:
                item = await self.inbox.get()
                if isinstance(item, str):
                    await self.retry(item)
                else:
                    await self.handle(item)
        except Forfeit as forfeit:
            patience = 0.2  # a misbehaving engine is not waited for
            reason = str(forfeit)
            log.info("game %d: forfeit: %s", self.id, reason)
            await self.bridge.send({"type": "resign", "game": self.id, "reason": reason})
            self.pending = None
        finally:
            self.closing = True
            if self.engine is not None:
                await self.engine.close(patience)
                self.engine = None

    async def retry(self, message: str) -> None:
        """Send our refused move again after a pause (Forfeit when it was refused too often);
        the records that came meanwhile are handled first."""
        if self.pending is None:
            return
        if self.retries >= len(MOVE_RETRY_DELAYS):
            raise Forfeit(f"the server refused the engine's move: {message}")
        delay = MOVE_RETRY_DELAYS[self.retries]
        self.retries += 1
        log.info("game %d: the server refused %s (%s); sending it again in %g s", self.id,
                 self.pending[1], message, delay)
        await asyncio.sleep(delay)
        while not self.inbox.empty():
            item = self.inbox.get_nowait()
            if not isinstance(item, str):
                await self.handle(item)
        if self.pending is not None:
            ply, move = self.pending
            await self.bridge.send({"type": "move", "game": self.id, "ply": ply,
                                    "move": move})

    async def handle(self, record: Mapping[str, Any]) -> None:
        if record.get("status") != "playing":
            return
        moves = [str(entry["move"]) for entry in record.get("moves", [])]
        ply = int(record.get("ply", len(moves)))
        if self.pending is not None:
            if ply <= self.pending[0]:
                return  # our move is not answered yet
            self.pending, self.retries = None, 0
        if self.engine is None or moves[:len(self.engine.moves)] != self.engine.moves:
            if self.engine is not None:
                log.info("game %d: the moves differ from the engine's; restarting it", self.id)
                await self.engine.close()
            time = record.get("time", {})
            self.engine = None
            self.engine = await Engine.start(
                self.bridge.command, str(record["game"]),
                {str(k): str(v) for k, v in dict(record.get("options") or {}).items()},
                int(time.get("initial", 0)))
        await self.engine.replay(moves)
        if record.get("to_move") != self.colour or self.pending is not None:
            return
        clock_ms = float(dict(record.get("clocks") or {}).get(self.colour, 0))
        move = await self.engine.genmove(clock_ms / 1000)
        if move is None:
            log.info("game %d: the engine resigns", self.id)
            await self.bridge.send({"type": "resign", "game": self.id})
            return
        self.pending = (ply, move)
        await self.bridge.send({"type": "move", "game": self.id, "ply": ply, "move": move})


class Bridge:
    """The bridge: one connection at a time, its games, the policy and the engine command."""

    def __init__(self, server: str, token: str, command: Sequence[str], policy: Policy) -> None:
        self.url = websocket_url(server, "/api/bot")
        self.token = token
        self.command = list(command)
        self.policy = policy
        self.games: dict[int, GameRunner] = {}
        #: The games' tasks, until they have closed their engines.
        self.tasks: set[asyncio.Task[None]] = set()
        self.account: str | None = None
        self.ws: ClientConnection | None = None

    async def send(self, message: Mapping[str, Any]) -> None:
        """Send one message; a dropped connection is left to the reader to notice (the game
        goes on from ``game_start`` after reconnecting)."""
        if self.ws is None:
            return
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(json.dumps(message))

    async def run(self) -> None:
        """Connect, play, reconnect; return only by cancellation. BridgeError when the server
        refuses the token."""
        headers = {"Authorization": f"Bearer {self.token}"}
        try:
            async for ws in connect(self.url, additional_headers=headers,
                                    max_size=MAX_MESSAGE, open_timeout=20):
                self.ws = ws
                try:
                    await self.session(ws)
                except ConnectionClosed as closed:
                    log.info("connection lost (%s); reconnecting", closed)
                finally:
                    self.ws = None
                    await self.stop_games()
        except InvalidStatus as error:
            status = error.response.status_code
            raise BridgeError(f"the server refused the connection (HTTP {status}): "
                              f"{error.response.body.decode('utf-8', 'replace')[:200]}"
                              ) from None
        finally:
            await self.stop_games()
            if self.tasks:  # the engines of games that ended are closing
                await asyncio.wait(self.tasks)

    async def stop_games(self) -> None:
        games, self.games = list(self.games.values()), {}
        for runner in games:
            await runner.stop()

    async def session(self, ws: ClientConnection) -> None:
        """Read the server's messages until the connection closes. BridgeError when the
        server refuses the token (an ``error``, then the socket closed with 1008)."""
        self.account = None
        refusal = ""
        try:
            async for raw in ws:
                try:
                    message = json.loads(raw)
                    kind = message["type"]
                except (ValueError, KeyError, TypeError):
                    log.info("unreadable message from the server: %.200r", raw)
                    continue
                if kind == "error" and self.account is None:
                    refusal = str(message.get("message", ""))
                try:
                    await self.dispatch(kind, message)
                except (KeyError, TypeError, ValueError, AttributeError) as error:
                    log.info("malformed %r message from the server (%r): %.200r", kind,
                             error, raw)
        finally:
            if self.account is None and ws.close_code == 1008:
                raise BridgeError("the server refused the connection: "
                                  f"{refusal or ws.close_reason}")

    async def dispatch(self, kind: str, message: dict[str, Any]) -> None:
        if kind == "hello":
            self.account = message.get("account")
            log.info("connected to %s as %s", self.url, self.account)
        elif kind == "challenge":
            await self.on_challenge(message["challenge"])
        elif kind == "game_start":
            record, colour = message["game"], message["color"]
            old = self.games.pop(int(record["id"]), None)
            if old is not None:
                await old.stop()
            players = record.get("players", {})
            others = [name for side, name in players.items() if side != colour]
            log.info("game %s: %s %s as %s against %s (ply %s)", record["id"],
                     "resumes" if record.get("moves") else "starts", record.get("game"),
                     colour, ", ".join(others), record.get("ply", 0))
            self.games[int(record["id"])] = GameRunner(self, record, colour)
        elif kind == "game_state":
            record = message["game"]
            runner = self.games.get(int(record["id"]))
            if runner is not None:
                runner.update(record)
        elif kind == "game_end":
            record = message["game"]
            runner = self.games.pop(int(record["id"]), None)
            if runner is not None:
                await runner.stop()
            result = record.get("result") or {}
            log.info("game %s: over: %s", record["id"],
                     result.get("text") or f"{result.get('winner')} ({result.get('reason')})")
        elif kind == "error":
            text = str(message.get("message", ""))
            game = message.get("game")
            runner = self.games.get(int(game)) if isinstance(game, int) else None
            if runner is None or not runner.refused(text):
                log.info("server error: %s", text)
        elif kind != "pong":
            log.info("unknown message %r from the server", kind)

    async def on_challenge(self, challenge: Mapping[str, Any]) -> None:
        ident = challenge.get("id")
        if challenge.get("from") == self.account:
            return  # our own challenge (made with this bot's token), for another player
        reason = self.policy.refusal(challenge, len(self.games))
        if reason is None:
            log.info("challenge %s from %s: %s, accepted", ident, challenge.get("from"),
                     challenge.get("game"))
            await self.send({"type": "accept", "challenge": ident})
        else:
            log.info("challenge %s from %s: declined: %s", ident, challenge.get("from"), reason)
            await self.send({"type": "decline", "challenge": ident, "reason": reason})


def run(server: str, token: str, command: Sequence[str], policy: Policy) -> None:
    """Run the bridge until SIGINT or SIGTERM (BridgeError when it cannot go on)."""
    logging.basicConfig(format="%(asctime)s %(name)s: %(message)s", level=logging.INFO)
    logging.getLogger("websockets").setLevel(logging.WARNING)
    check_engine(command)
    bridge = Bridge(server, token, command, policy)

    async def main() -> None:
        task = asyncio.create_task(bridge.run())
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, task.cancel)
        with contextlib.suppress(asyncio.CancelledError):
            await task
        log.info("stopped")

    asyncio.run(main())
