"""Time management (engine/search/clock.py and the session's clocks): the budget never exceeds what
is left less the reserve, spreads main time over the expected moves, and the real process
keeps every genmove within the time it has left."""

from __future__ import annotations

import time

import pytest

from engine.games.registry import new_game
from engine.search.clock import MIN_MOVES_LEFT, PlayerClock, TimeControl, moves_left, reserve
from tests.protocol.test_e2e import spawn

CONTROLS = [
    TimeControl("absolute", 60),
    TimeControl("canadian", 60, 30, 5),
    TimeControl("byoyomi", 60, 10, 3),
]


@pytest.mark.parametrize("control", CONTROLS, ids=lambda c: c.kind)
@pytest.mark.parametrize("seconds", [0.0, 0.01, 0.3, 2.0, 59.0])
@pytest.mark.parametrize("stones", [0, 1, 4])
def test_budget_never_exceeds_what_is_left(
    control: TimeControl, seconds: float, stones: int
) -> None:
    if control.kind == "absolute" and stones:
        return
    clock = PlayerClock(seconds, stones)
    for moves in (1, 6, 40):
        budget = control.budget(clock, moves)
        assert budget is not None and budget >= 0.0
        if stones > 0 or control.kind == "absolute":
            # all that may be spent is on the clock
            assert budget <= max(0.0, seconds - reserve(seconds))
        else:
            assert budget <= seconds + control.period


def test_main_time_is_shared_over_the_moves_left() -> None:
    control = TimeControl("absolute", 100)
    early = control.budget(PlayerClock(100, 0), 50)
    late = control.budget(PlayerClock(100, 0), 10)
    assert early is not None and late is not None and early < late
    assert early == pytest.approx(100 / 50 - 0.05)
    assert TimeControl("none").budget(None) is None


def test_moves_left_shrinks_as_the_board_fills() -> None:
    game = new_game("brique", size=9)
    first = moves_left(game)
    for token in ("a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8", "j9", "a9", "b8", "c7"):
        game.play_text(token)
    assert MIN_MOVES_LEFT <= moves_left(game) <= first
    assert moves_left(game) == moves_left(game)  # seeded: the same answer twice


def test_genmoves_stay_within_the_clock() -> None:
    """A controller's view: absolute time of 3 s each; after every genmove the controller
    charges the time it measured and sends time_left. No move may take longer than what was
    left (the bound is the clock itself, not a guess of the machine's speed)."""
    proc = spawn("brique", "--size", "7", "--seed", "2", timeout=30, encoding="utf-8")
    proc.send("time_settings 3 0 0\n")
    proc.expect("= \n\n")
    left = {"b": 3.0, "w": 3.0}
    moves = 0
    for _ in range(8):
        for colour in ("b", "w"):
            proc.send(f"time_left {colour} {left[colour]:.3f} 0\n")
            proc.expect("= \n\n")
            start = time.monotonic()
            proc.send(f"genmove {colour}\n")
            proc.expect(r"= (\S+)\n\n")
            spent = time.monotonic() - start
            assert spent < left[colour], (colour, spent, left[colour])
            left[colour] -= spent
            moves += 1
            if proc.match.group(1) in ("resign", "pass"):
                break
        else:
            continue
        break
    proc.send("quit\n")
    proc.expect("= \n\n")
    assert proc.wait() == 0
    assert moves >= 2
