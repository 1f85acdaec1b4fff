"""Brax drawn as it is: the 9 x 9 points joined by the 144 line segments, each in its colour
(red or blue) as the rules' tables give it (:mod:`engine.games.brax_board`), the pieces (the team
variants' seats numbered), the last move's path, and a pending Brax obligation: the forced
pieces ringed and named in the caption."""

from __future__ import annotations

from typing import Any

from adapters.render.draw import (
    HIGHLIGHT,
    LEGAL,
    Options,
    Svg,
    caption,
    draw_caption,
    draw_overlays,
    grid_labels,
    player_word,
    points_attr,
)
from engine.games.brax import Brax, BraxMove
from engine.games.brax_board import BLUE, N, horizontal_colour, vertical_colour
from engine.games.notation import format_point

S = 46.0
M = 44.0
LINE_COLOURS = ("#d0312d", "#1f5fbf")
PIECE_COLOURS = ("#b3201c", "#164a9a")
COLOUR_NAMES = ("red", "blue")
FORCED = "#f2b200"


def render(game: Brax, options: Options, svg: Svg) -> tuple[float, float, str]:
    notation = options.notation
    span = (N - 1) * S
    view_w = span + 2 * M

    def at(p: int) -> tuple[float, float]:
        return M + (p % N) * S, M + (N - 1 - p // N) * S

    svg.add("rect", {"class_": "wood", "x": M - S / 2, "y": M - S / 2, "width": span + S,
                     "height": span + S, "fill": "#f7f3ea", "stroke": "#bdb39c"})
    svg.open("g", {"class_": "segments", "stroke_width": 4, "stroke_linecap": "round"})
    for gy in range(N):
        for gx in range(N):
            x0, y0 = M + gx * S, M + (N - 1 - gy) * S
            if gx < N - 1:
                c = horizontal_colour(gx, gy)
                svg.add("line", {"class_": f"segment {COLOUR_NAMES[c]}",
                                 "data_colour": COLOUR_NAMES[c],
                                 "data_from": format_point(gx, gy, notation),
                                 "data_to": format_point(gx + 1, gy, notation),
                                 "x1": x0 + 6, "y1": y0,
                                 "x2": x0 + S - 6, "y2": y0, "stroke": LINE_COLOURS[c]})
            if gy < N - 1:
                c = vertical_colour(gx, gy)
                svg.add("line", {"class_": f"segment {COLOUR_NAMES[c]}",
                                 "data_colour": COLOUR_NAMES[c],
                                 "data_from": format_point(gx, gy, notation),
                                 "data_to": format_point(gx, gy + 1, notation),
                                 "x1": x0, "y1": y0 - 6,
                                 "x2": x0, "y2": y0 - S + 6, "stroke": LINE_COLOURS[c]})
    svg.close("g")

    owners: dict[int, int] = {}
    for player in range(game.num_players):
        for p in game.pieces(player):
            owners[p] = player
    forced = game.forced if not game.is_over() else frozenset()
    moves_from: dict[int, list[str]] = {}
    if options.legal:
        for move in game.listed_moves():
            if move.paths:
                moves_from.setdefault(move.paths[0][0], []).append(
                    game.format_move(move, notation))
    teams = game.num_players > 2

    if options.last_move and game.history and game.history[-1].paths:
        svg.open("g", {"class_": "last-move", "pointer_events": "none"})
        for path in game.history[-1].paths:
            pts = [at(p) for p in path]
            svg.add("polyline", {"class_": "path", "points": points_attr(pts), "fill": "none",
                                 "stroke": HIGHLIGHT, "stroke_width": 7, "stroke_opacity": 0.9,
                                 "stroke_linecap": "round", "stroke_linejoin": "round"})
            x, y = pts[0]
            svg.add("circle", {"class_": "from", "cx": x, "cy": y, "r": 7, "fill": "none",
                               "stroke": HIGHLIGHT, "stroke_width": 3})
        svg.close("g")

    svg.open("g", {"class_": "board"})
    for p in range(N * N):
        x, y = at(p)
        token = format_point(p % N, p // N, notation)
        svg.open("g", {"class_": "place", "data_target": token})
        svg.add("circle", {"class_": "point", "cx": x, "cy": y, "r": S * 0.45,
                           "fill": "#ffffff", "fill_opacity": 0})
        svg.add("circle", {"cx": x, "cy": y, "r": 3, "fill": "#4a4a4a"})
        seat = owners.get(p)
        if seat is not None:
            side = game.side_of(seat)
            classes = f"piece p{seat} {COLOUR_NAMES[side]}"
            if p in forced:
                classes += " forced"
            if p in moves_from:
                classes += " legal"
            svg.add("circle", {"class_": classes, "data_piece": token, "cx": x, "cy": y,
                               "r": S * 0.34, "fill": PIECE_COLOURS[side],
                               "stroke": "#ffffff" if side == BLUE else "#ffe9e6",
                               "stroke_width": 2,
                               "data_moves": " ".join(moves_from[p]) if p in moves_from
                               else None})
            if teams:
                svg.text(x, y, str(seat + 1), S * 0.3, fill="#ffffff", font_weight="bold",
                         pointer_events="none")
        svg.close("g")
    svg.close("g")

    svg.open("g", {"class_": "marks", "pointer_events": "none"})
    for p in sorted(forced):
        x, y = at(p)
        svg.add("circle", {"class_": "forced", "data_point": format_point(p % N, p // N,
                                                                         notation),
                           "cx": x, "cy": y, "r": S * 0.45, "fill": "none",
                           "stroke": FORCED, "stroke_width": 4, "stroke_dasharray": "6 3"})
    for p in sorted(moves_from):
        x, y = at(p)
        svg.add("circle", {"class_": "legal", "cx": x, "cy": y, "r": S * 0.1, "fill": LEGAL})
    svg.close("g")

    def anchor(move: Any) -> tuple[float, float] | None:
        assert isinstance(move, BraxMove)
        if not move.paths:
            return None
        return at(move.paths[-1][-1])

    extra = draw_overlays(svg, game, options, anchor, S)
    grid_labels(svg, N, notation, M, S, False, 12, 14)
    lines = [caption(game, options), *extra]
    if forced:
        names = " ".join(format_point(p % N, p // N, notation) for p in sorted(forced))
        note = f"Brax! {player_word(game, game.to_move)} must move one of: {names}"
        if not any(move.paths and move.paths[0][0] in forced for move in game.listed_moves()):
            note += " (none can move: the obligation lapses)"
        lines.insert(1, note)
    bottom = M + span + S / 2
    draw_caption(svg, view_w / 2, bottom + 34, lines[:3], 14)
    view_h = bottom + 34 + 14 * 1.3 * min(len(lines), 3) + 4
    return view_w, view_h, "board brax"
