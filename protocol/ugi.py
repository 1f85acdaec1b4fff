"""A UGI engine over one game and a player, for kz04px/cutegames (its ugi.md).

UGI is UCI generalised to any two-player sequential game, plus ``query``. The commands:

* ``ugi`` -> ``id name``, ``id author``, one ``option`` line per game option and engine
  option, ``ugiok``; ``isready`` -> ``readyok`` (at any time, also during a search);
* ``uginewgame``; ``setoption name X value Y`` (a game option starts a new game; ``threads``
  sets the mcts player's search threads; options the engine does not know, such as cutegames'
  default hash, are ignored with a note on stderr);
* ``position startpos [moves ...]`` and ``position fen <position string> [moves ...]`` (the
  string of :meth:`engine.games.core.Game.position_string`; docs/ugi.md);
* ``go`` with ``p1time p2time p1inc p2inc`` (ms), ``movetime`` (ms), ``nodes`` (playouts),
  ``depth`` (1000 playouts per ply: the players search by playouts, not depth) or
  ``infinite``, answered by ``bestmove <move>``; the search runs on a worker thread and
  ``stop`` ends it (``go infinite`` answers only after ``stop``, as in UCI);
* ``query gameover|p1turn|result`` -> ``response true|false`` or
  ``response p1win|p2win|draw|none``: exact, since cutegames trusts the engine as referee;
* ``quit``.

p1 is the player who moves first from the start position (White in Bricka, Blue in Brax with
``first=blue``). A move is one token in the engine's notation (option ``notation``, default
``native``: the game's own letters; Trisq turns join placements with ``+``, Brax paths with
``-``). A move in ``position`` that is not legal ends the game there: ``query gameover`` says
true and ``query result`` gives the win to the other player (the referee's verdict).

Errors never end the session: they are reported as ``info string error: ...`` and leave the
state unchanged; stdout carries protocol lines only (notes go to stderr).
"""

from __future__ import annotations

import random
import re
import sys
import threading
from collections.abc import Callable, Iterable
from typing import IO, Any

from engine.games.core import Game, GameError, OptionSpec, parse_options
from engine.games.notation import Notation, check_notation
from engine.games.registry import game_class
from engine.search.clock import moves_left, reserve
from engine.search.players import Limit, Player

AUTHOR = "the gtpgames authors"
#: Playouts per ply of ``go depth`` (the players search by playouts).
PLAYOUTS_PER_PLY = 1000
#: ``go`` with no limit at all thinks this long (seconds).
DEFAULT_SECONDS = 1.0

#: The most search threads the ``threads`` option accepts.
MAX_THREADS = 64
#: ``go`` parameters are integers of at most this many ASCII digits (ms or playouts).
MAX_DIGITS = 12
#: An error message echoes at most this many characters of one input word.
SHOWN = 40
#: ... and is cut to this many characters in all.
MAX_MESSAGE = 300
#: The ``go`` parameters and their meaning (docs/ugi.md).
GO_PARAMETERS = ("p1time", "p2time", "p1inc", "p2inc", "movetime", "nodes", "depth")


class UgiError(Exception):
    """A command the engine cannot carry out; the message names the bad argument."""


class UgiEngine:
    """The UGI state machine: one game (rebuilt by ``position``), a player, a worker thread.

    :meth:`handle` runs one input line; output goes through ``write`` (one call per line).
    """

    def __init__(
        self,
        game_name: str,
        options: dict[str, object] | None = None,
        player: Player | None = None,
        notation: Notation = "native",
        write: Callable[[str], None] | None = None,
        log: IO[str] | None = None,
        make_player: Callable[[str], Player] | None = None,
    ) -> None:
        self.cls: type[Game[Any]] = game_class(game_name)
        self.options: dict[str, Any] = parse_options(self.cls.OPTIONS, options or {})
        self._check_two_players(self.options)
        self.player: Player = player if player is not None else _random_player()
        self.notation: Notation = notation
        self._write = write if write is not None else _stdout_writer()
        self.log = log if log is not None else sys.stderr
        self._make_player = make_player
        self._out_lock = threading.Lock()
        self.game: Game[Any] = self.cls(**self.options)
        #: The player who moves first from the start position.
        self.p1: int = self.game.to_move
        #: Set when ``position`` met an illegal move: (the player who sent it, the reason).
        self.forfeit: tuple[int, str] | None = None
        self._worker: threading.Thread | None = None
        self._stop = threading.Event()
        self.quit_requested = False
        self.handlers: dict[str, Callable[[list[str]], None]] = {
            "ugi": self._ugi,
            "isready": lambda args: self.send("readyok"),
            "uginewgame": self._uginewgame,
            "setoption": self._setoption,
            "position": self._position,
            "go": self._go,
            "stop": lambda args: self.finish_search(),
            "query": self._query,
            "quit": self._quit,
        }

    # ------------------------------------------------------------------------------- output

    def send(self, line: str) -> None:
        with self._out_lock:
            self._write(line)

    def note(self, text: str) -> None:
        print(f"ugi: {text}", file=self.log, flush=True)

    # ---------------------------------------------------------------------------- dispatch

    def handle(self, line: str) -> None:
        """Run one input line; errors are reported, never raised."""
        words = line.split()
        if not words:
            return
        name, args = words[0], words[1:]
        handler = self.handlers.get(name)
        try:
            if handler is None:
                raise UgiError(f"unknown command {shown(name)}")
            handler(args)
        except (UgiError, GameError, ValueError) as error:
            self.send(f"info string error: {bounded(str(error))}")
            self._answer_failed_go(name)
        except Exception as error:  # noqa: BLE001 - the session must go on
            import traceback

            traceback.print_exc(file=self.log)
            self.send(f"info string error: internal error ({type(error).__name__})")
            self._answer_failed_go(name)

    def _answer_failed_go(self, name: str) -> None:
        """A ``go`` that failed before its search started still answers (the controller
        waits for a ``bestmove``)."""
        if name == "go" and self._worker is None:
            self.send("bestmove 0000")

    def serve(self, stdin: Iterable[str]) -> None:
        """Read commands until ``quit`` or end of input (a search then is stopped)."""
        for line in stdin:
            self.handle(line)
            if self.quit_requested:
                break
        self.finish_search()

    # ------------------------------------------------------------------------ the commands

    def _ugi(self, args: list[str]) -> None:
        self.send(f"id name gtpgames {self.cls.name}")
        self.send(f"id author {AUTHOR}")
        for spec in self.cls.OPTIONS:
            self.send(_option_line(spec, self.options[spec.name]))
        self.send(f"option name notation type combo default {self.notation} var native var gtp")
        if self._make_player is not None:
            from engine.search.registry import PLAYERS

            names = " ".join(f"var {name}" for name in PLAYERS)
            self.send(f"option name player type combo default {self.player.name} {names}")
        if hasattr(self.player, "threads"):
            self.send(
                f"option name threads type spin default {self.player.threads} min 1 "
                f"max {MAX_THREADS}"
            )
        self.send("ugiok")

    def _uginewgame(self, args: list[str]) -> None:
        self.finish_search()
        self.game = self.cls(**self.options)
        self.forfeit = None

    def _setoption(self, args: list[str]) -> None:
        # setoption name <id> [value <x>]; the name may be several words (UCI)
        if not args or args[0] != "name":
            raise UgiError("setoption: expected 'setoption name <id> value <x>'")
        rest = args[1:]
        cut = rest.index("value") if "value" in rest else len(rest)
        name = " ".join(rest[:cut]).lower()
        value = " ".join(rest[cut + 1 :])
        if not name:
            raise UgiError("setoption: missing option name")
        self.finish_search()
        if name == "notation":
            self.notation = check_notation(value)
            return
        if name == "player" and self._make_player is not None:
            threads = getattr(self.player, "threads", None)
            self.player = self._make_player(value)
            if threads is not None and hasattr(self.player, "threads"):
                self.player.threads = threads
            return
        if name == "threads" and hasattr(self.player, "threads"):
            if not value.isdigit() or not 1 <= int(value) <= MAX_THREADS:
                raise UgiError(
                    f"setoption: threads must be 1..{MAX_THREADS}, got {shown(value)}"
                )
            self.player.threads = int(value)
            return
        if all(spec.name != name for spec in self.cls.OPTIONS):
            self.note(f"ignoring unknown option {shown(name)}")
            return
        options = parse_options(self.cls.OPTIONS, {**self.options, name: value})
        self._check_two_players(options)
        game = self.cls(**options)
        self.options, self.game, self.p1, self.forfeit = options, game, game.to_move, None

    def _position(self, args: list[str]) -> None:
        self.finish_search()
        if not args:
            raise UgiError("position: expected startpos or fen <string>")
        cut = args.index("moves") if "moves" in args else len(args)
        head, moves = args[:cut], args[cut + 1 :]
        if not head:
            raise UgiError("position: expected startpos or fen <string> before moves")
        if head[0] == "startpos" and len(head) == 1:
            game = self.cls(**self.options)
        elif head[0] == "fen" and len(head) > 1:
            game = self.cls.from_position_string(" ".join(head[1:]), **self.options)
        else:
            raise UgiError(
                f"position: expected startpos or fen <string>, got {shown(head[0])}"
            )
        forfeit = None
        for token in moves:
            if game.is_over():
                forfeit = (game.to_move, f"move {shown(token)} after the end of the game")
                break
            try:
                game.play_text(token, self.notation)
            except GameError as error:
                forfeit = (game.to_move, f"illegal move {shown(token)}: {error}")
                break
        self.game, self.forfeit = game, forfeit
        if forfeit is not None:
            self.send(
                f"info string error: {bounded(forfeit[1])}; the game is over, the mover loses"
            )

    def _go(self, args: list[str]) -> None:
        self.finish_search()
        values: dict[str, int] = {}
        infinite = False
        words = iter(args)
        for word in words:
            if word == "infinite":
                infinite = True
                continue
            if word not in GO_PARAMETERS:
                raise UgiError(
                    f"go: unknown parameter {shown(word)} (expected {', '.join(GO_PARAMETERS)}"
                    " or infinite)"
                )
            value = next(words, None)
            if value is None or not re.fullmatch(rf"-?[0-9]{{1,{MAX_DIGITS}}}", value):
                raise UgiError(
                    f"go: {word} needs an integer of at most {MAX_DIGITS} digits, got "
                    f"{'nothing' if value is None else shown(value)}"
                )
            values[word] = int(value)
        game = self.game
        if game.is_over() or self.forfeit is not None:
            self.send("info string the game is over")
            self.send("bestmove 0000")
            return
        self._stop.clear()
        limit = self.limit_for(values, infinite)
        worker = threading.Thread(
            target=self._search, args=(game.copy(), limit, infinite), daemon=True
        )
        worker.start()
        self._worker = worker

    def limit_for(self, values: dict[str, int], infinite: bool) -> Limit:
        """The player's limit for a ``go``: the tightest of the bounds given."""
        stop = self._stop.is_set
        if infinite:
            return Limit(stop=stop, infinite=True)
        seconds: list[float] = []
        playouts: list[int] = []
        if "movetime" in values:
            ms = max(values["movetime"], 0) / 1000
            seconds.append(max(0.0, ms - reserve(ms)))
        mine = "p1" if self.game.to_move == self.p1 else "p2"
        if f"{mine}time" in values:
            left = max(values[f"{mine}time"], 0) / 1000
            inc = max(values.get(f"{mine}inc", 0), 0) / 1000
            share = left / moves_left(self.game) + 0.75 * inc
            seconds.append(max(0.0, min(share, left - reserve(left))))
        if "nodes" in values:
            playouts.append(max(values["nodes"], 1))
        if "depth" in values:
            playouts.append(max(values["depth"], 1) * PLAYOUTS_PER_PLY)
        if not seconds and not playouts:
            seconds.append(DEFAULT_SECONDS)
        return Limit(
            time=min(seconds) if seconds else None,
            playouts=min(playouts) if playouts else None,
            stop=stop,
        )

    def _search(self, game: Game[Any], limit: Limit, infinite: bool) -> None:
        try:
            move = self.player.choose_move(game, limit)
            token = game.format_move(move, self.notation)
        except Exception:  # noqa: BLE001 - a failed search still answers
            import traceback

            traceback.print_exc(file=self.log)
            token = game.format_move(game.random_move(random.Random(0)), self.notation)
        if infinite:
            self._stop.wait()
        self.send(f"bestmove {token}")

    def finish_search(self) -> None:
        """Stop a running search and wait for its ``bestmove``."""
        worker = self._worker
        if worker is None:
            return
        self._stop.set()
        worker.join()
        self._worker = None

    def wait(self) -> None:
        """Wait for a running (bounded) search to answer, without stopping it."""
        worker = self._worker
        if worker is not None:
            worker.join()
            self._worker = None

    def _query(self, args: list[str]) -> None:
        if len(args) != 1:
            raise UgiError("query: expected one of gameover, p1turn, result")
        question = args[0]
        game = self.game
        over = self.forfeit is not None or game.is_over()
        if question == "gameover":
            self.send(f"response {'true' if over else 'false'}")
        elif question == "p1turn":
            self.send(f"response {'true' if game.to_move == self.p1 else 'false'}")
        elif question == "result":
            self.send(f"response {self.result()}")
        else:
            raise UgiError(
                f"query: unknown question {shown(question)} (gameover, p1turn, result)"
            )

    def result(self) -> str:
        """``p1win``, ``p2win``, ``draw`` or ``none`` (the game is not over)."""
        if self.forfeit is not None:
            return "p2win" if self.forfeit[0] == self.p1 else "p1win"
        outcome = self.game.outcome()
        if outcome is None:
            return "none"
        if outcome.winner is None:
            return "draw"
        return "p1win" if outcome.winner == self.game.side_of(self.p1) else "p2win"

    def _quit(self, args: list[str]) -> None:
        self.finish_search()
        self.quit_requested = True

    # ----------------------------------------------------------------------------- helpers

    def _check_two_players(self, options: dict[str, Any]) -> None:
        if int(options.get("players", 2)) != 2:
            raise UgiError(
                f"{self.cls.title} with players={options['players']} is not a two-player "
                "game: UGI (and cutegames) need exactly two players"
            )


def shown(text: str) -> str:
    """``repr(text)``, cut to a short prefix when it is long (errors echo their input)."""
    return repr(text) if len(text) <= SHOWN else f"{text[:SHOWN]!r}..."


def bounded(message: str) -> str:
    """An error message with every over-long word cut to a prefix and the whole bounded:
    whatever a message echoes, a huge input never comes back."""
    message = re.sub(
        rf"\S{{{2 * SHOWN + 1},}}", lambda found: f"{found.group()[: 2 * SHOWN]}...", message
    )
    return message if len(message) <= MAX_MESSAGE else f"{message[:MAX_MESSAGE]}..."


def _option_line(spec: OptionSpec, value: object) -> str:
    if spec.kind == "int":
        return (
            f"option name {spec.name} type spin default {value} "
            f"min {spec.minimum} max {spec.maximum}"
        )
    if spec.kind == "bool":
        return f"option name {spec.name} type check default {'true' if value else 'false'}"
    choices = " ".join(f"var {choice}" for choice in spec.choices)
    return f"option name {spec.name} type combo default {value} {choices}"


def _random_player() -> Player:
    from engine.search.players import RandomPlayer

    return RandomPlayer(random.Random())


def _stdout_writer() -> Callable[[str], None]:
    def write(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    return write
