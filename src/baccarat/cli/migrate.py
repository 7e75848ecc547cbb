"""``baccarat migrate status|up|down``: the database's schema, by Alembic (the scripts in
:mod:`baccarat.server.storage.migrations`).  A server migrates its database when it starts; these are for the
rolling upgrade and its rollback (docs/deploying.md, "Upgrading"): a process whose database is not at its own
schema takes no write (:mod:`baccarat.server.storage.schema_watch`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from baccarat.cli.common import UsageProblem, app, handle_errors

migrate_app = typer.Typer(help="The database's schema: where it is, and moving it up or down.",
                          no_args_is_help=True)
app.add_typer(migrate_app, name="migrate")

#: Exit code of ``status`` when the database is not at this version's schema.
EXIT_NOT_CURRENT = 3

Database = Annotated[str | None, typer.Option(help="SQLAlchemy URL (default: SQLite in the data directory).")]
DataDir = Annotated[Path | None, typer.Option(help="Data directory.")]


def _plan(url: str) -> tuple[list[str], list[str], list[str]]:
    """The database's revisions, this code's newest, and the revisions from the database's to the newest (in order;
    empty when the database is there, or at a revision this code does not have)."""
    from alembic.script import ScriptDirectory

    from baccarat.server.storage.db import connect, read
    from baccarat.server.storage.migrate import alembic_config, code_heads, database_heads

    with connect(url) as sessions:
        database = sorted(read(sessions, lambda s: database_heads(s.connection())))
    script = ScriptDirectory.from_config(alembic_config(url))
    known = {revision.revision for revision in script.walk_revisions()}
    pending: list[str] = []
    if all(revision in known for revision in database):
        pending = [r.revision for r in script.iterate_revisions("heads", database[0] if database else "base")]
        pending.reverse()
    return database, sorted(code_heads()), pending


@migrate_app.command("status")
def status(database: Database = None, data_dir: DataDir = None) -> None:
    """Say the database's schema revision and this version's: exit 0 when they are the same, 3 when the database
    is behind (naming the migrations ``migrate up`` applies) or at a revision this version does not know (a newer
    version migrated it: run that version, or its ``migrate down``)."""
    from baccarat.cli.database import database_problems, existing_database
    from baccarat.server.storage.settings import Settings

    with handle_errors():
        settings = Settings.from_options(data_dir=data_dir, database=database)
        url = existing_database(settings)
        with database_problems(settings):
            at, ours, pending = _plan(url)
        print(f"database: {', '.join(at) or 'no migration applied'}")
        print(f"this version: {', '.join(ours)}")
        if at == ours:
            print("up to date: a server of this version takes bets on it")
            return
        if pending:
            print(f"behind: `baccarat migrate up` applies {len(pending)} migration(s): {', '.join(pending)}")
        else:
            print("ahead: a newer version migrated it; run that version, or its `baccarat migrate down --to "
                  f"{ours[0]}`; until then a server of this version takes no write")
        raise typer.Exit(EXIT_NOT_CURRENT)


@migrate_app.command("up")
def up(to: Annotated[str, typer.Option(help="The revision to stop at (default: this version's newest).")] = "heads",
       database: Database = None, data_dir: DataDir = None) -> None:
    """Apply the migrations the database lacks, up to this version's newest schema (what a server of this version
    does when it starts)."""
    from baccarat.cli.database import database_problems, existing_database
    from baccarat.server.storage.migrate import upgrade
    from baccarat.server.storage.settings import Settings

    with handle_errors():
        settings = Settings.from_options(data_dir=data_dir, database=database)
        url = existing_database(settings)
        with database_problems(settings):
            before, _, pending = _plan(url)
            upgrade(url, to)
            after, _, _ = _plan(url)
        if after == before:
            print(f"already at {', '.join(after)}: nothing to apply")
        else:
            print(f"migrated from {', '.join(before) or 'nothing'} to {', '.join(after)} "
                  f"({len(pending) if to == 'heads' else 'some'} migration(s))")


@migrate_app.command("down")
def down(to: Annotated[str, typer.Option(help="The revision to go back to: the schema of the version you roll "
                                              "back to (its `baccarat migrate status` says it).")],
         yes: Annotated[bool, typer.Option("--yes", help="Do not ask first.")] = False,
         database: Database = None, data_dir: DataDir = None) -> None:
    """Undo the migrations after revision ``--to`` (with this version's scripts, which know how), for a rollback:
    what those migrations added (tables, columns) is dropped, so take a backup first.  A server of this version
    takes no write on the older schema; start the version you roll back to."""
    from alembic import command

    from baccarat.cli.database import database_problems, existing_database, shown
    from baccarat.server.storage.migrate import alembic_config
    from baccarat.server.storage.settings import Settings

    with handle_errors():
        settings = Settings.from_options(data_dir=data_dir, database=database)
        url = existing_database(settings)
        with database_problems(settings):
            before, ours, _ = _plan(url)
            if not before or any(revision not in _revisions(url) for revision in before):
                raise UsageProblem(f"the database is at {', '.join(before) or 'no revision'}, which this version "
                                   "cannot undo: run the version that made it")
            if to not in _revisions(url):
                raise UsageProblem(f"{to!r} is not a revision of this version's: its revisions run from 0001 "
                                   f"to {ours[-1]}")
            if not yes and not _confirmed(f"Undo the migrations after {to} on {shown(settings)}? What they added "
                                          "is dropped (take a backup first)."):
                print("nothing undone (give --yes to undo without the question)")
                raise typer.Exit(1)
            command.downgrade(alembic_config(url), to)
            after, _, _ = _plan(url)
        print(f"migrated down from {', '.join(before)} to {', '.join(after)}")


def _confirmed(question: str) -> bool:
    """The operator's yes; no answer (no terminal, end of input) is no."""
    import click

    try:
        return typer.confirm(question, default=False)
    except (click.exceptions.Abort, EOFError, OSError):
        return False


def _revisions(url: str) -> set[str]:
    from alembic.script import ScriptDirectory

    from baccarat.server.storage.migrate import alembic_config

    return {revision.revision for revision in ScriptDirectory.from_config(alembic_config(url)).walk_revisions()}
