"""Limits on signing in and signing up, counted in the database so that every server process counts
the same attempts, and a bound on how many passwords this process hashes at once.

A failed sign-in counts against its (username, client address) pair and against its address: a pair
that reaches :data:`LOGIN_FAILURES` is refused (429) for the rest of the window, and so is an address
that reaches :data:`ADDRESS_FAILURES` whatever the usernames.  A username is not refused as such: ten
wrong passwords from one address used to lock the account's owner out from everywhere, renewably
(usernames are public at the tables).  Across all addresses, past :data:`USERNAME_BACKSTOP` failures
in the window, every sign-in for the name waits a while before it is answered (:meth:`LoginLimiter.slowdown`,
growing with the failures, at most :data:`SLOW_MOST` seconds): a botnet guessing one password is slowed,
and the owner, from an address of their own, is still let in.

Each attempt is a row of ``attempts`` (:class:`~baccarat.server.storage.models.Attempt`), written before
its password is hashed, in a short transaction that holds the client address's key
(:mod:`baccarat.server.storage.keyed_locks`) while it counts: concurrent attempts, in any process,
cannot both take the last place.  The row is deleted again if the attempt turns out not to count
(a right password, or a request refused before any hashing).  Rows older than the window are pruned.

scrypt takes a whole core for a while per hash (by design); :class:`HashGate` runs at most one hash
per core, on threads of lower OS priority, and refuses a sign-in at once, rather than queueing without
end, when too many are in progress, so a flood of sign-ins cannot take the CPU away from the bets and the
dealer.  (With the hashes at normal priority on every core, parallel attackers still held a bet's write
back; the interpreter's own threads were starved.)  The gate stays per process on purpose: it guards
this machine's cores, which other processes' hashes do not use.
"""

from __future__ import annotations

import itertools
import logging
import math
import os
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Table, delete, func, insert, select
from sqlalchemy.orm import Session, sessionmaker

from baccarat.core.errors import AuthenticationError, RateLimitedError
from baccarat.core.messages import CATALOGUE
from baccarat.server.storage import keyed_locks, metrics
from baccarat.server.storage.db import read, transaction
from baccarat.server.storage.models import Attempt, now

log = logging.getLogger("baccarat.server")

#: Failed logins allowed per (username, client address) pair in :data:`LOGIN_WINDOW` seconds.
LOGIN_FAILURES, LOGIN_WINDOW = 10, 60.0
#: Failed logins allowed per client address in :data:`LOGIN_WINDOW` seconds, whatever the usernames.
ADDRESS_FAILURES = 30
#: Failed logins for one username from all addresses in :data:`LOGIN_WINDOW` seconds after which each
#: sign-in for it waits before its answer (a backstop against many addresses: never a refusal).
USERNAME_BACKSTOP = 50
#: The wait past the backstop: :data:`SLOW_FIRST` seconds, doubled every :data:`SLOW_STEP` failures more,
#: at most :data:`SLOW_MOST` (the owner still gets in within a few seconds).
SLOW_FIRST, SLOW_STEP, SLOW_MOST = 0.5, 10, 4.0
#: Registration attempts allowed per client address in :data:`REGISTRATION_WINDOW` seconds.
ADDRESS_REGISTRATIONS, REGISTRATION_WINDOW = 20, 60.0
#: Password hashes running at once: one per core this process may use (scrypt is pure CPU).
HASH_SLOTS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
#: How much lower the hashing threads' priority is (a nice value, 0 to 19; Linux only).
HASH_NICE = 10
#: Sign-ins (and sign-ups) allowed in progress beyond one per hash slot; one more is refused at
#: once (429).  Eight waiting behind two slots is about a quarter of a second at most.
HASH_QUEUE = 8
#: Attempts older than the windows are deleted after this many new ones in this process (random
#: usernames and addresses would otherwise grow the table without end).
PRUNE_EVERY = 256
#: The words of the refusal when too many sign-ins are hashing at once (code ``rate.busy``).
BUSY = CATALOGUE["rate.busy"]

T = TypeVar("T")

_ATTEMPTS: Table = Attempt.__table__  # type: ignore[assignment]
_C = _ATTEMPTS.c


def wall_seconds() -> float:
    """Seconds since the epoch on the server's clock (:func:`baccarat.server.storage.models.now`), which every
    process on a machine reads alike."""
    return now().timestamp()


def _refuse(wait: float, rule: str) -> RateLimitedError:
    """429 for ``rule`` (``username``, ``address`` or ``registrations``), saying how long to wait."""
    return RateLimitedError.coded("rate.limited", seconds=max(1, math.ceil(wait)), rule=rule)


def _wait(s: Session, where: ColumnElement[bool], limit: int, window: float, at: float) -> float:
    """Seconds until the attempts matching ``where`` number fewer than ``limit`` in the ``window`` before
    a moment; 0 when they already do."""
    recent = s.scalars(select(_C.at).where(where, _C.at > at - window).order_by(_C.at.desc()).limit(limit)).all()
    if len(recent) < limit:
        return 0.0
    return max(0.0, float(min(recent)) + window - at)


def slowdown_for(failures: int) -> float:
    """The wait before answering a sign-in for a username with ``failures`` in the window.

    >>> [slowdown_for(n) for n in (USERNAME_BACKSTOP - 1, USERNAME_BACKSTOP, USERNAME_BACKSTOP + 10, 10**6)]
    [0.0, 0.5, 1.0, 4.0]
    """
    if failures < USERNAME_BACKSTOP:
        return 0.0
    doublings = min((failures - USERNAME_BACKSTOP) // SLOW_STEP, 16)
    return float(min(SLOW_MOST, SLOW_FIRST * 2**doublings))


class LoginLimiter:
    """Failed logins per (username, address) pair and per address, the username's backstop, and
    registrations per address, counted in the database of ``sessions``.

    ``login`` and ``registration`` are context managers around the attempt: they refuse it (429,
    saying how long to wait) when the limit is already reached, counting the attempts still in
    progress in every process, and otherwise reserve a place that the attempt keeps or gives back
    when it ends.  ``clock`` gives seconds since the epoch (tests move it by hand).
    """

    def __init__(self, sessions: sessionmaker[Session], *, clock: Callable[[], float] = wall_seconds) -> None:
        self._sessions = sessions
        self._clock = clock
        self._written = itertools.count(1)

    @contextmanager
    def login(self, name: str, address: str) -> Iterator[None]:
        """Around one login for the canonical username ``name`` from ``address``.

        A wrong password (:class:`~baccarat.core.errors.AuthenticationError`) keeps its place in the
        counts; a right one, or a login refused for another reason (the server busy), gives it back.
        """

        def admit(s: Session) -> int:
            keyed_locks.hold(s, keyed_locks.ADDRESS_ATTEMPTS, address)  # the pair's and the address's counts
            at = self._clock()  # read under the lock: a key's attempts are written in order
            login_from = (_C.kind == "login") & (_C.address == address)
            if wait := _wait(s, login_from & (_C.name == name), LOGIN_FAILURES, LOGIN_WINDOW, at):
                raise _refuse(wait, "username")
            if wait := _wait(s, login_from, ADDRESS_FAILURES, LOGIN_WINDOW, at):
                raise _refuse(wait, "address")
            return self._write(s, "login", name, address, at)

        attempt = transaction(self._sessions, admit)
        try:
            yield
        except AuthenticationError:
            metrics.LOGIN_FAILURES.inc()
            raise
        except BaseException:
            self._give_back(attempt)
            raise
        self._give_back(attempt)

    def slowdown(self, name: str) -> float:
        """Seconds to wait before answering a sign-in for the canonical username ``name``: 0 until its
        failures from all addresses in the window reach :data:`USERNAME_BACKSTOP` (:func:`slowdown_for`)."""
        at = self._clock()
        failures = read(self._sessions, lambda s: s.scalar(
            select(func.count()).select_from(_ATTEMPTS).where(
                _C.kind == "login", _C.name == name, _C.at > at - LOGIN_WINDOW)))
        return slowdown_for(int(failures or 0))

    @contextmanager
    def registration(self, address: str) -> Iterator[None]:
        """Around one registration from ``address``: every attempt counts (a taken name too, so
        that registering cannot be used to list usernames quickly) except one refused as busy."""

        def admit(s: Session) -> int:
            keyed_locks.hold(s, keyed_locks.ADDRESS_ATTEMPTS, address)
            at = self._clock()
            where = (_C.kind == "registration") & (_C.address == address)
            if wait := _wait(s, where, ADDRESS_REGISTRATIONS, REGISTRATION_WINDOW, at):
                raise _refuse(wait, "registrations")
            return self._write(s, "registration", None, address, at)

        attempt = transaction(self._sessions, admit)
        try:
            yield
        except RateLimitedError:
            self._give_back(attempt)
            raise

    def attempts(self) -> int:
        """How many attempts are stored (every process's, pruned or not yet)."""
        return int(read(self._sessions, lambda s: s.scalar(select(func.count()).select_from(_ATTEMPTS))) or 0)

    def _write(self, s: Session, kind: str, name: str | None, address: str, at: float) -> int:
        if next(self._written) % PRUNE_EVERY == 0:
            oldest = at - max(LOGIN_WINDOW, REGISTRATION_WINDOW)
            s.execute(delete(_ATTEMPTS).where(_C.at <= oldest))
        row: Any = s.execute(insert(_ATTEMPTS).values(kind=kind, name=name, address=address, at=at)
                             .returning(_C.id)).scalar_one()
        return int(row)

    def _give_back(self, attempt: int) -> None:
        """Delete the attempt ``attempt`` (it did not count).  If the database fails here the attempt
        keeps counting until it leaves the window: a right password is not refused for that."""
        try:
            transaction(self._sessions, lambda s: s.execute(delete(_ATTEMPTS).where(_C.id == attempt)))
        except Exception:
            log.warning("cannot give back a sign-in attempt; it counts until it leaves the window", exc_info=True)


def _lower_priority() -> None:
    """Run this thread at a lower OS priority (Linux sets it per thread), so that bets, the dealer and
    the event loop always go first and hashing uses only the CPU they leave."""
    if sys.platform == "linux":
        with suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), HASH_NICE)


class HashGate:
    """Password hashes run here, at most ``slots`` at once on threads of their own at a lower OS priority.

    ``admit()`` is held around a whole sign-in or sign-up: at most ``slots + queue`` of them are in
    progress at once, and one more is refused at once (429) before it reads or hashes anything.
    Calling the gate with the work (``gate(lambda: hash_password(p))``) runs it on a hashing thread
    and waits for its result.
    """

    def __init__(self, slots: int | None = None, queue: int | None = None) -> None:
        self.slots = max(1, HASH_SLOTS if slots is None else slots)
        self.queue = HASH_QUEUE if queue is None else queue
        self._lock = threading.Lock()
        self._admitted = 0
        self._pool = ThreadPoolExecutor(self.slots, thread_name_prefix="password-hash", initializer=_lower_priority)
        weakref.finalize(self, self._pool.shutdown, wait=False)  # its threads go with the app

    @contextmanager
    def admit(self) -> Iterator[None]:
        with self._lock:
            if self._admitted >= self.slots + self.queue:
                busy = RateLimitedError.coded("rate.busy")
                busy.retry_after = 3
                raise busy
            self._admitted += 1
        try:
            yield
        finally:
            with self._lock:
                self._admitted -= 1

    def __call__(self, work: Callable[[], T]) -> T:
        return self._pool.submit(work).result()
