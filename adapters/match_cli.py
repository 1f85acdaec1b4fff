"""The ``gtpgames match`` command: builds a :class:`~adapters.match.MatchConfig` from the
command line, runs the match with a rich progress bar on stderr, and prints the results table
(score, Elo difference with its 95% interval, the SPRT state) on stdout."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from adapters.match import Format, Match, MatchConfig, Standings, TimeControlSpec, parse_openings
from adapters.match_engine import EngineSpec
from adapters.match_stats import parse_sprt
from engine.notation import check_notation


def build_config(
    game: str,
    engines: list[str],
    options: list[str],
    games: int,
    format: str,
    openings: Path | None,
    tc: str | None,
    move_timeout: float,
    jobs: int,
    sprt: str | None,
    record: Path,
    sgf_dir: Path | None,
    max_moves: int,
    notation: str | None,
    pictures: bool = False,
) -> MatchConfig:
    """Raises ValueError with a message naming the bad argument."""
    pairs: dict[str, str] = {}
    for item in options:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--option expects KEY=VALUE, got {item!r}")
        pairs[key.lower()] = value
    if format not in ("round-robin", "gauntlet"):
        raise ValueError(f"--format: expected round-robin or gauntlet, got {format!r}")
    the_format: Format = "gauntlet" if format == "gauntlet" else "round-robin"
    return MatchConfig(
        game=game,
        engines=[EngineSpec.parse(text) for text in engines],
        options=pairs,
        games_per_pairing=games,
        format=the_format,
        openings=parse_openings(openings.read_text(encoding="utf-8")) if openings else [],
        time_control=TimeControlSpec.parse(tc) if tc and tc != "none" else None,
        move_timeout=move_timeout,
        jobs=jobs,
        sprt=parse_sprt(sprt) if sprt else None,
        record=record,
        sgf_dir=sgf_dir,
        max_moves=max_moves,
        notation=check_notation(notation) if notation else None,
        pictures=pictures,
    )


def elo_text(low: float, elo: float, high: float) -> str:
    if not math.isfinite(elo):
        return "+inf" if elo > 0 else "-inf"
    margin = (high - low) / 2
    elo += 0.0  # no "-0.0"
    return f"{elo:+.1f} ± {margin:.1f}" if math.isfinite(margin) else f"{elo:+.1f} ± inf"


def results_table(match: Match, records: list[dict[str, Any]]) -> Table:
    standings = Standings.of(match.config, records)
    table = Table(title=f"{match.config.game}: {len(records)} games")
    for column in ("engine", "games", "wins", "draws", "losses", "score", "Elo (95%)"):
        table.add_column(column, justify="left" if column == "engine" else "right")
    for name, tally in standings.engines.items():
        estimate = tally.elo()
        table.add_row(name, str(tally.games), str(tally.wins), str(tally.draws),
                      str(tally.losses), f"{100 * estimate.score:.1f}%",
                      elo_text(estimate.low, estimate.elo, estimate.high))
    for (a, b), tally in standings.pairings.items():
        estimate = tally.elo()
        table.add_row(f"{a} vs {b}", str(tally.games), str(tally.wins), str(tally.draws),
                      str(tally.losses), f"{100 * estimate.score:.1f}%",
                      elo_text(estimate.low, estimate.elo, estimate.high))
    return table


def run(config: MatchConfig, quiet: bool = False) -> int:
    match = Match(config)
    err = Console(stderr=True)
    out = Console()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  console=err, disable=quiet, transient=False) as progress:
        task = progress.add_task(f"{config.game} match", total=None)

        def report(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        records = match.run(report)
    out.print(results_table(match, records))
    if config.sprt is not None:
        tally = Standings.of(config, records).pairings[config.pairings()[0]]
        llr = config.sprt.llr(tally.wins, tally.draws, tally.losses)
        verdict = {"H1": "H1 accepted (elo1)", "H0": "H0 accepted (elo0)"}.get(
            match.decision or "", "no decision yet")
        out.print(f"SPRT elo0={config.sprt.elo0:g} elo1={config.sprt.elo1:g} "
                  f"alpha={config.sprt.alpha:g} beta={config.sprt.beta:g}: "
                  f"LLR {llr:.3f} [{config.sprt.lower:.3f}, {config.sprt.upper:.3f}], "
                  f"{verdict}")
    kinds: dict[str, int] = {}
    for record in records:
        kind = str(record["reason_kind"])
        kinds[kind] = kinds.get(kind, 0) + 1
    out.print("endings: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    return 0
