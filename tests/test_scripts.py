"""The scripts under scripts/ describe themselves: ``--help`` has a description and a help
text for every argument, and only prints it (``update_doc_sessions --help`` rewrites no file)."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
SCRIPTS = sorted(path.stem for path in (ROOT / "scripts").glob("*.py") if path.stem[0] != "_")


@pytest.mark.parametrize("name", SCRIPTS)
def test_script_help_describes_every_argument(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsers: list[argparse.ArgumentParser] = []

    def capture(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        parsers.append(self)
        raise SystemExit(0)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", capture)
    module = importlib.import_module(f"scripts.{name}")
    with pytest.raises(SystemExit):
        module.main()
    assert len(parsers) == 1, f"scripts.{name} parses no arguments"
    parser = parsers[0]
    assert parser.description
    undescribed = [action.option_strings or action.dest for action in parser._actions
                   if not action.help or action.help == argparse.SUPPRESS]
    assert undescribed == []


def test_update_doc_sessions_help_only_prints_help() -> None:
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    before = {path: path.stat().st_mtime_ns for path in docs}
    done = subprocess.run([sys.executable, "-m", "scripts.update_doc_sessions", "--help"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:") and "--check" in done.stdout
    assert {path: path.stat().st_mtime_ns for path in docs} == before


@pytest.mark.slow
def test_bench_online_runs_small() -> None:
    """The load benchmark of the game server, with a handful of games: the server killed and
    restarted in the middle, and no game lost or corrupted (its exit status says so)."""
    done = subprocess.run([sys.executable, "-m", "scripts.bench_online", "--games", "5",
                           "--kill-at", "30", "--timeout", "300"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "killed and restarted: yes" in done.stdout
    assert "lost games: 0, corrupted games: 0" in done.stdout


@pytest.mark.slow
def test_bench_endings_runs_small() -> None:
    """The endings benchmark on a few positions: the engine never chooses a losing move in
    a drawn ending (the table's draw is kept)."""
    done = subprocess.run([sys.executable, "-m", "scripts.bench_endings", "--positions", "5",
                           "--playouts", "50"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "drawn positions with a losing move: 5;" in done.stdout
    assert "the engine in 0" in done.stdout


@pytest.mark.slow
def test_bench_solve_takes_the_endings_asked_for() -> None:
    """``--back`` picks the endings' distances from the end of the seeded game, one row each,
    and ``--nodes`` bounds each search."""
    done = subprocess.run([sys.executable, "-m", "scripts.bench_solve", "--only", "trisq",
                           "--size", "4", "--back", "2,5", "--nodes", "1000"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split(" | ") for line in done.stdout.splitlines()[2:]]
    assert [row[0] for row in rows] == ["| trisq size=4, 2 plies from the end",
                                        "| trisq size=4, 5 plies from the end",
                                        "| trisq size=4"]
    assert rows[0][1] in ("win", "loss")
    assert all(int(row[2].replace(",", "")) <= 1000 + 1 for row in rows)
