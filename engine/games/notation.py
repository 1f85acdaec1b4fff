"""Coordinate codecs for the two notations of ``docs/rules/README.md``.

* ``gtp``: column letters skip ``i`` (a..h, j..z: 25 columns), as GTP controllers expect.
* ``native``: consecutive letters including ``i`` (a..y).

Rows are numbers from 1 at the bottom in both. Column index ``f`` and row index ``r`` are
0-based; tokens are case-insensitive on input and written lowercase.
"""

from __future__ import annotations

import re
from typing import Any, Literal

Notation = Literal["gtp", "native"]
NOTATIONS: tuple[Notation, ...] = ("gtp", "native")

GTP_LETTERS = "abcdefghjklmnopqrstuvwxyz"
NATIVE_LETTERS = "abcdefghijklmnopqrstuvwxy"
_LETTERS: dict[str, str] = {"gtp": GTP_LETTERS, "native": NATIVE_LETTERS}

_POINT = re.compile(r"([a-z])([0-9]{1,2})")


def natural_key(token: str) -> tuple[Any, ...]:
    """Sort key that orders ``a2`` before ``a10``: runs of digits compare as numbers."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"([0-9]+)", token))


def check_notation(text: str) -> Notation:
    """Validate a notation name; raise ``ValueError`` naming it."""
    name = text.lower()
    if name == "gtp":
        return "gtp"
    if name == "native":
        return "native"
    raise ValueError(f"unknown notation {text!r} (expected gtp or native)")


def column_letter(f: int, notation: Notation = "gtp") -> str:
    return _LETTERS[notation][f]


def column_index(letter: str, notation: Notation = "gtp") -> int | None:
    """The index of a column letter, or ``None`` if the notation has no such letter."""
    index = _LETTERS[notation].find(letter.lower())
    return None if index < 0 else index


def format_point(f: int, r: int, notation: Notation = "gtp") -> str:
    """``(2, 2)`` -> ``c3``."""
    return f"{_LETTERS[notation][f]}{r + 1}"


def parse_point(
    token: str, width: int, height: int, notation: Notation = "gtp"
) -> tuple[int, int] | None:
    """``c3`` -> ``(2, 2)``; ``None`` if the token is not a point of a width x height grid."""
    match = _POINT.fullmatch(token.lower())
    if match is None:
        return None
    f = column_index(match.group(1), notation)
    digits = match.group(2)
    if f is None or digits.startswith("0"):
        return None
    r = int(digits) - 1
    if not (0 <= f < width and 0 <= r < height):
        return None
    return f, r
