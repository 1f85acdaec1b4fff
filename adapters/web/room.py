"""One open game of the browser app: the engine process that owns the position, the rules
core's copy of it used to draw the board and read clicks, and the page's actions.

The engine decides every move (``play`` / ``genmove``); the copy only follows what the engine
accepted. Actions come from the page as JSON objects (docs/web.md lists them); every field is
checked here, and a refused action leaves the game as it was and answers ``error``.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from adapters.web.clicks import NOTATION, Clicks, clicks_for
from adapters.web.gtp_process import EngineGone, GtpProcess
from adapters.web.records import RecordError, parse_record
from engine.games.core import Game, GameError
from engine.games.registry import GAMES, new_game
from engine.search.base import MoveStat

Send = Callable[[dict[str, Any]], Awaitable[None]]

MODES = ("engine", "human", "watch", "replay")
#: A click or move token: letters, digits and the move punctuation, short.
_TOKEN = re.compile(r"[a-z0-9+!-]{1,40}")
_OPTION = re.compile(r"[a-z_]{1,20}")
#: Seconds between two moves when the engine plays itself (so the eye can follow).
WATCH_PAUSE = 0.3
#: Centiseconds between two analysis reports while the engine thinks.
ANALYSIS_INTERVAL = 25


class ActionError(Exception):
    """A refused action: the message goes to the page, nothing changed."""


@dataclass(frozen=True)
class Caps:
    """What one user may take of the machine (``gtpgames serve`` flags)."""

    max_games: int = 4
    max_think: float = 10.0


class Lobby:
    """The open games of the server (the cap counts engine processes)."""

    def __init__(self, caps: Caps) -> None:
        self.caps = caps
        self.rooms: set[Room] = set()

    def running(self) -> int:
        return sum(1 for room in self.rooms if room.engine is not None)


def render(game: Game[Any], analysis: list[dict[str, Any]] | None = None) -> str:
    """The board picture, with the analysis overlay when one is given."""
    from adapters.render import render_svg

    return render_svg(game, notation=NOTATION, analysis=move_stats(game, analysis or []))


def move_stats(game: Game[Any], lines: list[dict[str, Any]]) -> list[MoveStat] | None:
    """The renderer's statistics from parsed ``info`` groups (moves the game cannot read,
    which never happens with our engine, are left out)."""
    stats = []
    for line in lines:
        try:
            move = game.parse_move(line["move"], NOTATION)
            pv = tuple(game.parse_move(token, NOTATION) for token in line.get("pv", []))
        except GameError:
            continue
        stats.append(MoveStat(move, int(line.get("visits", 0)),
                              float(line.get("winrate", 0.0)), pv=pv))
    return stats or None


def parse_info(line: str) -> list[dict[str, Any]]:
    """The ``info`` groups of one analysis line (docs/protocol.md, gtpgames-analyze)."""
    out: list[dict[str, Any]] = []
    for group in line.split("info ")[1:]:
        words = group.split()
        entry: dict[str, Any] = {}
        i = 0
        while i < len(words):
            key = words[i]
            if key == "pv":
                entry["pv"] = words[i + 1:]
                break
            if i + 1 < len(words):
                value = words[i + 1]
                if key == "visits":
                    entry[key] = int(value)
                elif key == "winrate":
                    entry[key] = float(value)
                else:
                    entry[key] = value
            i += 2
        if "move" in entry:
            out.append(entry)
    return out


def side_label(game: Game[Any], player: int) -> str:
    """How the page names a player: Red/Blue in Trisq and Brax, White/Black in Bricka..."""
    if game.num_players > 2:
        side = game.side_names[game.side_of(player)]
        return f"{game.color_name(player)} ({side})"
    if game.name in ("trisq", "brax"):
        return ("Red", "Blue")[player]
    return ("Black", "White")[player]


class Room:
    """The game of one page (one WebSocket)."""

    def __init__(self, lobby: Lobby, send: Send) -> None:
        self.lobby = lobby
        self.send = send
        self.game: Game[Any] | None = None
        self.engine: GtpProcess | None = None
        self.clicks: Clicks | None = None
        self.pending: list[str] = []
        self.hint = ""
        self.call = False
        self.mode = "engine"
        self.engine_players: set[int] = set()
        self.paused = False
        self.show_legal = False
        self.think_task: asyncio.Task[None] | None = None
        #: Set while an action stops the search: no new search starts before it is done.
        self.holding = False
        self.replay_moves: list[str] = []
        self.replay_result = ""
        lobby.rooms.add(self)

    # ------------------------------------------------------------------ lifecycle

    async def close(self) -> None:
        """The page went away: stop the search and end the engine."""
        await self._stop_engine()
        self.lobby.rooms.discard(self)

    async def _stop_engine(self) -> None:
        await self._stop_thinking()
        if self.engine is not None:
            engine, self.engine = self.engine, None
            await engine.close()

    async def _stop_thinking(self) -> None:
        """Stop a running search (the engine plays its best move so far) and start no other
        until the action that asked for this has run."""
        task = self.think_task
        if task is None or task.done():
            return
        self.holding = True
        if self.engine is not None:
            with contextlib.suppress(EngineGone):
                await self.engine.interrupt()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task

    # ------------------------------------------------------------------ dispatch

    async def handle(self, message: object) -> None:
        """Run one action of the page; a refused one answers ``error``."""
        self.holding = False
        try:
            if not isinstance(message, dict):
                raise ActionError("a message is a JSON object with an action")
            action = message.get("action")
            handler = self.ACTIONS.get(action) if isinstance(action, str) else None
            if handler is None:
                raise ActionError(
                    f"unknown action {action!r} (actions: {', '.join(sorted(self.ACTIONS))})")
            await handler(self, message)
        except ActionError as error:
            await self.send({"type": "error", "message": str(error)})
        except EngineGone:
            self.engine = None
            await self.send({"type": "error",
                             "message": "the engine has ended: start a new game"})

    def _need_game(self) -> Game[Any]:
        if self.game is None or self.engine is None:
            raise ActionError("no game is open: start one")
        return self.game

    def _need_idle(self) -> Game[Any]:
        game = self._need_game()
        if self.think_task is not None and not self.think_task.done():
            raise ActionError("the engine is thinking: wait, or stop it")
        return game

    def _need_turn(self) -> Game[Any]:
        game = self._need_idle()
        if self.mode == "replay":
            raise ActionError("this is a replay: step through it, or start a game to play")
        if game.is_over():
            raise ActionError("the game is over: undo, or start a new game")
        if game.to_move in self.engine_players:
            raise ActionError(f"it is the engine's turn ({side_label(game, game.to_move)})")
        return game

    @staticmethod
    def _field(message: dict[str, Any], key: str, kind: type, default: Any = None) -> Any:
        value = message.get(key)
        if value is None:
            return default
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ActionError(f"{key}: expected {kind.__name__}, got {value!r}")
        return value

    # ------------------------------------------------------------------ actions

    async def act_new(self, message: dict[str, Any], replay: list[str] | None = None) -> None:
        name = self._field(message, "game", str, "")
        if name.lower() not in GAMES:
            raise ActionError(f"unknown game {name!r} (games: {', '.join(GAMES)})")
        raw = self._field(message, "options", dict, {})
        options: dict[str, str] = {}
        for key, value in raw.items():
            if not _OPTION.fullmatch(key) or not isinstance(value, str | int | bool):
                raise ActionError(f"bad option {key!r}={value!r}")
            options[key] = str(value).lower() if not isinstance(value, bool) else (
                "on" if value else "off")
        try:
            game = new_game(name.lower(), **options)
        except GameError as error:
            raise ActionError(str(error)) from None
        mode = "replay" if replay is not None else self._field(message, "mode", str, "engine")
        if mode not in MODES or (mode == "replay" and replay is None):
            raise ActionError(f"mode: expected engine, human or watch, got {mode!r}")
        players = set(range(game.num_players))
        engine_players: set[int] = set()
        if mode == "engine":
            second = (game.to_move + 1) % game.num_players
            colours = self._field(message, "engine", str, game.color_name(second))
            try:
                engine_players = {game.parse_color(c) for c in colours.split(",")}
            except GameError as error:
                raise ActionError(f"engine: {error}") from None
        elif mode == "watch":
            engine_players = players
        level = self._field(message, "level", int)
        if level is not None and not 1 <= level <= 7:
            raise ActionError(f"level: {level} is out of range 1..7")
        seconds = self._field(message, "time", float)
        cap = self.lobby.caps.max_think
        if seconds is not None and not 0.01 <= seconds <= cap:
            raise ActionError(f"time: {seconds} is out of range 0.01..{cap:g} seconds a move")
        seed = self._field(message, "seed", int)
        if self.engine is None and self.lobby.running() >= self.lobby.caps.max_games:
            raise ActionError(f"too many open games ({self.lobby.caps.max_games}): "
                              "close another page first")
        args = [game.name, "--notation", NOTATION]
        for key, value in options.items():
            args += ["--option", f"{key}={value}"]
        args += ["--time", f"{seconds if seconds is not None else cap:g}"]
        if level is not None:
            args += ["--level", str(level)]
        if seed is not None:
            args += ["--seed", str(seed)]
        await self._stop_engine()
        self.engine = await GtpProcess.start(args)
        # the engine has started once it answers: the page's first click does not wait
        await self._command("protocol_version")
        self.game, self.clicks = game, clicks_for(game)
        self.mode, self.engine_players, self.paused = mode, engine_players, False
        self.pending, self.hint, self.call = [], "", False
        self.replay_moves = replay or []
        self.maybe_think()
        await self.send_state()

    async def act_click(self, message: dict[str, Any]) -> None:
        self._need_turn()
        assert self.clicks is not None
        token = self._token(message, "target")
        step = self.clicks.click(self.pending, token)
        await self._step(step)

    async def act_confirm(self, message: dict[str, Any]) -> None:
        self._need_turn()
        assert self.clicks is not None
        await self._step(self.clicks.confirm(self.pending))

    async def act_cancel(self, message: dict[str, Any]) -> None:
        self._need_game()
        self.pending, self.hint = [], ""
        await self.send_state()

    async def act_move(self, message: dict[str, Any]) -> None:
        self._need_turn()
        await self._play(self._token(message, "move"))

    async def act_call(self, message: dict[str, Any]) -> None:
        game = self._need_game()
        if game.name != "brax":
            raise ActionError("only Brax has a Brax call")
        self.call = self._field(message, "on", bool, False)
        await self.send_state()

    async def act_legal(self, message: dict[str, Any]) -> None:
        self._need_game()
        self.show_legal = self._field(message, "on", bool, False)
        await self.send_state()

    async def act_undo(self, message: dict[str, Any]) -> None:
        game = self._need_game()
        await self._stop_thinking()
        if self.mode == "replay":
            raise ActionError("this is a replay: step back with the replay buttons")
        count = 1
        if self.mode == "engine":
            while count < len(game.history) and self._mover_after_undo(count) in \
                    self.engine_players:
                count += 1
        if count > len(game.history):
            raise ActionError("cannot undo: no move to take back")
        self.paused = self.mode == "watch"
        await self._undo(count)
        self.pending, self.hint = [], ""
        self.maybe_think()
        await self.send_state()

    async def act_setup(self, message: dict[str, Any]) -> None:
        game = self._need_game()
        await self._stop_thinking()
        if self.mode == "replay":
            raise ActionError("this is a replay: start a game to set up a position")
        text = self._field(message, "text", str, "").strip()
        if not text:
            raise ActionError("paste a position string or a move list")
        assert self.engine is not None
        try:
            type(game).from_position_string(text, **game.options)
            is_position = True
        except GameError as position_error:
            is_position = False
            why = str(position_error)
        if is_position:
            ok, answer = await self.engine.command(f"gtpgames-position {text}")
            if not ok:
                raise ActionError(answer)
            self.game = type(game).from_position_string(text, **game.options)
        else:
            moves = text.replace(",", " ").split()
            trial = game.new_game()
            for number, token in enumerate(moves, 1):
                try:
                    trial.play_text(token, NOTATION)
                except GameError as error:
                    raise ActionError(f"neither a position string ({why}) nor a move list: "
                                      f"move {number} {token!r}: {error}") from None
            await self._command("clear_board")
            self.game = game.new_game()
            for token in moves:
                await self._engine_play(token)
        self.clicks = clicks_for(self.game)
        self.pending, self.hint, self.paused = [], "", self.mode == "watch"
        self.maybe_think()
        await self.send_state()

    async def act_replay(self, message: dict[str, Any]) -> None:
        text = self._field(message, "record", str, "")
        index = self._field(message, "index", int, 0)
        try:
            record = parse_record(text, index)
        except RecordError as error:
            raise ActionError(str(error)) from None
        self.replay_result = record.result
        await self.act_new({"game": record.game, "options": record.options},
                           replay=record.moves)

    async def act_step(self, message: dict[str, Any]) -> None:
        game = self._need_idle()
        if self.mode != "replay":
            raise ActionError("step works in a replay: load a record first")
        target = self._field(message, "to", int, 0)
        if not 0 <= target <= len(self.replay_moves):
            raise ActionError(f"to: {target} is out of range 0..{len(self.replay_moves)}")
        while len(game.history) > target:
            await self._undo(1)
        while len(game.history) < target:
            await self._engine_play(self.replay_moves[len(game.history)])
        await self.send_state()

    async def act_go(self, message: dict[str, Any]) -> None:
        game = self._need_idle()
        if self.mode == "replay" or game.is_over():
            raise ActionError("nothing for the engine to play")
        if self.mode == "human":
            raise ActionError("two people play this game: the engine does not move")
        self.paused = False
        if game.to_move not in self.engine_players:
            self.engine_players.add(game.to_move)
        self.maybe_think()
        await self.send_state()

    async def act_stop(self, message: dict[str, Any]) -> None:
        self._need_game()
        self.paused = self.mode == "watch"
        await self._stop_thinking()
        await self.send_state()

    async def act_state(self, message: dict[str, Any]) -> None:
        await self.send_state()

    ACTIONS: dict[str, Callable[[Room, dict[str, Any]], Awaitable[None]]] = {
        "state": act_state, "new": act_new, "click": act_click, "confirm": act_confirm,
        "cancel": act_cancel,
        "move": act_move, "call": act_call, "legal": act_legal, "undo": act_undo,
        "setup": act_setup, "replay": act_replay, "step": act_step, "go": act_go,
        "stop": act_stop,
    }

    # ------------------------------------------------------------------ engine

    def _token(self, message: dict[str, Any], key: str) -> str:
        token = str(self._field(message, key, str, "")).strip().lower()
        if not _TOKEN.fullmatch(token):
            raise ActionError(f"{key}: not a move or place of the board: {token[:40]!r}")
        return token

    def _mover_after_undo(self, count: int) -> int:
        assert self.game is not None
        trial = self.game.copy()
        for _ in range(count):
            trial.undo()
        return trial.to_move

    async def _command(self, line: str) -> str:
        assert self.engine is not None
        ok, answer = await self.engine.command(line)
        if not ok:
            raise ActionError(answer)
        return answer

    async def _engine_play(self, token: str) -> None:
        """``play`` on the engine, then on the copy (it follows what the engine took)."""
        assert self.game is not None
        colour = self.game.color_name(self.game.to_move)
        await self._command(f"play {colour} {token}")
        self.game.play_text(token, NOTATION)

    async def _undo(self, count: int) -> None:
        assert self.game is not None
        for _ in range(count):
            await self._command("undo")
            self.game.undo()

    async def _step(self, step: Any) -> None:
        if step.error is not None:
            self.pending = step.pending or self.pending
            raise ActionError(step.error)
        if step.move is None:
            self.pending, self.hint = step.pending, step.hint
            await self.send_state()
            return
        await self._play(step.move)

    async def _play(self, token: str) -> None:
        if self.call and not token.endswith("!") and token not in ("pass", "swap"):
            token += "!"
        await self._engine_play(token)
        self.pending, self.hint, self.call = [], "", False
        self.maybe_think()
        await self.send_state()

    def maybe_think(self) -> None:
        game = self.game
        if (game is None or self.engine is None or game.is_over() or self.paused
                or self.mode not in ("engine", "watch")
                or game.to_move not in self.engine_players
                or (self.think_task is not None and not self.think_task.done())):
            return
        self.think_task = asyncio.get_running_loop().create_task(self._think())

    async def _think(self) -> None:
        assert self.game is not None and self.engine is not None
        if self.mode == "watch" and self.game.history:
            await asyncio.sleep(WATCH_PAUSE)
        game, engine = self.game, self.engine
        colour = game.color_name(game.to_move)
        played: list[str] = []

        async def on_line(line: str) -> None:
            if line.startswith("info"):
                lines = parse_info(line)[:10]
                await self.send({"type": "analysis", "player": side_label(game, game.to_move),
                                 "moves": lines, "svg": render(game, lines)})
            elif line.startswith("play "):
                played.append(line.split()[1])

        try:
            ok, answer = await engine.command(
                f"gtpgames-genmove_analyze {colour} {ANALYSIS_INTERVAL}", on_line)
        except EngineGone:
            await self.send({"type": "error", "message": "the engine has ended"})
            return
        if self.game is not game or self.engine is not engine:
            return
        self.think_task = None
        if not ok or not played:
            await self.send({"type": "error", "message": f"the engine failed: {answer}"})
            return
        move = played[0]
        if move == "resign":
            self.paused = True
            await self.send({"type": "error", "message": "the engine resigned"})
        else:
            game.play_text(move, NOTATION)
            self.pending, self.hint = [], ""
        if not self.holding:  # an action stopped this search: it decides what comes next
            self.maybe_think()
        await self.send_state()

    # ------------------------------------------------------------------ state

    def state(self) -> dict[str, Any]:
        game = self.game
        if game is None:
            return {"type": "state", "game": None}
        assert self.clicks is not None
        outcome = game.outcome()
        result = None
        if outcome is not None:
            winner = "draw" if outcome.winner is None else (
                side_label(game, outcome.winner) if game.num_players == 2
                else game.side_names[outcome.winner].capitalize())
            result = {"winner": winner, "reason": outcome.reason}
        try:
            position = game.position_string()
        except GameError:
            position = ""
        thinking = self.think_task is not None and not self.think_task.done()
        human_turn = (outcome is None and not thinking and self.mode != "replay"
                      and game.to_move not in self.engine_players)
        moves = list(game.moves_text(NOTATION))
        return {
            "type": "state",
            "game": game.name,
            "title": game.title,
            "options": {k: str(v) for k, v in game.options.items()},
            "mode": self.mode,
            "engine": sorted(game.color_name(p) for p in self.engine_players),
            "svg": render(game),
            "moves": moves,
            "to_move": game.color_name(game.to_move),
            "to_move_label": side_label(game, game.to_move),
            "result": result,
            "position": position,
            "pending": self.pending,
            "hint": self.hint,
            "call": self.call,
            "specials": self.clicks.specials() if human_turn else [],
            "targets": self.clicks.targets(self.pending) if human_turn and self.show_legal
            else [],
            "legal": self.show_legal,
            "thinking": thinking,
            "paused": self.paused,
            "replay": {"length": len(self.replay_moves), "result": self.replay_result,
                       "moves": self.replay_moves} if self.mode == "replay" else None,
        }

    async def send_state(self) -> None:
        await self.send(self.state())
