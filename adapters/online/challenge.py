"""``gtpgames challenge``: start one game on the game server as the token's account, wait
for it to end and describe its result in one line (docs/online.md, "Scripted play").

The challenge is sent with ``POST /api/challenges``; its status is read until it is accepted
or declined (``GET /api/challenges/ID``), a challenge not accepted in time is withdrawn
(``DELETE``), and the game is followed by reading its record (``GET /api/game/ID``) until it
is finished. A server that stops answering while the game is played, or answers with
server errors (its database restarting), is waited for.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from typing import Any

from adapters.online.client import ApiError, Client, ServerUnreachable

#: Exit statuses: the game ended; the challenge was declined or not accepted in time; a
#: usage or connection error.
ENDED, NOT_PLAYED, FAILED = 0, 1, 2


@dataclasses.dataclass
class Outcome:
    """What ``gtpgames challenge`` prints (one line) and its exit status."""

    status: int
    line: str


def result_line(record: Mapping[str, Any], address: str) -> str:
    """One line for a finished game: its number and game, the players with their colours,
    who won and how, and its address."""
    players = record.get("players") or {}
    sides = " vs ".join(f"{name} ({side})" for side, name in players.items())
    result = record.get("result") or {}
    winner = result.get("winner")
    reason = result.get("reason") or "?"
    said = "draw" if winner is None else f"{players.get(winner, winner)} wins"
    text = f": {result['text']}" if result.get("text") else ""
    return f"game {record.get('id')} {record.get('game')}: {sides}: {said} by {reason}{text}" \
           f" {address}"


def play(
    client: Client, challenge: dict[str, Any], wait: float, poll: float = 0.5,
    notice: Callable[[str], None] = lambda text: None,
    sleep: Callable[[float], None] = time.sleep,
) -> Outcome:
    """Send ``challenge``, wait ``wait`` seconds for it to be accepted, follow the game to
    its end. ApiError or ServerUnreachable when the challenge cannot be sent."""
    sent = client.post("/api/challenges", challenge)
    ident = sent["id"]
    notice(f"challenge {ident} sent to {challenge.get('opponent', 'anyone')}")
    deadline = time.monotonic() + wait
    while True:
        state = _retrying(lambda: client.get(f"/api/challenges/{ident}"), deadline, sleep)
        status = state.get("status")
        if status == "accepted" and state.get("game_id") is not None:
            game = int(state["game_id"])
            break
        if status in ("declined", "withdrawn"):
            reason = state.get("reason")
            return Outcome(NOT_PLAYED, f"challenge {ident} {status}"
                                       + (f": {reason}" if reason else ""))
        if time.monotonic() >= deadline:
            try:
                client.delete(f"/api/challenges/{ident}")
            except (ApiError, ServerUnreachable) as error:
                notice(f"challenge {ident} could not be withdrawn: {error}")
            return Outcome(NOT_PLAYED, f"challenge {ident} not accepted within {wait:g} s")
        sleep(poll)
    notice(f"game {game} started")
    while True:
        record = _retrying(lambda: client.get(f"/api/game/{game}"), None, sleep)
        if record.get("status") == "finished":
            return Outcome(ENDED, result_line(record, f"{client.base}/game/{game}"))
        sleep(poll)


def _retrying(get: Callable[[], Any], deadline: float | None,
              sleep: Callable[[float], None], patience: float = 120.0) -> Any:
    """``get()``, tried again while the server does not answer (a restart) or answers with
    a server error (5xx: its database restarting): until ``deadline``, or for ``patience``
    seconds without an answer. A client error (4xx) is raised at once."""
    give_up = time.monotonic() + patience
    if deadline is not None:
        give_up = max(give_up, deadline)
    while True:
        try:
            return get()
        except (ServerUnreachable, ApiError) as error:
            if isinstance(error, ApiError) and error.status < 500:
                raise
            if time.monotonic() >= give_up:
                raise
            sleep(1.0)


def build(opponent: str, game: str, options: Mapping[str, str], color: str,
          time_control: dict[str, int], rated: bool) -> dict[str, Any]:
    """The challenge of the command line (ValueError naming a bad value)."""
    from engine.games.registry import new_game

    if color not in ("b", "w", "random"):
        raise ValueError(f"--color expects b, w or random, got {color!r}")
    new_game(game, **dict(options))  # GameError (a ValueError) naming a bad game or option
    return {"game": game.lower(), "options": dict(options), "color": color,
            "time": time_control, "opponent": opponent, "rated": rated}
