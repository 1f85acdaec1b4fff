"""Fuzzing the GTP session: random lines and bytes (huge lines, bad ids, non-ASCII text, wild
numbers, every command of ``list_commands`` with random arguments). The session never dies,
every non-empty line gets exactly one well-framed response that echoes its id, no command
answers ``internal error``, and after every failed command the session is unchanged.

The long run (``-m slow``: 20,000 lines per game, every game) prints its counts."""

from __future__ import annotations

import dataclasses
import random
import re
import subprocess
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.gogui import GoGuiCommands, gogui_handlers
from engine.games.registry import available_games, new_game
from engine.search.mcts import MctsPlayer
from engine.search.players import Limit
from protocol.engine import GtpEngine
from protocol.server import build_engine
from protocol.session import GameSession
from tests.protocol.test_e2e import COMMAND

#: One response: head (``=``/``?``, the id), then the text (a streamed response puts its
#: head on a line of its own), ending with exactly one empty line.
FRAMED = re.compile(r"([=?])([0-9]*)(?: [^\n]*|)(\n[^\n]+)*\n\n")
#: Command names that are not commands.
NOT_COMMANDS = ["nosuch", "PLAY", "", "gtpgames-", "gogui-rules", "list_commands\u00a0"]
#: Numbers no command accepts, and some it does.
WILD_NUMBERS = [
    "1" + "0" * 400, "-" + "9" * 5000, "1" * 4301, "-1", "-0", "0", "00", "+3", "1", "2", "3",
    "5", "7", "9", "11", "13", "19", "64", "99", "100", "1000", "86400", "86401", "1000000",
    "10000000", "10000001", "9223372036854775807", "9223372036854775808", "2147483648",
    "-9223372036854775809", "1e308", "-1e308", "1e309", "1e-308", "0.5", "2.5", "-0.0",
    ".5", "5.", "1e3", "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1_000", "0x10",
    "\u0661\u0661", "\uff11\uff12", "\u0663", "\u00b2", "\u2167", "\U0001d7d9",
]
WORDS = [
    "b", "w", "black", "white", "B", "W", "red", "blue", "p1", "p2", "p3", "p4", "p5", "x",
    "pass", "PASS", "swap", "resign", "a1", "c3", "C3", "z99", "a0", "i5", "e3-e4", "e3-e4-d4",
    "e3!", "c3hne", "c3hne+d4vsw", "g7", "size=5", "size=4", "pie=off", "pie=on", "size=x",
    "players=3", "players=4", "first=blue", "=", "brique", "flicker", "trisq", "brax",
    "bricka", "gtp", "native", "none", "absolute", "byoyomi", "canadian", "fischer", "on",
    "off", "playouts", "time", "level", "seed", "notation", "swap_as_pass", "pass_at_end",
    "name", "play", "genmove", "\x00", "\xff", "\ufffd", "é", "\t", "\r", "#", "#x",
]
ODD_SPACES = ["\u00a0", "\u3000", "\u2028", "\u0085", "\u200b", "\x0b", "\x0c", "\x1c"]


def fuzz_engine(game: str, seed: int) -> tuple[GtpEngine, GameSession, GoGuiCommands]:
    """An engine as ``gtpgames gtp`` builds it, with every search cut short: the searching
    player's searches and the counts see GoGui's interrupt at once (in-process, nothing
    clears it), and its limit is a few playouts, so that no line runs for long."""
    player = MctsPlayer(random.Random(seed), kernel=False)
    options = {"size": "5"} if game == "trisq" else {}
    engine, session = build_engine(new_game(game, **options), player, None, Limit(playouts=8))
    handlers = gogui_handlers(engine, session, seed)
    engine.add_commands(handlers)
    gogui = handlers["gtpgames-param"].__self__
    assert isinstance(gogui, GoGuiCommands)
    engine.interrupt.set()
    return engine, session, gogui


def fingerprint(session: GameSession, gogui: GoGuiCommands) -> tuple[object, ...]:
    """Everything a failed command must leave as it was. GoGui's pending clicks are read as
    every GoGui command sees them: after :meth:`GoGuiCommands.sync`, which drops the clicks of
    a turn that another command (``play``, ``undo``, a new game) has overtaken; until then
    they are stale bookkeeping that no command can see."""
    gogui.sync()
    game = session.game
    player = session.player
    return (
        game.name, dict(game.options), tuple(game.history), game.to_move,
        game.board_text(session.notation), session.notation, session.limit, session.komi,
        session.time_control, repr(session.clocks), session.swap_as_pass, session.pass_at_end,
        getattr(player, "level", None), gogui.active, tuple(gogui.pending), gogui.seed,
    )


def expected_id(line: str) -> str:
    """The id a response must echo: the first word when it is all ASCII digits, without its
    leading zeros (words are separated by ASCII spaces and tabs; ``#`` starts a comment)."""
    words = re.split(r"[ \t]+", re.sub(r"[\x00-\x08\x0a-\x1f\x7f]", "", line.split("#")[0]))
    words = [word for word in words if word]
    if words and re.fullmatch(r"[0-9]+", words[0]):
        return words[0].lstrip("0") or "0"
    return ""


def is_blank(line: str) -> bool:
    text = re.sub(r"[\x00-\x08\x0a-\x1f\x7f]", "", line.split("#")[0]).replace("\t", " ")
    return not text.strip(" ")


@dataclasses.dataclass
class Counts:
    lines: int = 0
    answers: int = 0
    failures: int = 0
    crashes: int = 0
    internal_errors: int = 0
    missing: int = 0
    malformed: int = 0
    state_changes: int = 0
    examples: list[str] = dataclasses.field(default_factory=list)

    def bad(self, kind: str, line: str, detail: str = "") -> None:
        setattr(self, kind, getattr(self, kind) + 1)
        if len(self.examples) < 10:
            self.examples.append(f"{kind}: {line[:120]!r} {detail[:200]}")

    @property
    def clean(self) -> bool:
        return not (self.crashes or self.internal_errors or self.missing or self.malformed
                    or self.state_changes)


def run_line(gtp: GtpEngine, session: GameSession, gogui: GoGuiCommands, line: str,
             counts: Counts) -> None:
    counts.lines += 1
    before = fingerprint(session, gogui)
    try:
        response = gtp.handle_line(line)
    except BaseException as error:  # noqa: BLE001 - a crash is what is counted
        counts.bad("crashes", line, repr(error))
        return
    if response is None:
        if not is_blank(line):
            counts.bad("missing", line)
        elif fingerprint(session, gogui) != before:
            counts.bad("state_changes", line, "(an ignored line)")
        return
    counts.answers += 1
    match = FRAMED.fullmatch(response)
    if is_blank(line) or match is None or match.group(2) != expected_id(line):
        counts.bad("malformed", line, repr(response[:200]))
        return
    if match.group(1) == "?":
        counts.failures += 1
        if response.split(" ", 1)[1].startswith("internal error"):
            counts.bad("internal_errors", line)
        elif fingerprint(session, gogui) != before:
            counts.bad("state_changes", line, response[:200])


def wild_word(rng: random.Random, session: GameSession) -> str:
    kind = rng.random()
    if kind < 0.3:
        return rng.choice(WILD_NUMBERS)
    if kind < 0.55:
        return rng.choice(WORDS)
    if kind < 0.75:  # a legal move of the position, to get somewhere
        game = session.game
        if not game.is_over():
            return game.format_move(game.random_move(rng), session.notation)
        return "pass"
    if kind < 0.8:
        return session.game.color_name(session.game.to_move)
    if kind < 0.9:
        return "".join(chr(rng.randrange(32, 0x3000)) for _ in range(rng.randint(1, 8)))
    return "".join(rng.choice("abcdefghjkz0123456789-+!.=") for _ in range(rng.randint(1, 8)))


def random_line(rng: random.Random, commands: list[str], session: GameSession) -> str:
    kind = rng.random()
    if kind < 0.72:
        name = rng.choice(commands)
        if rng.random() < 0.15 and name:  # a leading id
            name = rng.choice(["1", "007", "0", "1" * rng.choice([5, 4301, 20000]), "-1",
                               "\u0663", "1\u00a0"]) + " " + name
        words = [wild_word(rng, session) for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4, 6]))]
        sep = " " if rng.random() < 0.9 else rng.choice(["\t", "  ", *ODD_SPACES])
        return sep.join([name, *words])
    if kind < 0.8:
        data = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 120)))
        return data.decode("utf-8", errors="replace").replace("\n", " ")
    if kind < 0.84:
        size = rng.choice([1_000, 50_000, 1_000_000])
        filler = rng.choice(["a", "9", "\u00e9", "\u00a0", " ", "#"])
        return rng.choice(commands) + " " + filler * size
    if kind < 0.92:
        return rng.choice(ODD_SPACES) * rng.randint(1, 3) + rng.choice(["", "name", "3"])
    if kind < 0.96:
        return rng.choice(["", "   ", "# comment", "\t", "\r", "\x00", "# interrupt"])
    return " ".join(rng.choice(WILD_NUMBERS) for _ in range(rng.randint(1, 4)))


def fuzz(game: str, lines: int, seed: int) -> Counts:
    gtp, session, gogui = fuzz_engine(game, seed)
    listed = gtp.handle_line("list_commands")
    assert listed is not None
    commands = listed[2:-2].split("\n") + NOT_COMMANDS
    assert "gtpgames-param" in commands and "kgs-time_settings" in commands
    rng = random.Random(seed)
    counts = Counts()
    for _ in range(lines):
        line = random_line(rng, commands, session)
        if line.split(" ")[0] in ("quit", "gtpgames-perft"):  # keep counts shallow
            line = re.sub(r"[0-9]+", "1", line)
        run_line(gtp, session, gogui, line, counts)
    if gtp.handle_line("protocol_version") != "= 2\n\n":
        counts.bad("malformed", "protocol_version")
    return counts


@pytest.mark.parametrize("game", available_games())
def test_fuzz_short(game: str) -> None:
    counts = fuzz(game, 300, seed=7)
    assert counts.clean, counts.examples
    assert counts.answers > 200 and counts.failures > 50


@pytest.mark.slow
def test_fuzz_long() -> None:
    """At least 20,000 lines per game; prints the counts (for the record)."""
    totals = []
    for game in available_games():
        start = time.monotonic()
        counts = fuzz(game, 20_000, seed=2026)
        took = time.monotonic() - start
        totals.append(counts)
        print(f"{game}: {counts.lines} lines, {counts.answers} answers ({counts.failures} ?), "
              f"crashes {counts.crashes}, internal errors {counts.internal_errors}, missing "
              f"{counts.missing}, malformed {counts.malformed}, state changes "
              f"{counts.state_changes}, {took:.0f} s")
    for counts in totals:
        assert counts.clean, counts.examples


def test_fuzzer_sees_what_it_counts() -> None:
    """The checks count: a crash, a missing answer, an internal error and a failed command
    that changes the game are each caught."""
    gtp, session, gogui = fuzz_engine("brique", 1)

    def crash(args: tuple[str, ...]) -> str:
        raise SystemExit(1)

    def broken(args: tuple[str, ...]) -> str:
        raise KeyError(args)

    def sloppy(args: tuple[str, ...]) -> str:
        session.game.play(session.game.random_move(random.Random(1)))
        from protocol.gtp import GtpError
        raise GtpError("failed")

    gtp.add_commands({"crash": crash, "broken": broken, "sloppy": sloppy})
    counts = Counts()
    for line in ("crash", "broken", "sloppy", "\u00a0", "3 name", "name"):
        run_line(gtp, session, gogui, line, counts)
    assert (counts.crashes, counts.internal_errors, counts.state_changes) == (1, 1, 1)
    assert counts.answers == 5 and counts.missing == 0  # "\u00a0" is answered now


def strategy_line(commands: list[str]) -> st.SearchStrategy[str]:
    word = st.one_of(st.sampled_from(WORDS + WILD_NUMBERS), st.text(max_size=12))
    command = st.tuples(
        st.one_of(st.none(), st.integers(0, 10**12).map(str), st.sampled_from(["-1", "x"])),
        st.sampled_from(commands),
        st.lists(word, max_size=5),
    ).map(lambda t: " ".join(([t[0]] if t[0] is not None else []) + [t[1], *t[2]]))
    junk = st.text(max_size=200)
    huge = st.integers(1000, 20000).map(lambda n: "play b " + "a" * n)
    return st.one_of(command, command, command, junk, huge)


def listed_commands() -> list[str]:
    gtp, _, _ = fuzz_engine("brique", 1)
    listed = gtp.handle_line("list_commands")
    assert listed is not None
    return listed[2:-2].split("\n") + NOT_COMMANDS


@pytest.mark.parametrize("game", available_games())
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(strategy_line(listed_commands()), min_size=1, max_size=25))
def test_fuzz_session(game: str, lines: list[str]) -> None:
    gtp, session, gogui = fuzz_engine(game, 1)
    counts = Counts()
    for line in lines:
        if "perft" in line:
            line = re.sub(r"\d+", "1", line)
        run_line(gtp, session, gogui, line, counts)
    assert counts.clean, counts.examples
    assert gtp.handle_line("protocol_version") == "= 2\n\n"


def tame(line: str) -> str:
    """Keep perft shallow so that a fuzz case cannot run for minutes."""
    if "perft" in line:
        return re.sub(r"\d+", "1", line)
    return line


@pytest.mark.parametrize("game", [
    game if game == "brique" else pytest.param(game, marks=pytest.mark.slow)
    for game in available_games()
])
def test_fuzz_real_process_with_binary_junk(game: str) -> None:
    rng = random.Random(2024)
    commands = listed_commands()
    chunks = []
    for _ in range(300):
        kind = rng.random()
        if kind < 0.3:
            chunks.append(bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 80))))
        elif kind < 0.35:
            chunks.append(b"x" * rng.randint(10_000, 100_000))
        else:
            words = [rng.choice(commands)] + rng.sample(WORDS, rng.randint(0, 3))
            chunks.append(" ".join(words).encode("utf-8", "replace"))
    script = tame(b"\n".join(chunks).decode("latin-1")).encode("latin-1")
    script = script.replace(b"quit", b"quip") + b"\n1 protocol_version\n"
    done = subprocess.run([*COMMAND, "gtp", game, "--seed", "4", "--playouts", "20"],
                          input=script, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout.decode("utf-8")
    assert out.endswith("=1 2\n\n")
    pos = 0
    while pos < len(out):
        match = FRAMED.match(out, pos)
        assert match, out[pos:pos + 200]
        pos = match.end()
    assert b"Traceback" not in done.stderr, done.stderr[-2000:]
