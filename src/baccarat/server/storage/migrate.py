"""Bring a database to the newest schema with Alembic (the server does it on start)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str) -> None:
    """Apply every migration not yet applied to the database at ``url``."""
    # "heads": every branch, so that migrations written side by side from one parent (each chained to it
    # until they are put in a line) all apply; on a single line it is the same as "head"
    command.upgrade(alembic_config(url), "heads")
