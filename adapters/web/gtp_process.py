"""An asyncio client of one ``gtpgames gtp GAME`` process: send a command, read its framed
response (GTP 2: ``=``/``?`` head, ended by an empty line), stream the lines of a long
response (``gtpgames-genmove_analyze``), interrupt a search, end the process."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable, Sequence

#: The engine's answer to one command: success, and the text after ``=``/``?``.
Response = tuple[bool, str]


class EngineGone(RuntimeError):
    """The engine process ended or stopped answering."""


class GtpProcess:
    """One engine process. Commands are serialised: one runs at a time."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.lock = asyncio.Lock()

    @classmethod
    async def start(cls, args: Sequence[str]) -> GtpProcess:
        """Start ``python -m gtpgames gtp ARGS...`` (stderr is dropped: logs only)."""
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "gtpgames", "gtp", *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        return cls(proc)

    async def _write(self, text: str) -> None:
        stdin = self.proc.stdin
        if stdin is None or stdin.is_closing():
            raise EngineGone("the engine has ended")
        stdin.write(text.encode("utf-8"))
        try:
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as error:
            raise EngineGone("the engine has ended") from error

    async def _line(self) -> str:
        assert self.proc.stdout is not None
        raw = await self.proc.stdout.readline()
        if not raw:
            raise EngineGone("the engine has ended")
        return raw.decode("utf-8", errors="replace").rstrip("\r\n")

    async def command(
        self, line: str, on_line: Callable[[str], Awaitable[None]] | None = None
    ) -> Response:
        """Send one command line (no newline inside) and return its response. Each line of
        the body is also passed to ``on_line`` as it arrives (streamed responses)."""
        if "\n" in line or "\r" in line:
            raise ValueError("a GTP command is one line")
        async with self.lock:
            await self._write(line + "\n")
            head = await self._line()
            while not head.startswith(("=", "?")):
                head = await self._line()
            ok = head.startswith("=")
            first = head[1:].lstrip("0123456789")
            body = [first[1:] if first.startswith(" ") else first] if first.strip() else []
            if body and on_line is not None:
                await on_line(body[0])
            while (text := await self._line()) != "":
                body.append(text)
                if on_line is not None:
                    await on_line(text)
            return ok, "\n".join(body)

    async def interrupt(self) -> None:
        """GoGui's interrupt: a running search answers now with its best move so far."""
        await self._write("# interrupt\n")

    async def close(self, timeout: float = 2.0) -> None:
        """Say ``quit`` and wait; kill the process if it does not end in ``timeout``."""
        try:
            if self.proc.returncode is None:
                await self._write("# interrupt\nquit\n")
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            await asyncio.wait_for(self.proc.wait(), timeout)
        except (EngineGone, TimeoutError, OSError):
            if self.proc.returncode is None:
                self.proc.kill()
                await self.proc.wait()
        # read the output to its end (of an engine that ended by itself too): the transport
        # closes with its last pipe
        if self.proc.stdout is not None:
            with contextlib.suppress(TimeoutError, OSError):
                await asyncio.wait_for(self.proc.stdout.read(), timeout)
