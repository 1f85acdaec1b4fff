"""Argument helpers for GTP handlers (Fuego's GtpCommand style): each check fails with a
uniform ``syntax error`` message that names the bad argument.

Numbers are ASCII only: an integer is ``[+-]digits``, a number may add a decimal point and an
exponent (``2.5``, ``1e3``); ``nan``, ``inf``, other scripts' digits, ``_`` separators and
padding are refused. Every number has a range, checked when it is given, so that no later
command meets a value it cannot compute with; docs/protocol.md lists the ranges.
"""

from __future__ import annotations

import math
import re

from protocol.gtp import GtpError

#: Seconds of a time setting or a clock (``time_settings``, ``kgs-time_settings``,
#: ``time_left``): 0 .. MAX_SECONDS (more than eleven days).
MAX_SECONDS = 1_000_000
#: Byo-yomi stones or periods, and the stones of ``time_left``: 0 .. MAX_STONES.
MAX_STONES = 10_000
#: Seconds per move (``--time``, ``gtpgames-param time``): more than 0, at most a day.
MAX_MOVE_SECONDS = 86_400
#: Playouts per move or per analysis: 1 .. MAX_PLAYOUTS.
MAX_PLAYOUTS = 10_000_000
#: Analysis reporting interval in centiseconds: 1 .. MAX_INTERVAL (ten minutes).
MAX_INTERVAL = 60_000
#: ``komi``: -MAX_KOMI .. MAX_KOMI.
MAX_KOMI = 1_000
#: An integer without a range of its own (board sizes, seeds): 0 .. MAX_INTEGER.
MAX_INTEGER = 2**63 - 1

_INTEGER = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
#: Longer than this many digits is out of every range (and not converted).
_MAX_DIGITS = 30


def count(args: tuple[str, ...], low: int, high: int | None = None, usage: str = "") -> None:
    """Require between ``low`` and ``high`` arguments (exactly ``low`` if ``high`` is None)."""
    high = low if high is None else high
    if not low <= len(args) <= high:
        if low == high:
            wanted = f"{low} argument{'s' if low != 1 else ''}"
        else:
            wanted = f"{low} to {high} arguments"
        hint = f" ({usage})" if usage else ""
        raise GtpError(f"syntax error: expected {wanted}, got {len(args)}{hint}")


def _out_of_range(what: str, text: str, low: float | None, high: float | None) -> GtpError:
    def show(value: float | None) -> str:
        if value is None:
            return ""
        return str(value) if isinstance(value, int) else f"{value:g}"

    return GtpError(f"syntax error: {what} {text} is out of range {show(low)}..{show(high)}")


def integer(text: str, what: str, low: int | None = None, high: int | None = None) -> int:
    """An integer of ASCII digits in ``low..high`` (0 .. :data:`MAX_INTEGER` when no bound
    is given)."""
    if low is None and high is None:
        low, high = 0, MAX_INTEGER
    if not _INTEGER.fullmatch(text):
        raise GtpError(f"syntax error: {what} must be an integer, got {text!r}")
    if len(text.lstrip("+-").lstrip("0")) <= _MAX_DIGITS:
        value = int(text)
        if (low is None or value >= low) and (high is None or value <= high):
            return value
    raise _out_of_range(what, text, low, high)


def number(text: str, what: str, low: float | None = None, high: float | None = None) -> float:
    """A finite decimal number of ASCII digits in ``low..high``."""
    if not _NUMBER.fullmatch(text):
        if text.lstrip("+-").lower() in ("nan", "inf", "infinity"):
            raise GtpError(f"syntax error: invalid {what} {text!r}")
        raise GtpError(f"syntax error: {what} must be a number, got {text!r}")
    value = float(text)
    if math.isfinite(value) and (low is None or value >= low) and (high is None or value <= high):
        return value
    raise _out_of_range(what, text, low, high)


def move_seconds(text: str, what: str = "time") -> float:
    """Seconds per move: more than 0, at most :data:`MAX_MOVE_SECONDS`."""
    value = number(text, what, 0, MAX_MOVE_SECONDS)
    if value <= 0:
        raise GtpError(f"syntax error: {what} {text} is out of range: more than 0 is needed")
    return value
