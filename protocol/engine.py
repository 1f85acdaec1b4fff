"""The GTP dispatcher: one handler table, the only command registry.

``list_commands`` and ``known_command`` read the table, so the command list can never drift
from what is dispatched (gomill's gtp_engine shape). A handler takes the argument tuple and
returns the response text, or raises :class:`~protocol.gtp.GtpError` for ``? message``. Any other
exception answers ``? internal error`` with the traceback on stderr; the session goes on.
"""

from __future__ import annotations

import io
import os
import queue
import select
import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Mapping
from typing import IO

from protocol.gtp import (
    Command,
    GtpError,
    clip_message,
    format_response,
    parse_command,
    preprocess,
)

Handler = Callable[[tuple[str, ...]], str]


class GtpEngine:
    """Dispatches GTP commands to handlers; knows nothing of games."""

    def __init__(self, name: str, version: str, log: IO[str] | None = None) -> None:
        self.name = name
        self.version = version
        self.log = log if log is not None else sys.stderr
        self.quit_requested = False
        #: Set when an ``# interrupt`` line arrives (GoGui's interrupt) while a command runs
        #: or waits to run; cleared when the command has answered. An interrupt that arrives
        #: while the engine is idle is ignored: there is nothing to stop.
        self.interrupt = threading.Event()
        #: Command lines read but not started yet, and whether the input has ended: what
        #: "until the next command arrives" (analysis) watches.
        self._waiting = 0
        self._ended = False
        #: Whether a command read by :meth:`serve` is running now.
        self._running = False
        #: Set when the controller has gone: the input has ended and nobody reads the output
        #: any more (a closed pipe). Long work stops, and serving ends.
        self.gone = threading.Event()
        self._count_lock = threading.Lock()
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        #: Streaming (see :meth:`stream`): where parts go while serving, the running
        #: command's response head, whether it was written, and the parts kept in-process.
        self._sink: Callable[[str], None] | None = None
        self._stream_head = "="
        self._streaming = False
        self._streamed: list[str] = []
        self.handlers: dict[str, Handler] = {
            "protocol_version": lambda args: "2",
            "name": lambda args: self.name,
            "version": lambda args: self.version,
            "known_command": self._known_command,
            "list_commands": lambda args: "\n".join(sorted(self.handlers)),
            "quit": self._quit,
        }

    def add_commands(self, handlers: Mapping[str, Handler]) -> None:
        self.handlers.update(handlers)

    def _known_command(self, args: tuple[str, ...]) -> str:
        if len(args) != 1:
            raise GtpError("syntax error: known_command takes one command name")
        return "true" if args[0] in self.handlers else "false"

    def _quit(self, args: tuple[str, ...]) -> str:
        self.quit_requested = True
        return ""

    def run_command(self, command: Command) -> tuple[bool, str]:
        """Run one parsed command: (success, text)."""
        handler = self.handlers.get(command.name)
        if handler is None:
            name = command.name or "(none)"
            return False, clip_message(f"unknown command: {name}")
        try:
            return True, handler(command.args)
        except GtpError as error:
            return False, clip_message(str(error) or "failed")
        except Exception:
            print(f"internal error in {command.name}:", file=self.log)
            traceback.print_exc(file=self.log)
            self.log.flush()
            return False, "internal error"

    def handle_line(self, line: str) -> str | None:
        """The framed response to one input line, or ``None`` if the line is ignored.

        If the command streamed part of its response (:meth:`stream`) while serving, only
        the rest is returned (the streamed part is already written). Whatever the line, it
        gets exactly one response (or none when it is empty or a comment)."""
        text = preprocess(line)
        if text is None:
            return None
        try:
            command = parse_command(text)
        except Exception:
            print("internal error while parsing a command line:", file=self.log)
            traceback.print_exc(file=self.log)
            self.log.flush()
            return format_response(None, False, "internal error")
        self._stream_head = "=" + (command.id or "")
        self._streaming = False
        self._streamed = []
        success, body = self.run_command(command)
        if not self._streaming:
            return format_response(command.id, success, body)
        self._streaming = False
        # the head is written: a late failure can only be reported as a line of text
        rest = format_response(None, True, body if success else f"error: {body}")[2:]
        tail = rest if rest != "\n\n" else "\n"
        return "".join(self._streamed) + tail

    def stream(self, text: str) -> None:
        """Write lines of the running command's (successful) response now, flushed: the
        head ``=[id]`` on a line of its own first, then ``text`` without empty lines. The
        handler's return value then ends the response, which ends with one empty line
        as always (lz-analyze framing). Handlers check their arguments before streaming."""
        lines = [line.rstrip() for line in text.replace("\r", "").split("\n")]
        chunk = "".join(line + "\n" for line in lines if line)
        if not chunk:
            return
        if not self._streaming:
            self._streaming = True
            chunk = self._stream_head + "\n" + chunk
        if self._sink is not None:
            self._sink(chunk)
        else:
            self._streamed.append(chunk)

    def should_stop(self) -> bool:
        """Whether a running search should stop now: GoGui sent ``# interrupt``, or the
        controller has gone (:attr:`gone`). Commands already waiting do not stop it (a
        controller may pipeline its commands)."""
        return self.interrupt.is_set() or self.gone.is_set()

    def input_waiting(self) -> bool:
        """Whether the next command has arrived (or the input has ended, or GoGui
        interrupted): what a command that runs "until the next command" watches."""
        return self._waiting > 0 or self._ended or self.should_stop()

    def _read(self, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        for raw in input_lines(stdin):
            if raw.strip() == b"# interrupt":
                with self._count_lock:
                    if self._running or self._waiting:
                        self.interrupt.set()
                continue
            is_command = preprocess(raw.decode("utf-8", errors="replace")) is not None
            with self._count_lock:
                self._waiting += is_command
            self._lines.put(raw)
        self._ended = True
        self._lines.put(None)
        if output_closed(stdout):
            self.gone.set()

    def serve(self, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        """Read commands until ``quit`` or end of input, writing only framed responses to
        ``stdout`` and flushing after each one.

        A reader thread takes the lines off ``stdin`` as they arrive, so that a running
        command can see that it is interrupted (:meth:`should_stop`) or that the next
        command is waiting (:meth:`input_waiting`)."""
        reader = threading.Thread(target=self._read, args=(stdin, stdout), daemon=True)
        reader.start()

        def sink(chunk: str) -> None:
            try:
                stdout.write(chunk.encode("utf-8", errors="replace"))
                stdout.flush()
            except (BrokenPipeError, ValueError):  # nobody reads the answers any more
                self.gone.set()

        self._sink = sink
        while (raw := self._lines.get()) is not None and not self.gone.is_set():
            line = raw.decode("utf-8", errors="replace").rstrip("\n")
            is_command = preprocess(line) is not None
            with self._count_lock:
                self._waiting -= is_command
                self._running = is_command
            response = self.handle_line(line)
            with self._count_lock:
                self.interrupt.clear()
                self._running = False
            if response is None:
                continue
            sink(response)
            if self.quit_requested or self.gone.is_set():
                break

def output_closed(stdout: IO[bytes]) -> bool:
    """Wait until nobody can read ``stdout`` any more (a pipe whose reading end is closed,
    a socket hung up) and answer True; False at once when that cannot be known (a file, a
    terminal, an in-memory stream, a system without poll). Blocks its thread."""
    try:
        fd = stdout.fileno()
        poller = select.poll()
    except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
        return False
    poller.register(fd, select.POLLERR | select.POLLHUP)
    while not poller.poll():
        pass
    return True


def input_lines(stdin: IO[bytes]) -> Iterator[bytes]:
    """The lines of ``stdin`` as they arrive. A real file descriptor is read with
    ``os.read``, not through the buffered reader: a daemon thread blocked inside a buffered
    read would hold its lock and abort the interpreter at exit."""
    try:
        fd = stdin.fileno()
    except (OSError, AttributeError, io.UnsupportedOperation):
        yield from stdin
        return
    pending = bytearray()
    while chunk := os.read(fd, 65536):
        start = len(pending)
        pending += chunk
        end = pending.find(b"\n", start)
        while end >= 0:
            yield bytes(pending[: end + 1])
            del pending[: end + 1]
            end = pending.find(b"\n")
    if pending:
        yield bytes(pending)
