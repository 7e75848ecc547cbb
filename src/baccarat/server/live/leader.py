"""Which server process deals: exactly one at a time, however many serve one database.

On PostgreSQL the dealer is the process holding a session-level advisory lock
(:data:`LOCK_KEY`) on a connection of its own.  The others try to take it every
:data:`TRY_EVERY` seconds; a leader whose process dies (even SIGKILL) loses its connection and so
the lock at once, and another process deals within about half a second.  The leader checks its
connection every :data:`TRY_EVERY` seconds too and stops dealing as soon as it is lost (a network
break): if for that moment two processes deal, nothing is dealt twice, because dealing a round
holds its table's and round's rows ``FOR UPDATE`` and checks its status again under the lock
(:func:`baccarat.server.playing.dealing.deal_round`), and a transaction cut off mid-way is rolled back by
PostgreSQL, so the next leader deals that round from the start, with the same cards.

The lock connection names its process (``application_name = 'baccarat dealer pid=N'``), so
``pg_stat_activity`` shows which process deals.

SQLite is served by one process (``baccarat serve --workers`` above 1 is refused there): that
process always deals.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import Any

from sqlalchemy import Engine, text

from baccarat.server.storage import clock, logs
from baccarat.server.storage.db import on_postgresql

log = logging.getLogger("baccarat.dealer")

#: The advisory lock that makes its holder the dealer ("bacc" as a number; locks are per database).
LOCK_KEY = 0x62616363
#: Seconds between a follower's tries at the lock, and between the leader's checks that it still holds it.
TRY_EVERY = 0.25


class Leadership:
    """The dealer's lock for this process: :meth:`try_take` and :meth:`still_held` block (run them in a thread)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.connection: Any = None
        self.leading = False

    @property
    def shared(self) -> bool:
        """Several processes may serve this database (PostgreSQL)."""
        return on_postgresql(self.engine)

    def try_take(self) -> bool:
        """Take the lock if no other process holds it; True if this process now deals."""
        if not self.shared:
            self.leading = True
            return True
        try:
            if self.connection is None:
                self.connection = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
                self.connection.execute(text("SELECT set_config('application_name', :name, false)"),
                                        {"name": f"baccarat dealer pid={os.getpid()}"})
            self.leading = bool(self.connection.execute(text("SELECT pg_try_advisory_lock(:key)"),
                                                        {"key": LOCK_KEY}).scalar())
        except Exception:  # the database is away: not the dealer; try again later on a new connection
            self.drop()
            raise
        return self.leading

    def still_held(self) -> bool:
        """Whether the lock's connection still stands (a lost connection has lost the lock)."""
        if not self.shared:
            return True
        try:
            self.connection.execute(text("SELECT 1"))
            return True
        except Exception:
            self.drop()
            return False

    def drop(self) -> None:
        """Give the lock up: unlocked, then its connection is invalidated, so that its PostgreSQL session ends
        (closed, a connection of the pool would only go back to the pool, its session alive).  The unlock makes
        it free at once: the session's end releases it too, but a moment later, once PostgreSQL has seen the
        connection go."""
        if self.connection is not None and self.leading:
            with suppress(Exception):  # a lost connection: its session's end releases the lock
                self.connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": LOCK_KEY})
        self.leading = False
        if self.connection is not None:
            with suppress(Exception):
                self.connection.invalidate()
            with suppress(Exception):
                self.connection.close()
            self.connection = None


#: Which connection holds the dealer's lock: PostgreSQL lists a bigint advisory key as its high and low 32 bits
#: (``classid``, ``objid``) with ``objsubid`` 1; the holder's ``application_name`` names its process.
_HOLDER = text("""SELECT a.application_name FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
                  WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
                    AND l.classid::bigint = :high AND l.objid::bigint = :low
                    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())""")


def dealer_process(connection: Any) -> int | None:
    """PostgreSQL: the operating system's id of the server process that holds the dealer's lock on this
    database, whichever process of the service it is; 0 when it is held but PostgreSQL does not show by whom
    (a role that may not read the holder's ``application_name``); None when no process holds it."""
    rows = connection.execute(_HOLDER, {"high": LOCK_KEY >> 32, "low": LOCK_KEY & 0xFFFFFFFF}).all()
    if not rows:
        return None
    name = rows[0][0] or ""
    _, _, pid = name.partition("pid=")
    return int(pid) if name.startswith("baccarat dealer") and pid.isdigit() else 0


async def deal_while_leading(leadership: Leadership, deal_forever: Callable[[], Awaitable[None]],
                             every: float = TRY_EVERY) -> None:
    """Run ``deal_forever`` while this process holds the dealer's lock: try to take it every
    ``every`` seconds, and stop dealing the moment it is lost.  Cancel to stop (the lock is given up)."""
    dealing: asyncio.Task[None] | None = None
    # the failed tries said once every 10 s while they last (173 lines in 22 s of an outage, from two processes)
    tries_failed = logs.Throttled(log, clock=clock.monotonic)
    try:
        while True:
            if dealing is None:
                try:
                    taken = await asyncio.to_thread(leadership.try_take)
                except Exception as error:
                    tries_failed.warning(type(error).__name__, "cannot try for the dealer's lock (%s: %s)",
                                         type(error).__name__, error)
                    taken = False
                if taken:
                    if leadership.shared:
                        log.warning("process %d deals (it holds the dealer's lock)", os.getpid())
                    dealing = clock.spawn(deal_forever())  # type: ignore[arg-type]
            elif dealing.done() or not await asyncio.to_thread(leadership.still_held):
                log.error("process %d lost the dealer's lock: it stops dealing", os.getpid())
                dealing.cancel()
                with suppress(asyncio.CancelledError, Exception):
                    await dealing
                dealing = None
                await asyncio.to_thread(leadership.drop)
            await clock.sleep(every)
    finally:
        if dealing is not None:
            dealing.cancel()
            with suppress(asyncio.CancelledError, Exception):
                await dealing
        await asyncio.to_thread(leadership.drop)
