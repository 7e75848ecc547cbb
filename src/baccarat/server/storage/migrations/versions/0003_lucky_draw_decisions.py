"""Lucky Draw at the server: the decision window and the seats' decisions.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("decision_seconds", sa.Float(), nullable=False, server_default="10"))
    with op.batch_alter_table("game_tables") as batch:
        batch.alter_column("decision_seconds", server_default=None)
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("decides_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "decisions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("round_id", sa.Integer(), sa.ForeignKey("rounds.id"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(8), nullable=False),
        sa.UniqueConstraint("round_id", "seat", name="one_decision_per_seat"),
    )
    op.create_index("ix_decisions_round_id", "decisions", ["round_id"])


def downgrade() -> None:
    op.drop_table("decisions")
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("decides_at")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("decision_seconds")
