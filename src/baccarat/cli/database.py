"""The database a command works on: opened, migrated and checked to take a write, or refused in one
line naming the option and variable that chose it (exit 4, :data:`~baccarat.cli.common.EXIT_UNAVAILABLE`).
``serve``, ``operator``, ``audit`` and ``void-round`` all open their database here."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer

from baccarat.cli.common import EXIT_UNAVAILABLE

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from sqlalchemy.orm import Session, sessionmaker

    from baccarat.server.storage.settings import Settings


def unavailable(reason: str) -> NoReturn:
    print(f"error: {reason}", file=sys.stderr)
    raise typer.Exit(EXIT_UNAVAILABLE)


@contextmanager
def _database_problems(settings: Settings) -> Iterator[None]:
    """Turn a database or data directory that cannot be used into one line and :data:`EXIT_UNAVAILABLE`.

    Only the failures of the machine and its configuration (unreachable, read-only, full, refused
    credentials, no driver, a schema newer than this code): anything else is a bug and keeps its traceback.
    """
    from alembic.util import CommandError
    from sqlalchemy.exc import NoSuchModuleError, SQLAlchemyError

    from baccarat.server.storage import faults

    hint = _where_set(settings)
    try:
        yield
    except OSError as error:
        if settings.database_url is None and error.filename is not None:
            why = "it is not a directory" if Path(error.filename).is_file() else error.strerror or str(error)
            unavailable(f"cannot use the data directory {settings.data_dir}: {why}; check {hint}")
        unavailable(f"cannot open the database at {shown(settings)}: {faults.describe(error)}; check {hint}")
    except (NoSuchModuleError, ImportError) as error:  # a database kind, or a driver, that is not installed
        if settings.database_url is None or (getattr(error, "name", None) or "").startswith("baccarat"):
            raise  # SQLite's driver is Python's own, always there; a module of ours missing is a bug
        scheme = settings.database_url.split("://", 1)[0]
        why = (f"its driver ({scheme}) is not installed; write postgresql+psycopg://USER@HOST/NAME (psycopg 3, "
               "installed with baccarat)" if scheme.startswith("postgres") else
               f"{scheme} is not a database this server uses: give sqlite:///PATH or postgresql+psycopg://USER@HOST/NAME")
        unavailable(f"cannot open the database at {shown(settings)}: {why}; check {hint}")
    except (SQLAlchemyError, CommandError) as error:
        problem, words = faults.storage_problem(error), faults.describe(error)
        reason = words if problem is None else problem if problem == words else f"{problem} ({words})"
        unavailable(f"cannot open the database at {shown(settings)}: {reason}; check {hint}")


def _check_set_up(settings: Settings) -> None:
    """End the command (:data:`EXIT_UNAVAILABLE`) unless a server has set this database up."""
    from sqlalchemy import create_engine, inspect
    from sqlalchemy.engine import make_url

    hint = _where_set(settings)
    url = make_url(settings.database_url) if settings.database_url else None
    if url is None or url.get_backend_name() == "sqlite":
        if url is not None and url.database in (None, "", ":memory:"):
            return  # in memory: nothing on disk to look for
        path = settings.data_dir / "baccarat.sqlite3" if url is None else Path(url.database or "")
        if not path.is_file():  # (connecting would make it)
            unavailable(f"there is no database at {path}: no server has used it; check {hint}")
        return
    engine = create_engine(url)
    try:
        set_up = inspect(engine).has_table("alembic_version")
    finally:
        engine.dispose()
    if not set_up:
        unavailable(f"the database at {shown(settings)} holds no baccarat tables: no server has used it; "
                     f"check {hint}")


def _where_set(settings: Settings) -> str:
    """The option and variable that chose this database: what a refusal asks to check."""
    return "--database / BACCARAT_DATABASE_URL" if settings.database_url else "--data-dir / BACCARAT_DATA_DIR"


def shown(settings: Settings) -> str:
    """The database URL without its password (it is printed)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    if settings.database_url is None:
        return str(settings.data_dir / "baccarat.sqlite3")
    try:
        return make_url(settings.database_url).render_as_string(hide_password=True)
    except ArgumentError:
        return settings.database_url.split("://", 1)[0] + "://..."


def ready_database(settings: Settings, *, existing: bool = False) -> str:
    """The database URL, migrated to the newest schema and known to take a write; a database that
    cannot be used ends the command with one line and :data:`EXIT_UNAVAILABLE`.

    ``existing``: for the commands that read or change what a server wrote (the audit trail, a round),
    a database no server has set up is refused too: a mistyped ``--data-dir`` or ``--database`` would
    otherwise be made, empty, and the command would report on nothing as if all were well.
    """
    from sqlalchemy import text

    from baccarat.server.storage.db import connect, transaction
    from baccarat.server.storage.migrate import upgrade

    with _database_problems(settings):
        if existing:
            _check_set_up(settings)
        url = settings.url  # makes the data directory
        upgrade(url)
        with connect(url) as sessions:
            # A write that changes nothing: a read-only database (or a PostgreSQL standby) passes the
            # migration when there is nothing to migrate, and would then answer every bet 503.
            transaction(sessions, lambda s: s.execute(text("UPDATE alembic_version SET version_num = version_num")))
    return url


def existing_database(settings: Settings) -> str:
    """The URL of a database a server has set up, as it is: neither migrated nor written (``backup`` copies
    it while a server may be running on it); a database that cannot be opened, or that no server has set
    up, ends the command with one line and :data:`EXIT_UNAVAILABLE`."""
    with _database_problems(settings):
        _check_set_up(settings)
        return settings.url


@contextmanager
def database_problems(settings: Settings) -> Iterator[None]:
    """Inside the block, a database that cannot be opened (unreachable, refused credentials, no driver) ends
    the command with one line naming the option and variable that chose it, and :data:`EXIT_UNAVAILABLE`."""
    with _database_problems(settings):
        yield


def sign_audit_entries(sessions: sessionmaker[Session], settings: Settings) -> None:
    """Sign the audit entries a command records with the server's key (made, as the server makes it, when
    none is configured): an unsigned entry after signed ones is what ``audit verify`` names as tampering."""
    from baccarat.server.house import audit, audit_keys

    audit.use_key(sessions, audit_keys.ensure_key(settings))


def open_seeds(sessions: sessionmaker[Session], settings: Settings) -> None:
    """Seal and open the shoes' seeds with the server's seed key, as the server does (made when none is configured
    and no shoe in play needs one; refused, naming the key, when the shoes in play were sealed with a key not
    given): a command that deals or voids a round, or opens a new shoe, needs it."""
    from baccarat.server.house import seed_keys
    from baccarat.server.storage.db import read

    seed_keys.use(read(sessions, lambda s: seed_keys.ready_key(s, settings)))


def public_key_of(settings: Settings, given: Path | None) -> Ed25519PublicKey | None:
    """The public key to check with: ``--public-key``, else the configured private key's, else the
    ``.pub`` beside the key file; None when there is none."""
    from baccarat.server.house import audit_keys

    if given is not None:
        return audit_keys.load_public(given)
    key = audit_keys.configured_key(settings)
    if key is not None:
        return key.public_key()
    beside = audit_keys.public_key_path(settings.audit_key_path)
    return audit_keys.load_public(beside) if beside.exists() else None
