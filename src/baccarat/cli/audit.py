"""``baccarat audit verify``: check the operator audit trail's hash chain, naming the first broken
entry; ``baccarat audit show``: print the newest entries."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from baccarat.cli.common import app, handle_errors

audit_app = typer.Typer(help="The operator audit trail (hash-chained, append-only).", no_args_is_help=True)
app.add_typer(audit_app, name="audit")

#: Exit code when the chain is broken (as ``verify`` on a mismatch).
EXIT_BROKEN = 3

Database = Annotated[str | None, typer.Option(help="SQLAlchemy URL (default: SQLite in the data directory).")]
DataDir = Annotated[Path | None, typer.Option(help="Data directory.")]


@audit_app.command("verify")
def verify(database: Database = None, data_dir: DataDir = None) -> None:
    """Recompute every entry's SHA-256 and its link to the one before; exit 3 naming the first
    broken entry, 0 with the number of entries and the newest digest (write it down elsewhere:
    it also catches the newest entries being removed)."""
    from baccarat.cli.database import ready_database
    from baccarat.server.house import audit
    from baccarat.server.storage.db import connect, read
    from baccarat.server.storage.settings import Settings

    with handle_errors():
        settings = Settings.from_options(data_dir=data_dir, database=database)
        with connect(ready_database(settings, existing=True)) as sessions:
            result = read(sessions, audit.verify)
    broken = result["broken"]
    if broken is not None:  # (exactly when the chain is not ok)
        print(f"audit trail BROKEN at entry {broken['id']}: {broken['problem']}")
        raise typer.Exit(EXIT_BROKEN)
    print(f"audit trail intact: {result['entries']} entries; newest digest {result['head']}")


@audit_app.command("show")
def show(last: Annotated[int, typer.Option(min=1, max=10_000, help="How many of the newest entries.")] = 20,
         database: Database = None, data_dir: DataDir = None) -> None:
    """Print the newest entries: when, who, what, on what, before -> after."""
    from baccarat.cli.database import ready_database
    from baccarat.server.house import audit
    from baccarat.server.storage.db import connect, read
    from baccarat.server.storage.settings import Settings

    with handle_errors():
        settings = Settings.from_options(data_dir=data_dir, database=database)
        with connect(ready_database(settings, existing=True)) as sessions:
            entries = read(sessions, lambda s: audit.trail(s, after_id=0, limit=10**9))[-last:]
    for entry in entries:
        print(f"{entry['id']:>6}  {entry['at']}  {entry['actor']}  {entry['action']}  {entry['target']}  "
              f"{audit.canonical(entry['before'])} -> {audit.canonical(entry['after'])}")
