"""A consistent copy of a server's database while it runs, and its restore into an empty database.

SQLite: the copy is SQLite's online backup (:meth:`sqlite3.Connection.backup`) in one step, which reads
one snapshot of the database (in WAL mode writers go on meanwhile) into a new file; a restore copies a
backup file into the target the same way.

PostgreSQL: ``pg_dump --format=custom`` (an archive for ``pg_restore``), run on a snapshot this module
exports (``pg_export_snapshot``), so that the :class:`Summary` it reports, read in the same snapshot,
describes exactly what the archive holds; a restore is ``pg_restore --single-transaction --exit-on-error``,
so a restore that fails leaves nothing behind.  The client programs are looked for on ``PATH``, then in
Debian's and Ubuntu's ``/usr/lib/postgresql/VERSION/bin`` (the newest first); a password goes to them in
``PGPASSWORD``, never on their command line (which every user of the machine can read).

A restore goes into an empty database only (:func:`check_empty`): one a server has used (it has an
``alembic_version``), or holding rows, is refused and left as it was.  A copy is made with the file mode
0600: it holds password hashes and session tokens.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Connection, Engine, Table, create_engine, func, inspect, select, text
from sqlalchemy.engine import URL, make_url

from baccarat.server.storage.models import AuditEntry, Base, LedgerTransaction, Wallet

#: The first bytes of an SQLite database file, and of a ``pg_dump`` custom-format archive.
SQLITE_MAGIC, ARCHIVE_MAGIC = b"SQLite format 3\x00", b"PGDMP"
#: Where Debian and Ubuntu install PostgreSQL's client programs, one folder per major version.
DEBIAN_BINARIES = Path("/usr/lib/postgresql")
#: The databases, as a sentence names them.
NAMES = {"sqlite": "an SQLite database", "postgresql": "a PostgreSQL database"}
#: Alembic's table: present in every database a server has started on (it migrates at start).
ALEMBIC = "alembic_version"


class BackupProblem(Exception):
    """A backup or a restore that cannot be made as asked (the words say why and what to do); nothing
    was written."""


class MissingProgram(BackupProblem):
    """``pg_dump`` or ``pg_restore`` cannot be found."""


@dataclass(frozen=True)
class Summary:
    """What a database (or a copy of it) holds: its schema's revision, its accounts, its ledger (how many
    movements, the newest one's id, the sum of every wallet's balance) and its audit trail."""

    revision: str
    accounts: int
    ledger_entries: int
    newest_ledger_entry: int | None
    wallets_total: int
    audit_entries: int
    #: the rows of each of the schema's tables (a backup's signed manifest holds them)
    rows: dict[str, int] = field(default_factory=dict)
    #: the SHA-256 of each of the schema's tables' rows (:func:`table_digest`; the manifest holds them too)
    digests: dict[str, str] = field(default_factory=dict)

    def words(self) -> str:
        """One line for an operator."""
        newest = f", the newest #{self.newest_ledger_entry}" if self.newest_ledger_entry is not None else ""
        return (f"schema {self.revision}; {self.accounts} accounts; {self.ledger_entries} ledger entries{newest}; "
                f"{self.audit_entries} audit entries")


def summarize(connection: Connection) -> Summary:
    """The :class:`Summary` of the database ``connection`` reads (in its current transaction)."""
    revisions = connection.execute(text(f"SELECT version_num FROM {ALEMBIC}")).scalars().all()
    return Summary(
        revision=", ".join(sorted(revisions)),
        accounts=connection.scalar(select(func.count()).select_from(Base.metadata.tables["accounts"])) or 0,
        ledger_entries=connection.scalar(select(func.count(LedgerTransaction.id))) or 0,
        newest_ledger_entry=connection.scalar(select(func.max(LedgerTransaction.id))),
        wallets_total=int(connection.scalar(select(func.coalesce(func.sum(Wallet.balance), 0))) or 0),
        audit_entries=connection.scalar(select(func.count(AuditEntry.id))) or 0,
        rows={name: int(connection.scalar(select(func.count()).select_from(table)) or 0)
              for name, table in sorted(Base.metadata.tables.items())},
        digests={name: table_digest(connection, table) for name, table in sorted(Base.metadata.tables.items())},
    )


def _plain(value: object) -> object:
    """A column's value as the digest reads it, the same from either database: a moment in UTC (SQLite hands back
    the naive UTC the server stored), bytes in hex."""
    if isinstance(value, datetime):
        return (value if value.tzinfo is not None else value.replace(tzinfo=UTC)).astimezone(UTC).isoformat()
    if isinstance(value, bytes | memoryview):
        return bytes(value).hex()
    return value


def table_digest(connection: Connection, table: Table) -> str:
    """The SHA-256 of a table's rows in primary-key order, each row the JSON list of its columns' values: the same
    rows give the same digest in either database, so a manifest says which table of a copy differs."""
    digest = hashlib.sha256()
    order = list(table.primary_key.columns) or list(table.columns)
    for row in connection.execute(select(table).order_by(*order)).yield_per(1000):
        digest.update(json.dumps([_plain(value) for value in row], default=str, separators=(",", ":")).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def kind_of(url: str) -> str:
    """``sqlite`` or ``postgresql``: the databases a server uses (another kind is a :class:`BackupProblem`)."""
    backend = make_url(url).get_backend_name()
    if backend not in ("sqlite", "postgresql"):
        raise BackupProblem(f"{backend} is not a database the server uses: give sqlite:///PATH or "
                            "postgresql+psycopg://USER@HOST/NAME")
    return backend


def kind_of_file(path: Path) -> str:
    """``sqlite`` for an SQLite backup, ``postgresql`` for a ``pg_dump`` custom-format archive."""
    try:
        with path.open("rb") as opened:
            start = opened.read(len(SQLITE_MAGIC))
    except OSError as error:
        raise BackupProblem(f"cannot read the backup {path}: {error.strerror or error}") from error
    if start.startswith(SQLITE_MAGIC):
        return "sqlite"
    if start.startswith(ARCHIVE_MAGIC):
        return "postgresql"
    raise BackupProblem(f"{path} is not a backup made by baccarat backup (neither an SQLite database nor a "
                        "pg_dump custom-format archive)")


def sqlite_path(url: str) -> Path:
    """The file of an SQLite URL (an in-memory database has none: refused)."""
    database = make_url(url).database
    if database in (None, "", ":memory:") or (database or "").startswith("file::memory:"):
        raise BackupProblem("an in-memory database has nothing to back up or restore into: give a file")
    return Path(database or "")


@contextlib.contextmanager
def _new_file(path: Path) -> Iterator[Path]:
    """A new file beside ``path`` (mode 0600), renamed to ``path`` when the block ends well and removed
    otherwise: a failed backup leaves no half-written file, and an existing file is never replaced."""
    if path.exists():
        raise BackupProblem(f"{path} exists already: give the name of a new file (a backup never replaces one)")
    if not path.parent.is_dir():
        raise BackupProblem(f"there is no folder {path.parent} to write {path.name} in")
    partial = path.with_name(f".{path.name}.partial-{os.getpid()}")
    try:
        os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as error:
        raise BackupProblem(f"cannot write in {path.parent}: {error.strerror or error}") from error
    try:
        yield partial
        if path.exists():  # made meanwhile by someone else: theirs stays
            raise BackupProblem(f"{path} appeared while the backup was made: the backup is not kept; run it again "
                                "with another name")
        partial.rename(path)
    finally:
        partial.unlink(missing_ok=True)


# --- SQLite ----------------------------------------------------------------------------------------------


def _sqlite_summary(path: Path) -> Summary:
    engine = create_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as connection:
            return summarize(connection)
    finally:
        engine.dispose()


def backup_sqlite(url: str, destination: Path) -> Summary:
    """Copy the SQLite database at ``url`` to the new file ``destination`` while a server may be writing
    to it; returns what the copy holds."""
    source_path = sqlite_path(url)
    with _new_file(destination) as partial:
        source = sqlite3.connect(source_path, timeout=30)
        try:
            copy = sqlite3.connect(partial)
            try:
                # pages=-1: every page in one step, read from one snapshot.  In steps, a write to the source
                # by another process between two steps restarts the copy, which under a steady stream of
                # bets might never finish.
                source.backup(copy, pages=-1)
                # one self-contained file (the copy would otherwise carry the source's WAL mode and a -wal file)
                copy.execute("PRAGMA journal_mode=DELETE")
                checked = copy.execute("PRAGMA integrity_check").fetchone()
            finally:
                copy.close()
        finally:
            source.close()
        if checked is None or checked[0] != "ok":
            raise BackupProblem(f"the copy failed SQLite's integrity check ({checked}): it is not kept")
        summary = _sqlite_summary(partial)
    return summary


def _sqlite_rows(path: Path) -> tuple[bool, list[str], list[str]]:
    """Whether the SQLite file ``path`` has an ``alembic_version`` table, which of its tables hold rows (any
    table: the restore replaces the whole file), and none in the way (the copy replaces them all)."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    try:
        names = [row[0] for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        full = [name for name in names
                if connection.execute(f'SELECT EXISTS (SELECT 1 FROM "{name}")').fetchone()[0]]
    except sqlite3.DatabaseError as error:
        raise BackupProblem(f"{path} is not an SQLite database ({error}): nothing was restored") from error
    finally:
        connection.close()
    return ALEMBIC in names, full, []


def restore_sqlite(backup: Path, url: str) -> Summary:
    """Copy the SQLite backup ``backup`` into the empty SQLite database at ``url`` (made if absent)."""
    target = sqlite_path(url)
    if target.exists():
        _refuse_unless_empty(*_sqlite_rows(target), where=str(target))
    elif not target.parent.is_dir():
        raise BackupProblem(f"there is no folder {target.parent} for the database {target.name}")
    source = sqlite3.connect(f"file:{backup}?mode=ro", uri=True)
    try:
        checked = source.execute("PRAGMA integrity_check").fetchone()
        if checked is None or checked[0] != "ok":
            raise BackupProblem(f"the backup {backup} failed SQLite's integrity check ({checked}): nothing was "
                                "restored")
        if not source.execute(f"SELECT 1 FROM sqlite_master WHERE name = '{ALEMBIC}'").fetchone():
            raise BackupProblem(f"{backup} holds no baccarat database (no {ALEMBIC} table): nothing was restored")
        copy = sqlite3.connect(target, timeout=30)
        try:
            source.backup(copy, pages=-1)
            copy.execute("PRAGMA journal_mode=WAL")  # as the server runs it
        finally:
            copy.close()
    finally:
        source.close()
    return _sqlite_summary(target)


# --- PostgreSQL -------------------------------------------------------------------------------------------


def find_program(name: str) -> Path:
    """``pg_dump`` or ``pg_restore``: on ``PATH``, else the newest of ``/usr/lib/postgresql/*/bin``."""
    found = shutil.which(name)
    if found is not None:
        return Path(found)
    versions = sorted(DEBIAN_BINARIES.glob(f"*/bin/{name}"),
                      key=lambda path: int(path.parent.parent.name) if path.parent.parent.name.isdigit() else -1)
    if versions:
        return versions[-1]
    raise MissingProgram(
        f"{name} is not installed here (looked on PATH and in {DEBIAN_BINARIES}/*/bin): install PostgreSQL's client "
        f"programs (Debian and Ubuntu: apt install postgresql-client; use the major version of the server or a "
        f"newer one), or put the folder holding {name} on PATH")


def _libpq(url: URL) -> tuple[str, dict[str, str]]:
    """A libpq connection URI for ``url`` without its password, and the environment that gives the password
    (``PGPASSWORD``) to the client program."""
    environment = dict(os.environ)
    if url.password is not None:
        environment["PGPASSWORD"] = str(url.password)
    bare = url.set(drivername="postgresql", password=None)
    return bare.render_as_string(hide_password=False), environment


def _run(program: Path, arguments: list[str], environment: dict[str, str], *, doing: str) -> None:
    done = subprocess.run([str(program), *arguments], env=environment, capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        said = " ".join((done.stderr or done.stdout).split())[-1000:]
        raise BackupProblem(f"{program.name} failed while {doing} (exit {done.returncode}): {said}")


def backup_postgresql(url: str, destination: Path) -> Summary:
    """``pg_dump`` the database at ``url`` (custom format) into the new file ``destination``, from one snapshot
    whose :class:`Summary` it returns."""
    program = find_program("pg_dump")
    parsed = make_url(url)
    conninfo, environment = _libpq(parsed)
    with _new_file(destination) as partial:
        engine = create_engine(parsed)
        try:
            with engine.connect().execution_options(isolation_level="REPEATABLE READ") as connection:
                # The snapshot lives as long as this transaction: pg_dump reads the same one.
                snapshot = connection.scalar(text("SELECT pg_export_snapshot()"))
                summary = summarize(connection)
                _run(program, ["--format=custom", f"--snapshot={snapshot}", f"--file={partial}",
                               f"--dbname={conninfo}"], environment, doing="copying the database")
                connection.rollback()
        finally:
            engine.dispose()
    return summary


def _postgresql_rows(engine: Engine) -> tuple[bool, list[str], list[str]]:
    """Whether the PostgreSQL database has an ``alembic_version`` table, which of our tables hold rows, and
    which of our tables it has at all: even empty, one is in the way of ``pg_restore``, which makes them all."""
    with engine.connect() as connection:
        names = set(inspect(connection).get_table_names())
        ours = sorted(names & {*Base.metadata.tables, ALEMBIC})
        full = [name for name in ours if connection.scalar(text(f'SELECT EXISTS (SELECT 1 FROM "{name}")'))]
    return ALEMBIC in names, full, ours


def restore_postgresql(backup: Path, url: str) -> Summary:
    """``pg_restore`` the archive ``backup`` into the empty PostgreSQL database at ``url``, in one transaction."""
    program = find_program("pg_restore")
    parsed = make_url(url)
    engine = create_engine(parsed)
    try:
        _refuse_unless_empty(*_postgresql_rows(engine), where=parsed.render_as_string(hide_password=True))
        conninfo, environment = _libpq(parsed)
        # no owner or privileges: the tables belong to the role restoring them, whichever role dumped them
        _run(program, ["--single-transaction", "--exit-on-error", "--no-owner", "--no-privileges",
                       f"--dbname={conninfo}", str(backup)], environment, doing="restoring the archive")
        with engine.connect() as connection:
            return summarize(connection)
    finally:
        engine.dispose()


def _refuse_unless_empty(used: bool, full: list[str], present: list[str], *, where: str) -> None:
    """Refuse (:class:`BackupProblem`) a target a server has used, one holding rows, or one whose tables are in
    the way of the restore."""
    if used:
        raise BackupProblem(f"the database at {where} has been used by a baccarat server (it has an {ALEMBIC} "
                            "table): a restore goes into an empty database only; nothing was changed. Create a "
                            "new database (or give a new --data-dir) and restore into that")
    if full:
        raise BackupProblem(f"the database at {where} is not empty (tables {', '.join(full)}): a restore goes "
                            "into an empty database only; nothing was changed")
    if present:
        raise BackupProblem(f"the database at {where} already has baccarat's tables ({', '.join(present)}), empty: "
                            "the restore makes them; drop them, or restore into a new database; nothing was changed")


@contextlib.contextmanager
def _sqlite_problems(doing: str) -> Iterator[None]:
    """SQLite's own errors (the standard library's module, below SQLAlchemy) as a :class:`BackupProblem`."""
    try:
        yield
    except sqlite3.Error as error:
        raise BackupProblem(f"SQLite failed while {doing}: {error}; nothing was written") from error


def backup(url: str, destination: Path) -> Summary:
    """A consistent copy of the database at ``url`` in the new file ``destination``; returns what it holds."""
    if kind_of(url) == "sqlite":
        with _sqlite_problems("copying the database"):
            return backup_sqlite(url, destination)
    return backup_postgresql(url, destination)


# --- the schema a backup holds -------------------------------------------------------------------------------

#: The PostgreSQL objects besides tables, their rows, sequences, indexes and constraints that the migrations make
#: (as ``pg_restore --list`` names them), each with the revision whose migration makes it: a backup of that
#: revision or later must hold it (one without it had its protection removed: the audit trail's append-only rule,
#: the balanced ledger).  A test checks them against a database migrated afresh.
POSTGRESQL_MADE_BY = {
    "FUNCTION public audit_log_append_only()": "0008", "TRIGGER public audit_log audit_log_append_only": "0008",
    "TRIGGER public audit_log audit_log_no_truncate": "0009",
    "FUNCTION public ledger_balanced()": "0014", "FUNCTION public ledger_touched()": "0020",
    **{f"TRIGGER public postings postings_touched_{event}": "0020" for event in ("insert", "update", "delete")},
    "TRIGGER public ledger_checks ledger_checks_balance": "0020",
}
#: Objects the migrations made and a later one removed (the revision that removed it): a backup between holds it.
POSTGRESQL_REMOVED_BY = {"TRIGGER public postings postings_balance": ("0014", "0020")}
POSTGRESQL_OBJECTS = frozenset(POSTGRESQL_MADE_BY) | frozenset(POSTGRESQL_REMOVED_BY)
#: The kinds of ``pg_restore --list`` entries that hold tables and their rows, and what every table has.
_STRUCTURE = ("TABLE", "TABLE DATA", "SEQUENCE", "SEQUENCE OWNED BY", "SEQUENCE SET", "DEFAULT", "CONSTRAINT",
              "FK CONSTRAINT", "INDEX")
_ENTRY = re.compile(r"^\d+; \d+ \d+ (?P<what>.+) (?P<owner>\S+)$")


def check_schema(backup_file: Path, revision: str) -> None:
    """Refuse (:class:`BackupProblem`, naming each) an object in the backup that the migrations up to ``revision``
    do not make (a trigger, a function, a view, a table, or one of theirs changed), and one they make that the
    backup lacks (a trigger that keeps the ledger balanced or the audit trail append-only, dropped before the
    backup was made).  Nothing is written."""
    if kind_of_file(backup_file) == "sqlite":
        found, missing = _sqlite_objects(backup_file, revision)
    else:
        found, missing = _postgresql_objects(backup_file, revision)
    if found:
        raise BackupProblem(f"{backup_file} holds what the migrations do not make ({'; '.join(found[:5])}"
                            f"{'; ...' if len(found) > 5 else ''}): it was changed; nothing was restored")
    if missing:
        raise BackupProblem(f"{backup_file} lacks what the migrations make ({'; '.join(missing[:5])}"
                            f"{'; ...' if len(missing) > 5 else ''}): its protections were removed before it was "
                            "made; nothing was restored")


def _sqlite_schema(path: Path) -> dict[tuple[str, str], str]:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {(kind, name): " ".join((sql or "").split()) for kind, name, sql in connection.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")}
    finally:
        connection.close()


def _sqlite_objects(backup_file: Path, revision: str) -> tuple[list[str], list[str]]:
    """What the SQLite backup holds that a database migrated afresh to ``revision`` does not, or holds otherwise;
    and what that database holds that the backup does not."""
    from baccarat.server.storage.migrate import upgrade

    with tempfile.TemporaryDirectory() as folder:
        fresh = Path(folder) / "fresh.sqlite3"
        upgrade(f"sqlite:///{fresh}", revision)
        expected = _sqlite_schema(fresh)
    held = _sqlite_schema(backup_file)
    # triggers and views by what they do; tables and indexes by name (their text is the SQL that made them, which
    # an older version's migrations may have worded otherwise)
    extra = [f"{kind} {name}" + (" (changed)" if (kind, name) in expected else "")
             for (kind, name), sql in sorted(held.items())
             if (kind, name) not in expected or (kind in ("trigger", "view") and expected[(kind, name)] != sql)]
    return extra, [f"{kind} {name}" for kind, name in sorted(expected) if (kind, name) not in held]


def _postgresql_objects(backup_file: Path, revision: str) -> tuple[list[str], list[str]]:
    """What the archive holds besides the schema's tables (and their rows, sequences, indexes, constraints) and
    :data:`POSTGRESQL_OBJECTS`; and which of the schema's tables, and of those objects its ``revision`` has, it
    lacks."""
    done = subprocess.run([str(find_program("pg_restore")), "--list", str(backup_file)], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise BackupProblem(f"pg_restore cannot read {backup_file}: {' '.join(done.stderr.split())[-300:]}")
    tables = {*Base.metadata.tables, ALEMBIC}
    extra, listed, tables_held = [], set(), set()
    for line in done.stdout.splitlines():
        entry = _ENTRY.match(line.strip())
        if entry is None:
            continue  # a comment line of the listing
        what = entry["what"]
        listed.add(what)
        kind = next((kind for kind in sorted(_STRUCTURE, key=len, reverse=True) if what.startswith(kind + " ")), None)
        if kind in ("TABLE", "TABLE DATA"):
            schema, name = what.split()[-2:]
            if schema != "public" or name not in tables:  # (another schema's table of the same name too)
                extra.append(what)
            elif kind == "TABLE":
                tables_held.add(name)
        elif kind is None and what not in POSTGRESQL_OBJECTS:
            extra.append(what)
    missing = [what for what, made in sorted(POSTGRESQL_MADE_BY.items()) if made <= revision and what not in listed]
    missing += [what for what, (made, removed) in sorted(POSTGRESQL_REMOVED_BY.items())
                if made <= revision < removed and what not in listed]
    from baccarat.server.storage.migrate import code_heads

    if revision in code_heads():  # the schema's tables are this code's: an older backup may lack those made since
        missing += [f"TABLE public {name}" for name in sorted(tables - tables_held)]
    return extra, missing


def restore(backup_file: Path, url: str) -> Summary:
    """The backup ``backup_file`` restored into the empty database at ``url``; returns what it now holds."""
    kind, made_from = kind_of(url), kind_of_file(backup_file)
    if kind != made_from:
        raise BackupProblem(f"{backup_file} is a backup of {NAMES[made_from]}; it restores into {NAMES[made_from]} "
                            f"only, not into {NAMES[kind]}: nothing was restored")
    if kind == "sqlite":
        with _sqlite_problems("restoring the backup"):
            return restore_sqlite(backup_file, url)
    return restore_postgresql(backup_file, url)
