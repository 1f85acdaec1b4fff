"""The rules pages of docs/rules: their worked examples are replayed through the rules cores,
every ruling code the project cites resolves to an anchor of the matching page, and
``gtpgames-rules`` answers the page of the game, from the installed package too.

The example blocks follow the format given in docs/rules/README.md (section "Worked
examples"). A ruling code is cited when it appears in one of these forms (the code list may
be a range, ``X4-X5``, or a list, ``X8, X9``, ``T2, T3 and T9``): in parentheses, ``(X13)``,
``(X10: ...)``, ``(..., T7)``, ``(both draws X14)``; after the words ruling(s), rule, by,
for, of, restriction(s); before ``'s``; after ``#``; or opening a docstring or list line
(``K5: ...``). Board points such as Brax's ``B1-H1`` or
GoGui's ``K10`` are not in these forms.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.gogui import rules_page
from engine.games.core import Game, GameError, IllegalMoveError
from engine.games.registry import GAMES, new_game
from tests.adapters.test_gogui import gogui_engine
from tests.gtp_helpers import ok

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "rules"
PAGES = {path.stem: path for path in sorted(RULES.glob("*.md")) if path.stem != "README"}

#: Ruling letter -> the game whose page holds it.
LETTERS = {"B": "brique", "T": "trisq", "F": "flicker", "X": "brax", "V": "brax", "K": "bricka"}

# ---------------------------------------------------------------------- anchors


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"<[^>]+>", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    found = set(re.findall(r'<a id="([^"]+)"></a>', text))
    found |= {slug(h) for h in re.findall(r"^#+ (.*)$", text, re.M)}
    return found


ANCHORS = {path.name: anchors(path) for path in RULES.glob("*.md")}


def test_every_game_has_a_page() -> None:
    assert set(PAGES) == set(GAMES)


@pytest.mark.parametrize("letter", sorted(LETTERS))
def test_ruling_codes_are_numbered_without_gaps(letter: str) -> None:
    page = f"{LETTERS[letter]}.md"
    numbers = sorted(int(a[1:]) for a in ANCHORS[page] if re.fullmatch(rf"{letter.lower()}\d+", a))
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 4, page


# ------------------------------------------------------------------ citations


def project_files() -> Iterator[Path]:
    """The project's text files (not the virtual environment, caches or build output)."""
    skip = {"__pycache__", "build", "dist", "node_modules"}
    for path in sorted(ROOT.rglob("*")):
        parts = path.relative_to(ROOT).parts
        if any(p in skip or p.endswith(".egg-info") or (p.startswith(".") and p != ".ci")
               for p in parts[:-1]):
            continue
        if path.is_file() and (path.suffix in {".py", ".md", ".perft", ".gtp", ".toml", ".tst",
                                               ".txt"} or path.name == "run"):
            yield path


FILES = list(project_files())

CODE = r"[BTFXVK][1-9][0-9]?"
LIST = rf"{CODE}(?:(?:\s*[-–,]\s*|,?\s+and\s+){CODE})*"
CONTEXTS = [
    re.compile(rf"\((?:rulings?\s+)?({LIST})(?=[)\s:;,']|$)", re.M),
    re.compile(rf"(?:[,;]|\s)\s*({LIST})[).;]"),
    re.compile(rf"\b(?:[Rr]ulings?|[Rr]ules?|by|for|of|restrictions?|never:)\s+({LIST})\b"),
    re.compile(rf"\b({LIST})'s\b"),
    re.compile(rf'^\s*(?:"""|\*|-)?\s*({LIST}):', re.M),
    re.compile(rf"#\s*({LIST})\b"),
]


def expand(codes: str) -> list[str]:
    """The codes of a list such as ``X8-X11, X13 and X14`` (a range lists every code)."""
    out: list[str] = []
    for part in re.split(r",?\s+and\s+|\s*,\s*", codes):
        ends = re.split(r"\s*[-–]\s*", part)
        if len(ends) == 2 and ends[0][0] == ends[1][0]:
            out += [f"{ends[0][0]}{n}" for n in range(int(ends[0][1:]), int(ends[1][1:]) + 1)]
        else:
            out += ends
    return out


def citations(text: str) -> set[str]:
    found: set[str] = set()
    for context in CONTEXTS:
        for match in context.finditer(text):
            found.update(expand(match.group(1)))
    return found


def test_citation_forms() -> None:
    assert citations("draw (X13)") == {"X13"}
    assert citations("no threatened piece (X8, X9); rulings T2, T3 and T9") == {
        "X8", "X9", "T2", "T3", "T9"}
    assert citations("(X10: wait one turn) by K5, X14's draw, (one placement, T7)") == {
        "X10", "K5", "X14", "T7"}
    assert citations("    # B3: the top-left square\nthe call (X8-X11)") == {
        "B3", "X8", "X9", "X10", "X11"}
    assert citations("Red on B1-H1 (B9-H9), GoGui K10, (E3)-E4, 4 x 4 board") == set()


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_cited_rulings_resolve(path: Path) -> None:
    """Each ruling code cited in the file is an anchor of its game's page."""
    text = path.read_text(encoding="utf-8", errors="replace")
    missing = [code for code in sorted(citations(text))
               if code.lower() not in ANCHORS[f"{LETTERS[code[0]]}.md"]]
    assert not missing, f"{path.relative_to(ROOT)} cites rulings with no anchor: {missing}"


def rules_links(path: Path, text: str) -> Iterator[tuple[str, str]]:
    """(page, anchor) for every link into docs/rules: ``docs/rules/<game>.md#<anchor>``
    anywhere, and the Markdown links ``(<game>.md#<anchor>)``, ``(#<anchor>)`` and
    ``(../rules/<game>.md#<anchor>)``."""
    for match in re.finditer(r"docs/rules/([\w.]+\.md)#([\w-]+)", text):
        yield match.group(1), match.group(2)
    if path.suffix != ".md":
        return
    for match in re.finditer(r"\]\(([^)\s#]*)#([\w-]+)\)", text):
        target = (path.parent / match.group(1)).resolve() if match.group(1) else path
        if target.parent == RULES:
            yield target.name, match.group(2)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_links_into_the_rules_resolve(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    broken = [f"{page}#{anchor}" for page, anchor in rules_links(path, text)
              if anchor not in ANCHORS.get(page, set())]
    assert not broken, f"{path.relative_to(ROOT)}: {broken}"


def test_no_file_names_the_old_rules_folder() -> None:
    needle = "shared" + "/"
    named = [str(p.relative_to(ROOT)) for p in FILES
             if needle in p.read_text(encoding="utf-8", errors="replace")]
    assert named == []


# ---------------------------------------------------------------- worked examples

BLOCK = re.compile(r"^```example ([^\n]*)\n(.*?)^```", re.S | re.M)

#: Colour words of the ``pieces:`` statement -> the cell codes of the position strings.
PIECE_CODES = {
    "brique": {"black": "x", "white": "o"},
    "flicker": {"black": "x", "white": "o"},
    "brax": {"red": "r", "blue": "b"},
    "bricka": {"white": "o", "black": "x", "neutral": "n"},
}


def example_blocks() -> list[tuple[str, str, str]]:
    found = []
    for name, path in PAGES.items():
        text = path.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((f"{name}.md:{line}", match.group(1), match.group(2)))
    return found


EXAMPLES = example_blocks()


def test_every_page_has_examples() -> None:
    assert {name.split(".")[0] for name, *_ in EXAMPLES} == set(PAGES)


def board_cells(game: Game[Any]) -> dict[str, str]:
    """Point (native) -> cell code, from the board field of the position string."""
    rows = game.position_string().split()[0].split("/")
    cells: dict[str, str] = {}
    for index, row in enumerate(rows):
        number = len(rows) - index
        codes: list[str | None] = []
        for run, code in re.findall(r"(\d+)|(\D)", row):
            codes += [None] * int(run) if run else [code]
        points = [f"{chr(97 + f)}{number}" for f in range(len(codes) if game.name != "bricka"
                                                         else 13)]
        if game.name == "bricka":
            points = [p for p in points if is_point(game, p)]
        assert len(points) == len(codes), (row, points)
        cells.update({p: c for p, c in zip(points, codes, strict=True) if c is not None})
    return cells


def is_point(game: Game[Any], name: str) -> bool:
    try:
        game.parse_move(name, "native")
    except GameError:
        return False
    return True


def tokens(text: str) -> list[str]:
    return text.split()


def replay(name: str, info: str, body: str) -> None:
    game_name, *option_words = info.split()
    options = dict(word.split("=", 1) for word in option_words)
    game = new_game(game_name, **options)
    lines = body.split("\n")
    at = 0
    while at < len(lines):
        line = lines[at].strip()
        at += 1
        if not line:
            continue
        key, _, value = line.partition(":")
        value = value.strip()
        where = f"{name}: {line!r}"
        if key == "setup":
            *sides, mover = [part.strip() for part in value.split(";")]
            pieces = dict(side.split(None, 1) for side in sides)
            game = type(game).from_position(pieces, mover.removesuffix(" to move"),  # type: ignore[attr-defined]
                                            **options)
        elif key == "play":
            for token in tokens(value):
                assert game.outcome() is None, f"{where}: the game is over before {token}"
                game.play_text(token, "native")
        elif key == "legal":
            listed = sorted(game.format_move(m, "native") for m in game.listed_moves())
            assert listed == sorted(tokens(value)), where
        elif key == "legal count":
            assert len(game.listed_moves()) == int(value), where
        elif key == "can play":
            for token in tokens(value):
                game.copy().play_text(token, "native")
        elif key == "cannot play":
            before = game.position_string()
            for token in tokens(value):
                with pytest.raises(IllegalMoveError):
                    game.play_text(token, "native")
                assert game.position_string() == before, f"{where}: {token} changed the game"
        elif key == "board":
            drawn: dict[str, str] = {}
            while at < len(lines) and re.match(r"\s*\d+\s", lines[at]):
                number, *cells = lines[at].split()
                drawn.update({f"{chr(97 + f)}{number}": c for f, c in enumerate(cells)
                              if c != "."})
                at += 1
            if at < len(lines) and re.fullmatch(r"\s*(?:[a-z]\s*)+", lines[at]):
                at += 1  # the column letters
            assert board_cells(game) == drawn, where
        elif key == "pieces":
            codes = PIECE_CODES[game.name]
            wanted: dict[str, str] = {}
            for part in value.split(";"):
                colour, *points = part.split()
                wanted.update({p: codes[colour] for p in points})
            assert board_cells(game) == wanted, where
        elif key == "to move":
            assert game.outcome() is None and game.to_move == game.parse_color(value), where
        elif key == "result":
            outcome = game.outcome()
            if value == "none":
                assert outcome is None, f"{where}: {outcome}"
                continue
            assert outcome is not None, where
            words = value.split()
            if words[0] == "draw":
                assert outcome.is_draw, f"{where}: {outcome}"
            else:
                assert words[1] == "wins", where
                side = game.side_of(game.parse_color(words[0].lower()))
                assert outcome.winner == side, f"{where}: {outcome}"
            for code in re.findall(rf"\(({CODE})\)", value):
                assert code in outcome.reason, f"{where}: {outcome}"
        else:
            raise AssertionError(f"{where}: unknown statement")


@pytest.mark.parametrize(("name", "info", "body"), EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_worked_example(name: str, info: str, body: str) -> None:
    replay(name, info, body)


def test_a_wrong_example_fails() -> None:
    """The replay checks what the block states: a wrong board or result is caught."""
    with pytest.raises(AssertionError):
        replay("bad", "brique size=4", "play: b2 c2 c3\nboard:\n2  . x o .\n")
    with pytest.raises(AssertionError):
        replay("bad", "brique size=4", "play: a1 d1 b2 a4 c3 d3 d4\nresult: White wins\n")
    with pytest.raises(AssertionError):
        replay("bad", "brax", "legal count: 15\n")
    with pytest.raises(IllegalMoveError):
        replay("bad", "trisq", "play: c3hse+c3hne\n")


# ------------------------------------------------------------------- gtpgames-rules


@pytest.mark.parametrize("game", sorted(GAMES))
def test_rules_command_answers_the_page(game: str) -> None:
    """The answer is the page (without the HTML anchors), well framed: one ruling's sentence
    and the page's last example are in it."""
    player, _ = gogui_engine(game)
    response = player.handle_line("gtpgames-rules")
    assert response is not None and response.count("\n\n") == 1
    answer = ok(player, "gtpgames-rules")
    page = (RULES / f"{game}.md").read_text(encoding="utf-8")
    assert answer == "\n".join(line.rstrip() for line in rules_page(game).split("\n")
                               if line.strip())
    assert "<a id=" not in answer
    first = re.sub(r"<[^>]+>", "", page.split("\n")[0])
    assert answer.startswith(first)
    last_line = page.rstrip().split("\n")[-2]
    assert last_line in answer
    ruling = html.unescape(re.search(r'<a id="[a-z]1"></a>(.*)', page).group(1))  # type: ignore[union-attr]
    assert ruling in answer


def test_rules_page_of_brax_states_x13() -> None:
    assert "drawn after 10 more plies (five moves each) without a capture" in " ".join(
        rules_page("brax").split())


def test_every_package_is_listed() -> None:
    """pyproject.toml lists the packages by hand (for the gtpgames.rules mapping): every
    package directory of the sources must be there, or pip install . would leave it out."""
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = {str(p.parent.relative_to(ROOT)).replace(os.sep, ".")
             for top in ("engine", "protocol", "adapters", "gtpgames")
             for p in (ROOT / top).rglob("__init__.py")}
    assert found | {"gtpgames.rules"} == set(setup["packages"])
    assert setup["package-dir"] == {"gtpgames.rules": "docs/rules"}


@pytest.mark.slow
@pytest.mark.parametrize("editable", [False, True], ids=["install", "editable"])
def test_rules_from_a_fresh_install(tmp_path: Path, editable: bool) -> None:
    """``pip install .`` (and ``-e .``) of a copy of the sources into a new virtual
    environment, then ``gtpgames gtp brique`` run outside the sources answers the page. The
    dependencies come from the running environment (a .pth file), so nothing but the build
    backend is downloaded."""
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache",
        ".hypothesis"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                           "['purelib'])"], check=True, capture_output=True, text=True)
    ours = [p for p in sys.path if p.endswith("site-packages")]
    (Path(site.stdout.strip()) / "running-env.pth").write_text("\n".join(ours) + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps",
                    *(["-e"] if editable else []), str(source)], check=True)
    if not editable:
        shutil.rmtree(source)  # the installed package must stand alone
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    alone = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # tests/conftest.py
    done = subprocess.run([str(venv / "bin" / "gtpgames"), "gtp", "brique"],
                          input="1 gtpgames-rules\n2 quit\n", capture_output=True, text=True,
                          cwd=elsewhere, timeout=120, env=alone)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.split("\n\n")[:2]
    assert first.startswith("=1 # Brique")
    assert "B10. Pie rule as a swap." in first
    assert "(n−1−r, n−1−f)" in first
    assert second == "=2 "
    # the game server's migrations are package data: they build a new database
    made = subprocess.run([str(venv / "bin" / "gtpgames"), "serve", "add-bot", "probe",
                           "--db", f"sqlite:///{elsewhere / 'online.sqlite'}"],
                          capture_output=True, text=True, cwd=elsewhere, timeout=120, env=alone)
    assert made.returncode == 0 and len(made.stdout.strip()) >= 40, made.stderr
    # the pages of the browser app and the game site, subdirectories included
    static = ROOT / "adapters" / "web" / "static"
    wanted = sorted(str(p.relative_to(static)) for p in static.rglob("*") if p.is_file())
    where = subprocess.run([str(python), "-c", "import adapters.web, os; "
                            "print(os.path.dirname(adapters.web.__file__))"],
                           capture_output=True, text=True, cwd=elsewhere, env=alone, check=True)
    installed = Path(where.stdout.strip()) / "static"
    assert [name for name in wanted if not (installed / name).is_file()] == []
