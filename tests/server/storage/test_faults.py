"""Storage faults (:mod:`baccarat.server.storage.faults`) under faults (issue 11, item 8): a full, read-only or
unreachable database told from other database errors and logged as one line now and then; and a server
whose database or data directory cannot be used says why in one line with its own exit code."""

from __future__ import annotations

import logging
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine, event, text
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from baccarat.cli.common import EXIT_UNAVAILABLE
from baccarat.server.storage import faults
from baccarat.server.storage.db import sqlite_url

EXE = shutil.which("baccarat", path=str(Path(sys.executable).parent))


# --- storage faults -----------------------------------------------------------------------------------------


def _sqlite_error(tmp_path: Path, how: str) -> OperationalError:
    """A real error from SQLite: a write to a read-only database, or to one that is full."""
    path = tmp_path / f"{how}.sqlite3"
    with create_engine(f"sqlite:///{path}").begin() as c:
        c.execute(text("CREATE TABLE t (x BLOB)"))
    if how == "read-only":
        engine = create_engine(f"sqlite:///file:{path}?mode=ro&uri=true")
    else:
        engine = create_engine(f"sqlite:///{path}")
        event.listen(engine, "connect", lambda connection, _: connection.execute("PRAGMA max_page_count=2"))
    with pytest.raises(OperationalError) as raised, engine.begin() as c:
        c.execute(text("INSERT INTO t VALUES (randomblob(100000))"))
    engine.dispose()
    return raised.value


def test_storage_problems_are_told_from_other_database_errors(tmp_path: Path):
    assert faults.storage_problem(_sqlite_error(tmp_path, "read-only")) == faults.READ_ONLY
    assert faults.storage_problem(_sqlite_error(tmp_path, "full")) == faults.DISK_FULL
    with pytest.raises(OperationalError) as cannot_open, create_engine(
            f"sqlite:///{tmp_path}/no/such/dir/x.sqlite3").connect():
        pass
    assert faults.storage_problem(cannot_open.value) == faults.CANNOT_OPEN
    with pytest.raises(OperationalError) as refused, create_engine(
            "postgresql+psycopg://nobody@127.0.0.1:1/x").connect():
        pass
    assert faults.storage_problem(refused.value) == faults.UNREACHABLE
    assert "\n" not in faults.describe(refused.value) and "Connection refused" in faults.describe(refused.value)
    # errors that are not the machine's fault
    engine = create_engine(f"sqlite:///{tmp_path}/fine.sqlite3")
    with pytest.raises(IntegrityError) as duplicate, engine.begin() as c:
        c.execute(text("CREATE TABLE u (x INTEGER PRIMARY KEY)"))
        c.execute(text("INSERT INTO u VALUES (1), (1)"))
    assert faults.storage_problem(duplicate.value) is None
    with pytest.raises(OperationalError) as bad_sql, engine.begin() as c:
        c.execute(text("SELECT * FROM no_such_table"))
    assert faults.storage_problem(bad_sql.value) is None
    assert faults.storage_problem(ValueError("database or disk is full")) is None  # not from a database
    psycopg = pytest.importorskip("psycopg")
    wrap = lambda orig: OperationalError("INSERT ...", {}, orig)  # noqa: E731
    assert faults.storage_problem(wrap(psycopg.errors.DiskFull("could not extend file"))) == faults.DISK_FULL
    assert faults.storage_problem(wrap(psycopg.errors.ReadOnlySqlTransaction("read-only"))) == faults.READ_ONLY
    assert faults.storage_problem(wrap(psycopg.errors.SerializationFailure("retry"))) is None
    assert faults.storage_problem(wrap(psycopg.errors.DeadlockDetected("retry"))) is None
    assert faults.storage_problem(wrap(psycopg.errors.LockNotAvailable("busy"))) is None


def test_a_postgresql_connection_lost_mid_run_is_unreachable():
    import os

    server = os.environ.get("BACCARAT_TEST_POSTGRES_URL")
    if not server:
        pytest.skip("no PostgreSQL server (BACCARAT_TEST_POSTGRES_URL)")
    engine = create_engine(server)
    try:
        with engine.connect() as victim, engine.connect() as killer:
            pid = victim.execute(text("SELECT pg_backend_pid()")).scalar()
            killer.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            with pytest.raises(DBAPIError) as lost:
                victim.execute(text("SELECT 1"))
        assert faults.storage_problem(lost.value) == faults.UNREACHABLE
    finally:
        engine.dispose()


@pytest.mark.slow
def test_a_disk_that_fills_up_is_a_storage_problem(tmp_path: Path):
    """A real full file system (a 512 KB tmpfs), where the machine lets the test mount one."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here")
    try:
        engine = create_engine(f"sqlite:///{mount}/full.sqlite3")
        with engine.begin() as c:
            c.execute(text("CREATE TABLE t (x BLOB)"))
        with pytest.raises(OperationalError) as full:
            for _ in range(100):
                with engine.begin() as c:
                    c.execute(text("INSERT INTO t VALUES (randomblob(50000))"))
        engine.dispose()
        assert faults.storage_problem(full.value) == faults.DISK_FULL
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_the_fault_log_writes_one_line_per_reason_every_interval(ticks):
    logger = logging.getLogger("test.faults")
    lines: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record)

    keep = Keep()
    logger.addHandler(keep)
    try:
        log = faults.FaultLog(logger, interval=10.0, clock=ticks)
        error = OperationalError("INSERT INTO tokens VALUES (?)", ("secret-token",),
                                 sqlite3.OperationalError("database or disk is full"))
        written = [log.report(faults.DISK_FULL, error, consequence="answered 503") for _ in range(5)]
        assert written == [True, False, False, False, False]
        assert log.report(faults.READ_ONLY, error, consequence="answered 503")  # another reason: its own line
        ticks.value = 10.5
        assert log.report(faults.DISK_FULL, error, consequence="answered 503")
    finally:
        logger.removeHandler(keep)
    messages = [record.getMessage() for record in lines]
    assert len(messages) == 3 and not any("\n" in m for m in messages) and not any(r.exc_info for r in lines)
    assert messages[0] == "storage fault: disk full: database or disk is full; answered 503"
    assert messages[2].endswith("(4 more since the last report)")
    assert not any("secret-token" in m or "INSERT" in m for m in messages)  # never the statement or its parameters


# --- start-up failures --------------------------------------------------------------------------------------


def _serve(*options: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    assert EXE is not None
    return subprocess.run([EXE, "serve", "--port", "0", *options], capture_output=True, text=True, timeout=timeout)


def _refused_in_one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == EXIT_UNAVAILABLE, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


@pytest.mark.slow
def test_an_unreachable_postgresql_is_one_line_and_its_own_exit_code(tmp_path: Path):
    started = time.monotonic()
    done = _serve("--database", "postgresql+psycopg://nobody:hunter2@127.0.0.1:1/x", "--data-dir", str(tmp_path))
    assert time.monotonic() - started < 30
    line = _refused_in_one_line(done)
    assert line.startswith("error: cannot open the database at postgresql+psycopg://nobody:***@127.0.0.1:1/x: ")
    assert "hunter2" not in line and "unreachable" in line and "BACCARAT_DATABASE_URL" in line


@pytest.mark.slow
def test_a_data_directory_that_is_a_file_is_one_line(tmp_path: Path):
    a_file = tmp_path / "not-a-directory"
    a_file.write_text("")
    line = _refused_in_one_line(_serve("--data-dir", str(a_file)))
    assert line == (f"error: cannot use the data directory {a_file}: it is not a directory; "
                    "check --data-dir / BACCARAT_DATA_DIR")


@pytest.mark.slow
def test_a_read_only_database_is_one_line(tmp_path: Path):
    from baccarat.server.storage.migrate import upgrade

    upgrade(sqlite_url(tmp_path))
    done = _serve("--database", f"sqlite:///file:{tmp_path / 'baccarat.sqlite3'}?mode=ro&uri=true")
    assert "database is read-only" in _refused_in_one_line(done)


@pytest.mark.parametrize(("url", "words"), [
    ("mysql://u@db.example/baccarat", "mysql is not a database this server uses: give sqlite:///PATH or "
                                      "postgresql+psycopg://USER@HOST/NAME"),
    ("nosuchdb://u@h/b", "nosuchdb is not a database this server uses"),
    ("postgresql+psycopg2://u@127.0.0.1:1/b", "its driver (postgresql+psycopg2) is not installed; write "
                                              "postgresql+psycopg://USER@HOST/NAME"),
])
@pytest.mark.slow
def test_a_database_this_server_cannot_use_is_said_in_words(url: str, words: str, tmp_path: Path):
    """Once "No module named 'MySQLdb'" and "Can't load plugin: sqlalchemy.dialects:nosuchdb"."""
    line = _refused_in_one_line(_serve("--database", url, "--data-dir", str(tmp_path)))
    assert words in line and "No module" not in line and "plugin" not in line, line
