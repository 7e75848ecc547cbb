"""Player protection and the operator audit trail.

* ``player_protection``: reality-check interval, time-out and self-exclusion ends, per account.
* ``play_limits``: loss and stake limits per rolling day, week and month, a looser one pending.
* ``audit_log``: operator actions, hash-chained (``previous`` unique, so the chain cannot fork).
* indexes for rolling windows: ``ledger_transactions(created_at)`` and ``postings(account,
  transaction_id)``, so a bet counts only the player's movements in the window.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "player_protection",
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("reality_minutes", sa.Integer(), nullable=True),
        sa.Column("timeout_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("excluded_until", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "play_limits",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("period", sa.String(8), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=True),
        sa.Column("pending", sa.BigInteger(), nullable=True),
        sa.Column("pending_from", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("account_id", "kind", "period", name="one_limit_per_kind_and_period"),
    )
    op.create_index("ix_play_limits_account_id", "play_limits", ["account_id"])
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("actor", sa.String(64), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("target", sa.String(64), nullable=False),
        sa.Column("before", sa.Text(), nullable=False),
        sa.Column("after", sa.Text(), nullable=False),
        sa.Column("previous", sa.String(64), nullable=False, unique=True),
        sa.Column("digest", sa.String(64), nullable=False),
    )


    op.create_index("ix_ledger_transactions_created_at", "ledger_transactions", ["created_at"])
    op.create_index("ix_postings_account_transaction", "postings", ["account", "transaction_id"])


def downgrade() -> None:
    op.drop_index("ix_postings_account_transaction", table_name="postings")
    op.drop_index("ix_ledger_transactions_created_at", table_name="ledger_transactions")
    op.drop_table("audit_log")
    op.drop_index("ix_play_limits_account_id", table_name="play_limits")
    op.drop_table("play_limits")
    op.drop_table("player_protection")
