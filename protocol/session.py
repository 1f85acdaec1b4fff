"""The stateful GTP command set: one game, a player, the clock, and the gtpgames extensions.

Standard commands follow GTP 2 (Farnebäck, draft 2); the ``gtpgames-`` extensions are
documented in docs/protocol.md. Every handler checks its arguments before it changes anything,
so a failure leaves the session as it was.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

from engine.games.core import Game, GameError, Outcome
from engine.games.notation import Notation, check_notation
from engine.games.registry import UnknownGameError, game_summaries, new_game
from engine.search.clock import (
    PlayerClock,
    TimeControl,
    estimate_seconds,
    move_time,
    moves_left,
)
from engine.search.players import Limit, Player
from protocol import args as arg
from protocol.engine import Handler
from protocol.gtp import GtpError


class Stopped(Exception):
    """A count was stopped before its end (GoGui's interrupt, or the controller went away)."""


def perft(game: Game[Any], depth: int, stop: Callable[[], bool]) -> int:
    """``game.perft(depth)``, checking ``stop`` at every node two or more plies from the
    leaves (raising :class:`Stopped`); ``game`` is played on and restored."""
    if depth <= 1 or game.is_over():
        return game.perft(depth)
    if stop():
        raise Stopped
    total = 0
    for move in game.legal_moves():
        game.play(move)
        try:
            total += perft(game, depth - 1, stop)
        finally:
            game.undo()
    return total


def parse_option_pairs(items: tuple[str, ...]) -> dict[str, str]:
    options: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise GtpError(f"syntax error: expected KEY=VALUE, got {item!r}")
        options[key.lower()] = value
    return options


def result_sentence(game: Game[Any], outcome: Outcome) -> str:
    """The result as a person reads it, in the game's own colours: ``draw: <reason>``, or
    the reason alone when it starts with the winner's name, else ``<Winner> wins: <reason>``."""
    if outcome.winner is None:
        return f"draw: {outcome.reason}"
    winner = game.side_names[outcome.winner].capitalize()
    if outcome.reason.startswith(winner):
        return outcome.reason
    return f"{winner} wins: {outcome.reason}"


def describe_game(game: Game[Any]) -> str:
    specs = {spec.name: spec for spec in game.OPTIONS}
    parts = [game.name] + [f"{k}={specs[k].format(v)}" for k, v in game.options.items()]
    return " ".join(parts)


class GameSession:
    """The game being played over GTP, with its player, notation and clocks."""

    #: Controller compatibility switches (docs/tournaments.md): ``swap_as_pass`` writes the
    #: pie swap as ``pass`` (White's first turn, in and out); ``pass_at_end`` accepts
    #: ``play X pass`` after the end (where genmove answers ``pass`` for a side that has not
    #: lost).
    COMPAT = ("swap_as_pass", "pass_at_end")
    swap_as_pass: bool = False
    pass_at_end: bool = False

    def __init__(
        self,
        game: Game[Any],
        player: Player,
        notation: Notation | None = None,
        limit: Limit | None = None,
    ) -> None:
        self.game = game
        self.player = player
        self.notation: Notation = notation or game.DEFAULT_NOTATION
        self.limit = limit or Limit()
        self.komi = 0.0
        self.time_control = TimeControl()
        self.clocks: dict[int, PlayerClock] = {}
        #: Polled by a running search: the engine sets it to its interrupt check.
        self.should_stop: Callable[[], bool] = lambda: False

    # ------------------------------------------------------------------ helpers

    def handlers(self) -> dict[str, Handler]:
        return {
            "boardsize": self.boardsize,
            "clear_board": self.clear_board,
            "komi": self.set_komi,
            "play": self.play,
            "genmove": self.genmove,
            "reg_genmove": self.reg_genmove,
            "undo": self.undo,
            "showboard": self.showboard,
            "final_score": self.final_score,
            "time_settings": self.time_settings,
            "time_left": self.time_left,
            "kgs-time_settings": self.kgs_time_settings,
            "gtpgames-game": self.select_game,
            "gtpgames-games": self.list_games,
            "gtpgames-option": self.set_option,
            "gtpgames-notation": self.set_notation,
            "gtpgames-legal_moves": self.legal_moves,
            "gtpgames-perft": self.perft,
            "gtpgames-result": self.result,
            "gtpgames-position": self.position,
        }

    def color(self, token: str) -> int:
        try:
            return self.game.parse_color(token)
        except GameError:
            raise GtpError(f"syntax error: invalid color {token!r}") from None

    def replace_game(self, game: Game[Any]) -> None:
        """Start a new game (a new board); clocks are reset to the time control."""
        self.game = game
        self.clocks = {}

    def turn_check(self, player: int) -> None:
        if player != self.game.to_move:
            raise GtpError(
                f"illegal move: {self.game.color_name(player)} is not to move "
                f"({self.game.color_name(self.game.to_move)} is)"
            )

    def choose(self, player: int) -> str | None:
        """The token the player would play for ``player``; ``None`` means resign."""
        if self.game.is_over():
            return None
        self.turn_check(player)
        limit = dataclasses.replace(self.limit, stop=self.should_stop)
        if limit.time is not None:  # the controller's clock runs from genmove to the answer
            limit = dataclasses.replace(limit, time=move_time(limit.time))
        budget = None
        if self.time_control.kind != "none":
            clock = self.clocks.get(player) or self.time_control.fresh_clock()
            estimate = moves_left(self.game, max_seconds=estimate_seconds(clock.seconds))
            budget = self.time_control.budget(clock, estimate)
        if budget is not None and (limit.time is None or budget < limit.time):
            limit = dataclasses.replace(limit, time=budget)
        move = self.player.choose_move(self.game.copy(), limit)
        return self.game.format_move(move, self.notation)

    # ------------------------------------------------------------- GTP standard

    def boardsize(self, args: tuple[str, ...]) -> str:
        arg.count(args, 1, usage="boardsize SIZE")
        size = arg.integer(args[0], "board size")
        if any(spec.name == "size" for spec in self.game.OPTIONS):
            try:
                game = type(self.game)(**{**self.game.options, "size": size})
            except GameError as error:
                raise GtpError(f"unacceptable size: {error}") from None
        elif size == self.game.board_size:
            game = self.game.new_game()
        else:
            raise GtpError(
                f"unacceptable size: {size} ({self.game.name} is played on "
                f"{self.game.board_size} only)"
            )
        self.replace_game(game)
        return ""

    def clear_board(self, args: tuple[str, ...]) -> str:
        arg.count(args, 0)
        self.replace_game(self.game.new_game())
        return ""

    def set_komi(self, args: tuple[str, ...]) -> str:
        arg.count(args, 1, usage="komi VALUE")
        self.komi = arg.number(args[0], "komi", -arg.MAX_KOMI, arg.MAX_KOMI)
        return ""

    def play(self, args: tuple[str, ...]) -> str:
        arg.count(args, 2, usage="play COLOR MOVE")
        player = self.color(args[0])
        token = self.incoming_token(player, args[1])
        if self.game.is_over():
            if self.pass_at_end and token.lower() == "pass":
                return ""
            raise GtpError("illegal move: game over")
        try:
            move = self.game.parse_move(token, self.notation)
        except GameError as error:
            raise GtpError(f"syntax error: {error}") from None
        self.turn_check(player)
        try:
            self.game.check_move(move, self.notation)
        except GameError as error:
            raise GtpError(f"illegal move: {error}") from None
        self.game.play(move)
        return ""

    def genmove(self, args: tuple[str, ...]) -> str:
        arg.count(args, 1, usage="genmove COLOR")
        player = self.color(args[0])
        start = time.monotonic()
        token = self.choose(player)
        if token is None:
            return self.end_token(player)
        self.game.play_text(token, self.notation)
        clock = self.clocks.get(player)
        if clock is None and self.time_control.kind != "none":
            # no time_left yet: the clock runs from the time settings
            clock = self.clocks[player] = self.time_control.fresh_clock()
        if clock is not None:
            clock.seconds = max(0.0, clock.seconds - (time.monotonic() - start))
        return self.outgoing_token(token)

    def reg_genmove(self, args: tuple[str, ...]) -> str:
        arg.count(args, 1, usage="reg_genmove COLOR")
        player = self.color(args[0])
        token = self.choose(player)
        return self.end_token(player) if token is None else self.outgoing_token(token)

    def undo(self, args: tuple[str, ...]) -> str:
        arg.count(args, 0)
        if not self.game.history:
            raise GtpError("cannot undo: no move to take back")
        self.game.undo()
        return ""

    def showboard(self, args: tuple[str, ...]) -> str:
        arg.count(args, 0)
        outcome = self.game.outcome()
        if outcome is None:
            status = f"{self.game.player_name(self.game.to_move)} to move"
        else:
            status = f"game over: {result_sentence(self.game, outcome)}"
        return f"\n{self.game.board_text(self.notation)}\n{status}"

    def final_score(self, args: tuple[str, ...]) -> str:
        arg.count(args, 0)
        outcome = self.game.outcome()
        if outcome is None:
            raise GtpError("cannot score: the game is not over")
        return self.score_text(outcome)

    @staticmethod
    def score_text(outcome: Outcome) -> str:
        """``B+`` when side 0 won (the player of the GTP colour ``b``: Black, or Red in
        Trisq and Brax, or the red team), ``W+`` for side 1, ``0`` for a draw."""
        if outcome.winner is None:
            return "0"
        return "B+" if outcome.winner == 0 else "W+"

    def time_settings(self, args: tuple[str, ...]) -> str:
        arg.count(args, 3, usage="time_settings MAIN BYO_YOMI_TIME BYO_YOMI_STONES")
        main = arg.integer(args[0], "main time", 0, arg.MAX_SECONDS)
        period = arg.integer(args[1], "byo-yomi time", 0, arg.MAX_SECONDS)
        stones = arg.integer(args[2], "byo-yomi stones", 0, arg.MAX_STONES)
        if period > 0 and stones == 0:
            control = TimeControl("none")
        elif period == 0 and stones == 0:
            control = TimeControl("absolute", main)
        else:
            control = TimeControl("canadian", main, period, stones)
        self.time_control = control
        self.clocks = {}
        return ""

    def kgs_time_settings(self, args: tuple[str, ...]) -> str:
        if not args:
            raise GtpError("syntax error: expected none, absolute, byoyomi or canadian")
        kind = args[0].lower()
        if kind == "none":
            arg.count(args, 1, usage="kgs-time_settings none")
            control = TimeControl("none")
        elif kind == "absolute":
            arg.count(args, 2, usage="kgs-time_settings absolute MAIN")
            control = TimeControl(
                "absolute", arg.integer(args[1], "main time", 0, arg.MAX_SECONDS)
            )
        elif kind in ("byoyomi", "canadian"):
            arg.count(args, 4, usage=f"kgs-time_settings {kind} MAIN PERIOD_TIME COUNT")
            control = TimeControl(
                "byoyomi" if kind == "byoyomi" else "canadian",
                arg.integer(args[1], "main time", 0, arg.MAX_SECONDS),
                arg.integer(args[2], "period time", 0, arg.MAX_SECONDS),
                arg.integer(
                    args[3], "periods" if kind == "byoyomi" else "stones", 0, arg.MAX_STONES
                ),
            )
        else:
            raise GtpError(f"syntax error: unknown time system {args[0]!r}")
        self.time_control = control
        self.clocks = {}
        return ""

    def time_left(self, args: tuple[str, ...]) -> str:
        arg.count(args, 3, usage="time_left COLOR TIME STONES")
        player = self.color(args[0])
        seconds = arg.number(args[1], "time", 0, arg.MAX_SECONDS)
        stones = arg.integer(args[2], "stones", 0, arg.MAX_STONES)
        self.clocks[player] = PlayerClock(seconds, stones)
        return ""

    # ---------------------------------------------------------- gtpgames- extensions

    def select_game(self, args: tuple[str, ...]) -> str:
        if not args:
            return describe_game(self.game)
        options = parse_option_pairs(args[1:])
        try:
            game = new_game(args[0], **options)
        except UnknownGameError as error:
            raise GtpError(str(error)) from None
        except GameError as error:
            raise GtpError(f"syntax error: {error}") from None
        self.replace_game(game)
        self.notation = game.DEFAULT_NOTATION
        return describe_game(game)

    def list_games(self, args: tuple[str, ...]) -> str:
        arg.count(args, 0)
        return "\n".join(f"{name} {options}" for name, _, options in game_summaries())

    def set_option(self, args: tuple[str, ...]) -> str:
        arg.count(args, 2, usage="gtpgames-option KEY VALUE")
        key = args[0].lower()
        if key == "notation":
            return self.set_notation(args[1:])
        if key in self.COMPAT:
            return self.set_compat(key, args[1])
        try:
            game = type(self.game)(**{**self.game.options, key: args[1]})
        except GameError as error:
            raise GtpError(f"syntax error: {error}") from None
        self.replace_game(game)
        return describe_game(game)

    def set_notation(self, args: tuple[str, ...]) -> str:
        arg.count(args, 0, 1, usage="gtpgames-notation [gtp|native]")
        if args:
            try:
                self.notation = check_notation(args[0])
            except ValueError as error:
                raise GtpError(f"syntax error: {error}") from None
        return self.notation

    def position(self, args: tuple[str, ...]) -> str:
        """Without arguments the position string of the game; with one, set it up."""
        if not args:
            try:
                return self.game.position_string()
            except GameError as error:
                raise GtpError(f"cannot write the position: {error}") from None
        try:
            game = type(self.game).from_position_string(" ".join(args), **self.game.options)
        except GameError as error:
            raise GtpError(f"syntax error: {error}") from None
        self.replace_game(game)
        return ""

    def legal_moves(self, args: tuple[str, ...]) -> str:
        arg.count(args, 0)
        return self.game.listed_moves_text(self.notation)

    def perft(self, args: tuple[str, ...]) -> str:
        arg.count(args, 1, usage="gtpgames-perft DEPTH")
        depth = arg.integer(args[0], "depth", 0, 64)
        try:
            return str(perft(self.game.copy(), depth, self.should_stop))
        except Stopped:
            raise GtpError(f"interrupted: perft {depth} stopped before its end") from None

    def result_text(self) -> str:
        outcome = self.game.outcome()
        if outcome is None:
            return "none game in progress"
        who = "draw" if outcome.winner is None else self.game.side_names[outcome.winner]
        return f"{who} {outcome.reason}"

    def result(self, args: tuple[str, ...]) -> str:
        arg.count(args, 0)
        return self.result_text()

    # ------------------------------------------- controller compatibility (gogui-twogtp)

    def set_compat(self, key: str, value: str) -> str:
        """``gtpgames-option swap_as_pass|pass_at_end on|off``; answers ``key=on|off``."""
        text = value.lower()
        if text not in ("on", "off", "true", "false", "yes", "no", "1", "0"):
            raise GtpError(f"syntax error: option {key}: expected on or off, got {value!r}")
        setattr(self, key, text in ("on", "true", "yes", "1"))
        return f"{key}={'on' if getattr(self, key) else 'off'}"

    def swap_is_legal(self) -> bool:
        try:
            move = self.game.parse_move("swap", self.notation)
        except GameError:
            return False
        return not self.game.is_over() and self.game.illegal_reason(move, self.notation) is None

    def incoming_token(self, player: int, token: str) -> str:
        """``pass`` means the swap when ``swap_as_pass`` is on and ``player`` may swap now."""
        if (self.swap_as_pass and token.lower() == "pass" and not self.game.is_over()
                and player == self.game.to_move and self.swap_is_legal()):
            return "swap"
        return token

    def outgoing_token(self, token: str) -> str:
        if self.swap_as_pass and token in ("swap", "swap-pieces"):
            return "pass"
        return token

    def end_token(self, player: int) -> str:
        """genmove's answer once the game is over (GTP's genmove never fails and answers a
        move, ``pass`` or ``resign``): ``resign`` if ``player``'s side has lost, else
        ``pass`` (the winner, or either side after a draw, has nothing to play)."""
        outcome = self.game.outcome()
        if outcome is not None and outcome.winner is not None and (
            outcome.winner != self.game.side_of(player)
        ):
            return "resign"
        return "pass"
