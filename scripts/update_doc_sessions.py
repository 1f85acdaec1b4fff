"""Rewrite the responses of the GTP sessions in README.md and docs/ from the real engine.

Usage: python -m scripts.update_doc_sessions   (then review the diff: `git diff docs README.md`)

The blocks are those that tests/test_docs.py checks: a ```text block starting with
``$ gtpgames gtp ARGS``, then each command followed by its response.
"""

from __future__ import annotations

import shlex
import subprocess

from tests.test_docs import BLOCK, COMMAND, DOCS


def replay(header: str, body: str) -> str:
    commands = []
    current = None
    for line in body.split("\n"):
        if current is None and line.strip():
            commands.append(line)
            current = True
        elif current and not line.strip():
            current = None
    args = shlex.split(header[2:])[2:]
    done = subprocess.run([*COMMAND, "gtp", *args], input="".join(c + "\n" for c in commands),
                          capture_output=True, text=True, timeout=60, check=True)
    blocks = [b for b in done.stdout.split("\n\n") if b]
    parts = [f"{command}\n{response}\n" for command, response in zip(commands, blocks,
                                                                      strict=True)]
    return "\n".join(parts)


def main() -> None:
    for path in DOCS:
        text = path.read_text()
        new = BLOCK.sub(lambda m: f"```text\n{m.group(1)}\n{replay(m.group(1), m.group(2))}```",
                        text)
        if new != text:
            path.write_text(new)
            print(f"updated {path}")


if __name__ == "__main__":
    main()
