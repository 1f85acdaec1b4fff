"""Argument helpers for GTP handlers (Fuego's GtpCommand style): each check fails with a
uniform ``syntax error`` message that names the bad argument."""

from __future__ import annotations

import math

from protocol.gtp import GtpError


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


def integer(text: str, what: str, low: int | None = None, high: int | None = None) -> int:
    try:
        value = int(text)
    except ValueError:
        raise GtpError(f"syntax error: {what} must be an integer, got {text!r}") from None
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"{low if low is not None else ''}..{high if high is not None else ''}"
        raise GtpError(f"syntax error: {what} {value} is out of range {bounds}")
    return value


def number(text: str, what: str, low: float | None = None) -> float:
    try:
        value = float(text)
    except ValueError:
        raise GtpError(f"syntax error: {what} must be a number, got {text!r}") from None
    if not math.isfinite(value) or (low is not None and value < low):
        raise GtpError(f"syntax error: invalid {what} {text!r}")
    return value
