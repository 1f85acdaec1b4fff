"""Speed of the proof-number solver: nodes per second, solve times per board and the table's
use, on the empty small boards (the kernel is compiled or loaded from the cache first).

Usage: python scripts/bench_solve.py [--memory MB] [--time S]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.games.registry import new_game  # noqa: E402
from engine.search.solve import Solver  # noqa: E402

BOARDS = [
    ("brique", {"size": 3, "pie": False}),
    ("brique", {"size": 4, "pie": False}),
    ("brique", {"size": 4, "pie": True}),
    ("flicker", {"size": 3, "pie": False}),
    ("flicker", {"size": 4, "pie": False}),
    ("trisq", {"size": 4}),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory", type=float, default=256.0,
                        help="megabytes for each solver's table and stack")
    parser.add_argument("--time", type=float, default=120.0,
                        help="seconds at most per board")
    args = parser.parse_args()
    print("| board | value | nodes | seconds | nodes/s | table entries used |")
    print("|---|---|---|---|---|---|")
    for name, options in BOARDS:
        game = new_game(name, **options)
        solver = Solver(game, memory_mb=args.memory)
        found = solver.solve(game, seconds=args.time)
        rate = found.nodes / found.seconds if found.seconds else 0.0
        text = " ".join(f"{k}={v}" for k, v in options.items())
        print(f"| {name} {text} | {found.value} | {found.nodes:,} | {found.seconds:.2f} | "
              f"{rate:,.0f} | {solver.used():,} of {solver.entries:,} |", flush=True)


if __name__ == "__main__":
    main()
