"""End-to-end: the real ``gtpgames gtp`` process driven through pexpect over pipes, as a
GTP controller drives it."""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from pexpect.popen_spawn import PopenSpawn

SCRIPT = Path(sys.executable).with_name("gtpgames")
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "gtpgames"]


@functools.cache
def warm(game: str) -> None:
    """Load (on a cold cache: compile) ``game``'s kernel through the command the tests spawn,
    with no time bound, so that a spawned engine finds it in the cache. Through the command,
    not in this process: an installed copy of the sources and the source tree are different
    files to numba's cache, and a child would compile them again."""
    subprocess.run([*COMMAND, "warmup", game], capture_output=True, timeout=600, check=True)


def spawn(*args: str) -> PopenSpawn:
    return PopenSpawn([*COMMAND, "gtp", *args], timeout=20, encoding=None)


def exchange(proc: PopenSpawn, data: bytes) -> bytes:
    """Send bytes and read one framed response (up to its empty line)."""
    proc.send(data)
    proc.expect(b"\n\n")
    return bytes(proc.before) + b"\n\n"


def test_console_script_is_installed() -> None:
    assert SCRIPT.exists() or shutil.which("gtpgames")


def test_session_framing_over_pipes() -> None:
    warm("brique")  # genmove below waits for the kernel
    proc = spawn("brique", "--size", "5", "--seed", "1")
    assert exchange(proc, b"1 protocol_version\n") == b"=1 2\n\n"
    assert exchange(proc, b"# a comment line\n\n   \n2 name # trailing comment\n") == (
        b"=2 gtpgames\n\n"
    )
    assert exchange(proc, b"3 play b c3\r\n") == b"=3 \n\n"
    assert exchange(proc, b"4\tplay\tw\tc3\n") == b"?4 illegal move: c3 is occupied by Black\n\n"
    assert exchange(proc, b"frobnicate\n") == b"? unknown command: frobnicate\n\n"
    assert exchange(proc, b"5 play w\n") == (
        b"?5 syntax error: expected 2 arguments, got 1 (play COLOR MOVE)\n\n"
    )
    assert exchange(proc, b"6 play x c3\n") == b"?6 syntax error: invalid color 'x'\n\n"
    board = exchange(proc, b"showboard\n")
    assert board.startswith(b"= \n") and b"\n\n" not in board[:-2]
    move = exchange(proc, b"7 genmove w\n")
    assert move.startswith(b"=7 ") and len(move.split()) == 2
    assert exchange(proc, b"8 undo\n") == b"=8 \n\n"
    assert exchange(proc, b"9 quit\n") == b"=9 \n\n"
    proc.expect(pexpect.EOF)
    assert proc.wait() == 0


def test_end_of_input_exits_cleanly() -> None:
    proc = spawn("brique")
    assert exchange(proc, b"protocol_version\n") == b"= 2\n\n"
    proc.sendeof()
    proc.expect(pexpect.EOF)
    assert proc.wait() == 0


def test_stdout_carries_only_responses() -> None:
    # The genmove waits for the Brique kernel, and a cold cache would compile it (a line on
    # stderr when it starts and ends): compile it first, in the cache the process shares.
    warm("brique")
    script = b"1 name\nplay b a1\nnosuch\n2 genmove w\nshowboard\nquit\n"
    done = subprocess.run(
        [*COMMAND, "gtp", "brique", "--seed", "3"], input=script, capture_output=True,
        timeout=30, check=True,
    )
    blocks = done.stdout.split(b"\n\n")
    assert blocks[-1] == b""
    responses = blocks[:-1]
    assert len(responses) == 6
    for block in responses:
        assert block[:1] in (b"=", b"?")
    assert done.stderr == b""


def test_bad_cli_arguments_fail_on_stderr() -> None:
    done = subprocess.run([*COMMAND, "gtp", "nosuchgame"], capture_output=True, timeout=30)
    assert done.returncode == 2
    assert done.stdout == b""
    assert b"unknown game 'nosuchgame'" in done.stderr
    done = subprocess.run([*COMMAND, "gtp", "brique", "--size", "2"], capture_output=True,
                          timeout=30)
    assert done.returncode == 2 and b"option size" in done.stderr


def test_games_command_lists_games() -> None:
    done = subprocess.run([*COMMAND, "games"], capture_output=True, timeout=30, check=True)
    assert b"brique" in done.stdout and b"size=11" in done.stdout


@pytest.mark.parametrize("module", [True, False])
def test_answers_after_start(module: bool) -> None:
    """Both entry points start and answer (start-up time is measured by
    scripts/bench_startup.py, not asserted here)."""
    command = [sys.executable, "-m", "gtpgames"] if module else COMMAND
    done = subprocess.run([*command, "gtp", "brique"], input=b"protocol_version\n",
                          capture_output=True, timeout=30, check=True)
    assert done.stdout == b"= 2\n\n"
