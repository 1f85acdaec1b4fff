"""Brax (Jinx) board geometry: the 9x9 points and the colour of each of the 144 lines.

Follows ``docs/rules/brax.md#board``. The segment colours are kept as the data of the
rules' two tables (``HORIZONTAL_ROWS``, ``VERTICAL_ROWS``); the closed form of the rules'
formula is :func:`closed_form_colour`, and the tests check the two against each other.

Points are indexed ``i = r * 9 + f`` (f = column from the left, r = row from the bottom,
both 0-based), as in :mod:`engine.games.grid`. Colours: ``RED = 0``, ``BLUE = 1`` (the same numbers
as the two sides, so a piece of side ``s`` moves two steps only along lines of colour ``s``).
"""

from __future__ import annotations

N = 9
POINTS = N * N
RED = 0
BLUE = 1

#: The horizontal segments of the rules' table; row 9 first, each letter the segment between columns
#: (A-B, B-C, ..., H-I).
HORIZONTAL_ROWS: tuple[str, ...] = (
    "BBRRBBRR",  # 9
    "RBRBRBRB",  # 8
    "RRBBRRBB",  # 7
    "RBRBRBRB",  # 6
    "BBRRBBRR",  # 5
    "RBRBRBRB",  # 4
    "RRBBRRBB",  # 3
    "RBRBRBRB",  # 2
    "BBRRBBRR",  # 1
)

#: The vertical segments of the rules' table; rows 8-9 first, each letter one column (A..I).
VERTICAL_ROWS: tuple[str, ...] = (
    "BBRBBBRBB",  # 8-9
    "BRRRBRRRB",  # 7-8
    "RBBBRBBBR",  # 6-7
    "RRBRRRBRR",  # 5-6
    "BBRBBBRBB",  # 4-5
    "BRRRBRRRB",  # 3-4
    "RBBBRBBBR",  # 2-3
    "RRBRRRBRR",  # 1-2
)

_LETTER = {"R": RED, "B": BLUE}


def index(f: int, r: int) -> int:
    return r * N + f


def horizontal_colour(x: int, y: int) -> int:
    """Colour of the segment (x, y)-(x+1, y), from the table."""
    return _LETTER[HORIZONTAL_ROWS[N - 1 - y][x]]


def vertical_colour(x: int, y: int) -> int:
    """Colour of the segment (x, y)-(x, y+1), from the table."""
    return _LETTER[VERTICAL_ROWS[N - 2 - y][x]]


def closed_form_colour(horizontal: bool, x: int, y: int) -> int:
    """The rules' formula: the colour of a segment from its lower-left end (x, y)."""
    if horizontal:
        red = (x % 2 == 0) if y % 2 == 1 else ((x // 2 + y // 2) % 2 == 1)
    else:
        red = (y % 2 == 0) if x % 2 == 1 else ((x // 2 + y // 2) % 2 == 0)
    return RED if red else BLUE


def segment_colour(a: int, b: int) -> int:
    """Colour of the segment between two orthogonally adjacent points ``a`` and ``b``."""
    lo, hi = min(a, b), max(a, b)
    x, y = lo % N, lo // N
    if hi - lo == 1:
        return horizontal_colour(x, y)
    if hi - lo == N:
        return vertical_colour(x, y)
    raise ValueError(f"points {a} and {b} are not adjacent")


def _neighbours(i: int) -> tuple[int, ...]:
    f, r = i % N, i // N
    out = []
    for df, dr in ((0, 1), (1, 0), (0, -1), (-1, 0)):
        g, s = f + df, r + dr
        if 0 <= g < N and 0 <= s < N:
            out.append(index(g, s))
    return tuple(out)


#: NEIGHBOURS[p]: the points one segment away.
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(i) for i in range(POINTS))

#: COLOUR[p][q] for adjacent p, q (a dict per point).
COLOUR: tuple[dict[int, int], ...] = tuple(
    {q: segment_colour(p, q) for q in NEIGHBOURS[p]} for p in range(POINTS)
)


def _two_steps(colour: int, p: int) -> tuple[tuple[int, int], ...]:
    out = []
    for q in NEIGHBOURS[p]:
        if COLOUR[p][q] != colour:
            continue
        for t in NEIGHBOURS[q]:
            if t != p and COLOUR[q][t] == colour:
                out.append((q, t))
    return tuple(out)


#: TWO_STEPS[colour][p]: the (middle, end) pairs of two-step paths from p along two lines
#: of ``colour`` (straight on or turning, never back to p).
TWO_STEPS: tuple[tuple[tuple[tuple[int, int], ...], ...], ...] = tuple(
    tuple(_two_steps(colour, p) for p in range(POINTS)) for colour in (RED, BLUE)
)

#: NEAR[p]: the points from which a piece can reach p in at most two steps.
NEAR: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        q
        for q in range(POINTS)
        if q != p and abs(q % N - p % N) + abs(q // N - p // N) <= 2
    )
    for p in range(POINTS)
)
