"""GoGui click mappings, one per game: how the board is drawn and what each click means.

GoGui (Remi-Coulom/gogui, doc/manual/xml/rules.xml) shows a rect board of points and turns a
click into ``play COLOR POINT``; moving pieces are played as several clicks (half-moves) with
the side to move unchanged in between. A :class:`ClickMap` translates one game to that model:

* :meth:`ClickMap.rows` is the board for ``gogui-rules_board`` (X first player, O second,
  ``.`` empty, ``?`` no point), given the clicks of the turn so far (``pending``);
* :meth:`ClickMap.options` maps every legal next click to the move it completes, or to
  ``None`` when the turn needs more clicks;
* :meth:`ClickMap.clicks` is the click sequence of a whole move (genmove answers it one click
  at a time; undo restores all but its last click);
* :meth:`ClickMap.gfx` are the markings for ``gogui-rules_board_gfx``.

A click is ``(x, y)`` (0-based, y from the bottom) or ``None`` for ``pass``. The mappings use
only the public game contract; docs/gogui.md describes the clicks a user makes.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Any, ClassVar

from engine.games.brax import Brax, BraxMove
from engine.games.brax_board import COLOUR, NEIGHBOURS, N
from engine.games.bricka import NEUTRAL, Bricka
from engine.games.bricka import PASS as BRICKA_PASS
from engine.games.bricka_board import INDEX, POINTS
from engine.games.brique import Brique, BriqueMove
from engine.games.core import Game
from engine.games.flicker import PASS as FLICKER_PASS
from engine.games.flicker import SWAP as FLICKER_SWAP
from engine.games.flicker import Flicker, FlickerMove
from engine.games.trisq import Trisq
from engine.games.trisq_geometry import slot_index, slot_parts

Click = tuple[int, int] | None
Pending = tuple[Click, ...]

#: GoGui's column letters: A..Z without I; past 25 columns two letters (GoPoint.xToString).
LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def column_name(x: int) -> str:
    return LETTERS[x] if x < 25 else LETTERS[x // 25 - 1] + LETTERS[x % 25]


def format_click(click: Click) -> str:
    """``(3, 3)`` -> ``D4``; ``None`` -> ``pass``."""
    if click is None:
        return "pass"
    x, y = click
    return f"{column_name(x)}{y + 1}"


def parse_click(token: str, size: int) -> Click:
    """A GoGui point or ``pass`` (case-insensitive); raise ValueError naming the token."""
    text = token.strip().upper()
    if text == "PASS":
        return None
    letters = text.rstrip("0123456789")
    digits = text[len(letters):]
    if not 1 <= len(letters) <= 2 or not digits or digits.startswith("0"):
        raise ValueError(f"{token!r} is not a GoGui point")
    if any(ch not in LETTERS for ch in letters):
        raise ValueError(f"{token!r} is not a GoGui point (columns skip I)")
    x = LETTERS.index(letters[-1])
    if len(letters) == 2:
        x += (LETTERS.index(letters[0]) + 1) * 25
    y = int(digits) - 1
    if not (0 <= x < size and 0 <= y < size):
        raise ValueError(f"{token!r} is off the {size}x{size} board")
    return x, y


def is_click_token(token: str) -> bool:
    """Whether ``token`` has the shape of a GoGui point or ``pass`` (board not checked)."""
    text = token.strip().upper()
    letters = text.rstrip("0123456789")
    return text == "PASS" or (
        1 <= len(letters) <= 2
        and len(text) > len(letters)
        and all(ch.isalpha() for ch in letters)
    )


def click_key(click: Click) -> tuple[int, int, int]:
    """Sort key: points column by column, ``pass`` last."""
    return (1, 0, 0) if click is None else (0, click[0], click[1])


class ClickMap(abc.ABC):
    """The GoGui view of one game (see the module docstring)."""

    game_id: ClassVar[str]

    def __init__(self, game: Game[Any]) -> None:
        self.game = game

    def size(self) -> int:
        """The GoGui board size (square boards only)."""
        return self.game.board_size

    def game_size(self, size: int) -> int:
        """The game's board size for GoGui's ``boardsize SIZE``."""
        return size

    @abc.abstractmethod
    def cell(self, x: int, y: int, pending: Pending) -> str:
        """``X``, ``O``, ``.`` or ``?`` for point (x, y)."""

    @abc.abstractmethod
    def clicks(self, move: Any) -> Pending:
        """The clicks that play ``move`` (legal now) from the start of the turn."""

    def rows(self, pending: Pending = ()) -> list[str]:
        n = self.size()
        return [
            " ".join(self.cell(x, y, pending) for x in range(n)) for y in reversed(range(n))
        ]

    def moves(self) -> list[Any]:
        return self.game.legal_moves()

    def options(self, pending: Pending = ()) -> dict[Click, Any]:
        """Legal next clicks: each to the move it completes, or ``None`` (more clicks)."""
        depth = len(pending)
        out: dict[Click, Any] = {}
        for move in self.moves():
            seq = self.clicks(move)
            if len(seq) > depth and seq[:depth] == pending:
                click = seq[depth]
                done = move if len(seq) == depth + 1 else None
                if click in out and (out[click] is None) != (done is None):
                    raise RuntimeError(f"{self.game_id}: click {format_click(click)} is ambiguous")
                out[click] = done
        return out

    def gfx(self, pending: Pending = ()) -> list[str]:
        return []

    def captured(self) -> tuple[int, int]:
        """Pieces captured by the first and by the second player."""
        return 0, 0

    def pending_marks(self, pending: Pending) -> list[str]:
        points = [format_click(c) for c in pending if c is not None]
        return [f"SQUARE {' '.join(points)}"] if points else []


def _stone_char(player: int | None) -> str:
    return "." if player is None else "XO"[player]


class BriqueMap(ClickMap):
    """Brique: one click per square; the swap is a click on Black's stone."""

    game_id = "Brique"
    game: Brique

    def cell(self, x: int, y: int, pending: Pending) -> str:
        stone = self.game.stone(x, y)
        return _stone_char(None if stone < 0 else stone)

    def clicks(self, move: BriqueMove) -> Pending:
        n = self.game.n
        square = self.game.history[0].square if move.is_swap else move.square
        return ((square % n, square // n),)


class FlickerMap(ClickMap):
    """Flicker: a click places on an empty point or removes the enemy stone clicked; the
    swap is a click on Black's stone; ``pass`` when no move exists."""

    game_id = "Flicker"
    game: Flicker

    def cell(self, x: int, y: int, pending: Pending) -> str:
        return _stone_char(self.game.stone(x, y))

    def clicks(self, move: FlickerMove) -> Pending:
        n = self.game.board_size
        if move.kind == FLICKER_PASS:
            return (None,)
        point = self.game.history[0].point if move.kind == FLICKER_SWAP else move.point
        return ((point % n, point // n),)

    def gfx(self, pending: Pending = ()) -> list[str]:
        game, n = self.game, self.game.board_size
        if game.is_over():
            return []
        out = []
        removable = [format_click((p % n, p // n)) for p in game.removable_points()]
        if removable:
            out.append(f"TRIANGLE {' '.join(removable)}")
        banned = game.banned_point()
        if banned is not None:
            out.append(f"MARK {format_click((banned % n, banned // n))}")
        return out


class BrickaMap(ClickMap):
    """Bricka on its 13x13 grid: ``?`` where there is no intersection (also shaded dark, as
    GoGui draws its grid lines through them); neutral pieces drawn as empty points with a
    grey field and an ``N`` label, blocked points marked."""

    game_id = "Bricka"
    game: Bricka

    def cell(self, x: int, y: int, pending: Pending) -> str:
        point = INDEX.get((x, y))
        if point is None:
            return "?"
        piece = self.game.piece_at(point)
        return "." if piece == NEUTRAL else _stone_char(None if piece < 0 else piece)

    def clicks(self, move: int) -> Pending:
        return (None,) if move == BRICKA_PASS else (POINTS[move],)

    def gfx(self, pending: Pending = ()) -> list[str]:
        game = self.game
        neutral = [format_click(POINTS[p]) for p in range(len(POINTS))
                   if game.piece_at(p) == NEUTRAL]
        holes = [format_click((x, y)) for x in range(13) for y in range(13)
                 if (x, y) not in INDEX]
        out = [f"COLOR #8c7a5c {' '.join(holes)}"]
        if neutral:
            out.append(f"COLOR #a0a0a0 {' '.join(neutral)}")
            out.append("LABEL " + " ".join(f"{name} N" for name in neutral))
        if not game.is_over():
            blocked = [format_click(POINTS[p]) for p in sorted(game.blocked())
                       if game.piece_at(p) < 0]
            if blocked:
                out.append(f"MARK {' '.join(blocked)}")
        black, white, neutrals = game.counts()
        out.append(f"TEXT White {white}  Black {black}  neutral {neutrals}")
        return out


class BraxMap(ClickMap):
    """Brax (two players): click the piece, then the destination; where two paths reach the
    destination, click the point passed through. ``pass`` at the start of a turn calls
    Brax: the move that follows is played with the call."""

    game_id = "Brax"
    game: Brax

    def __init__(self, game: Game[Any]) -> None:
        super().__init__(game)
        self._moves: list[BraxMove] | None = None
        self._key: tuple[int, BraxMove | None] | None = None
        self._ends: dict[tuple[bool, int, int], int] = {}
        #: the pieces of each player at the start of the game (the game's start never
        #: changes: play and undo work above it)
        self._first: tuple[int, int] | None = None

    def moves(self) -> list[BraxMove]:
        history = self.game.history
        key = (len(history), history[-1] if history else None)
        if self._moves is None or key != self._key:
            self._moves = self.game.legal_moves()
            self._key = key
            self._ends = {}
            for move in self._moves:
                path = move.paths[0]
                end = (move.call, path[0], path[-1])
                self._ends[end] = self._ends.get(end, 0) + 1
        return self._moves

    def clicks(self, move: BraxMove) -> Pending:
        self.moves()
        path = move.paths[0]
        points = [(p % N, p // N) for p in path]
        seq: list[Click] = [None] if move.call else []
        seq += [points[0], points[-1]]
        if self._ends.get((move.call, path[0], path[-1]), 0) > 1:
            seq.append(points[1])
        return tuple(seq)

    def cell(self, x: int, y: int, pending: Pending) -> str:
        p = y * N + x
        for player in (0, 1):
            if p in self.game.pieces(player):
                return "XO"[player]
        return "."

    def rows(self, pending: Pending = ()) -> list[str]:
        chars = ["."] * (N * N)
        for player in (0, 1):
            for p in self.game.pieces(player):
                chars[p] = "XO"[player]
        return [" ".join(chars[y * N: y * N + N]) for y in reversed(range(N))]

    def captured(self) -> tuple[int, int]:
        if self._first is None:
            start = self.game.copy()
            while start.history:
                start.undo()
            self._first = (len(start.pieces(0)), len(start.pieces(1)))
        left = [len(self.game.pieces(k)) for k in (0, 1)]
        return self._first[1] - left[1], self._first[0] - left[0]

    def gfx(self, pending: Pending = ()) -> list[str]:
        out = []
        labels = []
        occupied = set(self.game.pieces(0)) | set(self.game.pieces(1))
        for p in range(N * N):
            if p in occupied:
                continue
            east = COLOUR[p].get(p + 1) if p % N < N - 1 else None
            north = COLOUR[p].get(p + N)
            text = "".join("-" if c is None else "rb"[c] for c in (east, north))
            labels.append(f"{format_click((p % N, p // N))} {text}")
        out.append("LABEL " + " ".join(labels))
        forced = sorted(self.game.forced)
        if forced:
            out.append("TRIANGLE " + " ".join(format_click((p % N, p // N)) for p in forced))
        points = [c for c in pending if c is not None]
        if points:
            x, y = points[0]
            start = y * N + x
            reds: list[str] = []
            blues: list[str] = []
            for q in NEIGHBOURS[start]:
                (reds if COLOUR[start][q] == 0 else blues).append(format_click((q % N, q // N)))
            if reds:
                out.append(f"COLOR #ffb0b0 {' '.join(reds)}")
            if blues:
                out.append(f"COLOR #b0c8ff {' '.join(blues)}")
            out += self.pending_marks(pending)
        if pending[:1] == (None,):
            out.append("TEXT Brax called: the move that follows threatens and calls")
        else:
            out.append("TEXT labels: colour of the line to the east and to the north (r/b)")
        return out


_H, _V = 0, 1


def _selectors(corner: tuple[int, int], o: int) -> tuple[Click, Click]:
    """The clicks that give the piece on ``corner`` orientation ``o``: h by the corner
    beside it in its row or the diagonal one, v by the corner above or below it or pass.
    Two each, so that genmove never needs to click the same point twice
    in a row."""
    x, y = corner
    if o == _H:
        return (x ^ 1, y), (x ^ 1, y ^ 1)
    return (x, y ^ 1), None


def _orientation(corner: tuple[int, int], click: Click) -> int:
    return _V if click is None or click[0] == corner[0] else _H


class TrisqMap(ClickMap):
    """Trisq on a 2n x 2n grid: square (f, r) is the 2x2 block of points (2f..2f+1,
    2r..2r+1), one point per corner piece (sw, se, nw, ne). A placement is a click on the
    corner; in an empty square a second click on the neighbouring corner of the same row
    (h) or column (v) picks the orientation. After one placement (not on Red's first turn)
    the next click is a second placement, or ``pass`` to end the turn with one piece."""

    game_id = "Trisq"
    game: Trisq

    def __init__(self, game: Game[Any]) -> None:
        super().__init__(game)
        self._cache: dict[tuple[int, Any, Pending], dict[Click, Any]] = {}
        self._seen: tuple[int, Any] | None = None
        self._pos: tuple[dict[int, int], dict[int, int]] = ({}, {})

    def size(self) -> int:
        return 2 * self.game.n

    def game_size(self, size: int) -> int:
        if size % 2:
            raise ValueError(f"a Trisq board in GoGui has an even size, not {size}")
        return size // 2

    # ------------------------------------------------------------------- position

    def _position(self) -> tuple[dict[int, int], dict[int, int]]:
        """(colour of each occupied slot, orientation of each oriented square): copies."""
        history = self.game.history
        key = (len(history), history[-1] if history else None)
        if key != self._seen:
            self._seen, self._pos = key, self._replay()
        return dict(self._pos[0]), dict(self._pos[1])

    def _replay(self) -> tuple[dict[int, int], dict[int, int]]:
        colour: dict[int, int] = {}
        orient: dict[int, int] = {}
        for turn, move in enumerate(self.game.history):
            for slot in move:
                colour[slot] = turn % 2
                orient[slot >> 3] = slot_parts(slot, self.game.n)[2]
        return colour, orient

    def _point_slot(self, click: tuple[int, int], o: int) -> int:
        x, y = click
        return slot_index(x // 2, y // 2, o, (y % 2) * 2 + x % 2, self.game.n)

    def _parse(self, pending: Pending) -> tuple[list[int], tuple[int, int] | None]:
        """The placements done this turn and a corner waiting for its orientation."""
        _, orient = self._position()
        slots: list[int] = []
        corner: tuple[int, int] | None = None
        for click in pending:
            if corner is not None:
                slots.append(self._point_slot(corner, _orientation(corner, click)))
                corner = None
                continue
            assert click is not None
            square = (click[1] // 2) * self.game.n + click[0] // 2
            fixed = orient.get(square)
            if fixed is None:
                fixed = next((slot_parts(s, self.game.n)[2] for s in slots
                              if s >> 3 == square), None)
            if fixed is None:
                corner = click
            else:
                slots.append(self._point_slot(click, fixed))
        return slots, corner

    # -------------------------------------------------------------------- contract

    def cell(self, x: int, y: int, pending: Pending) -> str:
        colour, _ = self._position()
        slots, corner = self._parse(pending)
        mover = self.game.to_move
        for o in (_H, _V):
            slot = self._point_slot((x, y), o)
            if slot in colour:
                return "XO"[colour[slot]]
            if slot in slots:
                return "XO"[mover]
        return "XO"[mover] if corner == (x, y) else "."

    def clicks(self, move: tuple[int, ...]) -> Pending:
        _, orient = self._position()
        n = self.game.n
        seq: list[Click] = []
        chosen: list[tuple[int, int]] = []  # (index in seq, orientation)
        for slot in move:
            f, r, o, c = slot_parts(slot, n)
            point = (2 * f + c % 2, 2 * r + c // 2)
            seq.append(point)
            if slot >> 3 not in orient:
                orient[slot >> 3] = o
                chosen.append((len(seq), o))
                seq.append(None)
        if len(move) == 1 and self.game.history:
            seq.append(None)
        for at, o in chosen:
            corner = seq[at - 1]
            assert corner is not None
            after = seq[at + 1] if at + 1 < len(seq) else "end"
            seq[at] = next(c for c in _selectors(corner, o) if c != after)
        return tuple(seq)

    def _legal(self, slots: Sequence[int]) -> bool:
        if len(slots) == 2 and slots[0] == slots[1]:
            return False
        return self.game.illegal_reason(tuple(sorted(slots))) is None

    def _free(self, colour: dict[int, int], orient: dict[int, int], slot: int) -> bool:
        o = slot_parts(slot, self.game.n)[2]
        return slot not in colour and orient.get(slot >> 3, o) == o

    def _first_ok(self, slot: int, free: list[int]) -> bool:
        """Whether ``slot`` can be the first placement of some legal turn."""
        if self._legal((slot,)):
            return True
        return bool(self.game.history) and any(
            q != slot and self._legal((slot, q)) for q in free
        )

    def options(self, pending: Pending = ()) -> dict[Click, Any]:
        history = self.game.history
        key = (len(history), history[-1] if history else None, pending)
        if key not in self._cache:
            self._cache.clear()
            self._cache[key] = self._options(pending)
        return self._cache[key]

    def _options(self, pending: Pending) -> dict[Click, Any]:
        if self.game.is_over():
            return {}
        colour, orient = self._position()
        n, first_turn = self.game.n, not self.game.history
        slots, corner = self._parse(pending)
        free = [s for s in range(8 * n * n) if self._free(colour, orient, s)]
        out: dict[Click, Any] = {}

        def ok(slot: int) -> bool:
            if slots:
                return slot not in slots and self._legal((slots[0], slot))
            return self._first_ok(slot, free)

        def result(slot: int) -> Any:
            if slots:
                return tuple(sorted((slots[0], slot)))
            return (slot,) if first_turn else None

        if corner is not None:
            for o in (_H, _V):
                slot = self._point_slot(corner, o)
                if ok(slot):
                    for other in _selectors(corner, o):
                        out[other] = result(slot)
            return out
        for x in range(2 * n):
            for y in range(2 * n):
                square = (y // 2) * n + x // 2
                fixed = orient.get(square)
                if fixed is None:
                    fixed = next((slot_parts(s, n)[2] for s in slots if s >> 3 == square), None)
                if fixed is not None:
                    slot = self._point_slot((x, y), fixed)
                    if slot not in colour and ok(slot):
                        out[(x, y)] = result(slot)
                elif any(ok(self._point_slot((x, y), o)) for o in (_H, _V)):
                    out[(x, y)] = None
        if slots and self._legal(slots):
            out[None] = tuple(slots)
        return out

    def gfx(self, pending: Pending = ()) -> list[str]:
        _, orient = self._position()
        slots, corner = self._parse(pending)
        n = self.game.n
        for s in slots:
            orient.setdefault(s >> 3, slot_parts(s, n)[2])
        shades: dict[str, list[str]] = {"#dcdcdc": [], "#c8dcff": [], "#ffe0b4": []}
        labels = []
        colour, _ = self._position()
        for f in range(n):
            for r in range(n):
                o = orient.get(r * n + f)
                block = [(2 * f + dx, 2 * r + dy) for dy in (0, 1) for dx in (0, 1)]
                if o is None:
                    if (f + r) % 2:
                        shades["#dcdcdc"] += [format_click(p) for p in block]
                    continue
                shades["#c8dcff" if o == _H else "#ffe0b4"] += [format_click(p) for p in block]
                for p in block:
                    slot = self._point_slot(p, o)
                    if slot not in colour and slot not in slots:
                        labels.append(f"{format_click(p)} {'-' if o == _H else '|'}")
        out = [f"COLOR {c} {' '.join(ps)}" for c, ps in shades.items() if ps]
        if labels:
            out.append("LABEL " + " ".join(labels))
        marks = [format_click(p) for p in ([corner] if corner else [])]
        marks += [format_click(((slot_parts(s, n)[0]) * 2 + slot_parts(s, n)[3] % 2,
                                slot_parts(s, n)[1] * 2 + slot_parts(s, n)[3] // 2))
                  for s in slots]
        if marks:
            out.append(f"SQUARE {' '.join(marks)}")
        if corner is not None:
            out.append("TEXT orientation: click the corner beside it in its row (h) "
                       "or column (v)")
        elif slots:
            out.append("TEXT second piece: click a corner, or pass to end the turn")
        else:
            out.append("TEXT h squares blue (-), v squares orange (|)")
        return out


MAPS: dict[str, type[ClickMap]] = {
    "brique": BriqueMap,
    "flicker": FlickerMap,
    "trisq": TrisqMap,
    "brax": BraxMap,
    "bricka": BrickaMap,
}


def click_map(game: Game[Any]) -> ClickMap:
    """The mapping of ``game``; raise ValueError for a game GoGui cannot show."""
    cls = MAPS.get(game.name)
    if cls is None:
        raise ValueError(f"GoGui has no mapping for {game.name}")
    if isinstance(game, Brax) and game.num_players != 2:
        raise ValueError(
            f"GoGui shows two-player Brax only (this game has {game.num_players} players)"
        )
    return cls(game)
