"""Staff roles with separated duties (:mod:`baccarat.server.house.roles`): the one ``operator`` role becomes the
administrator's (who gives the other roles: cashier, pit boss, surveillance), and a cashier's credit above the
house's threshold waits in ``credit_requests`` for a second member of staff.

Revision ID: 0019
Revises: 0018
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # an operator had every power; as administrator it keeps the power to give them (to itself too, by a second
    # account: the audit trail records who gave which role), and loses none it needs to hand the house over
    op.execute("UPDATE accounts SET role = 'admin' WHERE role = 'operator'")
    op.create_table(
        "credit_requests",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("memo", sa.String(255), nullable=False),
        sa.Column("requested_by", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("decided_by", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("transaction_id", sa.Integer(), sa.ForeignKey("ledger_transactions.id"), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("credit_requests")
    op.execute("UPDATE accounts SET role = 'operator' WHERE role <> 'player'")
