"""Size and cost of Trisq's ``gtpgames-legal_moves`` answer, per board size.

Usage: python -m scripts.bench_legal_moves [--sizes 4,8,19] [--reference]

The position is Blue's first turn after Red's single placement at the centre square (the
longest lists of a game: almost every free slot pairs with almost every other). For each
size: the number of moves, the bytes of the answer line, the time to write it, and the peak
of the memory allocated while writing it (tracemalloc). With ``--reference`` the same is
measured for the generic listing (build every move, format it, sort the tokens), and the two
answers are checked to be the same text.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from collections.abc import Callable

from engine.games.core import Game
from engine.games.trisq import Trisq


def position(size: int) -> Trisq:
    """Blue to move after Red's placement in the lower-left h piece of the centre square."""
    game = Trisq(size=size)
    centre = f"{'abcdefghjklmnopqrst'[size // 2]}{size // 2 + 1}hsw"
    game.play_text(centre)
    return game


def measure(write: Callable[[], str]) -> tuple[str, float, float]:
    """The text, the seconds it took and the peak MB allocated meanwhile."""
    tracemalloc.start()
    start = time.perf_counter()
    text = write()
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return text, seconds, peak


def main() -> None:
    parser = argparse.ArgumentParser(
        description=" ".join((__doc__ or "").split("\n\n")[0].split()),
        epilog="Run it as python -m scripts.bench_legal_moves from the project root.",
    )
    parser.add_argument(
        "--sizes",
        default="4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19",
        help="comma-separated board sizes, 4..19 (default: all of them)",
    )
    parser.add_argument(
        "--reference",
        action="store_true",
        help="also time the generic listing (slow: minutes and gigabytes at size 19) and "
        "check that both answers are the same text",
    )
    args = parser.parse_args()
    sizes = [int(part) for part in args.sizes.split(",")]
    print(f"{'size':>4} {'moves':>10} {'bytes':>11} {'seconds':>8} {'peak MB':>8}"
          + ("  reference s  ref. MB" if args.reference else ""))
    for size in sizes:
        game = position(size)
        text, seconds, peak = measure(game.listed_moves_text)
        moves = text.count(" ") + 1 if text else 0
        line = f"{size:>4} {moves:>10} {len(text):>11} {seconds:>8.2f} {peak:>8.1f}"
        if args.reference:
            reference, ref_seconds, ref_peak = measure(
                lambda game=game: Game.listed_moves_text(game)
            )
            assert reference == text, f"size {size}: the two listings differ"
            line += f"  {ref_seconds:>11.2f} {ref_peak:>8.1f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
