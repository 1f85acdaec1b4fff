"""Elo, its interval and the SPRT (adapters/match_stats.py) against values worked by hand,
and the runner's clock arithmetic."""

from __future__ import annotations

import math

import pytest

from adapters.match import Clock, TimeControlSpec
from adapters.match_stats import Sprt, elo_estimate, elo_from_score, parse_sprt, score_from_elo


def test_elo_of_known_scores() -> None:
    # 75% is odds of 3:1, i.e. 400 * log10(3) = 190.85 Elo; 50% is 0.
    assert elo_from_score(0.75) == pytest.approx(190.8485, abs=1e-3)
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(0.25) == pytest.approx(-190.8485, abs=1e-3)
    # the usual table: +100 Elo expects 64.0%
    assert score_from_elo(100) == pytest.approx(0.6401, abs=1e-4)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf


def test_interval_worked_by_hand() -> None:
    # 60 wins, 20 draws, 20 losses: score 0.7; per-game variance
    # (60*0.3^2 + 20*0.2^2 + 20*0.7^2) / 100 = 0.16, standard error 0.4/10 = 0.04;
    # 0.7 -+ 1.96*0.04 = 0.6216 .. 0.7784, i.e. 86.2 .. 218.3 Elo around 147.2.
    estimate = elo_estimate(60, 20, 20)
    assert estimate.score == pytest.approx(0.7)
    assert estimate.elo == pytest.approx(147.19, abs=0.01)
    assert estimate.low == pytest.approx(86.23, abs=0.01)
    assert estimate.high == pytest.approx(218.25, abs=0.01)


def test_interval_edge_cases() -> None:
    assert elo_estimate(0, 0, 0).games == 0
    sweep = elo_estimate(5, 0, 0)
    assert sweep.elo == math.inf and sweep.margin == math.inf
    even = elo_estimate(10, 0, 10)
    assert even.elo == 0.0 and even.low == pytest.approx(-even.high)


def test_sprt_bounds_and_llr_by_hand() -> None:
    sprt = Sprt(0, 10, 0.05, 0.05)
    # log((1 - 0.05) / 0.05) = log 19
    assert sprt.upper == pytest.approx(2.9444, abs=1e-4)
    assert sprt.lower == pytest.approx(-2.9444, abs=1e-4)
    # s0 = 0.5, s1 = 1 / (1 + 10^(-10/400)) = 0.514387; with the counts above (s = 0.7,
    # var = 0.16): 100 * 0.014387 * (1.4 - 0.5 - 0.514387) / (2 * 0.16) = 1.7337
    assert sprt.llr(60, 20, 20) == pytest.approx(1.7337, abs=1e-3)
    assert sprt.decision(60, 20, 20) is None
    assert sprt.decision(600, 200, 200) == "H1"
    # an even score: 1000 * 0.014387 * (1 - 1.014387) / (2 * 0.2) = -0.517, not yet;
    # ten times as many games reach -5.17, below log(1/19)
    assert sprt.llr(400, 200, 400) == pytest.approx(-0.5175, abs=1e-3)
    assert sprt.decision(400, 200, 400) is None
    assert sprt.decision(4000, 2000, 4000) == "H0"


def test_sprt_parsing() -> None:
    assert parse_sprt("0,5") == Sprt(0, 5)
    assert parse_sprt("-5,5,0.1,0.2") == Sprt(-5, 5, 0.1, 0.2)
    with pytest.raises(ValueError, match="elo1 must be greater"):
        parse_sprt("5,0")
    with pytest.raises(ValueError, match="expected numbers"):
        parse_sprt("a,b")


def test_time_control_parsing() -> None:
    assert TimeControlSpec.parse("60") == TimeControlSpec("absolute", 60)
    assert TimeControlSpec.parse("60+10/5") == TimeControlSpec("canadian", 60, 10, 5)
    assert TimeControlSpec.parse("0+5x3") == TimeControlSpec("byoyomi", 0, 5, 3)
    with pytest.raises(ValueError, match="--tc"):
        TimeControlSpec.parse("1:00")


def test_canadian_clock() -> None:
    clock = Clock(TimeControlSpec("canadian", 10, 6, 3))
    assert clock.available() == 16
    assert clock.spend(12)  # 10 s of main time and 2 s of the first period
    assert clock.time_left() == (4, 2)  # 4 s left for the 2 remaining stones
    assert clock.spend(3)
    assert clock.time_left() == (1, 1)
    assert clock.spend(0.5)  # the period is done: a fresh one
    assert clock.time_left() == (6, 3)
    assert not clock.spend(6.5)


def test_byoyomi_clock() -> None:
    clock = Clock(TimeControlSpec("byoyomi", 0, 5, 3))
    assert clock.spend(4.9)  # within the period: nothing lost
    assert clock.time_left() == (5, 3)
    assert clock.spend(7)  # one period used up
    assert clock.time_left() == (5, 2)
    assert clock.available() == 10


def test_the_docs_say_when_the_interval_is_infinite() -> None:
    """docs/tournaments.md: `inf` also for a lopsided score over few games (its example is
    what the table prints), not only when every game had the same result."""
    import re
    from pathlib import Path

    from adapters.match_cli import elo_text

    docs = (Path(__file__).parents[2] / "docs" / "tournaments.md").read_text(encoding="utf-8")
    text = " ".join(docs.split())
    found = re.search(r"(\d+) wins and (\d+) loss(?:es)? give `([^`]+)`", text)
    assert found is not None, "the Results section names a lopsided example"
    wins, losses, shown = int(found.group(1)), int(found.group(2)), found.group(3)
    estimate = elo_estimate(wins, 0, losses)
    assert elo_text(estimate.low, estimate.elo, estimate.high) == shown
    assert shown.endswith("± inf") and 0 < losses < wins
    assert elo_estimate(19, 0, 1).high == math.inf  # the normal interval reaches 100%
