"""``baccarat migrate status|up|down`` on both databases: the schema's revision said with its exit code (0 at this
version's, 3 behind or ahead), down to an older version's schema and up again, and refusals in words that change
nothing (an unknown revision, a database no server set up, a schema a newer version made)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from baccarat.cli.app import main
from baccarat.server.storage.migrate import code_heads

from ..conftest import ON_BOTH

NEWEST = max(code_heads())


def _migrate(capsys: pytest.CaptureFixture[str], database_url: str, *arguments: str) -> tuple[int, str]:
    code = main(["migrate", *arguments, "--database", database_url])
    said = capsys.readouterr()
    return code, said.out + said.err


def _tables(database_url: str) -> set[str]:
    engine = create_engine(database_url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


@ON_BOTH
def test_down_to_an_older_schema_and_up_again_said_by_status(database_url: str, capsys: pytest.CaptureFixture[str]):
    assert _migrate(capsys, database_url, "status") == (
        0, f"database: {NEWEST}\nthis version: {NEWEST}\nup to date: a server of this version takes bets on it\n")
    assert "credit_requests" in _tables(database_url)  # made by 0019
    assert _migrate(capsys, database_url, "down", "--to", "0018", "--yes") == (
        0, f"migrated down from {NEWEST} to 0018\n")
    assert not {"credit_requests", "ledger_checks"} & _tables(database_url)  # made by 0019 and 0020
    code, said = _migrate(capsys, database_url, "status")
    assert code == 3 and f"behind: `baccarat migrate up` applies 2 migration(s): 0019, {NEWEST}" in said, said
    assert _migrate(capsys, database_url, "up") == (0, f"migrated from 0018 to {NEWEST} (2 migration(s))\n")
    assert {"credit_requests", "ledger_checks"} <= _tables(database_url)
    assert _migrate(capsys, database_url, "up") == (0, f"already at {NEWEST}: nothing to apply\n")


@ON_BOTH
def test_refusals_change_nothing(database_url: str, capsys: pytest.CaptureFixture[str], tmp_path: Path):
    code, said = _migrate(capsys, database_url, "down", "--to", "9999", "--yes")
    assert code == 2 and "'9999' is not a revision of this version's" in said, said
    code, said = _migrate(capsys, database_url, "down", "--to", "0001")  # not confirmed (no terminal: no)
    assert code == 1 and _migrate(capsys, database_url, "status")[0] == 0
    # a newer version's schema: said as such, and this version does not try to undo what it cannot know
    engine = create_engine(database_url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '0099'"))
    engine.dispose()
    code, said = _migrate(capsys, database_url, "status")
    assert code == 3 and "ahead: a newer version migrated it" in said, said
    code, said = _migrate(capsys, database_url, "down", "--to", "0017", "--yes")
    assert code == 2 and "the database is at 0099, which this version cannot undo" in said, said
    assert "credit_requests" in _tables(database_url)
    assert main(["migrate", "status", "--data-dir", str(tmp_path / "none")]) == 4  # no server set it up
    assert "no server has used it" in capsys.readouterr().err
