"""GTP version 2 framing (Farnebäck, draft 2): pure line parsing and response formatting.

No I/O and no state here. Section 2 of the spec:

* control characters other than HT and LF are removed (CR included), everything from ``#`` to
  the end of the line is a comment, HT becomes a space, and a line left empty or blank is
  ignored (it gets no response);
* a command is ``[id] command_name [arguments]`` where the optional id is an unsigned integer,
  echoed in decimal without leading zeros (``011`` is echoed as ``11``, as GNU Go does);
* a response is ``=`` or ``?``, the id if the command had one, a space, the text, and ends with
  exactly one empty line (two newlines); a multi-line response never contains an empty line.
"""

from __future__ import annotations

import dataclasses
import re

_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


class GtpError(Exception):
    """A command failure: the message becomes ``? message``."""


@dataclasses.dataclass(frozen=True)
class Command:
    id: str | None
    name: str
    args: tuple[str, ...]


def preprocess(line: str) -> str | None:
    """Apply the spec's input preprocessing to one line (without its LF); ``None`` if nothing
    remains."""
    line = line.split("#", 1)[0]
    line = _CONTROL.sub("", line).replace("\t", " ")
    return line if line.strip() else None


def parse_command(line: str) -> Command:
    """Split a preprocessed, non-empty line into id, command name and arguments.

    A line consisting only of an id has an empty command name (answered as an unknown
    command by the dispatcher)."""
    words = line.split()
    command_id: str | None = None
    if words and words[0].isdigit() and words[0].isascii():
        command_id = str(int(words.pop(0)))
    if not words:
        return Command(command_id, "", ())
    return Command(command_id, words[0], tuple(words[1:]))


def format_response(command_id: str | None, success: bool, text: str) -> str:
    """The framed response: ``=id text`` or ``?id text``, ending with one empty line.

    Empty lines inside ``text`` are dropped and trailing white space is cut, so the
    response's framing can never be broken by its content."""
    lines = [line.rstrip() for line in text.replace("\r", "").split("\n")]
    body = "\n".join([lines[0], *(line for line in lines[1:] if line)])
    head = ("=" if success else "?") + (command_id or "")
    return f"{head} {body}\n\n"
