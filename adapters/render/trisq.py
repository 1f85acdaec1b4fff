"""Trisq drawn as it is: every square cut into the four trapezium pieces of its orientation,
the polygons taken from the rules' geometry data (:data:`engine.games.trisq_geometry.PIECES`),
pieces filled in Red and Blue, empty slots outlined, Red's edges (bottom and top) and Blue's
(left and right) in their colours. A square with no piece yet offers both orientations (the
``v`` slots hidden; see the package docstring)."""

from __future__ import annotations

import functools
from typing import Any

from adapters.render.draw import (
    HIGHLIGHT,
    LINE,
    Options,
    Svg,
    caption,
    draw_caption,
    draw_overlays,
    grid_labels,
    points_attr,
)
from engine.games.notation import format_point
from engine.games.trisq import Trisq
from engine.games.trisq_geometry import CORNERS, ORIENTATIONS, PIECES, UNIT, slot_parts

S = 52.0
M = 48.0
BAR = 7.0
RED = "#c0392b"
BLUE = "#1f5fbf"
COLOURS = (RED, BLUE)
SQUARE_FILL = "#f7f1e3"
LEGAL_FILL = "#d5efdc"


def _polygon(f: int, r: int, o: int, c: int, n: int) -> list[tuple[float, float]]:
    x0, y0 = M + f * S, M + (n - r) * S
    k = S / UNIT
    return [(x0 + x * k, y0 - y * k) for x, y in PIECES[o][c]]


@functools.cache
def _points(n: int) -> tuple[str, ...]:
    """The ``points`` attribute of every slot of an n x n board, by slot number."""
    return tuple(points_attr(_polygon(*slot_parts(slot, n), n)) for slot in range(8 * n * n))


def _centroid(points: list[tuple[float, float]]) -> tuple[float, float]:
    return sum(x for x, _ in points) / len(points), sum(y for _, y in points) / len(points)


def render(game: Trisq, options: Options, svg: Svg) -> tuple[float, float, str]:
    n = game.n
    notation = options.notation
    side = n * S
    view_w = side + 2 * M
    colours = game.slot_colours()
    orient = game.orientations()
    last: set[int] = set()
    if options.last_move and game.history:
        last = set(game.history[-1])
    legal: set[int] = set()
    if options.legal and not game.is_over():
        legal = game.playable_slots()

    svg.open("g", {"class_": "edges"})
    for y in (M - BAR - 2, M + side + 2):
        svg.add("rect", {"class_": "edge p0", "x": M, "y": y, "width": side, "height": BAR,
                         "fill": RED})
    for x in (M - BAR - 2, M + side + 2):
        svg.add("rect", {"class_": "edge p1", "x": x, "y": M, "width": BAR, "height": side,
                         "fill": BLUE})
    svg.close("g")

    points = _points(n)
    svg.open("g", {"class_": "board", "fill": SQUARE_FILL, "stroke": "#9c927f",
                   "stroke_width": 0.8, "stroke_linejoin": "round"})
    for r in range(n):
        for f in range(n):
            square = r * n + f
            name = format_point(f, r, notation)
            svg.add("rect", {"class_": "square", "x": M + f * S, "y": M + (n - 1 - r) * S,
                             "width": S, "height": S, "stroke": LINE, "stroke_width": 1.2})
            o_here = orient[square]
            for o in (0, 1) if o_here < 0 else (o_here,):
                hidden = o_here < 0 and o == 1
                svg.open("g", {"class_": f"slots {ORIENTATIONS[o]}", "data_square": name,
                               "display": "none" if hidden else None})
                # the board group's fill and stroke are an empty slot's; a piece overrides them
                placed = []
                for c in range(4):
                    slot = (square * 2 + o) * 4 + c
                    token = f"{name}{ORIENTATIONS[o]}{CORNERS[c]}"
                    owner = colours[slot]
                    if owner >= 0:
                        placed.append((slot, token, owner))
                    elif slot in legal:
                        svg.add("polygon", {"class_": "slot legal", "data_target": token,
                                            "points": points[slot], "fill": LEGAL_FILL,
                                            "stroke_dasharray": "3 2"})
                    else:
                        svg.add("polygon", {"class_": "slot", "data_target": token,
                                            "points": points[slot], "stroke_dasharray": "3 2"})
                # pieces after the slots, so no dashed outline runs over a piece
                for slot, token, owner in placed:
                    svg.add("polygon", {"class_": f"piece p{owner}", "data_piece": token,
                                        "points": points[slot], "fill": COLOURS[owner],
                                        "stroke": "#ffffff", "stroke_width": 1.2})
                svg.close("g")
    svg.add("rect", {"x": M, "y": M, "width": side, "height": side, "fill": "none",
                     "stroke": LINE, "stroke_width": 1.5,
                     "pointer_events": "none"})
    svg.close("g")

    if last:
        svg.open("g", {"class_": "last-move", "pointer_events": "none"})
        for slot in sorted(last):
            f, r, o, c = slot_parts(slot, n)
            svg.add("polygon", {"points": points_attr(_polygon(f, r, o, c, n)),
                                "fill": "none", "stroke": HIGHLIGHT, "stroke_width": 3,
                                "stroke_linejoin": "round"})
        svg.close("g")

    def anchor(move: Any) -> tuple[float, float] | None:
        slots = tuple(move)
        if not slots:
            return None
        points = [_centroid(_polygon(*slot_parts(slot, n), n)) for slot in slots]
        return _centroid(points)

    extra = draw_overlays(svg, game, options, anchor, S * 0.8)
    grid_labels(svg, n, notation, M, S, True, BAR + 20, 14)
    lines = [caption(game, options), *extra]
    draw_caption(svg, view_w / 2, M + side + 52, lines[:2], 14)
    view_h = M + side + 52 + 14 * 1.3 * min(len(lines), 2) + 4
    return view_w, view_h, "board trisq"
