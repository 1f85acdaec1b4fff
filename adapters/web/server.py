"""The single-user board of ``gtpgames serve`` (Starlette), at ``/analysis``: the page, the
list of games, and one WebSocket per open page carrying its actions and the game's state
(docs/web.md). The game server (adapters/online) serves these routes beside its own.

Every page gets its own :class:`~adapters.web.room.Room` and engine process, ended when the
WebSocket closes or stays silent for ``idle`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import HTTPConnection, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketState

from adapters.web.room import Caps, Lobby, Room, side_label

STATIC = Path(__file__).parent / "static"
#: The longest message a page may send (a pasted record included), in characters.
MAX_MESSAGE = 256 * 1024


def games_list() -> list[dict[str, Any]]:
    """Every game with its options, for the page's form."""
    from engine.games.registry import GAMES, game_class

    out = []
    for name in GAMES:
        cls = game_class(name)
        options = [
            {"name": spec.name, "kind": spec.kind,
             "default": spec.format(spec.default), "help": spec.help,
             "min": spec.minimum, "max": spec.maximum, "choices": list(spec.choices)}
            for spec in cls.OPTIONS
        ]
        game = cls()
        players = [{"token": game.color_name(p), "label": side_label(game, p)}
                   for p in sorted(range(game.num_players),
                                   key=lambda p: (p - game.to_move) % game.num_players)]
        out.append({"name": name, "title": cls.title, "options": options,
                    "players": players})
    return out


def same_origin(websocket: HTTPConnection) -> bool:
    """Whether the WebSocket (or request) comes from a page of this server (a page of
    another site must not open games here): its Origin, when sent, names the host it
    connects to."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc == websocket.headers.get("host")


def analysis_routes(lobby: Lobby, idle: float) -> list[BaseRoute]:
    """The routes of the single-user board: its page ``/analysis``, ``/api/games`` and its
    WebSocket ``/ws`` (the files under ``/static`` are mounted by the app)."""

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def games(request: Request) -> Response:
        return JSONResponse({"games": games_list(),
                             "caps": {"max_games": lobby.caps.max_games,
                                      "max_think": lobby.caps.max_think}})

    async def play(websocket: WebSocket) -> None:
        if not same_origin(websocket):
            await websocket.close(code=1008)
            return
        await websocket.accept()
        lock = asyncio.Lock()

        async def send(message: dict[str, Any]) -> None:
            if websocket.application_state != WebSocketState.CONNECTED:
                return
            async with lock:
                with contextlib.suppress(Exception):
                    await websocket.send_text(json.dumps(message))

        room = Room(lobby, send)
        try:
            await room.send_state()
            while True:
                try:
                    event = await asyncio.wait_for(websocket.receive(), idle)
                except TimeoutError:
                    await send({"type": "error",
                                "message": f"closed after {idle:g} s without a message"})
                    await websocket.close(code=1000)
                    break
                if event["type"] == "websocket.disconnect":
                    break
                text = event.get("text")
                if text is None:
                    await send({"type": "error", "message": "messages are JSON text"})
                    continue
                if len(text) > MAX_MESSAGE:
                    await send({"type": "error", "message":
                                f"message too long ({len(text)} characters, at most "
                                f"{MAX_MESSAGE})"})
                    continue
                try:
                    message = json.loads(text)
                except json.JSONDecodeError as error:
                    await send({"type": "error", "message": f"not JSON: {error.msg}"})
                    continue
                await room.handle(message)
        finally:
            # shielded: a cancelled handler (server shutdown, a test client) still ends
            # the engine process
            await asyncio.shield(room.close())

    return [Route("/analysis", index), Route("/api/games", games), WebSocketRoute("/ws", play)]


async def close_rooms(lobby: Lobby) -> None:
    """End every open page's game and engine (at shutdown)."""
    await asyncio.gather(*(room.close() for room in list(lobby.rooms)))


def create_app(caps: Caps | None = None, idle: float = 1800.0) -> Starlette:
    """The single-user board alone; ``caps`` bound the open games and the thinking time,
    ``idle`` is how long a silent page keeps its game."""
    lobby = Lobby(caps or Caps())

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await close_rooms(lobby)

    app = Starlette(lifespan=lifespan, routes=[
        *analysis_routes(lobby, idle),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ])
    app.state.lobby = lobby
    return app
