"""Brique (Luis Bolaños Mures, 2012, with the December 2012 removal rule): the exact rules core.

Follows ``docs/rules/brique.md`` (rulings B1-B11) and the shared conventions of
``docs/rules/README.md``:

* an n x n checkered board (option ``size``, 3..25, default 11) whose top-left square is light
  (B3): square (f, r) is light iff f + (n-1-r) is even;
* the escorts of a light square are the squares above and to the left of it, those of a dark
  square the squares below and to the right (B2); a square with fewer than two escorts on the
  board is never filled (B4);
* a turn puts one stone on an empty square (B5); then every square whose two escorts hold the
  mover's stones and which does not hold a mover's stone receives one, an enemy stone there
  being removed first (B6). Only the squares the placed stone escorts can qualify, so at most
  two squares are filled and fills never cascade (B7, docs/rules/brique.md#diagonal-pairs);
* the mover wins with an orthogonal chain touching both of their edges (Black: rows 1 and n;
  White: columns a and the last), checked after the fills (B8, B9); no draws, no pass (B11);
* the pie rule (option ``pie``, default on) as the move ``swap`` (alias ``swap-pieces``) on
  White's first turn: Black's stone at (f, r) becomes a White stone at (n-1-r, n-1-f) (B10).

:meth:`Brique.play` trusts its caller; :meth:`Brique.random_playout` is the fast path for
search (incremental union-find whose roots record the edges touched, no rescans).
"""

from __future__ import annotations

import dataclasses
import functools
import random
import re
from collections.abc import Sequence
from typing import ClassVar, Self

from engine.games.core import (
    BLACK,
    WHITE,
    Game,
    GameError,
    MoveSyntaxError,
    OptionSpec,
    Outcome,
    PositionError,
)
from engine.games.grid import (
    chain_touches_both,
    coords,
    diagram,
    edge_bits,
    index,
    orthogonal_neighbours,
    swap_mirror,
)
from engine.games.notation import Notation, column_letter, format_point, parse_point
from engine.games.position_text import decode_board, encode_board, parse_side, split_fields

EMPTY = -1
SWAP_TOKENS = ("swap", "swap-pieces")
_POSITION_CELL = re.compile("[xo]")
WIN_REASONS = (
    "Black's chain joins the bottom and top edges",
    "White's chain joins the left and right edges",
)


@dataclasses.dataclass(frozen=True, slots=True)
class BriqueMove:
    """A Brique move: a stone on cell ``square`` (index r*n + f), or the pie swap (-1)."""

    square: int

    @property
    def is_swap(self) -> bool:
        return self.square == -1


SWAP = BriqueMove(-1)


@dataclasses.dataclass(frozen=True)
class Geometry:
    """The fixed data of an n x n Brique board (the geometry of the rules)."""

    n: int
    #: light[i]: whether cell i is a light square (B3).
    light: tuple[bool, ...]
    #: escorts[i]: the escorts of cell i that are on the board (0, 1 or 2 cells; B2, B4).
    escorts: tuple[tuple[int, ...], ...]
    #: fills[s]: the (partner, square) pairs such that ``square`` has the two escorts s and
    #: partner; a stone on s fills ``square`` when the mover also holds ``partner`` (3.3).
    fills: tuple[tuple[tuple[int, int], ...], ...]
    neighbours: tuple[tuple[int, ...], ...]
    #: edge_bits[player][i]: bit 1 if cell i is on the player's first edge (Black bottom,
    #: White left), bit 2 if on the second (Black top, White right); corners touch both (B8).
    edge_bits: tuple[tuple[int, ...], tuple[int, ...]]


@functools.cache
def geometry(n: int) -> Geometry:
    """The geometry of the n x n board, derived straight from the escort definition."""
    cells = n * n
    light = tuple((f + (n - 1 - r)) % 2 == 0 for f, r in (coords(i, n) for i in range(cells)))
    escorts: list[tuple[int, ...]] = []
    for i in range(cells):
        f, r = coords(i, n)
        offsets = ((0, 1), (-1, 0)) if light[i] else ((0, -1), (1, 0))
        escorts.append(
            tuple(
                index(f + df, r + dr, n)
                for df, dr in offsets
                if 0 <= f + df < n and 0 <= r + dr < n
            )
        )
    fills: list[list[tuple[int, int]]] = [[] for _ in range(cells)]
    for q, pair in enumerate(escorts):
        if len(pair) == 2:
            a, b = pair
            fills[a].append((b, q))
            fills[b].append((a, q))
    return Geometry(
        n=n,
        light=light,
        escorts=tuple(escorts),
        fills=tuple(tuple(pairs) for pairs in fills),
        neighbours=tuple(orthogonal_neighbours(n)),
        edge_bits=edge_bits(n),
    )


class Brique(Game[BriqueMove]):
    """A Brique game: mutable state with play/undo (player 0 = Black moves first)."""

    name: ClassVar[str] = "brique"
    title: ClassVar[str] = "Brique"
    OPTIONS: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec("size", "int", 11, "board size n (n x n squares)", minimum=3, maximum=25),
        OptionSpec("pie", "bool", True, "White may swap on its first turn (swap-pieces)"),
    )

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        self.n: int = int(self.options["size"])
        self.pie: bool = bool(self.options["pie"])
        self.geo: Geometry = geometry(self.n)
        self._moves: tuple[BriqueMove, ...] = tuple(BriqueMove(i) for i in range(self.n ** 2))
        self._cells: list[int] = [EMPTY] * (self.n * self.n)
        self._to_move: int = BLACK
        self._winner: int | None = None
        self._history: list[BriqueMove] = []
        #: One entry per move: the (cell, previous content) changes, in the order made.
        self._changes: list[tuple[tuple[int, int], ...]] = []

    # ------------------------------------------------------------------------ state access

    @property
    def to_move(self) -> int:
        return self._to_move

    @property
    def history(self) -> Sequence[BriqueMove]:
        return tuple(self._history)

    def stone(self, f: int, r: int) -> int:
        """The content of square (f, r): ``EMPTY`` (-1), ``BLACK`` (0) or ``WHITE`` (1)."""
        return self._cells[index(f, r, self.n)]

    def cells(self) -> tuple[int, ...]:
        """The content of every cell, indexed r*n + f."""
        return tuple(self._cells)

    def outcome(self) -> Outcome | None:
        if self._winner is None:
            return None
        return Outcome(self._winner, WIN_REASONS[self._winner])

    def is_over(self) -> bool:
        return self._winner is not None

    def _swap_allowed(self) -> bool:
        return self.pie and len(self._history) == 1 and self._to_move == WHITE

    # ----------------------------------------------------------------------------- moves

    def legal_moves(self) -> list[BriqueMove]:
        if self._winner is not None:
            return []
        cells = self._cells
        moves = [move for move, cell in zip(self._moves, cells, strict=True) if cell == EMPTY]
        if self._swap_allowed():
            moves.append(SWAP)
        return moves

    def illegal_reason(self, move: BriqueMove, notation: Notation = "gtp") -> str | None:
        if self._winner is not None:
            return "the game is over"
        if move.is_swap:
            if not self.pie:
                return "swap is not allowed: the pie option is off"
            if not self._swap_allowed():
                return "swap is only allowed on White's first turn"
            return None
        if not 0 <= move.square < self.n * self.n:
            return "not a square of this board"
        content = self._cells[move.square]
        if content != EMPTY:
            colour = "Black" if content == BLACK else "White"
            return f"{self._square_name(move.square, notation)} is occupied by {colour}"
        return None

    def _square_name(self, square: int, notation: Notation) -> str:
        f, r = coords(square, self.n)
        return format_point(f, r, notation)

    def play(self, move: BriqueMove) -> None:
        """Play a legal move (not checked): place, fill, then test the mover's connection."""
        player = self._to_move
        cells = self._cells
        if move.square < 0:
            source = self._history[0].square
            target = swap_mirror(source, self.n)
            if source == target:
                changes: tuple[tuple[int, int], ...] = ((source, BLACK),)
            else:
                changes = ((source, BLACK), (target, cells[target]))
                cells[source] = EMPTY
            cells[target] = WHITE
        else:
            square = move.square
            cells[square] = player
            made = [(square, EMPTY)]
            for partner, target in self.geo.fills[square]:
                if cells[partner] == player and cells[target] != player:
                    made.append((target, cells[target]))
                    cells[target] = player
            changes = tuple(made)
            # Every fill is orthogonally adjacent to the placed stone, so a new chain
            # between the mover's edges must run through it (B9).
            if self._touches_both_edges(square, player):
                self._winner = player
        self._changes.append(changes)
        self._history.append(move)
        self._to_move = 1 - player

    def undo(self) -> BriqueMove:
        if not self._history:
            raise GameError("no move to undo")
        move = self._history.pop()
        cells = self._cells
        for cell, previous in reversed(self._changes.pop()):
            cells[cell] = previous
        self._to_move = 1 - self._to_move
        self._winner = None
        return move

    def _touches_both_edges(self, start: int, player: int) -> bool:
        """Whether the mover's orthogonal chain through ``start`` touches both edges."""
        return chain_touches_both(
            start, self._cells, player, self.geo.neighbours, self.geo.edge_bits[player]
        )

    # ---------------------------------------------------------------------------- codecs

    def parse_move(self, token: str, notation: Notation = "gtp") -> BriqueMove:
        text = token.strip().lower()
        if text in SWAP_TOKENS:
            return SWAP
        point = parse_point(text, self.n, self.n, notation)
        if point is None:
            last = format_point(self.n - 1, self.n - 1, notation)
            raise MoveSyntaxError(
                f"invalid move {token!r}: expected a square a1..{last} or swap"
            )
        return self._moves[index(point[0], point[1], self.n)]

    def format_move(self, move: BriqueMove, notation: Notation = "gtp") -> str:
        if move.is_swap:
            return "swap"
        return format_point(*coords(move.square, self.n), notation)

    # ------------------------------------------------------------------------- rendering

    def board_text(self, notation: Notation = "gtp") -> str:
        """The board, top row first: ``X`` Black, ``O`` White, ``.`` an empty light square,
        ``:`` an empty dark square; a legend line follows (the GTP session adds who is to
        move)."""
        n = self.n
        cells = self._cells
        light = self.geo.light

        def cell(f: int, r: int) -> str:
            i = r * n + f
            content = cells[i]
            if content == BLACK:
                return "X"
            if content == WHITE:
                return "O"
            return "." if light[i] else ":"

        last = column_letter(n - 1, notation)
        legend = [f"X Black (rows 1-{n})  O White (columns a-{last})  . light  : dark"]
        return diagram(n, n, cell, notation, legend)

    # ------------------------------------------------------------------------ search aids

    def copy(self) -> Self:
        clone = object.__new__(type(self))
        clone.options = dict(self.options)
        clone.n = self.n
        clone.pie = self.pie
        clone.geo = self.geo
        clone._moves = self._moves
        clone._cells = self._cells.copy()
        clone._to_move = self._to_move
        clone._winner = self._winner
        clone._history = self._history.copy()
        clone._changes = self._changes.copy()
        return clone

    def random_playout(self, rng: random.Random) -> Outcome:
        """Play uniformly random legal moves to the end on internal arrays; ``self`` is not
        changed. Connections are tracked by a union-find per colour whose roots record the
        edges touched; see :func:`fast_playout`."""
        return fast_playout(self, rng, None)

    # -------------------------------------------------------------------- position strings

    def position_string(self) -> str:
        """``<board> <b|w> <swap|->`` (docs/ugi.md): rows from the top, ``x`` Black, ``o``
        White, a number for a run of empty squares; ``swap`` while the pie swap is still to
        come (the start position) or available now (White's first turn), else ``-``."""
        n = self.n
        codes = {BLACK: "x", WHITE: "o", EMPTY: None}
        rows = [[codes[self._cells[r * n + f]] for f in range(n)] for r in reversed(range(n))]
        at_start = (
            not self._history
            and self._to_move == BLACK
            and all(cell == EMPTY for cell in self._cells)
        )
        pending = self.pie and self._winner is None and (at_start or self._swap_allowed())
        return f"{encode_board(rows)} {'bw'[self._to_move]} {'swap' if pending else '-'}"

    @classmethod
    def from_position_string(cls, text: str, **options: object) -> Self:
        """The game of a :meth:`position_string`; the size comes from the board unless
        given. A ``swap`` position keeps its exact history (none, or Black's first stone);
        any other has an empty history and the pie rule spent."""
        board, side, swap = split_fields(text, ("board", "to-move", "swap"), "Brique")
        given = dict(options)
        given.setdefault("size", board.count("/") + 1)
        game = cls(**given)
        n = game.n
        rows = decode_board(board, [n] * n, _POSITION_CELL, "Brique")
        to_move = parse_side(side, ("b", "w"), "Brique")
        pending = parse_side(swap, ("-", "swap"), "Brique", "swap")
        cells = game._cells
        for k, row in enumerate(rows):
            for f, code in enumerate(row):
                if code is not None:
                    cells[(n - 1 - k) * n + f] = BLACK if code == "x" else WHITE
        game._to_move = to_move
        stones = [i for i, cell in enumerate(cells) if cell != EMPTY]
        if pending:
            if not game.pie:
                raise PositionError(
                    "Brique position string: swap field 'swap' but the pie option is off"
                )
            if len(stones) == 1 and cells[stones[0]] == BLACK and to_move == WHITE:
                game._history = [game._moves[stones[0]]]
                game._changes = [((stones[0], EMPTY),)]
            elif stones or to_move != BLACK:
                raise PositionError(
                    "Brique position string: swap field 'swap' needs the start position "
                    "(empty board, b to move) or Black's first stone alone with w to move"
                )
        else:
            game.pie = False
        for square, pair in enumerate(game.geo.escorts):
            owner = cells[pair[0]] if len(pair) == 2 else EMPTY
            if owner != EMPTY and cells[pair[1]] == owner and cells[square] != owner:
                names = [game.format_move(game._moves[i]) for i in (square, *pair)]
                raise PositionError(
                    f"Brique position string: {names[0]} must hold a "
                    f"{game.player_name(owner)} stone, as its escorts {names[1]} and "
                    f"{names[2]} do (fills never leave such a square; no game reaches this)"
                )
        for player in (to_move, 1 - to_move):
            if any(
                cells[i] == player and game._touches_both_edges(i, player) for i in stones
            ):
                if player == to_move:
                    raise PositionError(
                        f"Brique position string: the side to move ({side}) already "
                        "connects its edges"
                    )
                game._winner = player
        return game


def fast_playout(game: Brique, rng: random.Random, record: list[BriqueMove] | None) -> Outcome:
    """A uniformly random playout from ``game`` (unchanged); the moves go to ``record``.

    Each colour has its own union-find over the cells; each set's root records which of the
    colour's two edges the set touches (the two virtual edge nodes, kept as bits).
    A removed enemy stone is simply left in the enemy's structure: by the diagonal form its other
    enemy neighbours (a NE-SW pair) stay joined through the square their pair fills, and any
    edge it touched is touched by such a neighbour, so the live stones' connectivity and edge
    contacts are unchanged; and a removed stone never returns to its colour (the filled
    triple is permanent), so its stale node is never joined again.
    """
    if game._winner is not None:
        return Outcome(game._winner, WIN_REASONS[game._winner])
    if game._swap_allowed():
        moves = game.legal_moves()
        first = moves[rng.randrange(len(moves))]
        game = game.copy()
        game.play(first)
        if record is not None:
            record.append(first)
        if game._winner is not None:
            return Outcome(game._winner, WIN_REASONS[game._winner])
    n = game.n
    size = n * n
    geo = game.geo
    fills = geo.fills
    neighbours = geo.neighbours
    edge_bits = geo.edge_bits
    cells = game._cells.copy()
    # Node of cell i for colour p: p*size + i. bits[root]: the edges (1, 2) its set touches.
    parent = list(range(2 * size))
    bits = [0] * (2 * size)

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def join(player: int, cell: int) -> int:
        """Join a new stone of ``player`` on ``cell`` to its neighbours; the set's edges."""
        base = player * size
        root = find(base + cell)
        touched = bits[root] | edge_bits[player][cell]
        for near in neighbours[cell]:
            if cells[near] == player:
                other = find(base + near)
                if other != root:
                    parent[other] = root
                    touched |= bits[other]
        bits[root] = touched
        return touched

    empties = []
    for cell in range(size):
        content = cells[cell]
        if content == EMPTY:
            empties.append(cell)
        else:
            join(content, cell)
    rng.shuffle(empties)
    player = game._to_move
    move_of = game._moves
    for square in empties:
        if cells[square] != EMPTY:
            continue
        if record is not None:
            record.append(move_of[square])
        cells[square] = player
        touched = join(player, square)
        for partner, target in fills[square]:
            if cells[partner] == player and cells[target] != player:
                cells[target] = player
                touched = join(player, target)
        # Every fill touches the placed stone, so the last join saw the whole new chain.
        if touched == 3:
            return Outcome(player, WIN_REASONS[player])
        player = 1 - player
    raise AssertionError("a full Brique board without a winner")  # pragma: no cover
