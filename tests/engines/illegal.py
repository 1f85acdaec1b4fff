"""Test engine: on its second genmove of a game, answers with the point the opponent has just
played (occupied, so illegal in Brique)."""

from typing import Any

import tinygtp


def hook(count: int, game: Any) -> str | None:
    if count >= 2 and game.history:
        last: str = game.format_move(game.history[-1], game.DEFAULT_NOTATION)
        return last
    return None


tinygtp.main(hook)
