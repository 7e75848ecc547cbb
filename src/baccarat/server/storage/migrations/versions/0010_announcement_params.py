"""Table news keeps its params: each announcement is the code ``news.<kind>`` with params (JSON), so
that every client words it in its own language; ``text`` keeps the English.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("announcements") as batch:
        batch.add_column(sa.Column("params", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("announcements") as batch:
        batch.drop_column("params")
