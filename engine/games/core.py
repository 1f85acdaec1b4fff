"""The game contract every gtpgames rules core satisfies.

The shape follows OpenSpiel's one-contract-for-every-game and python-chess's mutable board with
play/undo over a stack of saved states:

* a game is a mutable object built from validated options (``Brique(size=9, pie=False)``);
* players are numbered by *colour*, not by turn order: player 0 is the GTP colour ``b`` and
  player 1 the colour ``w`` (team variants number their seats 0..k-1 as ``p1``..``pk``);
  :attr:`Game.to_move` says who moves, so a game where White moves first simply starts with
  ``to_move == 1``;
* a move is a small frozen, hashable value of the game's own type; text forms are codecs at
  the edge (:meth:`Game.parse_move`, :meth:`Game.format_move`) in both notations of
  ``docs/rules/README.md``;
* two tiers of legality: :meth:`Game.play` trusts its caller (search), while
  :meth:`Game.play_text` and :meth:`Game.check_move` validate and raise a typed error that
  subclasses :class:`ValueError` and names the bad input;
* the outcome names a winning *side* (a colour, or a team in the Brax team variants) or a
  draw, with the reason.
"""

from __future__ import annotations

import abc
import dataclasses
import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar, Generic, Literal, Self, TypeVar

from engine.games.notation import Notation, natural_key

Move = TypeVar("Move")

BLACK = 0
WHITE = 1


class GameError(ValueError):
    """Base of every error a rules core raises on bad input; the message names the input."""


class MoveSyntaxError(GameError):
    """A move token that does not name a move of this game (bad syntax, off the board)."""


class IllegalMoveError(GameError):
    """A well-formed move that the rules do not allow now; the message says why."""


class OptionError(GameError):
    """An unknown option, or a value the option does not accept."""


class PositionError(GameError):
    """A position string that does not describe a position of this game; the message names
    the bad field (see :meth:`Game.from_position_string`)."""


@dataclasses.dataclass(frozen=True)
class Outcome:
    """The end of a game: ``winner`` is a side index (see :attr:`Game.side_names`) or ``None``
    for a draw; ``reason`` is a short human-readable sentence that says how the game ended,
    naming sides by the game's own colours, and does not start with the result itself (no
    ``draw:`` or ``White wins:``): the protocol writes the result before it."""

    winner: int | None
    reason: str

    @property
    def is_draw(self) -> bool:
        return self.winner is None


@dataclasses.dataclass(frozen=True)
class OptionSpec:
    """One game option: its name, kind, default and accepted values."""

    name: str
    kind: Literal["int", "bool", "choice"]
    default: int | bool | str
    help: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()

    def parse(self, value: object) -> int | bool | str:
        """Validate ``value`` (text or an already-typed value); raise :class:`OptionError`."""
        text = str(value).strip().lower()
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            if text in ("on", "true", "yes", "1"):
                return True
            if text in ("off", "false", "no", "0"):
                return False
            raise OptionError(f"option {self.name}: expected on or off, got {value!r}")
        if self.kind == "int":
            if isinstance(value, bool):
                raise OptionError(f"option {self.name}: expected an integer, got {value!r}")
            try:
                number = int(text)
            except ValueError:
                raise OptionError(
                    f"option {self.name}: expected an integer, got {value!r}"
                ) from None
            if (self.minimum is not None and number < self.minimum) or (
                self.maximum is not None and number > self.maximum
            ):
                raise OptionError(
                    f"option {self.name}: {number} is out of range "
                    f"{self.minimum}..{self.maximum}"
                )
            return number
        if text not in self.choices:
            raise OptionError(
                f"option {self.name}: expected one of {', '.join(self.choices)}, got {value!r}"
            )
        return text

    def format(self, value: object) -> str:
        if self.kind == "bool":
            return "on" if value else "off"
        return str(value)

    def describe(self) -> str:
        """``size=11 (int 3..25)``-style summary used by ``gtpgames games``."""
        if self.kind == "int":
            domain = f"int {self.minimum}..{self.maximum}"
        elif self.kind == "bool":
            domain = "on|off"
        else:
            domain = "|".join(self.choices)
        return f"{self.name}={self.format(self.default)} ({domain})"


def parse_options(
    specs: Sequence[OptionSpec], given: Mapping[str, object]
) -> dict[str, Any]:
    """Validate ``given`` against ``specs``; return every option with defaults filled in."""
    by_name = {spec.name: spec for spec in specs}
    values: dict[str, Any] = {spec.name: spec.default for spec in specs}
    for key, value in given.items():
        spec = by_name.get(key.lower())
        if spec is None:
            known = ", ".join(by_name) or "none"
            raise OptionError(f"unknown option {key!r} (options: {known})")
        values[spec.name] = spec.parse(value)
    return values


class Game(abc.ABC, Generic[Move]):
    """A mutable game state with play/undo; subclasses implement one game's rules exactly.

    Subclasses set the class attributes, implement the abstract methods, and call
    ``super().__init__(**options)`` first in ``__init__``.
    """

    #: Registry name, lowercase (``brique``).
    name: ClassVar[str]
    #: Human-readable title (``Brique``).
    title: ClassVar[str]
    #: The options this game accepts.
    OPTIONS: ClassVar[tuple[OptionSpec, ...]] = ()
    #: Default notation in the protocol front end (``native`` for Bricka).
    DEFAULT_NOTATION: ClassVar[Notation] = "gtp"
    #: GTP colour tokens, lowercase, to player index. The first token of each player in this
    #: mapping's order is the canonical short name (``b``, ``w``, ``p1``, ...).
    COLORS: ClassVar[Mapping[str, int]] = {"b": BLACK, "black": BLACK, "w": WHITE, "white": WHITE}

    def __init__(self, **options: object) -> None:
        self.options: dict[str, Any] = parse_options(self.OPTIONS, options)

    # ----------------------------------------------------------------- identity and players

    @property
    def num_players(self) -> int:
        return len(set(self.COLORS.values()))

    @property
    def side_names(self) -> tuple[str, ...]:
        """The game's own names of the sides an :class:`Outcome` can name, lowercase
        (``black``, ``white`` by default; ``red``, ``blue`` in Trisq and Brax)."""
        return ("black", "white")

    def side_of(self, player: int) -> int:
        """The side (colour or team) that ``player`` plays for."""
        return player

    def player_name(self, player: int) -> str:
        """The name a person reads for ``player``: the game's own colour (``Red`` in Trisq,
        where the GTP colour is ``b``), or the seat and its team in Brax's team variants."""
        return self.side_names[self.side_of(player)].capitalize()

    @property
    def board_size(self) -> int:
        """The number of columns, for GTP ``boardsize``."""
        return int(self.options["size"])

    def parse_color(self, token: str) -> int:
        """The player named by a GTP colour token; raises :class:`GameError`."""
        player = self.COLORS.get(token.lower())
        if player is None:
            raise GameError(f"invalid color {token!r}")
        return player

    def color_name(self, player: int) -> str:
        """The canonical short colour token of ``player`` (``b``, ``w``, ``p1``...)."""
        for token, index in self.COLORS.items():
            if index == player:
                return token
        raise GameError(f"no player {player}")

    # --------------------------------------------------------------------- the rules contract

    @property
    @abc.abstractmethod
    def to_move(self) -> int:
        """The player whose turn it is (meaningful only while the game is running)."""

    @abc.abstractmethod
    def legal_moves(self) -> list[Move]:
        """Every legal turn-level move; empty exactly when the game is over."""

    @abc.abstractmethod
    def play(self, move: Move) -> None:
        """Play a move **assumed legal** (search calls this; it does not validate)."""

    @abc.abstractmethod
    def undo(self) -> Move:
        """Take back the last move and return it; raise :class:`GameError` if there is none."""

    @abc.abstractmethod
    def outcome(self) -> Outcome | None:
        """The outcome if the game is over, else ``None``."""

    @abc.abstractmethod
    def parse_move(self, token: str, notation: Notation = "gtp") -> Move:
        """Parse a move token (case-insensitive); raise :class:`MoveSyntaxError` if it names
        no move of this game on this board. Legality is not checked."""

    @abc.abstractmethod
    def format_move(self, move: Move, notation: Notation = "gtp") -> str:
        """The canonical lowercase token of ``move``."""

    @abc.abstractmethod
    def illegal_reason(self, move: Move, notation: Notation = "gtp") -> str | None:
        """``None`` if ``move`` is legal now, else a short reason that names the move in
        ``notation`` (``c3 is occupied``); the protocol answers ``illegal move: <reason>``."""

    @abc.abstractmethod
    def board_text(self, notation: Notation = "gtp") -> str:
        """A readable diagram of the position, with coordinates (no empty lines inside)."""

    @property
    @abc.abstractmethod
    def history(self) -> Sequence[Move]:
        """The moves played so far, oldest first."""

    # ------------------------------------------------------------------- position strings

    def position_string(self) -> str:
        """The whole game state needed to go on by the rules, as one line of space-separated
        fields (board first, then the player to move, then what the rules also depend on);
        each game documents its fields (docs/ugi.md) and what, if anything, it drops.

        ``type(g).from_position_string(g.position_string(), **g.options)`` continues
        exactly like ``g``: the same legal moves and the same outcome after the same moves.
        Points are written in native notation.
        """
        raise GameError(f"{self.title} has no position string")

    @classmethod
    def from_position_string(cls, text: str, **options: object) -> Self:
        """The game described by ``text`` (see :meth:`position_string`), with ``options``
        validated as for the constructor; raise :class:`PositionError` naming the bad field.

        The new game's history holds at most the few last moves the string records (replayed
        from the position before them); moves before those cannot be undone.
        """
        raise PositionError(f"{cls.title} has no position string")

    # ----------------------------------------------------------------- derived, overridable

    def is_over(self) -> bool:
        return self.outcome() is not None

    def is_legal(self, move: Move) -> bool:
        return self.illegal_reason(move) is None

    def check_move(self, move: Move, notation: Notation = "gtp") -> None:
        """Raise :class:`IllegalMoveError` with the reason (which names the move) if ``move``
        is illegal now."""
        if self.is_over():
            raise IllegalMoveError("game over")
        reason = self.illegal_reason(move, notation)
        if reason is not None:
            raise IllegalMoveError(reason)

    def listed_moves(self) -> list[Move]:
        """The legal moves as the protocol lists them: each turn once, in canonical form,
        without variants that differ only by an annotation (Brax's ``!`` calls). The
        default is :meth:`legal_moves`."""
        return self.legal_moves()

    def listed_moves_text(self, notation: Notation = "gtp") -> str:
        """The tokens of :meth:`listed_moves`, space-separated, in natural order (``a2``
        before ``a10``: :func:`~engine.games.notation.natural_key`): the answer to
        ``gtpgames-legal_moves``. Games with very long lists override this with a direct
        writer that gives the same text."""
        tokens = {self.format_move(m, notation) for m in self.listed_moves()}
        return " ".join(sorted(tokens, key=natural_key))

    def play_text(self, token: str, notation: Notation = "gtp") -> Move:
        """Parse, validate and play a token; the state is unchanged if this raises."""
        if self.is_over():
            raise IllegalMoveError("game over")
        move = self.parse_move(token, notation)
        self.check_move(move, notation)
        self.play(move)
        return move

    def copy(self) -> Self:
        """An independent copy (subclasses override with a faster one where it matters)."""
        import copy as _copy

        return _copy.deepcopy(self)

    def new_game(self) -> Self:
        """A fresh game with the same options."""
        return type(self)(**self.options)

    def random_move(self, rng: random.Random) -> Move:
        """A uniformly random legal move (games with huge move lists override this with a
        faster sampler, which need not be uniform)."""
        moves = self.legal_moves()
        if not moves:
            raise GameError("no legal move: the game is over")
        return rng.choice(moves)

    def random_playout(self, rng: random.Random) -> Outcome:
        """Play random moves on a copy until the game ends; this state is not changed.

        Games override this with a fast path (no full rescans) for search and benchmarks.
        """
        game = self.copy()
        while (result := game.outcome()) is None:
            game.play(game.random_move(rng))
        return result

    def playout(self, rng: random.Random) -> Outcome:
        """The playout a search uses to evaluate this position (this state is not changed):
        :meth:`random_playout` unless the game has a better policy (Brax: captures first)."""
        return self.random_playout(rng)

    def perft(self, depth: int) -> int:
        """The number of legal move sequences of length ``depth``; terminal positions are
        leaves (they count once, whatever depth remains)."""
        if depth == 0 or self.is_over():
            return 1
        moves = self.legal_moves()
        if depth == 1:
            return len(moves)
        total = 0
        for move in moves:
            self.play(move)
            total += self.perft(depth - 1)
            self.undo()
        return total

    def moves_text(self, notation: Notation = "gtp") -> Iterator[str]:
        """The history as tokens."""
        replay = self.new_game()
        for move in self.history:
            yield replay.format_move(move, notation)
            replay.play(move)
