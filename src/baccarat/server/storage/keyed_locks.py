"""Transaction-scoped locks on a key, so that a check and the write that follows it (a limit's count and
the attempt it admits) are one step for every server process on the database.

On PostgreSQL a transaction-level advisory lock on ``(space, hashtext(key))``: it is released when the
transaction ends, whether it commits or not, and two keys that share a hash only wait for each other.
On SQLite every writing transaction begins ``IMMEDIATE`` (:mod:`baccarat.server.storage.db`), which
already holds the whole database's one write lock, across processes too: nothing more is needed.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.orm import Session

from baccarat.server.storage.db import on_postgresql

#: Lock spaces (two-integer advisory locks never meet the dealer's one-integer lock).
ADDRESS_ATTEMPTS = 0x62610001  #: sign-ins and sign-ups from one client address
ACCOUNT_SOCKETS = 0x62610002  #: one account's table sockets

_LOCK = text("SELECT pg_advisory_xact_lock(:space, hashtext(:key))")


def hold(s: Session, space: int, key: str) -> None:
    """Hold ``key`` in ``space`` until ``s``'s transaction ends: another transaction holding it waits."""
    if on_postgresql(s.get_bind()):
        s.connection().execute(_LOCK, {"space": space, "key": key})
