"""Game records of the match runner: one JSON line per game, and SGF for the square-grid
placement games.

JSON lines (docs/tournaments.md): appended and flushed as each game ends, so that a killed
match can be resumed; a torn last line (the process died while writing it) is dropped when the
file is read back. SGF (FF[4], written by sgfmill as a Go record, GM[1]) exists only for Brique,
Flicker and Bricka: their moves are single points of a square grid (Bricka's intersections in
its gtp grid notation), which SGF and GoGui can show. A Flicker removal is a move onto an
occupied point, the pie swap and every pass are written as a pass with a comment; Brique's
forced fills follow from the placements and are not written. Trisq turns and Brax paths have
no SGF form in a Go record.
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path
from typing import Any

from sgfmill import sgf  # type: ignore[import-untyped]

SGF_GAMES = ("brique", "flicker", "bricka")

_POINT = re.compile(r"^([a-hj-z])(\d+)$")


class RecordFile:
    """An append-only JSON-lines file shared by the worker threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def read(self) -> list[dict[str, Any]]:
        """The complete records; a torn last line is cut off the file."""
        if not self.path.exists():
            return []
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end != len(data):
            with self.path.open("r+b") as handle:
                handle.truncate(end)
            data = data[:end]
        records = []
        for number, line in enumerate(data.decode("utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                raise ValueError(f"{self.path}:{number}: not a JSON record") from None
        return records

    def append(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, sort_keys=True) + "\n"
        with self._lock:
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(line)
                handle.flush()
                os.fsync(handle.fileno())


def sgf_point(token: str, size: int) -> tuple[int, int] | None:
    """(row, col) for sgfmill from a gtp-notation point (``j1`` = column 8); None for any
    other token."""
    match = _POINT.match(token.lower())
    if match is None:
        return None
    letter = match.group(1)
    col = ord(letter) - ord("a") - (1 if letter > "i" else 0)
    row = int(match.group(2)) - 1
    if not (0 <= col < size and 0 <= row < size):
        return None
    return row, col


def sgf_bytes(record: dict[str, Any], size: int, gtp_moves: list[str]) -> bytes:
    """An SGF record of one game; ``gtp_moves`` are its moves (opening included) in gtp
    notation, ``record`` the JSON record (players, result)."""
    game = sgf.Sgf_game(size=size)
    root = game.get_root()
    root.set("GN", f"{record['game_name']} game {record['index']}")
    root.set("PB", record["black"])
    root.set("PW", record["white"])
    root.set("RE", sgf_result(record))
    options = " ".join(f"{k}={v}" for k, v in record["options"].items())
    root.set("GC", f"{record['game_name']} {options}; {record['reason']}".strip())
    colours = record["colours"]
    if colours and colours[0] == "w":
        root.set("PL", "w")
    for colour, token in zip(colours, gtp_moves, strict=False):
        node = game.extend_main_sequence()
        node.set_move("b" if colour == "b" else "w", sgf_point(token, size))
        if sgf_point(token, size) is None:
            node.set("C", token)
    data: bytes = game.serialise()
    return data


def sgf_result(record: dict[str, Any]) -> str:
    """SGF RE: ``B+``/``W+`` (rules win), ``B+R`` (resign), ``B+T`` (time), ``B+F``
    (forfeit: illegal move, crash, garbage), ``0`` draw, ``?`` unknown."""
    winner = record.get("winner_colour")
    if winner is None:
        return "0" if record["result"] == "draw" else "?"
    suffix = {"resign": "R", "timeout": "T", "win": ""}.get(record["reason_kind"], "F")
    return f"{winner.upper()}+{suffix}"
