"""Analysis over GTP (protocol/analysis.py): gtpgames-analyze and gtpgames-genmove_analyze
stream lz-analyze style lines that parse, end with one empty line, stop when the next command
arrives, and show proven results; checked in-process and through the real process."""

from __future__ import annotations

import re
import threading
import time
from typing import Any

import pytest

from engine.games.registry import new_game
from engine.search.base import MoveStat, SearchResult
from engine.search.mcts import MctsPlayer
from engine.search.players import Limit
from engine.search.registry import make_player
from protocol.engine import GtpEngine
from protocol.server import build_engine
from protocol.session import GameSession
from tests.gtp_helpers import fail
from tests.protocol.test_e2e import spawn, warm

FIELDS = re.compile(
    r"move (\S+) visits (\d+) winrate (0|1|0\.\d{1,4})"
    r"(?: proven (win|loss|draw))? pv (\S+(?: \S+)*)"
)


def parse_line(line: str) -> list[dict[str, Any]]:
    """The info groups of one analysis line; the line must be made of groups only."""
    assert line.startswith("info ")
    groups = []
    for part in line[len("info "):].split(" info "):
        match = FIELDS.fullmatch(part)
        assert match, part
        groups.append({"move": match[1], "visits": int(match[2]), "winrate": float(match[3]),
                       "proven": match[4], "pv": match[5].split()})
    return groups


def mcts_engine(game: str = "brique", **options: Any) -> tuple[GtpEngine, GameSession]:
    return build_engine(new_game(game, **options), make_player("mcts", 1), None,
                        Limit(time=1.0, playouts=200))


def test_analyze_lines_parse_and_name_legal_moves() -> None:
    engine, session = mcts_engine("brique", size=4)
    response = engine.handle_line("7 gtpgames-analyze 1 playouts 300")
    assert response is not None
    assert response.startswith("=7\n") and response.endswith("\n\n")
    lines = response[3:-2].split("\n")
    assert lines and all(lines)
    legal = set(session.legal_moves(()).split())
    final = parse_line(lines[-1])
    for group in final:
        assert group["move"] in legal
        assert 0.0 <= group["winrate"] <= 1.0
        assert group["pv"][0] == group["move"]
    # every root move is listed (fewer than MAX_MOVES here), so the visits add up
    assert {g["move"] for g in final} == legal
    assert sum(g["visits"] for g in final) == 300
    visits = [g["visits"] for g in final]
    assert visits == sorted(visits, reverse=True)
    assert not session.game.history


def test_proven_win_is_shown() -> None:
    engine, session = mcts_engine("bricka")
    for token in "k10 c7 j9 c6 i8 d5 h8 k3 g7 i2 f6 l4 e6 e12".split():
        session.game.play_text(token, "native")
    response = engine.handle_line("gtpgames-analyze playouts 100")
    assert response is not None
    best = parse_line(response.split("\n")[-3])[0]
    assert best["proven"] == "win" and best["winrate"] == 1.0
    replay = session.game.copy()
    replay.play_text(best["move"], "native")
    outcome = replay.outcome()
    assert outcome is not None and outcome.winner == 1


def test_analyze_stops_when_interrupted() -> None:
    engine, _ = mcts_engine("brique", size=5)
    timer = threading.Timer(0.3, engine.interrupt.set)
    timer.start()
    response = engine.handle_line("gtpgames-analyze 5")
    timer.join()
    assert response is not None and response.startswith("=\n") and response.endswith("\n\n")
    for line in response[2:-2].split("\n"):
        parse_line(line)


class LateKernel:
    """Stands for a compiled searcher that finishes loading while an analysis runs."""

    def __init__(self, player: MctsPlayer) -> None:
        self.player = player
        self.ready = threading.Event()
        self.searched = threading.Event()
        self.waits: list[bool] = []
        self.limits: list[Limit] = []

    def searcher(self, game: Any, wait: bool = False) -> Any:
        self.waits.append(wait)
        return self if self.ready.is_set() or wait else self.player.mcts

    def search(self, game: Any, limit: Limit, rng: Any, progress: Any = None,
               interval: float = 0.5) -> SearchResult:
        self.searched.set()
        self.limits.append(limit)
        move = game.legal_moves()[0]
        start = time.perf_counter()
        while limit.playouts is None and not limit.stop():
            if limit.time is not None and time.perf_counter() > start + limit.time:
                break
            time.sleep(0.01)
        return SearchResult(move, (MoveStat(move, 777, 0.5, pv=(move,)),), 777, 0.01)


def with_late_kernel(monkeypatch: pytest.MonkeyPatch) -> tuple[GtpEngine, LateKernel]:
    """A Brique 5x5 engine whose player's compiled searcher is a :class:`LateKernel`."""
    engine, session = mcts_engine("brique", size=5)
    assert isinstance(session.player, MctsPlayer)
    kernel = LateKernel(session.player)
    monkeypatch.setattr(session.player, "searcher", kernel.searcher)
    return engine, kernel


def test_an_unbounded_analysis_goes_on_with_the_kernel_once_loaded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine, kernel = with_late_kernel(monkeypatch)
    timers = [threading.Timer(0.3, kernel.ready.set), threading.Timer(0.8, engine.interrupt.set)]
    for timer in timers:
        timer.start()
    response = engine.handle_line("gtpgames-analyze 5")
    for timer in timers:
        timer.join()
    assert kernel.searched.is_set()
    assert response is not None
    lines = response[2:-2].split("\n")
    assert parse_line(lines[0])[0]["visits"] != 777  # the Python search reported first
    assert parse_line(lines[-1])[0]["visits"] == 777


def test_an_analysis_bounded_by_playouts_waits_for_the_kernel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine, kernel = with_late_kernel(monkeypatch)
    response = engine.handle_line("gtpgames-analyze playouts 50")
    assert kernel.waits == [True] and kernel.searched.is_set()
    assert response is not None
    assert response.split("\n")[1:-2] == ["info move a1 visits 777 winrate 0.5 pv a1"]


def test_genmove_analyze_streams_then_plays() -> None:
    engine, session = mcts_engine("flicker", size=5)
    engine.handle_line("play b c3")
    response = engine.handle_line("3 gtpgames-genmove_analyze w 1")
    assert response is not None and response.startswith("=3\n") and response.endswith("\n\n")
    lines = response[3:-2].split("\n")
    assert lines[-1].startswith("play ")
    token = lines[-1].split()[1]
    assert len(session.game.history) == 2
    assert session.game.format_move(session.game.history[-1], session.notation) == token
    for line in lines[:-1]:
        parse_line(line)


def test_analysis_argument_errors() -> None:
    engine, session = mcts_engine("brique", size=4)
    assert "interval" in fail(engine, "gtpgames-analyze soon")
    assert "playouts" in fail(engine, "gtpgames-analyze 10 visits 5")
    assert "color" in fail(engine, "gtpgames-genmove_analyze x")
    for token in ("a1", "a2", "a3", "a4"):
        session.game.play(session.game.parse_move(token))
        if session.game.is_over():
            break
    if session.game.is_over():
        assert "over" in fail(engine, "gtpgames-analyze playouts 5")


@pytest.mark.slow  # a real engine process (2-3 s)
def test_analyze_over_the_real_process() -> None:
    # The process waits for the Brique kernel before its first search bounded by playouts;
    # with a cold cache that is a compilation of many seconds. Compile it first, with no
    # time bound: the process finds it in the cache directory it shares with this one.
    warm("brique")
    proc = spawn("brique", "--size", "5", "--seed", "1", encoding="utf-8")
    proc.send("1 gtpgames-analyze 5\n")
    proc.expect("=1\n")
    proc.expect("\n")
    first = str(proc.before)
    parse_line(first)
    proc.send("2 name\n")
    proc.expect("\n\n")
    for line in str(proc.before).split("\n"):
        if line:
            parse_line(line)
    proc.expect("=2 gtpgames\n\n")
    proc.send("3 gtpgames-genmove_analyze b 5\n")
    proc.expect("=3\n")
    proc.expect(r"play (\S+)\n\n")
    proc.send("4 quit\n")
    proc.expect("=4 \n\n")
    assert proc.wait() == 0
