"""Rewrite the examples of README.md and docs/ from the real engine.

Usage: python -m scripts.update_doc_sessions [--check] [FILE ...]
       (then review the diff: `git diff docs README.md`)

The examples are those tests/test_docs.py replays (see tests/doc_sessions.py): GTP sessions
(``$ gtpgames gtp ARGS``), UGI sessions (``$ gtpgames ugi ARGS``) and command-line examples
(``$ gtpgames ...``). A block is rewritten only when the program's text differs from it
outside the fields its ``<!-- varies: ... -->`` comment names.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tests.doc_sessions import DOCS, blocks, normalise, replay


def main() -> None:
    parser = argparse.ArgumentParser(
        description=" ".join((__doc__ or "").split("\n\n")[0].split()),
        epilog="Run it as python -m scripts.update_doc_sessions from the project root.",
    )
    parser.add_argument(
        "files", nargs="*", type=Path,
        help="Markdown files to update (default: README.md and every file under docs/)",
    )
    parser.add_argument(
        "--check", action="store_true",
        help="write nothing: list the examples that differ and exit with status 1 if any does",
    )
    args = parser.parse_args()
    paths = [path.resolve() for path in args.files] or DOCS
    stale = 0
    for path in paths:
        text = path.read_text()
        pieces, done = [], 0
        for block in blocks(path):
            if block.kind is None:
                continue
            new = replay(block).rstrip("\n") + "\n"
            if normalise(new, block.varies) == normalise(block.text, block.varies):
                continue
            stale += 1
            print(f"{'differs' if args.check else 'updated'}: {block.name}")
            pieces += [text[done:block.start], new]
            done = block.end
        if pieces and not args.check:
            path.write_text("".join(pieces) + text[done:])
    if args.check and stale:
        sys.exit(1)


if __name__ == "__main__":
    main()
