"""Player protection and the operator audit trail.

* ``player_protection``: reality-check interval, time-out and self-exclusion ends, per account.
* ``play_limits``: loss and stake limits per rolling day, week and month, a looser one pending.
* ``audit_log``: operator actions, hash-chained (``previous`` unique, so the chain cannot fork),
  append-only (a trigger refuses UPDATE and DELETE).
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


    _append_only()
    op.create_index("ix_ledger_transactions_created_at", "ledger_transactions", ["created_at"])
    op.create_index("ix_postings_account_transaction", "postings", ["account", "transaction_id"])


#: The audit trail is append-only in the database itself: UPDATE and DELETE are refused by a trigger
#: (someone with the rights to drop the trigger can still edit it; the hash chain shows that).
REFUSAL = "the audit trail is append-only"


def _append_only() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"""CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
                       BEGIN RAISE EXCEPTION '{REFUSAL}'; END $$""")
        op.execute("""CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
                      FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()""")
    else:
        for event in ("UPDATE", "DELETE"):
            op.execute(f"""CREATE TRIGGER audit_log_no_{event.lower()} BEFORE {event} ON audit_log
                           BEGIN SELECT RAISE(ABORT, '{REFUSAL}'); END""")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS audit_log_append_only ON audit_log")
        op.execute("DROP FUNCTION IF EXISTS audit_log_append_only()")
    op.drop_index("ix_postings_account_transaction", table_name="postings")
    op.drop_index("ix_ledger_transactions_created_at", table_name="ledger_transactions")
    op.drop_table("audit_log")
    op.drop_index("ix_play_limits_account_id", table_name="play_limits")
    op.drop_table("play_limits")
    op.drop_table("player_protection")
