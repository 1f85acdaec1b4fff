"""gogui-twogtp compatibility: the exact command sequences GoGui's twogtp sends to the black,
white and referee programs (GoGui 1.6 source: tools/twogtp/TwoGtp.java, Program.java,
gtp/GtpSynchronizer.java, gtp/GtpClientBase.java), replayed against in-process engines.

What twogtp does, and what this test mirrors:
- each program: ``protocol_version``, ``name``, ``version``, ``list_commands``, then
  ``gogui-interrupt`` if listed; at every new game ``boardsize N``, ``clear_board`` and, once,
  ``komi 6.5`` (its default komi);
- it keeps a Go board; a genmove answer must be ``resign`` or a point that
  ``GoPoint.parsePoint`` accepts (``PASS``, letters skipping I, within the size), else the
  game ends with "played invalid move"; the move is relayed as ``play B D4`` / ``play W PASS``
  (upper case) to the two other programs; a program that rejects it ends the game in error;
- the game ends on ``resign`` (result ``X+R``, no final_score asked) or after two passes in a
  row (``final_score`` asked of black, white and referee).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from engine.games.registry import new_game
from engine.search.players import Limit
from engine.search.registry import make_player
from protocol.engine import GtpEngine
from protocol.server import build_engine
from protocol.session import GameSession


class TwoGtpError(Exception):
    pass


def parse_point(text: str, size: int) -> tuple[int, int] | None:
    """GoGui's GoPoint.parsePoint: None for PASS; raises for anything else invalid."""
    text = text.strip().upper()
    if text == "PASS":
        return None
    if len(text) < 2:
        raise TwoGtpError(f"invalid point {text}")
    x = ord(text[0]) - ord("A") - (1 if text[0] >= "J" else 0)
    offset = 1
    if "A" <= text[1] <= "Z" and text[1] != "I":
        x = (x + 1) * 25 + ord(text[1]) - ord("A") - (1 if text[1] >= "J" else 0)
        offset = 2
    try:
        y = int(text[offset:]) - 1
    except ValueError:
        raise TwoGtpError(f"invalid point {text}") from None
    if not (0 <= x < size and 0 <= y < size):
        raise TwoGtpError(f"invalid point {text}")
    return x, y


def point_text(point: tuple[int, int] | None) -> str:
    if point is None:
        return "PASS"
    x, y = point
    return "ABCDEFGHJKLMNOPQRSTUVWXYZ"[x] + str(y + 1)


@dataclasses.dataclass
class Program:
    label: str
    engine: GtpEngine
    session: GameSession
    sent: list[str] = dataclasses.field(default_factory=list)

    def send(self, command: str) -> str:
        self.sent.append(command)
        response = self.engine.handle_line(command)
        assert response is not None
        if response.startswith("?"):
            raise TwoGtpError(f"{self.label}: {response[2:].strip()}")
        return response[2:].rstrip("\n")


def program(label: str, game: str, seed: int, **flags: Any) -> Program:
    engine, session = build_engine(new_game(game, **flags.pop("options", {})),
                                   make_player("random", seed), flags.pop("notation", None),
                                   Limit())
    for key, value in flags.items():
        setattr(session, key, value)
    return Program(label, engine, session)


def start(prog: Program) -> None:
    prog.send("protocol_version")
    prog.send("name")
    prog.send("version")
    if "gogui-interrupt" in prog.send("list_commands").split("\n"):
        prog.send("gogui-interrupt")


def play_game(black: Program, white: Program, referee: Program, size: int,
              white_first: bool = False, max_moves: int = 1000) -> tuple[str, list[str]]:
    """One twogtp game; returns (result, moves as twogtp relays them)."""
    programs = [black, white, referee]
    for prog in programs:
        prog.send(f"boardsize {size}")
        prog.send("clear_board")
    to_move = "W" if white_first else "B"
    moves: list[str] = []
    passed = 0
    while len(moves) < max_moves:
        mover = black if to_move == "B" else white
        answer = mover.send(f"genmove {to_move.lower()}")
        if answer.lower() == "resign":
            return ("W" if to_move == "B" else "B") + "+R", moves
        try:
            point = parse_point(answer, size)
        except TwoGtpError:
            raise TwoGtpError(f"{mover.label} played invalid move: {answer}") from None
        move = f"{to_move} {point_text(point)}"
        moves.append(move)
        for prog in programs:
            if prog is not mover:
                prog.send(f"play {move}")
        passed = passed + 1 if point is None else 0
        if passed == 2:
            results = [prog.send("final_score") for prog in programs]
            return results[2], moves
        to_move = "W" if to_move == "B" else "B"
    raise TwoGtpError("move limit exceeded")


def referee_result(referee: Program) -> str:
    return referee.session.score_text(referee.session.game.outcome())  # type: ignore[arg-type]


def twogtp_match(game: str, size: int, games: int, white_first: bool = False,
                 **flags: Any) -> list[tuple[str, list[str], Program]]:
    black = program("B", game, 1, **dict(flags))
    white = program("W", game, 2, **dict(flags))
    referee = program("R", game, 3, **dict(flags))
    for prog in (black, white, referee):
        start(prog)
        prog.send(f"boardsize {size}")
        prog.send("clear_board")
        prog.send("komi 6.5")
    results = []
    for index in range(games):
        first, second = (black, white) if index % 2 == 0 else (white, black)  # -alternate
        result, moves = play_game(first, second, referee, size, white_first)
        outcome = referee.session.game.outcome()
        assert outcome is not None, f"game {index}: twogtp ended a game that is not over"
        if result.endswith("+R"):
            # the resigner is the loser the referee sees (a draw never ends in resign)
            assert result[:2] == referee_result(referee)
        else:
            assert result == referee_result(referee)
        results.append((result, moves, referee))
    for prog in (black, white, referee):
        prog.send("quit")
    return results


TWOGTP_FLAGS = {"swap_as_pass": True, "pass_at_end": True}


def test_point_parser_matches_gogui() -> None:
    assert parse_point("j1", 19) == (8, 0)
    assert parse_point("PASS", 9) is None
    with pytest.raises(TwoGtpError):
        parse_point("swap", 11)
    with pytest.raises(TwoGtpError):
        parse_point("k1", 9)


@pytest.mark.parametrize("game", ["brique", "flicker"])
def test_twogtp_match_with_swap_as_pass(game: str) -> None:
    results = twogtp_match(game, 5, 60, options={"size": 5}, **TWOGTP_FLAGS)
    assert all(result.endswith("+R") for result, _, _ in results)
    swaps = [moves for _, moves, _ in results if moves[1] == "W PASS"]
    assert swaps, "no game with a swap: pick more games or other seeds"


def test_swap_as_pass_relays_the_swap_to_the_referee() -> None:
    referee = program("R", "brique", 1, options={"size": 5}, **TWOGTP_FLAGS)
    referee.send("play B A1")
    referee.send("play W PASS")
    game = referee.session.game
    assert [game.format_move(m) for m in game.history] == ["a1", "swap"]
    # a1 = (0, 0) became a White stone on its mirror (5-1-0, 5-1-0) = e5; Black moves
    with pytest.raises(TwoGtpError, match="e5 is occupied by White"):
        referee.send("play B E5")
    referee.send("play B A1")
    # pass means swap only on White's first turn: Brique has no pass otherwise
    with pytest.raises(TwoGtpError, match="invalid move 'PASS'"):
        referee.send("play W PASS")


def test_pie_without_swap_as_pass_breaks_twogtp() -> None:
    """Why the option exists: a random White swaps sooner or later, and twogtp cannot parse
    ``swap``."""
    with pytest.raises(TwoGtpError, match="played invalid move: swap"):
        twogtp_match("brique", 5, 40, options={"size": 5})


def test_bricka_twogtp_white_first_and_pass_at_end() -> None:
    """Bricka: gtp notation (twogtp's point parser skips I), White first (twogtp needs an
    opening file with PL[W]). With pass_at_end, a player who has won on count passes, the
    loser then resigns; a drawn game ends with two passes and final_score 0."""
    results = twogtp_match("bricka", 13, 10, white_first=True, notation="gtp",
                           pass_at_end=True)
    winners_passed = [moves for result, moves, _ in results
                      if result.endswith("+R") and moves[-1].endswith("PASS")]
    assert winners_passed, "no count win by the player to move: pick other seeds"


def test_bricka_without_pass_at_end_stops_at_a_count_win() -> None:
    """Why pass_at_end exists: without it, after a count win the winner's genmove answers
    ``pass`` (the loser's ``resign``), but the other programs refuse ``play X PASS`` after the
    end, so twogtp stops that game with an error. No result is ever misreported."""
    stopped = 0
    black = program("B", "bricka", 1, notation="gtp")
    white = program("W", "bricka", 2, notation="gtp")
    referee = program("R", "bricka", 3, notation="gtp")
    for _ in range(10):
        try:
            result, _ = play_game(black, white, referee, 13, white_first=True)
        except TwoGtpError as error:
            assert "illegal move: game over" in str(error)
            stopped += 1
            continue
        assert result[:2] == referee_result(referee)
    assert stopped > 0


def test_compat_switches_are_session_settings() -> None:
    prog = program("R", "brique", 1, options={"size": 5})
    prog.send("play b c3")
    assert prog.send("gtpgames-option swap_as_pass on") == "swap_as_pass=on"
    assert [prog.session.game.format_move(m) for m in prog.session.game.history] == ["c3"]
    with pytest.raises(TwoGtpError, match="option pass_at_end: expected on or off, got 'x'"):
        prog.send("gtpgames-option pass_at_end x")
    assert prog.send("gtpgames-option pass_at_end off") == "pass_at_end=off"
    assert prog.session.swap_as_pass and not prog.session.pass_at_end


def test_pass_at_end_after_a_win() -> None:
    prog = program("R", "brique", 1, options={"size": 4, "pie": False}, pass_at_end=True)
    # docs/rules/brique.md#example-4
    for move in ("b a1", "w d1", "b b2", "w a4", "b c3", "w d3", "b d4"):
        prog.send(f"play {move}")
    assert prog.session.game.outcome() is not None
    assert prog.send("genmove w") == "resign"  # White has lost
    assert prog.send("genmove b") == "pass"  # Black has won
    assert prog.send("play w pass") == ""
    assert prog.send("final_score") == "B+"
    with pytest.raises(TwoGtpError, match="game over"):
        prog.send("play w a2")
