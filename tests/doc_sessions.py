"""The examples of README.md and docs/: find every fenced block, replay the GTP, UGI and
command-line examples through the real ``gtpgames`` process, and rebuild their text.

A block is an example when its first line is a command: ``$ gtpgames gtp ARGS`` (a GTP
session: each command, then its response, then an empty line), ``$ gtpgames ugi ARGS`` (a UGI
session: ``> `` lines sent, ``< `` lines received) or ``$ gtpgames ...`` (commands of the
command line, each followed by its output; a command may go on over lines ending in ``\\``).
GTP sessions are replayed as a controller plays them, one command at a time, each sent after
the previous answer; command-line examples run in an empty temporary directory. Every other
block must be listed in :data:`NOT_EXAMPLES` with the reason it is not replayed.

Where the output cannot be reproduced (times, paths), an HTML comment just before the block,
``<!-- varies: REGEX ; REGEX -->``, names the fields that vary: text matching a REGEX is left
out of the comparison, on both sides.

Used by tests/test_docs.py (check) and scripts/update_doc_sessions.py (rewrite).
"""

from __future__ import annotations

import dataclasses
import os
import re
import select
import shlex
import subprocess
import tempfile
import time
from pathlib import Path

from tests.protocol.test_e2e import COMMAND

ROOT = Path(__file__).parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```$", re.S | re.M)
VARIES = re.compile(r"<!-- varies: (.*?) -->\s*$")
TIMEOUT = 300.0

#: Blocks that are not examples of a command, by file and the start of their first line, with
#: the reason.
NOT_EXAMPLES: dict[tuple[str, str], str] = {
    ("README.md", "python3 -m venv .venv && .venv/bin/pip install . && "
     ".venv/bin/gtpgames gtp brique --seed 1 < examples/brique-selfplay.gtp"):
        "installation from the project directory",
    ("README.md", "python3 -m venv .venv && .venv/bin/pip install '.[test,cluster]' && "
     ".venv/bin/python -m pytest"): "installation and the test suite",
    ("docs/guide.md", "python3 -m venv .venv"): "installation",
    ("docs/guide.md", "gtpgames gtp brique                      # 11x11"):
        "engine command lines to give a GTP controller",
    ("docs/design/kernels.md", "gtpgames: compiling the Trisq search kernel"):
        "what stderr says during a cold compile (the test of the kernels checks the lines)",
    ("docs/design/layout.md", "engine/games/     the rules side"): "the source tree",
    ("docs/games/brax.md", 'gtpgames render brax --moves'):
        "the command that draws the picture above (tests/adapters/test_render.py keeps it fresh)",
    ("docs/games/bricka.md", 'gtpgames render bricka --moves'):
        "the command that draws the picture above (tests/adapters/test_render.py keeps it fresh)",
    ("docs/games/brique.md", 'gtpgames render brique --size 9 --moves'):
        "the command that draws the picture above (tests/adapters/test_render.py keeps it fresh)",
    ("docs/games/flicker.md", 'gtpgames render flicker --size 9 --moves'):
        "the command that draws the picture above (tests/adapters/test_render.py keeps it fresh)",
    ("docs/games/trisq.md", 'gtpgames render trisq --moves'):
        "the command that draws the picture above (tests/adapters/test_render.py keeps it fresh)",
    ("docs/protocol.md", "play b b2"): "an SVG answer cut short (tests/adapters/test_render.py)",
    ("docs/render.md", "gtpgames render GAME [--size N]"): "a synopsis",
    ("docs/web.md", "gtpgames serve [--host 127.0.0.1]"):
        "a synopsis (a server that runs until stopped)",
    ("docs/online.md", "gtpgames serve [--db URL]"):
        "a synopsis (a server that runs until stopped)",
    ("docs/online.md", "gtpgames serve                      #"):
        "starting a server (tests/adapters/online/test_store.py runs add-bot)",
    ("docs/online.md", "gtpgames bot --server"):
        "a bridge that needs a running server and a bot's token",
    ("docs/online.md", "gtpgames challenge --server"):
        "a scripted game that needs a running server and a token",
    ("docs/online.md", '{"game": "brique", "options"'):
        "a challenge as sent (tests/adapters/online/test_api.py sends them)",
    ("docs/online.md", '{"id": 12, "game": "brique"'):
        "a game record (tests/adapters/online/test_games.py reads them)",
    ("docs/render.md", 'gtpgames render brique --size 9 --moves "e5 d4 e4" -o brique.png'):
        "writes a PNG file (tests/adapters/test_render.py runs the command)",
    ("docs/rules/brax.md", "     A   B   C   D   E   F   G   H   I"): "the board drawn",
    ("docs/rules/bricka.md", " 13                     o-------o"): "the board drawn",
    ("docs/rules/bricka.md", "f13: h13 f12"): "the geometry as data",
    ("docs/rules/brique.md", ". b ."): "a diagram",
    ("docs/rules/brique.md", "4  L D L D"): "the board drawn",
    ("docs/rules/flicker.md", "3  . . x"): "a diagram",
    ("docs/rules/trisq.md", "      h                            v"): "the pieces drawn",
    ("docs/tournaments.md", "alpha$ ray start --head"):
        "starting a Ray cluster on two machines (tests/adapters/test_match_cluster.py starts "
        "one on this machine)",
    ("docs/games/brax.md", "     a   b   c   d   e   f   g   h   i"):
        "the start position drawn (the session below shows it from showboard)",
    ("docs/games/bricka.md", " 13                     o-------o"): "the board drawn",
    ("docs/games/trisq.md", "      h                            v"): "the pieces drawn",
    ("docs/gogui.md", "/path/to/venv/bin/gtpgames gtp brique --size 11 --time 2"):
        "command lines to enter in GoGui's program settings",
    ("docs/gogui.md", "gogui-gfx:"): "the form of GoGui's live graphics",
    ("docs/protocol.md", "gtpgames gtp GAME [--size N] [--option KEY=VALUE ...] "
     "[--player NAME] [--level L]"): "a synopsis",
    ("docs/tournaments.md", "# Brique 9x9, pie on, the swap as pass"):
        "runs of GoGui's gogui-twogtp, which is not part of this project",
    ("docs/tournaments.md", "gtpgames match GAME --engine SPEC --engine SPEC [...] [options]"):
        "a synopsis",
    ("docs/tournaments.md", "# a gauntlet of a new version against two references, 100 games "
     "each, 4 at a time"): "matches of hundreds of games with engines of another installation",
    ("docs/tournaments.md", '{"black": "a", "colours": ["b", "w", '):
        "a line of a match record (the match example above writes such lines)",
    ("docs/ugi.md", "gtpgames ugi GAME [--option KEY=VALUE ...] [--player mcts|random] "
     "[--seed S]"): "a synopsis",
    ("docs/ugi.md", "option name size type spin default 11 min 3 max 25"):
        "the option lines of ugi (the session below shows them)",
    ("docs/ugi.md", "7/7/2x4/3o3/4o2/7/7 b -"): "a position string",
    ("docs/ugi.md", "5/5/1ox2/1x3/5 w - +b3 xc2 0,9000,1809000,4000000001000,4000001009000"):
        "a position string",
    ("docs/ugi.md", "4/1hb...vb...1/1h...r2/4 r b3hsw+c3vsw"): "a position string",
    ("docs/ugi.md", "1bb1bbbb1/3b5/9/9/9/9/4r4/9/1rrr1rrr1 red - - d8 2 "): "a position string",
    ("docs/ugi.md", "2/4/5/8/4/8/3o3/8/4/8/x4/4/2 w c3"): "a position string",
    ("docs/ugi.md", "{"): "cutegames' settings file",
}


@dataclasses.dataclass
class Block:
    """One fenced block: where its text is, and the fields that vary."""

    path: Path
    line: int
    start: int
    end: int
    text: str
    varies: list[str]

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    @property
    def first(self) -> str:
        return self.text.split("\n", 1)[0]

    @property
    def kind(self) -> str | None:
        if self.first.startswith("$ gtpgames gtp "):
            return "gtp"
        if self.first.startswith("$ gtpgames ugi "):
            return "ugi"
        if self.first.startswith("$ gtpgames"):
            return "cli"
        return None


def blocks(path: Path) -> list[Block]:
    text = path.read_text()
    found = []
    for match in FENCE.finditer(text):
        if match.group(1).startswith("example"):
            continue  # the rules pages' examples: tests/rules/test_rules_pages.py plays them
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        varies = VARIES.match(before)
        found.append(Block(
            path, text.count("\n", 0, match.start()) + 1, match.start(2), match.end(2),
            match.group(2),
            [part.strip() for part in varies.group(1).split(" ; ")] if varies else [],
        ))
    return found


def all_blocks() -> list[Block]:
    return [block for path in DOCS for block in blocks(path)]


def not_example_key(block: Block) -> tuple[str, str] | None:
    """The entry of :data:`NOT_EXAMPLES` that lists ``block``, if any."""
    where = str(block.path.relative_to(ROOT))
    for key in NOT_EXAMPLES:
        if key[0] == where and block.first.startswith(key[1]):
            return key
    return None


def normalise(text: str, varies: list[str]) -> str:
    """Trailing spaces cut (Markdown does not keep them reliably), varying fields left out."""
    text = "\n".join(line.rstrip() for line in text.strip("\n").split("\n"))
    for pattern in varies:
        text = re.sub(pattern, "<varies>", text)
    return text


def environment() -> dict[str, str]:
    """The environment of the replays: ``gtpgames`` (as COMMAND runs it) first on PATH."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(COMMAND[0]).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


# ----------------------------------------------------------------------------- GTP


def gtp_commands(text: str) -> list[str]:
    """The commands of a GTP session block: each first line after an empty line."""
    commands: list[str] = []
    expecting = True
    for line in text.split("\n")[1:]:
        if expecting and line.strip():
            commands.append(line)
            expecting = False
        elif not expecting and not line.strip():
            expecting = True
    return commands


class Process:
    """The real engine, fed one line at a time; reads what it writes with a deadline."""

    def __init__(self, args: list[str], cwd: str | None = None) -> None:
        self.proc = subprocess.Popen(
            [*COMMAND, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, cwd=cwd, env=environment(),
        )
        self.pending = b""

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def read_until(self, done: re.Pattern[bytes]) -> str:
        """What the engine writes until ``done`` matches (everything up to its end)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + TIMEOUT
        while (match := done.search(self.pending)) is None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError(f"no complete answer after {TIMEOUT:.0f} s: {self.pending!r}")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise EOFError(f"the engine ended its output: {self.pending!r}")
            self.pending += chunk
        out, self.pending = self.pending[: match.end()], self.pending[match.end():]
        return out.decode()

    def close(self) -> int:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        code = self.proc.wait(timeout=TIMEOUT)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        return code


def replay_gtp(text: str) -> str:
    header = text.split("\n", 1)[0]
    engine = Process(shlex.split(header[2:])[1:])
    parts = [header]
    try:
        for command in gtp_commands(text):
            engine.send(command)
            response = engine.read_until(re.compile(rb"\n\n"))
            parts.append(f"{command}\n{response[:-1]}")
    finally:
        engine.close()
    return "\n".join(parts)


# ----------------------------------------------------------------------------- UGI


def replay_ugi(text: str) -> str:
    """Each ``> `` line is sent, then its output read: up to ``bestmove`` after a bounded
    ``go``, else up to the ``readyok`` of an ``isready`` sent after it (not shown)."""
    lines = text.split("\n")
    header = lines[0]
    engine = Process(shlex.split(header[2:])[1:])
    parts = [header]
    try:
        for line in lines[1:]:
            if not line.startswith("> "):
                continue
            command = line[2:]
            parts.append(line)
            engine.send(command)
            if command == "quit":
                break
            if command.startswith("go") and "infinite" not in command.split():
                out = engine.read_until(re.compile(rb"^bestmove [^\n]*\n", re.M))
            elif command == "isready":
                out = engine.read_until(re.compile(rb"^readyok\n", re.M))
            else:
                engine.send("isready")
                out = engine.read_until(re.compile(rb"^readyok\n", re.M))
                out = out[: -len("readyok\n")]
            parts.extend(f"< {received}" for received in out.split("\n") if received)
    finally:
        engine.close()
    return "\n".join(parts)


# -------------------------------------------------------------------------- command line


def cli_commands(text: str) -> list[tuple[str, str]]:
    """The ``$`` commands of a block: (the command as written, its arguments joined)."""
    commands: list[tuple[str, str]] = []
    lines = text.split("\n")
    k = 0
    while k < len(lines):
        if lines[k].startswith("$ "):
            written = [lines[k]]
            while written[-1].endswith("\\") and k + 1 < len(lines):
                k += 1
                written.append(lines[k])
            joined = " ".join(line.rstrip("\\").strip() for line in written)[2:]
            commands.append(("\n".join(written), joined))
        k += 1
    return commands


def replay_cli(text: str) -> str:
    parts = []
    with tempfile.TemporaryDirectory() as where:
        for written, joined in cli_commands(text):
            args = shlex.split(joined)
            assert args[0] == "gtpgames", f"not a gtpgames command: {joined}"
            done = subprocess.run(
                [*COMMAND, *args[1:]], capture_output=True, text=True, cwd=where,
                env=environment(), timeout=TIMEOUT,
            )
            assert done.returncode == 0, f"{joined}: exit {done.returncode}: {done.stderr}"
            parts.append(written + ("\n" + done.stdout.rstrip("\n") if done.stdout else ""))
    return "\n".join(parts)


def replay(block: Block) -> str:
    """The block's text as the program writes it now (the same commands)."""
    if block.kind == "gtp":
        return replay_gtp(block.text)
    if block.kind == "ugi":
        return replay_ugi(block.text)
    if block.kind == "cli":
        return replay_cli(block.text)
    raise ValueError(f"{block.name} is not an example")
