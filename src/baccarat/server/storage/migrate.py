"""Bring a database to the newest schema with Alembic (the server does it on start), and tell whether a
database is at this code's newest schema (``/ready`` asks)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str, revision: str = "head") -> None:
    """Apply every migration not yet applied to the database at ``url`` (up to ``revision``; all by default)."""
    command.upgrade(alembic_config(url), revision)


@lru_cache(maxsize=1)
def code_heads() -> frozenset[str]:
    """The revisions this code's migrations end at (read from the migration scripts once per process)."""
    from alembic.script import ScriptDirectory

    return frozenset(ScriptDirectory.from_config(alembic_config("sqlite://")).get_heads())


def database_heads(connection: Connection) -> frozenset[str]:
    """The revisions the database at the other end of ``connection`` is at (none before its first migration)."""
    from alembic.runtime.migration import MigrationContext

    return frozenset(MigrationContext.configure(connection).get_current_heads())
