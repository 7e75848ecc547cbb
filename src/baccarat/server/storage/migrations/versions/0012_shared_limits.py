"""Limits counted where every server process sees them: sign-in and sign-up attempts (``attempts``,
kept for the limits' window) and open table sockets (``socket_leases``, renewed by the process that
serves them), so that two ``baccarat serve`` processes on one PostgreSQL database keep the limits of one.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")  # SQLite numbers only an INTEGER primary key


def upgrade() -> None:
    op.create_table(
        "attempts",
        sa.Column("id", _ID, primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("name", sa.Text(), nullable=True),
        sa.Column("address", sa.Text(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
    )
    op.create_index("ix_attempts_kind_address_at", "attempts", ["kind", "address", "at"])
    op.create_index("ix_attempts_kind_name_at", "attempts", ["kind", "name", "at"])
    op.create_index("ix_attempts_at", "attempts", ["at"])
    op.create_table(
        "socket_leases",
        sa.Column("id", _ID, primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("process", sa.String(32), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("opened", sa.Float(), nullable=False),
        sa.Column("heartbeat", sa.Float(), nullable=False),
    )
    op.create_index("ix_socket_leases_account_heartbeat", "socket_leases", ["account_id", "heartbeat"])


def downgrade() -> None:
    op.drop_table("socket_leases")
    op.drop_table("attempts")
