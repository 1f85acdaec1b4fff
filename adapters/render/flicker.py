"""Flicker drawn as it is: the n x n points and the lines joining them, Black's edges (rows 1
and n) and White's (the first and last columns), the stones, the stones the player to move may
remove (F3), and the restricted points of the turn (F4): the point the opponent just removed
from (no placing there) and the stone the opponent just placed (no removing it)."""

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
from engine.games.flicker import PLACE, REMOVE, Flicker, FlickerMove
from engine.games.notation import format_point

S = 36.0
M = 52.0
BAR = 7.0
REMOVABLE = "#d1342f"


def render(game: Flicker, options: Options, svg: Svg) -> tuple[float, float, str]:
    n = int(game.options["size"])
    notation = options.notation
    span = (n - 1) * S
    view_w = span + 2 * M

    def at(i: int) -> tuple[float, float]:
        f, r = i % n, i // n
        return M + f * S, M + (n - 1 - r) * S

    svg.add("rect", {"class_": "wood", "x": M - S / 2, "y": M - S / 2, "width": span + S,
                     "height": span + S, "fill": "#e6c788"})
    svg.open("g", {"class_": "edges"})
    for y in (M - S / 2 - BAR - 2, M + span + S / 2 + 2):
        svg.add("rect", {"class_": "edge p0", "x": M - S / 2, "y": y, "width": span + S,
                         "height": BAR, "fill": INK})
    for x in (M - S / 2 - BAR - 2, M + span + S / 2 + 2):
        svg.add("rect", {"class_": "edge p1", "x": x, "y": M - S / 2, "width": BAR,
                         "height": span + S, "fill": PAPER, "stroke": INK, "stroke_width": 1})
    svg.close("g")
    svg.open("g", {"class_": "lines", "stroke": LINE, "stroke_width": 1.2})
    for k in range(n):
        svg.add("line", {"x1": M, "y1": M + k * S, "x2": M + span, "y2": M + k * S})
        svg.add("line", {"x1": M + k * S, "y1": M, "x2": M + k * S, "y2": M + span})
    svg.close("g")

    over = game.is_over()
    removable = set() if over else set(game.removable_points())
    banned = None if over else game.banned_point()
    protected = None if over else game.protected_point()
    legal: set[int] = set()
    if options.legal:
        legal = {m.point for m in game.legal_moves() if m.kind in (PLACE, REMOVE)}

    svg.open("g", {"class_": "board"})
    for i in range(n * n):
        f, r = i % n, i // n
        token = format_point(f, r, notation)
        x, y = at(i)
        svg.open("g", {"class_": "place", "data_target": token})
        svg.add("circle", {"class_": "point", "cx": x, "cy": y, "r": S / 2,
                           "fill": "#ffffff", "fill_opacity": 0})
        owner = game.stone(f, r)
        if owner is not None:
            classes = f"piece p{owner}" + (" removable" if i in removable else "")
            svg.add("circle", {"class_": classes, "data_piece": token, "cx": x, "cy": y,
                               "r": S * 0.42, "fill": INK if owner == 0 else PAPER,
                               "stroke": INK, "stroke_width": 1.5})
        elif i in legal:
            svg.add("circle", {"class_": "legal", "cx": x, "cy": y, "r": S * 0.12,
                               "fill": LEGAL, "pointer_events": "none"})
        svg.close("g")
    svg.close("g")

    svg.open("g", {"class_": "marks", "pointer_events": "none"})
    for i in sorted(removable):
        x, y = at(i)
        d = S * 0.16
        svg.add("path", {"class_": "removable", "data_point": format_point(i % n, i // n,
                                                                           notation),
                         "d": f"M{x - d:g},{y - d:g}L{x + d:g},{y + d:g}"
                              f"M{x - d:g},{y + d:g}L{x + d:g},{y - d:g}",
                         "stroke": REMOVABLE, "stroke_width": 3, "stroke_linecap": "round"})
    for point, why in ((banned, "no-place"), (protected, "no-remove")):
        if point is None:
            continue
        x, y = at(point)
        svg.add("rect", {"class_": f"restricted {why}",
                         "data_point": format_point(point % n, point // n, notation),
                         "x": x - S * 0.47, "y": y - S * 0.47, "width": S * 0.94,
                         "height": S * 0.94, "fill": "none", "stroke": REMOVABLE,
                         "stroke_width": 2, "stroke_dasharray": "4 3"})
    if options.last_move and game.history:
        last = game.history[-1]
        if last.point >= 0:
            x, y = at(last.point)
            svg.add("circle", {"class_": "last-move", "cx": x, "cy": y, "r": S * 0.15,
                               "fill": HIGHLIGHT})
    svg.close("g")

    def anchor(move: Any) -> tuple[float, float] | None:
        assert isinstance(move, FlickerMove)
        return at(move.point) if move.point >= 0 else None

    extra = draw_overlays(svg, game, options, anchor, S)
    grid_labels(svg, n, notation, M, S, False, BAR + 16, 14)
    lines = [caption(game, options), *extra]
    if removable or banned is not None or protected is not None:
        lines[0] += " (x: removable; dashed: restricted)"
    bottom = M + span + S / 2
    draw_caption(svg, view_w / 2, bottom + 46, lines[:2], 14)
    view_h = bottom + 46 + 14 * 1.3 * min(len(lines), 2) + 4
    return view_w, view_h, "board flicker"
