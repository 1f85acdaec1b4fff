"""Match statistics: Elo difference from a score with its 95% interval, and the SPRT.

The Elo model is the logistic one (score = 1 / (1 + 10^(-elo/400))). The interval is the
normal approximation on the per-game score (wins 1, draws 1/2, losses 0), mapped through the
model, as cutechess-cli reports it. The SPRT is the generalised SPRT with the normal
approximation of the score (the "logistic" form used by fishtest):
LLR = N (s1 - s0) (2 s - s0 - s1) / (2 var), bounds log(beta / (1 - alpha)) and
log((1 - beta) / alpha); when every game had the same result (var = 0) half a win, half a draw
and half a loss are added as a prior.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Literal

Z95 = 1.959963984540054


def elo_from_score(score: float) -> float:
    """The Elo difference for an expected score in (0, 1); +-inf at the ends."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return float(-400.0 * math.log10(1.0 / score - 1.0))


def score_from_elo(elo: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


@dataclasses.dataclass(frozen=True)
class EloEstimate:
    games: int
    score: float
    elo: float
    low: float
    high: float

    @property
    def margin(self) -> float:
        """Half the width of the interval (inf when it is unbounded)."""
        return (self.high - self.low) / 2.0


def elo_estimate(wins: int, draws: int, losses: int) -> EloEstimate:
    """Elo difference and its 95% interval from a win/draw/loss count."""
    games = wins + draws + losses
    if games == 0:
        return EloEstimate(0, 0.5, 0.0, -math.inf, math.inf)
    score = (wins + draws / 2.0) / games
    variance = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2
                + losses * score**2) / games
    if variance == 0.0:  # all wins, all draws or all losses: no spread to estimate from
        return EloEstimate(games, score, elo_from_score(score), -math.inf, math.inf)
    spread = Z95 * math.sqrt(variance / games)
    return EloEstimate(games, score, elo_from_score(score),
                       elo_from_score(score - spread), elo_from_score(score + spread))


@dataclasses.dataclass(frozen=True)
class Sprt:
    """SPRT of H0: elo = elo0 against H1: elo = elo1."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not (0 < self.alpha < 1 and 0 < self.beta < 1):
            raise ValueError("SPRT: alpha and beta must be between 0 and 1")
        if self.elo1 <= self.elo0:
            raise ValueError("SPRT: elo1 must be greater than elo0")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, wins: int, draws: int, losses: int) -> float:
        games = wins + draws + losses
        if games == 0:
            return 0.0
        score, variance = _moments(wins, draws, losses)
        if variance <= 0.0:  # one kind of result only: half a game of each as a prior
            score, variance = _moments(wins + 0.5, draws + 0.5, losses + 0.5)
        s0, s1 = score_from_elo(self.elo0), score_from_elo(self.elo1)
        return games * (s1 - s0) * (2 * score - s0 - s1) / (2 * variance)

    def decision(self, wins: int, draws: int, losses: int) -> Literal["H0", "H1"] | None:
        """``H1`` (elo1 accepted), ``H0`` (elo0 accepted), or ``None`` (go on)."""
        value = self.llr(wins, draws, losses)
        if value >= self.upper:
            return "H1"
        if value <= self.lower:
            return "H0"
        return None


def _moments(wins: float, draws: float, losses: float) -> tuple[float, float]:
    """Mean and variance of the per-game score."""
    games = wins + draws + losses
    score = (wins + draws / 2.0) / games
    variance = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / games
    return score, variance


def parse_sprt(text: str) -> Sprt:
    """``elo0,elo1[,alpha[,beta]]`` (``0,10`` or ``0,10,0.05,0.05``)."""
    parts = [part.strip() for part in text.split(",")]
    if len(parts) not in (2, 3, 4):
        raise ValueError(f"--sprt: expected elo0,elo1[,alpha[,beta]], got {text!r}")
    try:
        numbers = [float(part) for part in parts]
    except ValueError:
        raise ValueError(f"--sprt: expected numbers, got {text!r}") from None
    return Sprt(*numbers)
