"""The game server's storage (docs/online.md, *Storage*): the migrations build the schema of
the models, the database's address, and ``gtpgames serve add-bot``."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from adapters.online.store import Base, Store, default_url, engine_url, open_engine
from tests.protocol.test_e2e import COMMAND


def test_migrations_build_the_models_schema_on_an_empty_database(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'new.sqlite'}")
    try:
        tables = set(inspect(store.engine).get_table_names())
        assert {"accounts", "tokens", "challenges", "games", "moves", "ratings",
                "alembic_version"} <= tables
        with store.engine.connect() as connection:
            assert compare_metadata(MigrationContext.configure(connection),
                                    Base.metadata) == []
    finally:
        store.close()
    again = Store(f"sqlite:///{tmp_path / 'new.sqlite'}")  # opening again changes nothing
    again.close()


def test_database_addresses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert engine_url("postgresql://u:p@h/db") == "postgresql+psycopg://u:p@h/db"
    assert engine_url("sqlite:////x.sqlite") == "sqlite:////x.sqlite"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_url() == f"sqlite:///{tmp_path / 'data' / 'gtpgames' / 'online.sqlite'}"
    assert (tmp_path / "data" / "gtpgames").is_dir()
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_url() == f"sqlite:///{tmp_path}/.local/share/gtpgames/online.sqlite"
    with pytest.raises(ValueError, match="--db"):
        open_engine("mysql://x")
    assert open_engine("postgresql://u:p@h/db").pool._pre_ping  # type: ignore[attr-defined]


@pytest.mark.slow  # a real `gtpgames serve add-bot` process (7 s)
def test_add_bot_prints_its_token_once(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'online.sqlite'}"
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "unused")}
    done = subprocess.run([*COMMAND, "serve", "add-bot", "mybot", "--db", db],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    token = done.stdout.strip()
    assert len(token) >= 40 and "\n" not in token
    store = Store(db)
    try:
        from adapters.online.accounts import digest

        found = store.token_account(digest(token), ("bot",))
        assert found is not None and found[1].name == "mybot" and found[1].kind == "bot"
        assert token not in (tmp_path / "online.sqlite").read_bytes().decode("latin-1")
    finally:
        store.close()
    again = subprocess.run([*COMMAND, "serve", "add-bot", "MyBot", "--db", db],
                           capture_output=True, text=True, timeout=120, env=env)
    assert again.returncode == 2 and again.stdout == ""
    assert again.stderr == "gtpgames: the name MyBot is taken\n"
    bad = subprocess.run([*COMMAND, "serve", "add-bot", "xy", "--db", "mysql://nope"],
                         capture_output=True, text=True, timeout=120, env=env)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert not (tmp_path / "unused").exists()


def test_a_move_is_stored_once_and_only_in_a_game_in_progress(tmp_path: Path) -> None:
    """The database itself refuses a second move at a ply and a move after the end, should
    the server's memory ever disagree with it."""
    from adapters.online.store import Conflict, Result

    store = Store(f"sqlite:///{tmp_path / 'online.sqlite'}")
    try:
        alpha = store.create_account("alpha", "bot", None)
        beta = store.create_account("beta", "bot", None)
        made = store.create_challenge(alpha.id, None, "brique", {}, "b", 60, 0, False, 5)
        assert made is not None
        game = store.start_game(made.id, alpha.id, beta.id)
        assert game is not None and store.start_game(made.id, alpha.id, beta.id) is None
        store.add_move(game.id, 0, "c3", 100, {"b": 59900, "w": 60000}, None, None)
        with pytest.raises(Conflict, match="ply 0"):
            store.add_move(game.id, 0, "d4", 100, {"b": 1, "w": 1}, None, None)
        stored = store.game(game.id)
        assert stored is not None
        assert stored.moves == (("c3", 100),) and stored.clocks == {"b": 59900, "w": 60000}
        store.add_move(game.id, 1, "d4", 50, {"b": 59900, "w": 59950},
                       Result("w", "rules", "text"), None)
        with pytest.raises(Conflict, match="not in progress"):
            store.add_move(game.id, 2, "e5", 1, {"b": 1, "w": 1}, None, None)
        assert not store.end_game(game.id, {"b": 1, "w": 1}, Result("b", "time", "x"), None)
        stored = store.game(game.id)
        assert stored is not None and stored.plies == 2 and stored.status == "finished"
        assert stored.result == Result("w", "rules", "text")
        assert store.ratings(beta.id)["brique"].wins == 1
    finally:
        store.close()


def test_password_hashes_are_argon2id_with_the_library_defaults(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from argon2 import PasswordHasher

    from adapters.online import accounts

    monkeypatch.undo()  # the server's own hasher, not the quick one of the other tests
    defaults = PasswordHasher()
    hashed = accounts.hash_password("password1")
    assert hashed.startswith("$argon2id$")
    assert f"m={defaults.memory_cost},t={defaults.time_cost},p={defaults.parallelism}" in hashed
    assert accounts.verify_password(hashed, "password1")
    assert not accounts.verify_password(hashed, "password2")
    assert not accounts.verify_password("not a hash", "password1")
    assert not accounts.verify_password(None, "password1")
