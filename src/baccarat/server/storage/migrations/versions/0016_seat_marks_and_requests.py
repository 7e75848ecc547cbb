"""Seats that cannot be squatted: a table counts its betting windows (``game_tables.windows``); a player who gives
a seat up leaves a mark of the windows they had sat out (``seat_marks``), taken back when they sit at that table
again within the sit-out period; a player refused a seat at a full table is in line for one (``seat_requests``),
and a freed seat goes to the first in line.

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("windows", sa.Integer(), nullable=False, server_default="0"))
    op.create_table(
        "seat_marks",
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("idle_rounds", sa.Integer(), nullable=False),
        sa.Column("window", sa.Integer(), nullable=False),
    )
    op.create_table(
        "seat_requests",
        sa.Column("id", sa.Integer(), primary_key=True),  # the order the requests came in
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("table_id", "account_id", name="one_request_per_player"),
    )


def downgrade() -> None:
    op.drop_table("seat_requests")
    op.drop_table("seat_marks")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("windows")
