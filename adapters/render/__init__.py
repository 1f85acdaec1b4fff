"""Board pictures with the true geometry of each game, as SVG (and PNG through cairosvg).

:func:`render_svg` draws any position of any rules core of :mod:`engine` (one module per
game: :mod:`.brique`, :mod:`.trisq`, :mod:`.flicker`, :mod:`.brax`, :mod:`.bricka`; the
shared drawing helper is :mod:`.draw`). The picture shows the board as the rules define it,
the pieces, the game's own marks (Brique's squares a move would fill, Flicker's removable
stones and restricted points, Brax's obligation, Bricka's blocked points), coordinates on
the edges in the requested notation, the last move, and optional overlays: the legal moves,
an analysis (visits and win rate per move, the principal variation of the best move), and
marks (a short label per move, such as the solved value of each first move).

The document contract (what pages and scripts may rely on):

* The root ``<svg>`` has a ``viewBox``, ``width`` and ``height`` (``width`` in pixels as
  asked, the height following the aspect ratio) and ``class="board GAME"``.
* Every clickable place carries ``data-target="TOKEN"``, TOKEN being the move text of that
  place as the game parses it in the requested notation: a point (``c3``) for Brique,
  Flicker, Brax and Bricka (the element is a ``<g class="place">`` holding the place's shape
  and its piece, if any); for Trisq a placement slot (``c3hne``: square, orientation,
  corner), one ``<polygon class="slot">`` per empty slot. A Trisq square with no piece yet
  offers both orientations: the ``h`` slots in ``<g class="slots h" data-square="c3">`` and
  the ``v`` slots in ``<g class="slots v" data-square="c3" display="none">``; a page
  switches orientation by toggling ``display`` on these groups. A two-placement Trisq turn
  joins two tokens with ``+``; a Brax move joins the points of its path with ``-``.
* Every piece is an element with ``data-piece="TOKEN"`` (its place, as above) and
  ``class="piece pK"``, K the player who owns it (0: Black, Red in Trisq and Brax; 1: White,
  Blue; 2, 3: the further seats of Brax's team variants), or ``class="piece neutral"``
  (Bricka's neutral pieces).
* Marks have their own classes: ``last-move``; ``legal`` (with ``legal=True``; Brax's
  movable pieces also get ``data-moves="e1-e2 e1-e3 ..."``, their legal paths); ``fill``
  with ``data-fill`` and ``data-by`` (Brique: the square a stone on ``data-by`` would fill);
  ``removable``, ``restricted no-place`` and ``restricted no-remove`` with ``data-point``
  (Flicker); ``forced`` (Brax); ``blocked`` with ``data-point`` (Bricka); ``segment red`` /
  ``segment blue`` with ``data-colour``, ``data-from``, ``data-to`` (Brax's lines); ``cell``
  with ``data-cell="C01"`` (Bricka's cells); ``side`` with ``data-side="light|green|dark"``
  (Bricka's coloured sides); with an analysis, ``<g class="stat" data-move= data-visits=
  data-winrate=>`` per move and ``<g class="pv" data-move="N">`` per step of the principal
  variation; with ``marks``, ``<g class="mark" data-move= data-mark=>`` per marked move.
  Marks and overlays ignore the pointer (``pointer-events="none"``), so a click
  always reaches the place under it.
* A caption under the board says who is to move, or the result with its reason.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from adapters.render.draw import Options, Svg
from engine.games.core import Game
from engine.games.notation import Notation, check_notation
from engine.search.base import MoveStat

Drawer = Callable[[Any, Options, Svg], tuple[float, float, str]]

__all__ = ["render_png", "render_svg"]


#: Game name -> the module that draws its board (a ``render(game, options, svg)`` function).
DRAWERS: dict[str, str] = {
    "brique": "adapters.render.brique",
    "trisq": "adapters.render.trisq",
    "flicker": "adapters.render.flicker",
    "brax": "adapters.render.brax",
    "bricka": "adapters.render.bricka",
}


def _drawer(name: str) -> Drawer:
    module = DRAWERS.get(name)
    if module is None:
        raise ValueError(f"no board picture for game {name!r}")
    drawer: Drawer = importlib.import_module(module).render
    return drawer


def render_svg(
    game: Game[Any],
    *,
    notation: str = "gtp",
    legal: bool = False,
    analysis: Sequence[MoveStat] | None = None,
    last_move: bool = True,
    width: float | None = None,
    marks: Mapping[Any, str] | None = None,
    result: str | None = None,
) -> str:
    """The position of ``game`` as one SVG document (see the module docstring for what it
    holds). ``notation`` is ``gtp`` or ``native``; ``legal`` marks the legal moves;
    ``analysis`` (root move statistics, best first) adds the analysis overlay; ``marks``
    (move -> a short label: ``W``, ``L``, ``D`` and ``?`` get their own colours) draws a
    labelled disc on each move's place; ``result`` is the caption of a game that ended
    outside its rules (a resignation, a loss on time), shown while its rules see no end;
    ``width`` is the width in pixels (default: the natural size). The game is not
    changed."""
    chosen: Notation = check_notation(notation)
    if width is not None and not width > 0:
        raise ValueError(f"invalid width {width!r}: expected a positive number")
    options = Options(chosen, legal, analysis, last_move, marks, result)
    svg = Svg()
    view_w, view_h, classes = _drawer(game.name)(game, options, svg)
    return svg.document(view_w, view_h, width, classes)


def render_png(
    game: Game[Any],
    path: str | os.PathLike[str] | None = None,
    *,
    notation: str = "gtp",
    legal: bool = False,
    analysis: Sequence[MoveStat] | None = None,
    last_move: bool = True,
    width: float | None = None,
    marks: Mapping[Any, str] | None = None,
) -> bytes:
    """The picture of :func:`render_svg` as PNG bytes, also written to ``path`` if given.
    Raises :class:`RuntimeError` if the cairo library that cairosvg drives is missing."""
    try:
        import cairosvg  # type: ignore[import-untyped]
    except OSError as error:  # cairocffi cannot find libcairo
        raise RuntimeError(f"PNG output needs the cairo library (libcairo2): {error}") from None

    text = render_svg(game, notation=notation, legal=legal, analysis=analysis,
                      last_move=last_move, width=width, marks=marks)
    data: bytes = cairosvg.svg2png(bytestring=text.encode("utf-8"))
    if path is not None:
        with open(path, "wb") as handle:
            handle.write(data)
    return data
