"""Staff movements linked to their audit entries: ``ledger_transactions.audit_id`` names the audit entry of a credit,
a debit or a void's refund (made in the same transaction), and the entry names the movement in its signed record,
so ``baccarat audit verify`` finds a movement whose entry was removed.

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("ledger_transactions") as batch:
        batch.add_column(sa.Column("audit_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_ledger_transactions_audit", "audit_log", ["audit_id"], ["id"])


def downgrade() -> None:
    with op.batch_alter_table("ledger_transactions") as batch:
        batch.drop_constraint("fk_ledger_transactions_audit", type_="foreignkey")
        batch.drop_column("audit_id")
