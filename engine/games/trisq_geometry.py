"""Trisq geometry: piece polygons, and the adjacency tables computed from them exactly.

Follows docs/rules/trisq.md#geometry (rulings T2, T3, T6 and T9). The only game data here
is :data:`PIECES`, the polygons of the rules in quarters of a square's side; everything else
(edge and point adjacency between slots, the bridges of every point-adjacent pair, which board
edges a piece touches) is computed from those polygons with exact rational arithmetic, so a
different piece shape is a change of :data:`PIECES` only.

Slots are numbered ``slot = ((r * n + f) * 2 + o) * 4 + c`` with square (f, r), orientation
``o`` (0 = h, 1 = v) and corner ``c`` (0 = sw, 1 = se, 2 = nw, 3 = ne): the four slots of one
orientation of a square are consecutive, and ``slot >> 3`` is the square index.
"""

from __future__ import annotations

import dataclasses
import functools
from fractions import Fraction
from typing import Literal

ORIENTATIONS: tuple[str, ...] = ("h", "v")
CORNERS: tuple[str, ...] = ("sw", "se", "nw", "ne")
#: The side of a square in polygon units (the polygons are in quarters of a side).
UNIT = 4

Polygon = tuple[tuple[int, int], ...]

#: docs/rules/trisq.md#geometry: PIECES[orientation][corner] is the polygon (counter-clockwise)
#: of that piece in the square [0, 4] x [0, 4].
PIECES: tuple[tuple[Polygon, ...], ...] = (
    (  # h
        ((0, 0), (1, 0), (3, 2), (0, 2)),
        ((1, 0), (4, 0), (4, 2), (3, 2)),
        ((0, 2), (1, 2), (3, 4), (0, 4)),
        ((1, 2), (4, 2), (4, 4), (3, 4)),
    ),
    (  # v
        ((0, 0), (2, 0), (2, 1), (0, 3)),
        ((2, 0), (4, 0), (4, 1), (2, 3)),
        ((0, 3), (2, 1), (2, 4), (0, 4)),
        ((2, 3), (4, 1), (4, 4), (2, 4)),
    ),
)

#: Bits of :attr:`Geometry.touches`: the board edges a piece runs along.
BOTTOM, TOP, LEFT, RIGHT = 1, 2, 4, 8

Contact = Literal["edge", "point"] | None
Point = tuple[Fraction, Fraction]


def _cross(ax: Fraction, ay: Fraction, bx: Fraction, by: Fraction) -> Fraction:
    return ax * by - ay * bx


def segment_contact(
    p1: Point, p2: Point, q1: Point, q2: Point
) -> tuple[Literal["overlap", "point"], Point | None] | None:
    """How two closed segments meet: ``("overlap", None)`` if they share a piece of positive
    length, ``("point", P)`` if they share exactly the point P, ``None`` if they are apart."""
    dx, dy = p2[0] - p1[0], p2[1] - p1[1]
    ex, ey = q2[0] - q1[0], q2[1] - q1[1]
    wx, wy = q1[0] - p1[0], q1[1] - p1[1]
    denom = _cross(dx, dy, ex, ey)
    if denom == 0:
        if _cross(wx, wy, dx, dy) != 0:
            return None  # parallel, not collinear
        length2 = dx * dx + dy * dy
        t0 = (wx * dx + wy * dy) / length2
        t1 = ((q2[0] - p1[0]) * dx + (q2[1] - p1[1]) * dy) / length2
        lo, hi = max(Fraction(0), min(t0, t1)), min(Fraction(1), max(t0, t1))
        if lo < hi:
            return ("overlap", None)
        if lo == hi:
            return ("point", (p1[0] + lo * dx, p1[1] + lo * dy))
        return None
    t = _cross(wx, wy, ex, ey) / denom
    u = _cross(wx, wy, dx, dy) / denom
    if 0 <= t <= 1 and 0 <= u <= 1:
        return ("point", (p1[0] + t * dx, p1[1] + t * dy))
    return None


def _edges(polygon: Polygon, dx: int = 0, dy: int = 0) -> list[tuple[Point, Point]]:
    pts = [(Fraction(x + dx), Fraction(y + dy)) for x, y in polygon]
    return [(pts[i], pts[(i + 1) % len(pts)]) for i in range(len(pts))]


def contact(a: Polygon, b: Polygon, dx: int = 0, dy: int = 0) -> Contact:
    """The contact between polygon ``a`` and polygon ``b`` translated by (dx, dy), for polygons
    whose interiors do not overlap: ``"edge"`` if their boundaries share a part of positive
    length, ``"point"`` if they share exactly one point, ``None`` if they do not touch."""
    # exact and cheap: boxes that do not meet (integer coordinates) mean no contact
    if (
        max(x for x, _ in a) < min(x + dx for x, _ in b)
        or max(x + dx for x, _ in b) < min(x for x, _ in a)
        or max(y for _, y in a) < min(y + dy for _, y in b)
        or max(y + dy for _, y in b) < min(y for _, y in a)
    ):
        return None
    points: set[Point] = set()
    for p1, p2 in _edges(a):
        for q1, q2 in _edges(b, dx, dy):
            met = segment_contact(p1, p2, q1, q2)
            if met is None:
                continue
            if met[0] == "overlap":
                return "edge"
            assert met[1] is not None
            points.add(met[1])
    if not points:
        return None
    if len(points) > 1:
        raise ValueError("pieces touch at several isolated points: not a valid piece shape")
    return "point"


def area(polygon: Polygon) -> Fraction:
    """Signed area (shoelace), positive for counter-clockwise polygons."""
    total = 0
    for i, (x1, y1) in enumerate(polygon):
        x2, y2 = polygon[(i + 1) % len(polygon)]
        total += x1 * y2 - x2 * y1
    return Fraction(total, 2)


@functools.cache
def relative_contact(df: int, dr: int, oa: int, ca: int, ob: int, cb: int) -> Contact:
    """Contact between piece (oa, ca) of a square and piece (ob, cb) of the square (df, dr)
    away. Pieces of different orientations in one square cannot coexist: ``None``."""
    if df == 0 and dr == 0 and (oa != ob or ca == cb):
        return None
    return contact(PIECES[oa][ca], PIECES[ob][cb], UNIT * df, UNIT * dr)


@functools.cache
def edge_touches(o: int, c: int) -> int:
    """The sides of its square ([0,4]^2) a piece runs along, as BOTTOM|TOP|LEFT|RIGHT bits
    (a contact of positive length)."""
    sides = (
        (BOTTOM, (0, 0), (UNIT, 0)),
        (TOP, (0, UNIT), (UNIT, UNIT)),
        (LEFT, (0, 0), (0, UNIT)),
        (RIGHT, (UNIT, 0), (UNIT, UNIT)),
    )
    bits = 0
    for bit, (x1, y1), (x2, y2) in sides:
        side = ((Fraction(x1), Fraction(y1)), (Fraction(x2), Fraction(y2)))
        for p1, p2 in _edges(PIECES[o][c]):
            met = segment_contact(p1, p2, *side)
            if met is not None and met[0] == "overlap":
                bits |= bit
    return bits


def slot_index(f: int, r: int, o: int, c: int, n: int) -> int:
    return ((r * n + f) * 2 + o) * 4 + c


def slot_parts(slot: int, n: int) -> tuple[int, int, int, int]:
    """(f, r, o, c) of a slot."""
    square, rest = divmod(slot, 8)
    r, f = divmod(square, n)
    return f, r, rest >> 2, rest & 3


@dataclasses.dataclass(frozen=True)
class Geometry:
    """The adjacency tables of an n x n board, computed from :data:`PIECES`."""

    n: int
    #: For each slot, the slots edge-adjacent to it (same-square slots of its orientation,
    #: and slots of neighbouring squares in either orientation).
    edge_adj: tuple[tuple[int, ...], ...]
    #: For each slot, its point-adjacent slots, each with the bridge slots: the slots
    #: edge-adjacent to both (T9).
    point_adj: tuple[tuple[tuple[int, tuple[int, ...]], ...], ...]
    #: Every point-adjacent pair once: (a, b, bridges) with a < b.
    point_pairs: tuple[tuple[int, int, tuple[int, ...]], ...]
    #: For each slot, the board edges it touches (BOTTOM|TOP|LEFT|RIGHT bits, T6).
    touches: tuple[int, ...]


@functools.cache
def geometry(n: int) -> Geometry:
    """The tables of an n x n board (cached per size)."""
    count = 8 * n * n
    edge: list[list[int]] = [[] for _ in range(count)]
    point: list[list[int]] = [[] for _ in range(count)]
    touches = [0] * count
    for a in range(count):
        fa, ra, oa, ca = slot_parts(a, n)
        bits = edge_touches(oa, ca)
        board = 0
        if ra == 0:
            board |= bits & BOTTOM
        if ra == n - 1:
            board |= bits & TOP
        if fa == 0:
            board |= bits & LEFT
        if fa == n - 1:
            board |= bits & RIGHT
        touches[a] = board
        for dr in (-1, 0, 1):
            for df in (-1, 0, 1):
                fb, rb = fa + df, ra + dr
                if not (0 <= fb < n and 0 <= rb < n):
                    continue
                for ob in (0, 1):
                    for cb in range(4):
                        kind = relative_contact(df, dr, oa, ca, ob, cb)
                        b = slot_index(fb, rb, ob, cb, n)
                        if kind == "edge":
                            edge[a].append(b)
                        elif kind == "point":
                            point[a].append(b)
    edge_sets = [set(e) for e in edge]
    point_adj: list[tuple[tuple[int, tuple[int, ...]], ...]] = []
    pairs: list[tuple[int, int, tuple[int, ...]]] = []
    for a in range(count):
        row = []
        for b in point[a]:
            bridges = tuple(sorted(edge_sets[a] & edge_sets[b]))
            row.append((b, bridges))
            if a < b:
                pairs.append((a, b, bridges))
        point_adj.append(tuple(row))
    return Geometry(
        n=n,
        edge_adj=tuple(tuple(sorted(e)) for e in edge),
        point_adj=tuple(point_adj),
        point_pairs=tuple(pairs),
        touches=tuple(touches),
    )
