"""Helpers shared by the games played on a square grid of cells or points.

Cells are indexed ``i = r * n + f`` (f = column from the left, r = row from the bottom, both
0-based), the layout every square-grid rules core uses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from engine.games.notation import Notation, column_letter


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
    NW-SE diagonal (docs/rules/README.md, "The pie rule")."""
    f, r = coords(i, n)
    return index(n - 1 - r, n - 1 - f, n)


def edge_bits(n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per player, per cell: bit 1 if the cell is on the player's first edge, bit 2 if on the
    second (player 0: bottom and top rows; player 1: left and right columns; a corner cell
    is on both edges it touches)."""
    cells = [coords(i, n) for i in range(n * n)]
    first = tuple((1 if r == 0 else 0) | (2 if r == n - 1 else 0) for _, r in cells)
    second = tuple((1 if f == 0 else 0) | (2 if f == n - 1 else 0) for f, _ in cells)
    return first, second


def chain_touches_both(
    start: int,
    cells: Sequence[int],
    colour: int,
    neighbours: Sequence[tuple[int, ...]],
    bits: Sequence[int],
) -> bool:
    """Whether the orthogonal chain of ``colour`` through ``start`` (a cell of that colour)
    reaches cells with both edge bits (``bits`` from :func:`edge_bits`): a flood fill from
    the stone just placed, the reference win check of the square-grid connection games."""
    seen = {start}
    stack = [start]
    touched = 0
    while stack:
        i = stack.pop()
        touched |= bits[i]
        if touched == 3:
            return True
        for j in neighbours[i]:
            if j not in seen and cells[j] == colour:
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
