"""The online site in a real browser: headless Chromium (Debian's ``chromium``) driven by
Playwright, against a real ``gtpgames serve`` on a temporary SQLite database, with a bot
account played by a small random mover written here over the bot WebSocket (docs/online.md,
"The bot API"). A person signs up in the lobby, challenges the bot, plays the game by
clicking the board until it ends, while a second page (not signed in) watches it live; then
replays it and finds it among the lobby's finished games. Screenshots go to
$GTPGAMES_SCREENSHOTS (default: a temporary directory)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.games.core import Game, GameError
from engine.games.registry import game_class
from tests.adapters.web_helpers import CHROMIUM, free_port
from tests.protocol.test_e2e import COMMAND

BOT = "randbot"
PERSON, PASSWORD = "alice", "correct-horse"
WAIT = 30_000  # ms: the longest any one step may take

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)"),
]


def position(record: dict[str, Any]) -> Game[Any]:
    """The game of a record, its moves replayed by the rules core."""
    cls = game_class(record["game"])
    options = {spec.name: spec.parse(record["options"][spec.name])
               for spec in cls.OPTIONS if spec.name in record["options"]}
    game = cls(**options)
    for move in record["moves"]:
        game.play_text(move["move"], "gtp")
    return game


def legal_moves(record: dict[str, Any]) -> list[str]:
    game = position(record)
    return [game.format_move(move, "gtp") for move in game.listed_moves()]


class RandomBot:
    """A bot over the bot WebSocket: accepts the challenges made to it (not the open ones),
    plays random legal moves (the same in the same position, whatever ran before)."""

    def __init__(self, url: str, token: str) -> None:
        self.url, self.token = url, token
        self.ended: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(self.run(),),
                                       daemon=True)
        self.stopping = asyncio.Event()

    async def run(self) -> None:
        from websockets.asyncio.client import connect

        async with connect(self.url, additional_headers={"Authorization": f"Bearer {self.token}"}
                           ) as ws:
            reader = asyncio.ensure_future(self.read(ws))
            await self.stopping.wait()
            reader.cancel()

    async def read(self, ws: Any) -> None:
        colors: dict[int, str] = {}
        async for text in ws:
            message = json.loads(text)
            kind = message["type"]
            if kind == "challenge" and message["challenge"].get("opponent") == BOT:
                await ws.send(json.dumps({"type": "accept",
                                          "challenge": message["challenge"]["id"]}))
            elif kind == "error":
                self.errors.append(message["message"])
            elif kind in ("game_start", "game_state"):
                record = message["game"]
                if kind == "game_start":
                    colors[record["id"]] = message["color"]
                if record["status"] == "playing" and record["to_move"] == colors.get(record["id"]):
                    rng = random.Random(" ".join(m["move"] for m in record["moves"]))
                    move = rng.choice(legal_moves(record))
                    await ws.send(json.dumps({"type": "move", "game": record["id"],
                                              "ply": record["ply"], "move": move}))
            elif kind == "game_end":
                self.ended.append(message["game"])

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.stopping.set)
        self.thread.join(timeout=10)


def start_server(db: str, port: int) -> subprocess.Popen[bytes]:
    """``gtpgames serve`` on ``db`` and ``port``, once it answers."""
    proc = subprocess.Popen([*COMMAND, "serve", "--db", db, "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(400):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            time.sleep(0.05)
    proc.terminate()
    raise AssertionError(f"the server did not answer on port {port}")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, RandomBot]]:
    db = f"sqlite:///{tmp_path_factory.mktemp('site') / 'online.sqlite'}"
    made = subprocess.run([*COMMAND, "serve", "add-bot", BOT, "--db", db],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    token = made.stdout.split()[-1]
    port = free_port()
    proc = start_server(db, port)
    bot = RandomBot(f"ws://127.0.0.1:{port}/api/bot", token)
    try:
        bot.start()
        yield f"http://127.0.0.1:{port}", bot
    finally:
        bot.stop()
        stop_server(proc)


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.load(answer)


def watch_errors(page: Any) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def shown(page: Any) -> dict[str, Any]:
    record: dict[str, Any] = page.evaluate("window.online.record")
    return record


def test_a_sign_up_a_challenge_play_by_clicking_and_the_result_in_the_lobby(
        site: tuple[str, RandomBot], browser: Any, shots: Path) -> None:
    base, bot = site
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(base + "/")
    # the lobby lists the bot, online
    page.wait_for_selector(f"#bots tr[data-bot={BOT}] td.online", timeout=WAIT)

    page.fill("#name", PERSON)
    page.fill("#password", PASSWORD)
    page.click("#signup")
    page.wait_for_selector("#signed-in", timeout=WAIT)
    assert PERSON in page.text_content("#signed-in")

    # an API token, shown once, that acts for the account
    page.click("#token")
    token = page.input_value("#token-text")
    request = urllib.request.Request(base + "/api/account",
                                     headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert json.load(answer)["name"] == PERSON

    page.select_option("#game", "brique")
    page.fill("[data-option=size]", "4")
    page.select_option("#color", "b")
    page.fill("#minutes", "10")
    page.fill("#opponent", BOT)
    page.check("#rated")
    page.screenshot(path=str(shots / "online-challenge-form.png"), full_page=True)
    page.click("#open-challenge")
    # the bot accepts: the page goes to the game
    page.wait_for_url("**/game/*", timeout=WAIT)
    page.wait_for_function("window.online.record && window.online.boards > 0", timeout=WAIT)
    record = shown(page)
    game_id = record["id"]
    assert record["players"] == {"b": PERSON, "w": BOT}

    # someone not signed in watches it live
    watcher = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    watcher_errors = watch_errors(watcher)
    watcher.goto(f"{base}/game/{game_id}")
    watcher.wait_for_function("window.online.record !== null", timeout=WAIT)

    rng = random.Random(3)
    clicks = 0
    refused = False
    while True:
        page.wait_for_function(
            "window.online.record.status !== 'playing' || (window.online.record.to_move === 'b'"
            " && window.online.boardPly === window.online.record.ply)", timeout=WAIT)
        record = shown(page)
        if record["status"] != "playing":
            break
        ply = record["ply"]
        assert "Your turn" in page.text_content("#status")
        if not refused and ply >= 2:
            # a click the rules refuse: the reason under the board, the game as it was
            occupied = record["moves"][0]["move"]
            errors_before = page.evaluate("window.online.errors")
            page.click(f'#board [data-target="{occupied}"]')
            page.wait_for_function(f"window.online.errors > {errors_before}", timeout=WAIT)
            assert page.text_content("#error")
            assert shown(page)["ply"] == ply
            refused = True
            page.screenshot(path=str(shots / "online-game.png"), full_page=True)
        move = rng.choice(legal_moves(record))
        errors_before = page.evaluate("window.online.errors")
        if move in record["specials"]:
            page.click(f"#special-{move}")
        elif clicks == 0:  # the first move typed, from the keyboard
            page.fill("#move-text", move)
            page.press("#move-text", "Enter")
        else:
            page.click(f'#board [data-target="{move}"]')
        page.wait_for_function(f"window.online.record.ply > {ply}"
                               f" || window.online.errors > {errors_before}", timeout=WAIT)
        assert shown(page)["ply"] > ply, f"{move}: {page.evaluate('window.online.error')}"
        clicks += 1
        assert clicks < 40, "no end after 40 moves on a 4x4 board"
    assert refused, "the game ended before a refused click was tried"

    # the result as the rules core finds it from the stored record
    stored = get_json(f"{base}/api/game/{game_id}")
    assert stored["status"] == "finished" and stored["result"]["reason"] == "rules"
    assert stored["rated"]
    outcome = position(stored).outcome()
    assert outcome is not None
    winner = None if outcome.winner is None else "bw"[outcome.winner]
    assert stored["result"]["winner"] == winner
    status = page.text_content("#status") or ""
    assert ("wins" in status or "Draw" in status) and stored["result"]["text"] in status
    page.wait_for_function("window.online.boardPly === window.online.record.ply", timeout=WAIT)
    # the rated game moved the players' ratings: the page shows the new ones
    for side, name in stored["players"].items():
        rating = round(get_json(f"{base}/api/players/{name}")["ratings"]["brique"]["rating"])
        assert rating != 1500
        page.wait_for_function(
            f"document.querySelector('.clock[data-side={side}] .rating')?.textContent"
            f" === ' {rating}'", timeout=WAIT)
    page.screenshot(path=str(shots / "online-game-over.png"), full_page=True)

    # the watcher saw every move come, without reloading
    watcher.wait_for_function("window.online.record.status === 'finished'", timeout=WAIT)
    assert shown(watcher)["ply"] == stored["ply"]
    assert watcher.evaluate("window.online.records") > 2
    assert "watching" not in (watcher.text_content("#error") or "")
    watcher.screenshot(path=str(shots / "online-game-phone.png"), full_page=True)

    # the replay: the start, then one move on
    page.click("#first")
    page.wait_for_function("window.online.boardPly === 0", timeout=WAIT)
    assert page.locator("#board svg .piece").count() == 0
    page.click("#next")
    page.wait_for_function("window.online.boardPly === 1", timeout=WAIT)
    assert page.locator("#board svg .piece").count() == 1
    assert "move 1 of" in (page.text_content("#replay-pos") or "")
    page.click("#moves li:nth-child(3) button")  # a move of the list
    page.wait_for_function("window.online.boardPly === 3", timeout=WAIT)
    page.keyboard.press("ArrowLeft")  # the focus stayed in the list; the keys step too
    page.wait_for_function("window.online.boardPly === 2", timeout=WAIT)
    assert page.evaluate("document.activeElement.closest('#moves li.current') !== null")

    # the lobby lists it among the finished games, with its result
    page.goto(base + "/")
    row = page.locator(f"#finished tr[data-game='{game_id}']")
    row.wait_for(timeout=WAIT)
    text = row.text_content() or ""
    assert PERSON in text and BOT in text and stored["result"]["text"] in text
    assert row.locator("a").get_attribute("href") == f"/game/{game_id}"
    page.screenshot(path=str(shots / "online-lobby-after.png"), full_page=True)
    assert game_id in [g["id"] for g in bot.ended]
    assert not bot.errors, bot.errors
    assert not errors and not watcher_errors, errors + watcher_errors
    context.close()


def sign_up(page: Any, base: str, name: str) -> None:
    page.goto(base + "/")
    page.wait_for_selector("#signin-form", timeout=WAIT)
    page.fill("#name", name)
    page.fill("#password", PASSWORD)
    page.click("#signup")
    page.wait_for_selector("#signed-in", timeout=WAIT)


def callable_moves(record: dict[str, Any]) -> list[str]:
    """The Brax turns that may carry a call (``!``) now."""
    game = position(record)
    moves = []
    for move in legal_moves(record):
        with contextlib.suppress(GameError):
            if game.illegal_reason(game.parse_move(move + "!", "gtp"), "gtp") is None:
                moves.append(move)
    return moves


def click_place(page: Any, token: str) -> None:
    """Click a place of the board; a Trisq slot of the orientation not shown is shown
    first by a right-click on its square."""
    place = page.locator(f'#board [data-target="{token}"]')
    if not place.is_visible():
        square = place.locator("xpath=ancestor::*[@data-square][1]").get_attribute("data-square")
        page.locator(f'#board g.slots[data-square="{square}"]:not([display]) [data-target]'
                     ).first.click(button="right")
        assert place.is_visible(), f"{token}: a right-click on its square did not show it"
    place.click()


@pytest.mark.parametrize(("game", "options"), [("trisq", {"size": "4"}),
                                               ("brax", {})])
def test_turns_of_several_clicks_then_resign(site: tuple[str, RandomBot], browser: Any,
                                             shots: Path, game: str,
                                             options: dict[str, str]) -> None:
    """A Trisq turn of two pieces or one (confirmed), a Brax path point by point (confirmed
    where it could go on, with a call when one is allowed), then *Resign*."""
    base, bot = site
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors = watch_errors(page)
    sign_up(page, base, f"{game}-player")
    page.select_option("#game", game)
    for key, value in options.items():
        field = page.locator(f"[data-option={key}]")
        if field.evaluate("el => el.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    page.select_option("#color", "b")
    page.fill("#opponent", BOT)
    page.click("#open-challenge")
    page.wait_for_url("**/game/*", timeout=WAIT)
    page.wait_for_function("window.online.record && window.online.boards > 0", timeout=WAIT)
    game_id = shown(page)["id"]

    rng = random.Random(game)
    confirmed = called = 0
    for turn in range(40):
        if confirmed and (called or game != "brax") and turn >= 4:
            break
        page.wait_for_function(
            "window.online.record.status !== 'playing' || (window.online.record.to_move === 'b'"
            " && window.online.boardPly === window.online.record.ply)", timeout=WAIT)
        record = shown(page)
        if record["status"] != "playing":
            break
        ply = record["ply"]
        legal = legal_moves(record)
        calls = callable_moves(record) if game == "brax" else []
        # until one has been: a move that needs Confirm, as it could go on
        joint = "+" if game == "trisq" else "-"
        stops = [m for m in legal if any(o.startswith(m + joint) for o in legal)]
        move = rng.choice(calls or (not confirmed and stops) or legal)
        if calls:
            page.check("#call")
        parts = move.split("+") if game == "trisq" else move.split("-")
        for part in parts:
            steps = page.evaluate("window.online.steps")
            click_place(page, part)
            page.wait_for_function(f"window.online.steps > {steps}", timeout=WAIT)
        if shown(page)["ply"] == ply:  # the clicks could go on: this move ends here
            assert page.is_enabled("#confirm"), page.text_content("#hint")
            assert page.text_content("#hint")
            if turn == 0:
                page.screenshot(path=str(shots / f"online-{game}-pending.png"), full_page=True)
            page.click("#confirm")
            confirmed += 1
        page.wait_for_function(f"window.online.record.ply > {ply}", timeout=WAIT)
        played = shown(page)["moves"][ply]["move"]
        assert played == move + ("!" if calls else ""), page.evaluate("window.online.error")
        called += bool(calls)
        assert not page.is_checked("#call") if game == "brax" else True
    assert confirmed, f"{game}: no turn needed a confirmation"
    assert called or game != "brax", "no Brax call was allowed in 40 turns"

    record = shown(page)
    assert record["status"] == "playing", "the game ended before the resignation"
    page.click("#resign")
    page.click("#resign-yes")
    page.wait_for_function("window.online.record.status === 'finished'", timeout=WAIT)
    record = shown(page)
    assert record["result"]["reason"] == "resign" and record["result"]["winner"] == "w"
    assert "by resignation" in (page.text_content("#status") or "")
    assert page.is_hidden("#resign-box")
    page.screenshot(path=str(shots / f"online-{game}-resigned.png"), full_page=True)
    page.goto(base + "/")
    page.locator(f"#finished tr[data-game='{game_id}']").wait_for(timeout=WAIT)
    assert not errors, errors
    context.close()


def test_accept_decline_withdraw_and_sign_out(site: tuple[str, RandomBot], browser: Any,
                                             shots: Path) -> None:
    """The lobby's buttons on the challenges of another person (over HTTP) and on one's own;
    a game accepted in the lobby, the opponent's resignation seen live."""
    base, _ = site
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors = watch_errors(page)
    sign_up(page, base, "carol")
    other = browser.new_context()
    answer = other.request.post(base + "/api/account/signup",
                                data={"name": "dave", "password": PASSWORD})
    assert answer.ok, answer.text()

    def challenge(**fields: Any) -> int:
        body = {"game": "brique", "options": {"size": "3"}, "color": "w",
                "time": {"initial": 60, "increment": 0}, **fields}
        answer = other.request.post(base + "/api/challenges", data=body)
        assert answer.ok, answer.text()
        ident: int = answer.json()["id"]
        return ident

    def status(ident: int) -> str:
        value: str = other.request.get(f"{base}/api/challenges/{ident}").json()["status"]
        return value

    open_one, to_carol = challenge(), challenge(opponent="carol")
    row = page.locator(f"#challenges tr[data-challenge='{to_carol}']")
    row.locator("button.decline").wait_for(timeout=WAIT)
    assert page.locator(f"#challenges tr[data-challenge='{open_one}'] button.decline").count() == 0
    page.screenshot(path=str(shots / "online-lobby.png"), full_page=True)
    row.locator("button.decline").click()
    row.wait_for(state="detached", timeout=WAIT)
    assert status(to_carol) == "declined"

    # one's own challenge, open to anyone, withdrawn
    page.fill("[data-option=size]", "5")
    page.click("#open-challenge")
    mine = page.locator("#challenges tr.mine")
    mine.wait_for(timeout=WAIT)
    assert "anyone" in (mine.text_content() or "")
    mine.locator("button.withdraw").click()
    mine.wait_for(state="detached", timeout=WAIT)
    assert page.locator("#challenges tr.mine").count() == 0

    # dave's open challenge accepted: the game's page opens; dave resigns
    page.locator(f"#challenges tr[data-challenge='{open_one}'] button.accept").click()
    page.wait_for_url("**/game/*", timeout=WAIT)
    page.wait_for_function("window.online.record !== null", timeout=WAIT)
    record = shown(page)
    assert record["players"] == {"w": "dave", "b": "carol"}
    assert status(open_one) == "accepted"
    answer = other.request.post(f"{base}/api/game/{record['id']}/resign", data={})
    assert answer.ok, answer.text()
    page.wait_for_function("window.online.record.status === 'finished'", timeout=WAIT)
    assert "Black (carol) wins by resignation" in (page.text_content("#status") or "")

    page.click("#signout")
    page.wait_for_selector("#signin-form", timeout=WAIT)
    assert page.evaluate("window.online.record.status") == "finished"
    page.goto(base + "/")
    page.wait_for_selector("#signin-form", timeout=WAIT)
    assert page.is_hidden("#challenge-form") and page.is_visible("#signin-note")
    assert not errors, errors
    other.close()
    context.close()


def test_swap_by_its_button_then_out_of_time(site: tuple[str, RandomBot],
                                             browser: Any) -> None:
    """White swaps with the button the pie rule offers, then, six seconds on its clock,
    plays no more: the server ends the game on time, the page shows it live."""
    base, _ = site
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors = watch_errors(page)
    sign_up(page, base, "slowcoach")
    page.fill("[data-option=size]", "5")
    page.select_option("[data-option=pie]", "on")
    page.select_option("#color", "w")
    page.fill("#minutes", "0.1")
    page.fill("#increment", "0")
    page.fill("#opponent", BOT)
    page.click("#open-challenge")
    page.wait_for_url("**/game/*", timeout=WAIT)
    page.wait_for_function("window.online.record !== null", timeout=WAIT)
    assert shown(page)["time"] == {"initial": 6, "increment": 0}
    page.locator("#special-swap").click(timeout=WAIT)  # once the bot has moved
    page.wait_for_function("window.online.record.ply === 2"
                           " || window.online.record.status !== 'playing'", timeout=WAIT)
    record = shown(page)
    assert record["moves"][1]["move"] == "swap"
    assert page.locator("#special-swap").count() == 0
    page.wait_for_function("window.online.record.status === 'finished'", timeout=WAIT)
    record = shown(page)
    assert record["result"]["reason"] == "time" and record["result"]["winner"] == "b"
    assert "wins on time" in (page.text_content("#status") or "")
    assert page.text_content(".clock[data-side=w] .time") == "0:00.0"
    assert page.locator(".clock.active").count() == 0
    assert not errors, errors
    context.close()


def test_a_game_that_does_not_exist(site: tuple[str, RandomBot], browser: Any) -> None:
    base, _ = site
    page = browser.new_page()
    errors = watch_errors(page)
    page.goto(f"{base}/game/9999")
    page.wait_for_function("window.online.errors > 0", timeout=WAIT)
    assert page.text_content("#status") == "No such game."
    assert "9999" in (page.text_content("#error") or "")
    assert not errors, errors
    page.close()


def test_the_game_page_follows_its_game_across_a_server_restart(
        tmp_path: Path, browser: Any) -> None:
    """A game between two people; the server stops and starts again on the same database:
    the page says it lost the connection, comes back by itself, shows the opponent's next
    move live and takes its player's click."""
    db = f"sqlite:///{tmp_path / 'online.sqlite'}"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start_server(db, port)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    other = browser.new_context()
    try:
        page = context.new_page()
        errors = watch_errors(page)
        sign_up(page, base, "erin")
        assert other.request.post(base + "/api/account/signup",
                                  data={"name": "frank", "password": PASSWORD}).ok
        answer = other.request.post(base + "/api/challenges", data={
            "game": "brique", "options": {"size": "5"}, "color": "w",
            "time": {"initial": 600, "increment": 0}, "opponent": "erin"})
        assert answer.ok, answer.text()
        page.locator(f"#challenges tr[data-challenge='{answer.json()['id']}'] button.accept"
                     ).click()
        page.wait_for_url("**/game/*", timeout=WAIT)
        page.wait_for_function("window.online.boardPly === 0", timeout=WAIT)
        game_id = shown(page)["id"]
        page.click('#board [data-target="c3"]')
        page.wait_for_function("window.online.record.ply === 1", timeout=WAIT)

        stop_server(proc)
        page.wait_for_function(
            "document.getElementById('connection').textContent.includes('reconnecting')",
            timeout=WAIT)
        proc = start_server(db, port)
        page.wait_for_function(
            "document.getElementById('connection').textContent === 'live'", timeout=WAIT)
        answer = other.request.post(f"{base}/api/game/{game_id}/move",
                                    data={"ply": 1, "move": "b2"})
        assert answer.ok, answer.text()
        page.wait_for_function("window.online.record.ply === 2"
                               " && window.online.boardPly === 2", timeout=WAIT)
        assert "Your turn" in (page.text_content("#status") or "")
        page.click('#board [data-target="d4"]')
        page.wait_for_function("window.online.record.ply === 3", timeout=WAIT)
        assert [m["move"] for m in shown(page)["moves"]] == ["c3", "b2", "d4"]
        assert not errors, errors
    finally:
        other.close()
        context.close()
        stop_server(proc)
