"""A GTP engine run as a subprocess for the match runner, driven through pexpect.

The engine is described by an :class:`EngineSpec` (``name=rnd1 cmd='gtpgames gtp brique'``).
:class:`GtpProcess` sends one command at a time and reads one GTP 2 response (``=``/``?``, an
optional id, the text, one empty line). A dead process, a response that does not arrive within
the deadline, or output that is not a GTP response raises :class:`EngineFailure` with the kind
``crash``, ``timeout`` or ``garbage``; the caller then scores the game and restarts the engine.
The engine's stderr goes to a log file or is discarded, never into the GTP stream.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import pexpect  # type: ignore[import-untyped]
from pexpect.popen_spawn import PopenSpawn  # type: ignore[import-untyped]

FailureKind = Literal["crash", "timeout", "garbage"]

_END = re.compile(rb"\r?\n\r?\n")
_RESPONSE = re.compile(rb"^([=?])(\d*)(?:[ \t]|$)(.*)\Z", re.S)


class EngineFailure(Exception):
    def __init__(self, kind: FailureKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclasses.dataclass(frozen=True)
class EngineSpec:
    """How to start one engine: a unique name, the command line, an optional working
    directory and stderr log file."""

    name: str
    cmd: tuple[str, ...]
    dir: str | None = None
    stderr: str | None = None

    @classmethod
    def parse(cls, text: str) -> EngineSpec:
        """``name=NAME cmd='COMMAND LINE' [dir=DIR] [stderr=FILE]`` (shell quoting);
        a text without ``=`` is taken as the command line, named after its program."""
        words = shlex.split(text)
        if words and not any("=" in word for word in words[:1]):
            return cls(Path(words[0]).name, tuple(words))
        fields: dict[str, str] = {}
        for word in words:
            key, sep, value = word.partition("=")
            if not sep or key not in ("name", "cmd", "dir", "stderr"):
                raise ValueError(
                    f"--engine: expected name=, cmd=, dir= or stderr=, got {word!r} in {text!r}"
                )
            fields[key] = value
        if not fields.get("cmd"):
            raise ValueError(f"--engine: cmd= is missing in {text!r}")
        command = tuple(shlex.split(fields["cmd"]))
        name = fields.get("name") or Path(command[0]).name
        return cls(name, command, fields.get("dir"), fields.get("stderr"))


def stderr_to(path: str | os.PathLike[str] | None) -> Callable[[], None]:
    """A ``preexec_fn`` that sends the child's stderr to the end of file ``path`` (by
    default nowhere). ``PopenSpawn`` would merge it into stdout, the stream of responses,
    where an engine's log line would be read as (part of) an answer."""
    target = os.devnull if path is None else os.fspath(path)

    def redirect() -> None:  # runs in the child, before exec
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(fd, 2)
        os.close(fd)

    return redirect


class GtpProcess:
    """One running engine process."""

    def __init__(self, spec: EngineSpec, timeout: float = 30.0) -> None:
        self.spec = spec
        self.timeout = timeout
        self._known: dict[str, bool] = {}
        try:
            self.proc = PopenSpawn(list(spec.cmd), timeout=timeout, encoding=None,
                                   cwd=spec.dir, preexec_fn=stderr_to(spec.stderr))
        except (OSError, subprocess.SubprocessError) as error:
            raise EngineFailure("crash", f"{spec.name}: cannot start: {error}") from None

    def send(self, command: str, timeout: float | None = None) -> tuple[bool, str]:
        """Send one command; (success, response text). Output the engine sent before the
        command (a second answer to an earlier one) is ``garbage``: it would be read as the
        answer to this one."""
        self._check_unrequested(command)
        try:
            self.proc.send(command.encode("utf-8") + b"\n")
        except OSError as error:
            raise EngineFailure("crash", f"{self.spec.name}: {error}") from None
        try:
            self.proc.expect(_END, timeout=self.timeout if timeout is None else timeout)
        except pexpect.TIMEOUT:
            raise EngineFailure(
                "timeout", f"{self.spec.name}: no response to {command!r} in time"
            ) from None
        except pexpect.EOF:
            raise EngineFailure(
                "crash", f"{self.spec.name}: exited during {command!r}"
            ) from None
        before = self.proc.before
        raw = (before if isinstance(before, bytes) else b"").lstrip(b"\r\n")
        match = _RESPONSE.match(raw)
        if match is None:
            shown = raw[:60].decode("utf-8", errors="replace")
            raise EngineFailure(
                "garbage", f"{self.spec.name}: not a GTP response to {command!r}: {shown!r}"
            )
        text = match.group(3).decode("utf-8", errors="replace").replace("\r", "").strip()
        return match.group(1) == b"=", text

    def _check_unrequested(self, command: str) -> None:
        pending = self.proc.buffer
        try:
            pending += self.proc.read_nonblocking(4096, 0.001)
        except pexpect.EOF:
            pass  # the engine has exited: the command will find out
        if pending.strip():
            self.proc.buffer = b""
            shown = pending.strip()[:60].decode("utf-8", errors="replace")
            raise EngineFailure(
                "garbage",
                f"{self.spec.name}: output nobody asked for before {command!r} (an earlier "
                f"command answered twice?): {shown!r}",
            )

    def known(self, command: str) -> bool:
        """Whether the engine knows ``command`` (``known_command``, cached)."""
        if command not in self._known:
            ok, text = self.send(f"known_command {command}")
            self._known[command] = ok and text.strip().lower() == "true"
        return self._known[command]

    def close(self) -> None:
        """Ask the engine to quit; kill it if it does not go within a second."""
        proc = self.proc.proc
        if proc.poll() is None:
            try:
                self.proc.send(b"quit\n")
            except OSError:
                pass
            deadline = time.monotonic() + 1.0
            while proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.01)
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()
