"""Draw the board pictures of the documentation: docs/images/GAME-start.svg and
docs/images/GAME-midgame.svg for each game, with the renderer of ``gtpgames render``.

Usage: python -m scripts.render_docs [OUT_DIR]   (default: docs/images)

tests/adapters/test_render.py runs this into a temporary directory and checks the files equal the
committed ones, so the pictures in the docs always show what the program draws.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from adapters.render import render_svg
from engine.games.registry import new_game

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"

#: game -> (options, notation, moves of the mid-game position)
POSITIONS: dict[str, tuple[dict[str, object], str, str]] = {
    "brique": ({"size": 9}, "gtp", "e6 a7 f1 h4 g8 d8 b7 e5 f8 d6 b4 d9 a3 g5"),
    "trisq": ({}, "gtp", "e5hne d8vne+h8vse e1hnw+f2hne f1vse+g1vnw d6vsw+b7vnw b3vne+d6vnw "
              "d2vne+f8vne d4hne"),
    "flicker": ({"size": 9}, "gtp", "e6 a7 f1 h4 g8 d8 b7 e5 f8 d6 b4 d9 a3 f5 b3 e2 c5 e3 "
                "g6 f2 j7 e1"),
    "brax": ({}, "gtp", "d1-d2-c2 h9-j9 h1-h2 e9-e8-d8 c2-c3 b9-a9 c3-c4-c5 f9-f8-g8 "
             "c5-d5-d6 d8-d7!"),
    "bricka": ({}, "native", "j9 g11 f6 e2 j5 h9 i7 a7 e12 i12 f5 l8 e6 k10 f4 b10 i3 e7"),
}


def pictures() -> dict[str, str]:
    """File name -> SVG text, for every picture of the docs."""
    out: dict[str, str] = {}
    for name, (options, notation, moves) in POSITIONS.items():
        game = new_game(name, **options)
        out[f"{name}-start.svg"] = render_svg(game, notation=notation)
        for token in moves.split():
            game.play_text(token, notation)  # type: ignore[arg-type]
        out[f"{name}-midgame.svg"] = render_svg(game, notation=notation)
    return out


def write(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for file_name, text in pictures().items():
        path = folder / file_name
        path.write_text(text + "\n", encoding="utf-8")
        written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("folder", nargs="?", type=Path, default=IMAGES,
                        help=f"where to write the pictures (default {IMAGES})")
    folder = parser.parse_args().folder
    for path in write(folder):
        print(path)


if __name__ == "__main__":
    main()
