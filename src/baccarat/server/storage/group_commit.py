"""Group commit for the table sockets' commands: the bets of a burst share one transaction.

Bets cluster in the last seconds of a betting window, thousands of them at a big table.  One
transaction each means one durable commit (an fsync) each, and the commits, not the checks, set
the pace.  Here the commands that arrive while a transaction is being committed wait together
(plus :data:`WINDOW` seconds to gather), and the next transaction runs them all, each in a
savepoint of its own:

* each command is checked exactly as alone (rules, limits, wallet, idempotency key, the round still
  open) and gets its own answer: a refused command rolls back to its savepoint, leaving nothing of
  it, and the others go on;
* nothing is confirmed before the shared commit: if it fails, every command of the batch gets the
  failure, and none of them happened (no half-written state); a lost race (a deadlock, a
  concurrent duplicate) retries the whole batch, each command then finding what the others did.

A command is a function of the session, as for :func:`~baccarat.server.storage.db.transaction`.  Given a
``bulk`` function, the batch is handed to it whole: the table sockets' bets are then placed together in
a few statements for the batch, with the same outcomes (:mod:`baccarat.server.playing.bulk_bets`).
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from baccarat.server.storage.db import retryable, transaction

#: Seconds a batch waits for more commands once the first has arrived (the commit in progress adds to it).
WINDOW = 0.002
#: The most commands in one transaction.
MOST = 512

Command = Callable[[Session], Any]
#: (True, answer) or (False, the refusal raised)
Outcome = tuple[bool, Any]
#: Runs a whole batch in the shared transaction, one outcome per command in order (e.g. the socket bets placed
#: together by :func:`baccarat.server.playing.bulk_bets.run_batch`); without one each command runs alone
#: (:func:`run_one`).
Bulk = Callable[[Session, list[Command]], list[Outcome]]


def run_one(s: Session, command: Command) -> Outcome:
    """The command in a savepoint of its own: its answer, or its refusal with nothing of it left.
    A lost race is raised: the whole batch runs again, the command then finding the winner's row."""
    try:
        with s.begin_nested():
            return True, command(s)
    except DBAPIError as error:
        if retryable(error):
            raise
        return False, error
    except Exception as error:  # this command's refusal: its savepoint is rolled back
        return False, error


class Batcher:
    """Runs commands in shared transactions, one transaction at a time, in the order they came."""

    def __init__(self, sessions: sessionmaker[Session], *, window: float = WINDOW, most: int = MOST,
                 bulk: Bulk | None = None) -> None:
        self.sessions, self.window, self.most, self.bulk = sessions, window, most, bulk
        self.pending: list[tuple[Command, asyncio.Future[Any]]] = []
        self.flusher: asyncio.Task[None] | None = None
        self.batches = 0  #: transactions committed (the tests and the benchmark read them)
        #: (table id, when it arrived) of each command not yet committed (see :meth:`waiting_before`)
        self.arrivals: Counter[tuple[int, datetime]] = Counter()
        self.counting = threading.Lock()  #: the dealer reads the arrivals from its thread

    async def run(self, command: Command, *, table: int | None = None, received: datetime | None = None) -> Any:
        """The command's answer once its transaction has committed (or its own refusal, raised).
        A command for ``table`` that arrived at ``received`` is counted by :meth:`waiting_before` until then."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending.append((command, future))
        arrival = None if table is None or received is None else (table, received)
        if arrival is not None:
            with self.counting:
                self.arrivals[arrival] += 1
        if self.flusher is None or self.flusher.done():
            self.flusher = asyncio.create_task(self._flush())
        try:
            return await future
        finally:
            if arrival is not None:
                with self.counting:
                    self.arrivals[arrival] -= 1
                    if self.arrivals[arrival] <= 0:
                        del self.arrivals[arrival]

    async def drain(self, within: float) -> bool:
        """Wait (at most ``within`` seconds) until every command handed to :meth:`run` so far has its outcome:
        the batch being committed and those queued behind it (a stopping process commits what it was given
        before it lets its database go).  True if nothing is left."""
        flusher = self.flusher
        if flusher is not None and not flusher.done():
            await asyncio.wait({flusher}, timeout=within)
        return not self.pending and (self.flusher is None or self.flusher.done())

    def waiting_before(self, table: int, moment: datetime) -> bool:
        """Whether a command for ``table`` that arrived before ``moment`` is still waiting for its commit
        (the dealer waits for the bets that arrived before the close; called from its thread)."""
        with self.counting:
            return any(table == arrived_for and at < moment for arrived_for, at in self.arrivals)

    async def _flush(self) -> None:
        while self.pending:
            await asyncio.sleep(self.window)
            batch, self.pending = self.pending[:self.most], self.pending[self.most:]
            try:
                outcomes = await asyncio.to_thread(self._commit, [command for command, _ in batch])
            except BaseException as error:  # the shared commit failed: nothing of the batch happened
                for _, future in batch:
                    if not future.done():
                        future.set_exception(error)
                if isinstance(error, asyncio.CancelledError):
                    raise
                continue
            self.batches += 1
            for (_, future), (ok, value) in zip(batch, outcomes, strict=True):
                if future.done():  # its socket went away meanwhile
                    continue
                if ok:
                    future.set_result(value)
                else:
                    future.set_exception(value)

    def _commit(self, commands: list[Command]) -> list[Outcome]:
        def work(s: Session) -> list[Outcome]:
            if self.bulk is not None:
                return self.bulk(s, commands)
            return [run_one(s, command) for command in commands]
        return transaction(self.sessions, work)
