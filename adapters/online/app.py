"""The ASGI app of ``gtpgames serve`` (Starlette): the game site's pages, its HTTP API, the
bot WebSocket ``/api/bot`` and the live WebSocket of each game (docs/online.md), beside the
single-user board of docs/web.md at ``/analysis``.

Every request and message is checked here (size, JSON, fields, token, rate); a refusal
answers ``{"error": message}`` with a 4xx status (``error`` on a WebSocket) and is logged on
stderr naming the account, the game and the reason. Blocking database calls run on the
store's thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from adapters.online import accounts
from adapters.online.accounts import AccountError, Throttle
from adapters.online.play import (
    Clock,
    Conn,
    Hub,
    Limits,
    Refused,
    check_option_values,
    normal_options,
    replay,
    stored_record,
    summary,
)
from adapters.online.store import SESSION_DAYS, Account, Store, Taken
from adapters.render import render_svg
from adapters.render.draw import player_word
from adapters.web.clicks import NOTATION, clicks_for
from adapters.web.room import Caps, Lobby
from adapters.web.server import MAX_MESSAGE, STATIC, analysis_routes, close_rooms, same_origin
from engine.games.core import Game

log = logging.getLogger("gtpgames.online")

COOKIE = "gtpgames_session"
COOKIE_AGE = SESSION_DAYS * 24 * 3600
PROTOCOL = 1
ONLINE = STATIC / "online"


class RateLimit:
    """A token bucket: ``rate`` messages a second, bursts of twice that."""

    def __init__(self, rate: float, clock: Clock) -> None:
        self.rate, self.clock = rate, clock
        self.capacity = 2 * rate
        self.tokens = self.capacity
        self.last = clock()

    def allow(self) -> bool:
        now = self.clock()
        self.tokens = min(self.capacity, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Outbox:
    """The messages to one WebSocket, written in order by a task of their own, so that a
    client that does not read holds up no one: with ``limit`` messages waiting, it is
    disconnected."""

    def __init__(self, websocket: WebSocket, limit: int = 256) -> None:
        self.websocket, self.limit = websocket, limit
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.broken = False
        self.task = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        while (message := await self.queue.get()) is not None:
            try:
                await self.websocket.send_text(message)
            except Exception:
                self.broken = True
                return

    async def send(self, message: dict[str, Any]) -> None:
        if self.broken or self.websocket.application_state != WebSocketState.CONNECTED:
            return
        if self.queue.qsize() >= self.limit:
            self.broken = True
            self.task.cancel()
            log.warning("closed a connection that does not read its messages")
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.websocket.close(code=1008), 1.0)
            return
        self.queue.put_nowait(json.dumps(message))

    async def close(self, code: int | None = None) -> None:
        """Write what is waiting (for a few seconds at most), then close with ``code``."""
        self.queue.put_nowait(None)
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self.task), 5.0)
        self.task.cancel()
        if code is not None:
            with contextlib.suppress(Exception):
                await self.websocket.close(code=code)


def fields(message: object, required: tuple[str, ...], optional: tuple[str, ...] = ()
           ) -> dict[str, Any]:
    """``message`` as an object with the ``required`` keys and no keys beyond
    ``optional`` (Refused naming the missing or unknown one)."""
    if not isinstance(message, dict):
        raise Refused("expected a JSON object")
    unknown = sorted(set(message) - set(required) - set(optional))
    if unknown:
        raise Refused(f"unknown field {unknown[0]!r}")
    missing = [key for key in required if key not in message]
    if missing:
        raise Refused(f"missing field {missing[0]!r}")
    return message


def whole(value: object, name: str, low: int = 0, high: int = 2**31 - 1) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise Refused(f"{name}: expected a whole number from {low} to {high}")
    return value


def text(value: object, name: str, high: int = 200) -> str:
    if not isinstance(value, str) or len(value) > high:
        raise Refused(f"{name}: expected text of at most {high} characters")
    return value


def create_app(db: str | Store, limits: Limits | None = None,
               clock: Clock = time.monotonic, secure_cookies: bool = False,
               caps: Caps | None = None, idle: float = 1800.0, login_delay: float = 1.0,
               rng: random.Random | None = None) -> Starlette:
    """The server's app on the database ``db`` (an address, opened and migrated now, or an
    open :class:`Store`). ``clock`` is the monotonic time in seconds of the game clocks, the
    throttle and the rate limits; ``login_delay`` the pause after a wrong password."""
    limits = limits or Limits()
    store = db if isinstance(db, Store) else Store(db)
    hub = Hub(store, limits, clock, rng)
    throttle = Throttle(clock)
    lobby = Lobby(caps or Caps())

    # ------------------------------------------------------------------ helpers

    async def read_json(request: Request) -> object:
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limits.max_message:
            raise Refused(f"request body too long (at most {limits.max_message} bytes)", 413)
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > limits.max_message:
                raise Refused(f"request body too long (at most {limits.max_message} bytes)",
                              413)
        if not body.strip():
            return {}
        try:
            return json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise Refused(f"not JSON: {error}") from None

    async def token_account(token: str, kinds: tuple[str, ...]) -> Account | None:
        if not token or len(token) > 200:
            return None
        found = await store.read(store.token_account, accounts.digest(token), kinds)
        if found is None or not accounts.same_digest(found[0], token):
            return None
        return found[1]

    def bearer(connection: HTTPConnection) -> str | None:
        header = connection.headers.get("authorization")
        if header is None:
            return None
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Refused("Authorization: expected Bearer TOKEN", 401)
        return token.strip()

    async def who(connection: HTTPConnection, required: bool = True) -> Account | None:
        """The account a request acts for: its bearer token, else its sign-in cookie (a
        cookie-signed request that changes anything must come from this site's pages)."""
        token = bearer(connection)
        if token is not None:
            account = await token_account(token, ("bot", "api"))
            if account is None:
                raise Refused("invalid token", 401)
        else:
            cookie = connection.cookies.get(COOKIE)
            account = None if cookie is None else await token_account(cookie, ("session",))
            if account is not None and connection.scope.get("method", "GET") != "GET" \
                    and not same_origin(connection):
                raise Refused("a request from another site", 403)
        if account is None and required:
            raise Refused("sign in, or send Authorization: Bearer TOKEN", 401)
        connection.state.account = account
        return account

    def answer(data: object, status: int = 200) -> JSONResponse:
        return JSONResponse(data, status_code=status)

    def signed_in(account: Account, token: str) -> JSONResponse:
        response = answer({"name": account.name})
        response.set_cookie(COOKIE, token, max_age=COOKIE_AGE, httponly=True,
                            samesite="strict", secure=secure_cookies, path="/")
        return response

    def path_id(request: Request) -> int:
        value: int = request.path_params["id"]
        return value

    # ------------------------------------------------------------------ pages

    def page(name: str) -> Callable[[Request], Any]:
        async def serve_page(request: Request) -> Response:
            path = ONLINE / name
            if not path.is_file():
                raise Refused(f"the site's page {name} is not installed", 404)
            return FileResponse(path)
        return serve_page

    # ------------------------------------------------------------------ accounts

    async def signup(request: Request) -> Response:
        body = fields(await read_json(request), ("name", "password"))
        try:
            name = accounts.check_name(body["name"])
            password = accounts.check_password(body["password"])
        except AccountError as error:
            raise Refused(str(error)) from None
        hashed = await asyncio.to_thread(accounts.hash_password, password)
        try:
            account = await store.run(store.create_account, name, "person", hashed)
        except Taken:
            raise Refused(f"the name {name} is taken", 409) from None
        token = accounts.new_token()
        await store.run(store.add_token, account.id, "session", accounts.digest(token), False)
        log.info("account %s signed up", name)
        return signed_in(account, token)

    async def login(request: Request) -> Response:
        body = fields(await read_json(request), ("name", "password"))
        name, password = body["name"], body["password"]
        if not isinstance(name, str) or not isinstance(password, str) \
                or len(name) > 20 or len(password) > accounts.MAX_PASSWORD:
            raise Refused("wrong name or password", 401)
        if throttle.locked(name):
            raise Refused(f"too many wrong passwords for {name}: try again in a minute", 429)
        account = await store.read(store.account, name)
        ok = account is not None and account.kind == "person" and await asyncio.to_thread(
            accounts.verify_password, account.password_hash, password)
        if not ok or account is None:
            throttle.failed(name)
            await asyncio.sleep(login_delay)
            raise Refused("wrong name or password", 401)
        token = accounts.new_token()
        await store.run(store.add_token, account.id, "session", accounts.digest(token), False)
        return signed_in(account, token)

    async def logout(request: Request) -> Response:
        fields(await read_json(request), ())
        cookie = request.cookies.get(COOKIE)
        if cookie is not None:
            if not same_origin(request):
                raise Refused("a request from another site", 403)
            await store.run(store.drop_token, accounts.digest(cookie))
        response = answer({})
        response.delete_cookie(COOKIE, path="/")
        return response

    async def account_info(request: Request) -> Response:
        account = await who(request)
        assert account is not None
        return answer({"name": account.name, "kind": account.kind})

    async def api_token(request: Request) -> Response:
        account = await who(request)
        assert account is not None
        fields(await read_json(request), ())
        if account.kind != "person":
            raise Refused("a bot's token is made by the server's operator (add-bot)", 403)
        token = accounts.new_token()
        await store.run(store.add_token, account.id, "api", accounts.digest(token), True)
        return answer({"token": token})

    # ------------------------------------------------------------------ lobby, players

    async def ratings_json(account_id: int) -> dict[str, Any]:
        return {game: rating.as_json()
                for game, rating in (await store.read(store.ratings, account_id)).items()}

    async def lobby_info(request: Request) -> Response:
        challenges = await store.read(store.open_challenges)
        finished = await store.read(store.games, "finished")
        bots = [{"name": bot.name, "online": hub.online(bot.id),
                 "ratings": {game: r.as_json() for game, r in ratings.items()}}
                for bot, ratings in await store.read(store.bots)]
        now = clock()
        return answer({
            "challenges": [c.as_json() for c in challenges],
            "playing": [summary(g.record(now)) for g in sorted(hub.games.values(),
                                                               key=lambda g: -g.id)],
            "finished": [summary(stored_record(g)) for g in finished],
            "bots": bots,
        })

    async def player(request: Request) -> Response:
        name = request.path_params["name"]
        account = await store.read(store.account, name) if len(name) <= 20 else None
        if account is None:
            raise Refused(f"no player {name}", 404)
        games = []
        now = clock()
        for stored in await store.read(store.games, "", account.id):
            live = hub.live(stored.id)
            games.append(summary(live.record(now) if live is not None
                                 else stored_record(stored)))
        return answer({"name": account.name, "kind": account.kind,
                       "online": hub.online(account.id),
                       "ratings": await ratings_json(account.id), "games": games})

    # ------------------------------------------------------------------ challenges

    async def new_challenge(request: Request) -> Response:
        account = await who(request)
        assert account is not None
        body = fields(await read_json(request), ("game",),
                      ("options", "color", "time", "opponent", "rated"))
        game = text(body["game"], "game", 20).lower()
        options = normal_options(game, check_option_values(body.get("options")))
        color = body.get("color", "random")
        if color not in ("b", "w", "random"):
            raise Refused("color: expected b, w or random")
        clock_spec = fields(body.get("time", {"initial": 300, "increment": 0}),
                            ("initial",), ("increment",))
        initial = whole(clock_spec["initial"], "time.initial", 1, 604800)
        increment = whole(clock_spec.get("increment", 0), "time.increment", 0, 3600)
        rated = body.get("rated", False)
        if not isinstance(rated, bool):
            raise Refused("rated: expected true or false")
        opponent_id = None
        if body.get("opponent") is not None:
            name = text(body["opponent"], "opponent", 20)
            opponent = await store.read(store.account, name)
            if opponent is None:
                raise Refused(f"no player {name}", 404)
            if opponent.id == account.id:
                raise Refused("a challenge to oneself")
            opponent_id = opponent.id
        challenge = await store.run(store.create_challenge, account.id, opponent_id, game,
                                    options, color, initial, increment, rated,
                                    limits.max_challenges)
        if challenge is None:
            raise Refused(f"{account.name} has {limits.max_challenges} open challenges "
                          "already (the limit)", 429)
        await hub.announce_challenge(challenge)
        return answer(challenge.as_json())

    async def get_challenge(request: Request) -> Response:
        challenge = await store.read(store.challenge, path_id(request))
        if challenge is None:
            raise Refused(f"no challenge {path_id(request)}", 404)
        return answer(challenge.as_json())

    async def accept(request: Request) -> Response:
        account = await who(request)
        assert account is not None
        fields(await read_json(request), ())
        game = await hub.accept(account, path_id(request))
        return answer({"game": game.id})

    async def decline_challenge(account: Account, challenge_id: int) -> None:
        challenge = await store.run(store.challenge, challenge_id)
        if challenge is None:
            raise Refused(f"no challenge {challenge_id}", 404)
        if challenge.status != "open":
            raise Refused(f"challenge {challenge_id} is {challenge.status}", 409)
        if challenge.opponent_id is None and challenge.author_id != account.id:
            return  # an open challenge stays open for the others
        if challenge.opponent_id != account.id:
            raise Refused(f"challenge {challenge_id} is not for {account.name}", 403)
        await store.run(store.set_challenge_status, challenge_id, "declined")

    async def decline(request: Request) -> Response:
        account = await who(request)
        assert account is not None
        body = fields(await read_json(request), (), ("reason",))
        text(body.get("reason", ""), "reason")
        await decline_challenge(account, path_id(request))
        return answer({})

    async def withdraw(request: Request) -> Response:
        account = await who(request)
        assert account is not None
        challenge = await store.run(store.challenge, path_id(request))
        if challenge is None:
            raise Refused(f"no challenge {path_id(request)}", 404)
        if challenge.author_id != account.id:
            raise Refused(f"challenge {challenge.id} is not {account.name}'s", 403)
        if not await store.run(store.set_challenge_status, challenge.id, "withdrawn"):
            raise Refused(f"challenge {challenge.id} is {challenge.status}", 409)
        return answer({})

    # ------------------------------------------------------------------ games

    async def game_record(request: Request) -> Response:
        record = await hub.record(path_id(request))
        if record is None:
            raise Refused(f"no game {path_id(request)}", 404)
        return answer(record)

    async def game_svg(request: Request) -> Response:
        game_id = path_id(request)
        record = await hub.record(game_id)
        if record is None:
            raise Refused(f"no game {game_id}", 404)
        moves = [m["move"] for m in record["moves"]]
        ply_text = request.query_params.get("ply")
        ply = len(moves)
        if ply_text is not None:
            if not ply_text.isdigit() or int(ply_text) > len(moves):
                raise Refused(f"ply: expected 0 to {len(moves)}")
            ply = int(ply_text)
        result = record["result"] if ply == len(moves) else None
        svg = await asyncio.to_thread(
            lambda: picture(replay(record["game"], record["options"], moves[:ply]), result))
        return Response(svg, media_type="image/svg+xml")

    async def move(request: Request) -> Response:
        account = await who(request)
        assert account is not None
        body = fields(await read_json(request), ("ply", "move"))
        return answer(await hub.move(account, path_id(request), body["ply"], body["move"]))

    async def clicks(request: Request) -> Response:
        body = fields(await read_json(request), ("pending",), ("click", "confirm"))
        pending = body["pending"]
        if not isinstance(pending, list) or len(pending) > 20 or not all(
                isinstance(p, str) and 0 < len(p) <= 20 for p in pending):
            raise Refused("pending: expected the list of clicks so far")
        game = hub.live(path_id(request))
        if game is None:
            raise Refused(f"game {path_id(request)} is not in progress", 409)
        chooser = clicks_for(game.core)
        if body.get("confirm") is True:
            step = chooser.confirm(pending)
        elif "click" in body:
            step = chooser.click(pending, text(body["click"], "click", 20))
        else:
            raise Refused("expected click, or confirm: true")
        if step.error is not None:
            raise Refused(step.error)
        if step.move is not None:
            return answer({"move": step.move})
        return answer({"pending": step.pending, "hint": step.hint})

    async def resign(request: Request) -> Response:
        account = await who(request)
        assert account is not None
        body = fields(await read_json(request), (), ("reason",))
        reason = text(body.get("reason") or "", "reason") or None
        return answer(await hub.resign(account, path_id(request), reason))

    # ------------------------------------------------------------------ WebSockets

    async def messages(websocket: WebSocket, conn: Conn, where: str) -> AsyncIterator[object]:
        """The messages of a WebSocket, each checked for size, JSON and rate (a refused one
        is answered with ``error`` and skipped)."""
        bucket = RateLimit(limits.rate, clock)
        while True:
            event = await websocket.receive()
            if event["type"] == "websocket.disconnect":
                return
            raw = event.get("text")
            if raw is None:
                raw_bytes = event.get("bytes") or b""
                refusal = "messages are JSON text"
            else:
                raw_bytes = raw.encode()
                refusal = ""
            allowed = bucket.allow()
            if len(raw_bytes) > limits.max_message:
                refusal = f"message too long (at most {limits.max_message} bytes)"
            message: object = None
            if not refusal and raw is not None:
                try:
                    message = json.loads(raw)
                except json.JSONDecodeError as error:
                    refusal = f"not JSON: {error.msg}"
                else:
                    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
                        refusal = "expected a JSON object with a type"
            if not refusal and not allowed:
                refusal = f"more than {limits.rate:g} messages a second"
            if refusal:
                who_ = conn.account.name if conn.account else "a watcher"
                log.warning("refused %s on %s: %s", who_, where, refusal)
                error_message: dict[str, Any] = {"type": "error", "message": refusal}
                game = message.get("game") if isinstance(message, dict) else None
                if isinstance(game, int) and not isinstance(game, bool):
                    error_message["game"] = game  # so that a bot can send its move again
                await conn.send(error_message)
                continue
            yield message

    async def bot_socket(websocket: WebSocket) -> None:
        await websocket.accept()
        outbox = Outbox(websocket)
        send = outbox.send
        try:
            token = bearer(websocket)
            account = None if token is None else await token_account(token, ("bot",))
        except Refused:
            account = None
        if account is None:
            log.warning("refused a bot connection: invalid or absent token")
            await send({"type": "error", "message": "invalid or absent bot token "
                        "(Authorization: Bearer TOKEN)"})
            await outbox.close(1008)
            return
        conn = Conn(account, send)
        await send({"type": "hello", "account": account.name, "protocol": PROTOCOL})
        await hub.bot_connected(conn)
        try:
            async for message in messages(websocket, conn, "/api/bot"):
                assert isinstance(message, dict)
                try:
                    await bot_message(conn, account, message)
                except Refused as refusal:
                    reply: dict[str, Any] = {"type": "error", "message": refusal.message}
                    for key in ("game", "challenge"):
                        if isinstance(message.get(key), int):
                            reply[key] = message[key]
                    log.warning("refused %s: %s %s: %s", account.name,
                                message.get("type"), {k: v for k, v in reply.items()
                                                      if k in ("game", "challenge")},
                                refusal.message)
                    await send(reply)
                except Exception:  # a fault of the server: said, logged, and the socket lives
                    log.exception("internal error on a message of %s: %.200s", account.name,
                                  message)
                    await send({"type": "error", "message": "internal error"})
        except WebSocketDisconnect:
            pass
        finally:
            hub.bot_gone(conn)
            await outbox.close()

    async def bot_message(conn: Conn, account: Account, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "ping":
            fields(message, ("type",))
            await conn.send({"type": "pong"})
        elif kind == "accept":
            body = fields(message, ("type", "challenge"))
            await hub.accept(account, whole(body["challenge"], "challenge"))
        elif kind == "decline":
            body = fields(message, ("type", "challenge"), ("reason",))
            text(body.get("reason", ""), "reason")
            await decline_challenge(account, whole(body["challenge"], "challenge"))
        elif kind == "move":
            body = fields(message, ("type", "game", "ply", "move"))
            await hub.move(account, whole(body["game"], "game"), body["ply"], body["move"])
        elif kind == "resign":
            body = fields(message, ("type", "game"), ("reason",))
            reason = text(body.get("reason") or "", "reason") or None
            await hub.resign(account, whole(body["game"], "game"), reason)
        else:
            raise Refused(f"unknown message type {kind[:40]!r}")

    async def live_socket(websocket: WebSocket) -> None:
        await websocket.accept()
        outbox = Outbox(websocket)
        send = outbox.send
        game_id: int = websocket.path_params["id"]
        record = await hub.record(game_id)
        if record is None:
            await send({"type": "error", "message": f"no game {game_id}"})
            await outbox.close(1008)
            return
        conn = Conn(None, send)
        hub.watchers.setdefault(game_id, set()).add(conn)
        try:
            await send({"type": "game", "game": record})
            async for message in messages(websocket, conn, f"game {game_id}"):
                assert isinstance(message, dict)
                if message.get("type") == "ping" and set(message) == {"type"}:
                    await send({"type": "pong"})
                else:
                    await send({"type": "error", "message": "this socket only watches "
                                "(moves go by POST /api/game/ID/move); ping is answered"})
        except WebSocketDisconnect:
            pass
        finally:
            watchers = hub.watchers.get(game_id, set())
            watchers.discard(conn)
            if not watchers:
                hub.watchers.pop(game_id, None)
            await outbox.close()

    # ------------------------------------------------------------------ errors

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, Refused)
        account = getattr(request.state, "account", None)
        log.warning("refused %s %s %s: %s", account.name if account else "(no account)",
                    request.method, request.url.path, exc.message)
        return answer({"error": exc.message}, exc.status)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return answer({"error": exc.detail}, exc.status_code)

    async def internal(request: Request, exc: Exception) -> Response:
        log.exception("internal error on %s %s", request.method, request.url.path)
        return answer({"error": "internal error"}, 500)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await hub.load()
        try:
            yield
        finally:
            await hub.close()
            await close_rooms(lobby)
            store.close()

    app = Starlette(lifespan=lifespan, routes=[
        Route("/", page("index.html")),
        Route("/game/{id:int}", page("game.html")),
        Route("/api/account/signup", signup, methods=["POST"]),
        Route("/api/account/login", login, methods=["POST"]),
        Route("/api/account/logout", logout, methods=["POST"]),
        Route("/api/account", account_info),
        Route("/api/account/token", api_token, methods=["POST"]),
        Route("/api/lobby", lobby_info),
        Route("/api/players/{name}", player),
        Route("/api/challenges", new_challenge, methods=["POST"]),
        Route("/api/challenges/{id:int}", get_challenge),
        Route("/api/challenges/{id:int}", withdraw, methods=["DELETE"]),
        Route("/api/challenges/{id:int}/accept", accept, methods=["POST"]),
        Route("/api/challenges/{id:int}/decline", decline, methods=["POST"]),
        Route("/api/game/{id:int}", game_record),
        Route("/api/game/{id:int}/svg", game_svg),
        Route("/api/game/{id:int}/move", move, methods=["POST"]),
        Route("/api/game/{id:int}/clicks", clicks, methods=["POST"]),
        Route("/api/game/{id:int}/resign", resign, methods=["POST"]),
        WebSocketRoute("/api/game/{id:int}/live", live_socket),
        WebSocketRoute("/api/bot", bot_socket),
        *analysis_routes(lobby, idle),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ], exception_handlers={Refused: refused, HTTPException: http_error, Exception: internal})
    app.state.hub = hub
    app.state.store = store
    app.state.lobby = lobby
    return app


def picture(game: Game[Any], result: dict[str, Any] | None) -> str:
    """A game's board; the caption gives the result of a game that ended outside its rules
    (a resignation, a loss on time, a forfeit), which its rules core does not know."""
    caption = None
    if result is not None and game.outcome() is None:
        winner = result["winner"]
        head = "Draw" if winner is None else \
            f"{player_word(game, 0 if winner == 'b' else 1)} wins"
        caption = f"{head}: {result['text']}"
    return render_svg(game, notation=NOTATION, result=caption)


def add_bot(db: str | Store, name: str) -> str:
    """Create the bot account ``name`` in ``db`` (an address, or an open store); its token
    (ValueError when the name is malformed or taken)."""
    name = accounts.check_name(name)
    store = db if isinstance(db, Store) else Store(db)
    try:
        try:
            account = store.create_account(name, "bot", None)
        except Taken:
            raise ValueError(f"the name {name} is taken") from None
        token = accounts.new_token()
        store.add_token(account.id, "bot", accounts.digest(token), True)
        return token
    finally:
        if store is not db:
            store.close()


def serve(db: str, host: str, port: int, limits: Limits, secure_cookies: bool, caps: Caps,
          idle: float) -> None:
    """Run the server on uvicorn until interrupted."""
    import uvicorn

    logging.basicConfig(level=logging.INFO, format="gtpgames: %(message)s")
    app = create_app(db, limits, secure_cookies=secure_cookies, caps=caps, idle=idle)
    # no per-message compression: the records are small, and it took a third of the
    # server's time under load
    uvicorn.run(app, host=host, port=port, log_level="warning",
                ws_max_size=max(limits.max_message, 4 * MAX_MESSAGE) + 1024,
                ws_per_message_deflate=False)
