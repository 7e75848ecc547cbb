"""``baccarat ledger check``: the books, for a schedule (``deploy/systemd/baccarat-checks.service``) and an alert
(``deploy/prometheus/baccarat-alerts.yml``): every movement's postings sum to zero, all of them together sum to
zero, and every wallet's stored balance is the sum of its postings (:func:`baccarat.server.house.wallet.check_ledger`,
which the tests also ask after every run)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from baccarat.cli.common import app, handle_errors

ledger_app = typer.Typer(help="The ledger of play money: checked.", no_args_is_help=True)
app.add_typer(ledger_app, name="ledger")

#: Exit code when the books do not balance (as ``verify`` on a mismatch).
EXIT_DRIFT = 3

Database = Annotated[str | None, typer.Option(help="SQLAlchemy URL (default: SQLite in the data directory).")]
DataDir = Annotated[Path | None, typer.Option(help="Data directory.")]


@ledger_app.command("check")
def check(database: Database = None, data_dir: DataDir = None) -> None:
    """Check the books in one consistent read: exit 0 saying how many movements and wallets were checked, or 3
    naming what is off (the sum of all postings, the movements that do not sum to zero, the wallets whose balance
    is not their postings' sum: any of these is money made or lost, for the audit trail to explain)."""
    from sqlalchemy import func, select

    from baccarat.cli.database import database_problems, existing_database
    from baccarat.server.house import wallet
    from baccarat.server.storage.db import connect, read
    from baccarat.server.storage.models import LedgerTransaction, Wallet
    from baccarat.server.storage.settings import Settings

    with handle_errors():
        settings = Settings.from_options(data_dir=data_dir, database=database)
        url = existing_database(settings)
        with database_problems(settings), connect(url) as sessions:
            drift, movements, wallets = read(sessions, lambda s: (
                wallet.check_ledger(s), s.scalar(select(func.count()).select_from(LedgerTransaction)),
                s.scalar(select(func.count()).select_from(Wallet))))
    off = [words for words, amiss in (
        (f"all postings sum to {drift['total']}, not 0", drift["total"]),
        (f"{drift['unbalanced']} movements do not sum to 0", drift["unbalanced"]),
        (f"the wallets differ from their postings by {drift['wallets']} minor units in all", drift["wallets"]))
        if amiss]
    if off:
        print(f"ledger DRIFT: {'; '.join(off)}")
        raise typer.Exit(EXIT_DRIFT)
    print(f"ledger balanced: {movements} movements each summing to 0, {wallets} wallets each equal to its postings")
