"""Storage of the game server (docs/online.md, *Storage*): the SQLAlchemy models, the
database's address, the Alembic migrations run when the server opens the database, and
:class:`Store`, whose blocking methods the server runs off its event loop: the writes on one
worker thread (:meth:`Store.run`), the queries on two others (:meth:`Store.read`).

Every method opens its own session and commits before it returns; what it returns are plain
frozen values, never ORM objects.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import datetime as dt
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ParamSpec, TypeVar, cast

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
    create_engine,
    event,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.engine import CursorResult, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

MIGRATIONS = Path(__file__).parent / "migrations"

P = ParamSpec("P")
T = TypeVar("T")


class Base(DeclarativeBase):
    pass


class AccountRow(Base):
    __tablename__ = "accounts"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(20), unique=True)
    kind: Mapped[str] = mapped_column(String(8))  # person | bot
    password_hash: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created: Mapped[dt.datetime] = mapped_column(DateTime)


class TokenRow(Base):
    __tablename__ = "tokens"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)  # sha256 hex of the token
    kind: Mapped[str] = mapped_column(String(8))  # bot | api | session
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    created: Mapped[dt.datetime] = mapped_column(DateTime)


class ChallengeRow(Base):
    __tablename__ = "challenges"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    author_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    opponent_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), nullable=True)
    game: Mapped[str] = mapped_column(String(16))
    options: Mapped[dict[str, str]] = mapped_column(JSON)
    color: Mapped[str] = mapped_column(String(8))  # b | w | random
    initial: Mapped[int] = mapped_column(Integer)  # seconds
    increment: Mapped[int] = mapped_column(Integer)  # seconds
    rated: Mapped[bool] = mapped_column(Boolean)
    status: Mapped[str] = mapped_column(String(12), index=True)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"), nullable=True)
    created: Mapped[dt.datetime] = mapped_column(DateTime)


class GameRow(Base):
    __tablename__ = "games"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(16))
    options: Mapped[dict[str, str]] = mapped_column(JSON)
    rated: Mapped[bool] = mapped_column(Boolean)
    black_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    white_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    initial: Mapped[int] = mapped_column(Integer)  # seconds
    increment: Mapped[int] = mapped_column(Integer)  # seconds
    #: the clocks in milliseconds as they stood after the last move (or at the start)
    clock_b: Mapped[int] = mapped_column(Integer)
    clock_w: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(12), index=True)  # playing | finished
    winner: Mapped[str | None] = mapped_column(String(1), nullable=True)
    reason: Mapped[str | None] = mapped_column(String(12), nullable=True)
    result_text: Mapped[str | None] = mapped_column(String(400), nullable=True)
    started: Mapped[dt.datetime] = mapped_column(DateTime)
    ended: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class MoveRow(Base):
    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("game_id", "ply"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    ply: Mapped[int] = mapped_column(Integer)
    move: Mapped[str] = mapped_column(String(80))
    ms: Mapped[int] = mapped_column(Integer)


class RatingRow(Base):
    __tablename__ = "ratings"
    __table_args__ = (UniqueConstraint("account_id", "game"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    game: Mapped[str] = mapped_column(String(16))
    rating: Mapped[float] = mapped_column(Float)
    rd: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    wins: Mapped[int] = mapped_column(Integer)
    losses: Mapped[int] = mapped_column(Integer)
    draws: Mapped[int] = mapped_column(Integer)


# ------------------------------------------------------------------------------ values


@dataclasses.dataclass(frozen=True)
class Account:
    id: int
    name: str
    kind: str
    password_hash: str | None = None


@dataclasses.dataclass(frozen=True)
class Challenge:
    id: int
    author: str
    author_id: int
    opponent: str | None
    opponent_id: int | None
    game: str
    options: dict[str, str]
    color: str
    initial: int
    increment: int
    rated: bool
    status: str
    game_id: int | None

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "from": self.author, "game": self.game,
                "options": dict(self.options), "color": self.color,
                "time": {"initial": self.initial, "increment": self.increment},
                "opponent": self.opponent, "rated": self.rated, "status": self.status,
                "game_id": self.game_id}


@dataclasses.dataclass(frozen=True)
class Result:
    winner: str | None  # b | w | None (a draw)
    reason: str  # rules | time | resign | forfeit
    text: str


@dataclasses.dataclass(frozen=True)
class StoredGame:
    """A game as stored: enough to answer its record or to resume it."""

    id: int
    game: str
    options: dict[str, str]
    rated: bool
    black: Account
    white: Account
    initial: int
    increment: int
    clocks: dict[str, int]
    status: str
    result: Result | None
    started: dt.datetime
    ended: dt.datetime | None
    #: (move, milliseconds) in order; empty in the lists of games, which give ``plies``
    moves: tuple[tuple[str, int], ...]
    plies: int


@dataclasses.dataclass(frozen=True)
class Rating:
    game: str
    rating: float
    rd: float
    volatility: float
    wins: int
    losses: int
    draws: int

    def as_json(self) -> dict[str, Any]:
        return {"rating": round(self.rating, 1), "rd": round(self.rd, 1),
                "volatility": round(self.volatility, 6), "wins": self.wins,
                "losses": self.losses, "draws": self.draws}


#: How long a sign-in lasts (the cookie's age).
SESSION_DAYS = 30

#: A new account's rating (docs/online.md): Glicko-2 1500, deviation 350.
START_RATING = (1500.0, 350.0, 0.06)

RatingUpdate = Callable[[tuple[float, float, float], tuple[float, float, float], float],
                        tuple[float, float, float]]


_CLOCKS = text("UPDATE games SET clock_b = :b, clock_w = :w "
               "WHERE id = :id AND status = 'playing'")
_MOVE = text("INSERT INTO moves (game_id, ply, move, ms) VALUES (:id, :ply, :move, :ms)")


class Taken(Exception):
    """The name is taken."""


class Conflict(Exception):
    """The row changed under the caller (a move at a ply already stored)."""


def now_utc() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0)


# ------------------------------------------------------------------------------ the database


def default_url() -> str:
    """``sqlite:///`` the file ``online.sqlite`` in ``$XDG_DATA_HOME/gtpgames`` (else
    ``~/.local/share/gtpgames``), made if missing."""
    xdg = os.environ.get("XDG_DATA_HOME")
    folder = (Path(xdg) if xdg else Path.home() / ".local" / "share") / "gtpgames"
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'online.sqlite'}"


def engine_url(url: str) -> str:
    """``url`` with PostgreSQL mapped to the psycopg (v3) driver."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def open_engine(url: str) -> Engine:
    """An engine for ``url`` (``sqlite:///PATH`` or ``postgresql://...``); ValueError when
    the address is not one of those."""
    full = engine_url(url)
    if full.startswith("sqlite:///"):
        engine = create_engine(full, connect_args={"check_same_thread": False},
                               pool_pre_ping=True)
        event.listen(engine, "connect", _sqlite_settings)
        return engine
    if full.startswith("postgresql+psycopg://"):
        return create_engine(full, pool_pre_ping=True)
    raise ValueError(f"--db: expected sqlite:///PATH or postgresql://..., got {url!r}")


def _sqlite_settings(connection: Any, record: Any) -> None:
    """SQLite in write-ahead-log mode, synced at checkpoints: a commit survives the server's
    crash (not a power cut of the machine) and costs no disk flush; foreign keys enforced."""
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def migrate(engine: Engine) -> None:
    """Create or upgrade the schema to the newest migration (Alembic, programmatically)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


class Store:
    """The database, opened and migrated; blocking methods (run them with :meth:`run`)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = open_engine(url)
        migrate(self.engine)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="db")
        self._readers = concurrent.futures.ThreadPoolExecutor(2, thread_name_prefix="db-read")

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(*args)`` on the database thread that writes (one at a time), awaited."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._worker, lambda: fn(*args, **kwargs))

    async def read(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(*args)``, a query, on a thread of the readers, awaited: the lobby's lists and
        the tokens of the requests do not wait behind the moves, nor the moves behind
        them."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._readers, lambda: fn(*args, **kwargs))

    def close(self) -> None:
        self._worker.shutdown(wait=True)
        self._readers.shutdown(wait=True)
        self.engine.dispose()

    # -------------------------------------------------------------------------- accounts

    def create_account(self, name: str, kind: str, password_hash: str | None) -> Account:
        with self.sessions() as session:
            if self._account_row(session, name) is not None:
                raise Taken(name)
            row = AccountRow(name=name, kind=kind, password_hash=password_hash,
                             created=now_utc())
            session.add(row)
            try:
                session.commit()
            except IntegrityError:
                raise Taken(name) from None
            return Account(row.id, row.name, row.kind, row.password_hash)

    @staticmethod
    def _account_row(session: Session, name: str) -> AccountRow | None:
        # names are unique without regard to case
        return session.scalars(
            select(AccountRow).where(func.lower(AccountRow.name) == name.lower())).first()

    def account(self, name: str) -> Account | None:
        with self.sessions() as session:
            row = self._account_row(session, name)
            return None if row is None else Account(row.id, row.name, row.kind,
                                                    row.password_hash)

    def add_token(self, account_id: int, kind: str, digest: str, replace: bool) -> None:
        """Store a token's digest; ``replace`` drops the account's tokens of that kind."""
        with self.sessions() as session:
            if replace:
                for old in session.scalars(select(TokenRow).where(
                        TokenRow.account_id == account_id, TokenRow.kind == kind)):
                    session.delete(old)
                session.flush()
            session.add(TokenRow(digest=digest, kind=kind, account_id=account_id,
                                 created=now_utc()))
            session.commit()

    def token_account(self, digest: str, kinds: Sequence[str],
                      session_days: int = SESSION_DAYS) -> tuple[str, Account] | None:
        """The stored digest equal to ``digest`` and its account, for tokens of ``kinds``
        (a sign-in session lasts ``session_days``)."""
        with self.sessions() as session:
            row = session.execute(
                select(TokenRow, AccountRow).join(AccountRow,
                                                  AccountRow.id == TokenRow.account_id)
                .where(TokenRow.digest == digest, TokenRow.kind.in_(kinds))).first()
            if row is None:
                return None
            token, account = row
            if token.kind == "session" and \
                    token.created < now_utc() - dt.timedelta(days=session_days):
                session.delete(token)
                session.commit()
                return None
            return token.digest, Account(account.id, account.name, account.kind)

    def drop_token(self, digest: str) -> None:
        with self.sessions() as session:
            for row in session.scalars(select(TokenRow).where(TokenRow.digest == digest)):
                session.delete(row)
            session.commit()

    def ratings(self, account_id: int) -> dict[str, Rating]:
        with self.sessions() as session:
            rows = session.scalars(select(RatingRow).where(RatingRow.account_id == account_id))
            return {r.game: Rating(r.game, r.rating, r.rd, r.volatility, r.wins, r.losses,
                                   r.draws) for r in rows}

    def bots(self) -> list[tuple[Account, dict[str, Rating]]]:
        """Every bot, by name, with its ratings."""
        with self.sessions() as session:
            rows = list(session.scalars(select(AccountRow).where(AccountRow.kind == "bot")
                                        .order_by(AccountRow.name)))
            ratings: dict[int, dict[str, Rating]] = {r.id: {} for r in rows}
            for r in session.scalars(select(RatingRow).where(
                    RatingRow.account_id.in_(list(ratings)))):
                ratings[r.account_id][r.game] = Rating(r.game, r.rating, r.rd, r.volatility,
                                                       r.wins, r.losses, r.draws)
            return [(Account(r.id, r.name, r.kind), ratings[r.id]) for r in rows]

    # -------------------------------------------------------------------------- challenges

    def _challenge(self, session: Session, row: ChallengeRow,
                   names: dict[int, str] | None = None) -> Challenge:
        if names is None:
            names = self._names(session, [row.author_id] + (
                [] if row.opponent_id is None else [row.opponent_id]))
        return Challenge(row.id, names[row.author_id], row.author_id,
                         None if row.opponent_id is None else names[row.opponent_id],
                         row.opponent_id, row.game, dict(row.options), row.color, row.initial,
                         row.increment, row.rated, row.status, row.game_id)

    @staticmethod
    def _names(session: Session, ids: Sequence[int]) -> dict[int, str]:
        rows = session.execute(select(AccountRow.id, AccountRow.name)
                               .where(AccountRow.id.in_(ids)))
        return {i: n for i, n in rows}

    def create_challenge(self, author_id: int, opponent_id: int | None, game: str,
                         options: dict[str, str], color: str, initial: int, increment: int,
                         rated: bool, limit: int) -> Challenge | None:
        """A new open challenge, or None when the author has ``limit`` open already."""
        with self.sessions() as session:
            count = session.scalar(select(func.count()).select_from(ChallengeRow).where(
                ChallengeRow.author_id == author_id, ChallengeRow.status == "open")) or 0
            if count >= limit:
                return None
            row = ChallengeRow(author_id=author_id, opponent_id=opponent_id, game=game,
                               options=options, color=color, initial=initial,
                               increment=increment, rated=rated, status="open",
                               created=now_utc())
            session.add(row)
            session.commit()
            return self._challenge(session, row)

    def challenge(self, challenge_id: int) -> Challenge | None:
        with self.sessions() as session:
            row = session.get(ChallengeRow, challenge_id)
            return None if row is None else self._challenge(session, row)

    def open_challenges(self, for_id: int | None = None) -> list[Challenge]:
        """The open challenges (those open to anyone or, with ``for_id``, for that account
        only and open to anyone)."""
        with self.sessions() as session:
            query = select(ChallengeRow).where(ChallengeRow.status == "open")
            if for_id is not None:
                query = query.where(or_(ChallengeRow.opponent_id.is_(None),
                                        ChallengeRow.opponent_id == for_id),
                                    ChallengeRow.author_id != for_id)
            rows = list(session.scalars(query.order_by(ChallengeRow.id)))
            names = self._names(session, [i for r in rows for i in (r.author_id, r.opponent_id)
                                          if i is not None])
            return [self._challenge(session, row, names) for row in rows]

    def set_challenge_status(self, challenge_id: int, status: str) -> bool:
        """Close an open challenge; False when it was not open any more."""
        with self.sessions() as session:
            row = session.get(ChallengeRow, challenge_id, with_for_update=True)
            if row is None or row.status != "open":
                return False
            row.status = status
            session.commit()
            return True

    def start_game(self, challenge_id: int, black_id: int, white_id: int) -> StoredGame | None:
        """Accept the challenge and store its game; None when it was not open any more."""
        with self.sessions() as session:
            ch = session.get(ChallengeRow, challenge_id, with_for_update=True)
            if ch is None or ch.status != "open":
                return None
            row = GameRow(game=ch.game, options=dict(ch.options), rated=ch.rated,
                          black_id=black_id, white_id=white_id, initial=ch.initial,
                          increment=ch.increment, clock_b=ch.initial * 1000,
                          clock_w=ch.initial * 1000, status="playing", started=now_utc())
            session.add(row)
            session.flush()
            ch.status = "accepted"
            ch.game_id = row.id
            session.commit()
            return self._stored(session, row)

    # -------------------------------------------------------------------------- games

    def _stored(self, session: Session, row: GameRow) -> StoredGame:
        """``row`` with its players and its moves."""
        accounts = self._accounts(session, [row.black_id, row.white_id])
        moves = tuple((m.move, m.ms) for m in session.scalars(
            select(MoveRow).where(MoveRow.game_id == row.id).order_by(MoveRow.ply)))
        return self._value(row, accounts, moves, len(moves))

    @staticmethod
    def _accounts(session: Session, ids: Sequence[int]) -> dict[int, Account]:
        return {a.id: Account(a.id, a.name, a.kind) for a in session.scalars(
            select(AccountRow).where(AccountRow.id.in_(set(ids))))}

    @staticmethod
    def _value(row: GameRow, accounts: dict[int, Account], moves: tuple[tuple[str, int], ...],
               plies: int) -> StoredGame:
        result = None if row.reason is None else Result(row.winner, row.reason,
                                                        row.result_text or "")
        return StoredGame(row.id, row.game, dict(row.options), row.rated,
                          accounts[row.black_id], accounts[row.white_id], row.initial,
                          row.increment, {"b": row.clock_b, "w": row.clock_w}, row.status,
                          result, row.started, row.ended, moves, plies)

    def game(self, game_id: int) -> StoredGame | None:
        with self.sessions() as session:
            row = session.get(GameRow, game_id)
            return None if row is None else self._stored(session, row)

    def games_in_progress(self) -> list[StoredGame]:
        with self.sessions() as session:
            rows = session.scalars(select(GameRow).where(GameRow.status == "playing")
                                   .order_by(GameRow.id))
            return [self._stored(session, row) for row in rows]

    def games(self, status: str, account_id: int | None = None,
              limit: int = 50) -> list[StoredGame]:
        """The newest games of ``status`` (of one account's, with ``account_id``), without
        their moves."""
        with self.sessions() as session:
            query = select(GameRow)
            if status:
                query = query.where(GameRow.status == status)
            if account_id is not None:
                query = query.where(or_(GameRow.black_id == account_id,
                                        GameRow.white_id == account_id))
            rows = list(session.scalars(query.order_by(GameRow.id.desc()).limit(limit)))
            accounts = self._accounts(session, [i for r in rows for i in (r.black_id,
                                                                          r.white_id)])
            plies: dict[int, int] = {game_id: count for game_id, count in session.execute(
                select(MoveRow.game_id, func.count()).where(
                    MoveRow.game_id.in_([r.id for r in rows])).group_by(MoveRow.game_id))}
            return [self._value(row, accounts, (), plies.get(row.id, 0)) for row in rows]

    def add_move(self, game_id: int, ply: int, move: str, ms: int, clocks: dict[str, int],
                 result: Result | None, rate: RatingUpdate | None) -> None:
        """Store a move and the clocks after it (and the game's end, when it ends it) in
        one transaction; :class:`Conflict` when the game is over or that ply is stored
        already. (Plain statements, no reads: this is the server's busiest write; a move that
        does not end the game is written without the ORM, in a seventh of its time.)"""
        if result is None:
            with self.engine.begin() as connection:
                clocked = connection.execute(_CLOCKS, {"b": clocks["b"], "w": clocks["w"],
                                                       "id": game_id})
                if clocked.rowcount != 1:
                    raise Conflict(f"game {game_id} is not in progress")
                try:
                    connection.execute(_MOVE, {"id": game_id, "ply": ply, "move": move,
                                               "ms": ms})
                except IntegrityError:
                    raise Conflict(f"game {game_id} has a move at ply {ply} already") from None
            return
        with self.sessions() as session:
            changed = session.execute(
                update(GameRow).where(GameRow.id == game_id, GameRow.status == "playing")
                .values(clock_b=clocks["b"], clock_w=clocks["w"]))
            if cast(CursorResult[Any], changed).rowcount != 1:
                raise Conflict(f"game {game_id} is not in progress")
            try:
                session.execute(insert(MoveRow).values(game_id=game_id, ply=ply, move=move,
                                                       ms=ms))
            except IntegrityError:
                raise Conflict(f"game {game_id} has a move at ply {ply} already") from None
            if result is not None:
                row = session.get(GameRow, game_id)
                assert row is not None
                self._finish(session, row, result, rate)
            session.commit()

    def end_game(self, game_id: int, clocks: dict[str, int], result: Result,
                 rate: RatingUpdate | None) -> bool:
        """Store the end of a game without a move (time, resignation); False when it was
        over already."""
        with self.sessions() as session:
            row = session.get(GameRow, game_id, with_for_update=True)
            if row is None or row.status != "playing":
                return False
            row.clock_b, row.clock_w = clocks["b"], clocks["w"]
            self._finish(session, row, result, rate)
            session.commit()
            return True

    def _finish(self, session: Session, row: GameRow, result: Result,
                rate: RatingUpdate | None) -> None:
        row.status = "finished"
        row.winner, row.reason, row.result_text = result.winner, result.reason, result.text
        row.ended = now_utc()
        black = self._rating_row(session, row.black_id, row.game)
        white = self._rating_row(session, row.white_id, row.game)
        score = 0.5 if result.winner is None else (1.0 if result.winner == "b" else 0.0)
        for mine, score_of in ((black, score), (white, 1.0 - score)):
            if score_of == 1.0:
                mine.wins += 1
            elif score_of == 0.0:
                mine.losses += 1
            else:
                mine.draws += 1
        if row.rated and rate is not None:
            b = (black.rating, black.rd, black.volatility)
            w = (white.rating, white.rd, white.volatility)
            black.rating, black.rd, black.volatility = rate(b, w, score)
            white.rating, white.rd, white.volatility = rate(w, b, 1.0 - score)

    @staticmethod
    def _rating_row(session: Session, account_id: int, game: str) -> RatingRow:
        row = session.scalars(select(RatingRow).where(RatingRow.account_id == account_id,
                                                      RatingRow.game == game)).first()
        if row is None:
            rating, rd, vol = START_RATING
            row = RatingRow(account_id=account_id, game=game, rating=rating, rd=rd,
                            volatility=vol, wins=0, losses=0, draws=0)
            session.add(row)
        return row
