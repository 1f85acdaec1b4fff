"""Bricka drawn as it is: the 30 pentagonal cells and the 69 intersections of the rules' data
(:mod:`engine.games.bricka_board`), the six sides in the colours of their three pairs (light,
green, dark: each border line drawn half by half in the side of its nearer end), White,
Black and neutral pieces, and the blocked points of the turn with the cells that block them
(K4)."""

from __future__ import annotations

from typing import Any

from adapters.render.draw import (
    HIGHLIGHT,
    INK,
    LEGAL,
    PAPER,
    Options,
    Svg,
    caption,
    draw_caption,
    draw_overlays,
    grid_labels,
    points_attr,
)
from engine.games.bricka import EMPTY, NEUTRAL, PASS, Bricka
from engine.games.bricka_board import (
    BORDER,
    CELL_NAMES,
    CELL_SHAPES,
    CELLS,
    CELLS_OF,
    GRID,
    PAIR_NAMES,
    POINTS,
    SIDE_OF,
)
from engine.games.notation import format_point

S = 34.0
M = 40.0
NEUTRAL_FILL = "#2f7fd8"
#: Per pair of sides (light, green, dark): the stroke of its border lines.
SIDE_COLOURS = ("#e2b856", "#3f9b4f", "#5a3b22")
CELL_FILLS = {"U": "#efe3c8", "D": "#efe3c8", "L": "#e6d6b3", "R": "#e6d6b3"}
BLOCKED_FILL = "#b9b3a6"


def _xy(point: int) -> tuple[float, float]:
    f, r = POINTS[point]
    return M + f * S, M + (GRID - 1 - r) * S


def render(game: Bricka, options: Options, svg: Svg) -> tuple[float, float, str]:
    notation = options.notation
    span = (GRID - 1) * S
    view_w = span + 2 * M
    over = game.is_over()
    blocked = frozenset() if over else game.blocked()
    last = game.last_placement()
    blocking_cells = set(CELLS_OF[last]) if last is not None and not over else set()

    svg.open("g", {"class_": "cells", "stroke": "#6b5a3e", "stroke_width": 1.6,
                   "stroke_linejoin": "round"})
    for c, cell in enumerate(CELLS):
        fill = BLOCKED_FILL if c in blocking_cells else CELL_FILLS[CELL_SHAPES[c]]
        svg.add("polygon", {"class_": "cell blocking" if c in blocking_cells else "cell",
                            "data_cell": CELL_NAMES[c],
                            "points": points_attr(_xy(p) for p in cell), "fill": fill})
    svg.close("g")

    svg.open("g", {"class_": "sides", "stroke_width": 7, "stroke_linecap": "round"})
    for k, p in enumerate(BORDER):
        q = BORDER[(k + 1) % len(BORDER)]
        (x1, y1), (x2, y2) = _xy(p), _xy(q)
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        for end, (x, y) in ((p, (x1, y1)), (q, (x2, y2))):
            side = SIDE_OF[end]
            pair = side // 2
            svg.add("line", {"class_": "side", "data_side": PAIR_NAMES[pair],
                             "x1": x, "y1": y, "x2": mx, "y2": my,
                             "stroke": SIDE_COLOURS[pair]})
    svg.close("g")

    legal: set[int] = set()
    if options.legal:
        legal = {m for m in game.legal_moves() if m != PASS}
    svg.open("g", {"class_": "board"})
    for p in range(len(POINTS)):
        f, r = POINTS[p]
        x, y = _xy(p)
        token = format_point(f, r, notation)
        svg.open("g", {"class_": "place", "data_target": token})
        svg.add("circle", {"class_": "point", "cx": x, "cy": y, "r": S * 0.45,
                           "fill": "#ffffff", "fill_opacity": 0})
        owner = game.piece_at(p)
        if owner == EMPTY:
            svg.add("circle", {"class_": "dot", "cx": x, "cy": y, "r": 3.5,
                               "fill": "#4a3c28"})
        else:
            fill, stroke = {0: (INK, INK), 1: (PAPER, INK), NEUTRAL: (NEUTRAL_FILL, "#ffffff")}[
                owner]
            svg.add("circle", {"class_": "piece neutral" if owner == NEUTRAL
                               else f"piece p{owner}", "data_piece": token,
                               "cx": x, "cy": y, "r": S * 0.38, "fill": fill,
                               "stroke": stroke, "stroke_width": 1.5})
        svg.close("g")
    svg.close("g")

    svg.open("g", {"class_": "marks", "pointer_events": "none"})
    for p in sorted(blocked):
        if game.piece_at(p) != EMPTY:
            continue
        x, y = _xy(p)
        d = 5.0
        svg.add("path", {"class_": "blocked", "data_point": format_point(*POINTS[p], notation),
                         "d": f"M{x - d:g},{y - d:g}L{x + d:g},{y + d:g}"
                              f"M{x - d:g},{y + d:g}L{x + d:g},{y - d:g}",
                         "stroke": "#7a1f1f", "stroke_width": 2.2, "stroke_linecap": "round"})
    for p in sorted(legal):
        x, y = _xy(p)
        svg.add("circle", {"class_": "legal", "cx": x, "cy": y, "r": 5.5, "fill": LEGAL})
    if options.last_move and last is not None:
        x, y = _xy(last)
        svg.add("circle", {"class_": "last-move", "cx": x, "cy": y, "r": S * 0.14,
                           "fill": HIGHLIGHT})
    svg.close("g")

    def anchor(move: Any) -> tuple[float, float] | None:
        return None if move == PASS else _xy(int(move))

    extra = draw_overlays(svg, game, options, anchor, S)
    grid_labels(svg, GRID, notation, M, S, False, 8, 13)
    lines = [caption(game, options), *extra]
    if blocked:
        lines[0] += " (grey cells: blocked)"
    bottom = M + span + S / 2
    draw_caption(svg, view_w / 2, bottom + 30, lines[:2], 14)
    view_h = bottom + 30 + 14 * 1.3 * min(len(lines), 2) + 4
    return view_w, view_h, "board bricka"
