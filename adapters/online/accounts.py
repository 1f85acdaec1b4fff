"""Accounts of the game server (docs/online.md): names, password hashes (argon2), tokens
(stored as their sha256, compared in constant time), the throttle of wrong passwords, and
the Glicko-2 update of ratings (the ``glicko2`` library, wrapped: it is untyped)."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections import deque
from collections.abc import Callable

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

NAME = re.compile(r"[A-Za-z0-9_-]{2,20}")
MIN_PASSWORD, MAX_PASSWORD = 8, 200

_hasher = PasswordHasher()


class AccountError(ValueError):
    """A refused name, password or token: the message says which and why."""


def check_name(name: object) -> str:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise AccountError("a name is 2 to 20 characters of letters, digits, _ and -")
    return name


def check_password(password: object) -> str:
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AccountError(f"a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    return password


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(stored: str | None, password: str) -> bool:
    if stored is None:
        return False
    try:
        return _hasher.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


def new_token() -> str:
    return secrets.token_urlsafe(32)


def digest(token: str) -> str:
    """What is stored of a token: its sha256, in hex."""
    return hashlib.sha256(token.encode()).hexdigest()


def same_digest(stored: str, token: str) -> bool:
    """Whether ``token`` is the one whose digest is ``stored`` (in constant time)."""
    return hmac.compare_digest(stored.encode(), digest(token).encode())


class Throttle:
    """Wrong passwords per name: ``limit`` of them within ``window`` seconds lock the name
    for ``window`` seconds after the last one."""

    def __init__(self, clock: Callable[[], float], limit: int = 5, window: float = 60.0,
                 most: int = 100_000):
        self.clock, self.limit, self.window, self.most = clock, limit, window, most
        self.failures: dict[str, deque[float]] = {}

    def _recent(self, name: str) -> deque[float]:
        now = self.clock()
        times = self.failures.setdefault(name.lower(), deque())
        while times and now - times[0] >= self.window:
            times.popleft()
        return times

    def locked(self, name: str) -> bool:
        times = self._recent(name)
        if len(times) < self.limit:
            if not times:
                self.failures.pop(name.lower(), None)
            return False
        return True

    def failed(self, name: str) -> None:
        self._recent(name).append(self.clock())
        if len(self.failures) > self.most:  # a flood of names: forget those of the past
            now = self.clock()
            self.failures = {key: times for key, times in self.failures.items()
                             if now - times[-1] < self.window}
            unlocked = [key for key, times in self.failures.items() if len(times) < self.limit]
            for key in unlocked[:max(0, len(self.failures) - self.most)]:
                del self.failures[key]  # then names not locked, the oldest first
            while len(self.failures) > self.most:  # then the oldest
                del self.failures[next(iter(self.failures))]


Triple = tuple[float, float, float]


def glicko2_update(player: Triple, opponent: Triple, score: float) -> Triple:
    """``player``'s (rating, deviation, volatility) after one game against ``opponent``
    that scored ``score`` (1 a win, 0.5 a draw, 0 a loss)."""
    import glicko2  # type: ignore[import-untyped]

    rating, rd, volatility = player
    one = glicko2.Player(rating=rating, rd=rd, vol=volatility)
    one.update_player([opponent[0]], [opponent[1]], [score])
    return float(one.rating), float(one.rd), float(one.vol)
