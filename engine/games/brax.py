"""Brax (Jinx): the exact rules core, with the 3- and 4-player team variants and a hunt.

Implements ``docs/rules/brax.md`` (rulings X1-X16 and V1-V4): 9x9 points joined by red and
blue lines (geometry in :mod:`engine.games.brax_board`); one step along any line or two steps along
lines of the mover's colour (turning allowed, never back); the double capture; optional
captures; the Brax call (X7-X11: call (a) and (b), the one-turn wait, the 1-vs-2 ban, the
lapse); the win by capturing every enemy piece; the loss without a move; the 1-vs-1 draw after
10 plies; the house draws (options ``repetition`` and ``nocapture``); the team variants of
docs/rules/brax.md#teams (option ``players``).

The hunt (option ``hunt``) is the issue's "one piece against the other side's pieces", which
ruling X16 leaves unspecified; this module defines it as: Red has a single piece on E1, Blue
its seven pieces on B9-H9, and the two-player rules apply unchanged (the hunter wins by
capturing all seven, the geese by capturing the hunter or leaving it without a move).

Moves are :class:`BraxMove` values: the path(s) of the turn as point indices and the call
flag. :meth:`Brax.legal_moves` lists call variants as separate moves (a call is part of the
turn); :meth:`Brax.listed_moves` lists the turns without them.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import ClassVar, Self

from engine.games.brax_board import (
    BLUE,
    COLOUR,
    HORIZONTAL_ROWS,
    NEAR,
    NEIGHBOURS,
    POINTS,
    RED,
    TWO_STEPS,
    VERTICAL_ROWS,
    N,
    index,
)
from engine.games.core import (
    Game,
    GameError,
    MoveSyntaxError,
    OptionError,
    OptionSpec,
    Outcome,
    PositionError,
)
from engine.games.notation import Notation, column_letter, format_point, parse_point
from engine.games.position_text import (
    decode_board,
    encode_board,
    parse_count,
    parse_side,
    split_fields,
)

Path = tuple[int, ...]
Turn = tuple[Path, ...]
#: What undo restores: board, turn index, forced set, call flags, previous player and the
#: points it moved to, quiet plies, pieces per seat, result.
_Saved = tuple[
    bytes, int, frozenset[int], list[bool], int, tuple[int, ...], int, list[int], "Outcome | None"
]


@dataclasses.dataclass(frozen=True, slots=True)
class BraxMove:
    """One turn: the path of the moved piece (two for the 3-player loner, none for ``pass``)
    as point indices ``r * 9 + f``, and whether the mover calls "Brax"."""

    paths: Turn
    call: bool = False

    @property
    def is_pass(self) -> bool:
        return not self.paths


PASS = BraxMove(())
_POSITION_CELL = re.compile("[rb]")

_COLOUR_WORD = ("Red", "Blue")


def _amount(count: int, singular: str, plural: str = "") -> str:
    """``1 piece``, ``2 pieces``."""
    return f"{count} {singular if count == 1 else plural or singular + 's'}"


def _points(text: str) -> list[int]:
    out = []
    for token in text.split():
        point = parse_point(token, N, N, "native")
        if point is None:
            raise ValueError(f"bad point {token!r}")
        out.append(index(*point))
    return out


# seat -> side, seat -> start points, turn order, loner seat, per variant
_VARIANTS: dict[str, tuple[tuple[int, ...], tuple[str, ...], tuple[int, ...], int]] = {
    "two": ((RED, BLUE), ("b1 c1 d1 e1 f1 g1 h1", "b9 c9 d9 e9 f9 g9 h9"), (0, 1), -1),
    "hunt": ((RED, BLUE), ("e1", "b9 c9 d9 e9 f9 g9 h9"), (0, 1), -1),
    "three": (
        (BLUE, RED, RED),
        ("c9 d9 e9 f9 g9", "c1 d1 e1", "f1 g1 h1"),
        (0, 1, 0, 2),
        0,
    ),
    "four": (
        (RED, BLUE, RED, BLUE),
        ("d1 e1 f1", "a4 a5 a6", "d9 e9 f9", "i4 i5 i6"),
        (0, 1, 2, 3),
        -1,
    ),
}


def piece_paths(board: bytearray | bytes, p: int, side: int, sideof: Sequence[int]) -> list[Path]:
    """The legal paths (X4-X5) of the piece of ``side`` on ``p``, ignoring obligations."""
    other = 1 - side
    out: list[Path] = []
    for q in NEIGHBOURS[p]:
        x = board[q]
        if x == 0 or sideof[x] == other:
            out.append((p, q))
    for q, t in TWO_STEPS[side][p]:
        x = board[q]
        y = board[t]
        if x == 0:
            if y == 0 or sideof[y] == other:
                out.append((p, q, t))
        elif sideof[x] == other and y != 0 and sideof[y] == other:
            out.append((p, q, t))
    return out


def has_step(board: bytearray | bytes, p: int, side: int, sideof: Sequence[int]) -> bool:
    """Whether the piece on ``p`` has any legal move (every two-step starts with a step)."""
    other = 1 - side
    for q in NEIGHBOURS[p]:
        x = board[q]
        if x == 0 or sideof[x] == other:
            return True
    return False


def victims(board: bytearray | bytes, p: int, side: int, sideof: Sequence[int]) -> list[int]:
    """The enemy pieces the piece of ``side`` on ``p`` threatens (X7)."""
    other = 1 - side
    out: list[int] = []
    for q in NEIGHBOURS[p]:
        if sideof[board[q]] == other:
            out.append(q)
    for q, t in TWO_STEPS[side][p]:
        if sideof[board[t]] != other:
            continue
        x = board[q]
        if x == 0:
            out.append(t)
        elif sideof[x] == other:
            out.append(q)
            out.append(t)
    return out


def threatened_by(
    board: bytearray | bytes, target: int, code: int, side: int, sideof: Sequence[int]
) -> bool:
    """Whether some piece with board code ``code`` (of ``side``) threatens ``target``."""
    for q in NEAR[target]:
        if board[q] == code and target in victims(board, q, side, sideof):
            return True
    return False


def apply_path(board: bytearray, path: Path, captured: list[int]) -> None:
    """Move the piece along a legal path, appending the codes of captured pieces."""
    code = board[path[0]]
    board[path[0]] = 0
    for q in path[1:]:
        x = board[q]
        if x:
            captured.append(x)
            board[q] = 0
    board[path[-1]] = code


#: A playout's move choice: one of ``paths`` (never empty), the legal paths of the piece(s)
#: the mover may move on ``board``, for a mover of ``side``.
Chooser = Callable[[list[Path], bytearray, int, Sequence[int], random.Random], Path]

#: Capture-first playouts: the chance of taking a capture when one exists.
CAPTURE_RATE = 0.9
#: Capture-first playouts: random paths looked at, otherwise, for a safe or threatening one.
SAMPLES = 4


def uniform_choice(
    paths: list[Path], board: bytearray, side: int, sideof: Sequence[int], rng: random.Random
) -> Path:
    """Any of ``paths``, uniformly (the random playout)."""
    return paths[rng.randrange(len(paths))]


def exposed(board: bytearray, path: Path, side: int, sideof: Sequence[int]) -> bool:
    """Whether the piece moved along ``path`` can be captured at once where it lands (by
    any enemy piece; calls and turn order ignored). ``board`` is left as it was."""
    saved = [board[q] for q in path]
    code = saved[0]
    for q in path:
        board[q] = 0
    end = path[-1]
    board[end] = code
    other = 1 - side
    hit = False
    for q in NEAR[end]:
        if sideof[board[q]] == other and end in victims(board, q, other, sideof):
            hit = True
            break
    for q, x in zip(path, saved, strict=True):
        board[q] = x
    return hit


def threatens(board: bytearray, path: Path, side: int, sideof: Sequence[int]) -> bool:
    """Whether the piece moved along ``path`` threatens an enemy piece where it lands.
    ``board`` is left as it was."""
    saved = [board[q] for q in path]
    for q in path:
        board[q] = 0
    end = path[-1]
    board[end] = saved[0]
    hit = bool(victims(board, end, side, sideof))
    for q, x in zip(path, saved, strict=True):
        board[q] = x
    return hit


def capture_choice(
    paths: list[Path], board: bytearray, side: int, sideof: Sequence[int], rng: random.Random
) -> Path:
    """The capture-first playout policy: with probability :data:`CAPTURE_RATE` a capture of
    the most pieces (uniform among them) when there is one; otherwise the best of up to
    :data:`SAMPLES` random paths, ranking a piece that lands safe and threatens an enemy
    piece (the first such is taken) over one that lands safe, over one that can be captured
    at once."""
    best = 0
    picks: list[Path] = []
    for path in paths:
        n = 0
        for q in path[1:]:
            if board[q]:  # on a legal path an occupied point holds an enemy piece
                n += 1
        if n > best:
            best = n
            picks = [path]
        elif n and n == best:
            picks.append(path)
    if picks and rng.random() < CAPTURE_RATE:
        return picks[rng.randrange(len(picks))]
    choice = paths[0]
    rank = -1
    for _ in range(SAMPLES):
        path = paths[rng.randrange(len(paths))]
        if exposed(board, path, side, sideof):
            score = 0
        else:
            score = 1 + threatens(board, path, side, sideof)
        if score > rank:
            choice, rank = path, score
            if score == 2:
                break
    return choice


class Brax(Game[BraxMove]):
    """A Brax game: two players (optionally the hunt) or the 3-/4-player team variants."""

    name = "brax"
    title = "Brax"
    OPTIONS = (
        OptionSpec("players", "int", 2, "number of players (3 and 4: team variants)",
                   minimum=2, maximum=4),
        OptionSpec("first", "choice", "red", "who moves first (two players only)",
                   choices=("red", "blue")),
        OptionSpec("repetition", "bool", True, "draw on the third repetition (X14)"),
        OptionSpec("nocapture", "bool", True, "draw after 100 plies without capture (X14)"),
        OptionSpec("hunt", "bool", False, "hunt: one red piece on e1 against seven blue"),
    )
    COLORS: ClassVar[Mapping[str, int]] = {
        "b": 0, "red": 0, "black": 0, "w": 1, "blue": 1, "white": 1,
    }

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        players = int(self.options["players"])
        if self.options["hunt"] and players != 2:
            raise OptionError(
                f"option hunt: the hunt is a two-player game, not for players={players}"
            )
        variant = "hunt" if self.options["hunt"] else ("two", "two", "three", "four")[players - 1]
        sides, starts, order, loner = _VARIANTS[variant]
        self._nseats = len(sides)
        self._seat_side = sides
        self._sideof: tuple[int, ...] = (-1, *sides)  # indexed by board code = seat + 1
        self._order = order
        self._loner = loner
        board = bytearray(POINTS)
        for seat, text in enumerate(starts):
            for p in _points(text):
                board[p] = seat + 1
        start = 1 if players == 2 and self.options["first"] == "blue" else 0
        self._reset(board, start)

    # ----------------------------------------------------------------------- set-up

    def _reset(self, board: bytearray, idx: int) -> None:
        self._board = board
        self._idx = idx
        self._forced: frozenset[int] = frozenset()
        self._called = [False] * self._nseats
        self._prev_player = -1
        self._prev_moved: tuple[int, ...] = ()
        self._quiet = 0
        self._seat_count = [0] * self._nseats
        for x in board:
            if x:
                self._seat_count[x - 1] += 1
        self._history: list[BraxMove] = []
        self._stack: list[_Saved] = []
        self._rep: dict[bytes, int] = {self._key(): 1}
        self._result: Outcome | None = None

    @classmethod
    def from_position(
        cls, pieces: Mapping[str, str], to_move: str, **options: object
    ) -> Self:
        """A game set up with ``pieces`` (colour token -> native points, ``{"red": "e6 b1"}``)
        and ``to_move`` (a colour token); the history is empty, no obligation, no ban."""
        game = cls(**options)
        board = bytearray(POINTS)
        for token, text in pieces.items():
            seat = game.parse_color(token)
            for p in _points(text):
                board[p] = seat + 1
        seat = game.parse_color(to_move)
        game._reset(board, game._order.index(seat))
        return game

    # ------------------------------------------------------------------ players, sides

    @property
    def num_players(self) -> int:
        return self._nseats

    @property
    def side_names(self) -> tuple[str, ...]:
        return ("red", "blue")

    def side_of(self, player: int) -> int:
        return self._seat_side[player]

    @property
    def board_size(self) -> int:
        return N

    def parse_color(self, token: str) -> int:
        if self._nseats == 2:
            return super().parse_color(token)
        text = token.lower()
        if len(text) == 2 and text[0] == "p" and text[1] in "1234":
            seat = int(text[1]) - 1
            if seat < self._nseats:
                return seat
        raise GameError(
            f"invalid color {token!r} (players: {', '.join(self._seat_names())})"
        )

    def color_name(self, player: int) -> str:
        if self._nseats == 2:
            return super().color_name(player)
        if 0 <= player < self._nseats:
            return f"p{player + 1}"
        raise GameError(f"no player {player}")

    def _seat_names(self) -> list[str]:
        return [f"p{k + 1}" for k in range(self._nseats)]

    def player_name(self, player: int) -> str:
        colour = _COLOUR_WORD[self._seat_side[player]]
        return colour if self._nseats == 2 else f"p{player + 1} ({colour})"

    # ----------------------------------------------------------------- state queries

    @property
    def to_move(self) -> int:
        return self._order[self._idx]

    @property
    def history(self) -> Sequence[BraxMove]:
        return self._history

    def outcome(self) -> Outcome | None:
        return self._result

    @property
    def forced(self) -> frozenset[int]:
        """The points of the pieces the player to move must move (empty: no obligation)."""
        return self._forced

    @property
    def quiet(self) -> int:
        """Plies played since the last capture (X13, X14)."""
        return self._quiet

    def repeated_earlier(self) -> bool:
        """Whether a position other than the current one has occurred twice or more (X14)."""
        here = self._key()
        return any(count >= 2 for key, count in self._rep.items() if key != here)

    def pieces(self, player: int) -> list[int]:
        """The points of ``player``'s pieces."""
        code = player + 1
        return [p for p in range(POINTS) if self._board[p] == code]

    def _key(self) -> bytes:
        return bytes(self._board) + bytes((self._idx,))

    def _side_counts(self, board: bytearray | bytes) -> list[int]:
        counts = [0, 0]
        for x in board:
            if x:
                counts[self._sideof[x]] += 1
        return counts

    def _next_idx(self, idx: int, seat_count: Sequence[int]) -> int:
        n = len(self._order)
        for k in range(1, n + 1):
            j = (idx + k) % n
            if seat_count[self._order[j]] > 0:
                return j
        return idx

    # ------------------------------------------------------------------ move generation

    def _first_paths(
        self, board: bytearray | bytes, seat: int, forced: frozenset[int]
    ) -> list[Path]:
        """The paths the seat may move now: the forced pieces' paths if one can move (X11),
        else every piece's paths."""
        code = seat + 1
        side = self._seat_side[seat]
        sideof = self._sideof
        if forced:
            out: list[Path] = []
            for p in sorted(forced):
                if board[p] == code:
                    out.extend(piece_paths(board, p, side, sideof))
            if out:
                return out
        out = []
        for p in range(POINTS):
            if board[p] == code:
                out.extend(piece_paths(board, p, side, sideof))
        return out

    def _legal_turns(self) -> list[Turn]:
        """Every legal turn now, without the call flag."""
        if self._result is not None:
            return []
        seat = self.to_move
        board = self._board
        firsts = self._first_paths(board, seat, self._forced)
        if seat != self._loner or self._seat_count[seat] < 2:
            if not firsts and self._nseats > 2:
                return [()]
            return [(path,) for path in firsts]
        turns: list[Turn] = []
        code = seat + 1
        side = self._seat_side[seat]
        enemy = 1 - side
        for path in firsts:
            after = bytearray(board)
            captured: list[int] = []
            apply_path(after, path, captured)
            if captured and not any(self._sideof[x] == enemy for x in after if x):
                turns.append((path,))
                continue
            seconds = [
                second
                for p in range(POINTS)
                if after[p] == code and p != path[-1]
                for second in piece_paths(after, p, side, self._sideof)
            ]
            if seconds:
                turns.extend((path, second) for second in seconds)
            else:
                turns.append((path,))
        if not turns:
            return [()]
        return turns

    def _simulate(self, turn: Turn) -> tuple[bytearray, list[int], int]:
        """The board after ``turn``, the captured codes and the next turn index."""
        after = bytearray(self._board)
        captured: list[int] = []
        for path in turn:
            apply_path(after, path, captured)
        counts = list(self._seat_count)
        for x in captured:
            counts[x - 1] -= 1
        return after, captured, self._next_idx(self._idx, counts)

    def _pre_b(self) -> list[int]:
        """Call (b) candidates: pieces the previous player moved that the mover threatens
        now (right after that move)."""
        seat = self.to_move
        if self._prev_player < 0 or not self._prev_moved:
            return []
        code = seat + 1
        side = self._seat_side[seat]
        return [
            p for p in self._prev_moved
            if self._board[p] == self._prev_player + 1
            and threatened_by(self._board, p, code, side, self._sideof)
        ]

    def _call_problem(
        self, turn: Turn, after: bytearray, nxt: int, pre_b: Sequence[int]
    ) -> tuple[frozenset[int], str | None]:
        """The forced set a call after ``turn`` would set, or the reason it is not allowed."""
        seat = self.to_move
        if not turn:
            return frozenset(), "a pass cannot call Brax"
        if self._called[seat]:
            return frozenset(), "Brax was called on the previous turn (X10: wait one turn)"
        counts = self._side_counts(after)
        if min(counts) == 1 and max(counts) <= 2:
            return frozenset(), "no Brax with one piece against one or two (rule 7)"
        side = self._seat_side[seat]
        target = self._order[nxt]
        tcode = target + 1
        forced: set[int] = set()
        for path in turn:
            forced.update(
                v for v in victims(after, path[-1], side, self._sideof) if after[v] == tcode
            )
        if self._prev_player == target:
            code = seat + 1
            for p in pre_b:
                if after[p] == tcode and threatened_by(after, p, code, side, self._sideof):
                    forced.add(p)
        if not forced:
            return frozenset(), "no threatened piece to call Brax on (X8, X9)"
        return frozenset(forced), None

    def legal_moves(self) -> list[BraxMove]:
        """Every legal turn; a turn with an allowed call appears twice (without and with
        ``!``): the call is part of the turn."""
        turns = self._legal_turns()
        if not turns:
            return []
        seat = self.to_move
        out: list[BraxMove] = []
        may_call = not self._called[seat]
        pre_b = self._pre_b() if may_call else []
        for turn in turns:
            out.append(BraxMove(turn))
            if may_call and turn:
                after, captured, nxt = self._simulate(turn)
                if self._won(after, seat):
                    continue
                _, problem = self._call_problem(turn, after, nxt, pre_b)
                if problem is None:
                    out.append(BraxMove(turn, True))
        return out

    def listed_moves(self) -> list[BraxMove]:
        """Every legal turn once, without the call variants (for protocol listings)."""
        return [BraxMove(turn) for turn in self._legal_turns()]

    def _won(self, board: bytearray | bytes, seat: int) -> bool:
        enemy = 1 - self._seat_side[seat]
        return not any(self._sideof[x] == enemy for x in board if x)

    # ----------------------------------------------------------------------- legality

    def illegal_reason(self, move: BraxMove, notation: Notation = "gtp") -> str | None:
        if self._result is not None:
            return "game over"
        turns = self._legal_turns()
        seat = self.to_move
        if move.is_pass:
            if turns == [()]:
                return None if not move.call else "a pass cannot call Brax"
            if self._nseats == 2:
                return "there is no pass in the two-player game"
            return "pass is allowed only when no move exists"
        if move.paths not in turns:
            return self._path_problem(move.paths, turns, notation)
        if move.call:
            after, _, nxt = self._simulate(move.paths)
            if self._won(after, seat):
                return None
            _, problem = self._call_problem(move.paths, after, nxt, self._pre_b())
            return problem
        return None

    def _path_problem(self, turn: Turn, turns: list[Turn], notation: Notation) -> str:
        seat = self.to_move
        code = seat + 1
        board = self._board
        side = self._seat_side[seat]
        name = self.player_name(seat)
        loner = seat == self._loner
        for k, path in enumerate(turn):
            start = format_point(path[0] % N, path[0] // N, notation)
            x = board[path[0]]
            if k == 0 and x == 0:
                return f"no piece on {start}"
            if k == 0 and x != code:
                return f"{start} holds a {self.player_name(x - 1)} piece, not {name}'s"
            if k == 0 and path not in piece_paths(board, path[0], side, self._sideof):
                return f"{start} cannot move along that path (X4, X5)"
        first = turn[0]
        if self._forced and all(t[0][0] != first[0] for t in turns):
            pts = " ".join(
                format_point(p % N, p // N, notation) for p in sorted(self._forced)
            )
            return f"Brax was called: move one of {pts}"
        if loner:
            if len(turn) == 2 and turn[0][-1] == turn[1][0]:
                return "the loner must move two different pieces"
            if len(turn) == 1 and any(len(t) == 2 and t[0] == first for t in turns):
                return "the loner moves two pieces a turn"
            if len(turn) == 2 and (first,) in turns:
                return "the loner has no second move here"
            return "the second move is not legal after the first"
        if len(turn) > 1:
            return "only the 3-player loner moves twice"
        return "not a legal move"

    # ----------------------------------------------------------------------- playing

    def play(self, move: BraxMove) -> None:
        """Play a turn assumed legal (no validation)."""
        seat = self.to_move
        board = self._board
        self._stack.append((
            bytes(board), self._idx, self._forced, list(self._called), self._prev_player,
            self._prev_moved, self._quiet, list(self._seat_count), self._result,
        ))
        pre_b = self._pre_b() if move.call else []
        captured: list[int] = []
        for path in move.paths:
            apply_path(board, path, captured)
            if captured and self._won(board, seat):
                break
        for x in captured:
            self._seat_count[x - 1] -= 1
        nxt = self._next_idx(self._idx, self._seat_count)
        forced: frozenset[int] = frozenset()
        won = bool(captured) and self._won(board, seat)
        if move.call and not won:
            # compute on the board as it is now (the turn already applied)
            forced, _ = self._call_problem_after(move.paths, nxt, pre_b)
        self._called[seat] = move.call and not won
        self._forced = forced
        self._prev_player = seat
        self._prev_moved = tuple(path[-1] for path in move.paths)
        self._quiet = 0 if captured else self._quiet + 1
        self._idx = nxt
        key = self._key()
        self._rep[key] = self._rep.get(key, 0) + 1
        self._history.append(move)
        self._result = self._judge(seat, won, key)

    def _call_problem_after(
        self, turn: Turn, nxt: int, pre_b: Sequence[int]
    ) -> tuple[frozenset[int], str | None]:
        # _call_problem reads self.to_move and the ban of the mover: still unchanged here
        return self._call_problem(turn, self._board, nxt, pre_b)

    def _judge(self, mover: int, won: bool, key: bytes) -> Outcome | None:
        side = self._seat_side[mover]
        word = _COLOUR_WORD[side]
        other = _COLOUR_WORD[1 - side]
        if won:
            return Outcome(side, f"{word} captured every {other} piece")
        counts = self._side_counts(self._board)
        if counts == [1, 1] and self._quiet >= 10:
            return Outcome(None, "one piece each and 10 plies without capture (X13)")
        if self.options["repetition"] and self._rep[key] >= 3:
            return Outcome(None, "the position occurred for the third time (X14)")
        if self.options["nocapture"] and self._quiet >= 100:
            return Outcome(None, "100 plies without capture (X14)")
        if self._nseats == 2:
            nxt = self.to_move
            ncode = nxt + 1
            nside = self._seat_side[nxt]
            if not any(
                self._board[p] == ncode and has_step(self._board, p, nside, self._sideof)
                for p in range(POINTS)
            ):
                return Outcome(side, f"{other} has no legal move (X12)")
        return None

    def undo(self) -> BraxMove:
        if not self._history:
            raise GameError("no move to undo")
        move = self._history.pop()
        key = self._key()
        self._rep[key] -= 1
        if not self._rep[key]:
            del self._rep[key]
        (board, self._idx, self._forced, self._called, self._prev_player, self._prev_moved,
         self._quiet, self._seat_count, self._result) = self._stack.pop()
        self._board = bytearray(board)
        return move

    # -------------------------------------------------------------------- position strings

    def _board_field(self, board: bytes | bytearray) -> str:
        codes = (None, "r", "b")
        return encode_board(
            [[codes[board[r * N + f]] for f in range(N)] for r in reversed(range(N))]
        )

    def _points_field(self, points: Iterable[int]) -> str:
        return ",".join(self._fmt_point(p, "native") for p in sorted(points)) or "-"

    def position_string(self) -> str:
        """``<board> <red|blue> <forced> <ban> <prev> <quiet> <rep>`` (two players only;
        docs/ugi.md): rows 9 down to 1, ``r`` Red, ``b`` Blue, a number for a run of empty
        points; the pieces the player to move must move (a pending Brax obligation, X8-X9);
        the sides barred from calling this turn (X10); the points the opponent's last turn
        moved to (for call (b)); plies without capture (X13, X14); and the positions since
        the last capture with their counts (``board:side:count``, X14)."""
        if self._nseats != 2:
            raise PositionError("Brax position strings cover the two-player game only")
        words = ("red", "blue")
        counts = self._side_counts(self._board)
        rep = []
        for key, count in sorted(self._rep.items()):
            board = key[:POINTS]
            if self._side_counts(board) == counts:
                rep.append(f"{self._board_field(board)}:{words[key[POINTS]]}:{count}")
        ban = ",".join(words[seat] for seat in range(2) if self._called[seat]) or "-"
        prev = self._prev_moved if self._prev_player == 1 - self.to_move else ()
        return " ".join((
            self._board_field(self._board),
            words[self.to_move],
            self._points_field(self._forced),
            ban,
            self._points_field(prev),
            str(self._quiet),
            ",".join(rep) or "-",
        ))

    @classmethod
    def from_position_string(cls, text: str, **options: object) -> Self:
        """The game of a :meth:`position_string` (two players; ``first`` and ``hunt`` only
        choose the start position, so they do not matter here). The history is empty."""
        names = ("board", "to-move", "forced", "ban", "prev", "quiet", "rep")
        fields = split_fields(text, names, "Brax")
        where = "Brax position string"
        game = cls(**options)
        if game._nseats != 2:
            raise PositionError(f"{where}: position strings cover the two-player game only")
        words = ("red", "blue")

        def board_of(field: str, name: str = "board") -> bytearray:
            rows = decode_board(field, [N] * N, _POSITION_CELL, "Brax", name)
            board = bytearray(POINTS)
            for k, row in enumerate(rows):
                for f, code in enumerate(row):
                    if code is not None:
                        board[(N - 1 - k) * N + f] = 1 if code == "r" else 2
            return board

        def points_of(field: str, name: str) -> list[int]:
            if field == "-":
                return []
            out = []
            for token in field.split(","):
                point = parse_point(token, N, N, "native")
                if point is None:
                    raise PositionError(f"{where}: {name} field has {token!r}, not a point a1..i9")
                out.append(index(*point))
            return out

        board = board_of(fields[0])
        seat = parse_side(fields[1], words, "Brax")
        game._reset(board, seat)
        forced = points_of(fields[2], "forced")
        if any(board[p] != seat + 1 for p in forced):
            raise PositionError(f"{where}: forced field {fields[2]!r} names a point without a "
                                f"{words[seat]} piece")
        game._forced = frozenset(forced)
        if fields[3] != "-":
            for word in fields[3].split(","):
                game._called[parse_side(word, words, "Brax", "ban")] = True
        prev = points_of(fields[4], "prev")
        if any(board[p] != 2 - seat for p in prev):
            raise PositionError(f"{where}: prev field {fields[4]!r} names a point without a "
                                f"{words[1 - seat]} piece")
        if prev:
            game._prev_player = 1 - seat
            game._prev_moved = tuple(prev)
        game._quiet = parse_count(fields[5], "Brax", "quiet")
        key = game._key()
        if fields[6] != "-":
            rep: dict[bytes, int] = {}
            for entry in fields[6].split(","):
                parts = entry.split(":")
                if len(parts) != 3:
                    raise PositionError(f"{where}: rep entry {entry!r} is not board:side:count")
                count = parse_count(parts[2], "Brax", "rep count")
                if not 1 <= count <= 3:
                    raise PositionError(f"{where}: rep entry {entry!r} has a bad count")
                other = board_of(parts[0], f"rep entry {entry!r}: board")
                if game._side_counts(other) != game._side_counts(board):
                    raise PositionError(
                        f"{where}: rep entry {entry!r} has other piece counts than the board"
                    )
                rep[bytes(other) + bytes((parse_side(parts[1], words, "Brax", "rep side"),))] = (
                    count
                )
            rep.setdefault(key, 1)
            game._rep = rep
        counts = game._side_counts(board)
        if 0 in counts:
            if counts == [0, 0]:
                raise PositionError(f"{where}: the board has no piece")
            game._result = game._judge(counts.index(max(counts)), True, key)
        else:
            game._result = game._judge(1 - seat, False, key)
        return game

    def copy(self) -> Self:
        clone = object.__new__(type(self))
        clone.options = dict(self.options)
        clone._nseats = self._nseats
        clone._seat_side = self._seat_side
        clone._sideof = self._sideof
        clone._order = self._order
        clone._loner = self._loner
        clone._board = bytearray(self._board)
        clone._idx = self._idx
        clone._forced = self._forced
        clone._called = list(self._called)
        clone._prev_player = self._prev_player
        clone._prev_moved = self._prev_moved
        clone._quiet = self._quiet
        clone._seat_count = list(self._seat_count)
        clone._history = list(self._history)
        clone._stack = list(self._stack)
        clone._rep = dict(self._rep)
        clone._result = self._result
        return clone

    # --------------------------------------------------------------------- notation

    def _fmt_point(self, p: int, notation: Notation) -> str:
        return format_point(p % N, p // N, notation)

    def format_move(self, move: BraxMove, notation: Notation = "gtp") -> str:
        if move.is_pass:
            return "pass"
        body = "+".join(
            "-".join(self._fmt_point(p, notation) for p in path) for path in move.paths
        )
        return body + ("!" if move.call else "")

    def parse_move(self, token: str, notation: Notation = "gtp") -> BraxMove:
        text = token.strip().lower()

        def bad(why: str) -> MoveSyntaxError:
            return MoveSyntaxError(f"invalid move {token!r}: {why}")

        call = text.endswith("!")
        body = text[:-1] if call else text
        if not body:
            raise bad("empty move")
        if body == "pass":
            if self._nseats == 2:
                raise bad("there is no pass in the two-player game")
            if call:
                raise bad("a pass cannot call Brax")
            return PASS
        parts = body.split("+")
        if len(parts) > 2:
            raise bad("at most two moves joined by '+'")
        if len(parts) == 2 and self._nseats != 3:
            raise bad("two moves joined by '+' exist only in the 3-player game")
        paths: list[Path] = []
        shorthand = False
        for part in parts:
            names = part.split("-")
            if not 2 <= len(names) <= 3:
                raise bad("a move is a path of two or three points joined by '-'")
            pts: list[int] = []
            for name in names:
                point = parse_point(name, N, N, notation)
                if point is None:
                    raise bad(f"{name!r} is not a point of the 9x9 board")
                pts.append(index(*point))
            for a, b in zip(pts, pts[1:], strict=False):
                if b not in NEIGHBOURS[a]:
                    if len(pts) == 2 and _distance(a, b) == 2:
                        shorthand = True
                        continue
                    raise bad("consecutive points must be joined by a line")
            if len(pts) == 3 and pts[2] == pts[0]:
                raise bad("a move may not return to its start")
            paths.append(tuple(pts))
        if not shorthand:
            return BraxMove(tuple(paths), call)
        matches = [t for t in self._legal_turns() if _matches(t, paths)]
        if len(matches) == 1:
            return BraxMove(matches[0], call)
        if not matches:
            raise bad("no legal path joins those points")
        options = " or ".join(
            self.format_move(BraxMove(t), notation) for t in matches
        )
        raise bad(f"ambiguous shorthand ({options}): write the full path")

    # ---------------------------------------------------------------------- display

    def board_text(self, notation: Notation = "gtp") -> str:
        if self._nseats == 2:
            glyph = {0: "+", 1: "r", 2: "b"}
        else:
            glyph = {0: "+", **{s + 1: str(s + 1) for s in range(self._nseats)}}
        letters = "     " + "   ".join(column_letter(f, notation) for f in range(N))
        lines = [letters]
        for r in range(N - 1, -1, -1):
            row = f"{r + 1:2d}   "
            for f in range(N):
                row += glyph[self._board[index(f, r)]]
                if f < N - 1:
                    row += f"-{HORIZONTAL_ROWS[N - 1 - r][f]}-"
            lines.append(f"{row}   {r + 1}")
            if r > 0:
                lines.append("     " + "   ".join(VERTICAL_ROWS[N - 1 - r]))
        lines.append(letters)
        if self._nseats == 2:
            pieces = "pieces: r = Red, b = Blue"
        else:
            pieces = "pieces: " + ", ".join(
                f"{s + 1} = p{s + 1} ({_COLOUR_WORD[self._seat_side[s]]})"
                for s in range(self._nseats)
            )
        lines.append(f"lines: R = red, B = blue; {pieces}")
        counts = self._side_counts(self._board)
        lines.append(f"Red {_amount(counts[RED], 'piece')}, Blue {_amount(counts[BLUE], 'piece')}; "
                     f"{_amount(self._quiet, 'ply', 'plies')} without capture")
        if self._result is None:
            seat = self.to_move
            if self._forced:
                pts = " ".join(self._fmt_point(p, notation) for p in sorted(self._forced))
                movable = any(
                    has_step(self._board, p, self._seat_side[seat], self._sideof)
                    for p in self._forced
                )
                note = "" if movable else " (none can move: the obligation lapses)"
                lines.append(f"Brax! {self.player_name(seat)} must move one of: {pts}{note}")
        return "\n".join(lines)

    # ------------------------------------------------------------------- fast playout

    def random_playout(self, rng: random.Random) -> Outcome:
        return self._playout(rng, None)

    def playout(self, rng: random.Random) -> Outcome:
        """The search's playout: captures first (:func:`capture_choice`), same rules."""
        return self._playout(rng, None, capture_choice)

    def _playout(
        self,
        rng: random.Random,
        record: list[BraxMove] | None,
        choose: Chooser = uniform_choice,
    ) -> Outcome:
        """Random turns until the end on private arrays; each turn's path is picked by
        ``choose`` among the plain paths (uniformly by default; the loner: first move, then
        second move), then a call is tried with probability 1/2 and made if allowed.
        ``record`` collects the turns (for tests)."""
        if self._result is not None:
            return self._result
        sideof = self._sideof
        order = self._order
        seat_side = self._seat_side
        loner = self._loner
        nseats = self._nseats
        board = bytearray(self._board)
        idx = self._idx
        forced = self._forced
        called = list(self._called)
        prev_player = self._prev_player
        prev_moved = self._prev_moved
        quiet = self._quiet
        seat_count = list(self._seat_count)
        side_count = [0, 0]
        for s in range(nseats):
            side_count[seat_side[s]] += seat_count[s]
        repetition = bool(self._rep) and self.options["repetition"]
        nocapture = self.options["nocapture"]
        rep = dict(self._rep) if repetition else {}
        first_paths = self._first_paths
        norder = len(order)
        while True:
            seat = order[idx]
            side = seat_side[seat]
            code = seat + 1
            paths = first_paths(board, seat, forced)
            if not paths:
                if nseats == 2:
                    winner = 1 - side
                    return Outcome(winner, f"{_COLOUR_WORD[side]} has no legal move (X12)")
                turn: Turn = ()
            else:
                path = choose(paths, board, side, sideof, rng)
                turn = (path,)
            try_call = bool(turn) and not called[seat] and rng.random() < 0.5
            pre_b: list[int] = []
            if try_call and prev_player >= 0:
                pcode = prev_player + 1
                pre_b = [
                    p for p in prev_moved
                    if board[p] == pcode and threatened_by(board, p, code, side, sideof)
                ]
            captured: list[int] = []
            won = False
            if turn:
                apply_path(board, turn[0], captured)
                for x in captured:
                    side_count[sideof[x]] -= 1
                    seat_count[x - 1] -= 1
                won = side_count[1 - side] == 0
                if seat == loner and not won and seat_count[seat] >= 2:
                    end = turn[0][-1]
                    seconds = [
                        second
                        for p in range(POINTS)
                        if board[p] == code and p != end
                        for second in piece_paths(board, p, side, sideof)
                    ]
                    if seconds:
                        second = choose(seconds, board, side, sideof, rng)
                        turn = (turn[0], second)
                        mark = len(captured)
                        apply_path(board, second, captured)
                        for x in captured[mark:]:
                            side_count[sideof[x]] -= 1
                            seat_count[x - 1] -= 1
                        won = side_count[1 - side] == 0
            if won:
                if record is not None:
                    record.append(BraxMove(turn))
                return Outcome(
                    side, f"{_COLOUR_WORD[side]} captured every {_COLOUR_WORD[1 - side]} piece"
                )
            nxt = idx
            for k in range(1, norder + 1):
                j = (idx + k) % norder
                if seat_count[order[j]] > 0:
                    nxt = j
                    break
            new_forced: frozenset[int] = frozenset()
            call = False
            if try_call and not (min(side_count) == 1 and max(side_count) <= 2):
                target = order[nxt]
                tcode = target + 1
                fset: set[int] = set()
                for pth in turn:
                    for v in victims(board, pth[-1], side, sideof):
                        if board[v] == tcode:
                            fset.add(v)
                if prev_player == target:
                    for p in pre_b:
                        if board[p] == tcode and threatened_by(board, p, code, side, sideof):
                            fset.add(p)
                if fset:
                    call = True
                    new_forced = frozenset(fset)
            if record is not None:
                record.append(BraxMove(turn, call))
            called[seat] = call
            forced = new_forced
            prev_player = seat
            prev_moved = tuple(pth[-1] for pth in turn)
            quiet = 0 if captured else quiet + 1
            idx = nxt
            if side_count[0] == 1 and side_count[1] == 1 and quiet >= 10:
                return Outcome(None, "one piece each and 10 plies without capture (X13)")
            if repetition:
                key = bytes(board) + bytes((idx,))
                seen = rep.get(key, 0) + 1
                rep[key] = seen
                if seen >= 3:
                    return Outcome(None, "the position occurred for the third time (X14)")
            if nocapture and quiet >= 100:
                return Outcome(None, "100 plies without capture (X14)")


def _distance(a: int, b: int) -> int:
    return abs(a % N - b % N) + abs(a // N - b // N)


def _matches(turn: Turn, pattern: Iterable[Path]) -> bool:
    pats = list(pattern)
    if len(turn) != len(pats):
        return False
    for path, pat in zip(turn, pats, strict=True):
        if len(pat) == 2 and _distance(pat[0], pat[1]) == 2:
            if len(path) != 3 or path[0] != pat[0] or path[2] != pat[1]:
                return False
        elif path != pat:
            return False
    return True


__all__ = ["Brax", "BraxMove", "PASS", "COLOUR"]
