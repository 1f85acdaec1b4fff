"""Games in progress on the game server (docs/online.md): each one's rules core, moves and
Fischer clocks kept in memory, the checks on every move, the timer that ends a game on time,
the end of a game (rules, time, resignation, forfeit) with the ratings, and the messages to
the bots and watchers.

A move is stored (:meth:`Store.add_move`) before it is applied here, acknowledged or
broadcast; a game's end is stored before it is announced. Time is read from an injected
monotonic clock (seconds), so that tests move time by hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any

from adapters.online.accounts import glicko2_update
from adapters.online.store import Account, Challenge, Result, Store, StoredGame
from adapters.web.clicks import clicks_for
from engine.games.core import Game, GameError
from engine.games.registry import game_class, new_game

log = logging.getLogger("gtpgames.online")

Clock = Callable[[], float]
Send = Callable[[dict[str, Any]], Awaitable[None]]


@dataclasses.dataclass(frozen=True)
class Limits:
    """The bounds of docs/online.md's table (flags of ``gtpgames serve``)."""

    max_message: int = 16384
    max_challenges: int = 5
    max_person_games: int = 5
    max_bot_games: int = 32
    rate: float = 20.0


class Refused(Exception):
    """A refused request or message: ``message`` goes back to the client, ``status`` is the
    HTTP status of the refusal; nothing changed."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message, self.status = message, status


def iso(moment: dt.datetime | None) -> str | None:
    return None if moment is None else moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def normal_options(game: str, options: dict[str, Any]) -> dict[str, str]:
    """Every option of ``game``, checked, as text (``Refused`` naming a bad one)."""
    try:
        cls = game_class(game)
        values = cls(**options).options
    except GameError as error:
        raise Refused(str(error)) from None
    if game == "brax" and values.get("players") != 2:
        raise Refused("option players: Brax is played by 2 players online")
    specs = {spec.name: spec for spec in cls.OPTIONS}
    return {name: specs[name].format(value) for name, value in values.items()}


def replay(game: str, options: dict[str, str], moves: list[str]) -> Game[Any]:
    """A rules core of ``game`` after ``moves`` (checked)."""
    core = new_game(game, **options)
    for move in moves:
        core.play_text(move, "gtp")
    return core


@dataclasses.dataclass(eq=False)
class LiveGame:
    """A game in progress: the rules core and the clocks, in memory."""

    id: int
    game: str
    options: dict[str, str]
    rated: bool
    players: dict[str, Account]  # "b" / "w"
    initial: int
    increment: int
    core: Game[Any]
    moves: list[tuple[str, int]]
    #: milliseconds on each clock when the turn in progress began
    clocks: dict[str, int]
    #: when the turn in progress began (the server's monotonic clock, seconds)
    turn_started: float
    started: dt.datetime
    status: str = "playing"
    result: Result | None = None
    ended: dt.datetime | None = None
    lock: asyncio.Lock = dataclasses.field(default_factory=asyncio.Lock)
    timer: asyncio.Task[None] | None = None
    #: the specials of the position at a ply (the legal moves are listed once a turn)
    _specials: tuple[int, list[str]] = (-1, [])

    @classmethod
    def resume(cls, stored: StoredGame, now: float) -> LiveGame:
        """A stored game in progress, its clocks as they stood after its last move and the
        clock of the side to move starting again ``now`` (docs/online.md)."""
        core = replay(stored.game, stored.options, [m for m, _ in stored.moves])
        return cls(stored.id, stored.game, dict(stored.options), stored.rated,
                   {"b": stored.black, "w": stored.white}, stored.initial, stored.increment,
                   core, list(stored.moves), dict(stored.clocks), now, stored.started)

    @property
    def to_move(self) -> str:
        return self.core.color_name(self.core.to_move)

    def color_of(self, account: Account) -> str | None:
        for color, player in self.players.items():
            if player.id == account.id:
                return color
        return None

    def left_ms(self, now: float) -> int:
        """Milliseconds left on the clock of the side to move."""
        spent = int((now - self.turn_started) * 1000)
        return self.clocks[self.to_move] - spent

    def clocks_now(self, now: float) -> dict[str, int]:
        clocks = dict(self.clocks)
        if self.status == "playing":
            clocks[self.to_move] = max(0, self.left_ms(now))
        return clocks

    def specials(self) -> list[str]:
        if self._specials[0] != len(self.moves):
            self._specials = (len(self.moves), clicks_for(self.core).specials())
        return list(self._specials[1])

    def record(self, now: float) -> dict[str, Any]:
        playing = self.status == "playing"
        return {
            "id": self.id, "game": self.game, "options": dict(self.options),
            "rated": self.rated, "players": {c: a.name for c, a in self.players.items()},
            "time": {"initial": self.initial, "increment": self.increment},
            "moves": [{"move": m, "ms": ms} for m, ms in self.moves],
            "clocks": self.clocks_now(now), "to_move": self.to_move if playing else None,
            "ply": len(self.moves), "status": self.status,
            "result": None if self.result is None else dataclasses.asdict(self.result),
            "specials": self.specials() if playing else [],
            "started": iso(self.started), "ended": iso(self.ended),
        }


def stored_record(stored: StoredGame) -> dict[str, Any]:
    """The record of a game from the database (a finished one)."""
    return {
        "id": stored.id, "game": stored.game, "options": dict(stored.options),
        "rated": stored.rated, "players": {"b": stored.black.name, "w": stored.white.name},
        "time": {"initial": stored.initial, "increment": stored.increment},
        "moves": [{"move": m, "ms": ms} for m, ms in stored.moves],
        "clocks": dict(stored.clocks), "to_move": None, "ply": stored.plies,
        "status": stored.status,
        "result": None if stored.result is None else dataclasses.asdict(stored.result),
        "specials": [], "started": iso(stored.started), "ended": iso(stored.ended),
    }


def summary(record: dict[str, Any]) -> dict[str, Any]:
    """A game in the lobby's lists: its record without the moves."""
    return {k: v for k, v in record.items() if k not in ("moves", "specials")}


@dataclasses.dataclass(eq=False)
class Conn:
    """One WebSocket: its account (None for a watcher not signed in) and how to send."""

    account: Account | None
    send: Send


class Hub:
    """The games in progress and the connected bots and watchers."""

    def __init__(self, store: Store, limits: Limits, clock: Clock,
                 rng: random.Random | None = None) -> None:
        self.store, self.limits, self.clock = store, limits, clock
        self.rng = rng or random.SystemRandom()
        self.games: dict[int, LiveGame] = {}
        self.bots: dict[int, set[Conn]] = {}
        self.watchers: dict[int, set[Conn]] = {}
        self._accepting = asyncio.Lock()

    # ------------------------------------------------------------------------ life cycle

    async def load(self) -> None:
        """Resume the stored games in progress (their clocks as stored, running from now)."""
        now = self.clock()
        for stored in await self.store.run(self.store.games_in_progress):
            try:
                game = LiveGame.resume(stored, now)
            except GameError as error:  # a record the rules core cannot replay
                log.error("game %d cannot be resumed: %s", stored.id, error)
                continue
            self.games[game.id] = game
            self._arm(game)

    async def close(self) -> None:
        for game in self.games.values():
            if game.timer is not None:
                game.timer.cancel()
        timers = [g.timer for g in self.games.values() if g.timer is not None]
        for timer in timers:
            with contextlib.suppress(asyncio.CancelledError):
                await timer

    # ------------------------------------------------------------------------ connections

    def online(self, account_id: int) -> bool:
        return bool(self.bots.get(account_id))

    async def bot_connected(self, conn: Conn) -> None:
        """Register a bot's connection and send it its games in progress and the challenges
        it may take."""
        assert conn.account is not None
        account = conn.account
        self.bots.setdefault(account.id, set()).add(conn)
        for game in list(self.games.values()):
            color = game.color_of(account)
            if color is not None and game.status == "playing":
                await conn.send({"type": "game_start", "game": game.record(self.clock()),
                                 "color": color})
        for challenge in await self.store.read(self.store.open_challenges, account.id):
            await conn.send({"type": "challenge", "challenge": challenge.as_json()})

    def bot_gone(self, conn: Conn) -> None:
        assert conn.account is not None
        conns = self.bots.get(conn.account.id, set())
        conns.discard(conn)
        if not conns:
            self.bots.pop(conn.account.id, None)

    async def _to_account(self, account_id: int, message: dict[str, Any]) -> None:
        for conn in list(self.bots.get(account_id, ())):
            await conn.send(message)

    async def announce_challenge(self, challenge: Challenge) -> None:
        """Send a new challenge to the bot it is for, or an open one to every bot online."""
        message = {"type": "challenge", "challenge": challenge.as_json()}
        if challenge.opponent_id is not None:
            await self._to_account(challenge.opponent_id, message)
            return
        for account_id in list(self.bots):
            if account_id != challenge.author_id:
                await self._to_account(account_id, message)

    async def _broadcast(self, game: LiveGame, kind: str) -> dict[str, Any]:
        """Send ``game``'s record to its players' bots and its watchers; the record."""
        record = game.record(self.clock())
        for account in {a.id: a for a in game.players.values()}.values():
            await self._to_account(account.id, {"type": kind, "game": record})
        for conn in list(self.watchers.get(game.id, ())):
            await conn.send({"type": "game", "game": record})
        return record

    # ------------------------------------------------------------------------ games

    def playing_count(self, account: Account) -> int:
        return sum(1 for g in self.games.values()
                   if g.status == "playing" and g.color_of(account) is not None)

    def _check_capacity(self, account: Account) -> None:
        cap = (self.limits.max_bot_games if account.kind == "bot"
               else self.limits.max_person_games)
        if self.playing_count(account) >= cap:
            raise Refused(f"{account.name} has {cap} games in progress already (the limit)",
                          429)

    async def accept(self, account: Account, challenge_id: int) -> LiveGame:
        """Accept a challenge as ``account``: the game is stored and begins."""
        async with self._accepting:
            challenge = await self.store.run(self.store.challenge, challenge_id)
            if challenge is None:
                raise Refused(f"no challenge {challenge_id}", 404)
            if challenge.status != "open":
                raise Refused(f"challenge {challenge_id} is {challenge.status}", 409)
            if challenge.author_id == account.id:
                raise Refused("a challenge cannot be accepted by its author", 403)
            if challenge.opponent_id not in (None, account.id):
                raise Refused(f"challenge {challenge_id} is for {challenge.opponent}", 403)
            author = await self.store.run(self.store.account, challenge.author)
            if author is None:
                raise Refused(f"no player {challenge.author}", 404)
            self._check_capacity(account)
            self._check_capacity(author)
            color = challenge.color if challenge.color != "random" else self.rng.choice("bw")
            black, white = (author, account) if color == "b" else (account, author)
            stored = await self.store.run(self.store.start_game, challenge_id, black.id,
                                          white.id)
            if stored is None:
                raise Refused(f"challenge {challenge_id} is not open any more", 409)
            game = LiveGame.resume(stored, self.clock())
            self.games[game.id] = game
            self._arm(game)
        record = game.record(self.clock())
        for color_, player in game.players.items():
            await self._to_account(player.id, {"type": "game_start", "game": record,
                                               "color": color_})
        for conn in list(self.watchers.get(game.id, ())):
            await conn.send({"type": "game", "game": record})
        return game

    def live(self, game_id: int) -> LiveGame | None:
        return self.games.get(game_id)

    async def record(self, game_id: int) -> dict[str, Any] | None:
        """A game's record now (after checking its clock), or None when there is no such
        game."""
        game = self.games.get(game_id)
        if game is not None:
            async with game.lock:
                await self._check_flag(game)
            return game.record(self.clock())
        stored = await self.store.read(self.store.game, game_id)
        return None if stored is None else stored_record(stored)

    async def _playing(self, game: LiveGame, account: Account) -> str:
        """The colour ``account`` plays in ``game``, which must still be on (its clock looked
        at first); under the game's lock."""
        await self._check_flag(game)
        if game.status != "playing":
            raise Refused(f"game {game.id} is over", 409)
        color = game.color_of(account)
        if color is None:
            raise Refused(f"{account.name} does not play in game {game.id}", 403)
        return color

    async def _need_live(self, game_id: int) -> LiveGame:
        game = self.games.get(game_id)
        if game is not None:
            return game
        stored = await self.store.read(self.store.game, game_id)
        if stored is None:
            raise Refused(f"no game {game_id}", 404)
        raise Refused(f"game {game_id} is over", 409)

    async def move(self, account: Account, game_id: int, ply: object,
                   token: object) -> dict[str, Any]:
        """Play ``token`` at ``ply`` for ``account``; the record after it."""
        if not isinstance(ply, int) or isinstance(ply, bool) or ply < 0:
            raise Refused("ply: expected the number of moves played so far")
        if not isinstance(token, str) or not 0 < len(token) <= 80:
            raise Refused("move: expected a move of the game's GTP notation")
        game = await self._need_live(game_id)
        async with game.lock:
            color = await self._playing(game, account)
            if color != game.to_move:
                raise Refused(f"not {account.name}'s turn: {game.to_move} is to move", 409)
            if ply != len(game.moves):
                raise Refused(f"ply {ply} is stale: the game is at ply {len(game.moves)}", 409)
            core = game.core
            try:
                move = core.parse_move(token.strip(), "gtp")
                core.check_move(move, "gtp")
            except GameError as error:
                message = str(error)
                raise Refused(message if token in message else f"{token}: {message}") \
                    from None
            text = core.format_move(move, "gtp")
            now = self.clock()
            spent = int((now - game.turn_started) * 1000)
            left = game.clocks[color] - spent
            clocks = dict(game.clocks)
            clocks[color] = left + game.increment * 1000
            # the position others read stays as it is until the move is stored
            core.play(move)
            outcome = core.outcome()
            core.undo()
            result = None
            if outcome is not None:
                winner = None if outcome.winner is None else core.color_name(outcome.winner)
                result = Result(winner, "rules", outcome.reason)
            try:
                await self.store.run(self.store.add_move, game.id, ply, text, spent, clocks,
                                     result, glicko2_update)
            except Exception as error:
                log.error("game %d: move %s not stored: %s", game.id, text, error)
                raise Refused(f"the move could not be stored ({type(error).__name__}); "
                              "send it again", 503) from None
            core.play(move)
            game.moves.append((text, spent))
            game.clocks = clocks
            game.turn_started = now
            if result is not None:
                self._finished(game, result)
        record = await self._broadcast(game, "game_end" if game.status == "finished"
                                       else "game_state")
        if game.status == "playing":
            self._arm(game)
        return record

    async def resign(self, account: Account, game_id: int, reason: str | None) -> dict[str, Any]:
        """End the game with ``account`` losing: a resignation, or a forfeit with a reason."""
        game = await self._need_live(game_id)
        async with game.lock:
            color = await self._playing(game, account)
            other = "w" if color == "b" else "b"
            if reason:
                result = Result(other, "forfeit", f"{account.name} forfeits: {reason}")
            else:
                result = Result(other, "resign", f"{account.name} resigns")
            await self._end(game, result)
        return game.record(self.clock())

    # ------------------------------------------------------------------------ the clocks

    def _arm(self, game: LiveGame) -> None:
        """(Re)start the timer that ends ``game`` when the side to move runs out of time."""
        if game.timer is not None and game.timer is not asyncio.current_task():
            game.timer.cancel()
        game.timer = asyncio.get_running_loop().create_task(self._watch(game))

    async def _watch(self, game: LiveGame) -> None:
        while game.status == "playing":
            left = game.left_ms(self.clock())
            if left <= 0:
                try:
                    async with game.lock:
                        await self._check_flag(game)
                except Refused as error:  # the database is away: try again soon
                    log.error("game %d: %s", game.id, error.message)
                    await asyncio.sleep(1.0)
                continue
            await asyncio.sleep(left / 1000 + 0.005)

    async def _check_flag(self, game: LiveGame) -> None:
        """End ``game`` on time if the side to move has none left (call with its lock)."""
        if game.status != "playing" or game.left_ms(self.clock()) > 0:
            return
        loser = game.to_move
        winner = "w" if loser == "b" else "b"
        await self._end(game, Result(winner, "time",
                                     f"{game.players[loser].name} ran out of time"))

    async def _end(self, game: LiveGame, result: Result) -> None:
        """Store the end of ``game`` (clocks as they stand), then announce it."""
        clocks = game.clocks_now(self.clock())
        try:
            stored = await self.store.run(self.store.end_game, game.id, clocks, result,
                                          glicko2_update)
        except Exception as error:
            log.error("game %d: its end was not stored: %s", game.id, error)
            raise Refused(f"the end of game {game.id} could not be stored "
                          f"({type(error).__name__}); send it again", 503) from None
        if not stored:
            log.error("game %d: its end was stored already", game.id)
        game.clocks = clocks
        self._finished(game, result)
        await self._broadcast(game, "game_end")

    def _finished(self, game: LiveGame, result: Result) -> None:
        game.status, game.result = "finished", result
        game.ended = dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0)
        self.games.pop(game.id, None)
        if game.timer is not None and game.timer is not asyncio.current_task():
            game.timer.cancel()
        log.info("game %d ended: %s (%s)", game.id, result.winner, result.text)


def check_option_values(options: object) -> dict[str, str]:
    """A challenge's ``options`` object: names to text values."""
    if options is None:
        return {}
    if not isinstance(options, dict) or not all(
            isinstance(k, str) and isinstance(v, str | int | bool) and len(k) <= 20
            and len(str(v)) <= 20 for k, v in options.items()):
        raise Refused("options: expected an object of option names to values")
    return {k: str(v) for k, v in options.items()}

