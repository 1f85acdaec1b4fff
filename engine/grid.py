"""Helpers shared by the games played on a square grid of cells or points.

Cells are indexed ``i = r * n + f`` (f = column from the left, r = row from the bottom, both
0-based), the layout every square-grid rules core uses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from engine.notation import Notation, column_letter


def index(f: int, r: int, n: int) -> int:
    return r * n + f


def coords(i: int, n: int) -> tuple[int, int]:
    """``(f, r)`` of cell index ``i``."""
    return i % n, i // n


def orthogonal_neighbours(n: int) -> list[tuple[int, ...]]:
    """For each cell index, the indices of its orthogonal neighbours on an n x n grid."""
    table: list[tuple[int, ...]] = []
    for i in range(n * n):
        f, r = coords(i, n)
        around = []
        for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            g, s = f + df, r + dr
            if 0 <= g < n and 0 <= s < n:
                around.append(index(g, s, n))
        table.append(tuple(around))
    return table


def swap_mirror(i: int, n: int) -> int:
    """The pie-rule image of cell ``i``: (f, r) -> (n-1-r, n-1-f), the reflection in the
    NW-SE diagonal (shared/rules/README.md, "The pie rule as swap-pieces")."""
    f, r = coords(i, n)
    return index(n - 1 - r, n - 1 - f, n)


def edge_sets(n: int) -> tuple[tuple[frozenset[int], frozenset[int]], ...]:
    """The two edges of each player: player 0 (first) bottom and top rows, player 1 left and
    right columns."""
    bottom = frozenset(index(f, 0, n) for f in range(n))
    top = frozenset(index(f, n - 1, n) for f in range(n))
    left = frozenset(index(0, r, n) for r in range(n))
    right = frozenset(index(n - 1, r, n) for r in range(n))
    return ((bottom, top), (left, right))


def chain_joins(
    start: Iterable[int],
    member: Callable[[int], bool],
    neighbours: list[tuple[int, ...]],
    goal: frozenset[int],
) -> bool:
    """Whether the cells reachable from ``start`` through cells where ``member`` holds (the
    start cells included, if members) reach a cell of ``goal``. A plain flood fill: the
    reference check, not the fast path of search."""
    seen: set[int] = set()
    stack = [i for i in start if member(i)]
    seen.update(stack)
    while stack:
        i = stack.pop()
        if i in goal:
            return True
        for j in neighbours[i]:
            if j not in seen and member(j):
                seen.add(j)
                stack.append(j)
    return False


def diagram(
    width: int,
    height: int,
    cell: Callable[[int, int], str],
    notation: Notation = "gtp",
    legend: Iterable[str] = (),
) -> str:
    """A text diagram, top row first, with row numbers on both sides and column letters
    below and above; ``cell(f, r)`` gives each one-character cell. ``legend`` lines follow.
    The result has no empty line (GTP multi-line responses must not contain one)."""
    letters = "   " + " ".join(column_letter(f, notation) for f in range(width))
    lines = [letters]
    for r in range(height - 1, -1, -1):
        row = " ".join(cell(f, r) for f in range(width))
        lines.append(f"{r + 1:2d} {row} {r + 1:2d}")
    lines.append(letters)
    lines.extend(line for line in legend if line.strip())
    return "\n".join(lines)
