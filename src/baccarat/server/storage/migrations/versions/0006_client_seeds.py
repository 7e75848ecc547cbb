"""Client seeds: shoes the house cannot choose alone (algorithm ``hmac-sha256-fisher-yates/2``).

* ``accounts.client_seed``: the seed a player has set (the browser draws one); taken into a shoe
  when the player bets before the shoe's first deal.
* ``shoe_client_seeds``: the seeds taken into each shoe, one per account, written with the bet that
  took them (so a deal repeated after a crash shuffles with the very same seeds).
* ``shoes.client_seeds``: the shoe's seeds, sorted, fixed at its first deal (JSON; NULL while they
  are still being taken, and for shoes of algorithm 1, which take none).
* ``shoes.ended``: why the shoe ended (last hand, too few cards, table closed), for its record.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("client_seed", sa.String(64), nullable=True))
    with op.batch_alter_table("shoes") as batch:
        batch.add_column(sa.Column("client_seeds", sa.Text(), nullable=True))
        batch.add_column(sa.Column("ended", sa.String(16), nullable=True))
    op.create_table(
        "shoe_client_seeds",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("shoe_id", sa.Integer(), sa.ForeignKey("shoes.id"), nullable=False),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("seed", sa.String(64), nullable=False),
        sa.UniqueConstraint("shoe_id", "account_id", name="one_client_seed_per_shoe_and_account"),
    )
    op.create_index("ix_shoe_client_seeds_shoe_id", "shoe_client_seeds", ["shoe_id"])


def downgrade() -> None:
    op.drop_table("shoe_client_seeds")
    with op.batch_alter_table("shoes") as batch:
        batch.drop_column("ended")
        batch.drop_column("client_seeds")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("client_seed")
