"""What the table of Brax endings changes in the engine's moves.

Usage: python -m scripts.bench_endings [--playouts N] [--positions N] [--seed S]

Positions of two pieces against one with pieces at random points and a random side to move
(a fresh count of plies without a capture). In the drawn ones where some move loses, how
often the compiled search alone (``--playouts`` per move) chooses a losing move, and how
often the engine does (the search, then :func:`engine.search.mcts.table_draw`); in the lost
ones of 4 plies or more, how often the search's move loses sooner than the slowest loss,
which is the move the engine plays (:func:`engine.search.mcts.table_loss`), and the mean
plies of each.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.games.brax import Brax  # noqa: E402
from engine.games.brax_board import POINTS, N  # noqa: E402
from engine.games.position_text import encode_board  # noqa: E402
from engine.search import endings  # noqa: E402
from engine.search.mcts import MctsPlayer, table_draw, table_loss  # noqa: E402
from engine.search.players import Limit  # noqa: E402


def random_ending(rng: random.Random) -> Brax:
    """Two pieces of one side and one of the other at random points, either side to move."""
    points = rng.sample(range(POINTS), 3)
    pair = rng.choice("rb")
    codes = {points[0]: pair, points[1]: pair, points[2]: "b" if pair == "r" else "r"}
    rows = [[codes.get(r * N + f) for f in range(N)] for r in reversed(range(N))]
    side = rng.choice(("red", "blue"))
    return Brax.from_position_string(f"{encode_board(rows)} {side} - - - 0 -")


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--playouts", type=int, default=1000, help="playouts per search")
    parser.add_argument("--positions", type=int, default=200,
                        help="drawn positions and lost positions to search")
    parser.add_argument("--seed", type=int, default=3,
                        help="seed of the positions and of the search")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    player = MctsPlayer(random.Random(args.seed))
    limit = Limit(playouts=args.playouts)
    drawn = lost = 0
    search_loses = engine_loses = sooner = 0
    search_plies = slowest_plies = 0
    while drawn < args.positions or lost < args.positions:
        game = random_ending(rng)
        found = endings.lookup(game)
        if found is None:
            continue
        values = dict(endings.move_values(game))
        drawing = found.value == "draw" and any(v.value == "loss" for v in values.values())
        losing = found.value == "loss" and found.plies >= 4
        if not (drawing and drawn < args.positions or losing and lost < args.positions):
            continue
        result = player.searcher(game, True).search(game, limit, player.rng)
        if drawing:
            drawn += 1
            search_loses += values[result.best].value == "loss"
            mark = table_draw(game)  # a drawn ending the table covers: never None here
            engine = mark(result) if mark is not None else result
            engine_loses += values[engine.best].value == "loss"
        else:
            lost += 1
            proven = table_loss(game, 0.0)
            assert proven is not None
            search_plies += values[result.best].plies
            slowest_plies += values[proven.best].plies
            sooner += values[result.best].plies < values[proven.best].plies
    print(f"drawn positions with a losing move: {drawn}; the search alone chose a losing "
          f"move in {search_loses}, the engine in {engine_loses}")
    print(f"lost positions (4 plies or more): {lost}; the search's move lost sooner than the "
          f"slowest loss in {sooner}; mean plies to the deciding capture: the search's "
          f"{search_plies / lost:.2f}, the engine's {slowest_plies / lost:.2f}")


if __name__ == "__main__":
    main()
