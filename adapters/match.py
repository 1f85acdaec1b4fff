"""``gtpgames match``: a tournament manager for any GTP engines, with our rules core as referee.

Engines run as subprocesses (:mod:`adapters.match_engine`). For each game the runner sets up
both engines (``gtpgames-game`` when the engine knows it, else ``boardsize``; then
``clear_board``, the time settings, the opening moves), asks the side to move for ``genmove``,
validates the answer with the rules core (``play_text``) and relays it to the other engine with
``play``. An illegal or unparsable move, a timeout, a crash, garbage output or a failed setup
command loses the game for that engine, is recorded with the reason, and the engine is
restarted. Every game is appended to the JSON-lines record as it ends
(:mod:`adapters.match_record`); a killed match resumes from that file. Statistics are in
:mod:`adapters.match_stats`. The formats and options are documented in docs/tournaments.md.
"""

from __future__ import annotations

import dataclasses
import datetime
import queue
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from adapters.match_engine import EngineFailure, EngineSpec, GtpProcess
from adapters.match_record import SGF_GAMES, RecordFile, sgf_bytes
from adapters.match_stats import EloEstimate, Sprt, elo_estimate
from engine.core import Game, GameError
from engine.notation import Notation
from engine.registry import new_game

Format = Literal["round-robin", "gauntlet"]


# ----------------------------------------------------------------------------- time control


@dataclasses.dataclass(frozen=True)
class TimeControlSpec:
    """``MAIN`` (absolute), ``MAIN+PERIOD/STONES`` (Canadian), ``MAIN+PERIODxCOUNT``
    (Japanese byo-yomi); seconds."""

    kind: Literal["absolute", "canadian", "byoyomi"]
    main: float
    period: float = 0.0
    count: int = 0

    @classmethod
    def parse(cls, text: str) -> TimeControlSpec:
        match = re.fullmatch(r"(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?)([/x])(\d+))?", text.strip())
        if match is None:
            raise ValueError(
                f"--tc: expected MAIN, MAIN+PERIOD/STONES or MAIN+PERIODxCOUNT, got {text!r}"
            )
        main = float(match.group(1))
        if match.group(2) is None:
            return cls("absolute", main)
        count = int(match.group(4))
        if count < 1:
            raise ValueError(f"--tc: the stone or period count must be positive in {text!r}")
        kind: Literal["canadian", "byoyomi"] = "canadian" if match.group(3) == "/" else "byoyomi"
        return cls(kind, main, float(match.group(2)), count)

    def commands(self, proc: GtpProcess) -> list[str]:
        """The clock command for this engine: kgs-time_settings if known, else time_settings
        (byo-yomi approximated as one stone per period)."""
        main, period = round(self.main), round(self.period)
        if proc.known("kgs-time_settings"):
            if self.kind == "absolute":
                return [f"kgs-time_settings absolute {main}"]
            return [f"kgs-time_settings {self.kind} {main} {period} {self.count}"]
        if proc.known("time_settings"):
            if self.kind == "absolute":
                return [f"time_settings {main} 0 0"]
            stones = self.count if self.kind == "canadian" else 1
            return [f"time_settings {main} {period} {stones}"]
        return []


class Clock:
    """The runner's clock of one player in one game."""

    def __init__(self, spec: TimeControlSpec) -> None:
        self.spec = spec
        self.main = spec.main
        self.period_left = spec.period
        self.stones_left = 0  # 0 while in main time
        self.periods_left = spec.count

    def available(self) -> float:
        """Seconds this player may use on the next move."""
        if self.spec.kind == "absolute":
            return self.main
        if self.spec.kind == "canadian":
            return self.main + self.spec.period if self.stones_left == 0 else self.period_left
        return self.main + self.spec.period * self.periods_left

    def time_left(self) -> tuple[int, int]:
        """The arguments of ``time_left``: seconds and stones (periods for byo-yomi)."""
        if self.spec.kind == "canadian" and self.stones_left:
            return int(self.period_left), self.stones_left
        if self.spec.kind == "byoyomi" and self.main <= 0:
            return int(self.spec.period), self.periods_left
        return int(self.main), 0

    def spend(self, seconds: float) -> bool:
        """Charge a move; False if the flag fell."""
        if seconds > self.available():
            return False
        spec = self.spec
        if spec.kind == "absolute":
            self.main -= seconds
        elif spec.kind == "canadian":
            if self.stones_left == 0:
                overflow = seconds - self.main
                self.main = max(0.0, self.main - seconds)
                if overflow > 0:
                    self.period_left = spec.period - overflow
                    self.stones_left = spec.count - 1
                    if self.stones_left == 0:
                        self.period_left, self.stones_left = spec.period, spec.count
            else:
                self.period_left -= seconds
                self.stones_left -= 1
                if self.stones_left == 0:
                    self.period_left, self.stones_left = spec.period, spec.count
        else:
            overflow = seconds - self.main
            self.main = max(0.0, self.main - seconds)
            if overflow > 0 and spec.period > 0:
                self.periods_left -= int(overflow // spec.period)
        return True


# ---------------------------------------------------------------------------------- config


@dataclasses.dataclass
class MatchConfig:
    game: str
    engines: list[EngineSpec]
    options: dict[str, str] = dataclasses.field(default_factory=dict)
    games_per_pairing: int = 2
    format: Format = "round-robin"
    openings: list[list[str]] = dataclasses.field(default_factory=list)
    time_control: TimeControlSpec | None = None
    move_timeout: float = 60.0
    command_timeout: float = 30.0
    grace: float = 1.0
    jobs: int = 1
    sprt: Sprt | None = None
    record: Path = Path("match.jsonl")
    sgf_dir: Path | None = None
    max_moves: int = 2000
    notation: Notation | None = None
    #: Write an SVG picture of each final position (beside the SGF records, or the record).
    pictures: bool = False

    def new_referee(self) -> Game[Any]:
        return new_game(self.game, **self.options)

    def validate(self) -> None:
        names = [engine.name for engine in self.engines]
        if len(names) < 2:
            raise ValueError("a match needs at least two engines")
        if len(set(names)) != len(names):
            raise ValueError(f"engine names must be unique, got {names}")
        referee = self.new_referee()
        if referee.num_players != 2:
            raise ValueError(f"{self.game}: the match runner plays two-player games only")
        if self.games_per_pairing < 1:
            raise ValueError("--games must be at least 1")
        if self.sprt is not None and len(self.pairings()) != 1:
            raise ValueError("--sprt needs exactly one pairing (two engines, or a gauntlet "
                             "of two)")
        notation = self.notation or referee.DEFAULT_NOTATION
        for number, opening in enumerate(self.openings, 1):
            game = referee.new_game()
            for token in opening:
                try:
                    game.play_text(token, notation)
                except GameError as error:
                    raise ValueError(f"opening {number}: {token!r}: {error}") from None
            if game.is_over():
                raise ValueError(f"opening {number} ends the game")

    def pairings(self) -> list[tuple[str, str]]:
        names = [engine.name for engine in self.engines]
        if self.format == "gauntlet":
            return [(names[0], other) for other in names[1:]]
        return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]


def parse_openings(text: str) -> list[list[str]]:
    """One opening per line, moves separated by spaces; ``#`` starts a comment."""
    openings = []
    for line in text.splitlines():
        moves = line.split("#", 1)[0].split()
        if moves:
            openings.append(moves)
    return openings


@dataclasses.dataclass(frozen=True)
class GameSpec:
    index: int
    round: int
    pairing: tuple[str, str]
    black: str  # plays the colour b (player 0)
    white: str  # plays the colour w (player 1)
    opening: int | None


def schedule(config: MatchConfig) -> list[GameSpec]:
    """Game k of a pairing (A, B): A plays b when k is even, w when odd; the opening is
    number k // 2, so both engines play each opening with each colour. Rounds are
    interleaved over the pairings; indexes stay the same when --games grows."""
    specs = []
    pairings = config.pairings()
    for k in range(config.games_per_pairing):
        for p, (a, b) in enumerate(pairings):
            black, white = (a, b) if k % 2 == 0 else (b, a)
            opening = (k // 2) % len(config.openings) if config.openings else None
            specs.append(GameSpec(k * len(pairings) + p, k, (a, b), black, white, opening))
    return specs


# ----------------------------------------------------------------------------- one game


class Forfeit(Exception):
    def __init__(self, loser: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.loser = loser
        self.kind = kind


class EnginePool:
    """The engine processes of one worker; a process is (re)started when needed."""

    def __init__(self, config: MatchConfig) -> None:
        self.config = config
        self.specs = {spec.name: spec for spec in config.engines}
        self.procs: dict[str, GtpProcess] = {}

    def get(self, name: str) -> GtpProcess:
        if name not in self.procs:
            self.procs[name] = GtpProcess(self.specs[name], self.config.command_timeout)
        return self.procs[name]

    def restart(self, name: str) -> None:
        proc = self.procs.pop(name, None)
        if proc is not None:
            proc.close()

    def close(self) -> None:
        for name in list(self.procs):
            self.restart(name)


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def play_game(spec: GameSpec, config: MatchConfig, pool: EnginePool) -> dict[str, Any]:
    """Play one game and return its record; engines that failed are restarted."""
    referee = config.new_referee()
    notation: Notation = config.notation or referee.DEFAULT_NOTATION
    names = (spec.black, spec.white)
    opening = config.openings[spec.opening] if spec.opening is not None else []
    moves: list[str] = []
    colours: list[str] = []
    times = [0.0, 0.0]
    clocks = [Clock(config.time_control), Clock(config.time_control)] \
        if config.time_control else None
    started = now()
    winner: int | None = None
    kind = "win"
    reason = ""

    def call(player: int, command: str, timeout: float | None = None) -> tuple[bool, str]:
        try:
            return pool.get(names[player]).send(command, timeout)
        except EngineFailure as failure:
            raise Forfeit(player, failure.kind, str(failure)) from None

    def must(player: int, command: str) -> None:
        ok, text = call(player, command)
        if not ok:
            raise Forfeit(player, "error", f"{names[player]}: {command!r} failed: {text}")

    try:
        for player in (0, 1):
            try:
                proc = pool.get(names[player])
                if proc.known("gtpgames-game"):
                    described = " ".join(f"{k}={v}" for k, v in sorted(config.options.items()))
                    must(player, f"gtpgames-game {config.game} {described}".strip())
                    if config.notation and proc.known("gtpgames-notation"):
                        must(player, f"gtpgames-notation {config.notation}")
                elif "size" in referee.options:
                    must(player, f"boardsize {referee.board_size}")
                must(player, "clear_board")
                if config.time_control is not None:
                    for command in config.time_control.commands(proc):
                        must(player, command)
            except EngineFailure as failure:
                raise Forfeit(player, failure.kind, str(failure)) from None
        for token in opening:
            colour = referee.color_name(referee.to_move)
            referee.play_text(token, notation)
            colours.append(colour)
            for player in (0, 1):
                must(player, f"play {colour} {token}")
        while (outcome := referee.outcome()) is None:
            if len(moves) + len(opening) >= config.max_moves:
                kind, reason = "move-limit", f"no result after {config.max_moves} moves"
                break
            player = referee.side_of(referee.to_move)
            colour = referee.color_name(referee.to_move)
            deadline = config.move_timeout
            if clocks is not None:
                try:
                    knows_time_left = pool.get(names[player]).known("time_left")
                except EngineFailure as failure:
                    raise Forfeit(player, failure.kind, str(failure)) from None
                if knows_time_left:
                    seconds, stones = clocks[player].time_left()
                    must(player, f"time_left {colour} {seconds} {stones}")
                deadline = clocks[player].available()
            start = time.monotonic()
            ok, text = call(player, f"genmove {colour}", deadline + config.grace)
            elapsed = time.monotonic() - start
            times[player] += elapsed
            if clocks is not None and not clocks[player].spend(elapsed):
                raise Forfeit(player, "timeout", f"{names[player]}: out of time "
                              f"({elapsed:.2f} s used, {deadline:.2f} s left)")
            if not ok:
                raise Forfeit(player, "error", f"{names[player]}: genmove failed: {text}")
            token = text.split()[0] if text.split() else ""
            if token.lower() == "resign":
                winner, kind = 1 - player, "resign"
                reason = f"{names[player]} resigned"
                break
            try:
                referee.play_text(token, notation)
            except GameError as error:
                raise Forfeit(player, "illegal",
                              f"{names[player]} played {token!r}: {error}") from None
            moves.append(token)
            colours.append(colour)
            other = 1 - player
            ok, text = call(other, f"play {colour} {token}")
            if not ok:
                raise Forfeit(other, "error",
                              f"{names[other]} rejected {colour} {token}: {text}")
        else:
            winner = None if outcome.winner is None else referee.side_of(outcome.winner)
            kind = "win" if winner is not None else "draw"
            reason = outcome.reason
    except Forfeit as forfeit:
        winner, kind, reason = 1 - forfeit.loser, forfeit.kind, str(forfeit)
        pool.restart(names[forfeit.loser])
    result = "draw" if winner is None else ("b", "w")[winner]
    return {
        "index": spec.index,
        "round": spec.round,
        "pairing": list(spec.pairing),
        "game_name": config.game,
        "options": {spec.name: spec.format(referee.options[spec.name])
                    for spec in referee.OPTIONS},
        "notation": notation,
        "black": spec.black,
        "white": spec.white,
        "opening": opening,
        "moves": moves,
        "colours": colours,
        "result": result,
        "winner": None if winner is None else names[winner],
        "winner_colour": None if winner is None else ("b", "w")[winner],
        "reason_kind": kind,
        "reason": reason,
        "times": {"b": round(times[0], 3), "w": round(times[1], 3)},
        "started": started,
        "finished": now(),
    }


# ----------------------------------------------------------------------------- the match


@dataclasses.dataclass
class Tally:
    wins: int = 0
    draws: int = 0
    losses: int = 0

    def add(self, score: float) -> None:
        if score == 1.0:
            self.wins += 1
        elif score == 0.0:
            self.losses += 1
        else:
            self.draws += 1

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def elo(self) -> EloEstimate:
        return elo_estimate(self.wins, self.draws, self.losses)


def score_for(record: dict[str, Any], name: str) -> float | None:
    """1, 1/2 or 0 for engine ``name`` in this game; None if it did not play."""
    if name not in (record["black"], record["white"]):
        return None
    if record["winner"] is None:
        return 0.5
    return 1.0 if record["winner"] == name else 0.0


@dataclasses.dataclass
class Standings:
    engines: dict[str, Tally]
    pairings: dict[tuple[str, str], Tally]

    @classmethod
    def of(cls, config: MatchConfig, records: list[dict[str, Any]]) -> Standings:
        engines = {spec.name: Tally() for spec in config.engines}
        pairings = {pair: Tally() for pair in config.pairings()}
        for record in records:
            pair = (record["pairing"][0], record["pairing"][1])
            for name in pair:
                score = score_for(record, name)
                if score is not None and name in engines:
                    engines[name].add(score)
            first = score_for(record, pair[0])
            if pair in pairings and first is not None:
                pairings[pair].add(first)
        return cls(engines, pairings)


class Match:
    def __init__(self, config: MatchConfig,
                 on_game: Callable[[dict[str, Any]], None] | None = None) -> None:
        config.validate()
        self.config = config
        self.records = RecordFile(config.record)
        self.on_game = on_game
        self.stop = threading.Event()
        self.decision: str | None = None

    def resume(self) -> tuple[list[GameSpec], list[dict[str, Any]]]:
        """The games still to play, and the finished records (checked against the
        schedule)."""
        specs = schedule(self.config)
        by_index = {spec.index: spec for spec in specs}
        done = self.records.read()
        finished = set()
        for record in done:
            spec = by_index.get(record["index"])
            if spec is not None and (record["black"], record["white"]) != (spec.black, spec.white):
                raise ValueError(
                    f"{self.config.record}: game {record['index']} was {record['black']} - "
                    f"{record['white']}, this match schedules {spec.black} - {spec.white} "
                    "(another match's record file?)"
                )
            finished.add(record["index"])
        return [spec for spec in specs if spec.index not in finished], done

    def check_sprt(self, records: list[dict[str, Any]]) -> None:
        sprt = self.config.sprt
        if sprt is None:
            return
        tally = Standings.of(self.config, records).pairings[self.config.pairings()[0]]
        decision = sprt.decision(tally.wins, tally.draws, tally.losses)
        if decision is not None:
            self.decision = decision
            self.stop.set()

    def run(self, progress: Callable[[int, int], None] | None = None) -> list[dict[str, Any]]:
        """Play every game not yet recorded; return all the records."""
        todo, records = self.resume()
        total = len(todo) + len(records)
        lock = threading.Lock()
        self.check_sprt(records)
        if progress is not None:
            progress(len(records), total)
        jobs: queue.Queue[GameSpec] = queue.Queue()
        for spec in todo:
            jobs.put(spec)

        def worker() -> None:
            pool = EnginePool(self.config)
            try:
                while not self.stop.is_set():
                    try:
                        spec = jobs.get_nowait()
                    except queue.Empty:
                        return
                    record = play_game(spec, self.config, pool)
                    self.records.append(record)
                    if self.config.sgf_dir is not None and self.config.game in SGF_GAMES:
                        self.write_sgf(record)
                    if self.config.pictures:
                        self.write_picture(record)
                    with lock:
                        records.append(record)
                        self.check_sprt(records)
                        if progress is not None:
                            progress(len(records), total)
                    if self.on_game is not None:
                        self.on_game(record)
            finally:
                pool.close()

        threads = [threading.Thread(target=worker, daemon=True)
                   for _ in range(max(1, min(self.config.jobs, len(todo))))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return records

    def write_picture(self, record: dict[str, Any]) -> None:
        """``GAME-NNNNN.svg``: the final position of the game, in the SGF directory if there
        is one, else beside the record file."""
        from adapters.render import render_svg

        referee = self.config.new_referee()
        for token in record["opening"] + record["moves"]:
            referee.play(referee.parse_move(token, record["notation"]))
        folder = self.config.sgf_dir or self.config.record.parent
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.config.game}-{record['index']:05d}.svg"
        path.write_text(render_svg(referee, notation=record["notation"]) + "\n",
                        encoding="utf-8")

    def write_sgf(self, record: dict[str, Any]) -> None:
        assert self.config.sgf_dir is not None
        referee = self.config.new_referee()
        gtp_moves = []
        for token in record["opening"] + record["moves"]:
            move = referee.parse_move(token, record["notation"])
            gtp_moves.append(referee.format_move(move, "gtp"))
            referee.play(move)
        self.config.sgf_dir.mkdir(parents=True, exist_ok=True)
        path = self.config.sgf_dir / f"{self.config.game}-{record['index']:05d}.sgf"
        path.write_bytes(sgf_bytes(record, referee.board_size, gtp_moves))
