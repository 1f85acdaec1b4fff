"""Alembic's environment for the game server's schema: run programmatically by
:func:`adapters.online.store.migrate` on the connection it passes in."""

from __future__ import annotations

from alembic import context

from adapters.online.store import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata,
                  render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()
