"""``baccarat void-round``: void a round in play that cannot be dealt, refunding every stake."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from baccarat.cli.common import app, handle_errors
from baccarat.core.money import format_amount


def _actor() -> str:
    """Who ran the command, for the audit trail: the operating system's user on this host."""
    import getpass
    import socket

    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        user = f"uid {os.getuid()}" if hasattr(os, "getuid") else "unknown"
    return f"command line: {user}@{socket.gethostname()}"[:64]


@app.command("void-round")
def void_round(
    table: Annotated[int, typer.Argument(min=1, max=2**31 - 1, help="The table's id (GET /api/tables).")],
    round_number: Annotated[int, typer.Argument(metavar="ROUND", min=1, max=2**31 - 1,
                                                help="The round's number at that table.")],
    reason: Annotated[str, typer.Option(help="Why the round is voided; kept with the round and shown to "
                                             "its players.")],
    database: Annotated[str | None, typer.Option(help="SQLAlchemy URL (default: SQLite in the data directory).")]
    = None,
    data_dir: Annotated[Path | None, typer.Option(help="Data directory.")] = None,
) -> None:
    """Void a round in play: every stake not yet settled goes back to its player through the ledger,
    and the table opens its next round.  A running server picks the change up on its next pass."""
    from baccarat.cli.database import open_seeds, ready_database, sign_audit_entries
    from baccarat.server.operator import actions as operations
    from baccarat.server.storage.db import connect, transaction
    from baccarat.server.storage.settings import Settings

    with handle_errors():
        settings = Settings.from_options(data_dir=data_dir, database=database)
        with connect(ready_database(settings, existing=True)) as sessions:
            sign_audit_entries(sessions, settings)
            open_seeds(sessions, settings)
            result = transaction(sessions, lambda s: operations.void_round(s, _actor(), table, round_number,
                                                                           reason=reason))
    print(f"round {round_number} at table {table} voided: {result['bets_refunded']} bets, "
          f"{format_amount(result['refunded'])} refunded")
