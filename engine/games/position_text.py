"""Shared pieces of the position strings of :meth:`engine.games.core.Game.position_string`.

A position string is one line of fields separated by single spaces, board first. A board
field lists rows from the top (highest row number) down, separated by ``/``; within a row,
cells go from left to right, each a one-token cell code, and a decimal number stands for that
many empty cells in a row (FEN style). The field formats of each game are documented in
docs/ugi.md; this module has the codecs they share.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.games.core import PositionError
from engine.games.notation import format_point, parse_point

_RUN = re.compile(r"[1-9][0-9]*")
#: A run of empty cells has at most this many digits (read as a count, never allocated).
_MAX_RUN_DIGITS = 9
#: Echoed input is cut to this many characters in error messages.
SHOWN = 40


def _cut(text: str) -> str:
    """``repr(text)``, cut to a short prefix when it is long (errors echo their input)."""
    return repr(text) if len(text) <= SHOWN else f"{text[:SHOWN]!r}..."


def split_fields(text: str, names: Sequence[str], game: str) -> list[str]:
    """The fields of ``text``; ``names`` are the field names, for the error message."""
    fields = text.split()
    if len(fields) != len(names):
        raise PositionError(
            f"{game} position string: expected {len(names)} fields "
            f"({' '.join(names)}), got {len(fields)} in {_cut(text.strip())}"
        )
    return fields


def encode_board(rows: Sequence[Sequence[str | None]]) -> str:
    """Rows top first; a cell is its code, or ``None`` when empty."""
    out = []
    for row in rows:
        parts: list[str] = []
        run = 0
        for cell in row:
            if cell is None:
                run += 1
                continue
            if run:
                parts.append(str(run))
                run = 0
            parts.append(cell)
        if run:
            parts.append(str(run))
        out.append("".join(parts))
    return "/".join(out)


def decode_board(
    text: str, widths: Sequence[int], cell: re.Pattern[str], game: str, field: str = "board"
) -> list[list[str | None]]:
    """Parse a board field with ``len(widths)`` rows (top first) of the given widths; cells
    match ``cell`` (case-insensitive codes are lowered). Errors name the row."""
    rows = text.lower().split("/")
    if len(rows) != len(widths):
        raise PositionError(
            f"{game} position string: {field} field {_cut(text)} has {len(rows)} rows, "
            f"expected {len(widths)}"
        )
    out: list[list[str | None]] = []
    for number, (row, width) in enumerate(zip(rows, widths, strict=True)):
        label = len(widths) - number
        cells: list[str | None] = []
        count = 0  # the cells the row describes; only the first ``width`` are kept
        at = 0
        while at < len(row):
            run = _RUN.match(row, at)
            if run is not None:
                if len(run.group()) > _MAX_RUN_DIGITS:  # bounded before it is read
                    raise PositionError(
                        f"{game} position string: row {label} of the {field} ({_cut(row)}) "
                        f"has more than {width} cells"
                    )
                count += int(run.group())
                if count <= width:
                    cells.extend([None] * int(run.group()))
                at = run.end()
                continue
            found = cell.match(row, at)
            if found is None:
                raise PositionError(
                    f"{game} position string: row {label} of the {field} ({_cut(row)}) has a "
                    f"bad cell at {_cut(row[at:])}"
                )
            count += 1
            if count <= width:
                cells.append(found.group())
            at = found.end()
        if count != width:
            raise PositionError(
                f"{game} position string: row {label} of the {field} ({_cut(row)}) has "
                f"{count} cells, expected {width}"
            )
        out.append(cells)
    return out


def parse_side(text: str, tokens: Sequence[str], game: str, field: str = "to-move") -> int:
    """The index of ``text`` in ``tokens``."""
    lowered = text.lower()
    if lowered not in tokens:
        raise PositionError(
            f"{game} position string: {field} field {_cut(text)} is not one of "
            f"{', '.join(tokens)}"
        )
    return tokens.index(lowered)


def parse_count(text: str, game: str, field: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        raise PositionError(
            f"{game} position string: {field} field {_cut(text)} is not a count"
        )
    return int(text)


def parse_square(text: str, n: int, game: str, field: str) -> int:
    """A point of an n x n board in native notation, as the index r * n + f."""
    point = parse_point(text, n, n, "native")
    if point is None:
        last = format_point(n - 1, n - 1, "native")
        raise PositionError(
            f"{game} position string: {field} {_cut(text)} is not a point a1..{last}"
        )
    return point[1] * n + point[0]
