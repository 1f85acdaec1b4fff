"""GTP 2 framing: preprocessing, ids, response format, the handler table (spec section 2,
and the required commands of section 6 that do not depend on a game)."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest

from protocol.engine import GtpEngine
from protocol.gtp import Command, format_response, parse_command, preprocess
from tests.gtp_helpers import check, serve_bytes


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("name", "name"),
        ("  name  ", "  name  "),
        ("name # comment", "name "),
        ("# only a comment", None),
        ("", None),
        ("   ", None),
        ("\t", None),
        ("na\rme", "name"),
        ("na\x00me\x07", "name"),
        ("play\tb\tc3", "play b c3"),
        ("na\x7fme", "name"),
        ("\x01\x02", None),
        ("# play b c3", None),
    ],
)
def test_preprocess(line: str, expected: str | None) -> None:
    assert preprocess(line) == expected


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("name", Command(None, "name", ())),
        ("12 name", Command("12", "name", ())),
        ("0 play b c3", Command("0", "play", ("b", "c3"))),
        ("  3   play  b   c3 ", Command("3", "play", ("b", "c3"))),
        ("x3 name", Command(None, "x3", ("name",))),
        ("-3 name", Command(None, "-3", ("name",))),
        ("7", Command("7", "", ())),
        ("011 name", Command("11", "name", ())),
        ("\u0663 name", Command(None, "\u0663", ("name",))),
    ],
)
def test_parse_command(line: str, command: Command) -> None:
    assert parse_command(line) == command


@pytest.mark.parametrize(
    ("cid", "success", "text", "framed"),
    [
        (None, True, "", "= \n\n"),
        ("5", True, "2", "=5 2\n\n"),
        ("5", False, "unknown command", "?5 unknown command\n\n"),
        (None, True, "\nline 1\n\nline 2\n", "= \nline 1\nline 2\n\n"),
        (None, True, "a  \nb\t ", "= a\nb\n\n"),
        (None, False, "bad\r\n\nthing", "? bad\nthing\n\n"),
    ],
)
def test_format_response(cid: str | None, success: bool, text: str, framed: str) -> None:
    assert format_response(cid, success, text) == framed


def engine() -> GtpEngine:
    return GtpEngine("testengine", "9.9", log=io.StringIO())


@pytest.mark.parametrize(
    ("line", "response"),
    [
        ("protocol_version", "= 2\n\n"),
        ("1 protocol_version", "=1 2\n\n"),
        ("name", "= testengine\n\n"),
        ("42 version", "=42 9.9\n\n"),
        ("known_command name", "= true\n\n"),
        ("known_command nosuch", "= false\n\n"),
        ("3 known_command", "?3 syntax error: known_command takes one command name\n\n"),
        ("nosuch", "? unknown command: nosuch\n\n"),
        ("9 nosuch arg", "?9 unknown command: nosuch\n\n"),
        ("7", "?7 unknown command: (none)\n\n"),
        ("NAME", "? unknown command: NAME\n\n"),
        ("# comment", None),
        ("", None),
    ],
)
def test_dispatcher(line: str, response: str | None) -> None:
    check(engine(), line, response)


def test_list_commands_reads_the_handler_table() -> None:
    gtp = engine()
    gtp.add_commands({"zzz-extra": lambda args: "x"})
    response = gtp.handle_line("list_commands")
    assert response is not None
    names = response[2:-2].split("\n")
    assert names == sorted(gtp.handlers)
    assert "zzz-extra" in names
    for name in names:
        assert gtp.handle_line(f"known_command {name}") == "= true\n\n"


def test_internal_error_is_reported_and_session_goes_on() -> None:
    log = io.StringIO()
    gtp = GtpEngine("t", "1", log=log)

    def boom(args: tuple[str, ...]) -> str:
        raise ZeroDivisionError("deliberate")

    gtp.add_commands({"boom": boom})
    check(gtp, "5 boom", "?5 internal error\n\n")
    assert "ZeroDivisionError: deliberate" in log.getvalue()
    check(gtp, "name", "= t\n\n")


def test_serve_stops_at_quit_and_frames_everything() -> None:
    data = b"1 name\r\n\r\n# c\n\tversion\t\nquit\nname\n"
    assert serve_bytes(engine(), data) == b"=1 testengine\n\n= 9.9\n\n= \n\n"


def test_serve_handles_end_of_input_without_newline() -> None:
    assert serve_bytes(engine(), b"name") == b"= testengine\n\n"


def test_serve_survives_binary_junk() -> None:
    out = serve_bytes(engine(), b"\xff\xfe\x00name\n\x80\x81\n2 version\n")
    junk = "\ufffd\ufffd".encode()
    assert out == (
        b"? unknown command: " + junk + b"name\n\n? unknown command: " + junk + b"\n\n=2 9.9\n\n"
    )


def spinning_engine() -> GtpEngine:
    """An engine whose ``spin`` command runs until GoGui interrupts it and whose ``wait``
    command runs until the next command arrives (at most 2 s each)."""
    import time

    gtp = engine()

    def until(check: Callable[[], bool]) -> str:
        deadline = time.monotonic() + 2
        while not check():
            if time.monotonic() > deadline:
                return "not interrupted"
            time.sleep(0.001)
        return "interrupted"

    gtp.add_commands({
        "spin": lambda args: until(gtp.should_stop),
        "wait": lambda args: until(gtp.input_waiting),
    })
    return gtp


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        # GoGui's interrupt: a "# interrupt" line stops the running command and gets no
        # response of its own
        (b"1 spin\n# interrupt\n2 name\n", b"=1 interrupted\n\n=2 testengine\n\n"),
        # pipelined commands do not stop a search (a script may send all its lines at once)
        (b"1 spin\n2 name\n", b"=1 not interrupted\n\n=2 testengine\n\n"),
        # "until the next command arrives" (analysis) sees the next command...
        (b"1 wait\n2 name\n", b"=1 interrupted\n\n=2 testengine\n\n"),
        # ... and the end of the input (a comment or a blank line is no command)
        (b"1 wait\n# a comment\n\n", b"=1 interrupted\n\n"),
        # an interrupt is spent with the command it stopped
        (b"1 spin\n# interrupt\n2 spin\n", b"=1 interrupted\n\n=2 not interrupted\n\n"),
    ],
)
def test_running_command_sees_interrupts(data: bytes, expected: bytes) -> None:
    assert serve_bytes(spinning_engine(), data) == expected
