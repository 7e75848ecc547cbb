"""Server seeds sealed: ``shoes.server_seed`` holds a shoe's seed encrypted while the shoe is in play
(``sealed1:KEY:DATA``, about 100 characters; :mod:`baccarat.server.house.seed_keys`), in clear (64 hex digits) once
revealed.  The server seals the seeds of shoes in play stored in clear at its next start.

Revision ID: 0018
Revises: 0017
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("shoes") as batch:
        batch.alter_column("server_seed", type_=sa.String(160), existing_type=sa.String(64), existing_nullable=False)


def downgrade() -> None:
    # a sealed seed does not fit 64 characters: the downgrade is refused while one is stored
    connection = op.get_bind()
    if connection.execute(sa.text("SELECT count(*) FROM shoes WHERE server_seed LIKE 'sealed1:%'")).scalar():
        raise RuntimeError("shoes in play hold sealed seeds: end those shoes (or upgrade again) before going back")
    with op.batch_alter_table("shoes") as batch:
        batch.alter_column("server_seed", type_=sa.String(64), existing_type=sa.String(160), existing_nullable=False)
