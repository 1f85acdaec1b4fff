"""The GTP engine under input a controller, a fuzzer or a new user may send: ids of any length,
non-ASCII white space and digits, numbers out of every range, interrupts at odd moments, a
controller that goes away, huge bad tokens, and bad command lines."""

from __future__ import annotations

import io
import os
import random
import subprocess
import threading
import time

import pytest
from typer.testing import CliRunner

from adapters.gogui import gogui_handlers
from engine.games.registry import new_game
from engine.search.mcts import MctsPlayer
from engine.search.players import Limit
from gtpgames.cli import app
from protocol.engine import GtpEngine
from protocol.gtp import Command, parse_command, preprocess
from protocol.server import build_engine
from protocol.session import GameSession
from tests.gtp_helpers import check, fail, make_engine, ok, serve_bytes
from tests.protocol.test_e2e import COMMAND
from tests.protocol.test_gtp_framing import spinning_engine

#: 1 followed by 400 zeros: beyond every range, and beyond a float.
HUGE = "1" + "0" * 400


def search_engine() -> tuple[GtpEngine, GameSession]:
    """As ``gtpgames gtp brique --size 5 --playouts 20`` builds it (the Python search)."""
    player = MctsPlayer(random.Random(1), kernel=False)
    engine, session = build_engine(new_game("brique", size=5), player, None, Limit(playouts=20))
    engine.add_commands(gogui_handlers(engine, session, 1))
    return engine, session


# ---------------------------------------------------------------- one answer per line


def test_an_id_of_any_length_is_echoed() -> None:
    gtp, _ = make_engine()
    long_id = "1" * 4301
    check(gtp, f"{long_id} name", f"={long_id} gtpgames\n\n")
    check(gtp, f"000{long_id} nosuch", f"?{long_id} unknown command: nosuch\n\n")
    check(gtp, "0000 name", "=0 gtpgames\n\n")
    assert serve_bytes(gtp, b"9" * 50_000 + b" name\n1 version\n") == (
        b"=" + b"9" * 50_000 + b" gtpgames\n\n=1 0.1.0\n\n"
    )


# ---------------------------------------------------------- ASCII white space and digits


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("3\u00a0name", Command(None, "3\u00a0name", ())),
        ("play\u3000b c3", Command(None, "play\u3000b", ("c3",))),
        ("\u00a0", Command(None, "\u00a0", ())),
        ("name\u2028x", Command(None, "name\u2028x", ())),
        ("\u0663 name", Command(None, "\u0663", ("name",))),
    ],
)
def test_only_ascii_space_and_tab_separate_words(line: str, command: Command) -> None:
    assert preprocess(line) == line
    assert parse_command(line) == command


@pytest.mark.parametrize(
    ("line", "response"),
    [
        ("\u00a0", "? unknown command: \u00a0\n\n"),
        ("\u3000\u3000", "? unknown command: \u3000\u3000\n\n"),
        ("3\u00a0name", "? unknown command: 3\u00a0name\n\n"),
        ("boardsize \u0661\u0661", "? syntax error: board size must be an integer, got "
                                   "'\u0661\u0661'\n\n"),
        ("2 boardsize \uff11\uff11", "?2 syntax error: board size must be an integer, got "
                                     "'\uff11\uff11'\n\n"),
        ("boardsize 1_1", "? syntax error: board size must be an integer, got '1_1'\n\n"),
        ("komi \u0667.5", "? syntax error: komi must be a number, got '\u0667.5'\n\n"),
        ("time_left b \u0661 0", "? syntax error: time must be a number, got '\u0661'\n\n"),
        ("time_settings 10 0 \u0660", "? syntax error: byo-yomi stones must be an integer, "
                                      "got '\u0660'\n\n"),
        ("gtpgames-perft \u0661", "? syntax error: depth must be an integer, got '\u0661'\n\n"),
    ],
)
def test_non_ascii_white_space_and_digits_are_words(line: str, response: str) -> None:
    gtp, session = make_engine()
    check(gtp, line, response)
    assert session.game.board_size == 11


# ---------------------------------------------------------------- ranges of numbers


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (f"time_settings {HUGE} 0 0", "syntax error: main time 1000000000"),
        (f"time_settings 0 {HUGE} 1", "syntax error: byo-yomi time 1000000000"),
        ("time_settings 0 1 10001", "syntax error: byo-yomi stones 10001 is out of range "
                                    "0..10000"),
        ("time_settings 1000001 0 0", "syntax error: main time 1000001 is out of range "
                                      "0..1000000"),
        (f"kgs-time_settings byoyomi 0 {HUGE} 1", "syntax error: period time 1000000000"),
        (f"kgs-time_settings absolute {HUGE}", "syntax error: main time 1000000000"),
        (f"time_left b 100 {HUGE}", "syntax error: stones 1000000000"),
        ("time_left b 1e308 0", "syntax error: time 1e308 is out of range 0..1000000"),
        ("komi 1e308", "syntax error: komi 1e308 is out of range -1000..1000"),
        (f"gtpgames-analyze {HUGE}", "syntax error: interval 1000000000"),
        (f"gtpgames-analyze 10 playouts {HUGE}", "syntax error: playouts 1000000000"),
        (f"gtpgames-param playouts {HUGE}", "syntax error: playouts 1000000000"),
        ("gtpgames-param time 1e308", "syntax error: time 1e308 is out of range 0..86400"),
        ("gtpgames-param time 0", "syntax error: time 0 is out of range"),
        ("gtpgames-param time nan", "syntax error: invalid time 'nan'"),
        (f"gtpgames-param seed {HUGE}", "syntax error: seed 1000000000"),
        ("gtpgames-param level 99", "syntax error: level 99 is out of range 1..7"),
        ("gtpgames-param level -3", "syntax error: level -3 is out of range 1..7"),
        ("gtpgames-param level 0", "syntax error: level 0 is out of range 1..7"),
    ],
)
def test_numbers_out_of_range_fail_where_they_are_given(line: str, message: str) -> None:
    gtp, session = search_engine()
    before = (session.time_control, dict(session.clocks), session.limit, session.komi,
              ok(gtp, "gtpgames-param"))
    assert fail(gtp, line).startswith(message)
    assert (session.time_control, dict(session.clocks), session.limit, session.komi,
            ok(gtp, "gtpgames-param")) == before
    # nothing later meets a value it cannot compute with
    assert ok(gtp, "genmove b")
    assert ok(gtp, "genmove w")


def test_numbers_in_range_are_taken() -> None:
    gtp, session = search_engine()
    ok(gtp, "time_settings 1000000 1000000 10000")
    ok(gtp, "time_left b 1000000 10000")
    ok(gtp, "gtpgames-param time 86400")
    ok(gtp, "gtpgames-param playouts 20")
    ok(gtp, "gtpgames-param level 7")
    assert "[string] level 7" in ok(gtp, "gtpgames-param").split("\n")
    assert ok(gtp, "genmove b")
    ok(gtp, "kgs-time_settings canadian 0 1 1")
    ok(gtp, "time_left w 0.5 1")
    assert ok(gtp, "genmove w")
    assert session.limit.time == 86400


# ---------------------------------------------------------------- interrupts and the end


def test_an_interrupt_while_idle_does_not_cut_the_next_command() -> None:
    gtp = spinning_engine()
    read_end, write_end = os.pipe()
    stdout = io.BytesIO()
    with open(read_end, "rb", buffering=0) as stdin, open(write_end, "wb", buffering=0) as feed:
        server = threading.Thread(target=gtp.serve, args=(stdin, stdout))
        server.start()
        feed.write(b"1 name\n")
        answered = time.monotonic() + 20
        while stdout.getvalue() != b"=1 testengine\n\n" and time.monotonic() < answered:
            time.sleep(0.005)
        feed.write(b"# interrupt\n2 spin\n")  # GoGui's interrupt comes late: nothing runs
        feed.close()
        server.join(20)
    assert stdout.getvalue() == b"=1 testengine\n\n=2 not interrupted\n\n"


def test_perft_honours_interrupts() -> None:
    gtp, _ = make_engine()
    timer = threading.Timer(0.2, gtp.interrupt.set)
    answer: list[str | None] = []
    worker = threading.Thread(
        target=lambda: answer.append(gtp.handle_line("5 gtpgames-perft 64")), daemon=True
    )
    timer.start()
    worker.start()
    worker.join(60)
    assert answer == ["?5 interrupted: perft 64 stopped before its end\n\n"]
    gtp.interrupt.clear()
    check(gtp, "gtpgames-perft 2", "= 14641\n\n")


@pytest.mark.parametrize(
    "args", [("--time", "1000", "genmove b"), ("--player", "random", "gtpgames-perft 64")]
)
def test_long_work_stops_when_the_controller_goes_away(args: tuple[str, ...]) -> None:
    """Input ended and nobody reads the answers: a search or a count stops at once and the
    engine exits (a controller that only closes the input still gets its answers)."""
    *flags, line = args
    proc = subprocess.Popen([*COMMAND, "gtp", "brique", *flags], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(f"{line}\n".encode())
    proc.stdin.close()
    proc.stdout.close()
    try:
        assert proc.wait(120) == 0
    finally:
        proc.kill()
    assert proc.stderr is not None and b"Traceback" not in proc.stderr.read()


# ---------------------------------------------------------------- bounded echoes


def test_errors_echo_a_short_prefix_of_huge_input() -> None:
    gtp, session = make_engine()
    token = "a" * 1_000_000
    message = fail(gtp, f"play b {token}")
    assert len(message) < 200 and "'" + "a" * 39 + "..." in message
    check(gtp, f"1 {token}", "?1 unknown command: " + "a" * 40 + "...\n\n")
    assert fail(gtp, f"boardsize {'9' * 100_000}") == (
        f"syntax error: board size {'9' * 40}... is out of range 0..9223372036854775807"
    )
    assert not session.game.history


# ---------------------------------------------------------------- the command line


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["gtp", "brique", "--time", "-1"], "--time must be more than 0"),
        (["gtp", "brique", "--time", "0"], "--time must be more than 0"),
        (["gtp", "brique", "--time", "inf"], "--time must be more than 0"),
        (["gtp", "brique", "--time", "nan"], "--time must be more than 0"),
        (["gtp", "brique", "--time", "1e308"], "at most 86400 seconds"),
        (["gtp", "brique", "--playouts", "0"], "Invalid value for '--playouts'"),
        (["gtp", "brique", "--playouts", "-5"], "Invalid value for '--playouts'"),
        (["gtp", "brique", "--size", "7", "-o", "size=9"], "--size 7 contradicts"),
        (["gtp", "brique", "--size", "x"], "Invalid value for '--size'"),
        (["gtp", "brique", "--threads", "0"], "Invalid value for '--threads'"),
        (["gtp", "brique", "--seed", "abc"], "Invalid value for '--seed'"),
        (["ugi", "brique", "--seed", "abc"], "Invalid value for '--seed'"),
        (["match", "brique", "--jobs", "x"], "Invalid value for '--jobs'"),
        (["nosuch"], "No such command 'nosuch'"),
        (["gtp"], "Missing argument"),
        (["gtp", "brique", "--nosuch"], "No such option: --nosuch"),
    ],
)
def test_every_cli_error_is_one_line_with_status_2(argv: list[str], message: str) -> None:
    result = CliRunner().invoke(app, argv, input="")
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gtpgames: ") and message in lines[0]


def test_help_still_works() -> None:
    result = CliRunner().invoke(app, ["gtp", "--help"])
    assert result.exit_code == 0 and "--playouts" in result.stdout
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0 and "gtp" in result.stdout


def test_same_size_twice_is_no_conflict() -> None:
    result = CliRunner().invoke(app, ["gtp", "brique", "--size", "7", "-o", "size=7"],
                                input="gtpgames-game\n")
    assert result.exit_code == 0 and result.stdout == "= brique size=7 pie=on\n\n"
