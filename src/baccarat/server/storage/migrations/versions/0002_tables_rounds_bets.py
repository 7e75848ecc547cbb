"""Tables, seats, provably fair shoes, rounds, bets and settlements.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_tables",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(32), nullable=False, unique=True),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("paytable", sa.Integer(), nullable=True),
        sa.Column("decks", sa.Integer(), nullable=False),
        sa.Column("cut_card", sa.Integer(), nullable=False),
        sa.Column("betting_seconds", sa.Float(), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("limits", sa.Text(), nullable=True),
        sa.Column("pending_limits", sa.Text(), nullable=True),
    )
    op.create_table(
        "seats",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.UniqueConstraint("table_id", "number", name="one_player_per_seat"),
        sa.UniqueConstraint("table_id", "account_id", name="one_seat_per_player"),
    )
    op.create_index("ix_seats_table_id", "seats", ["table_id"])
    op.create_table(
        "shoes",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("server_seed", sa.String(64), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("algorithm", sa.String(64), nullable=False),
        sa.Column("decks", sa.Integer(), nullable=False),
        sa.Column("cut_card", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("last_coup", sa.Boolean(), nullable=False),
        sa.Column("finished", sa.Boolean(), nullable=False),
        sa.Column("revealed_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("table_id", "number", name="one_shoe_number_per_table"),
    )
    op.create_index("ix_shoes_table_id", "shoes", ["table_id"])
    op.create_table(
        "rounds",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("shoe_id", sa.Integer(), sa.ForeignKey("shoes.id"), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("closes_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("first_card", sa.Integer(), nullable=True),
        sa.Column("result", sa.Text(), nullable=True),
        sa.UniqueConstraint("table_id", "number", name="one_round_number_per_table"),
    )
    op.create_index("ix_rounds_table_id", "rounds", ["table_id"])
    op.create_index("ix_rounds_status", "rounds", ["status"])
    op.create_table(
        "bets",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("round_id", sa.Integer(), sa.ForeignKey("rounds.id"), nullable=False),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("wager", sa.String(32), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("balance_before", sa.BigInteger(), nullable=False),
        sa.UniqueConstraint("round_id", "account_id", "wager", name="one_bet_per_wager"),
    )
    op.create_index("ix_bets_round_id", "bets", ["round_id"])
    op.create_index("ix_bets_account_id", "bets", ["account_id"])
    op.create_table(
        "settlements",
        sa.Column("bet_id", sa.Integer(), sa.ForeignKey("bets.id"), primary_key=True),
        sa.Column("event", sa.String(64), nullable=False),
        sa.Column("net", sa.BigInteger(), nullable=False),
        sa.Column("transaction_id", sa.Integer(), sa.ForeignKey("ledger_transactions.id"), nullable=False),
    )


def downgrade() -> None:
    for table in ("settlements", "bets", "rounds", "shoes", "seats", "game_tables"):
        op.drop_table(table)
