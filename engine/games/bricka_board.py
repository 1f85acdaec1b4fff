"""The Bricka board as data, straight from docs/rules/bricka.md#geometry.

69 intersections (3.3), 30 cells with their intersections in counter-clockwise boundary order
(3.4), the 98 board lines as a neighbour list (3.5), and the six sides with the 34-point
border (3.6). The tables are kept as text, as printed in the rules file, and parsed once on
import into index tuples; intersections are numbered 0..68 in grid order (row 1 first, then
by column), so the numbering sorts like the grid.
"""

from __future__ import annotations

from typing import Final

from engine.games.notation import format_point, parse_point

#: The labels use a 13 x 13 grid (columns a..m, rows 1..13).
GRID: Final = 13

#: 3.3: the intersections of each row, top row first.
ROWS_TEXT: Final = """
13 | f13 h13
12 | e12 f12 h12 i12
11 | c11 e11 g11 i11 k11
10 | b10 c10 e10 f10 h10 i10 k10 l10
9 | d9 f9 h9 j9
8 | b8 c8 e8 f8 h8 i8 k8 l8
7 | a7 c7 e7 g7 i7 k7 m7
6 | b6 c6 e6 f6 h6 i6 k6 l6
5 | d5 f5 h5 j5
4 | b4 c4 e4 f4 h4 i4 k4 l4
3 | c3 e3 g3 i3 k3
2 | e2 f2 h2 i2
1 | f1 h1
"""

#: 3.4: cell, apex direction, intersections in boundary order (counter-clockwise).
CELLS_TEXT: Final = """
C01 D f13-f12-g11-h12-h13
C02 R e10-f10-g11-f12-e12-e11
C03 L i10-i11-i12-h12-g11-h10
C04 D c11-c10-d9-e10-e11
C05 U f9-h9-h10-g11-f10
C06 D i11-i10-j9-k10-k11
C07 R b8-c8-d9-c10-b10
C08 L f8-f9-f10-e10-d9-e8
C09 R h8-i8-j9-i10-h10-h9
C10 L l8-l10-k10-j9-k8
C11 U c7-e7-e8-d9-c8
C12 D f9-f8-g7-h8-h9
C13 U i7-k7-k8-j9-i8
C14 L c6-c7-c8-b8-a7-b6
C15 R e6-f6-g7-f8-e8-e7
C16 L i6-i7-i8-h8-g7-h6
C17 R k6-l6-m7-l8-k8-k7
C18 D c7-c6-d5-e6-e7
C19 U f5-h5-h6-g7-f6
C20 D i7-i6-j5-k6-k7
C21 R b4-c4-d5-c6-b6
C22 L f4-f5-f6-e6-d5-e4
C23 R h4-i4-j5-i6-h6-h5
C24 L l4-l6-k6-j5-k4
C25 U c3-e3-e4-d5-c4
C26 D f5-f4-g3-h4-h5
C27 U i3-k3-k4-j5-i4
C28 R e2-f2-g3-f4-e4-e3
C29 L i2-i3-i4-h4-g3-h2
C30 U f1-h1-h2-g3-f2
"""

#: 3.5: the board lines, each listed from both ends.
LINES_TEXT: Final = """
f13: h13 f12
h13: f13 h12
e12: f12 e11
f12: f13 e12 g11
h12: h13 i12 g11
i12: h12 i11
c11: e11 c10
e11: e12 c11 e10
g11: f12 h12 f10 h10
i11: i12 k11 i10
k11: i11 k10
b10: c10 b8
c10: c11 b10 d9
e10: e11 f10 d9
f10: g11 e10 f9
h10: g11 i10 h9
i10: i11 h10 j9
k10: k11 l10 j9
l10: k10 l8
d9: c10 e10 c8 e8
f9: f10 h9 f8
h9: h10 f9 h8
j9: i10 k10 i8 k8
b8: b10 c8 a7
c8: d9 b8 c7
e8: d9 f8 e7
f8: f9 e8 g7
h8: h9 i8 g7
i8: j9 h8 i7
k8: j9 l8 k7
l8: l10 k8 m7
a7: b8 b6
c7: c8 e7 c6
e7: e8 c7 e6
g7: f8 h8 f6 h6
i7: i8 k7 i6
k7: k8 i7 k6
m7: l8 l6
b6: a7 c6 b4
c6: c7 b6 d5
e6: e7 f6 d5
f6: g7 e6 f5
h6: g7 i6 h5
i6: i7 h6 j5
k6: k7 l6 j5
l6: m7 k6 l4
d5: c6 e6 c4 e4
f5: f6 h5 f4
h5: h6 f5 h4
j5: i6 k6 i4 k4
b4: b6 c4
c4: d5 b4 c3
e4: d5 f4 e3
f4: f5 e4 g3
h4: h5 i4 g3
i4: j5 h4 i3
k4: j5 l4 k3
l4: l6 k4
c3: c4 e3
e3: e4 c3 e2
g3: f4 h4 f2 h2
i3: i4 k3 i2
k3: k4 i3
e2: e3 f2
f2: g3 e2 f1
h2: g3 i2 h1
i2: i3 h2
f1: f2 h1
h1: h2 f1
"""

#: 3.6: the border, in order (the last point joins the first).
BORDER_TEXT: Final = (
    "a7-b8-b10-c10-c11-e11-e12-f12-f13-h13-h12-i12-i11-k11-k10-l10-l8-m7-l6-l4-k4-k3-i3-i2-"
    "h2-h1-f1-f2-e2-e3-c3-c4-b4-b6"
)

#: 3.6: the three pairs of opposite sides.
SIDES_TEXT: Final = """
light | h13 h12 i12 i11 k11 k10 l10 l8 | b6 b4 c4 c3 e3 e2 f2 f1
green | b8 b10 c10 c11 e11 e12 f12 f13 | h1 h2 i2 i3 k3 k4 l4 l6
dark | a7 | m7
"""


def _label_coords(label: str) -> tuple[int, int]:
    point = parse_point(label, GRID, GRID, "native")
    if point is None:
        raise ValueError(f"bad label {label!r} in the Bricka board data")
    return point


def _parse_points() -> tuple[tuple[int, int], ...]:
    coords = []
    for line in ROWS_TEXT.strip().splitlines():
        row, _, labels = line.partition("|")
        for label in labels.split():
            f, r = _label_coords(label)
            if r + 1 != int(row):
                raise ValueError(f"{label} listed in row {row.strip()}")
            coords.append((f, r))
    return tuple(sorted(coords, key=lambda fr: (fr[1], fr[0])))


#: (f, r) of each intersection, 0-based, in grid order (row 1 first).
POINTS: Final = _parse_points()
#: (f, r) -> intersection index.
INDEX: Final[dict[tuple[int, int], int]] = {fr: i for i, fr in enumerate(POINTS)}
#: The native label of each intersection.
LABELS: Final = tuple(format_point(f, r, "native") for f, r in POINTS)
_BY_LABEL: Final = {label: i for i, label in enumerate(LABELS)}


def point(label: str) -> int:
    """The index of the intersection with native label ``label`` (``"f6"``)."""
    return _BY_LABEL[label]


def _parse_cells() -> tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[int, ...], ...]]:
    names, shapes, cells = [], [], []
    for line in CELLS_TEXT.strip().splitlines():
        name, shape, chain = line.split()
        names.append(name)
        shapes.append(shape)
        cells.append(tuple(point(label) for label in chain.split("-")))
    return tuple(names), tuple(shapes), tuple(cells)


#: Cell names (C01..C30), apex directions (U, D, L, R) and intersections (boundary order).
CELL_NAMES, CELL_SHAPES, CELLS = _parse_cells()


def _parse_lines() -> tuple[tuple[int, ...], ...]:
    table: dict[int, tuple[int, ...]] = {}
    for line in LINES_TEXT.strip().splitlines():
        head, _, rest = line.partition(":")
        table[point(head)] = tuple(point(label) for label in rest.split())
    return tuple(table[i] for i in range(len(POINTS)))


#: The neighbours of each intersection along board lines (3.5).
NEIGHBOURS: Final = _parse_lines()

#: The 34 border intersections in order (3.6).
BORDER: Final = tuple(point(label) for label in BORDER_TEXT.split("-"))


def _parse_sides() -> tuple[tuple[str, ...], tuple[frozenset[int], ...]]:
    names, sides = [], []
    for line in SIDES_TEXT.strip().splitlines():
        name, first, second = (part.strip() for part in line.split("|"))
        names.append(name)
        sides.append(frozenset(point(label) for label in first.split()))
        sides.append(frozenset(point(label) for label in second.split()))
    return tuple(names), tuple(sides)


#: PAIR_NAMES[k] names the pair made of SIDES[2k] and SIDES[2k+1] (light, green, dark).
PAIR_NAMES, SIDES = _parse_sides()

#: The side index (0..5) of each intersection, or -1 for an inner one.
SIDE_OF: Final = tuple(
    next((s for s, side in enumerate(SIDES) if i in side), -1) for i in range(len(POINTS))
)

#: 3.7, derived from 3.4: the cells containing each intersection.
CELLS_OF: Final = tuple(
    tuple(c for c, cell in enumerate(CELLS) if i in cell) for i in range(len(POINTS))
)

#: The intersections blocked after a placement on each intersection (K4): every point of
#: every cell containing it, the point itself included.
BLOCKED_AFTER: Final = tuple(
    frozenset(q for c in CELLS_OF[i] for q in CELLS[c]) for i in range(len(POINTS))
)
