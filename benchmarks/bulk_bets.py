"""Bulk bets in-process: N socket bets (one each, on one EZ table) through the group commit's
transactions of 512, placed together (:mod:`baccarat.server.playing.bulk_bets`) and each alone, on fresh databases.

    python benchmarks/bulk_bets.py [--bets 2000] [--database postgresql+psycopg://.../postgres] [--json F]

``--database`` names a PostgreSQL server where a new database may be created (one per run, dropped
after); without it SQLite files in a temporary directory.  No sockets, no event loop: the cost of the
database work alone, per bet.
"""

from __future__ import annotations

import argparse
import json
import secrets
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import create_engine, insert, make_url

from baccarat.server.house import seed_keys
from baccarat.server.live.sockets import SocketCommand, bets_together
from baccarat.server.playing import tables
from baccarat.server.storage import group_commit as batch
from baccarat.server.storage.db import make_engine, session_factory, sqlite_url, transaction
from baccarat.server.storage.migrate import upgrade
from baccarat.server.storage.models import Account, Token, Wallet

NOW = datetime.now(UTC)


@contextmanager
def fresh(server: str | None) -> Iterator[str]:
    """A new empty database: an SQLite file, or a database on the PostgreSQL ``server`` (dropped after)."""
    if server is None:
        yield sqlite_url(Path(tempfile.mkdtemp(prefix="bulk-bets-")))
        return
    name = f"bulk_{uuid.uuid4().hex[:10]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(server).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


def run(url: str, bets: int, together: bool) -> dict[str, float]:
    """Seconds for ``bets`` bets, and how many were confirmed."""
    upgrade(url)
    engine = make_engine(url)
    sessions = session_factory(engine)

    def setup(s):  # type: ignore[no-untyped-def]
        table = tables.create_table(s, "bulk", "ez", betting_seconds=600, now=NOW - timedelta(seconds=1))
        connection = s.connection()
        accounts = Account.__table__
        ids = [connection.execute(insert(accounts).values(username=f"p{i}", login=f"p{i}", password_hash="x",
                                                          role="player").returning(accounts.c.id)).scalar_one()
               for i in range(bets)]
        connection.execute(insert(Wallet.__table__), [{"account_id": i, "balance": 10_000} for i in ids])
        connection.execute(insert(Token.__table__), [{"token_hash": f"{i:064d}", "account_id": i, "created_at": NOW,
                                                      "expires_at": NOW + timedelta(hours=1)} for i in ids])
        return table.id, ids
    try:
        table_id, ids = transaction(sessions, setup)
        commands = [SocketCommand(table_id, a, f"{a:064d}", {"type": "bet", "key": f"key-{a:08d}",
                                                             "bets": {"banker": 100}}, NOW) for a in ids]
        batcher = batch.Batcher(sessions, bulk=bets_together if together else None)
        started = time.perf_counter()
        confirmed = 0
        for start in range(0, bets, batch.MOST):
            confirmed += sum(ok for ok, _ in batcher._commit(commands[start:start + batch.MOST]))
        return {"seconds": time.perf_counter() - started, "confirmed": confirmed}
    finally:
        engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bets", type=int, default=2000)
    parser.add_argument("--database", help="a PostgreSQL server URL (default: SQLite)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    seed_keys.use(secrets.token_bytes(32))  # this run's seed key: a new shoe's seed is stored sealed
    results = {}
    for name, together in (("together", True), ("alone", False)):
        with fresh(args.database) as url:
            figures = run(url, args.bets, together)
        figures["ms_per_bet"] = figures["seconds"] * 1000 / args.bets
        results[name] = figures
        print(f"{name}: {figures['confirmed']:.0f} of {args.bets} confirmed in {figures['seconds']:.2f} s, "
              f"{figures['ms_per_bet']:.2f} ms a bet, {args.bets / figures['seconds']:.0f} bets/s")
    if args.json:
        args.json.write_text(json.dumps({"database": "postgresql" if args.database else "sqlite",
                                         "bets": args.bets, **results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
