"""End-to-end: the real ``gtpgames gtp`` process driven through pexpect over pipes, as a
GTP controller drives it."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest
from pexpect.popen_spawn import PopenSpawn

from adapters.match_engine import stderr_to
from engine.search.kernels import cache

SCRIPT = Path(sys.executable).with_name("gtpgames")
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "gtpgames"]


@functools.cache
def warm(game: str) -> None:
    """Load (on a cold cache: compile) ``game``'s kernel through the command the tests spawn,
    with no time bound, so that a spawned engine finds it in the cache. Through the command,
    not in this process: an installed copy of the sources and the source tree are different
    files to numba's cache, and a child would compile them again."""
    subprocess.run([*COMMAND, "warmup", game], capture_output=True, timeout=600, check=True)


def spawn(*args: str, stderr: Path | None = None, command: str = "gtp", timeout: float = 20,
          encoding: str | None = None) -> PopenSpawn:
    """``gtpgames COMMAND ARGS`` on pipes, as a controller runs it: stdout is read, stderr goes
    to the file ``stderr`` (by default nowhere), not into the responses."""
    return PopenSpawn([*COMMAND, command, *args], timeout=timeout, encoding=encoding,
                      preexec_fn=stderr_to(stderr))


def notices_only(stderr: bytes) -> bool:
    """Whether ``stderr`` holds nothing but the program's own notices (such as a wait for
    another process compiling the same kernels: the test run compiles them in the
    background), one a line: no traceback, no stray output."""
    return all(line.startswith(b"gtpgames: ") for line in stderr.splitlines())


def exchange(proc: PopenSpawn, data: bytes) -> bytes:
    """Send bytes and read one framed response (up to its empty line)."""
    proc.send(data)
    proc.expect(b"\n\n")
    return bytes(proc.before) + b"\n\n"


def test_console_script_is_installed() -> None:
    assert SCRIPT.exists() or shutil.which("gtpgames")


def test_session_framing_over_pipes(tmp_path: Path) -> None:
    warm("brique")  # genmove below waits for the kernel
    log = tmp_path / "stderr"
    proc = spawn("brique", "--size", "5", "--seed", "1", stderr=log)
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
    assert notices_only(log.read_bytes())


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
    assert notices_only(done.stderr)


def test_a_notice_while_waiting_goes_to_stderr_only(tmp_path: Path) -> None:
    """While another process holds the kernels' compile lock, a genmove that needs them says
    so on stderr, and its response on stdout is as ever."""
    warm("brique")
    log = tmp_path / "stderr"
    proc = spawn("brique", "--size", "5", "--seed", "1", stderr=log)
    assert exchange(proc, b"1 name\n") == b"=1 gtpgames\n\n"
    with cache.compile_lock("brique"):
        proc.send(b"2 genmove b\n")
        deadline = time.monotonic() + 20
        while b"waiting for another compilation" not in log.read_bytes():
            assert time.monotonic() < deadline, log.read_bytes()
            time.sleep(0.05)
    proc.expect(b"\n\n")
    assert re.fullmatch(rb"=2 [a-e][1-5]", bytes(proc.before))
    assert exchange(proc, b"3 quit\n") == b"=3 \n\n"
    assert notices_only(log.read_bytes())


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
