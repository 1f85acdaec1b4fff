"""Fuzzing the GTP session: random lines and bytes (huge lines, bad ids, bad arguments,
binary junk). The session never dies, every response is well framed, and after every failed
command the position is unchanged."""

from __future__ import annotations

import random
import re
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.registry import available_games
from protocol.engine import GtpEngine
from protocol.session import GameSession
from tests.gtp_helpers import make_engine
from tests.test_e2e import COMMAND

FRAMED = re.compile(r"[=?]([0-9]+)? [^\n]*(\n[^\n]+)*\n\n", re.S)
COMMANDS = [
    "play", "genmove", "reg_genmove", "undo", "showboard", "final_score", "boardsize",
    "clear_board", "komi", "time_settings", "time_left", "kgs-time_settings",
    "known_command", "list_commands", "gtpgames-game", "gtpgames-option",
    "gtpgames-notation", "gtpgames-legal_moves", "gtpgames-perft", "gtpgames-result",
    "protocol_version", "name", "version", "nosuch", "PLAY", "", "quit",
]
WORDS = [
    "b", "w", "black", "white", "red", "blue", "p1", "p5", "x", "pass", "swap", "resign",
    "a1", "c3", "z99", "a0", "e3-e4", "c3hne", "c3hne+d4vsw", "-1", "0", "1", "2", "5", "11",
    "99", "1e9", "nan", "inf", "size=5", "pie=off", "size=x", "=", "brique", "flicker",
    "trisq", "brax", "bricka", "gtp", "native", "none", "absolute", "byoyomi", "canadian",
    "\x00", "\xff", "é", "#", "\t", "\r",
]


def fingerprint(session: GameSession) -> tuple[object, ...]:
    game = session.game
    return (game.name, dict(game.options), tuple(game.history), session.notation,
            game.board_text(session.notation))


def line_strategy() -> st.SearchStrategy[str]:
    word = st.one_of(st.sampled_from(WORDS), st.text(max_size=12))
    command = st.tuples(
        st.one_of(st.none(), st.integers(0, 10**12).map(str), st.sampled_from(["-1", "x"])),
        st.sampled_from(COMMANDS),
        st.lists(word, max_size=5),
    ).map(lambda t: " ".join(([t[0]] if t[0] is not None else []) + [t[1], *t[2]]))
    junk = st.text(max_size=200)
    huge = st.integers(1000, 20000).map(lambda n: "play b " + "a" * n)
    return st.one_of(command, command, command, junk, huge)


def tame(line: str) -> str:
    """Keep perft shallow so that a fuzz case cannot run for minutes."""
    if "perft" in line:
        return re.sub(r"\d+", "1", line)
    return line


def run_line(gtp: GtpEngine, session: GameSession, line: str) -> None:
    before = fingerprint(session)
    response = gtp.handle_line(line)
    if response is None:
        assert fingerprint(session) == before
        return
    assert FRAMED.fullmatch(response), repr(response)
    if response.startswith("?"):
        assert fingerprint(session) == before, line
        assert not response.startswith("? internal error"), line


@pytest.mark.parametrize("game", available_games())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(line_strategy(), min_size=1, max_size=25))
def test_fuzz_session(game: str, lines: list[str]) -> None:
    gtp, session = make_engine(game, seed=1)
    for line in lines:
        run_line(gtp, session, tame(line))
    assert gtp.handle_line("protocol_version") == "= 2\n\n"


@pytest.mark.parametrize("game", available_games())
def test_fuzz_real_process_with_binary_junk(game: str) -> None:
    rng = random.Random(2024)
    chunks = []
    for _ in range(300):
        kind = rng.random()
        if kind < 0.3:
            chunks.append(bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 80))))
        elif kind < 0.35:
            chunks.append(b"x" * rng.randint(10_000, 100_000))
        else:
            words = [rng.choice(COMMANDS)] + rng.sample(WORDS, rng.randint(0, 3))
            chunks.append(" ".join(words).encode("utf-8", "replace"))
    script = tame(b"\n".join(chunks).decode("latin-1")).encode("latin-1")
    script = script.replace(b"quit", b"quip") + b"\n1 protocol_version\n"
    done = subprocess.run([*COMMAND, "gtp", game, "--seed", "4"], input=script,
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout.decode("utf-8")
    assert out.endswith("=1 2\n\n")
    pos = 0
    while pos < len(out):
        match = FRAMED.match(out, pos)
        assert match, out[pos:pos + 200]
        pos = match.end()
    assert b"Traceback" not in done.stderr, done.stderr[-2000:]
