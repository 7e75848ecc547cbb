"""Games as data: each rules-file game's definition stored once (``game_definitions``: its canonical digest, its
code, the file's text), and the tables and shoes of that game naming it (``game_tables.definition``,
``shoes.definition``; none for the built-in games).  Every process serves a table from its stored definition,
however it was started; a later start that passes a different file for the same code is refused.

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_definitions",
        sa.Column("digest", sa.String(64), primary_key=True),
        sa.Column("code", sa.String(16), nullable=False, unique=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("stored_at", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("definition", sa.String(64), nullable=True))
        batch.create_foreign_key("fk_game_tables_definition", "game_definitions", ["definition"], ["digest"])
    with op.batch_alter_table("shoes") as batch:
        batch.add_column(sa.Column("definition", sa.String(64), nullable=True))
        batch.create_foreign_key("fk_shoes_definition", "game_definitions", ["definition"], ["digest"])


def downgrade() -> None:
    with op.batch_alter_table("shoes") as batch:
        batch.drop_constraint("fk_shoes_definition", type_="foreignkey")
        batch.drop_column("definition")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_constraint("fk_game_tables_definition", type_="foreignkey")
        batch.drop_column("definition")
    op.drop_table("game_definitions")
