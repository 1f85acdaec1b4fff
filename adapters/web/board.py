"""Throwaway placeholder of the board renderer (a plain grid with the click contract)."""

from __future__ import annotations

from typing import Any

from engine.notation import format_point


def render_svg(game: Any, *, notation: str = "gtp", legal: bool = False,
               analysis: Any = None, last_move: bool = True, width: int | None = None) -> str:
    cells: list[tuple[int, int, str, int | None]] = []
    name = game.name
    if name in ("brique", "flicker", "brax"):
        n = game.board_size if name != "brax" else 9
        for y in range(n):
            for x in range(n):
                if name == "brique":
                    s = game.stone(x, y)
                    owner = None if s < 0 else s
                elif name == "flicker":
                    owner = game.stone(x, y)
                else:
                    p = y * 9 + x
                    owner = next((k for k in (0, 1) if p in game.pieces(k)), None)
                cells.append((x, n - 1 - y, format_point(x, y, "gtp"), owner))
    elif name == "bricka":
        from engine.bricka import NEUTRAL
        from engine.bricka_board import POINTS
        n = 13
        for i, (x, y) in enumerate(POINTS):
            piece = game.piece_at(i)
            owner = None if piece < 0 else (2 if piece == NEUTRAL else piece)
            cells.append((x, n - 1 - y, game.format_move(i, "gtp"), owner))
    else:
        from engine.trisq_geometry import slot_parts
        n = game.n
        colour: dict[int, int] = {}
        for turn, move in enumerate(game.history):
            for slot in move:
                colour[slot] = turn % 2
        for slot in range(8 * n * n):
            f, r, o, c = slot_parts(slot, n)
            cells.append((f * 4 + c, (n - 1 - r) * 2 + o, game.format_slot(slot, "gtp"),
                          colour.get(slot)))
        n = 4 * n
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="-1 -1 {n + 2} {n + 2}">']
    for x, y, token, owner in cells:
        out.append(f'<rect x="{x}" y="{y}" width="0.9" height="0.9" fill="#eee" '
                   f'data-target="{token}"/>')
        if owner is not None:
            cls = "neutral" if owner == 2 else f"p{owner}"
            fill = ("#222", "#ddd", "#888")[owner]
            out.append(f'<circle cx="{x + 0.45}" cy="{y + 0.45}" r="0.4" fill="{fill}" '
                       f'class="piece {cls}" data-piece="{token}"/>')
    out.append("</svg>")
    return "\n".join(out)
