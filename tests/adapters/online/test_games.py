"""Whole games on the game server (docs/online.md): bots playing random legal moves over the
bot WebSocket in all five games, the stored record replayed in the rules core, clocks on a
fake clock (time loss, increment), resignation and forfeit, ratings, watchers, and the
restart rule."""

from __future__ import annotations

import random
from typing import Any

import pytest
from starlette.testclient import TestClient

from adapters.online.play import Limits
from engine.games.registry import new_game
from tests.adapters.online.conftest import FakeClock, Server, auth
from tests.adapters.online.helpers import challenge, move, start, until

GAMES: dict[str, dict[str, str]] = {
    "brique": {"size": "5"}, "trisq": {"size": "4"}, "flicker": {"size": "5"},
    "brax": {"hunt": "on"}, "bricka": {},
}


def test_the_bots_play_a_whole_game_of_each_kind(client: TestClient,
                                                 bots: dict[str, str]) -> None:
    rng = random.Random(7)
    with client.websocket_connect("/api/bot", headers=auth(bots["alpha"])) as a, \
            client.websocket_connect("/api/bot", headers=auth(bots["beta"])) as b:
        until(a, "hello")
        until(b, "hello")
        sockets = {"alpha": a, "beta": b}
        for name, options in GAMES.items():
            made = challenge(client, bots["alpha"], game=name, options=options,
                             opponent="beta", color="random", rated=True)
            until(b, "challenge")
            b.send_json({"type": "accept", "challenge": made["id"]})
            colors = {}
            for bot, ws in sockets.items():
                message = until(ws, "game_start")
                colors[message["color"]] = bot
                record = message["game"]
            game_id = record["id"]
            core = new_game(name, **options)
            while record["status"] == "playing":
                mover = sockets[colors[record["to_move"]]]
                token = core.format_move(core.random_move(rng), "gtp")
                mover.send_json({"type": "move", "game": game_id, "ply": record["ply"],
                                 "move": token})
                core.play_text(token, "gtp")
                kinds = {}
                for ws in sockets.values():
                    message = ws.receive_json()
                    kinds[message["type"]] = message
                    assert message["type"] in ("game_state", "game_end"), message
                    assert message["game"]["moves"][-1]["move"] == token
                record = message["game"]
            assert set(kinds) == {"game_end"}
            outcome = core.outcome()
            assert outcome is not None
            stored = client.get(f"/api/game/{game_id}").json()
            replayed = new_game(name, **stored["options"])
            for played in stored["moves"]:
                replayed.play_text(played["move"], "gtp")
            assert replayed.outcome() == outcome
            winner = None if outcome.winner is None else replayed.color_name(outcome.winner)
            assert stored["result"] == {"winner": winner, "reason": "rules",
                                        "text": outcome.reason}
            assert stored["status"] == "finished" and stored["ended"] is not None
            assert stored["ply"] == len(replayed.history) == len(stored["moves"])


def test_clocks_run_for_the_side_to_move_with_the_increment(
        client: TestClient, bots: dict[str, str], clock: FakeClock) -> None:
    game = start(client, bots["alpha"], bots["beta"],
                 time={"initial": 60, "increment": 3})
    clock.advance(2.5)
    record = client.get(f"/api/game/{game}").json()
    assert record["clocks"] == {"b": 57500, "w": 60000}
    record = move(client, bots["alpha"], game, 0, "c3").json()
    assert record["moves"] == [{"move": "c3", "ms": 2500}]
    assert record["clocks"] == {"b": 60500, "w": 60000}
    clock.advance(1.0)
    assert client.get(f"/api/game/{game}").json()["clocks"] == {"b": 60500, "w": 59000}


def test_a_player_out_of_time_loses(client: TestClient, bots: dict[str, str],
                                    clock: FakeClock) -> None:
    game = start(client, bots["alpha"], bots["beta"], time={"initial": 10, "increment": 0})
    with client.websocket_connect("/api/bot", headers=auth(bots["beta"])) as ws:
        until(ws, "game_start")
        move(client, bots["alpha"], game, 0, "c3")
        until(ws, "game_state")
        clock.advance(10.001)
        ws.send_json({"type": "move", "game": game, "ply": 1, "move": "d4"})
        end = until(ws, "game_end")["game"]
        assert end["result"] == {"winner": "b", "reason": "time",
                                 "text": "beta ran out of time"}
        assert end["clocks"] == {"b": 10000, "w": 0}
        error = until(ws, "error")
        assert error["game"] == game and "is over" in error["message"]
    record = client.get(f"/api/game/{game}").json()
    assert record["status"] == "finished" and [m["move"] for m in record["moves"]] == ["c3"]


def test_time_runs_out_without_any_message(client: TestClient, bots: dict[str, str],
                                           clock: FakeClock) -> None:
    game = start(client, bots["alpha"], bots["beta"], time={"initial": 5, "increment": 0})
    clock.advance(4.9)
    assert client.get(f"/api/game/{game}").json()["status"] == "playing"
    clock.advance(0.2)
    record = client.get(f"/api/game/{game}").json()
    assert record["result"]["reason"] == "time" and record["result"]["winner"] == "w"


@pytest.mark.parametrize(("reason", "kind", "text"), [
    (None, "resign", "beta resigns"),
    ("engine crashed", "forfeit", "beta forfeits: engine crashed"),
])
def test_resignation_and_forfeit(client: TestClient, bots: dict[str, str], reason: str | None,
                                 kind: str, text: str) -> None:
    game = start(client, bots["alpha"], bots["beta"])
    with client.websocket_connect("/api/bot", headers=auth(bots["beta"])) as ws:
        until(ws, "game_start")
        message: dict[str, Any] = {"type": "resign", "game": game}
        if reason is not None:
            message["reason"] = reason
        ws.send_json(message)  # not its turn: a resignation is taken at any time
        end = until(ws, "game_end")["game"]
    assert end["result"] == {"winner": "b", "reason": kind, "text": text}
    assert client.get(f"/api/game/{game}").json()["result"] == end["result"]
    picture = client.get(f"/api/game/{game}/svg").text
    assert f"Black wins: {text}" in picture and "to move" not in picture
    again = client.post(f"/api/game/{game}/resign", json={}, headers=auth(bots["alpha"]))
    assert again.status_code == 409


def test_ratings_change_after_a_rated_game_only(client: TestClient,
                                                bots: dict[str, str]) -> None:
    game = start(client, bots["alpha"], bots["beta"])
    client.post(f"/api/game/{game}/resign", json={}, headers=auth(bots["beta"]))
    alpha = client.get("/api/players/alpha").json()["ratings"]["brique"]
    assert alpha["rating"] == 1500 and alpha["rd"] == 350 and alpha["wins"] == 1
    game = start(client, bots["alpha"], bots["beta"], rated=True)
    client.post(f"/api/game/{game}/resign", json={}, headers=auth(bots["beta"]))
    alpha = client.get("/api/players/alpha").json()["ratings"]["brique"]
    beta = client.get("/api/players/beta").json()["ratings"]["brique"]
    assert alpha["rating"] > 1500 > beta["rating"]
    assert alpha["rd"] < 350 and beta["rd"] < 350
    assert (alpha["wins"], alpha["losses"], beta["wins"], beta["losses"]) == (2, 0, 0, 2)
    assert alpha["rating"] - 1500 == pytest.approx(1500 - beta["rating"], abs=0.2)


def test_watchers_see_every_change(client: TestClient, bots: dict[str, str]) -> None:
    game = start(client, bots["alpha"], bots["beta"])
    with client.websocket_connect(f"/api/game/{game}/live") as ws:
        assert ws.receive_json()["game"]["ply"] == 0
        move(client, bots["alpha"], game, 0, "c3")
        message = ws.receive_json()
        assert message["type"] == "game" and message["game"]["moves"][0]["move"] == "c3"
        ws.send_json({"type": "move"})
        assert ws.receive_json()["type"] == "error"
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
        client.post(f"/api/game/{game}/resign", json={}, headers=auth(bots["alpha"]))
        assert ws.receive_json()["game"]["status"] == "finished"
    with client.websocket_connect("/api/game/999/live") as ws:
        assert ws.receive_json()["type"] == "error"


def test_a_person_plays_a_bot_over_http(client: TestClient, bots: dict[str, str]) -> None:
    from tests.adapters.online.helpers import person

    alice = person(client, "alice")
    game = start(client, alice, bots["beta"])
    assert move(client, alice, game, 0, "c3").json()["specials"] == ["swap"]
    record = move(client, bots["beta"], game, 1, "swap").json()
    assert record["to_move"] == "b" and record["specials"] == []


def test_restart_resumes_games_with_their_clocks_as_stored(
        server: Server, bots: dict[str, str], clock: FakeClock) -> None:
    first = server(limits=Limits(rate=1e6))
    game = start(first, bots["alpha"], bots["beta"], time={"initial": 60, "increment": 0})
    clock.advance(2)
    move(first, bots["alpha"], game, 0, "c3")
    clock.advance(3)
    move(first, bots["beta"], game, 1, "d4")
    clock.advance(7)  # alpha thinks 7 s, then the server stops
    assert first.get(f"/api/game/{game}").json()["clocks"] == {"b": 51000, "w": 57000}
    first.__exit__(None, None, None)
    clock.advance(500)  # the server is down
    second = server(limits=Limits(rate=1e6))
    record = second.get(f"/api/game/{game}").json()
    assert record["status"] == "playing" and record["to_move"] == "b"
    assert [m["move"] for m in record["moves"]] == ["c3", "d4"]
    assert [m["ms"] for m in record["moves"]] == [2000, 3000]
    # the turn starts again with the time alpha had when it began
    assert record["clocks"] == {"b": 58000, "w": 57000}
    clock.advance(1)
    record = move(second, bots["alpha"], game, 2, "e5").json()
    assert record["clocks"] == {"b": 57000, "w": 57000} and record["ply"] == 3
    with second.websocket_connect("/api/bot", headers=auth(bots["beta"])) as ws:
        until(ws, "hello")
        assert until(ws, "game_start")["game"]["ply"] == 3  # the bot is sent its game


def test_a_finished_game_survives_a_restart(server: Server, bots: dict[str, str]) -> None:
    first = server(limits=Limits(rate=1e6))
    game = start(first, bots["alpha"], bots["beta"])
    move(first, bots["alpha"], game, 0, "c3")
    first.post(f"/api/game/{game}/resign", json={}, headers=auth(bots["alpha"]))
    before = first.get(f"/api/game/{game}").json()
    first.__exit__(None, None, None)
    second = server(limits=Limits(rate=1e6))
    assert second.get(f"/api/game/{game}").json() == before
    assert move(second, bots["beta"], game, 1, "d4").status_code == 409


def test_a_move_not_stored_is_not_played(client: TestClient, bots: dict[str, str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A move is stored before it is acknowledged: when the database fails, the move is
    refused, the game unchanged, and the same move can be sent again."""
    store = client.app.state.store  # type: ignore[attr-defined]
    game = start(client, bots["alpha"], bots["beta"])
    real = store.add_move

    def broken(*args: Any, **kwargs: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(store, "add_move", broken)
    answer = move(client, bots["alpha"], game, 0, "c3")
    assert answer.status_code == 503 and "send it again" in answer.json()["error"]
    record = client.get(f"/api/game/{game}").json()
    assert record["ply"] == 0 and record["to_move"] == "b"
    monkeypatch.setattr(store, "add_move", real)
    assert move(client, bots["alpha"], game, 0, "c3").json()["ply"] == 1


def test_games_per_person_limit(server: Server, db: str) -> None:
    from adapters.online.app import add_bot
    from tests.adapters.online.helpers import person

    client = server(limits=Limits(max_person_games=2, rate=1e6))
    bot = add_bot(db, "alpha")
    alice = person(client, "alice")
    start(client, alice, bot)
    start(client, bot, alice)
    made = challenge(client, bot)
    answer = client.post(f"/api/challenges/{made['id']}/accept", headers=auth(alice))
    assert answer.status_code == 429 and "alice has 2 games" in answer.json()["error"]


def test_refusals_are_logged_with_account_game_and_reason(
        client: TestClient, bots: dict[str, str], caplog: pytest.LogCaptureFixture) -> None:
    game = start(client, bots["alpha"], bots["beta"])
    with caplog.at_level("WARNING", logger="gtpgames.online"):
        move(client, bots["beta"], game, 0, "c3")
        with client.websocket_connect("/api/bot", headers=auth(bots["beta"])) as ws:
            until(ws, "game_start")
            ws.send_json({"type": "move", "game": game, "ply": 0, "move": "c3"})
            until(ws, "error")
    http, socket = [r.getMessage() for r in caplog.records][-2:]
    assert "beta" in http and f"/api/game/{game}/move" in http and "b is to move" in http
    assert "beta" in socket and f"'game': {game}" in socket and "b is to move" in socket
