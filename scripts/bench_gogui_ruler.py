"""The ruler's time per click under GoGui 1.6's command stream, over a long game.

Usage: python scripts/bench_gogui_ruler.py [--game brax] [--clicks 500] [--seed 1] [--size N]

GoGui replays the whole game into the ruler at every click (Game.updateBoard calls
GenericBoard.copyBoardState, which sends clear_board and every click again), and BoardUpdater
asks the side to move once per node on the way. This script sends an in-process ruler the
commands GoGui sends for one human click, as read from GoGui's source (Remi-Coulom/gogui:
GoGui.humanMoved, Game.play/setToMove/updateBoard, BoardUpdater.update, GenericBoard), with
random legal clicks, and reports the ruler's mean time per click over clicks 1-50 and the
last 50 clicks, and the commands it answered.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from adapters.gogui import gogui_handlers
from engine.games.registry import new_game
from engine.search.players import Limit
from engine.search.registry import make_player
from protocol.engine import GtpEngine
from protocol.server import build_engine


class Ruler:
    """An in-process ruler that counts the commands it answers."""

    def __init__(self, game: str, seed: int, options: dict[str, Any]) -> None:
        engine, session = build_engine(new_game(game, **options), make_player("random", seed),
                                       None, Limit())
        engine.add_commands(gogui_handlers(engine, session))
        self.engine: GtpEngine = engine
        self.commands = 0

    def send(self, line: str) -> tuple[bool, str]:
        self.commands += 1
        response = self.engine.handle_line(line)
        assert response is not None
        return response.startswith("="), response[2:].strip()

    def board_state(self) -> None:
        """GenericBoard.copyRulerBoardState."""
        self.send("gogui-rules_board")
        self.send("gogui-rules_board_size")
        self.send("gogui-rules_captured_count")

    def update_board(self, clicks: list[str]) -> None:
        """Game.updateBoard with the ruler attached: Board.init clears (Board.clear:
        playFromBeginning of no move, then the side to move), BoardUpdater asks the side to
        move at every node that has a player, then copyBoardState replays every click."""
        self.send("clear_board")
        self.board_state()
        self.send("gogui-rules_side_to_move")
        for _ in clicks:
            self.send("gogui-rules_side_to_move")
        self.send("clear_board")
        for click in clicks:
            ok, response = self.send(click)
            assert ok, f"{click}: {response}"
        self.board_state()
        self.send("gogui-rules_side_to_move")

    def start(self) -> None:
        """GoGui.initGameRuler and Board.attachGameRuler."""
        self.send("list_commands")
        self.send("gogui-interrupt")
        self.send("gogui-rules_game_id")
        self.send("gogui-rules_board_size")
        self.update_board([])

    def human_click(self, clicks: list[str], click: str) -> None:
        """GoGui.humanMoved: the legality checks, Game.play, the ruler's copy of the play
        (GenericBoard.sendPlay; it repeats the click and fails), Game.setToMove, then the
        views: the legal clicks (Pass button) and the board markings."""
        self.send("gogui-rules_legal_moves")
        self.send("gogui-rules_legal_moves")
        self.send("gogui-rules_side_to_move")
        clicks.append(click)
        self.update_board(clicks)
        ok, _ = self.send(click)
        if ok:
            self.board_state()
            self.send("gogui-rules_side_to_move")
        self.update_board(clicks)
        self.send("gogui-rules_legal_moves")
        self.send("gogui-rules_board_gfx")


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--game", default="brax", help="the game (default brax)")
    parser.add_argument("--clicks", type=int, default=500,
                        help="clicks to play (default 500; fewer if the game ends)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random clicks")
    parser.add_argument("--size", type=int, default=None, help="the game's board size option")
    args = parser.parse_args()
    options = {} if args.size is None else {"size": args.size}
    rng = random.Random(args.seed)
    ruler = Ruler(args.game, args.seed, options)
    ruler.start()
    clicks: list[str] = []
    times: list[float] = []
    while len(clicks) < args.clicks:
        ok, legal = ruler.send("gogui-rules_legal_moves")
        if not legal.split():
            break
        side = ruler.send("gogui-rules_side_to_move")[1][0]
        click = f"play {side} {rng.choice(legal.split())}"
        start = time.perf_counter()
        ruler.human_click(clicks, click)
        times.append(time.perf_counter() - start)
    first = statistics.mean(times[:50]) * 1000
    last = statistics.mean(times[-50:]) * 1000
    print(f"{args.game}: {len(times)} clicks, {ruler.commands} commands; ruler time per click "
          f"{first:.1f} ms (clicks 1-50), {last:.1f} ms (clicks {len(times) - 49}-{len(times)})")


if __name__ == "__main__":
    main()
