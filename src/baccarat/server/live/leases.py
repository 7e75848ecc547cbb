"""Open table sockets counted in the database, so that the cap on sockets per account holds for the
service, not for each process: with two ``baccarat serve`` processes counting their own, one account
held twice the documented number.

Each open socket is a row of ``socket_leases`` (:class:`~baccarat.server.storage.models.SocketLease`),
taken when it opens, in a short transaction that holds the account's key
(:mod:`baccarat.server.storage.keyed_locks`) while it counts the account's live leases, so that two
sockets opening at once in two processes cannot both take the last place; the row is deleted when the
socket closes.  The process that serves a socket renews its lease every :data:`HEARTBEAT` seconds
(:func:`renew_forever`); a lease not renewed for :data:`TIMEOUT` seconds belongs to a process that died
(killed, or cut off from the database) and no longer counts, so a crash does not lock an account out
for longer than that.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import threading
from collections.abc import Callable

from sqlalchemy import Table, delete, func, insert, select, update
from sqlalchemy.orm import Session, sessionmaker

from baccarat.server.storage import faults, keyed_locks
from baccarat.server.storage.db import among, on_postgresql, read, transaction
from baccarat.server.storage.models import SocketLease, now

log = logging.getLogger("baccarat.server")

#: Seconds between renewals of this process's leases.
HEARTBEAT = 5.0
#: Seconds after its last renewal that a lease stops counting (its process is taken for dead).
TIMEOUT = 30.0

_LEASES: Table = SocketLease.__table__  # type: ignore[assignment]
_C = _LEASES.c


def wall_seconds() -> float:
    """Seconds since the epoch on the server's clock, which every process on a machine reads alike."""
    return now().timestamp()


class Leases:
    """This process's table-socket leases on the database of ``sessions``.

    ``process`` names the process in its rows (a random one by default: a process id can come again);
    ``clock`` gives seconds since the epoch (tests move it by hand).
    """

    def __init__(self, sessions: sessionmaker[Session], *, process: str | None = None,
                 clock: Callable[[], float] = wall_seconds, timeout: float = TIMEOUT) -> None:
        self.sessions, self.process, self.timeout = sessions, process or secrets.token_hex(8), timeout
        self._clock = clock
        self._held: set[int] = set()
        self._lock = threading.Lock()

    def take(self, account_id: int, table_id: int, *, most: int) -> int | None:
        """A lease for a socket of ``account_id`` at ``table_id``, or None when the account already holds
        ``most`` live leases (in any process)."""

        def lease(s: Session) -> int | None:
            keyed_locks.hold(s, keyed_locks.ACCOUNT_SOCKETS, str(account_id))
            at = self._clock()
            mine = _C.account_id == account_id
            s.execute(delete(_LEASES).where(mine, _C.heartbeat <= at - self.timeout))  # a dead process's
            if (s.scalar(select(func.count()).select_from(_LEASES).where(mine)) or 0) >= most:
                return None
            row = s.execute(insert(_LEASES).values(account_id=account_id, process=self.process, table_id=table_id,
                                                   opened=at, heartbeat=at).returning(_C.id)).scalar_one()
            return int(row)

        taken = transaction(self.sessions, lease)
        if taken is not None:
            with self._lock:
                self._held.add(taken)
        return taken

    def give_back(self, lease: int) -> None:
        """The socket of ``lease`` closed.  If the database fails here the lease is no longer renewed,
        and stops counting after :data:`TIMEOUT` seconds."""
        with self._lock:
            self._held.discard(lease)
        try:
            transaction(self.sessions, lambda s: s.execute(delete(_LEASES).where(_C.id == lease)))
        except Exception as error:
            _report(error, "cannot give back a closed socket's lease; it stops counting when it is not renewed")

    def renew(self) -> int:
        """Renew every lease this process holds; returns how many."""
        with self._lock:
            held = sorted(self._held)
        if not held:
            return 0

        def renew(s: Session) -> int:
            where = among(_C.id, "ids", on_postgresql(s.get_bind()))
            done = s.execute(update(_LEASES).where(where).values(heartbeat=self._clock()), {"ids": held})
            return int(getattr(done, "rowcount", 0) or 0)

        return transaction(self.sessions, renew)

    def forget_others(self) -> int:
        """Delete every lease but this process's: at the start of the one process a SQLite database has,
        the leases there are a stopped or crashed process's, and need not wait for :data:`TIMEOUT`."""
        with self._lock:
            held = sorted(self._held)

        def forget(s: Session) -> int:
            done = s.execute(delete(_LEASES).where(~_C.id.in_(held)) if held else delete(_LEASES))
            return int(getattr(done, "rowcount", 0) or 0)

        return transaction(self.sessions, forget)

    def live(self, account_id: int) -> int:
        """How many live leases ``account_id`` holds, in every process."""
        at = self._clock()
        return int(read(self.sessions, lambda s: s.scalar(select(func.count()).select_from(_LEASES).where(
            _C.account_id == account_id, _C.heartbeat > at - self.timeout))) or 0)


def _report(error: Exception, consequence: str) -> None:
    problem = faults.storage_problem(error)
    if problem is None:
        log.exception(consequence)
    else:
        log.warning("%s (%s)", consequence, problem)


async def renew_forever(leases: Leases, every: float = HEARTBEAT) -> None:
    """Renew ``leases`` every ``every`` seconds for as long as the process serves."""
    while True:
        await asyncio.sleep(every)
        try:
            await asyncio.to_thread(leases.renew)
        except Exception as error:  # the database is away: the next renewal tries again
            _report(error, "cannot renew this process's table-socket leases")
