"""Reading the game records of ``gtpgames match`` for replay (docs/tournaments.md): a line of
the JSON-lines record, or an SGF file (Brique, Flicker, Bricka). The moves come back in gtp
notation, checked by the rules core (a record that breaks the rules is refused, naming the
move)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from sgfmill import sgf  # type: ignore[import-untyped]

from engine.games.core import GameError
from engine.games.notation import format_point
from engine.games.registry import new_game


class RecordError(ValueError):
    """A record that cannot be replayed; the message says why."""


@dataclass
class Record:
    game: str
    options: dict[str, str]
    moves: list[str]
    result: str


def parse_record(text: str, index: int = 0) -> Record:
    """The ``index``-th game (0-based) of a JSON-lines record, or the game of an SGF."""
    stripped = text.strip()
    if not stripped:
        raise RecordError("the record is empty")
    if stripped.startswith("("):
        return _checked(_from_sgf(stripped))
    lines = [line for line in stripped.splitlines() if line.strip()]
    if not 0 <= index < len(lines):
        raise RecordError(f"game {index + 1} is not in the record ({len(lines)} games)")
    try:
        data = json.loads(lines[index])
    except json.JSONDecodeError as error:
        raise RecordError(f"line {index + 1} is not JSON: {error.msg}") from None
    if not isinstance(data, dict):
        raise RecordError(f"line {index + 1} is not a JSON object")
    try:
        name = str(data["game_name"])
        options = {str(k): str(v) for k, v in dict(data.get("options") or {}).items()}
        moves = [str(m) for m in list(data.get("opening") or []) + list(data["moves"])]
        notation = str(data.get("notation") or "gtp")
        result = f"{data.get('result', '?')}: {data.get('reason', '')}".strip(": ")
    except (KeyError, TypeError, ValueError) as error:
        raise RecordError(f"not a gtpgames match record: missing or bad {error}") from None
    return _checked(Record(name, options, moves, result), notation)


def _from_sgf(text: str) -> Record:
    try:
        game = sgf.Sgf_game.from_string(text)
    except ValueError as error:
        raise RecordError(f"not an SGF record: {error}") from None
    root = game.get_root()
    comment = root.get("GC") if root.has_property("GC") else ""
    head, _, reason = comment.partition(";")
    words = head.split()
    if not words:
        raise RecordError("the SGF has no GC property naming the game (gtpgames match writes it)")
    options = dict(word.split("=", 1) for word in words[1:] if "=" in word)
    moves = []
    for node in game.get_main_sequence()[1:]:
        colour, point = node.get_move()
        if colour is None:
            continue
        if point is None:
            moves.append(node.get("C").strip() if node.has_property("C") else "pass")
        else:
            row, col = point
            moves.append(format_point(col, row, "gtp"))
    result = root.get("RE") if root.has_property("RE") else "?"
    return Record(words[0], options, moves, f"{result}: {reason.strip()}".strip(": "))


def _checked(record: Record, notation: str = "gtp") -> Record:
    """The record with its moves replayed by the rules core and written in gtp notation."""
    try:
        game = new_game(record.game, **record.options)
    except GameError as error:
        raise RecordError(str(error)) from None
    moves = []
    for number, token in enumerate(record.moves, 1):
        try:
            move = game.play_text(token, notation)  # type: ignore[arg-type]
        except GameError as error:
            raise RecordError(f"move {number} {token!r}: {error}") from None
        game.undo()
        moves.append(game.format_move(move, "gtp"))
        game.play(move)
    record.moves = moves
    return record
