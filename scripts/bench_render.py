"""Time to draw one board as SVG, per game at its default size.

Usage: python -m scripts.bench_render [--runs N]

Target: under 20 ms (median, each game, default size). The position is the mid-game position
of the documentation pictures (scripts/render_docs.py) played on the default board; each run
draws it with render_svg (no overlays), then once more with the legal-move overlay and once as
PNG (cairosvg), which are reported beside it for information.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time
from collections.abc import Callable
from typing import Any

from adapters.render import render_png, render_svg
from engine.games.core import Game
from engine.games.registry import new_game
from scripts.render_docs import POSITIONS


def position(name: str) -> Game[Any]:
    _, notation, moves = POSITIONS[name]
    game = new_game(name)
    for token in moves.split():
        game.play_text(token, notation)  # type: ignore[arg-type]
    return game


def median_ms(call: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--runs", type=int, default=50,
                        help="renders per game and kind, whose median is printed (default 50)")
    args = parser.parse_args()
    print(f"{'game':8} {'svg ms':>7} {'legal ms':>9} {'png ms':>7}  (median of {args.runs})")
    for name in POSITIONS:
        game = position(name)
        render_svg(game)  # imports and caches out of the timing
        few = max(3, args.runs // 10)
        svg = median_ms(functools.partial(render_svg, game), args.runs)
        legal = median_ms(functools.partial(render_svg, game, legal=True), few)
        png = median_ms(functools.partial(render_png, game, None), few)
        print(f"{name:8} {svg:7.2f} {legal:9.2f} {png:7.1f}")


if __name__ == "__main__":
    main()
