"""Builds a complete GTP engine for one game: dispatcher plus the game session's commands."""

from __future__ import annotations

from typing import Any

from engine.games.core import Game
from engine.games.notation import Notation
from engine.search.players import Limit, Player
from protocol.analysis import analysis_handlers
from protocol.engine import GtpEngine
from protocol.session import GameSession

VERSION = "0.1.0"


def build_engine(
    game: Game[Any],
    player: Player,
    notation: Notation | None = None,
    limit: Limit | None = None,
) -> tuple[GtpEngine, GameSession]:
    engine = GtpEngine("gtpgames", VERSION)
    session = GameSession(game, player, notation, limit)
    session.should_stop = engine.should_stop
    engine.add_commands(session.handlers())
    engine.add_commands(analysis_handlers(engine, session))
    return engine, session
