"""Helpers for in-process GTP tests: run a transcript through an engine and compare."""

from __future__ import annotations

import io
from typing import Any

from engine.games.registry import new_game
from engine.search.players import Limit
from engine.search.registry import make_player
from protocol.engine import GtpEngine
from protocol.server import build_engine
from protocol.session import GameSession


def make_engine(
    game: str = "brique", seed: int = 1, **options: Any
) -> tuple[GtpEngine, GameSession]:
    return build_engine(new_game(game, **options), make_player("random", seed), None, Limit())


def send(engine: GtpEngine, line: str) -> str | None:
    """The raw framed response to one line (``None`` if the line is ignored)."""
    return engine.handle_line(line)


def ok(engine: GtpEngine, line: str) -> str:
    """The text of a successful response (without ``= `` and the final empty line)."""
    response = engine.handle_line(line)
    assert response is not None, f"{line!r} got no response"
    assert response.startswith("="), f"{line!r} failed: {response!r}"
    assert response.endswith("\n\n")
    return response.split(" ", 1)[1][:-2]


def fail(engine: GtpEngine, line: str) -> str:
    """The message of a failed response."""
    response = engine.handle_line(line)
    assert response is not None, f"{line!r} got no response"
    assert response.startswith("?"), f"{line!r} succeeded: {response!r}"
    assert response.endswith("\n\n")
    return response.split(" ", 1)[1][:-2]


def check(engine: GtpEngine, line: str, expected: str | None) -> None:
    """gomill-style one-line check: the full framed response equals ``expected``."""
    assert engine.handle_line(line) == expected


def serve_bytes(engine: GtpEngine, data: bytes) -> bytes:
    out = io.BytesIO()
    engine.serve(io.BytesIO(data), out)
    return out.getvalue()
