"""The GTP dispatcher: one handler table, the only command registry.

``list_commands`` and ``known_command`` read the table, so the command list can never drift
from what is dispatched (gomill's gtp_engine shape). A handler takes the argument tuple and
returns the response text, or raises :class:`~protocol.gtp.GtpError` for ``? message``. Any other
exception answers ``? internal error`` with the traceback on stderr; the session goes on.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable, Mapping
from typing import IO

from protocol.gtp import Command, GtpError, format_response, parse_command, preprocess

Handler = Callable[[tuple[str, ...]], str]


class GtpEngine:
    """Dispatches GTP commands to handlers; knows nothing of games."""

    def __init__(self, name: str, version: str, log: IO[str] | None = None) -> None:
        self.name = name
        self.version = version
        self.log = log if log is not None else sys.stderr
        self.quit_requested = False
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
            return False, f"unknown command: {name}"
        try:
            return True, handler(command.args)
        except GtpError as error:
            return False, str(error) or "failed"
        except Exception:
            print(f"internal error in {command.name}:", file=self.log)
            traceback.print_exc(file=self.log)
            self.log.flush()
            return False, "internal error"

    def handle_line(self, line: str) -> str | None:
        """The framed response to one input line, or ``None`` if the line is ignored."""
        text = preprocess(line)
        if text is None:
            return None
        command = parse_command(text)
        success, body = self.run_command(command)
        return format_response(command.id, success, body)

    def serve(self, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        """Read commands until ``quit`` or end of input, writing only framed responses to
        ``stdout`` and flushing after each one."""
        for raw in stdin:
            line = raw.decode("utf-8", errors="replace").rstrip("\n")
            response = self.handle_line(line)
            if response is None:
                continue
            stdout.write(response.encode("utf-8", errors="replace"))
            stdout.flush()
            if self.quit_requested:
                break
