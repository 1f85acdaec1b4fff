"""The GTP extension ``gtpgames-svg``: the current position as one SVG document.

A handler set on the same dispatcher as the session's commands (docs/protocol.md). The
document is written on a single line, so the response is one well-framed GTP response
whatever the position."""

from __future__ import annotations

from collections.abc import Callable

from adapters.render import render_svg
from protocol.gtp import GtpError
from protocol.session import GameSession

Handler = Callable[[tuple[str, ...]], str]

#: The widest picture the command draws, in pixels.
MAX_WIDTH = 4096


def svg_handlers(session: GameSession) -> dict[str, Handler]:
    """``gtpgames-svg [legal] [WIDTH]`` for the game of ``session``."""

    def svg(args: tuple[str, ...]) -> str:
        legal = False
        width: int | None = None
        for arg in args:
            if arg.lower() == "legal" and not legal:
                legal = True
            elif arg.isdigit() and width is None and 16 <= int(arg) <= MAX_WIDTH:
                width = int(arg)
            else:
                raise GtpError(
                    f"syntax error: invalid argument {arg!r} (expected legal and/or a width "
                    f"in pixels, 16..{MAX_WIDTH})"
                )
        text = render_svg(session.game, notation=session.notation, legal=legal, width=width)
        return text.replace("\r", " ").replace("\n", " ")

    return {"gtpgames-svg": svg}
