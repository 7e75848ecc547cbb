"""The squeeze: a table's squeeze time per card (``game_tables.squeeze_seconds``, 0: the dealer turns every
card at the table's pace) and each squeezed round's squeezers and the peel on show (``rounds.squeeze``, JSON).
The moment each card is turned is the ``at`` of the round's stored deal, as at every table.

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("squeeze_seconds", sa.Float(), nullable=False, server_default="0"))
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("squeeze", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("squeeze")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("squeeze_seconds")
