"""Decisions belong to accounts (not seat numbers), and usernames are unique whatever their case.

* ``decisions.account_id``: a Lucky Draw decision is the account's, one per account and round
  (it was one per seat number, which two accounts could share after a seat race).
* ``accounts.login``: the username's canonical form (NFKC, case-folded), unique, so ``Alice`` and
  ``alice`` are one name.  Existing names are ASCII (the old rule), so ``lower()`` is that form.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("decisions") as batch:
        batch.add_column(sa.Column("account_id", sa.Integer(), nullable=True))
    op.execute("UPDATE decisions SET account_id = (SELECT bets.account_id FROM bets WHERE bets.round_id = "
               "decisions.round_id AND bets.seat = decisions.seat AND bets.wager = 'enter' "
               "ORDER BY bets.id LIMIT 1)")
    op.execute("DELETE FROM decisions WHERE account_id IS NULL")
    with op.batch_alter_table("decisions") as batch:
        batch.alter_column("account_id", existing_type=sa.Integer(), nullable=False)
        batch.create_foreign_key("fk_decisions_account_id_accounts", "accounts", ["account_id"], ["id"])
        batch.drop_constraint("one_decision_per_seat", type_="unique")
        batch.create_unique_constraint("one_decision_per_account", ["round_id", "account_id"])
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("login", sa.String(32), nullable=True))
    op.execute("UPDATE accounts SET login = lower(username)")
    with op.batch_alter_table("accounts") as batch:
        batch.alter_column("login", existing_type=sa.String(32), nullable=False)
        batch.create_unique_constraint("one_account_per_login", ["login"])


def downgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.drop_constraint("one_account_per_login", type_="unique")
        batch.drop_column("login")
    with op.batch_alter_table("decisions") as batch:
        batch.drop_constraint("one_decision_per_account", type_="unique")
        batch.drop_constraint("fk_decisions_account_id_accounts", type_="foreignkey")
        batch.drop_column("account_id")
        batch.create_unique_constraint("one_decision_per_seat", ["round_id", "seat"])
