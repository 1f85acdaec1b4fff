"""Trisq (Luis Bolaños Mures, 2013): the exact rules core.

Follows docs/rules/trisq.md (rulings T1-T11). Each square of the n x n board holds four
trapezium pieces, cut horizontally (h) or vertically (v) by the first piece placed in it; a
turn places one or two pieces (Red's first turn exactly one); at the end of every turn each two
point-adjacent pieces of the mover's colour need a piece of that colour edge-adjacent to both
(one of their two *bridges*); the mover wins with an edge-adjacent chain joining its two edges
(Red = b: bottom and top; Blue = w: left and right). No pass, no pie, no draws.

The adjacency tables come from the piece polygons (engine/games/trisq_geometry.py).

Moves are tuples of slot indices (see engine/games/trisq_geometry.py for the numbering): ``(p,)``
for one placement, ``(p, q)`` with ``p < q`` for two. The canonical token of a two-placement
turn therefore lists its placements in slot order: square by square, rows from the bottom
and columns from the left within a row (``b1`` < ``a2``), then h before v, then the corners
in the order sw, se, nw, ne. Either order is accepted on input.

Generating turns: an empty 8x8 board offers ~10^5 two-placement turns. A free slot is *good*
when placing it alone keeps the restriction; every pair of good slots is a legal turn except
two slots of an empty square in different orientations and point-adjacent pairs with no
bridge of the mover's colour; a pair with a *bad* slot p is legal only if the other slot is a
bridge of every unbridged point contact of p. :meth:`Trisq.perft` counts depth-1 turns from
this structure without listing them, and :meth:`Trisq.random_move` samples a turn by
rejection (distribution documented there).
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Iterator, Sequence
from itertools import combinations
from typing import ClassVar

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
from engine.games.notation import Notation, column_letter, format_point, natural_key, parse_point
from engine.games.position_text import decode_board, encode_board, parse_side, split_fields
from engine.games.trisq_geometry import (
    BOTTOM,
    CORNERS,
    LEFT,
    ORIENTATIONS,
    RIGHT,
    TOP,
    geometry,
    slot_index,
    slot_parts,
)

#: A turn: one slot, or two slots in increasing order.
TrisqMove = tuple[int, ...]

COLOR_NAMES = ("Red", "Blue")
#: The edge bits each player must join (T6): Red bottom and top, Blue left and right.
GOALS = (BOTTOM | TOP, LEFT | RIGHT)
_PLACEMENT = re.compile(r"([a-z][0-9]{1,2})([hv])(sw|se|nw|ne)")
_POSITION_CELL = re.compile(r"[hv][rb.]{4}")
#: How often a sampled turn is a single placement when two are allowed (random_move).
SINGLE_PROBABILITY = 0.25
#: Rejection attempts before random_move falls back to the full list of legal turns.
SAMPLE_ATTEMPTS = 200


@functools.cache
def _listing_tables(n: int, notation: Notation) -> tuple[list[str], list[int], list[int]]:
    """For an n x n board: the token of every slot, the slots in the natural order of their
    tokens, and each slot's place in that order."""
    names = [
        f"{format_point(f, r, notation)}{ORIENTATIONS[o]}{CORNERS[c]}"
        for f, r, o, c in (slot_parts(slot, n) for slot in range(8 * n * n))
    ]
    order = sorted(range(len(names)), key=lambda slot: natural_key(names[slot]))
    rank = [0] * len(names)
    for place, slot in enumerate(order):
        rank[slot] = place
    return names, order, rank


class Trisq(Game[TrisqMove]):
    """A Trisq game; player 0 is Red (GTP ``b``), player 1 is Blue (``w``)."""

    name: ClassVar[str] = "trisq"
    title: ClassVar[str] = "Trisq"
    OPTIONS: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec("size", "int", 8, "board size n (n x n squares)", minimum=4, maximum=19),
    )
    COLORS = {"b": BLACK, "black": BLACK, "red": BLACK, "w": WHITE, "white": WHITE, "blue": WHITE}

    @property
    def side_names(self) -> tuple[str, ...]:
        return ("red", "blue")

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        n = int(self.options["size"])
        self.n = n
        geo = geometry(n)
        self._edge_adj = geo.edge_adj
        self._point_adj = geo.point_adj
        self._point_pairs = geo.point_pairs
        self._touches = geo.touches
        count = 8 * n * n
        #: colour of each slot: -1 empty, else the player
        self._col: list[int] = [-1] * count
        #: orientation of each square: -1 none yet, 0 h, 1 v
        self._orient: list[int] = [-1] * (n * n)
        #: 1 where a slot can take a piece now (empty, orientation allowed)
        self._open: bytearray = bytearray(b"\x01" * count)
        self._nfree = count
        self._nempty = n * n
        self._pieces: list[list[int]] = [[], []]
        self._to_move = BLACK
        self._history: list[TrisqMove] = []
        #: per turn: the slots that oriented their square
        self._oriented: list[tuple[bool, ...]] = []
        self._winner: int | None = None

    # ------------------------------------------------------------------------- contract

    @property
    def to_move(self) -> int:
        return self._to_move

    @property
    def history(self) -> Sequence[TrisqMove]:
        return self._history

    def outcome(self) -> Outcome | None:
        if self._winner is None:
            return None
        if self._winner == BLACK:
            return Outcome(BLACK, "Red joins the bottom and top edges")
        return Outcome(WHITE, "Blue joins the left and right edges")

    def slot_colours(self) -> tuple[int, ...]:
        """The content of every slot (see :mod:`engine.games.trisq_geometry` for the numbering):
        -1 empty, else the player whose piece is there."""
        return tuple(self._col)

    def orientations(self) -> tuple[int, ...]:
        """The orientation of every square (index r*n + f): -1 none yet, 0 h, 1 v."""
        return tuple(self._orient)

    def copy(self) -> Trisq:
        other = Trisq.__new__(Trisq)
        other.options = dict(self.options)
        other.n = self.n
        other._edge_adj = self._edge_adj
        other._point_adj = self._point_adj
        other._point_pairs = self._point_pairs
        other._touches = self._touches
        other._col = self._col[:]
        other._orient = self._orient[:]
        other._open = bytearray(self._open)
        other._nfree = self._nfree
        other._nempty = self._nempty
        other._pieces = [self._pieces[0][:], self._pieces[1][:]]
        other._to_move = self._to_move
        other._history = self._history[:]
        other._oriented = self._oriented[:]
        other._winner = self._winner
        return other

    def play(self, move: TrisqMove) -> None:
        """Play a turn assumed legal (no checks)."""
        mover = self._to_move
        self._oriented.append(tuple(self._place(slot, mover) for slot in move))
        self._history.append(move)
        if self._connects(move, mover):
            self._winner = mover
        self._to_move = 1 - mover

    def undo(self) -> TrisqMove:
        if not self._history:
            raise GameError("no move to undo")
        move = self._history.pop()
        oriented = self._oriented.pop()
        mover = 1 - self._to_move
        for slot, flag in zip(reversed(move), reversed(oriented), strict=True):
            self._unplace(slot, mover, flag)
        self._to_move = mover
        self._winner = None
        return move

    def parse_move(self, token: str, notation: Notation = "gtp") -> TrisqMove:
        parts = token.lower().split("+")
        if not 1 <= len(parts) <= 2:
            raise MoveSyntaxError(f"invalid move {token!r}: expected one or two placements")
        slots = []
        for part in parts:
            match = _PLACEMENT.fullmatch(part)
            if match is None:
                raise MoveSyntaxError(
                    f"invalid move {token!r}: a placement is square, h or v, and a corner "
                    f"(sw, se, nw, ne), e.g. c3hne"
                )
            point = parse_point(match.group(1), self.n, self.n, notation)
            if point is None:
                raise MoveSyntaxError(
                    f"invalid move {token!r}: {match.group(1)} is not a square of the board"
                )
            f, r = point
            o = ORIENTATIONS.index(match.group(2))
            c = CORNERS.index(match.group(3))
            slots.append(slot_index(f, r, o, c, self.n))
        return tuple(sorted(slots))

    def format_move(self, move: TrisqMove, notation: Notation = "gtp") -> str:
        return "+".join(self.format_slot(slot, notation) for slot in move)

    def format_slot(self, slot: int, notation: Notation = "gtp") -> str:
        """The token of one placement (``c3hne``)."""
        f, r, o, c = slot_parts(slot, self.n)
        return f"{format_point(f, r, notation)}{ORIENTATIONS[o]}{CORNERS[c]}"

    def illegal_reason(self, move: TrisqMove, notation: Notation = "gtp") -> str | None:
        if self._winner is not None:
            return "the game is over"
        mover = self._to_move
        if len(move) == 2 and not self._history:
            return "Red's first turn is a single placement"
        if len(move) == 2 and move[0] == move[1]:
            return "the two placements are the same slot"
        for slot in move:
            square = slot >> 3
            if self._col[slot] >= 0:
                return f"{self.format_slot(slot, notation)} is occupied"
            if not self._open[slot]:
                f, r, _, _ = slot_parts(slot, self.n)
                orient = ORIENTATIONS[self._orient[square]]
                return f"{format_point(f, r, notation)} is already oriented {orient}"
        if len(move) == 2 and move[0] >> 3 == move[1] >> 3 and (move[0] ^ move[1]) & 4:
            return "two placements in one square must use the same orientation"
        mine = set(move)
        for slot in move:
            for other, bridges in self._point_adj[slot]:
                if other in mine:
                    if other < slot:
                        continue
                elif self._col[other] != mover:
                    continue
                if any(self._col[b] == mover or b in mine for b in bridges):
                    continue
                one, two = self.format_slot(slot, notation), self.format_slot(other, notation)
                return (
                    f"{one} and {two} would touch "
                    f"only at a point with no {COLOR_NAMES[mover]} piece edge-adjacent to "
                    f"both (bridges: {', '.join(self.format_slot(b, notation) for b in bridges)})"
                )
        return None

    def legal_moves(self) -> list[TrisqMove]:
        if self._winner is not None:
            return []
        mover = self._to_move
        free = [s for s, ok in enumerate(self._open) if ok]
        bad = self._defects(mover)
        good = [s for s in free if s not in bad]
        moves: list[TrisqMove] = [(s,) for s in good]
        if self._history:
            forbidden = self._forbidden_good_pairs(mover, bad)
            if forbidden:
                moves.extend(m for m in combinations(good, 2) if m not in forbidden)
            else:
                moves.extend(combinations(good, 2))
            for p in sorted(bad):
                for q in self._fixers(p, bad[p]):
                    if q in bad and q < p:
                        continue
                    if self._pair_ok(p, q, mover, bad):
                        moves.append((p, q) if p < q else (q, p))
        if not moves:
            raise RuntimeError("Trisq: no legal turn in a running game (rules violated)")
        return moves

    def listed_moves_text(self, notation: Notation = "gtp") -> str:
        """The text of :meth:`Game.listed_moves_text`, written without building the moves.

        Tokens in natural order are grouped by their first placement p (the lower slot),
        the single ``p`` first, then every ``p+q`` by q's place in that order. Placements sort
        by column, row, then orientation and corner, so the second placements q > p that
        pair with a good p are, column by column, a tail of that column's good slots: the
        group is written from those tails, and only a column that holds one of p's few
        exceptions (forbidden pairs of good slots, pairs with a bad slot) is filtered."""
        if self._winner is not None:
            return ""
        n = self.n
        names, order, rank = _listing_tables(n, notation)
        mover = self._to_move
        is_open = self._open
        bad = self._defects(mover)
        good = bytearray(len(is_open))
        for s in range(len(is_open)):
            if is_open[s] and s not in bad:
                good[s] = 1
        if not self._history:
            return " ".join(names[s] for s in order if good[s])
        # the pairs that depart from "every two good slots": p -> partners q > p
        forbidden: dict[int, set[int]] = {}
        for a, b in self._forbidden_good_pairs(mover, bad):
            forbidden.setdefault(min(a, b), set()).add(max(a, b))
        extra: dict[int, list[int]] = {}
        for p in sorted(bad):
            for q in self._fixers(p, bad[p]):
                if q in bad and q < p:
                    continue
                if self._pair_ok(p, q, mover, bad):
                    extra.setdefault(min(p, q), []).append(max(p, q))
        # per column: its good slots in listing order (rows upwards), and for each row r
        # the index of the column's first good slot at row r or above
        col_slots: list[list[int]] = [[] for _ in range(n)]
        for s in order:
            if good[s]:
                col_slots[(s >> 3) % n].append(s)
        col_names = [[names[s] for s in slots] for slots in col_slots]
        starts: list[list[int]] = []
        for slots in col_slots:
            row_start = [len(slots)] * (n + 1)
            for i in range(len(slots) - 1, -1, -1):
                row_start[(slots[i] >> 3) // n] = i
            for r in range(n - 1, -1, -1):
                row_start[r] = min(row_start[r], row_start[r + 1])
            starts.append(row_start)
        groups: list[str] = []
        for p in order:
            if not is_open[p]:
                continue
            square = p >> 3
            fp, rp = square % n, square // n
            exceptions = forbidden.get(p, set())
            added = extra.get(p, [])
            touched = {(q >> 3) % n for q in exceptions} | {(q >> 3) % n for q in added}
            seconds: list[str] = []
            if good[p]:
                for f in range(n):
                    slots, row_start = col_slots[f], starts[f]
                    lo = row_start[rp + 1] if f < fp else row_start[rp]
                    if f not in touched and f != fp:
                        seconds.extend(col_names[f][lo:])
                        continue
                    tail = [q for q in slots[lo:] if q > p and q not in exceptions]
                    tail.extend(q for q in added if (q >> 3) % n == f)
                    tail.sort(key=rank.__getitem__)
                    seconds.extend(names[q] for q in tail)
            else:
                seconds.extend(names[q] for q in sorted(added, key=rank.__getitem__))
            head = names[p] + "+"
            text = head + (" " + head).join(seconds) if seconds else ""
            if good[p]:
                text = f"{names[p]} {text}" if text else names[p]
            if text:
                groups.append(text)
        return " ".join(groups)

    def playable_slots(self) -> set[int]:
        """The slots some legal turn uses: the union of the slots of :meth:`legal_moves`,
        found without listing the pairs of two placements that are legal on their own."""
        if self._winner is not None:
            return set()
        mover = self._to_move
        bad = self._defects(mover)
        slots = {s for s, ok in enumerate(self._open) if ok and s not in bad}
        if self._history:
            for p in sorted(bad):
                for q in self._fixers(p, bad[p]):
                    if (p not in slots or q not in slots) and self._pair_ok(p, q, mover, bad):
                        slots.update((p, q))
        return slots

    def perft(self, depth: int) -> int:
        if depth == 0 or self._winner is not None:
            return 1
        if depth == 1:
            return self._count_turns()
        total = 0
        for move in self.legal_moves():
            self.play(move)
            total += self.perft(depth - 1)
            self.undo()
        return total

    def random_move(self, rng: random.Random) -> TrisqMove:
        """A random legal turn, without listing all turns (not uniform).

        Draw a free slot p uniformly. On Red's first turn, return it if it is legal alone.
        Otherwise, if p is legal alone, return it alone with probability
        :data:`SINGLE_PROBABILITY`, else pair it with a uniformly drawn free slot q; if p is
        not legal alone, pair it with a uniform choice among the slots that bridge all its
        unbridged contacts. An illegal draw is rejected and drawing starts again; after
        :data:`SAMPLE_ATTEMPTS` rejections a uniform choice among all legal turns is made.
        """
        if self._winner is not None:
            raise GameError("no legal move: the game is over")
        move = self._sample(rng, self._to_move, not self._history)
        if move is None:
            move = rng.choice(self.legal_moves())
        return move

    def random_playout(self, rng: random.Random) -> Outcome:
        """Play random turns (as :meth:`random_move` draws them) on a copy until someone
        wins; the win is detected incrementally with a union-find over the pieces and four
        virtual edge nodes."""
        if self._winner is not None:
            result = self.outcome()
            assert result is not None
            return result
        game = self.copy()
        count = 8 * self.n * self.n
        parent = list(range(count + 4))
        edge_node = {BOTTOM: count, TOP: count + 1, LEFT: count + 2, RIGHT: count + 3}
        col = game._col
        edge_adj = self._edge_adj
        touches = self._touches

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        def join(slot: int, mover: int) -> None:
            root = find(slot)
            for other in edge_adj[slot]:
                if col[other] == mover:
                    o = find(other)
                    if o != root:
                        parent[o] = root
            bits = touches[slot] & GOALS[mover]
            for bit, node in edge_node.items():
                if bits & bit:
                    o = find(node)
                    if o != root:
                        parent[o] = root

        for player in (0, 1):
            for slot in game._pieces[player]:
                join(slot, player)
        goals = ((count, count + 1), (count + 2, count + 3))
        mover = game._to_move
        first = not game._history
        while True:
            move = game._sample(rng, mover, first)
            if move is None:
                move = rng.choice(game._all_turns(mover, first))
            for slot in move:
                game._place(slot, mover)
                join(slot, mover)
            a, b = goals[mover]
            if find(a) == find(b):
                game._winner = mover
                result = game.outcome()
                assert result is not None
                return result
            first = False
            mover = 1 - mover

    def board_text(self, notation: Notation = "gtp") -> str:
        n = self.n
        marks = ".RB"
        lines = [("    " + "".join(f" {column_letter(f, notation)}  " for f in range(n))).rstrip()]
        for r in range(n - 1, -1, -1):
            top = []
            bottom = []
            for f in range(n):
                square = r * n + f
                o = self._orient[square]
                base = square * 8 + (o if o > 0 else 0) * 4
                cs = [marks[self._col[base + c] + 1] for c in range(4)]
                top.append(f"{ORIENTATIONS[o] if o >= 0 else ' '}{cs[2]}{cs[3]}")
                bottom.append(f" {cs[0]}{cs[1]}")
            lines.append(f"{r + 1:2d}  " + " ".join(top) + f"  {r + 1}")
            lines.append("    " + " ".join(bottom))
        lines.append(lines[0])
        lines.append("each square: h/v orientation, then nw ne over sw se;")
        lines.append("R = Red (bottom and top edges), B = Blue (left and right edges), . = empty")
        return "\n".join(lines)

    # ------------------------------------------------------------------------- internals

    def _place(self, slot: int, mover: int) -> bool:
        """Put a piece; return whether it oriented its square."""
        square = slot >> 3
        self._col[slot] = mover
        self._open[slot] = 0
        self._nfree -= 1
        self._pieces[mover].append(slot)
        if self._orient[square] >= 0:
            return False
        self._orient[square] = (slot >> 2) & 1
        other = (slot & ~7) | (4 - (slot & 4))
        self._open[other : other + 4] = b"\x00\x00\x00\x00"
        self._nfree -= 4
        self._nempty -= 1
        return True

    def _unplace(self, slot: int, mover: int, oriented: bool) -> None:
        self._col[slot] = -1
        self._open[slot] = 1
        self._nfree += 1
        self._pieces[mover].pop()
        if oriented:
            self._orient[slot >> 3] = -1
            other = (slot & ~7) | (4 - (slot & 4))
            self._open[other : other + 4] = b"\x01\x01\x01\x01"
            self._nfree += 4
            self._nempty += 1

    def _connects(self, move: TrisqMove, mover: int) -> bool:
        """Whether the chains through the pieces just placed join the mover's edges."""
        col = self._col
        touches = self._touches
        edge_adj = self._edge_adj
        goal = GOALS[mover]
        seen: set[int] = set()
        for start in move:
            if start in seen:
                continue  # same chain as the first placement
            seen.add(start)
            stack = [start]
            bits = 0
            while stack:
                slot = stack.pop()
                bits |= touches[slot]
                for other in edge_adj[slot]:
                    if col[other] == mover and other not in seen:
                        seen.add(other)
                        stack.append(other)
            if bits & goal == goal:
                return True
        return False

    def _defects(self, mover: int) -> dict[int, list[tuple[int, ...]]]:
        """The free slots that are illegal alone: for each, the bridge tuples of its point
        contacts with the mover's pieces that have no mover's bridge."""
        col = self._col
        is_open = self._open
        point_adj = self._point_adj
        bad: dict[int, list[tuple[int, ...]]] = {}
        for x in self._pieces[mover]:
            for p, bridges in point_adj[x]:
                if is_open[p]:
                    for b in bridges:
                        if col[b] == mover:
                            break
                    else:
                        bad.setdefault(p, []).append(bridges)
        return bad

    def _fixers(self, p: int, defects: list[tuple[int, ...]]) -> list[int]:
        """The free slots that bridge every defect of p."""
        candidates = set(defects[0])
        for bridges in defects[1:]:
            candidates.intersection_update(bridges)
        is_open = self._open
        return sorted(q for q in candidates if is_open[q] and q != p)

    def _pair_ok(
        self, p: int, q: int, mover: int, bad: dict[int, list[tuple[int, ...]]]
    ) -> bool:
        """Whether {p, q} (two distinct free slots) is a legal turn, given the defects."""
        if p >> 3 == q >> 3 and (p ^ q) & 4:
            return False
        for bridges in bad.get(p, ()):
            if q not in bridges:
                return False
        for bridges in bad.get(q, ()):
            if p not in bridges:
                return False
        col = self._col
        for other, bridges in self._point_adj[p]:
            if other == q:
                return any(col[b] == mover for b in bridges)
        return True

    def _forbidden_good_pairs(
        self, mover: int, bad: dict[int, list[tuple[int, ...]]]
    ) -> set[tuple[int, int]]:
        """Pairs of good free slots that are not legal turns: both orientations of one empty
        square, or a point contact with no mover's bridge."""
        forbidden: set[tuple[int, int]] = set()
        orient = self._orient
        for square in range(self.n * self.n):
            if orient[square] < 0:
                base = square * 8
                hs = [s for s in range(base, base + 4) if s not in bad]
                vs = [s for s in range(base + 4, base + 8) if s not in bad]
                forbidden.update((h, v) for h in hs for v in vs)
        forbidden.update(self._unbridged_contacts(mover, bad))
        return forbidden

    def _unbridged_contacts(
        self, mover: int, bad: dict[int, list[tuple[int, ...]]]
    ) -> Iterator[tuple[int, int]]:
        """The point contacts of two good free slots that no piece of the mover bridges."""
        is_open = self._open
        col = self._col
        for a, b, bridges in self._point_pairs:
            if (
                is_open[a]
                and is_open[b]
                and a not in bad
                and b not in bad
                and not any(col[x] == mover for x in bridges)
            ):
                yield a, b

    def _count_turns(self) -> int:
        """The number of legal turns, counted without listing the pairs."""
        mover = self._to_move
        bad = self._defects(mover)
        good = self._nfree - len(bad)
        if not self._history:
            return good
        total = good + good * (good - 1) // 2
        # both orientations of an empty square
        total -= 16 * self._nempty
        for p in bad:
            if self._orient[p >> 3] < 0:
                total += 4
        for p, q in combinations(sorted(p for p in bad if self._orient[p >> 3] < 0), 2):
            if p >> 3 == q >> 3 and (p ^ q) & 4:
                total -= 1  # added back twice above
        # point contacts of two good slots with no mover's bridge (but those of the two
        # orientations of one square, taken off above)
        for a, b in self._unbridged_contacts(mover, bad):
            if not ((a ^ b) & 4 and a >> 3 == b >> 3):
                total -= 1
        # pairs with a bad slot
        for p in bad:
            for q in self._fixers(p, bad[p]):
                if q in bad and q < p:
                    continue
                if self._pair_ok(p, q, mover, bad):
                    total += 1
        if total == 0:
            raise RuntimeError("Trisq: no legal turn in a running game (rules violated)")
        return total

    def _slot_defects(self, p: int, mover: int) -> list[tuple[int, ...]]:
        col = self._col
        found = []
        for x, bridges in self._point_adj[p]:
            if col[x] == mover:
                for b in bridges:
                    if col[b] == mover:
                        break
                else:
                    found.append(bridges)
        return found

    def _sample(self, rng: random.Random, mover: int, first: bool) -> TrisqMove | None:
        """One rejection-sampled legal turn (see :meth:`random_move`), or ``None`` after
        :data:`SAMPLE_ATTEMPTS` rejections."""
        is_open = self._open
        count = len(is_open)
        if self._nfree == 0:
            return None
        draw = rng.random
        for _ in range(SAMPLE_ATTEMPTS):
            p = int(draw() * count)
            while not is_open[p]:
                p = int(draw() * count)
            defects = self._slot_defects(p, mover)
            if first:
                if not defects:
                    return (p,)
                continue
            if not defects:
                if draw() < SINGLE_PROBABILITY:
                    return (p,)
                if self._nfree < 2:
                    return (p,)
                q = int(draw() * count)
                while not is_open[q] or q == p:
                    q = int(draw() * count)
            else:
                fixers = self._fixers(p, defects)
                if not fixers:
                    continue
                q = rng.choice(fixers)
            if self._pair_ok(p, q, mover, {p: defects, q: self._slot_defects(q, mover)}):
                return (p, q) if p < q else (q, p)
        return None

    # -------------------------------------------------------------------- position strings

    def position_string(self) -> str:
        """``<board> <r|b> <last>`` (docs/ugi.md): rows from the top; an empty square is
        counted in a number, an occupied one is its orientation (``h`` or ``v``) and its four
        pieces in the corner order sw, se, nw, ne (``r`` Red, ``b`` Blue, ``.`` none);
        ``last`` is the previous turn in native notation (``-`` at the start). Red's single
        first turn is the empty board."""
        n = self.n
        col = self._col
        rows: list[list[str | None]] = []
        for r in reversed(range(n)):
            row: list[str | None] = []
            for f in range(n):
                o = self._orient[r * n + f]
                if o < 0:
                    row.append(None)
                    continue
                base = slot_index(f, r, o, 0, n)
                row.append(ORIENTATIONS[o] + "".join(".rb"[col[base + c] + 1] for c in range(4)))
            rows.append(row)
        last = self._history[-1] if self._history else ()
        token = self.format_move(last, "native") if last else "-"
        return f"{encode_board(rows)} {'rb'[self._to_move]} {token}"

    @classmethod
    def from_position_string(cls, text: str, **options: object) -> Trisq:
        """The game of a :meth:`position_string`: the board before the last turn is set up
        and that turn replayed (history: that turn). With last ``-`` on an occupied board
        the history is one empty placeholder turn ``()``, which must not be undone."""
        board, side, last = split_fields(text, ("board", "to-move", "last"), "Trisq")
        where = "Trisq position string"
        given = dict(options)
        given.setdefault("size", board.count("/") + 1)
        game = cls(**given)
        n = game.n
        rows = decode_board(board, [n] * n, _POSITION_CELL, "Trisq")
        to_move = parse_side(side, ("r", "b"), "Trisq")
        pieces: dict[int, int] = {}
        for k, row in enumerate(rows):
            for f, code in enumerate(row):
                if code is None:
                    continue
                if code[1:] == "....":
                    raise PositionError(
                        f"{where}: square {format_point(f, n - 1 - k, 'native')} has an "
                        f"orientation but no piece ({code!r})"
                    )
                o = ORIENTATIONS.index(code[0])
                for c in range(4):
                    if code[1 + c] != ".":
                        pieces[slot_index(f, n - 1 - k, o, c, n)] = "rb".index(code[1 + c])
        turn: TrisqMove = ()
        if last != "-":
            try:
                turn = game.parse_move(last, "native")
            except MoveSyntaxError as error:
                raise PositionError(f"{where}: last field: {error}") from None
            if len(set(turn)) != len(turn) or any(pieces.get(p) != 1 - to_move for p in turn):
                raise PositionError(
                    f"{where}: last field {last!r} needs its pieces on the board in the "
                    f"colour of the player who moved last"
                )
            for p in turn:
                del pieces[p]
        if not pieces and (to_move != (BLACK if not turn else WHITE) or len(turn) > 1):
            raise PositionError(
                f"{where}: Red moves first with a single placement ({side!r} to move, "
                f"last {last!r})"
            )
        for slot, colour in sorted(pieces.items()):
            game._place(slot, colour)
        game._to_move = to_move if not turn else 1 - to_move
        if turn:
            game.play(turn)
        elif pieces:
            game._history = [()]
            game._oriented = [()]
            for player in (to_move, 1 - to_move):
                if game._connects(tuple(game._pieces[player]), player):
                    if player == to_move:
                        raise PositionError(
                            f"{where}: the side to move ({side}) already joins its edges"
                        )
                    game._winner = player
        return game

    def _all_turns(self, mover: int, first: bool) -> list[TrisqMove]:
        saved = self._to_move, self._history
        self._to_move = mover
        if first:
            self._history = []
        elif not self._history:
            self._history = [()]
        try:
            return self.legal_moves()
        finally:
            self._to_move, self._history = saved
