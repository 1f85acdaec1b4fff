"""GoGui support: the gogui-rules ruler extension, half-move clicks, analyze commands.

Follows GoGui 1.6 (Remi-Coulom/gogui): doc/manual/xml/rules.xml (gogui-rules_*), analyze.xml
(gogui-analyze_commands, the gfx and param types) and interrupt.xml (gogui-interrupt: GoGui
then writes ``# interrupt`` while a command runs, which protocol/engine.py turns into
should_stop()). GoGui starts a second process of the same command line as the ruler. The
player gets ``clear_board`` and one ``play COLOR POINT`` per click; the ruler gets, after
every click, ``clear_board`` and every click of the game again (Game.updateBoard), queries of
the position, and then a copy of the click (GenericBoard.sendPlay; two after a genmove,
GoGui.computerMoved), which must fail.

The handlers wrap the session's ``play``, ``genmove``, ``undo``, ``boardsize`` and
``clear_board``. Until the engine is in GoGui mode they behave exactly as before. GoGui mode
starts with GoGui's handshake, which GoGui makes with the player and with the ruler alike:
``gogui-interrupt`` (GtpClientBase.queryInterruptSupport, right after ``list_commands``), then
``gogui-rules_game_id`` (or ``gogui-rules_board_size``, GoGui.isGtpCompatibleWithGame and
initGameRuler); ``gtpgames-gogui on`` also starts it. Other ``gogui-rules_*`` queries answer
without changing the mode. In GoGui mode:

* ``play COLOR POINT`` and ``play COLOR pass`` are clicks on GoGui points (columns skip I;
  two letters past 25); a click may leave a half-move pending, the side to move unchanged;
  other tokens (``e3-e4``, ``c3hne``, ``swap``) are still whole moves;
* ``genmove`` answers one click: the first click of the move the player chooses, then the
  following clicks of the same move at the next genmove calls;
* ``undo`` takes back one click; ``boardsize`` takes GoGui's size (2n for Trisq);
* a click that repeats the last click of a pending half-move after ``gogui-rules_board``,
  ``gogui-rules_side_to_move`` or ``gogui-rules_captured_count`` (which GoGui sends only to
  its ruler, after each replay) is GoGui's copy of the click (GenericBoard.sendPlay) and is
  refused; in a row it is a click like any other (Trisq ``pass`` for v, then ``pass``);
* GoGui replays the game into the ruler after every click (Game.updateBoard sends
  ``clear_board`` and every click again): the clicks since ``clear_board`` are kept as a tape,
  so a replayed click that the tape already holds is played without computing the legal
  clicks again.

The click mapping of each game is in :mod:`adapters.gogui_games`; docs/gogui.md describes it.
"""

from __future__ import annotations

import dataclasses
import importlib.resources
import re
import time
from collections.abc import Callable
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from adapters.gogui_games import (
    Click,
    ClickMap,
    Pending,
    click_key,
    click_map,
    format_click,
    is_click_token,
    parse_click,
)
from engine.games.core import Game, GameError
from engine.games.notation import check_notation
from engine.search.base import SearchResult
from engine.search.mcts import LEVELS, MctsPlayer
from engine.search.players import Limit
from protocol import args as arg
from protocol.engine import GtpEngine, Handler
from protocol.gtp import GtpError
from protocol.session import GameSession, describe_game

#: The package of the rules pages: docs/rules installed as gtpgames.rules (pyproject.toml).
RULES_PACKAGE = "gtpgames.rules"
_ANCHOR = re.compile(r'<a id="[^"]*"></a>')

#: Search commands another module may register; listed for GoGui when present:
#: command name -> analyze command line (type/label/command).
SEARCH_ENTRIES = {
    "gtpgames-analyze":
        "string/Search as text (1000 playouts)/gtpgames-analyze 1000 playouts 1000",
}



#: ``GoGuiCommands.replayed``: the click is not the tape's next one
NOT_ON_TAPE = object()


@dataclasses.dataclass
class _Record:
    """The clicks that made one move of the game history (None: played as a token)."""

    clicks: Pending | None


class GoGuiCommands:
    """The GoGui handler set over one engine and its game session."""

    def __init__(self, engine: GtpEngine, session: GameSession) -> None:
        self.engine = engine
        self.session = session
        #: the handlers this set wraps, as registered before it
        self.base: dict[str, Handler] = dict(engine.handlers)
        self.active = False
        self.pending: list[Click] = []
        #: the clicks genmove still has to answer for the move it chose
        self.plan: list[Click] = []
        self.records: list[_Record] = []
        self.seed: int | None = None
        #: ``gogui-interrupt`` was received: GoGui's handshake has started
        self.probed = False
        #: a query of GoGui's ruler sync was answered since the last click
        self.queried = False
        #: the clicks since clear_board, as (player, click, move or None), and how many of
        #: them the game holds now; ``None`` while the game did not start at clear_board
        self.tape: list[tuple[int, Click, Any]] | None = None
        self.cursor = 0
        self._game: Game[Any] | None = None
        self._map: ClickMap | None = None

    def handlers(self) -> dict[str, Handler]:
        return {
            "play": self.play,
            "genmove": self.genmove,
            "undo": self.undo,
            "boardsize": self.boardsize,
            "clear_board": self.clear_board,
            "gogui-play_sequence": self.play_sequence,
            "gogui-interrupt": self.interrupt,
            "gogui-analyze_commands": self.analyze_commands,
            "gogui-title": self.title,
            "gogui-rules_game_id": self.rules_game_id,
            "gogui-rules_board_size": self.rules_board_size,
            "gogui-rules_legal_moves": self.rules_legal_moves,
            "gogui-rules_final_result": self.rules_final_result,
            "gogui-rules_board_gfx": self.rules_board_gfx,
            "gogui-rules_board": self.ruler_sync(self.rules_board),
            "gogui-rules_side_to_move": self.ruler_sync(self.rules_side_to_move),
            "gogui-rules_captured_count": self.ruler_sync(self.rules_captured_count),
            "gtpgames-gogui": self.set_mode,
            "gtpgames-param": self.param,
            "gtpgames-rules": self.rules_text,
            "gtpgames-gogui_search": self.search,
        }

    # ------------------------------------------------------------------ state

    @property
    def game(self) -> Game[Any]:
        return self.session.game

    def sync(self) -> None:
        """Follow changes made by other commands: a new game drops the pending clicks; a
        history changed behind our back keeps the records that still line up."""
        game = self.game
        if game is not self._game:
            self._game = game
            self.pending.clear()
            self.plan.clear()
            self.tape = None
            self.records = [_Record(None) for _ in game.history]
            try:
                self._map = click_map(game)
            except ValueError:
                self._map = None
        length = len(game.history)
        if length != len(self.records):
            self.pending.clear()
            self.plan.clear()
            self.tape = None
            del self.records[length:]
            self.records += [_Record(None) for _ in range(length - len(self.records))]

    def click_map(self) -> ClickMap:
        """The current game's mapping; fails for a game GoGui cannot show."""
        self.sync()
        if self._map is None:
            try:
                click_map(self.game)
            except ValueError as error:
                raise GtpError(str(error)) from None
        assert self._map is not None
        return self._map

    def handshake(self) -> ClickMap:
        """The mapping; GoGui mode starts here when GoGui's handshake began (see the
        module docstring). A game GoGui cannot show fails and leaves the mode as it is."""
        gmap = self.click_map()
        if self.probed:
            self.active, self.probed = True, False
        return gmap

    def ruler_sync(self, handler: Handler) -> Handler:
        """A query GoGui sends only to its ruler, to copy the ruler's position after a replay
        (GenericBoard.copyRulerBoardState, setToMove); GoGui's copy of the click follows it.
        (The legal clicks and the markings are also analyze commands of the player.)"""
        def query(args: tuple[str, ...]) -> str:
            response = handler(args)
            self.queried = True
            return response
        return query

    def interrupt(self, args: tuple[str, ...]) -> str:
        """``gogui-interrupt``: GoGui probes it to learn that it may write ``# interrupt``."""
        self.probed = True
        return ""

    def snapshot(self) -> Callable[[], None]:
        """A function that puts the game and the click state back as they are now (for
        commands that fail after a part of their work)."""
        game, length = self.game, len(self.game.history)
        records, pending, plan = list(self.records), list(self.pending), list(self.plan)
        tape = None if self.tape is None else list(self.tape)
        cursor, queried = self.cursor, self.queried

        def restore() -> None:
            assert self.game is game
            while len(game.history) > length:
                game.undo()
            self.records, self.pending, self.plan = records, pending, plan
            self.tape, self.cursor, self.queried = tape, cursor, queried
        return restore

    def options(self) -> dict[Click, Any]:
        assert self._map is not None
        try:
            return self._map.options(tuple(self.pending))
        except ValueError as error:
            raise GtpError(str(error)) from None

    def apply(self, player: int, click: Click, move: Any) -> None:
        """Play a click known to be legal; ``move`` is the move it completes (or None)."""
        if self.plan and self.plan[0] == click:
            self.plan.pop(0)
        else:
            self.plan.clear()
        if self.tape is not None:
            step = (player, click, move)
            if self.cursor >= len(self.tape) or self.tape[self.cursor] != step:
                del self.tape[self.cursor:]
                self.tape.append(step)
            self.cursor += 1
        self.queried = False
        if move is None:
            self.pending.append(click)
            return
        self.game.play(move)
        self.records.append(_Record((*self.pending, click)))
        self.pending.clear()

    def replayed(self, player: int, click: Click) -> Any:
        """The move (or None) of the tape's next click when it is this click: GoGui's replay
        of a click already played from the same position; NOT_ON_TAPE otherwise."""
        tape = self.tape
        if tape is not None and self.cursor < len(tape) and tape[self.cursor][:2] == (
                player, click):
            return tape[self.cursor][2]
        return NOT_ON_TAPE

    def parse(self, token: str) -> Click:
        assert self._map is not None
        try:
            return parse_click(token, self._map.size())
        except ValueError as error:
            raise GtpError(f"syntax error: {error}") from None

    # ------------------------------------------------------- wrapped commands

    def play(self, args: tuple[str, ...]) -> str:
        arg.count(args, 2, usage="play COLOR MOVE")
        self.sync()
        if not (self.active or self.pending) or not is_click_token(args[1]):
            if self.pending:
                raise GtpError(
                    f"illegal move: a half-move is pending "
                    f"({' '.join(format_click(c) for c in self.pending)}); "
                    "finish it with clicks or undo it"
                )
            response = self.base["play"](args)
            self.sync()
            return response
        self.click_map()
        player = self.session.color(args[0])
        click = self.parse(args[1])
        if self.queried and self.pending and click == self.pending[-1]:
            raise GtpError(
                f"illegal move: {format_click(click)} repeats the last click after a query of "
                "the position (GoGui's copy of a click already played)"
            )
        move = self.replayed(player, click)
        if move is NOT_ON_TAPE:
            if self.game.is_over():
                raise GtpError("illegal move: game over")
            self.session.turn_check(player)
            options = self.options()
            if click not in options:
                raise GtpError(f"illegal move: {self.click_problem(click, options)}")
            move = options[click]
        self.apply(player, click, move)
        return ""

    def click_problem(self, click: Click, options: dict[Click, Any]) -> str:
        name = format_click(click)
        if not options:
            return "no legal click"
        if self.pending:
            done = " ".join(format_click(c) for c in self.pending)
            return f"{name} does not continue the half-move {done}"
        return f"{name} is not a legal click now"

    def genmove(self, args: tuple[str, ...]) -> str:
        arg.count(args, 1, usage="genmove COLOR")
        self.sync()
        if not self.active or self.game.is_over():
            if self.pending:
                raise GtpError("a half-move is pending in a finished game")
            return self.base["genmove"](args)
        self.click_map()
        player = self.session.color(args[0])
        self.session.turn_check(player)
        options = self.options()
        if not (self.plan and self.plan[0] in options):
            start = time.monotonic()
            self.plan = self.choose_clicks(player)
            clock = self.session.clocks.get(player)
            if clock is not None:
                clock.seconds = max(0.0, clock.seconds - (time.monotonic() - start))
        click = self.plan[0]
        self.apply(player, click, options[click])
        return format_click(click)

    def choose_clicks(self, player: int) -> list[Click]:
        """The clicks still to make for the move the player chooses (a completion of the
        pending half-move when the player's move does not continue it)."""
        assert self._map is not None
        done = tuple(self.pending)
        if not done:
            token = self.choose_with_gfx(player)
            if token is not None:
                try:
                    move = self.game.parse_move(token, self.session.notation)
                except GameError:
                    move = None
                if move is not None:
                    seq = self._map.clicks(move)
                    if seq[: len(done)] == done:
                        return list(seq[len(done):])
        # complete the pending half-move: the first legal continuation, click by click
        clicks: list[Click] = []
        path = list(done)
        while True:
            options = self._map.options(tuple(path))
            if not options:
                raise GtpError("no legal continuation of the pending half-move")
            click = min(options, key=click_key)
            clicks.append(click)
            if options[click] is not None:
                return clicks
            path.append(click)

    def choose_with_gfx(self, player: int) -> str | None:
        """The session's choice, with the search shown live in GoGui while it runs: a
        ``gogui-gfx:`` block on stderr every half second and once at the end (GoGui's live
        graphics, analyze.xml), when the player is a search that reports progress."""
        searcher = self.session.player
        if not hasattr(searcher, "progress"):
            return self.session.choose(player)
        before = searcher.progress
        searcher.progress = self.live_gfx
        try:
            token = self.session.choose(player)
        finally:
            searcher.progress = before
        last = getattr(searcher, "last", None)
        if isinstance(last, SearchResult):
            self.live_gfx(last)
        return token

    def live_gfx(self, result: SearchResult) -> None:
        text = search_gfx(self.game, self.click_map(), result, tuple(self.pending))
        if text:
            self.engine.log.write(f"gogui-gfx:\n{text}\n\n")
            self.engine.log.flush()

    def undo(self, args: tuple[str, ...]) -> str:
        arg.count(args, 0)
        self.sync()
        if not self.active:
            self.plan.clear()
            return self.base["undo"](args)
        if not (self.pending or self.game.history):
            raise GtpError("cannot undo: no move to take back")
        gmap = self.click_map()
        self.plan.clear()
        if self.tape is not None:
            self.cursor -= 1
        if self.pending:
            self.pending.pop()
            return ""
        record = self.records.pop()
        move = self.game.undo()
        clicks = record.clicks if record.clicks is not None else gmap.clicks(move)
        self.pending = list(clicks[:-1])
        return ""

    def boardsize(self, args: tuple[str, ...]) -> str:
        arg.count(args, 1, usage="boardsize SIZE")
        size = arg.integer(args[0], "board size")
        if self.active:
            gmap = self.click_map()
            try:
                size = gmap.game_size(size)
            except ValueError as error:
                raise GtpError(f"unacceptable size: {error}") from None
        response = self.base["boardsize"]((str(size),))
        self.sync()
        return response

    def clear_board(self, args: tuple[str, ...]) -> str:
        tape = self.tape
        before = self.game
        response = self.base["clear_board"](args)
        self.sync()
        if self.active:
            # a new game of the same options starts from the same position: the tape of
            # the old one still tells the result of each click replayed from the start
            same = tape is not None and self.game.options == before.options
            self.tape = tape if same else []
            self.cursor = 0
        return response

    def play_sequence(self, args: tuple[str, ...]) -> str:
        if len(args) % 2:
            raise GtpError("syntax error: gogui-play_sequence takes COLOR MOVE pairs")
        self.sync()
        restore = self.snapshot()
        for k in range(0, len(args), 2):
            try:
                self.play(args[k: k + 2])
            except GtpError as error:
                restore()
                raise GtpError(
                    f"{error} (move {k // 2 + 1} of the sequence; none played)") from None
        return ""

    # ------------------------------------------------------------ gogui-rules

    def rules_game_id(self, args: tuple[str, ...]) -> str:
        arg.count(args, 0)
        return self.handshake().game_id

    def rules_board(self, args: tuple[str, ...]) -> str:
        arg.count(args, 0)
        return "\n".join(self.click_map().rows(tuple(self.pending)))

    def rules_board_size(self, args: tuple[str, ...]) -> str:
        arg.count(args, 0)
        return str(self.handshake().size())

    def rules_legal_moves(self, args: tuple[str, ...]) -> str:
        arg.count(args, 0)
        self.click_map()
        if self.game.is_over():
            return ""
        return " ".join(format_click(c) for c in sorted(self.options(), key=click_key))

    def rules_side_to_move(self, args: tuple[str, ...]) -> str:
        arg.count(args, 0)
        self.click_map()
        return "black" if self.game.to_move == 0 else "white"

    def rules_final_result(self, args: tuple[str, ...]) -> str:
        arg.count(args, 0)
        self.click_map()
        outcome = self.game.outcome()
        if outcome is None:
            return "The game is not over."
        if outcome.winner is None:
            return f"Draw: {outcome.reason}."
        side = self.game.side_names[outcome.winner].capitalize()
        text = outcome.reason
        if side.lower() not in text.lower():
            text = f"{side} wins: {text}"
        return f"{text} ({self.session.score_text(outcome)})."

    def rules_board_gfx(self, args: tuple[str, ...]) -> str:
        arg.count(args, 0)
        return "\n".join(self.click_map().gfx(tuple(self.pending)))

    def rules_captured_count(self, args: tuple[str, ...]) -> str:
        arg.count(args, 0)
        first, second = self.click_map().captured()
        return f"{first} {second}"

    # ---------------------------------------------------------- our extensions

    def set_mode(self, args: tuple[str, ...]) -> str:
        arg.count(args, 0, 1, usage="gtpgames-gogui [on|off]")
        if args:
            value = args[0].lower()
            if value not in ("on", "off"):
                raise GtpError(f"syntax error: expected on or off, got {args[0]!r}")
            if value == "off" and self.pending:
                raise GtpError("a half-move is pending: undo it before leaving GoGui mode")
            if value == "on":
                self.click_map()
            self.active = value == "on"
        return "on" if self.active else "off"

    def analyze_commands(self, args: tuple[str, ...]) -> str:
        arg.count(args, 0)
        lines = [
            "plist/Legal Moves/gogui-rules_legal_moves",
            "gfx/Board Markings/gogui-rules_board_gfx",
            "param/Parameters/gtpgames-param",
            "string/Rules/gtpgames-rules",
            "string/Game/gtpgames-game",
            "gfx/Search on the board (1000 playouts)/gtpgames-gogui_search 1000",
        ]
        for name, line in SEARCH_ENTRIES.items():
            if name in self.engine.handlers:
                lines.append(line)
        return "\n".join(lines)

    def search(self, args: tuple[str, ...]) -> str:
        """``gtpgames-gogui_search [PLAYOUTS]``: search the position (default 1000 playouts,
        until GoGui's interrupt at most) and answer the search as gfx: VAR, LABEL,
        INFLUENCE, TEXT (see :func:`search_gfx`). The game is not changed."""
        arg.count(args, 0, 1, usage="gtpgames-gogui_search [PLAYOUTS]")
        playouts = arg.integer(args[0], "playouts", 1, 10_000_000) if args else 1000
        self.sync()
        if self.game.is_over():
            raise GtpError("cannot search: the game is over")
        player = self.session.player
        searcher = player if isinstance(player, MctsPlayer) else MctsPlayer(player.rng)
        limit = Limit(None, playouts, self.engine.should_stop)
        result = searcher.search(self.game.copy(), limit)
        return search_gfx(self.game, self.click_map(), result, tuple(self.pending))

    def param(self, args: tuple[str, ...]) -> str:
        limit = self.session.limit
        if not args:
            def show(value: object) -> str:
                return "" if value is None else str(value)

            lines = [
                f"[string] time {show(limit.time)}",
                f"[string] playouts {show(limit.playouts)}",
                f"[string] seed {show(self.seed)}",
                f"[list/gtp/native] notation {self.session.notation}",
            ]
            if hasattr(self.session.player, "level"):
                lines.append(f"[string] level {show(self.session.player.level)}")
            return "\n".join(lines)
        if len(args) > 2:
            raise GtpError("syntax error: gtpgames-param [KEY [VALUE]]")
        key, value = args[0].lower(), (args[1] if len(args) == 2 else "")
        if key == "time":
            seconds = None if not value else arg.move_seconds(value, "time")
            self.session.limit = dataclasses.replace(limit, time=seconds)
        elif key == "playouts":
            count = None if not value else arg.integer(value, "playouts", 1, arg.MAX_PLAYOUTS)
            self.session.limit = dataclasses.replace(limit, playouts=count)
        elif key == "seed":
            self.seed = None if not value else arg.integer(value, "seed")
            self.session.player.seed(self.seed)
        elif key == "notation":
            try:
                self.session.notation = check_notation(value)
            except ValueError as error:
                raise GtpError(f"syntax error: {error}") from None
        elif key == "level" and hasattr(self.session.player, "level"):
            self.session.player.level = (
                None if not value else arg.integer(value, "level", 1, max(LEVELS)))
        else:
            raise GtpError(f"unknown parameter {args[0]!r}")
        return ""

    def title(self, args: tuple[str, ...]) -> str:
        """``gogui-title``: the window title GoGui shows (it asks after each new game)."""
        arg.count(args, 0)
        game = " ".join([self.game.title, *describe_game(self.game).split()[1:]])
        return f"{game} - {self.engine.name} {self.engine.version}"

    def rules_text(self, args: tuple[str, ...]) -> str:
        arg.count(args, 0)
        try:
            return rules_page(self.game.name)
        except OSError:
            raise GtpError(f"no rules page for {self.game.title}") from None


def rules_page(name: str) -> str:
    """The rules page of the game ``name`` (docs/rules/NAME.md), read from the installed
    package :data:`RULES_PACKAGE`, or from docs/rules when the sources run without being
    installed; the HTML anchors of the rulings are left out. Raises OSError if the game has
    no page."""
    pages: Traversable
    try:
        pages = importlib.resources.files(RULES_PACKAGE)
    except ModuleNotFoundError:
        pages = Path(__file__).resolve().parent.parent / "docs" / "rules"
    text = (pages / f"{name}.md").read_text(encoding="utf-8")
    return _ANCHOR.sub("", text).strip()


def search_gfx(
    game: Game[Any], clicks: ClickMap, result: SearchResult, pending: Pending = ()
) -> str:
    """GoGui gfx commands for a search in progress, after the clicks ``pending`` of the turn:
    the principal variation (VAR), and for each legal next click the visits of the moves
    that continue through it, summed (LABEL), and their mean win rate for the player to move
    as INFLUENCE (-1 lost .. 1 won), and a TEXT status line. In Trisq and Brax several moves
    share a click, so a click is labelled with all of them; ``pass`` has no point to label."""
    depth = len(pending)
    visits: dict[Click, int] = {}
    wins: dict[Click, float] = {}
    best = None
    for stat in result.stats:
        seq = clicks.clicks(stat.move)
        if len(seq) <= depth or seq[:depth] != pending:
            continue
        if best is None or stat.visits > best.visits:
            best = stat
        click = seq[depth]
        if click is None:
            continue
        visits[click] = visits.get(click, 0) + stat.visits
        wins[click] = wins.get(click, 0.0) + stat.winrate * stat.visits
    if best is None:
        return ""
    colours = ("b", "w")
    ranked = sorted(visits, key=lambda c: (-visits[c], click_key(c)))
    labels = [f"{format_click(c)} {visits[c]}" for c in ranked]
    influence = [f"{format_click(c)} {wins[c] / visits[c] * 2 - 1:.2f}"
                 for c in ranked if visits[c]]
    var = []
    replay = game.copy()
    mover = game.to_move
    for move in best.pv or (best.move,):
        if replay.is_over():
            break
        seq = click_map(replay).clicks(move)
        click = seq[depth] if len(seq) > depth else None
        depth = 0
        if click is None:
            break
        var.append(f"{colours[replay.side_of(replay.to_move) % 2]} {format_click(click)}")
        replay.play(move)
    proof = f" proven {best.proven}" if best.proven else ""
    lines = []
    if var:
        lines.append("VAR " + " ".join(var))
    if labels:
        lines.append("LABEL " + " ".join(labels))
    if influence:
        lines.append("INFLUENCE " + " ".join(influence))
    lines.append(
        f"TEXT {game.color_name(mover)}: {best.winrate:.3f}{proof} after "
        f"{result.iterations} playouts in {result.seconds:.1f} s"
    )
    return "\n".join(lines)


def gogui_handlers(
    engine: GtpEngine, session: GameSession, seed: int | None = None
) -> dict[str, Handler]:
    """The GoGui commands for ``engine`` (add them after the session's commands);
    ``seed`` is the player's seed, shown in the parameter dialog."""
    commands = GoGuiCommands(engine, session)
    commands.seed = seed
    return commands.handlers()
