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
import functools
import logging
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import Future

from sqlalchemy import Table, delete, func, insert, select, update
from sqlalchemy.orm import Session, sessionmaker

from baccarat.server.storage import clock, faults, keyed_locks
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


#: A change to the leases: ("take", account id, table id, most) or ("give_back", lease id, 0, 0).
_Change = tuple[str, int, int, int]


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
        self._pending: list[tuple[_Change, Future[int | None]]] = []
        self._committing = False

    def take(self, account_id: int, table_id: int, *, most: int) -> int | None:
        """A lease for a socket of ``account_id`` at ``table_id``, or None when the account already holds
        ``most`` live leases (in any process)."""
        taken = self._together(("take", account_id, table_id, most))
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
            self._together(("give_back", lease, 0, 0))
        except Exception as error:
            _report(error, "cannot give back a closed socket's lease; it stops counting when it is not renewed")

    def _together(self, change: _Change) -> int | None:
        """Run ``change`` in a transaction with the others asked for meanwhile (a group commit): a
        reconnection storm of thousands of sockets would otherwise wait for a durable commit each, one
        at a time on SQLite.  The first caller with nothing running commits for everyone waiting."""
        asked: Future[int | None] = Future()
        with self._lock:
            self._pending.append((change, asked))
            leading = not self._committing
            self._committing = True
        if leading:
            self._commit_pending()
        return asked.result()

    def _commit_pending(self) -> None:
        while True:
            with self._lock:
                batch, self._pending = self._pending, []
                if not batch:
                    self._committing = False
                    return
            try:
                results = transaction(self.sessions, functools.partial(self._apply, changes=[c for c, _ in batch]))
            except BaseException as error:  # each caller hears of it
                for _, asked in batch:
                    asked.set_exception(error)
            else:
                for (_, asked), result in zip(batch, results, strict=True):
                    asked.set_result(result)

    def _apply(self, s: Session, changes: list[_Change]) -> list[int | None]:
        # the accounts' keys in one order, so that two processes' batches never wait for each other in a circle
        for account_id in sorted({account for kind, account, _, _ in changes if kind == "take"}):
            keyed_locks.hold(s, keyed_locks.ACCOUNT_SOCKETS, str(account_id))
        at = self._clock()
        results: list[int | None] = []
        for kind, key, table_id, most in changes:
            if kind == "give_back":
                s.execute(delete(_LEASES).where(_C.id == key))
                results.append(None)
                continue
            mine = _C.account_id == key
            s.execute(delete(_LEASES).where(mine, _C.heartbeat <= at - self.timeout))  # a dead process's
            if (s.scalar(select(func.count()).select_from(_LEASES).where(mine)) or 0) >= most:
                results.append(None)
                continue
            row = s.execute(insert(_LEASES).values(account_id=key, process=self.process, table_id=table_id,
                                                   opened=at, heartbeat=at).returning(_C.id)).scalar_one()
            results.append(int(row))
        return results

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

    def alive_since(self) -> float:
        """The oldest heartbeat (seconds since the epoch) of a lease that still counts."""
        return self._clock() - self.timeout

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
        await clock.sleep(every)
        try:
            await asyncio.to_thread(leases.renew)
        except Exception as error:  # the database is away: the next renewal tries again
            _report(error, "cannot renew this process's table-socket leases")
