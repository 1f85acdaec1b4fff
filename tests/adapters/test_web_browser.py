"""The browser app in a real browser: headless Chromium (Debian's ``chromium``) driven by
Playwright, against a real ``gtpgames serve`` process. For each game a whole game is played
against the engine by clicking the highlighted legal places, the result shown is checked,
the last moves are undone, and a screenshot is written to $GTPGAMES_SCREENSHOTS (default: a
temporary directory)."""

from __future__ import annotations

import os
import random
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.adapters.web_helpers import CHROMIUM, free_port
from tests.protocol.test_e2e import COMMAND

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)"),
]

#: The form for each game: small boards, so that a game ends quickly.
OPTIONS: dict[str, dict[str, str]] = {
    "brique": {"size": "5"}, "trisq": {"size": "4"}, "flicker": {"size": "5"},
    "brax": {"hunt": "on"}, "bricka": {},
}
MOVE_LIMIT = 2000


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    port = free_port()
    db = f"sqlite:///{tempfile.mkdtemp(prefix='gtpgames-')}/online.sqlite"
    proc = subprocess.Popen([*COMMAND, "serve", "--port", str(port), "--max-think", "1",
                             "--db", db], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/analysis"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def act(page: Any, do: Any) -> dict[str, Any]:
    """Do something that makes the server answer with a new state; that state, once the
    engine is not thinking (an error from the server fails the test, naming it)."""
    count, errors = page.evaluate("[window.gtp.states, window.gtp.errors]")
    do()
    page.wait_for_function(
        f"(window.gtp.states > {count} && !window.gtp.state.thinking)"
        f" || window.gtp.errors > {errors}", timeout=120_000)
    state: dict[str, Any] = page.evaluate("window.gtp.state")
    error = page.evaluate("window.gtp.error")
    assert page.evaluate("window.gtp.errors") == errors, (
        f"{error} (moves {state['moves']}, clicks {state['pending']})")
    return state


@pytest.mark.parametrize("game", list(OPTIONS))
def test_whole_game_against_the_engine_by_clicking(server: str, browser: Any, shots: Path,
                                                   game: str) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server)
    page.wait_for_function("window.gtp.states > 0")
    page.select_option("#game", game)
    for key, value in OPTIONS[game].items():
        field = page.locator(f"[data-option={key}]")
        if field.evaluate("el => el.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    page.select_option("#mode", "engine")
    page.check("input[name=strength][value=time]")
    page.fill("#time", "0.05")
    state = act(page, lambda: page.click("#new"))
    assert state["game"] == game
    state = act(page, lambda: page.check("#legal"))
    rng = random.Random(game)
    human = state["to_move"]
    moves = 0
    while state["result"] is None:
        moves += 1
        if moves == 4:  # a position in play: the legal places highlighted
            page.screenshot(path=str(shots / f"{game}-play.png"), full_page=True)
        assert moves < MOVE_LIMIT, f"{game}: no result after {MOVE_LIMIT} clicks"
        places = page.locator("#board svg .legal:visible")
        if places.count():
            place = places.nth(rng.randrange(places.count()))
            state = act(page, lambda place=place: place.click())
        elif page.is_enabled("#confirm"):
            state = act(page, lambda: page.click("#confirm"))
        else:
            special = page.locator("#specials button").first
            assert special.count(), f"{game}: nothing to click in {state['position']}"
            state = act(page, special.click)
    status = page.text_content("#status") or ""
    assert state["result"]["reason"] in status
    assert ("wins" in status) or ("Draw" in status)
    page.screenshot(path=str(shots / f"{game}.png"), full_page=True)
    count = len(state["moves"])
    state = act(page, lambda: page.click("#undo"))
    assert state["result"] is None and len(state["moves"]) < count
    assert state["to_move"] == human
    assert "wins" not in (page.text_content("#status") or "")
    assert not errors, errors
    page.close()
