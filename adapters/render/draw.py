"""The drawing helper shared by the board renderers: a small SVG builder with proper escaping,
the palette, the render options, and the overlays every game draws the same way (coordinates,
the caption, the analysis labels and the principal variation).

Plain string building (one ``list.append`` per element) keeps a whole board under a few
milliseconds; every attribute value and text goes through :func:`xml.sax.saxutils` escaping.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from engine.games.core import Game
from engine.games.notation import Notation, column_letter
from engine.search.base import MoveStat

#: Fill and stroke of the pieces of player 0 (Black, Red in Trisq and Brax) and player 1.
INK = "#1b1b1b"
PAPER = "#fbfbf8"
LINE = "#3b3b3b"
LABEL = "#333333"
HIGHLIGHT = "#e8a400"
LEGAL = "#2e9d4f"
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"

Attrs = Mapping[str, object]


def number(value: float) -> str:
    """A coordinate written short: ``12``, ``12.5``, ``12.33``."""
    if value.is_integer():
        return str(int(value))
    return f"{value:.2f}".rstrip("0").rstrip(".")


_SPECIAL = re.compile(r'[&<>"\n\r\t]')


@functools.cache
def _name(key: str) -> str:
    return key.rstrip("_").replace("_", "-")


def _attrs(attrs: Attrs) -> str:
    parts = []
    for key, value in attrs.items():
        if value is None:
            continue
        text = number(value) if isinstance(value, float) else str(value)
        if _SPECIAL.search(text) is not None:
            parts.append(f" {_name(key)}={quoteattr(text)}")
        else:
            parts.append(f' {_name(key)}="{text}"')
    return "".join(parts)


def points_attr(points: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{number(x)},{number(y)}" for x, y in points)


class Svg:
    """An SVG document under construction: elements are appended in drawing order.

    Attribute names are written with ``_`` turned into ``-`` (``stroke_width``) and a
    trailing ``_`` dropped (``class_``); ``None`` values are left out.
    """

    def __init__(self) -> None:
        self.parts: list[str] = []

    def add(self, tag: str, attrs: Attrs, text: str | None = None) -> None:
        if text is None:
            self.parts.append(f"<{tag}{_attrs(attrs)}/>")
        else:
            self.parts.append(f"<{tag}{_attrs(attrs)}>{escape(text)}</{tag}>")

    def open(self, tag: str, attrs: Attrs) -> None:
        self.parts.append(f"<{tag}{_attrs(attrs)}>")

    def close(self, tag: str) -> None:
        self.parts.append(f"</{tag}>")

    def text(
        self, x: float, y: float, content: str, size: float, **attrs: object
    ) -> None:
        """Centred text (both ways) at (x, y)."""
        base: dict[str, object] = {
            "x": float(x),
            "y": float(y),
            "font_size": float(size),
            "text_anchor": "middle",
            "dominant_baseline": "central",
        }
        base.update(attrs)
        self.add("text", base, content)

    def document(self, view_width: float, view_height: float, width: float | None,
                 classes: str) -> str:
        """The whole document; ``width`` (pixels) scales it, keeping the aspect ratio."""
        pixels = view_width if width is None else float(width)
        height = pixels * view_height / view_width
        head = (
            '<svg xmlns="http://www.w3.org/2000/svg"'
            f' viewBox="0 0 {number(view_width)} {number(view_height)}"'
            f' width="{number(pixels)}" height="{number(height)}"'
            f' class="{escape(classes)}" font-family="{FONT}">'
        )
        body = "".join(self.parts)
        return (
            f"{head}<rect class=\"background\" x=\"0\" y=\"0\" width=\"{number(view_width)}\""
            f" height=\"{number(view_height)}\" fill=\"#f4efe4\"/>{body}</svg>"
        )


@dataclasses.dataclass(frozen=True)
class Options:
    """What the caller asked for (see :func:`adapters.render.render_svg`)."""

    notation: Notation
    legal: bool
    analysis: Sequence[MoveStat] | None
    last_move: bool
    #: A short label per move (``W``, ``L``, ``D``, ``?``: a map of solved values).
    marks: Mapping[Any, str] | None = None
    #: The caption of a game that ended outside its rules (a resignation, a loss on time).
    result: str | None = None


#: The colour of a mark's disc by its label (a solved value); other labels get ``LABEL``.
MARK_COLOURS = {"W": "#2e9d4f", "L": "#c0392b", "D": "#7a7a7a", "?": "#b8b8b8"}

#: Maps a move of the game to the place its label goes, or ``None`` (pass, swap).
Anchor = Callable[[Any], tuple[float, float] | None]


def player_word(game: Game[Any], player: int) -> str:
    """``Black``/``White`` (Red/Blue where the game names its sides so)."""
    names: dict[str, tuple[str, ...]] = {
        "trisq": ("Red", "Blue"),
        "brax": ("Red", "Blue"),
    }
    words = names.get(game.name, ("Black", "White"))
    if game.num_players == 2:
        return words[player]
    return f"p{player + 1} ({words[game.side_of(player)]})"


def caption(game: Game[Any], options: Options | None = None) -> str:
    """One line under the board: who is to move, or the result with its reason (the
    caller's ``result`` where the game ended outside its rules)."""
    outcome = game.outcome()
    if outcome is None and options is not None and options.result:
        return options.result
    if outcome is None:
        return f"{player_word(game, game.to_move)} to move"
    reason = outcome.reason
    if outcome.winner is None:
        head = "Draw"
    else:
        head = game.side_names[outcome.winner].capitalize() + " wins"
        if game.name in ("trisq", "brax") and game.num_players == 2:
            head = ("Red", "Blue")[outcome.winner] + " wins"
    if reason.lower().startswith(head.lower()):
        return reason[0].upper() + reason[1:]
    return f"{head}: {reason}"


def draw_caption(svg: Svg, x: float, y: float, lines: Sequence[str], size: float) -> None:
    """Centred lines at (x, y), the font made smaller where a line would not fit in 2x."""
    longest = max((len(line) for line in lines), default=1)
    size = min(size, (2 * x - 12) / (0.56 * longest))
    svg.open("g", {"class_": "caption", "fill": LABEL, "pointer_events": "none"})
    for k, line in enumerate(lines):
        svg.text(x, y + k * size * 1.3, line, size)
    svg.close("g")


def draw_overlays(
    svg: Svg,
    game: Game[Any],
    options: Options,
    anchor: Anchor,
    unit: float,
) -> list[str]:
    """The analysis overlay: for each analysed move (best first, at most 12) a label with
    its visits and win rate at the move's place; the principal variation of the best move
    as numbered discs; the marks, a labelled disc per move. Returns caption lines for
    analysed or marked moves that have no place."""
    extra = draw_marks(svg, game, options, anchor, unit)
    stats = list(options.analysis or ())[:12]
    if not stats:
        return extra
    svg.open("g", {"class_": "analysis", "pointer_events": "none"})
    best = stats[0]
    pv = best.pv or (best.move,)
    player = game.to_move
    for k, move in enumerate(pv[:10]):
        place = anchor(move)
        if place is None:
            continue
        mover = player if game.num_players != 2 else (player + k) % 2
        x, y = place
        fill = INK if mover == 0 else PAPER
        ink = PAPER if mover == 0 else INK
        if game.name in ("trisq", "brax"):
            fill, ink = ("#c0392b", "#ffffff") if mover == 0 else ("#1f5fbf", "#ffffff")
        svg.open("g", {"class_": "pv", "data_move": str(k + 1)})
        svg.add("circle", {"cx": x, "cy": y, "r": unit * 0.24, "fill": fill,
                           "fill_opacity": "0.8", "stroke": HIGHLIGHT,
                           "stroke_width": unit * 0.05})
        svg.text(x, y, str(k + 1), unit * 0.26, fill=ink, font_weight="bold")
        svg.close("g")
    for rank, stat in enumerate(stats):
        token = game.format_move(stat.move, options.notation)
        place = anchor(stat.move)
        label = f"{stat.visits} {stat.winrate * 100:.0f}%"
        if place is None:
            extra.append(f"{token}: {label}")
            continue
        x, y = place
        w, h = unit * 0.95, unit * 0.32
        svg.open("g", {"class_": "stat", "data_move": token, "data_visits": str(stat.visits),
                       "data_winrate": f"{stat.winrate:.4f}"})
        svg.add("rect", {"x": x - w / 2, "y": y + unit * 0.18, "width": w, "height": h,
                         "rx": h / 3, "fill": "#ffffff" if rank else "#fff3c4",
                         "fill_opacity": "0.92", "stroke": HIGHLIGHT if rank == 0 else LINE,
                         "stroke_width": unit * 0.03})
        svg.text(x, y + unit * 0.18 + h / 2, label, unit * 0.2, fill=INK)
        svg.close("g")
    svg.close("g")
    return extra


def draw_marks(
    svg: Svg, game: Game[Any], options: Options, anchor: Anchor, unit: float
) -> list[str]:
    """A disc with its label at the place of each marked move (``<g class="mark"
    data-move= data-mark=>``); caption lines for marked moves without a place."""
    extra: list[str] = []
    if not options.marks:
        return extra
    svg.open("g", {"class_": "marks", "pointer_events": "none"})
    for move, text in options.marks.items():
        token = game.format_move(move, options.notation)
        place = anchor(move)
        if place is None:
            extra.append(f"{token}: {text}")
            continue
        x, y = place
        svg.open("g", {"class_": "mark", "data_move": token, "data_mark": text})
        svg.add("circle", {"cx": x, "cy": y, "r": unit * 0.3,
                           "fill": MARK_COLOURS.get(text, LABEL), "fill_opacity": "0.9",
                           "stroke": PAPER, "stroke_width": unit * 0.04})
        svg.text(x, y, text, unit * 0.3, fill="#ffffff", font_weight="bold")
        svg.close("g")
    svg.close("g")
    return extra


def grid_labels(
    svg: Svg,
    n: int,
    notation: Notation,
    origin: float,
    step: float,
    centred: bool,
    gap: float,
    size: float,
) -> None:
    """:func:`column_labels` of an n x n grid whose first column and top row start at
    ``origin``, ``step`` apart: on the cells' centres (``centred``, a board of squares) or on
    its points; rows are numbered from the bottom."""
    half = 0.5 if centred else 0.0
    edge = origin + (half - 0.5) * step
    column_labels(
        svg,
        [(origin + (f + half) * step, column_letter(f, notation)) for f in range(n)],
        [(origin + (n - 1 - r + half) * step, str(r + 1)) for r in range(n)],
        (edge, edge, edge + n * step, edge + n * step),
        gap,
        size,
    )


def column_labels(
    svg: Svg,
    xs: Sequence[tuple[float, str]],
    ys: Sequence[tuple[float, str]],
    box: tuple[float, float, float, float],
    gap: float,
    size: float,
) -> None:
    """Coordinates on all four edges: ``xs`` (x, letter) above and below the box
    (left, top, right, bottom), ``ys`` (y, number) left and right of it."""
    left, top, right, bottom = box
    svg.open("g", {"class_": "coordinates", "fill": LABEL, "pointer_events": "none"})
    for x, letter in xs:
        svg.text(x, top - gap, letter, size)
        svg.text(x, bottom + gap, letter, size)
    for y, digits in ys:
        svg.text(left - gap, y, digits, size)
        svg.text(right + gap, y, digits, size)
    svg.close("g")
