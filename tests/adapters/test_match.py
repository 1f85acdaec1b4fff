"""The match runner (adapters/match.py) against real engine processes: the tiny misbehaving
engines of tests/engines/, our own engine, resume after a kill, and the records."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from sgfmill import sgf

from adapters.match import Match, MatchConfig, TimeControlSpec, schedule
from adapters.match_engine import EngineSpec
from adapters.match_record import RecordFile
from engine.games.registry import new_game
from tests.protocol.test_e2e import COMMAND

ENGINES = Path(__file__).parents[1] / "engines"
PY = sys.executable


def tiny(name: str, script: str = "tinygtp", *extra: str) -> EngineSpec:
    return EngineSpec(name, (PY, str(ENGINES / f"{script}.py"), "--game", "brique", *extra))


def config(tmp_path: Path, engines: list[EngineSpec], **kw: Any) -> MatchConfig:
    defaults: dict[str, Any] = {
        "game": "brique", "options": {"size": "5"}, "record": tmp_path / "match.jsonl",
        "move_timeout": 5.0, "grace": 0.5,
    }
    return MatchConfig(engines=engines, **(defaults | kw))


def replay(record: dict[str, Any]) -> Any:
    """Replay a record through the rules core: every recorded move was legal."""
    game = new_game(record["game_name"], **record["options"])
    for token in record["opening"] + record["moves"]:
        game.play_text(token, record["notation"])
    return game


def test_engine_spec_parsing() -> None:
    spec = EngineSpec.parse("name=rnd1 cmd='gtpgames gtp brique --seed 1' dir=/tmp")
    assert spec == EngineSpec("rnd1", ("gtpgames", "gtp", "brique", "--seed", "1"), "/tmp")
    assert EngineSpec.parse("gnugo --mode gtp").name == "gnugo"
    with pytest.raises(ValueError, match="cmd= is missing"):
        EngineSpec.parse("name=x")
    with pytest.raises(ValueError, match="'colour=red'"):
        EngineSpec.parse("name=x cmd=y colour=red")


def test_schedule_alternates_colours_and_openings(tmp_path: Path) -> None:
    cfg = config(tmp_path, [tiny("a"), tiny("b"), tiny("c")], games_per_pairing=4,
                 openings=[["a1"], ["b2"]])
    specs = schedule(cfg)
    assert len(specs) == 12 and [s.index for s in specs] == list(range(12))
    for pair in (("a", "b"), ("a", "c"), ("b", "c")):
        games = [s for s in specs if s.pairing == pair]
        assert [(s.black, s.white) for s in games] == [pair, pair[::-1], pair, pair[::-1]]
        assert [s.opening for s in games] == [0, 0, 1, 1]
    gauntlet = config(tmp_path, [tiny("a"), tiny("b"), tiny("c")], format="gauntlet")
    assert gauntlet.pairings() == [("a", "b"), ("a", "c")]


@pytest.mark.slow  # five misbehaving engine processes (7 s)
def test_misbehaving_engines_lose_with_the_reason(tmp_path: Path) -> None:
    bad = {"crash": "crasher", "timeout": "hanger", "illegal": "illegal", "garbage": "garbage"}
    engines = [tiny("good")] + [tiny(kind, script) for kind, script in bad.items()]
    cfg = config(tmp_path, engines, format="gauntlet", games_per_pairing=2, jobs=2,
                 move_timeout=1.0)
    records = Match(cfg).run()
    assert sorted(r["index"] for r in records) == list(range(8))
    on_file = RecordFile(cfg.record).read()
    assert sorted(r["index"] for r in on_file) == list(range(8))
    for record in records:
        loser = record["black"] if record["winner"] == record["white"] else record["white"]
        assert record["winner"] == "good", record
        assert record["reason_kind"] == loser, record
        assert loser in record["reason"]
        game = replay(record)
        assert not game.is_over()  # the game was cut short by the forfeit
    # colours alternate within each pairing
    for kind in bad:
        games = sorted((r for r in records if kind in r["pairing"]), key=lambda r: r["index"])
        assert [g["black"] for g in games] == ["good", kind]


def test_match_plays_to_the_end_and_writes_sgf(tmp_path: Path) -> None:
    ours = EngineSpec("ours", (*COMMAND, "gtp", "brique", "--player", "random", "--seed", "1"))
    cfg = config(tmp_path, [ours, tiny("tiny", "tinygtp", "--seed", "2")], games_per_pairing=2,
                 sgf_dir=tmp_path / "sgf", openings=[["c3"]])
    records = Match(cfg).run()
    assert len(records) == 2
    for record in records:
        assert record["reason_kind"] in ("win", "resign"), record
        assert record["opening"] == ["c3"]
        game = replay(record)
        outcome = game.outcome()
        assert outcome is not None
        assert record["winner_colour"] == ("b", "w")[outcome.winner]
        path = tmp_path / "sgf" / f"brique-{record['index']:05d}.sgf"
        tree = sgf.Sgf_game.from_bytes(path.read_bytes())
        assert tree.get_size() == 5
        assert tree.get_player_name("b") == record["black"]
        assert tree.get_winner() == record["winner_colour"]
        sgf_moves = [node.get_move() for node in tree.get_main_sequence()[1:]]
        assert len(sgf_moves) == len(record["opening"]) + len(record["moves"])
        # c3 is row 3, column 3: sgfmill's (row, col) from the bottom, 0-based
        assert sgf_moves[0] == ("b", (2, 2))


def test_time_control_commands_reach_the_engine(tmp_path: Path) -> None:
    log = tmp_path / "commands.log"
    engines = [tiny("a", "tinygtp", "--log", str(log)), tiny("b")]
    cfg = config(tmp_path, engines, games_per_pairing=1,
                 time_control=TimeControlSpec.parse("30+5/10"))
    (record,) = Match(cfg).run()
    assert record["reason_kind"] in ("win", "resign")
    lines = log.read_text().splitlines()
    assert "boardsize 5" in lines  # tiny does not know gtpgames-game
    assert "time_settings 30 5 10" in lines  # nor kgs-time_settings
    assert any(line.startswith("time_left b ") for line in lines)


@pytest.mark.slow
def test_flag_fall_loses_on_time(tmp_path: Path) -> None:
    # slow plays b (first game of the pairing) and takes 1.2 s over a 1 s clock on its
    # first move, whatever the load; it still answers within the 2 s grace
    engines = [tiny("slow", "tinygtp", "--delay", "1.2"), tiny("fast")]
    cfg = config(tmp_path, engines, games_per_pairing=1,
                 time_control=TimeControlSpec.parse("1"), grace=2.0)
    (record,) = Match(cfg).run()
    assert record["winner"] == "fast"
    assert record["reason_kind"] == "timeout" and "out of time" in record["reason"]
    assert record["moves"] == []


@pytest.mark.slow
def test_resume_from_a_torn_record(tmp_path: Path) -> None:
    cfg = config(tmp_path, [tiny("a"), tiny("b")], games_per_pairing=3)
    Match(config(tmp_path, [tiny("a"), tiny("b")], games_per_pairing=2)).run()
    first = cfg.record.read_text()
    with cfg.record.open("a") as handle:
        handle.write('{"index": 2, "black"')  # killed while writing
    records = Match(cfg).run()
    assert sorted(r["index"] for r in records) == [0, 1, 2]
    assert cfg.record.read_text().startswith(first)
    assert len(cfg.record.read_text().splitlines()) == 3


def test_resume_refuses_another_match(tmp_path: Path) -> None:
    Match(config(tmp_path, [tiny("a"), tiny("b")], games_per_pairing=1)).run()
    with pytest.raises(ValueError, match="another match"):
        Match(config(tmp_path, [tiny("b"), tiny("a")], games_per_pairing=1)).run()


@pytest.mark.slow
def test_kill_and_resume_loses_and_repeats_nothing(tmp_path: Path) -> None:
    record = tmp_path / "killed.jsonl"
    engine = f"{PY} {ENGINES / 'tinygtp.py'} --game brique --delay 0.02"
    command = [*COMMAND, "match", "brique", "-o", "size=5", "--games", "12", "--quiet",
               "--record", str(record),
               "-e", f"name=a cmd='{engine} --seed 1'", "-e", f"name=b cmd='{engine} --seed 2'"]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if record.exists() and len(record.read_bytes().splitlines()) >= 3:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = [json.loads(line) for line in record.read_text().splitlines() if line.endswith("}")]
    assert 3 <= len(before) < 12
    subprocess.run(command, check=True, timeout=120, stdout=subprocess.DEVNULL)
    after = RecordFile(record).read()
    assert sorted(r["index"] for r in after) == list(range(12))
    assert after[: len(before)] == before


@pytest.mark.slow
def test_sprt_stops_the_match(tmp_path: Path) -> None:
    from adapters.match_stats import Sprt

    sprt = Sprt(0, 200)
    cfg = config(tmp_path, [tiny("good"), tiny("bad", "illegal")], games_per_pairing=40,
                 sprt=sprt)
    match = Match(cfg)
    records = match.run()
    # every game is a win for good; the LLR first crosses log 19 after n wins, where n is
    # the first count the SPRT itself accepts
    first = next(n for n in range(1, 40) if sprt.decision(n, 0, 0) == "H1")
    assert match.decision == "H1"
    assert len(records) == first < 40
    assert all(r["winner"] == "good" for r in records)


@pytest.mark.parametrize(("game", "options"), [("flicker", {"size": "5"}), ("bricka", {})])
def test_sgf_of_flicker_and_bricka_read_by_sgfmill(
    tmp_path: Path, game: str, options: dict[str, str]
) -> None:
    engines = [EngineSpec(name, (PY, str(ENGINES / "tinygtp.py"), "--game", game, "--seed", seed))
               for name, seed in (("a", "1"), ("b", "2"))]
    cfg = config(tmp_path, engines, game=game, options=options, games_per_pairing=2,
                 sgf_dir=tmp_path / "sgf")
    for record in Match(cfg).run():
        assert record["reason_kind"] in ("win", "draw", "resign"), record
        tree = sgf.Sgf_game.from_bytes(
            (tmp_path / "sgf" / f"{game}-{record['index']:05d}.sgf").read_bytes())
        nodes = tree.get_main_sequence()[1:]
        assert [node.get_move()[0] for node in nodes] == record["colours"]
        if game == "bricka":
            assert tree.get_size() == 13 and tree.get_root().get("PL") == "w"
            # Bricka native a1 is the gtp grid's a1: sgfmill (row 0, col 0)
            referee = new_game("bricka")
            first = referee.parse_move(record["moves"][0], "native")
            token = referee.format_move(first, "gtp")
            col = "abcdefghjklmn".index(token[0])
            assert nodes[0].get_move()[1] == (int(token[1:]) - 1, col)


# ------------------------------------------------------------ what the runner refuses


def test_resume_refuses_a_record_of_another_game_options_or_engines(tmp_path: Path) -> None:
    """A record names its game, options and engine commands; a match that differs is refused
    with the difference named, not "resumed" into a mixed table."""
    Match(config(tmp_path, [tiny("a"), tiny("b")], games_per_pairing=1)).run()
    (record,) = RecordFile(tmp_path / "match.jsonl").read()
    assert record["commands"] == {name: " ".join(tiny(name).cmd) for name in ("a", "b")}
    flicker = [EngineSpec(n, (PY, str(ENGINES / "tinygtp.py"), "--game", "flicker"))
               for n in ("a", "b")]
    for engines, kw, message in [
        ([tiny("a"), tiny("b")], {"options": {"size": "7"}},
         "game 0 was played with size=5, this match has size=7"),
        (flicker, {"game": "flicker"}, "game 0 is a game of brique, this match plays flicker"),
        ([tiny("a", "tinygtp", "--seed", "3"), tiny("b")], {},
         "game 0 had engine a run as"),
    ]:
        with pytest.raises(ValueError, match=message):
            Match(config(tmp_path, engines, games_per_pairing=2, **kw)).run()
    assert len(RecordFile(tmp_path / "match.jsonl").read()) == 1  # nothing appended


def test_the_default_record_is_named_after_the_match(tmp_path: Path) -> None:
    from adapters.match import default_record

    base = config(tmp_path, [tiny("a"), tiny("b")], record=None)
    name = default_record(base)
    assert name.parent == Path(".") and name.name.startswith("match-brique-")
    assert default_record(config(tmp_path, [tiny("a"), tiny("b")], record=None,
                                 games_per_pairing=10)) == name  # more games: same record
    assert default_record(config(tmp_path, [tiny("a"), tiny("b")], record=None,
                                 options={"size": "05"})) == name  # the same options
    for other in [config(tmp_path, [tiny("a"), tiny("b")], record=None, options={"size": "7"}),
                  config(tmp_path, [tiny("a"), tiny("c")], record=None),
                  config(tmp_path, [tiny("a"), tiny("b", "illegal")], record=None)]:
        assert default_record(other) != name


@pytest.mark.parametrize("where", ["record", "record-dir", "sgf", "sgf-parent", "stderr"])
def test_unwritable_outputs_are_refused_before_the_first_game(
    tmp_path: Path, where: str, capfd: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "started.log"
    engines = [tiny("a", "tinygtp", "--log", str(log)), tiny("b")]
    kw: dict[str, dict[str, Path]] = {
        "record": {"record": Path("/proc/nope/r.jsonl")},
        "record-dir": {"record": tmp_path / "missing" / "r.jsonl"},
        "sgf": {"sgf_dir": Path("/proc/nope")},
        "sgf-parent": {"sgf_dir": tmp_path / "missing" / "sgf"},
        "stderr": {},
    }[where]
    if where == "stderr":
        engines[1] = dataclasses.replace(engines[1], stderr=str(tmp_path / "missing" / "e.log"))
    with pytest.raises(ValueError, match=r"(--record|--sgf-dir|stderr=).*"
                       r"(does not exist|cannot)") as error:
        Match(config(tmp_path, engines, games_per_pairing=2, **kw)).run()
    assert "\n" not in str(error.value)
    assert not log.exists()  # no engine was started, no game played
    assert not (tmp_path / "missing").exists()  # parents are not created
    assert "Traceback" not in capfd.readouterr().err


def test_a_write_failure_mid_match_stops_it_keeping_the_record(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    from adapters.match import MatchStopped

    sgf_dir = tmp_path / "sgf"

    def break_sgf_dir(record: dict[str, Any]) -> None:  # after the first game
        for path in sgf_dir.iterdir():
            path.unlink()
        sgf_dir.rmdir()
        sgf_dir.write_text("not a directory")

    cfg = config(tmp_path, [tiny("a"), tiny("b")], games_per_pairing=4, sgf_dir=sgf_dir)
    with pytest.raises(MatchStopped, match=r"the match stopped: cannot write .*sgf.*"
                       r"\(2 games recorded in ") as error:
        Match(cfg, on_game=break_sgf_dir).run()
    assert "\n" not in str(error.value)
    assert len(RecordFile(cfg.record).read()) == 2  # the second game is recorded, its SGF not
    assert "Traceback" not in capfd.readouterr().err


def test_the_cli_reports_a_stopped_match_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from adapters import match_cli
    from adapters.match import MatchStopped

    def stopped(self: Match, progress: Any = None) -> list[dict[str, Any]]:
        raise MatchStopped("the match stopped: cannot write x.sgf: No space left on device")

    monkeypatch.setattr(Match, "run", stopped)
    assert match_cli.run(config(tmp_path, [tiny("a"), tiny("b")]), quiet=True) == 1
    assert capsys.readouterr().err == (
        "gtpgames: the match stopped: cannot write x.sgf: No space left on device\n")


@pytest.mark.parametrize("cmd", [("/nonexistent/engine",), (PY, "-c", "pass")])
def test_an_engine_that_cannot_start_is_an_error_not_a_game(
    tmp_path: Path, cmd: tuple[str, ...]
) -> None:
    engines = [tiny("a"), EngineSpec("broken", cmd)]
    cfg = config(tmp_path, engines, games_per_pairing=4)
    with pytest.raises(ValueError, match="engine broken does not start"):
        Match(cfg).run()
    assert not cfg.record.exists() or RecordFile(cfg.record).read() == []


@pytest.mark.parametrize(
    ("flag", "value"),
    [("jobs", 0), ("jobs", -2), ("move_timeout", -1.0), ("move_timeout", 0.0),
     ("move_timeout", math.inf), ("max_moves", 0), ("max_moves", -4)],
)
def test_match_options_out_of_range_are_usage_errors(
    tmp_path: Path, flag: str, value: float
) -> None:
    import typer

    from adapters.match_cli import build_config

    args: dict[str, Any] = {
        "game": "brique", "engines": ["a", "b"], "options": [], "games": 2,
        "format": "round-robin", "openings": None, "tc": None, "move_timeout": 60.0,
        "jobs": 1, "sprt": None, "record": None, "sgf_dir": None, "max_moves": 2000,
        "notation": None,
    }
    with pytest.raises(typer.BadParameter) as error:
        build_config(**(args | {flag: value}))
    message = error.value.format_message()
    assert f"'--{flag.replace('_', '-')}'" in message and "\n" not in message, message
    build_config(**args)  # the defaults are fine


def test_e2e_jobs_zero_is_refused(tmp_path: Path) -> None:
    done = subprocess.run([*COMMAND, "match", "brique", "-e", "a", "-e", "b", "--jobs", "0"],
                          capture_output=True, text=True, timeout=60, check=False, cwd=tmp_path)
    assert done.returncode == 2 and "--jobs" in done.stderr and done.stdout == ""
    assert list(tmp_path.iterdir()) == []  # no record was started


# ------------------------------------------------------------------------ small truths


@pytest.mark.slow
def test_move_timeout_is_a_hard_limit(tmp_path: Path) -> None:
    # slow takes 1.2 s a move: over the 1 s move timeout, though within the grace to answer
    engines = [tiny("slow", "tinygtp", "--delay", "1.2"), tiny("fast")]
    cfg = config(tmp_path, engines, games_per_pairing=1, move_timeout=1.0, grace=2.0,
                 max_moves=3)
    (record,) = Match(cfg).run()
    assert record["winner"] == "fast" and record["reason_kind"] == "timeout", record
    assert "slow: took 1." in record["reason"] and "move timeout is 1 s" in record["reason"]
    assert record["moves"] == []


def test_an_engine_that_answers_twice_loses_with_the_reason(tmp_path: Path) -> None:
    engines = [tiny("good"), tiny("twice", "tinygtp", "--twice", "clear_board")]
    cfg = config(tmp_path, engines, games_per_pairing=2)
    for record in Match(cfg).run():
        assert record["winner"] == "good" and record["reason_kind"] == "garbage", record
        assert "twice: output nobody asked for" in record["reason"], record
        assert "played ''" not in record["reason"]


def test_the_record_keeps_canonical_tokens(tmp_path: Path) -> None:
    engines = [tiny("upper", "tinygtp", "--upper", "--seed", "1"), tiny("lower")]
    cfg = config(tmp_path, engines, games_per_pairing=2, openings=[["C3"]])
    for record in Match(cfg).run():
        assert record["reason_kind"] in ("win", "resign"), record
        tokens = record["opening"] + record["moves"]
        assert tokens[0] == "c3"
        assert all(token == token.lower() for token in tokens), tokens
        replay(record)


def test_a_game_is_recorded_once_whatever_brings_it_twice(tmp_path: Path) -> None:
    # a cluster can deliver a game again (played twice after a node was lost): the record
    # keeps the first; the SPRT and the progress count it once
    cfg = config(tmp_path, [tiny("a"), tiny("b")], games_per_pairing=2)
    match = Match(cfg)
    records = match.run()
    assert match.finish(dict(records[0], moves=["x"]))  # ignored, the match goes on
    written = RecordFile(cfg.record).read()
    assert sorted(r["index"] for r in written) == [0, 1]
    assert written == records
