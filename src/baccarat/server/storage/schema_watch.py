"""Readiness enforced: a process whose database is not at the schema this code was built for takes no write.

A process migrates its database when it starts (:func:`baccarat.server.storage.migrate.upgrade`); but the schema
can change under a running process (``baccarat migrate up`` or ``down`` run by an operator, a newer version
started beside it).  ``/ready`` said 503 ``ready.migrations`` and the process went on taking bets on a schema it
was not built for.  Now every write asks :meth:`SchemaWatch.check` first: an HTTP request that may write (any
method but GET, HEAD and OPTIONS), a table socket's command, and each pass of the dealer.  The database is read
at most once every :data:`CHECK_SECONDS` (one small read: the Alembic version table), so a change is enforced
within that time; the change, and the return to the right schema, are each said once in the log.
"""

from __future__ import annotations

import asyncio
import logging
import threading

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from baccarat.core.errors import UnavailableError
from baccarat.server.storage import clock, metrics
from baccarat.server.storage.db import read
from baccarat.server.storage.migrate import code_heads, database_heads

log = logging.getLogger("baccarat.server")

#: Seconds between two reads of the database's schema revisions by one process.
CHECK_SECONDS = 1.0


class NotReadyError(UnavailableError):
    """The database's schema is not the one this process was built for: nothing is written until it is."""

    family = "server.upgrading"


class SchemaWatch:
    """Whether the database at ``sessions`` is at this code's schema, read again once ``every`` seconds passed."""

    def __init__(self, sessions: sessionmaker[Session], *, every: float = CHECK_SECONDS) -> None:
        self.sessions, self.every = sessions, every
        self._lock = threading.Lock()
        self._checked: float | None = None
        self._database: frozenset[str] = code_heads()
        metrics.SCHEMA_CURRENT.set(1)

    @property
    def matches(self) -> bool:
        """Whether the schema read last is this code's (no read)."""
        return self._database == code_heads()

    def current(self) -> bool:
        """Whether the database is at this code's schema, read again if the last read is ``every`` seconds old.  A
        database that does not answer keeps the last answer (the write itself then meets the fault)."""
        now = clock.monotonic()
        with self._lock:
            if self._checked is not None and now - self._checked < self.every:
                return self.matches
            self._checked = now
            before = self.matches
            try:
                self._database = read(self.sessions, lambda s: database_heads(s.connection()))
            except SQLAlchemyError:
                return before
            metrics.SCHEMA_CURRENT.set(1 if self.matches else 0)
            if before and not self.matches:
                log.error("the database's schema is at %s, this server's at %s: no bet, deal or other change is "
                          "taken until it is this server's again (ready.migrations)", sorted(self._database),
                          sorted(code_heads()))
            elif self.matches and not before:
                log.warning("the database's schema is this server's again (%s): writes are taken",
                            sorted(self._database))
            return self.matches

    def due(self) -> bool:
        """Whether the next :meth:`current` reads the database (else it answers at once, from the last read)."""
        return self._checked is None or clock.monotonic() - self._checked >= self.every

    async def check_soon(self) -> None:
        """:meth:`check` for the event loop: the read, when one is due, on a thread."""
        if self.due():
            await asyncio.to_thread(self.check)
        elif not self.matches:
            raise NotReadyError.coded("server.upgrading")

    def check(self) -> None:
        """Refuse a write (:class:`NotReadyError`, ``server.upgrading``) while the schema is not this code's."""
        if not self.current():
            raise NotReadyError.coded("server.upgrading")
