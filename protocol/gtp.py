"""GTP version 2 framing (Farnebäck, draft 2): pure line parsing and response formatting.

No I/O and no state here. Section 2 of the spec:

* control characters other than HT and LF are removed (CR included), everything from ``#`` to
  the end of the line is a comment, HT becomes a space, and a line left empty or blank is
  ignored (it gets no response); white space is the ASCII space and tab only (a no-break
  space is part of a word);
* a command is ``[id] command_name [arguments]`` where the optional id is an unsigned integer
  (ASCII digits, any length), echoed in decimal without leading zeros (``011`` is echoed as
  ``11``, as GNU Go does);
* a response is ``=`` or ``?``, the id if the command had one, a space, the text, and ends with
  exactly one empty line (two newlines); a multi-line response never contains an empty line.
"""

from __future__ import annotations

import dataclasses
import re

_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_ID = re.compile(r"[0-9]+")
#: Longest piece of input echoed in an error message (:func:`clip_message`).
ECHO_LIMIT = 40
_LONG_WORD = re.compile(f"[^ \\n]{{{ECHO_LIMIT + 1},}}")


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
    return line if line.strip(" ") else None


def parse_command(line: str) -> Command:
    """Split a preprocessed, non-empty line into id, command name and arguments.

    A line consisting only of an id has an empty command name (answered as an unknown
    command by the dispatcher)."""
    words = [word for word in line.split(" ") if word]
    command_id: str | None = None
    if words and _ID.fullmatch(words[0]):
        command_id = words.pop(0).lstrip("0") or "0"
    if not words:
        return Command(command_id, "", ())
    return Command(command_id, words[0], tuple(words[1:]))


def format_response(command_id: str | None, success: bool, text: str) -> str:
    """The framed response: ``=id text`` or ``?id text``, ending with one empty line.

    Empty lines inside ``text`` are dropped and trailing spaces and tabs are cut, so the
    response's framing can never be broken by its content."""
    lines = [line.rstrip(" \t") for line in text.replace("\r", "").split("\n")]
    body = "\n".join([lines[0], *(line for line in lines[1:] if line)])
    head = ("=" if success else "?") + (command_id or "")
    return f"{head} {body}\n\n"


def clip_message(message: str) -> str:
    """An error message with every piece of echoed input longer than :data:`ECHO_LIMIT`
    characters cut to that many and ``...``: a huge bad token is not sent back whole."""
    return _LONG_WORD.sub(lambda match: match.group()[:ECHO_LIMIT] + "...", message)
