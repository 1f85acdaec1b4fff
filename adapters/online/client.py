"""A client of the game server's HTTP API (docs/online.md) for ``gtpgames challenge`` and the
bot bridge: JSON requests with a bearer token over ``urllib.request``, the server's address
turned into its WebSocket address, and the challenge a script sends."""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

#: Seconds a request may take before it counts as a connection error.
REQUEST_TIMEOUT = 30.0


class ApiError(RuntimeError):
    """The server answered with an error status: ``status`` and its ``{"error"}`` message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message


class ServerUnreachable(OSError):
    """No answer from the server (refused, reset, timed out, or not HTTP)."""


def base_url(server: str) -> str:
    """``server`` checked and without its trailing slash: an ``http://`` or ``https://``
    address with a host (ValueError naming it otherwise)."""
    parts = urllib.parse.urlsplit(server.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"--server expects http://HOST[:PORT] or https://HOST[:PORT], "
                         f"got {server!r}")
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "",
                                    ""))


def websocket_url(server: str, path: str) -> str:
    """The WebSocket address of ``path`` on ``server``: ``http`` becomes ``ws`` and
    ``https`` becomes ``wss``."""
    base = base_url(server)
    scheme, rest = base.split("://", 1)
    return f"{'wss' if scheme == 'https' else 'ws'}://{rest}{path}"


def parse_time(text: str) -> dict[str, int]:
    """``MIN+INC`` (minutes, then seconds of increment; ``MIN`` alone is ``MIN+0``) as the
    challenge's ``time`` field in seconds (ValueError naming the text otherwise)."""
    minutes, _, increment = text.strip().partition("+")
    try:
        seconds = float(minutes) * 60
        extra = int(increment or "0")
    except ValueError:
        raise ValueError(f"--time expects MIN+INC (minutes, seconds), got {text!r}") from None
    initial = round(seconds) if math.isfinite(seconds) else 0
    if not 1 <= initial <= 604800:
        raise ValueError(f"--time {text!r}: the initial time must be 1 s to 7 days")
    if not 0 <= extra <= 3600:
        raise ValueError(f"--time {text!r}: the increment must be 0 to 3600 seconds")
    return {"initial": initial, "increment": extra}


class Client:
    """Requests to one server as one account (``token``; None: anonymous)."""

    def __init__(self, server: str, token: str | None, timeout: float = REQUEST_TIMEOUT) -> None:
        self.base = base_url(server)
        self.token = token
        self.timeout = timeout

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """Send one request and return its decoded JSON answer; :class:`ApiError` for an
        error status, :class:`ServerUnreachable` when there is no HTTP answer."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.base + path, data=data, headers=headers,
                                         method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                text = answer.read().decode("utf-8")
        except urllib.error.HTTPError as error:
            raise ApiError(error.code, _error_message(error)) from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise ServerUnreachable(f"{self.base}: {reason}") from None
        try:
            return json.loads(text) if text.strip() else {}
        except json.JSONDecodeError:
            raise ServerUnreachable(f"{self.base}{path}: the answer is not JSON") from None

    def get(self, path: str) -> Any:
        return self.request("GET", path)

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        return self.request("POST", path, body if body is not None else {})

    def delete(self, path: str) -> Any:
        return self.request("DELETE", path)


def _error_message(error: urllib.error.HTTPError) -> str:
    """The ``error`` field of an error answer, else its reason phrase."""
    try:
        text = error.read().decode("utf-8", errors="replace")
        found = json.loads(text).get("error")
        if isinstance(found, str):
            return found
    except (OSError, ValueError, AttributeError):
        pass
    return str(error.reason)
