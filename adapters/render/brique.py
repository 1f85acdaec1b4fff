"""Brique drawn as it is: the checkered n x n squares (top-left light, rule B3), Black's
edges (rows 1 and n) and White's edges (the first and last columns) as bars in the owners'
colours, the stones, and the squares a move of the player to move would fill (B6)."""

from __future__ import annotations

from typing import Any

from adapters.render.draw import (
    HIGHLIGHT,
    INK,
    LEGAL,
    LINE,
    PAPER,
    Options,
    Svg,
    caption,
    draw_caption,
    draw_overlays,
    grid_labels,
)
from engine.games.brique import EMPTY, Brique, BriqueMove
from engine.games.grid import coords
from engine.games.notation import format_point

S = 40.0
M = 48.0
BAR = 7.0
LIGHT_SQUARE = "#efd9a8"
DARK_SQUARE = "#b98a55"


def would_fill(game: Brique) -> dict[int, int]:
    """Square -> the empty square whose stone would fill it, for the player to move: one
    escort holds the mover's stone, the other is empty, and the square holds no mover's
    stone (B6; a square with two such escorts is listed once)."""
    if game.is_over():
        return {}
    mover = game.to_move
    cells = game.cells()
    out: dict[int, int] = {}
    for q, pair in enumerate(game.geo.escorts):
        if len(pair) != 2 or cells[q] == mover:
            continue
        a, b = pair
        if cells[a] == mover and cells[b] == EMPTY:
            out[q] = b
        elif cells[b] == mover and cells[a] == EMPTY:
            out[q] = a
    return out


def render(game: Brique, options: Options, svg: Svg) -> tuple[float, float, str]:
    n = game.n
    notation = options.notation
    side = n * S
    view_w = side + 2 * M

    def centre(i: int) -> tuple[float, float]:
        f, r = coords(i, n)
        return M + (f + 0.5) * S, M + (n - 1 - r + 0.5) * S

    # edges: Black owns top and bottom, White left and right
    svg.open("g", {"class_": "edges"})
    svg.add("rect", {"class_": "edge p0", "x": M, "y": M - BAR - 2, "width": side,
                     "height": BAR, "fill": INK})
    svg.add("rect", {"class_": "edge p0", "x": M, "y": M + side + 2, "width": side,
                     "height": BAR, "fill": INK})
    for x in (M - BAR - 2, M + side + 2):
        svg.add("rect", {"class_": "edge p1", "x": x, "y": M, "width": BAR, "height": side,
                         "fill": PAPER, "stroke": INK, "stroke_width": 1})
    svg.close("g")

    cells = game.cells()
    legal: set[int] = set()
    if options.legal:
        legal = {m.square for m in game.legal_moves() if not m.is_swap}
    svg.open("g", {"class_": "board"})
    for i in range(n * n):
        f, r = coords(i, n)
        token = format_point(f, r, notation)
        light = game.geo.light[i]
        x, y = M + f * S, M + (n - 1 - r) * S
        svg.open("g", {"class_": "place", "data_target": token})
        svg.add("rect", {"class_": "square light" if light else "square dark", "x": x, "y": y,
                         "width": S, "height": S,
                         "fill": LIGHT_SQUARE if light else DARK_SQUARE})
        owner = cells[i]
        if owner != EMPTY:
            svg.add("circle", {"class_": f"piece p{owner}", "data_piece": token,
                               "cx": x + S / 2, "cy": y + S / 2, "r": S * 0.4,
                               "fill": INK if owner == 0 else PAPER, "stroke": INK,
                               "stroke_width": 1.5})
        elif i in legal:
            svg.add("circle", {"class_": "legal", "cx": x + S / 2, "cy": y + S / 2,
                               "r": S * 0.12, "fill": LEGAL, "pointer_events": "none"})
        svg.close("g")
    svg.add("rect", {"x": M, "y": M, "width": side, "height": side, "fill": "none",
                     "stroke": LINE, "stroke_width": 1.5, "pointer_events": "none"})
    svg.close("g")

    # the squares a move would fill, in the mover's colour, dashed
    fills = would_fill(game)
    if fills:
        mover = game.to_move
        svg.open("g", {"class_": "fills", "pointer_events": "none"})
        for q, by in sorted(fills.items()):
            cx, cy = centre(q)
            fq, rq = coords(q, n)
            fb, rb = coords(by, n)
            svg.add("rect", {"class_": "fill", "data_fill": format_point(fq, rq, notation),
                             "data_by": format_point(fb, rb, notation),
                             "x": cx - S * 0.2, "y": cy - S * 0.2, "width": S * 0.4,
                             "height": S * 0.4, "transform": f"rotate(45 {cx:g} {cy:g})",
                             "fill": "none", "stroke": INK if mover == 0 else PAPER,
                             "stroke_width": 2, "stroke_dasharray": "3 2"})
        svg.close("g")

    if options.last_move and game.history:
        last = game.history[-1]
        square = last.square
        if last.is_swap:
            square = next((i for i, c in enumerate(cells) if c != EMPTY), -1)
        if square >= 0:
            cx, cy = centre(square)
            svg.add("circle", {"class_": "last-move", "cx": cx, "cy": cy, "r": S * 0.16,
                               "fill": HIGHLIGHT, "stroke": "none", "pointer_events": "none"})

    def anchor(move: Any) -> tuple[float, float] | None:
        assert isinstance(move, BriqueMove)
        return None if move.is_swap else centre(move.square)

    extra = draw_overlays(svg, game, options, anchor, S)
    grid_labels(svg, n, notation, M, S, True, BAR + 20, 14)
    lines = [caption(game, options), *extra]
    if fills and not game.is_over():
        lines[0] += " (dashed: squares a move would fill)"
    draw_caption(svg, view_w / 2, M + side + 52, lines[:2], 14)
    view_h = M + side + 52 + 14 * 1.3 * min(len(lines), 2) + 4
    return view_w, view_h, "board brique"
