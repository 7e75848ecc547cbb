"""Rounds found by table and status (the open round, the last settled one) without scanning every
round the table ever played.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_rounds_table_status_number", "rounds", ["table_id", "status", "number"])


def downgrade() -> None:
    op.drop_index("ix_rounds_table_status_number", table_name="rounds")
