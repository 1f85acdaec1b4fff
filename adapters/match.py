"""``gtpgames match``: a tournament manager for any GTP engines, with our rules core as referee.

Engines run as subprocesses (:mod:`adapters.match_engine`). For each game the runner sets up
both engines (``gtpgames-game`` when the engine knows it, else ``boardsize``; then
``clear_board``, the time settings, the opening moves), asks the side to move for ``genmove``,
validates the answer with the rules core (``play_text``) and relays it to the other engine with
``play``. An illegal or unparsable move, a timeout, a crash, garbage output or a failed setup
command loses the game for that engine, is recorded with the reason, and the engine is
restarted. Every game is appended to the JSON-lines record as it ends
(:mod:`adapters.match_record`); a killed match resumes from that file. Statistics are in
:mod:`adapters.match_stats`. The games run ``jobs`` at a time on threads here, or as Ray tasks
on a cluster (:mod:`adapters.match_cluster`). The formats and options are documented in
docs/tournaments.md.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import queue
import re
import shlex
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from adapters.match_engine import EngineFailure, EngineSpec, GtpProcess
from adapters.match_record import SGF_GAMES, RecordFile, sgf_bytes
from adapters.match_stats import EloEstimate, Sprt, elo_estimate
from engine.games.core import Game, GameError
from engine.games.notation import Notation
from engine.games.registry import new_game

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
    #: The JSON-lines record; None: :func:`default_record` (named after the match).
    record: Path | None = None
    sgf_dir: Path | None = None
    max_moves: int = 2000
    notation: Notation | None = None
    #: Write an SVG picture of each final position (beside the SGF records, or the record).
    pictures: bool = False
    #: A Ray address (``auto``, ``HOST:PORT``, ``ray://HOST:10001``) or ``local``: the games
    #: are played on that cluster (:mod:`adapters.match_cluster`); None: here, ``jobs`` at once.
    cluster: str | None = None

    def new_referee(self) -> Game[Any]:
        return new_game(self.game, **self.options)

    def canonical_options(self) -> dict[str, str]:
        """Every option of the game, as the rules core formats it (as the record keeps it)."""
        referee = self.new_referee()
        return {spec.name: spec.format(referee.options[spec.name]) for spec in referee.OPTIONS}

    def command_line(self, name: str) -> str:
        """The command line of engine ``name``, as the record keeps it."""
        spec = next(spec for spec in self.engines if spec.name == name)
        return shlex.join(spec.cmd)

    def record_path(self) -> Path:
        return self.record if self.record is not None else default_record(self)

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
        if self.cluster is not None and self.jobs != 1:
            raise ValueError("--jobs and --cluster: on a cluster each node plays as many games "
                             "at once as it has CPUs (ray start --num-cpus)")
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


def default_record(config: MatchConfig) -> Path:
    """``match-GAME-HASH.jsonl`` in the current directory: the hash covers the game, its
    options and the engines' names and command lines, so the same command resumes its own
    record and a different match never appends to it."""
    identity = json.dumps(
        {"game": config.game, "options": config.canonical_options(),
         "engines": [[spec.name, list(spec.cmd)] for spec in config.engines]},
        sort_keys=True,
    )
    digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:8]
    return Path(f"match-{config.game}-{digest}.jsonl")


class MatchSetupError(ValueError):
    """The match cannot start (an output that cannot be written, an engine that does not
    start, a record of another match): nothing was played."""


class MatchStopped(RuntimeError):
    """The match stopped before its end (a record or SGF file could not be written); what
    was recorded is kept."""


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


def setup_commands(
    referee: Game[Any], options: Mapping[str, object], known: Callable[[str], bool],
    notation: Notation | None = None,
) -> list[str]:
    """The GTP commands that set an engine up for a new game of ``referee``'s kind with
    ``options`` (as given by the user): ``gtpgames-game GAME KEY=VALUE...`` when the engine
    lists it (and ``gtpgames-notation`` when a notation is asked for and the engine knows
    it), else ``boardsize N`` where the game has a size; then ``clear_board``. ``known``
    tells whether the engine lists a command."""
    commands = []
    if known("gtpgames-game"):
        described = " ".join(f"{key}={value}" for key, value in sorted(options.items()))
        commands.append(f"gtpgames-game {referee.name} {described}".strip())
        if notation and known("gtpgames-notation"):
            commands.append(f"gtpgames-notation {notation}")
    elif "size" in referee.options:
        commands.append(f"boardsize {referee.board_size}")
    return [*commands, "clear_board"]


def canonical(referee: Game[Any], tokens: list[str], notation: Notation) -> list[str]:
    """``tokens`` (legal from the referee's position) as the rules core writes them."""
    game = referee.copy()
    out = []
    for token in tokens:
        move = game.parse_move(token, notation)
        out.append(game.format_move(move, notation))
        game.play_text(out[-1], notation)
    return out


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def play_game(spec: GameSpec, config: MatchConfig, pool: EnginePool) -> dict[str, Any]:
    """Play one game and return its record; engines that failed are restarted."""
    referee = config.new_referee()
    notation: Notation = config.notation or referee.DEFAULT_NOTATION
    names = (spec.black, spec.white)
    opening = canonical(referee, config.openings[spec.opening] if spec.opening is not None
                        else [], notation)
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
                for command in setup_commands(referee, config.options, proc.known,
                                              config.notation):
                    must(player, command)
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
            if clocks is None and elapsed > config.move_timeout:
                raise Forfeit(player, "timeout", f"{names[player]}: took {elapsed:.2f} s, "
                              f"the move timeout is {config.move_timeout:g} s")
            if not ok:
                raise Forfeit(player, "error", f"{names[player]}: genmove failed: {text}")
            if not text.split():
                raise Forfeit(player, "illegal",
                              f"{names[player]} answered genmove {colour} with no move")
            token = text.split()[0]
            if token.lower() == "resign":
                winner, kind = 1 - player, "resign"
                reason = f"{names[player]} resigned"
                break
            try:
                # stored and relayed as the rules core writes it (b5, not B5)
                token = referee.format_move(referee.parse_move(token, notation), notation)
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
        "commands": {name: config.command_line(name) for name in names},
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
                 on_game: Callable[[dict[str, Any]], None] | None = None,
                 on_notice: Callable[[str], None] | None = None) -> None:
        config.validate()
        self.config = config
        self.record_path = config.record_path()
        self.records = RecordFile(self.record_path)
        self.on_game = on_game
        self.on_notice = on_notice
        self.stop = threading.Event()
        self.decision: str | None = None
        #: Why the match stopped before its end (a file that could not be written).
        self.failure: str | None = None
        self._prepared: tuple[list[GameSpec], list[dict[str, Any]]] | None = None
        self._lock = threading.Lock()
        self._records: list[dict[str, Any]] = []
        self._indexes: set[int] = set()
        self._appended = 0
        self._total = 0
        self._progress: Callable[[int, int], None] | None = None
        #: The last run on a cluster (:class:`adapters.match_cluster.ClusterRun`: timings).
        self.cluster_run: Any = None

    def prepare(self) -> tuple[list[GameSpec], list[dict[str, Any]]]:
        """Read the record (:meth:`resume`) and, if games remain, check the outputs and
        start every engine once (on a cluster, each node checks the engines when it gets its
        first game); raises :class:`MatchSetupError`. Done once."""
        if self._prepared is None:
            todo, records = self.resume()
            if todo:
                self.check_outputs()
                if self.config.cluster is None:
                    self.check_engines()
            self._prepared = todo, records
        return self._prepared

    def resume(self) -> tuple[list[GameSpec], list[dict[str, Any]]]:
        """The games still to play, and the finished records (checked against the
        schedule)."""
        specs = schedule(self.config)
        by_index = {spec.index: spec for spec in specs}
        done = self.records.read()
        finished = set()
        options = self.config.canonical_options()
        for record in done:
            spec = by_index.get(record["index"])
            difference = self._difference(record, options)
            if difference is None and spec is not None \
                    and (record["black"], record["white"]) != (spec.black, spec.white):
                difference = (f"was {record['black']} - {record['white']}, this match "
                              f"schedules {spec.black} - {spec.white}")
            if difference is not None:
                raise MatchSetupError(
                    f"{self.record_path}: game {record['index']} {difference} (another "
                    "match's record file? give this match its own --record)"
                )
            finished.add(record["index"])
        return [spec for spec in specs if spec.index not in finished], done

    def _difference(self, record: dict[str, Any], options: dict[str, str]) -> str | None:
        """How a recorded game differs from this match (game, options, engine commands)."""
        config = self.config
        if record.get("game_name") != config.game:
            return f"is a game of {record.get('game_name')}, this match plays {config.game}"
        recorded = record.get("options", {})
        for key in sorted(set(options) | set(recorded)):
            if recorded.get(key) != options.get(key):
                return (f"was played with {key}={recorded.get(key)}, this match has "
                        f"{key}={options.get(key)}")
        names = {spec.name for spec in config.engines}
        for name, command in sorted(record.get("commands", {}).items()):
            if name not in names:
                return f"has engine {name}, which this match does not have"
            if command != config.command_line(name):
                return (f"had engine {name} run as {command!r}, this match runs "
                        f"{config.command_line(name)!r}")
        return None

    def check_outputs(self) -> None:
        """Every file the match writes can be written, before the first game: the record,
        the SGF directory (created if its parent exists) and the engines' stderr logs.
        Missing parent directories are an error, never created."""
        path = self.record_path
        if path.exists():
            if not path.is_file():
                raise MatchSetupError(f"--record {path}: not a file")
            try:
                path.open("ab").close()
            except OSError as error:
                raise MatchSetupError(f"--record {path}: cannot write: {error.strerror}") \
                    from None
        else:
            _check_directory(path.parent, f"--record {path}")
        sgf_dir = self.config.sgf_dir
        if sgf_dir is not None and self.config.game in SGF_GAMES:
            if not sgf_dir.is_dir():
                if not sgf_dir.parent.is_dir():
                    raise MatchSetupError(
                        f"--sgf-dir {sgf_dir}: directory {sgf_dir.parent} does not exist"
                    )
                try:
                    sgf_dir.mkdir()
                except OSError as error:
                    raise MatchSetupError(
                        f"--sgf-dir {sgf_dir}: cannot create: {error.strerror}"
                    ) from None
            _check_directory(sgf_dir, f"--sgf-dir {sgf_dir}")
        for spec in self.config.engines:
            if spec.stderr is None:
                continue
            log = Path(spec.dir or ".") / spec.stderr
            try:
                log.open("ab").close()
            except OSError as error:
                raise MatchSetupError(
                    f"engine {spec.name}: stderr={spec.stderr}: cannot open: "
                    f"{error.strerror or error}"
                ) from None

    def check_engines(self) -> None:
        """Start every engine once and ask it ``protocol_version``: an engine that cannot
        start is an error of the match, not a game lost."""
        for spec in self.config.engines:
            try:
                proc = GtpProcess(spec, self.config.command_timeout)
                try:
                    proc.send("protocol_version")
                finally:
                    proc.close()
            except EngineFailure as failure:
                raise MatchSetupError(f"engine {spec.name} does not start: {failure}") \
                    from None

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
        """Play every game not yet recorded (on this machine's threads, or on the Ray cluster
        of ``config.cluster``); return all the records."""
        todo, records = self.prepare()
        self._prepared = None
        self._records = records
        self._indexes = {record["index"] for record in records}
        self._appended = len(records)
        self._total = len(todo) + len(records)
        self._progress = progress
        self.check_sprt(records)
        if progress is not None:
            progress(len(records), self._total)
        self.play_games(todo)
        if self.failure is not None:
            raise MatchStopped(f"the match stopped: {self.failure} ({self._appended} games "
                               f"recorded in {self.record_path})")
        return records

    def play_games(self, todo: list[GameSpec]) -> None:
        """Play ``todo``, recording each game through :meth:`finish`: here, on
        ``config.jobs`` threads. A match on a Ray cluster (``config.cluster``) is a
        :class:`adapters.match_cluster.ClusterMatch`, which plays them there; :func:`new_match`
        picks the class."""
        if self.config.cluster is not None:
            raise MatchSetupError("a match on a cluster is played by "
                                  "adapters.match_cluster.ClusterMatch (see new_match)")
        self._run_threads(todo)

    def _run_threads(self, todo: list[GameSpec]) -> None:
        """``config.jobs`` threads, each with its own engine processes."""
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
                    try:
                        record = play_game(spec, self.config, pool)
                    except Exception as error:  # noqa: BLE001 - the match stops, cleanly
                        self.fail(error)
                        return
                    if not self.finish(record):
                        return
            finally:
                pool.close()

        threads = [threading.Thread(target=worker, daemon=True)
                   for _ in range(max(1, min(self.config.jobs, len(todo))))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def finish(self, record: dict[str, Any]) -> bool:
        """Record one finished game (JSON line, SGF), then update the SPRT and the progress;
        a game whose index is already recorded is ignored. Thread-safe. False if the match
        must stop: a file could not be written (:attr:`failure`)."""
        with self._lock:
            if record["index"] in self._indexes:
                return True
            self._indexes.add(record["index"])
        try:
            self.records.append(record)
            with self._lock:
                self._appended += 1
            if self.config.sgf_dir is not None and self.config.game in SGF_GAMES:
                self.write_sgf(record)
            if self.config.pictures:
                self.write_picture(record)
        except Exception as error:  # noqa: BLE001 - the match stops, cleanly
            self.fail(error)
            return False
        with self._lock:
            self._records.append(record)
            self.check_sprt(self._records)
            if self._progress is not None:
                self._progress(len(self._records), self._total)
        if self.on_game is not None:
            self.on_game(record)
        return True

    def fail(self, error: Exception | str) -> None:
        """Stop the match: no game is started after this; the first failure is kept."""
        with self._lock:
            if self.failure is None:
                self.failure = error if isinstance(error, str) else _failure_text(error)
        self.stop.set()

    def notice(self, text: str) -> None:
        """Tell the user something about the match that is not a result (a cluster node
        lost or left out)."""
        if self.on_notice is not None:
            self.on_notice(text)
        else:
            print(f"gtpgames: {text}", file=sys.stderr, flush=True)

    def write_picture(self, record: dict[str, Any]) -> None:
        """``GAME-NNNNN.svg``: the final position of the game, in the SGF directory if there
        is one, else beside the record file."""
        from adapters.render import render_svg

        referee = self.config.new_referee()
        for token in record["opening"] + record["moves"]:
            referee.play(referee.parse_move(token, record["notation"]))
        folder = self.config.sgf_dir or self.record_path.parent
        folder.mkdir(exist_ok=True)
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
        path = self.config.sgf_dir / f"{self.config.game}-{record['index']:05d}.sgf"
        path.write_bytes(sgf_bytes(record, referee.board_size, gtp_moves))


def _check_directory(directory: Path, what: str) -> None:
    """``directory`` exists and a file can be created in it."""
    if not directory.is_dir():
        raise MatchSetupError(f"{what}: directory {directory} does not exist")
    try:
        tempfile.TemporaryFile(dir=directory).close()
    except OSError as error:
        raise MatchSetupError(f"{what}: cannot write in {directory}: {error.strerror}") \
            from None


def _failure_text(error: Exception) -> str:
    if isinstance(error, OSError):
        where = f" {error.filename}" if error.filename else ""
        return f"cannot write{where}: {error.strerror or error}"
    return f"{type(error).__name__}: {error}"
