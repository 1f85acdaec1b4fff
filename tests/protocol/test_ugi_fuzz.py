"""Fuzzing the UGI front end (protocol/ugi.py): random lines and bytes, huge and non-ASCII
lines, wild numbers, and every UGI command with random arguments, in every game. The engine
never crashes and never reports an internal error, every ``go`` is answered by exactly one
``bestmove``, ``isready`` is always answered ``readyok``, and a failed command (other than a
``position`` whose moves forfeit the game, which is the referee's verdict) changes nothing.

The default suite runs a short fuzz; the long one (marked slow) runs 20,000 lines per game
and prints its counts."""

from __future__ import annotations

import dataclasses
import io
import random
from typing import Any

import pytest

from engine.games.registry import new_game
from engine.search.players import RandomPlayer
from protocol.ugi import UgiEngine

GAMES: list[tuple[str, dict[str, object]]] = [
    ("brique", {"size": 5}),
    ("flicker", {"size": 5}),
    ("trisq", {"size": 4}),
    ("brax", {}),
    ("bricka", {}),
]
COMMANDS = ["ugi", "isready", "uginewgame", "setoption", "position", "go", "stop", "query",
            "quit"]
NUMBERS = ["0", "1", "-1", "-0", "7", "50", "1000", "99999999", "4294967296",
           "9" * 12, "9" * 13, "9" * 400, "9" * 5000, "1e400", "1e-9", "nan", "inf", "-inf",
           "0x10", "١٢", "５", "1_000", "+5", ""]
WORDS = ["startpos", "fen", "moves", "name", "value", "infinite", "p1time", "p2time",
         "p1inc", "p2inc", "movetime", "nodes", "depth", "wtime", "btime", "winc", "binc",
         "gameover", "p1turn", "result", "size", "pie", "first", "hunt", "players", "notation",
         "player", "threads", "hash", "native", "gtp", "mcts", "random", "true", "false",
         "on", "off", "swap", "pass", "0000", "a1", "c3", "z99", "e1-e2", "c3hne", "g7", "!",
         "/", "-", "\x00", "\udcff", "é", "\u00a0", "\u3000", "\t"]


@dataclasses.dataclass
class Counts:
    lines: int = 0
    gos: int = 0
    bestmoves: int = 0
    errors: int = 0
    forfeits: int = 0
    isready: int = 0


def word(rng: random.Random, tokens: list[str]) -> str:
    roll = rng.random()
    if roll < 0.35:
        return rng.choice(NUMBERS)
    if roll < 0.7:
        return rng.choice(WORDS)
    if roll < 0.85 and tokens:
        return rng.choice(tokens)
    if roll < 0.95:
        return "".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(rng.randrange(1, 8)))
    return rng.choice("xz9/") * rng.choice([100, 10_000, 200_000])


def random_line(rng: random.Random, game: Any, tokens: list[str]) -> str:
    """One input line: mostly a UGI command with random or plausible arguments."""
    roll = rng.random()
    if roll < 0.05:  # random bytes as stdin decodes them (surrogate escapes)
        raw = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
        return raw.decode("utf-8", errors="surrogateescape").replace("\n", " ")
    if roll < 0.07:  # a huge line
        return rng.choice(COMMANDS) + " " + rng.choice("a9 ") * rng.choice([10_000, 300_000])
    name = rng.choice(COMMANDS) if rng.random() < 0.95 else rng.choice(WORDS).upper()
    args: list[str] = []
    if name == "setoption":
        option = rng.choice([spec.name for spec in game.OPTIONS]
                            + ["notation", "player", "threads", "hash", ""])
        args = ["name", option, "value", word(rng, tokens)]
        if rng.random() < 0.2:
            rng.shuffle(args)
    elif name == "position":
        head = (["startpos"] if rng.random() < 0.5
                else ["fen", *game.position_string().split()])
        if rng.random() < 0.3 and head[0] == "fen":  # mutate one field of a real string
            at = rng.randrange(1, len(head))
            head[at] = word(rng, tokens)
        moves = tokens[: rng.randrange(len(tokens) + 1)] if head[0] == "startpos" else []
        if rng.random() < 0.3:
            moves = [*moves, word(rng, tokens)]
        args = [*head, "moves", *moves] if moves or rng.random() < 0.1 else head
        if rng.random() < 0.1:
            args = args[1:]
    elif name == "go":
        for _ in range(rng.randrange(0, 4)):
            key = rng.choice(["movetime", "nodes", "depth", "p1time", "p2time", "p1inc",
                              "p2inc", "infinite", "wtime", "btime"])
            args.append(key)
            if key != "infinite" and rng.random() < 0.9:
                args.append(rng.choice(["1", "5", "20"]) if rng.random() < 0.6
                            else word(rng, tokens))
    elif name == "query":
        args = [rng.choice(["gameover", "p1turn", "result"]) if rng.random() < 0.7
                else word(rng, tokens)]
        if rng.random() < 0.1:
            args.append(word(rng, tokens))
    else:
        args = [word(rng, tokens) for _ in range(rng.choice([0, 0, 1, 2]))]
    return " ".join([name, *args])


def state(engine: UgiEngine) -> tuple[object, ...]:
    return (engine.game.position_string(), tuple(engine.game.history), dict(engine.options),
            engine.notation, engine.forfeit, engine.player.name)


def fuzz(name: str, options: dict[str, object], lines: int, seed: int) -> Counts:
    rng = random.Random(seed)
    out: list[str] = []
    log = io.StringIO()
    engine = UgiEngine(name, options, RandomPlayer(random.Random(seed)),
                       write=out.append, log=log,
                       make_player=lambda player: RandomPlayer(random.Random(seed)))
    counts = Counts()
    reference = new_game(name, **options)
    tokens: list[str] = []
    for _ in range(lines):
        # the tokens of a real game, so that position and go reach deep positions
        if reference.is_over() or rng.random() < 0.02:
            reference, tokens = reference.new_game(), []
        move = reference.random_move(rng)
        tokens.append(reference.format_move(move, "native"))
        reference.play(move)
        line = random_line(rng, engine.game, tokens)
        before = state(engine)
        start = len(out)
        engine.handle(line)
        answer = out[start:]
        counts.lines += 1
        shown = (line[:60], answer[:4])
        for text in answer:
            assert "internal error" not in text, shown
            assert len(text) < 1000, shown
            assert "\n" not in text, shown
        words = line.split()
        command = words[0] if words else ""
        counts.bestmoves += sum(text.startswith("bestmove ") for text in answer)
        if command == "go":
            counts.gos += 1
        # every earlier go has answered once; the new one at most once
        assert counts.gos - 1 <= counts.bestmoves <= counts.gos, shown
        if command == "isready":
            counts.isready += 1
            assert "readyok" in answer, shown
        errors = [text for text in answer if text.startswith("info string error: ")]
        if errors:
            counts.errors += 1
            if errors[0].endswith("the game is over, the mover loses"):
                counts.forfeits += 1  # the referee's verdict on a position's moves
            else:
                assert state(engine) == before, shown
        engine.quit_requested = False  # quit ends serve(); the fuzz goes on
    engine.finish_search()
    counts.bestmoves = sum(text.startswith("bestmove ") for text in out)
    assert counts.bestmoves == counts.gos
    assert "Traceback" not in log.getvalue()
    return counts


@pytest.mark.parametrize(("name", "options"), GAMES)
def test_fuzz_short(name: str, options: dict[str, object]) -> None:
    counts = fuzz(name, options, 400, seed=1)
    assert counts.gos > 0 and counts.errors > 0 and counts.isready > 0


@pytest.mark.slow
@pytest.mark.parametrize(("name", "options"), GAMES)
def test_fuzz_long(name: str, options: dict[str, object]) -> None:
    counts = fuzz(name, options, 20_000, seed=2)
    print(f"\n{name}: {counts}")
    assert counts.lines == 20_000


def test_the_real_process_survives_bytes_and_huge_lines() -> None:
    """Through the real ``gtpgames ugi``: invalid UTF-8, NUL, a 10 MB token, a go that
    cannot run; every answer is short and the session goes on to the end."""
    import subprocess

    from tests.protocol.test_e2e import COMMAND

    junk = b"\xff\xfe\x00\x80 go\n" + b"z" * 10_000_000 + b"\n"
    script = (b"ugi\n" + junk + b"go movetime abc\nposition fen " + b"9" * 5000
              + b"/5/5/5/5 b -\nisready\nposition startpos moves c3\ngo nodes 5\nisready\n"
              b"quit\n")
    done = subprocess.run([*COMMAND, "ugi", "brique", "-o", "size=5", "--player", "random"],
                          input=script, capture_output=True, timeout=120, check=False)
    assert done.returncode == 0
    lines = done.stdout.decode("utf-8", errors="replace").splitlines()
    assert lines.count("readyok") == 2
    assert sum(line.startswith("bestmove ") for line in lines) == 2
    assert "bestmove 0000" in lines
    assert all(len(line) < 400 and "internal error" not in line for line in lines), lines
    assert b"Traceback" not in done.stderr
