"""Analysis over GTP: ``gtpgames-analyze`` and ``gtpgames-genmove_analyze``.

The output follows Leela Zero's ``lz-analyze`` / ``lz-genmove_analyze`` framing (as KataGo's
docs/GTP_Extensions.md describes it): the response head ``=`` on a line of its own, then, every
INTERVAL centiseconds, one line with an ``info`` group per root move, best first::

    info move c3 visits 120 winrate 0.5634 pv c3 d4 e5 info move d4 visits 80 ...

``winrate`` is a fraction in [0, 1] for the player to move (not lz-analyze's 0..10000), and a
move the solver has proven carries ``proven win``, ``proven loss`` or ``proven draw`` before
its ``pv`` (its winrate is then exactly 1, 0 or 0.5). ``gtpgames-analyze`` streams until the
next command arrives (or GoGui's ``# interrupt``); ``gtpgames-genmove_analyze`` streams while
``genmove`` thinks and ends with ``play MOVE``. Documented in docs/protocol.md.
"""

from __future__ import annotations

import time
from typing import Any

from engine.games.core import Game
from engine.games.notation import Notation
from engine.search.base import Progress, SearchResult
from engine.search.mcts import MctsPlayer, table_draw
from engine.search.players import Limit
from protocol import args as arg
from protocol.engine import GtpEngine, Handler
from protocol.gtp import GtpError
from protocol.session import GameSession

#: Default reporting interval, in centiseconds (lz-analyze's unit).
DEFAULT_INTERVAL = 50
#: Most root moves listed per line.
MAX_MOVES = 20


def format_number(value: float) -> str:
    """``0.5634``, ``1``, ``0.5``: four decimals at most, no trailing zeros."""
    return f"{value:.4f}".rstrip("0").rstrip(".") or "0"


def info_line(game: Game[Any], result: SearchResult, notation: Notation) -> str:
    """One analysis line: an ``info`` group per root move, best first."""
    groups = []
    for stat in result.stats[:MAX_MOVES]:
        parts = [
            "info move", game.format_move(stat.move, notation),
            "visits", str(stat.visits), "winrate", format_number(stat.winrate),
        ]
        if stat.proven is not None:
            parts += ["proven", stat.proven]
        pv = [game.format_move(stat.move, notation)]
        replay = game.copy()
        replay.play(stat.move)
        for move in stat.pv[1:]:
            if replay.is_over():
                break
            pv.append(replay.format_move(move, notation))
            replay.play(move)
        parts += ["pv", *pv]
        groups.append(" ".join(parts))
    return " ".join(groups)


class Analysis:
    """The analysis commands of one session; searches with the session's player when it
    searches, else with a Python MCTS of its own."""

    def __init__(self, engine: GtpEngine, session: GameSession) -> None:
        self.engine = engine
        self.session = session
        self._own: MctsPlayer | None = None

    def handlers(self) -> dict[str, Handler]:
        return {
            "gtpgames-analyze": self.analyze,
            "gtpgames-genmove_analyze": self.genmove_analyze,
        }

    def searcher(self) -> MctsPlayer:
        player = self.session.player
        if isinstance(player, MctsPlayer):
            return player
        if self._own is None:
            self._own = MctsPlayer(player.rng)
        return self._own

    @staticmethod
    def interval(token: str) -> float:
        return arg.integer(token, "interval", 1, arg.MAX_INTERVAL) / 100.0

    def analyze(self, args: tuple[str, ...]) -> str:
        usage = "gtpgames-analyze [INTERVAL] [playouts N]"
        arg.count(args, 0, 3, usage=usage)
        rest = list(args)
        interval = DEFAULT_INTERVAL / 100.0
        playouts: int | None = None
        if rest and rest[0].lower() != "playouts":
            interval = self.interval(rest.pop(0))
        if rest:
            if len(rest) != 2 or rest[0].lower() != "playouts":
                raise GtpError(f"syntax error: expected playouts N ({usage})")
            playouts = arg.integer(rest[1], "playouts", 1, arg.MAX_PLAYOUTS)
        game = self.session.game.copy()
        if game.is_over():
            raise GtpError("cannot analyze: the game is over")
        notation = self.session.notation
        stop = self.engine.input_waiting
        player = self.searcher()

        mark = table_draw(game)

        def report(result: SearchResult) -> None:
            if mark is not None:
                result = mark(result)
            if result.stats:
                self.engine.stream(info_line(game, result, notation))

        limit = Limit(None, playouts, stop, player.threads)
        # a proven move (the opening book, or the solver when the player proves) comes first
        result = player.proven(game, limit) or self.search(player, game, limit, report, interval)
        report(result)
        if playouts is None:
            # a proven (or tiny) position ends the search early: keep the response open
            # until the next command, as lz-analyze does
            next_report = time.monotonic() + interval
            while not stop():
                time.sleep(0.02)
                if time.monotonic() >= next_report:
                    report(result)
                    next_report += interval
        return ""

    @staticmethod
    def search(player: MctsPlayer, game: Game[Any], limit: Limit, report: Progress,
               interval: float) -> SearchResult:
        """Search with the compiled kernel where there is one. Bounded by playouts, the
        analysis waits for it to load (a reproducible result, as ``genmove`` gives); unbounded,
        it starts at once with whichever search is ready, and the kernel takes over once it
        has loaded (:meth:`MctsPlayer.run`)."""
        searcher = player.searcher(game, wait=limit.playouts is not None)
        return player.run(searcher, game, limit, report, interval)

    def genmove_analyze(self, args: tuple[str, ...]) -> str:
        arg.count(args, 1, 2, usage="gtpgames-genmove_analyze COLOR [INTERVAL]")
        interval = self.interval(args[1]) if len(args) == 2 else DEFAULT_INTERVAL / 100.0
        self.session.color(args[0])
        player = self.session.player
        if not isinstance(player, MctsPlayer):
            return f"play {self.session.genmove(args[:1])}"
        game = self.session.game.copy()
        notation = self.session.notation

        def report(result: SearchResult) -> None:
            if result.stats:
                self.engine.stream(info_line(game, result, notation))

        player.progress, player.interval, player.last = report, interval, None
        try:
            token = self.session.genmove(args[:1])
        finally:
            player.progress = None
        if player.last is not None and player.last.stats:
            report(player.last)
        return f"play {token}"


def analysis_handlers(engine: GtpEngine, session: GameSession) -> dict[str, Handler]:
    """The analysis commands, wired to ``engine`` (for streaming) and ``session``."""
    return Analysis(engine, session).handlers()
