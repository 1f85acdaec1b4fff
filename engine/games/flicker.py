"""Flicker: the rules core, following docs/rules/flicker.md (rulings F1-F11).

Flicker is played on the n x n points of a square board. A turn places a stone of the mover's
colour on an empty point, or removes one enemy stone that belongs to an enemy *weak pair* (two
diagonally adjacent stones of one colour with neither common orthogonal neighbour of that
colour). Restrictions (F4-F6): no placing on the point the opponent removed from on the
previous turn; no removing the stone the opponent placed on the previous turn; no removal at
all when the opponent's previous turn or the mover's own previous turn was a removal. A pass
is legal only when nothing else is (F7). Only a placement wins: the mover's orthogonal chain
touching both of the mover's edges (F8; Black: rows 1 and n, White: columns a and the last).
The game is drawn as soon as a position (stones plus player to move) occurs a second time
(F9). The pie rule is the swap-pieces move ``swap`` on White's first turn (F10).

Points are indexed ``i = r * n + f`` (engine.games.grid). The board holds 0 for an empty point and
``player + 1`` for a stone. The restriction state is read from the last two moves of the
history, so undo restores it for free. Positions are keyed exactly: the key XORs in
``colour << 2i`` for every stone (a Zobrist-style incremental update whose "random" numbers
are the position's own bits, so two different positions never share a key) and one bit for
the player to move.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import ClassVar, Literal, NamedTuple, Self

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
from engine.games.notation import Notation, format_point, parse_point
from engine.games.position_text import (
    decode_board,
    encode_board,
    parse_side,
    parse_square,
    split_fields,
)

Kind = Literal["place", "remove", "pass", "swap"]
PLACE: Kind = "place"
REMOVE: Kind = "remove"
PASS: Kind = "pass"
SWAP: Kind = "swap"

EMPTY = 0
_STONE_NAMES = ("black", "white")
_COLOUR_NAMES = ("Black", "White")
_POSITION_CELL = re.compile("[xo]")


class FlickerMove(NamedTuple):
    """A Flicker turn: ``kind`` is place, remove, pass or swap; ``point`` is the point index
    (``r * n + f``) of a placement or removal, -1 otherwise. The text form of a placement and
    of a removal is the same point name: the position decides which it is."""

    kind: Kind
    point: int = -1


PASS_MOVE = FlickerMove(PASS)
SWAP_MOVE = FlickerMove(SWAP)


class _Geometry:
    """Precomputed tables for one board size, shared by every game of that size."""

    def __init__(self, n: int) -> None:
        self.n = n
        size = n * n
        self.size = size
        self.neighbours = orthogonal_neighbours(n)
        self.place_moves = tuple(FlickerMove(PLACE, i) for i in range(size))
        self.remove_moves = tuple(FlickerMove(REMOVE, i) for i in range(size))
        # Diagonal pairs (a, b) with their two common orthogonal neighbours (c, d).
        pairs: list[tuple[int, int, int, int]] = []
        for r in range(n - 1):
            for f in range(n):
                a = index(f, r, n)
                for df in (1, -1):
                    g = f + df
                    if 0 <= g < n:
                        pairs.append(
                            (a, index(g, r + 1, n), index(g, r, n), index(f, r + 1, n))
                        )
        self.pairs = tuple(pairs)
        member: list[list[int]] = [[] for _ in range(size)]
        affected: list[list[int]] = [[] for _ in range(size)]
        for pid, (a, b, c, d) in enumerate(pairs):
            member[a].append(pid)
            member[b].append(pid)
            for p in (a, b, c, d):
                affected[p].append(pid)
        #: pair ids in which a point is one of the two stones
        self.member_pairs = tuple(tuple(m) for m in member)
        #: pair ids whose weakness depends on a point (as a stone or a common neighbour)
        self.affected_pairs = tuple(tuple(a) for a in affected)
        # Edge flags per player: bit 1 for the first edge, bit 2 for the second.
        self.edges = edge_bits(n)
        self.mirror = tuple(swap_mirror(i, n) for i in range(size))
        #: exact key parts: KEYS[colour][i] = colour << 2i (colour 1 or 2); SIDE for White
        self.keys = ((0,) * size, tuple(1 << (2 * i) for i in range(size)),
                     tuple(2 << (2 * i) for i in range(size)))
        self.side_key = 1 << (2 * size)


_GEOMETRY: dict[int, _Geometry] = {}


def _geometry(n: int) -> _Geometry:
    geo = _GEOMETRY.get(n)
    if geo is None:
        geo = _GEOMETRY[n] = _Geometry(n)
    return geo


def _connects(board: list[int], start: int, colour: int, geo: _Geometry, player: int) -> bool:
    """Whether the chain of ``colour`` through ``start`` touches both edges of ``player``."""
    return chain_touches_both(start, board, colour, geo.neighbours, geo.edges[player])


class Flicker(Game[FlickerMove]):
    """A game of Flicker (see the module docstring and docs/rules/flicker.md)."""

    name: ClassVar[str] = "flicker"
    title: ClassVar[str] = "Flicker"
    OPTIONS: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec("size", "int", 11, "board size in points (n x n)", minimum=3, maximum=25),
        OptionSpec("pie", "bool", True, "pie rule: White may swap on White's first turn"),
    )

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        n = int(self.options["size"])
        self._geo = _geometry(n)
        self._n = n
        self._pie = bool(self.options["pie"])
        self._board = [EMPTY] * (n * n)
        self._to_move = BLACK
        self._history: list[FlickerMove] = []
        self._key = 0
        #: position key after each ply (index 0: the start position)
        self._keys = [0]
        #: how many times each position key occurs in the game so far
        self._seen: dict[int, int] = {0: 1}
        self._outcome: Outcome | None = None

    # ------------------------------------------------------------------------ state access

    @property
    def to_move(self) -> int:
        return self._to_move

    @property
    def history(self) -> Sequence[FlickerMove]:
        return self._history

    def outcome(self) -> Outcome | None:
        return self._outcome

    def stone(self, f: int, r: int) -> int | None:
        """The player whose stone is on (f, r), or ``None`` if the point is empty."""
        value = self._board[index(f, r, self._n)]
        return None if value == EMPTY else value - 1

    def position_key(self) -> int:
        """The exact key of the position (stones and player to move), as used for F9."""
        return self._key

    # ------------------------------------------------------------------- restriction state

    def _last(self, back: int) -> FlickerMove | None:
        history = self._history
        return history[-back] if len(history) >= back else None

    def banned_point(self) -> int | None:
        """The point the opponent removed from on the previous turn (no placing there)."""
        last = self._last(1)
        return last.point if last is not None and last.kind == REMOVE else None

    def protected_point(self) -> int | None:
        """The stone the opponent placed on the previous turn (it cannot be removed)."""
        last = self._last(1)
        return last.point if last is not None and last.kind == PLACE else None

    def removal_allowed(self) -> bool:
        """False if the opponent's previous turn or the mover's own previous turn was a
        removal (F5)."""
        last, prev = self._last(1), self._last(2)
        return not (
            (last is not None and last.kind == REMOVE)
            or (prev is not None and prev.kind == REMOVE)
        )

    def swap_allowed(self) -> bool:
        return self._pie and len(self._history) == 1 and self._to_move == WHITE

    def swap_point(self) -> int | None:
        """The point of Black's first stone while White may swap it (F10), else ``None``."""
        return self._history[0].point if self.swap_allowed() else None

    def pie_pending(self) -> bool:
        """Whether the pie swap is still to come (the start position, pie rule on) or
        allowed now; ``False`` once it is spent or the game is over."""
        at_start = not self._history and self._to_move == BLACK and not any(self._board)
        return self._pie and self._outcome is None and (at_start or self.swap_allowed())

    def earlier_keys(self) -> list[int]:
        """The exact keys (:meth:`position_key`) of the game's earlier positions, sorted: a
        turn that brings one of them back draws (F9). A game set up from a position string
        has those of its ``seen`` field."""
        key = self._key
        return sorted(k for k, count in self._seen.items() if count > (k == key))

    # -------------------------------------------------------------------------- weak pairs

    def _pair_is_weak(self, pid: int) -> bool:
        a, b, c, d = self._geo.pairs[pid]
        board = self._board
        colour = board[a]
        return colour != EMPTY and board[b] == colour and board[c] != colour and board[d] != colour

    def in_weak_pair(self, point: int) -> bool:
        """Whether the stone on ``point`` belongs to a weak pair of its colour (F2)."""
        if self._board[point] == EMPTY:
            return False
        return any(self._pair_is_weak(pid) for pid in self._geo.member_pairs[point])

    def removable_points(self) -> list[int]:
        """The enemy stones the mover may remove right now (empty once the game is over)."""
        if self._outcome is not None or not self.removal_allowed():
            return []
        enemy = 2 - self._to_move
        protected = self.protected_point()
        board = self._board
        return [
            i for i in range(len(board))
            if board[i] == enemy and i != protected and self.in_weak_pair(i)
        ]

    # ------------------------------------------------------------------------- legal moves

    def legal_moves(self) -> list[FlickerMove]:
        if self._outcome is not None:
            return []
        geo = self._geo
        banned = self.banned_point()
        board = self._board
        places = geo.place_moves
        moves = [places[i] for i in range(len(board)) if board[i] == EMPTY and i != banned]
        removes = geo.remove_moves
        moves.extend(removes[i] for i in self.removable_points())
        if self.swap_allowed():
            moves.append(SWAP_MOVE)
        if not moves:
            moves.append(PASS_MOVE)
        return moves

    def _name(self, point: int, notation: Notation) -> str:
        f, r = coords(point, self._n)
        return format_point(f, r, notation)

    def illegal_reason(self, move: FlickerMove, notation: Notation = "gtp") -> str | None:
        if self._outcome is not None:
            return "the game is over"
        kind, point = move
        if kind == PASS:
            if len(self.legal_moves()) == 1 and self.legal_moves()[0] == PASS_MOVE:
                return None
            return "pass is only allowed when no other move exists"
        if kind == SWAP:
            if not self._pie:
                return "swap is not allowed: the pie option is off"
            if not self.swap_allowed():
                return "swap is only allowed on White's first turn"
            return None
        if not 0 <= point < len(self._board):
            return f"point {point} is not on the board"
        name = self._name(point, notation)
        occupant = self._board[point]
        last = self._last(1)
        opponent = _COLOUR_NAMES[1 - self._to_move]
        if kind == PLACE:
            if occupant != EMPTY:
                return f"{name} is occupied"
            if point == self.banned_point():
                return f"{name}: {opponent} just removed a stone there, no placing on it now"
            return None
        if kind != REMOVE:
            return f"unknown move kind {kind!r}"
        if occupant == EMPTY:
            return f"{name} is empty"
        if occupant == self._to_move + 1:
            return f"{name} holds your own stone"
        if last is not None and last.kind == REMOVE:
            return f"{name}: no removal now, {opponent} removed a stone on the previous turn"
        prev = self._last(2)
        if prev is not None and prev.kind == REMOVE:
            return f"{name}: no removal now, you removed a stone on your previous turn"
        if point == self.protected_point():
            return f"{name}: {opponent} just placed that stone, it cannot be removed now"
        if not self.in_weak_pair(point):
            return f"{name} is not part of a weak pair"
        return None

    # ------------------------------------------------------------------------ play / undo

    def play(self, move: FlickerMove) -> None:
        """Play a legal move (not checked)."""
        geo = self._geo
        board = self._board
        mover = self._to_move
        kind, point = move
        key = self._key ^ geo.side_key
        if kind == PLACE:
            board[point] = mover + 1
            key ^= geo.keys[mover + 1][point]
        elif kind == REMOVE:
            enemy = 2 - mover
            board[point] = EMPTY
            key ^= geo.keys[enemy][point]
        elif kind == SWAP:
            black = self._history[0].point
            white = geo.mirror[black]
            board[black] = EMPTY
            board[white] = WHITE + 1
            key ^= geo.keys[BLACK + 1][black] ^ geo.keys[WHITE + 1][white]
        self._history.append(move)
        self._to_move = 1 - mover
        self._key = key
        self._keys.append(key)
        seen = self._seen
        count = seen.get(key, 0)
        seen[key] = count + 1
        if kind == PLACE and _connects(board, point, mover + 1, geo, mover):
            self._outcome = Outcome(mover, _win_reason(mover))
        elif count:
            self._outcome = Outcome(None, _DRAW_REASON)

    def undo(self) -> FlickerMove:
        if not self._history:
            raise GameError("no move to undo")
        move = self._history.pop()
        key = self._keys.pop()
        seen = self._seen
        count = seen[key] - 1
        if count:
            seen[key] = count
        else:
            del seen[key]
        self._key = self._keys[-1]
        mover = 1 - self._to_move
        self._to_move = mover
        self._outcome = None
        board = self._board
        kind, point = move
        if kind == PLACE:
            board[point] = EMPTY
        elif kind == REMOVE:
            board[point] = 2 - mover
        elif kind == SWAP:
            black = self._history[0].point
            board[self._geo.mirror[black]] = EMPTY
            board[black] = BLACK + 1
        return move

    def copy(self) -> Self:
        clone = object.__new__(type(self))
        clone.options = dict(self.options)
        clone._geo = self._geo
        clone._n = self._n
        clone._pie = self._pie
        clone._board = self._board[:]
        clone._to_move = self._to_move
        clone._history = self._history[:]
        clone._key = self._key
        clone._keys = self._keys[:]
        clone._seen = dict(self._seen)
        clone._outcome = self._outcome
        return clone

    # ----------------------------------------------------------------------------- text

    def parse_move(self, token: str, notation: Notation = "gtp") -> FlickerMove:
        text = token.lower()
        if text == "pass":
            return PASS_MOVE
        if text in ("swap", "swap-pieces"):
            return SWAP_MOVE
        n = self._n
        found = parse_point(text, n, n, notation)
        if found is None:
            raise MoveSyntaxError(
                f"invalid move {token!r}: expected a point of the {n}x{n} board, "
                "pass or swap"
            )
        point = index(found[0], found[1], n)
        if self._board[point] == EMPTY:
            return self._geo.place_moves[point]
        return self._geo.remove_moves[point]

    def format_move(self, move: FlickerMove, notation: Notation = "gtp") -> str:
        kind, point = move
        if kind == PASS:
            return "pass"
        if kind == SWAP:
            return "swap"
        f, r = coords(point, self._n)
        return format_point(f, r, notation)

    def board_text(self, notation: Notation = "gtp") -> str:
        """The board, top row first: ``X`` Black, ``O`` White, ``.`` empty; a stone the
        player to move may remove right now is in lowercase (``x``/``o``), and the point the
        player to move may not place on is ``-``. Legend lines give the restriction state."""
        n = self._n
        board = self._board
        removable = set(self.removable_points())
        banned = self.banned_point() if self._outcome is None else None

        def cell(f: int, r: int) -> str:
            i = index(f, r, n)
            value = board[i]
            if value == EMPTY:
                return "-" if i == banned else "."
            char = "X" if value == BLACK + 1 else "O"
            return char.lower() if i in removable else char

        legend = ["X Black (top and bottom edges), O White (left and right edges)"]
        if self._outcome is None:
            turn = f"move {len(self._history) + 1}"
            last = self._last(1)
            if last is not None:
                opponent = _COLOUR_NAMES[1 - self._to_move]
                turn += f", last move: {opponent} {self._describe(last, notation)}"
            legend.append(turn)
            if not self.removal_allowed():
                legend.append("removals: none allowed (a removal on one of the last two turns)")
            elif removable:
                names = " ".join(
                    self.format_move(FlickerMove(REMOVE, i), notation) for i in sorted(removable)
                )
                legend.append(f"removable now (lowercase): {names}")
            else:
                legend.append("removable now: none")
            if banned is not None:
                legend.append(
                    f"no placing on {self.format_move(FlickerMove(PLACE, banned), notation)} "
                    "(just emptied, marked -)"
                )
            if self.swap_allowed():
                legend.append("swap allowed (pie rule)")
        return diagram(n, n, cell, notation, legend)

    def _describe(self, move: FlickerMove, notation: Notation) -> str:
        kind = move.kind
        if kind == PLACE:
            return f"placed {self.format_move(move, notation)}"
        if kind == REMOVE:
            return f"removed {self.format_move(move, notation)}"
        if kind == SWAP:
            return "swapped (pie rule)"
        return "passed"

    # --------------------------------------------------------------------- fast playouts

    def random_playout(
        self, rng: random.Random, record: list[FlickerMove] | None = None
    ) -> Outcome:
        """A uniformly random game from here to the end, on private arrays (this state is
        not changed). Weak-pair membership is kept incrementally (eight diagonal pairs
        depend on each point), so a move costs O(1) plus the flood fill of the placed
        stone's chain. ``record``, if given, receives the moves played (for tests)."""
        if self._outcome is not None:
            return self._outcome
        return _playout(self, rng, record)

    # -------------------------------------------------------------------- position strings

    def _position_token(self, move: FlickerMove | None) -> str:
        if move is None:
            return "-"
        kind, point = move
        if kind == PLACE:
            return "+" + self._name(point, "native")
        if kind == REMOVE:
            return "x" + self._name(point, "native")
        return kind

    def position_string(self) -> str:
        """``<board> <b|w> <swap|-> <prev> <last> <seen>`` (docs/ugi.md): rows from the top,
        ``x`` Black, ``o`` White, a number for a run of empty points; ``swap`` while the pie
        swap is still to come or available now; the last two turns (``-``, ``pass``,
        ``swap``, ``+c3`` a placement, ``xc3`` a removal; a swap two turns back is written
        ``-``), which carry the restrictions of F4-F6; ``seen``: the exact keys
        (hexadecimal) of the earlier positions of the game, for the repetition rule F9,
        comma-separated, ``-`` if none."""
        n = self._n
        codes = (None, "x", "o")
        rows = [[codes[self._board[r * n + f]] for f in range(n)] for r in reversed(range(n))]
        pending = self.pie_pending()
        seen = ",".join(format(key, "x") for key in self.earlier_keys())
        prev = self._last(2)
        return " ".join((
            encode_board(rows),
            "bw"[self._to_move],
            "swap" if pending else "-",
            self._position_token(prev if prev is None or prev.kind != SWAP else None),
            self._position_token(self._last(1)),
            seen or "-",
        ))

    @classmethod
    def from_position_string(cls, text: str, **options: object) -> Self:
        """The game of a :meth:`position_string`: the board before the recorded turns is
        set up and those turns are replayed, so the history holds them (at most two);
        ``seen`` restores the repetition record exactly. The size comes from the board
        unless given. Without ``swap`` the pie rule is spent."""
        names = ("board", "to-move", "swap", "prev", "last", "seen")
        fields = split_fields(text, names, "Flicker")
        given = dict(options)
        given.setdefault("size", fields[0].count("/") + 1)
        game = cls(**given)
        n = game._n
        geo = game._geo
        where = "Flicker position string"
        rows = decode_board(fields[0], [n] * n, _POSITION_CELL, "Flicker")
        board = [EMPTY] * (n * n)
        for k, row in enumerate(rows):
            for f, code in enumerate(row):
                if code is not None:
                    board[(n - 1 - k) * n + f] = 1 if code == "x" else 2
        to_move = parse_side(fields[1], ("b", "w"), "Flicker")
        pending = parse_side(fields[2], ("-", "swap"), "Flicker", "swap")
        turns: list[FlickerMove] = []
        for name, token in zip(("prev", "last"), fields[3:5], strict=True):
            lowered = token.lower()
            if lowered == "-":
                if turns:
                    raise PositionError(f"{where}: prev field {fields[3]!r} needs a last turn")
                continue
            if lowered == SWAP and name == "prev":
                continue  # restricts nothing; cannot be replayed without Black's first stone
            if lowered in (PASS, SWAP):
                turns.append(FlickerMove(lowered))
            elif lowered[:1] in ("+", "x"):
                point = parse_square(lowered[1:], n, "Flicker", f"{name} field")
                turns.append(FlickerMove(PLACE if lowered[0] == "+" else REMOVE, point))
            else:
                raise PositionError(
                    f"{where}: {name} field {token!r} is not -, pass, swap, +point or xpoint"
                )
        # Undo the recorded turns on the board: the last was played by the opponent of the
        # player to move, the one before by the player to move.
        mover = to_move
        for turn in reversed(turns):
            mover = 1 - mover
            kind, point = turn
            label = game._position_token(turn)
            if kind == PLACE:
                if board[point] != mover + 1:
                    raise PositionError(
                        f"{where}: turn {label} needs a {_STONE_NAMES[mover]} stone there"
                    )
                board[point] = EMPTY
            elif kind == REMOVE:
                if board[point] != EMPTY:
                    raise PositionError(f"{where}: turn {label} needs an empty point there")
                board[point] = 2 - mover
            elif kind == SWAP:
                first = turns[0] if len(turns) == 2 else None
                if turn is not turns[-1] or first is None or first.kind != PLACE:
                    raise PositionError(
                        f"{where}: swap must be the last turn, after Black's first stone"
                    )
                mirror = geo.mirror[first.point]
                if board[mirror] != WHITE + 1:
                    raise PositionError(f"{where}: swap needs the swapped White stone")
                board[mirror] = EMPTY
                board[first.point] = BLACK + 1
        start_empty = not any(board)
        if any(turn.kind == SWAP for turn in turns) and not start_empty:
            raise PositionError(f"{where}: a swap is only played on the second turn")
        if pending:
            if not game._pie:
                raise PositionError(f"{where}: swap field 'swap' but the pie option is off")
            if not start_empty or len(turns) != (0 if to_move == BLACK else 1) or (
                turns and turns[0].kind != PLACE
            ):
                raise PositionError(
                    f"{where}: swap field 'swap' needs the start position (empty board, b to "
                    "move) or Black's first stone with w to move and last field +point"
                )
        seen: set[int] = set()
        if fields[5] != "-":
            for part in fields[5].split(","):
                try:
                    key = int(part, 16)
                except ValueError:
                    key = -1
                if key < 0 or key >> (2 * n * n + 1) or any(
                    (key >> (2 * i)) & 3 == 3 for i in range(n * n)
                ):
                    raise PositionError(
                        f"{where}: seen field has {part!r}, not a position key of this board"
                    )
                seen.add(key)
        key = geo.side_key if mover == WHITE else 0
        for i, colour in enumerate(board):
            key ^= geo.keys[colour][i]
        game._board = board
        game._to_move = mover
        game._key = key
        game._keys = [key]
        if len(turns) == 2:
            kind, point = turns[0]
            colour = mover + 1 if kind == PLACE else 2 - mover
            seen.discard(key ^ geo.side_key ^ (geo.keys[colour][point] if point >= 0 else 0))
        seen.add(key)
        game._seen = dict.fromkeys(seen, 1)
        for turn in turns:
            game.play(turn)
        if not pending:
            game._pie = False
        last_mover = 1 - to_move
        for player in (to_move, last_mover):
            if game._outcome is None and any(
                board[i] == player + 1 and _connects(board, i, player + 1, geo, player)
                for i in range(n * n)
            ):
                if player == to_move:
                    raise PositionError(
                        f"{where}: the side to move ({fields[1]}) already connects its edges"
                    )
                game._outcome = Outcome(player, _win_reason(player))
        return game


_DRAW_REASON = "the position repeated with the same player to move"


def _win_reason(player: int) -> str:
    if player == BLACK:
        return "Black connects top and bottom"
    return "White connects left and right"


def _playout(game: Flicker, rng: random.Random, record: list[FlickerMove] | None) -> Outcome:
    geo = game._geo
    size = geo.size
    board = game._board[:]
    pairs = geo.pairs
    affected = geo.affected_pairs
    keys = geo.keys
    side_key = geo.side_key
    neighbours = geo.neighbours
    uniform = rng.random

    # Indexable sets: empty points, and per colour the stones in a weak pair.
    empties = [i for i in range(size) if board[i] == EMPTY]
    epos = [-1] * size
    for k, i in enumerate(empties):
        epos[i] = k
    weak_colour = [0] * len(pairs)  # colour of a weak pair, 0 if the pair is not weak
    wcount = [0] * size  # number of weak pairs a stone belongs to
    removable: tuple[list[int], list[int], list[int]] = ([], [], [])
    rpos = [-1] * size
    for pid, (a, b, c, d) in enumerate(pairs):
        colour = board[a]
        if colour != EMPTY and board[b] == colour and board[c] != colour and board[d] != colour:
            weak_colour[pid] = colour
            wcount[a] += 1
            wcount[b] += 1
    for i in range(size):
        if wcount[i]:
            lst = removable[board[i]]
            rpos[i] = len(lst)
            lst.append(i)

    def refresh(point: int) -> None:
        for pid in affected[point]:
            a, b, c, d = pairs[pid]
            colour = board[a]
            if not (colour != EMPTY and board[b] == colour and board[c] != colour
                    and board[d] != colour):
                colour = 0
            old = weak_colour[pid]
            if colour == old:
                continue
            weak_colour[pid] = colour
            if old:
                lst = removable[old]
                for s in (a, b):
                    left = wcount[s] - 1
                    wcount[s] = left
                    if not left:
                        k = rpos[s]
                        tail = lst.pop()
                        if tail != s:
                            lst[k] = tail
                            rpos[tail] = k
                        rpos[s] = -1
            if colour:
                lst = removable[colour]
                for s in (a, b):
                    if not wcount[s]:
                        rpos[s] = len(lst)
                        lst.append(s)
                    wcount[s] += 1

    history = game._history
    last = history[-1] if history else None
    prev = history[-2] if len(history) >= 2 else None
    last_kind: str = last.kind if last is not None else PASS
    last_point = last.point if last is not None else -1
    prev_kind: str = prev.kind if prev is not None else PASS
    mover = game._to_move
    swap_ok = game.swap_allowed()
    key = game._key
    seen_before = game._seen
    seen_now: set[int] = set()
    place_moves = geo.place_moves
    remove_moves = geo.remove_moves
    edges = geo.edges

    while True:
        own = mover + 1
        enemy = 2 - mover
        banned = last_point if last_kind == REMOVE else -1
        protected = last_point if last_kind == PLACE else -1
        n_empty = len(empties)
        enemy_list = removable[enemy]
        n_remove = len(enemy_list) if last_kind != REMOVE and prev_kind != REMOVE else 0
        legal = n_empty + n_remove + (1 if swap_ok else 0)
        if banned >= 0:
            legal -= 1
        if n_remove and protected >= 0 and rpos[protected] >= 0 and board[protected] == enemy:
            legal -= 1
        kind: str
        if legal == 0:
            kind, point = PASS, -1
        else:
            total = n_empty + n_remove + (1 if swap_ok else 0)
            while True:
                k = int(uniform() * total)
                if k < n_empty:
                    point = empties[k]
                    if point != banned:
                        kind = PLACE
                        break
                elif k < n_empty + n_remove:
                    point = enemy_list[k - n_empty]
                    if point != protected:
                        kind = REMOVE
                        break
                else:
                    kind, point = SWAP, -1
                    break
        key ^= side_key
        if kind == PLACE:
            board[point] = own
            key ^= keys[own][point]
            k = epos[point]
            tail = empties.pop()
            if tail != point:
                empties[k] = tail
                epos[tail] = k
            epos[point] = -1
            refresh(point)
        elif kind == REMOVE:
            board[point] = EMPTY
            key ^= keys[enemy][point]
            epos[point] = len(empties)
            empties.append(point)
            refresh(point)
        elif kind == SWAP:
            black = history[0].point if history else -1
            white = geo.mirror[black]
            board[black] = EMPTY
            key ^= keys[1][black]
            epos[black] = len(empties)
            empties.append(black)
            refresh(black)
            board[white] = 2
            key ^= keys[2][white]
            k = epos[white]
            tail = empties.pop()
            if tail != white:
                empties[k] = tail
                epos[tail] = k
            epos[white] = -1
            refresh(white)
        swap_ok = False
        if record is not None:
            if kind == PLACE:
                record.append(place_moves[point])
            elif kind == REMOVE:
                record.append(remove_moves[point])
            else:
                record.append(PASS_MOVE if kind == PASS else SWAP_MOVE)
        if kind == PLACE:
            # flood fill of the placed stone's chain (F8); a lone stone never connects (n >= 3)
            edge = edges[mover]
            touched = 0
            stack = [j for j in neighbours[point] if board[j] == own]
            seen = set(stack)
            seen.add(point)
            if stack:
                touched = edge[point]
            while stack:
                i = stack.pop()
                touched |= edge[i]
                if touched == 3:
                    return Outcome(mover, _win_reason(mover))
                for j in neighbours[i]:
                    if board[j] == own and j not in seen:
                        seen.add(j)
                        stack.append(j)
        if key in seen_before or key in seen_now:
            return Outcome(None, _DRAW_REASON)
        seen_now.add(key)
        prev_kind = last_kind
        last_kind, last_point = kind, point
        mover = 1 - mover
