"""Audit entries are signed: ``audit_log.signature`` holds each entry's Ed25519 signature (hex) of its id
and digest, made with a key kept outside the database (:mod:`baccarat.server.house.audit_keys`).  The
key never enters the database; entries made before it existed keep no signature (NULL) and are
reported as unsigned.

The column is added with ``ALTER TABLE ... ADD COLUMN`` on both databases (no table copy on SQLite),
so 0008's triggers that keep the trail append-only stay in place.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("audit_log", sa.Column("signature", sa.String(128), nullable=True))


def downgrade() -> None:
    # SQLite drops a column in place (3.35+) only when no trigger names it; 0008's triggers do not
    op.drop_column("audit_log", "signature")
