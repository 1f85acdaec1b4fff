"""The first schema: accounts, tokens, games, moves, challenges, ratings."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(20), nullable=False, unique=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("password_hash", sa.String(200), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "tokens",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("digest", sa.String(64), nullable=False, unique=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_tokens_account_id", "tokens", ["account_id"])
    op.create_table(
        "games",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("black_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("white_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("initial", sa.Integer(), nullable=False),
        sa.Column("increment", sa.Integer(), nullable=False),
        sa.Column("clock_b", sa.Integer(), nullable=False),
        sa.Column("clock_w", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("winner", sa.String(1), nullable=True),
        sa.Column("reason", sa.String(12), nullable=True),
        sa.Column("result_text", sa.String(400), nullable=True),
        sa.Column("started", sa.DateTime(), nullable=False),
        sa.Column("ended", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_games_black_id", "games", ["black_id"])
    op.create_index("ix_games_white_id", "games", ["white_id"])
    op.create_index("ix_games_status", "games", ["status"])
    op.create_table(
        "moves",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("move", sa.String(80), nullable=False),
        sa.Column("ms", sa.Integer(), nullable=False),
        sa.UniqueConstraint("game_id", "ply"),
    )
    op.create_index("ix_moves_game_id", "moves", ["game_id"])
    op.create_table(
        "challenges",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("author_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("opponent_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("color", sa.String(8), nullable=False),
        sa.Column("initial", sa.Integer(), nullable=False),
        sa.Column("increment", sa.Integer(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id"), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_challenges_author_id", "challenges", ["author_id"])
    op.create_index("ix_challenges_status", "challenges", ["status"])
    op.create_table(
        "ratings",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("rd", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.UniqueConstraint("account_id", "game"),
    )
    op.create_index("ix_ratings_account_id", "ratings", ["account_id"])


def downgrade() -> None:
    for table in ("ratings", "challenges", "moves", "games", "tokens", "accounts"):
        op.drop_table(table)
