"""Bricka (Marino Carpignano, 2023): the exact rules core.

Follows docs/rules/bricka.md, every ruling K1-K11: the board of 69 intersections and 30
pentagonal cells (data in :mod:`engine.games.bricka_board`), White moves first, one placement a turn
on a free intersection outside the cells of the previous placement, the placed piece turning
neutral on a strict majority of the non-neutral points of an active cell, the win by a chain of
own and/or neutral pieces along board lines joining a pair of opposite sides (the mover first,
then the opponent), the forced pass, and the end by count on a full board or after two passes
in a row (a draw is possible).

A move is an ``int``: the intersection index 0..68 of :mod:`engine.games.bricka_board`, or
:data:`PASS`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import ClassVar, Final, Self

from engine.games.bricka_board import (
    BLOCKED_AFTER,
    CELLS,
    CELLS_OF,
    GRID,
    INDEX,
    NEIGHBOURS,
    PAIR_NAMES,
    POINTS,
    SIDE_OF,
)
from engine.games.core import BLACK, WHITE, Game, GameError, MoveSyntaxError, Outcome, PositionError
from engine.games.grid import diagram
from engine.games.notation import Notation, format_point, parse_point
from engine.games.position_text import decode_board, encode_board, parse_side, split_fields

BrickaMove = int

#: The pass move (legal only when every free intersection is blocked, K9).
PASS: Final = -1
#: Contents of an intersection: empty, a piece of a player (BLACK = 0, WHITE = 1), neutral.
EMPTY: Final = -1
NEUTRAL: Final = 2

_N: Final = len(POINTS)
_COLOUR_NAMES: Final = ("Black", "White")
_BLOCKED_SETS: Final = tuple(tuple(sorted(s)) for s in BLOCKED_AFTER)
_BLOCKED_FLAGS: Final = tuple(
    tuple(q in s for q in range(_N)) for s in BLOCKED_AFTER
)
_CELL_SIZES: Final = tuple(len(cell) for cell in CELLS)
_POSITION_CELL: Final = re.compile("[xon]")
_SIDE_BITS: Final = tuple(0 if s < 0 else 1 << s for s in SIDE_OF)


class Bricka(Game[BrickaMove]):
    """Bricka on its 69-point board; White (player 1) moves first."""

    name: ClassVar[str] = "bricka"
    title: ClassVar[str] = "Bricka"
    DEFAULT_NOTATION: ClassVar[Notation] = "native"

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        self._board: list[int] = [EMPTY] * _N
        self._history: list[BrickaMove] = []
        self._to_move: int = WHITE
        self._free: int = _N
        self._outcome: Outcome | None = None

    @property
    def board_size(self) -> int:
        return GRID

    # ------------------------------------------------------------------------- state

    @property
    def to_move(self) -> int:
        return self._to_move

    @property
    def history(self) -> Sequence[BrickaMove]:
        return self._history

    def outcome(self) -> Outcome | None:
        return self._outcome

    def piece_at(self, point: int) -> int:
        """EMPTY, BLACK, WHITE or NEUTRAL."""
        return self._board[point]

    def last_placement(self) -> int | None:
        """The intersection placed on in the immediately preceding turn (None after a pass
        or at the start)."""
        if self._history and self._history[-1] != PASS:
            return self._history[-1]
        return None

    def blocked(self) -> frozenset[int]:
        """The intersections the player to move may not use (K4)."""
        last = self.last_placement()
        return frozenset() if last is None else BLOCKED_AFTER[last]

    def copy(self) -> Self:
        clone = object.__new__(type(self))
        clone.options = dict(self.options)
        clone._board = self._board.copy()
        clone._history = self._history.copy()
        clone._to_move = self._to_move
        clone._free = self._free
        clone._outcome = self._outcome
        return clone

    # ----------------------------------------------------------------------- moves

    def legal_moves(self) -> list[BrickaMove]:
        if self._outcome is not None:
            return []
        board = self._board
        last = self.last_placement()
        if last is None:
            moves = [p for p in range(_N) if board[p] == EMPTY]
        else:
            flags = _BLOCKED_FLAGS[last]
            moves = [p for p in range(_N) if board[p] == EMPTY and not flags[p]]
        return moves if moves else [PASS]

    def illegal_reason(self, move: BrickaMove, notation: Notation = "native") -> str | None:
        if self._outcome is not None:
            return "the game is over"
        if move == PASS:
            if self.legal_moves() != [PASS]:
                return "pass is only allowed when every free intersection is blocked"
            return None
        if not 0 <= move < _N:
            return f"{move} is not an intersection of the Bricka board"
        if self._board[move] != EMPTY:
            return f"{_point_name(move, notation)} is occupied"
        last = self.last_placement()
        if last is not None and _BLOCKED_FLAGS[last][move]:
            here, there = _point_name(move, notation), _point_name(last, notation)
            return f"{here} is blocked: it shares a cell with {there}, the previous placement"
        return None

    def play(self, move: BrickaMove) -> None:
        """Play ``move``, assumed legal (no checks)."""
        mover = self._to_move
        self._to_move = 1 - mover
        if move == PASS:
            second = bool(self._history) and self._history[-1] == PASS
            self._history.append(PASS)
            if second:
                self._outcome = self._count("after two passes in a row")
            return
        board = self._board
        board[move] = mover
        self._free -= 1
        self._history.append(move)
        graphs: tuple[int, ...] = (mover,)
        if self._neutralises(move, mover):
            board[move] = NEUTRAL
            graphs = (mover, 1 - mover)
        for player in graphs:
            pair = self._pair_joined(move, player)
            if pair is not None:
                how = "" if player == mover else (
                    f" (completed by {_COLOUR_NAMES[mover]}'s piece turning neutral)"
                )
                self._outcome = Outcome(
                    player,
                    f"{_COLOUR_NAMES[player]}'s chain joins the two {pair} sides{how}",
                )
                return
        if self._free == 0:
            self._outcome = self._count("on a full board")

    def undo(self) -> BrickaMove:
        if not self._history:
            raise GameError("no move to undo")
        move = self._history.pop()
        self._to_move = 1 - self._to_move
        self._outcome = None
        if move != PASS:
            self._board[move] = EMPTY
            self._free += 1
        return move

    def _neutralises(self, point: int, mover: int) -> bool:
        """K5: the mover holds a strict majority of the non-neutral points of an active
        cell (counting the new piece in the mover's colour)."""
        board = self._board
        for c in CELLS_OF[point]:
            cell = CELLS[c]
            neutral = 0
            mine = 0
            for q in cell:
                if board[q] == NEUTRAL:
                    neutral += 1
                elif board[q] == mover:
                    mine += 1
            if mine >= (len(cell) - neutral) // 2 + 1:
                return True
        return False

    def _pair_joined(self, start: int, player: int) -> str | None:
        """The pair of opposite sides joined by ``player``'s own-or-neutral chain through
        ``start`` (a new connection always runs through the new piece), or None."""
        board = self._board
        seen = {start}
        stack = [start]
        touched = set()
        while stack:
            p = stack.pop()
            if SIDE_OF[p] >= 0:
                touched.add(SIDE_OF[p])
            for q in NEIGHBOURS[p]:
                if q not in seen and (board[q] == player or board[q] == NEUTRAL):
                    seen.add(q)
                    stack.append(q)
        for k, pair in enumerate(PAIR_NAMES):
            if 2 * k in touched and 2 * k + 1 in touched:
                return pair
        return None

    def counts(self) -> tuple[int, int, int]:
        """Pieces on the board: (Black, White, neutral)."""
        board = self._board
        return board.count(BLACK), board.count(WHITE), board.count(NEUTRAL)

    def _count(self, when: str) -> Outcome:
        return _count_outcome(self._board.count(BLACK), self._board.count(WHITE), when)

    # ------------------------------------------------------------------------ text

    def parse_move(self, token: str, notation: Notation = "gtp") -> BrickaMove:
        text = token.strip().lower()
        if text == "pass":
            return PASS
        fr = parse_point(text, GRID, GRID, notation)
        if fr is None:
            raise MoveSyntaxError(
                f"invalid move {token!r}: expected an intersection (a1..m13 native, "
                "a1..n13 gtp) or pass"
            )
        point = INDEX.get(fr)
        if point is None:
            raise MoveSyntaxError(
                f"invalid move {token!r}: not an intersection of the Bricka board"
            )
        return point

    def format_move(self, move: BrickaMove, notation: Notation = "gtp") -> str:
        if move == PASS:
            return "pass"
        f, r = POINTS[move]
        return format_point(f, r, notation)

    def board_text(self, notation: Notation = "gtp") -> str:
        board = self._board
        blocked = self.blocked() if self._outcome is None else frozenset()
        symbols = {BLACK: "X", WHITE: "O", NEUTRAL: "N"}

        def cell(f: int, r: int) -> str:
            p = INDEX.get((f, r))
            if p is None:
                return " "
            if board[p] != EMPTY:
                return symbols[board[p]]
            return "-" if p in blocked else "."

        black, white, neutral = self.counts()
        legend = (
            "O White  X Black  N neutral  - blocked  . free",
            f"pieces: White {white}  Black {black}  neutral {neutral}",
        )
        return diagram(GRID, GRID, cell, notation, legend)

    # -------------------------------------------------------------------- position strings

    def position_string(self) -> str:
        """``<board> <w|b> <last>`` (docs/ugi.md): rows 13 down to 1, each listing only its
        intersections left to right, ``o`` White, ``x`` Black, ``n`` neutral, a number for a
        run of free intersections; ``last`` is the previous turn: a placement (native label;
        it blocks its cells, K4), ``pass``, ``pass,pass`` (the game ended on two passes), or
        ``-`` (no previous turn)."""
        codes = {EMPTY: None, BLACK: "x", WHITE: "o", NEUTRAL: "n"}
        rows = [
            [codes[self._board[INDEX[(f, r)]]] for f in range(GRID) if (f, r) in INDEX]
            for r in reversed(range(GRID))
        ]
        history = self._history
        if not history:
            last = "-"
        elif history[-1] != PASS:
            last = _point_name(history[-1], "native")
        elif len(history) >= 2 and history[-2] == PASS:
            last = "pass,pass"
        else:
            last = "pass"
        return f"{encode_board(rows)} {'bw'[self._to_move]} {last}"

    @classmethod
    def from_position_string(cls, text: str, **options: object) -> Self:
        """The game of a :meth:`position_string`: the board before the recorded turn(s) is
        set up and they are replayed (history: that placement, or the pass(es))."""
        board_field, side, last = split_fields(text, ("board", "to-move", "last"), "Bricka")
        where = "Bricka position string"
        game = cls(**options)
        widths = [sum((f, r) in INDEX for f in range(GRID)) for r in reversed(range(GRID))]
        rows = decode_board(board_field, widths, _POSITION_CELL, "Bricka")
        board = game._board
        codes = {"x": BLACK, "o": WHITE, "n": NEUTRAL}
        for k, row in enumerate(rows):
            r = GRID - 1 - k
            points = [INDEX[(f, r)] for f in range(GRID) if (f, r) in INDEX]
            for point, code in zip(points, row, strict=True):
                if code is not None:
                    board[point] = codes[code]
        to_move = parse_side(side, ("b", "w"), "Bricka")
        mover = 1 - to_move
        turns: list[BrickaMove] = []
        expected = EMPTY
        lowered = last.lower()
        if lowered == "pass,pass":
            turns = [PASS, PASS]
        elif lowered == "pass":
            turns = [PASS]
        elif lowered != "-":
            try:
                point = game.parse_move(lowered, "native")
            except MoveSyntaxError as error:
                raise PositionError(f"{where}: last field: {error}") from None
            if point == PASS or board[point] not in (mover, NEUTRAL):
                raise PositionError(
                    f"{where}: last field {last!r} needs a {_COLOUR_NAMES[mover]} or neutral "
                    "piece there"
                )
            expected = board[point]
            board[point] = EMPTY
            turns = [point]
        game._free = board.count(EMPTY)
        game._to_move = to_move if len(turns) % 2 == 0 else mover
        for turn in turns:
            game.play(turn)
        if turns and turns[0] != PASS and board[turns[0]] != expected:
            raise PositionError(
                f"{where}: the piece of the last placement {last!r} is "
                f"{'not ' if expected == NEUTRAL else ''}neutral by K5"
            )
        if game._outcome is None and (not turns or turns == [PASS]):
            for player in (mover, to_move):
                for point in range(_N):
                    if board[point] in (player, NEUTRAL) and game._outcome is None:
                        pair = game._pair_joined(point, player)
                        if pair is not None:
                            game._outcome = Outcome(
                                player,
                                f"{_COLOUR_NAMES[player]}'s chain joins the two "
                                f"{pair} sides",
                            )
            if game._outcome is None and game._free == 0:
                game._outcome = game._count("on a full board")
        return game

    # ----------------------------------------------------------------- fast playout

    def random_playout(self, rng: random.Random) -> Outcome:
        return self.playout(rng)

    def playout(self, rng: random.Random, record: list[BrickaMove] | None = None) -> Outcome:
        """A uniformly random game from here on internal arrays (this state is unchanged):
        incremental union-find per player with virtual side nodes (a neutral piece joins both
        players' graphs), per-cell counts for K5, rejection sampling of unblocked points.
        The moves played are appended to ``record`` if given."""
        if self._outcome is not None:
            return self._outcome
        board = self._board.copy()
        # Union-find per player over the 69 points; each root carries the bit mask of the
        # sides its chain touches (bit s for SIDES[s]). Virtual side nodes would be wrong
        # here: a chain touching two sides would merge, through them, chains that are not
        # connected on the board.
        parents = [list(range(_N)), list(range(_N))]
        masks = [list(_SIDE_BITS), list(_SIDE_BITS)]

        def find(parent: list[int], x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        def join(player: int, p: int) -> bool:
            """Add ``p`` to ``player``'s graph; whether its chain now joins a pair."""
            parent = parents[player]
            mask = masks[player]
            root = find(parent, p)
            bits = mask[root]
            for q in NEIGHBOURS[p]:
                v = board[q]
                if v == player or v == NEUTRAL:
                    other = find(parent, q)
                    if other != root:
                        parent[other] = root
                        bits |= mask[other]
            mask[root] = bits
            return (bits & 3) == 3 or (bits & 12) == 12 or (bits & 48) == 48

        # cell counts: [black, white, neutral] per cell
        counts = [[0, 0, 0] for _ in CELLS]
        free: list[int] = []
        for p in range(_N):
            v = board[p]
            if v == EMPTY:
                free.append(p)
                continue
            for c in CELLS_OF[p]:
                counts[c][v] += 1
            if v == NEUTRAL:
                join(0, p)
                join(1, p)
            else:
                join(v, p)
        position = [0] * _N
        for k, p in enumerate(free):
            position[p] = k

        to_move = self._to_move
        history = self._history
        last = self.last_placement()
        passes = 1 if history and history[-1] == PASS else 0
        rand = rng.random
        while True:
            nfree = len(free)
            if last is None:
                nblocked = 0
            else:
                nblocked = 0
                for q in _BLOCKED_SETS[last]:
                    if board[q] == EMPTY:
                        nblocked += 1
            if nblocked == nfree:
                if record is not None:
                    record.append(PASS)
                if passes:
                    return _count_outcome(
                        board.count(BLACK), board.count(WHITE), "after two passes in a row"
                    )
                passes = 1
                last = None
                to_move = 1 - to_move
                continue
            passes = 0
            if nblocked == 0:
                p = free[int(rand() * nfree)]
            else:
                assert last is not None
                flags = _BLOCKED_FLAGS[last]
                while True:
                    p = free[int(rand() * nfree)]
                    if not flags[p]:
                        break
            # remove p from the free list
            k = position[p]
            tail = free.pop()
            if tail != p:
                free[k] = tail
                position[tail] = k
            if record is not None:
                record.append(p)
            mover = to_move
            neutral = False
            cells = CELLS_OF[p]
            for c in cells:
                count = counts[c]
                if count[mover] + 1 >= (_CELL_SIZES[c] - count[2]) // 2 + 1:
                    neutral = True
                    break
            if neutral:
                board[p] = NEUTRAL
                for c in cells:
                    counts[c][2] += 1
                mine = join(mover, p)
                theirs = join(1 - mover, p)
                if mine:
                    return _win_outcome(mover, mover, board)
                if theirs:
                    return _win_outcome(1 - mover, mover, board)
            else:
                board[p] = mover
                for c in cells:
                    counts[c][mover] += 1
                if join(mover, p):
                    return _win_outcome(mover, mover, board)
            if nfree == 1:
                return _count_outcome(
                    board.count(BLACK), board.count(WHITE), "on a full board"
                )
            last = p
            to_move = 1 - mover


def _point_name(point: int, notation: Notation) -> str:
    f, r = POINTS[point]
    return format_point(f, r, notation)


def _count_outcome(black: int, white: int, when: str) -> Outcome:
    """K10: more pieces of one's own colour wins; equal is a draw."""
    if white > black:
        return Outcome(WHITE, f"White has more pieces {when}, {white} to {black}")
    if black > white:
        return Outcome(BLACK, f"Black has more pieces {when}, {black} to {white}")
    return Outcome(None, f"equal count {when}, {white} to {black}")


def _win_outcome(winner: int, mover: int, board: list[int]) -> Outcome:
    """The outcome of a connection found by the fast playout, with the same reason text as
    :meth:`Bricka.play` (the pair is found by a flood fill, only once per playout)."""
    game = Bricka()
    game._board = board
    for p in range(_N):
        if board[p] == winner or board[p] == NEUTRAL:
            pair = game._pair_joined(p, winner)
            if pair is not None:
                how = "" if winner == mover else (
                    f" (completed by {_COLOUR_NAMES[mover]}'s piece turning neutral)"
                )
                return Outcome(
                    winner,
                    f"{_COLOUR_NAMES[winner]}'s chain joins the two {pair} sides{how}",
                )
    raise AssertionError("no chain found")
