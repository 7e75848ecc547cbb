"""The audit trail refuses TRUNCATE too (PostgreSQL).

0008's row trigger refuses UPDATE and DELETE, but ``TRUNCATE audit_log`` fires no row trigger: it
emptied the trail, and an empty chain checks.  A statement trigger refuses it.  (SQLite has no
TRUNCATE: its ``DELETE FROM audit_log`` fires 0008's delete trigger.)

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        # 0008's function raises "the audit trail is append-only"; a statement trigger may call it too
        op.execute("""CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
                      FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()""")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS audit_log_no_truncate ON audit_log")
