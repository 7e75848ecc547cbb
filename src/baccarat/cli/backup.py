"""``baccarat backup FILE``: a consistent copy of a server's database while it runs; ``baccarat restore
FILE``: that copy into an empty database (:mod:`baccarat.server.storage.backup` does the work).

Exit codes: 0 done; 1 refused (the file exists, a restore target that is not empty, a backup of the other
kind of database, a manifest missing, not signed by the audit trail's key or not this file's, an object the
migrations do not make, ``pg_dump`` failed), nothing written; 4 the database cannot be opened, no server has set
it up (``backup``), or ``pg_dump`` / ``pg_restore`` is not installed.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from baccarat.cli.common import app, handle_errors
from baccarat.cli.exits import EXIT_RUNTIME
from baccarat.core.money import format_amount

BackupFile = Annotated[Path, typer.Argument(metavar="FILE", dir_okay=False, help="The backup file.")]
Database = Annotated[str | None, typer.Option(
    help="SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db (default: SQLite in the data directory).")]
DataDir = Annotated[Path | None, typer.Option(help="Data directory (default: $BACCARAT_DATA_DIR or ./baccarat-data).")]


@contextmanager
def _working(words: str) -> Iterator[None]:
    """A spinner on standard error while the copy is made, on a terminal only (as ``simulate``'s bar)."""
    if sys.stderr is None or not sys.stderr.isatty():
        yield
        return
    from rich.console import Console

    with Console(stderr=True).status(words):
        yield


@contextmanager
def _problems() -> Iterator[None]:
    """A backup or restore that cannot be made: one line; exit 4 for a missing client program, 1 otherwise."""
    from baccarat.cli.database import unavailable
    from baccarat.server.storage.backup import BackupProblem, MissingProgram

    try:
        yield
    except MissingProgram as error:
        unavailable(str(error))
    except BackupProblem as error:
        print(f"error: {error}", file=sys.stderr)
        raise typer.Exit(EXIT_RUNTIME) from None


@app.command()
def backup(file: BackupFile, database: Database = None, data_dir: DataDir = None) -> None:
    """Copy the server's database into FILE (a new file), while the server runs.

    The copy holds every bet and movement committed up to one moment, and none half.  SQLite: an
    SQLite file (SQLite's online backup); PostgreSQL: a pg_dump custom-format archive (pg_dump must be
    installed).  The copy holds password hashes and session tokens: it is written readable by its
    owner only."""
    from baccarat.cli.database import database_problems, existing_database
    from baccarat.server.house import audit_keys, backup_manifest
    from baccarat.server.storage import backup as backups
    from baccarat.server.storage.settings import Settings

    with handle_errors():
        settings = Settings.from_options(data_dir=data_dir, database=database)
        key = audit_keys.ensure_key(settings)  # signs the manifest: the database never holds it
        url = existing_database(settings)
        with _problems(), database_problems(settings), _working(f"copying the database into {file}"):
            kind = backups.kind_of(url)
            if backup_manifest.manifest_path(file).exists():
                raise backups.BackupProblem(f"{backup_manifest.manifest_path(file)} exists already: give the name "
                                            "of a new file (a backup never replaces one)")
            summary = backups.backup(url, file)
            manifest = backup_manifest.write(file, kind, summary, key)
    size = file.stat().st_size
    print(f"backup written to {file} ({'SQLite database' if kind == 'sqlite' else 'pg_dump custom format'}, "
          f"{size:,} bytes), its manifest signed with the audit trail's key {audit_keys.fingerprint(key.public_key())} "
          f"beside it ({manifest.name}): keep the two together")
    print(f"it holds {summary.words()}; wallets {format_amount(summary.wallets_total)} in all")


@app.command()
def restore(file: Annotated[Path, typer.Argument(metavar="FILE", exists=True, dir_okay=False,
                                                 help="A file made by baccarat backup.")],
            database: Database = None, data_dir: DataDir = None,
            public_key: Annotated[Path | None, typer.Option(
                "--public-key", help="The audit trail's public key the manifest is checked with (default: the "
                                     "configured signing key's, or the .pub beside its file).")] = None) -> None:
    """Restore a backup made by baccarat backup into an empty database.

    Before anything is written, the backup's manifest (FILE.manifest.json) is checked: signed with the audit trail's
    key and naming this very file; and the backup must hold nothing the migrations do not make (no trigger, function,
    view or table of anyone else's).  The target is a new SQLite file (in the data directory, or at the --database
    URL) or an empty PostgreSQL database of the same kind as the backup's.  A database a server has used, or one
    holding rows, is refused and left as it was.  Start the server on it afterwards; it migrates the copy if it is
    older."""
    from baccarat.cli.common import UsageProblem
    from baccarat.cli.database import database_problems, public_key_of, shown
    from baccarat.server.house import backup_manifest
    from baccarat.server.storage import backup as backups
    from baccarat.server.storage.settings import Settings

    with handle_errors():
        settings = Settings.from_options(data_dir=data_dir, database=database)
        public = public_key_of(settings, public_key)
        if public is None:
            raise UsageProblem("the backup's manifest cannot be checked without the audit trail's public key: give "
                               "--public-key FILE (the .pub beside the signing key)")
        with _problems(), database_problems(settings), _working(f"restoring {file}"):
            backups.kind_of_file(file)  # a file that is no backup at all is named first
            manifest = backup_manifest.check(file, public)
            backups.check_schema(file, str(manifest["revision"]))
            summary = backups.restore(file, settings.url)
            changed = backup_manifest.differences(manifest, summary)
            if changed:
                raise backups.BackupProblem(
                    f"the restored database is not the backup its manifest describes: the rows of {', '.join(changed)} "
                    "differ; do not start a server on it: restore again into a new, empty database")
    print(f"restored {file} into {shown(settings)}")
    print(f"it holds {summary.words()}; wallets {format_amount(summary.wallets_total)} in all")
