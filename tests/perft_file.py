"""Reader for the perft files in tests/data/perft/ (one file per game).

Each non-empty line that does not start with ``#`` is::

    [KEY=VALUE ...] [moves=TOK,TOK,...] DEPTH NODES

options as for the game's constructor, an optional comma-separated move list in native
notation played from the start, then the depth and the expected number of move sequences
of that length (terminal positions are leaves). A line may end with ``# slow``: such lines
are run only by the slow test (``pytest -m slow``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

PERFT_DIR = Path(__file__).parent / "data" / "perft"


@dataclasses.dataclass(frozen=True)
class PerftCase:
    game: str
    options: dict[str, str]
    moves: tuple[str, ...]
    depth: int
    nodes: int
    slow: bool
    line: int

    @property
    def id(self) -> str:
        opts = ",".join(f"{k}={v}" for k, v in self.options.items())
        moves = f"+{len(self.moves)}moves" if self.moves else ""
        return f"{self.game}[{opts}{moves}]d{self.depth}"


def read_perft_file(path: Path) -> list[PerftCase]:
    cases = []
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        text, _, comment = raw.partition("#")
        tokens = text.split()
        if not tokens:
            continue
        *head, depth, nodes = tokens
        options: dict[str, str] = {}
        moves: tuple[str, ...] = ()
        for token in head:
            key, _, value = token.partition("=")
            if key == "moves":
                moves = tuple(value.split(",")) if value else ()
            else:
                options[key] = value
        cases.append(
            PerftCase(path.stem, options, moves, int(depth), int(nodes),
                      "slow" in comment, number)
        )
    return cases


def all_cases() -> list[PerftCase]:
    return [case for path in sorted(PERFT_DIR.glob("*.perft")) for case in read_perft_file(path)]
