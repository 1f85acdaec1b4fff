"""The GTP sessions shown in README.md and docs/ are real: every ```text block that starts
with ``$ gtpgames gtp ...`` is replayed through the real process and must give exactly the
responses shown (trailing spaces aside, which Markdown does not keep reliably)."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.test_e2e import COMMAND

ROOT = Path(__file__).parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
BLOCK = re.compile(r"```(?:text)?\n(\$ gtpgames gtp [^\n]*)\n(.*?)```", re.S)


def sessions() -> list[tuple[str, str, list[str], list[str]]]:
    found = []
    for path in DOCS:
        for number, match in enumerate(BLOCK.finditer(path.read_text()), 1):
            args = shlex.split(match.group(1)[2:])[2:]
            commands: list[str] = []
            responses: list[str] = []
            current: list[str] | None = None
            for line in match.group(2).split("\n"):
                if current is None:
                    if line.strip():
                        commands.append(line)
                        current = []
                elif not line.strip() and current:
                    responses.append("\n".join(current))
                    current = None
                else:
                    current.append(line.rstrip())
            if current:
                responses.append("\n".join(current))
            found.append((f"{path.relative_to(ROOT)}#{number}", " ".join(args), commands,
                          responses))
    return found


SESSIONS = sessions()


def test_docs_have_sessions() -> None:
    names = {name.split("#")[0] for name, *_ in SESSIONS}
    assert "README.md" in names
    for game in ("brique", "trisq", "flicker", "brax", "bricka"):
        assert f"docs/games/{game}.md" in names


@pytest.mark.parametrize(("name", "args", "commands", "responses"), SESSIONS,
                         ids=[s[0] for s in SESSIONS])
def test_documented_session(name: str, args: str, commands: list[str],
                            responses: list[str]) -> None:
    script = "".join(f"{c}\n" for c in commands)
    done = subprocess.run([*COMMAND, "gtp", *shlex.split(args)], input=script.encode(),
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode()
    got = ["\n".join(line.rstrip() for line in block.split("\n"))
           for block in out.split("\n\n") if block]
    assert got == responses
