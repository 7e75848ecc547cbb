"""The round timeline players see, bets that add up, seats that are given back, announcements.

* ``game_tables``: the pace (``no_more_bets_seconds``, ``card_seconds``, ``results_seconds``).
* ``rounds``: ``opens_at`` (no bet before it), ``dealt_at`` and ``result_at`` (nothing of the
  result is shown before it).
* ``settlements.shown_at``: the balance shown leaves out payouts whose result is not shown yet.
* ``seats``: ``away_since`` (every socket closed: the grace period runs) and ``idle_rounds``.
* ``announcements``: seats freed, players stood up.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("no_more_bets_seconds", sa.Float(), nullable=False, server_default="1.0"))
        batch.add_column(sa.Column("card_seconds", sa.Float(), nullable=False, server_default="0.6"))
        batch.add_column(sa.Column("results_seconds", sa.Float(), nullable=False, server_default="4.0"))
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("opens_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("dealt_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("result_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("settlements") as batch:
        batch.add_column(sa.Column("shown_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_settlements_shown_at", "settlements", ["shown_at"])
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("away_since", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("idle_rounds", sa.Integer(), nullable=False, server_default="0"))
    op.create_table(
        "announcements",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(32), nullable=True),
        sa.Column("text", sa.String(255), nullable=False),
    )
    op.create_index("ix_announcements_table_at", "announcements", ["table_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_announcements_table_at", table_name="announcements")
    op.drop_table("announcements")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("idle_rounds")
        batch.drop_column("away_since")
    op.drop_index("ix_settlements_shown_at", table_name="settlements")
    with op.batch_alter_table("settlements") as batch:
        batch.drop_column("shown_at")
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("result_at")
        batch.drop_column("dealt_at")
        batch.drop_column("opens_at")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("results_seconds")
        batch.drop_column("card_seconds")
        batch.drop_column("no_more_bets_seconds")
