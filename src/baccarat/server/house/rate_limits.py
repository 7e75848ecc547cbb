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

A client address is counted as the routers give it: an IPv6 client by its /64 network (one subscriber holds it
whole: counting each address of it would give them 2^64 tries), as the connection caps count it.

scrypt takes a whole core for a while per hash (by design); :class:`HashGate` runs at most one hash
per core, on threads of lower OS priority, and refuses a sign-in at once, rather than queueing without
end, when too many are in progress, so a flood of sign-ins cannot take the CPU away from the bets and the
dealer.  A flood from many addresses, each under its own limits, must not keep an owner out: a sign-in for a
known username with no failure from its address in the window (:data:`TRUSTED`, :meth:`LoginLimiter.login` says
so) has places of its own in the gate (:data:`HASH_KEPT`) and its hash runs before the others waiting.  A flood
that also tries the owner's name from fresh addresses takes those places too (each fresh address is trusted once);
so a sign-in from an address the account signed up or signed in from in the last :data:`KNOWN_FOR` seconds
(:data:`KNOWN`: the attackers would need the password to make one) has places of its own beyond them, goes before
every other hash, and skips the username's slowdown.  (With the hashes at
normal priority on every core, parallel attackers still held a bet's write back; the interpreter's own threads
were starved.)  The gate stays per process on purpose: it guards
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
from concurrent.futures import Future
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from queue import PriorityQueue
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Table, delete, func, insert, select
from sqlalchemy.orm import Session, sessionmaker

from baccarat.core.errors import AuthenticationError, RateLimitedError
from baccarat.core.messages import CATALOGUE
from baccarat.server.storage import keyed_locks, metrics
from baccarat.server.storage.db import read, transaction
from baccarat.server.storage.models import Account, Attempt, now

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
#: How long an address an account signed up or signed in from stays known for it (seconds: 30 days).
KNOWN_FOR = 30 * 86_400.0
#: A sign-in's standing in the hashing gate: another (:data:`OTHER`), a known username with no failure from the
#: address in the window (:data:`TRUSTED`), from an address the account signed in or up from (:data:`KNOWN`).
OTHER, TRUSTED, KNOWN = 0, 1, 2
#: Registration attempts allowed per client address in :data:`REGISTRATION_WINDOW` seconds.
ADDRESS_REGISTRATIONS, REGISTRATION_WINDOW = 20, 60.0
#: Password hashes running at once: one per core this process may use (scrypt is pure CPU).
HASH_SLOTS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
#: How much lower the hashing threads' priority is (a nice value, 0 to 19; Linux only).
HASH_NICE = 10
#: Sign-ins (and sign-ups) allowed in progress beyond one per hash slot; one more is refused at
#: once (429).  Eight waiting behind two slots is about a quarter of a second at most.
HASH_QUEUE = 8
#: Places beyond those kept for sign-ins the limiter trusts (a known username, no failure from the address in
#: the window): a flood of others cannot take them, and their hashes go first.
HASH_KEPT = 8
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
    def login(self, name: str, address: str) -> Iterator[int]:
        """Around one login for the canonical username ``name`` from ``address``; gives the attempt's standing
        (:class:`HashGate` keeps places for each): :data:`KNOWN` when the account signed in or up from ``address``
        in the last :data:`KNOWN_FOR`, else :data:`TRUSTED` when ``name`` is an account's and no attempt for it from
        ``address`` failed (or is in progress) in the window, else :data:`OTHER`.

        A wrong password (:class:`~baccarat.core.errors.AuthenticationError`) keeps its place in the
        counts; a right one gives it back and makes ``address`` known for the account; a login refused for
        another reason (the server busy) gives it back.
        """

        def admit(s: Session) -> tuple[int, int]:
            keyed_locks.hold(s, keyed_locks.ADDRESS_ATTEMPTS, address)  # the pair's and the address's counts
            at = self._clock()  # read under the lock: a key's attempts are written in order
            login_from = (_C.kind == "login") & (_C.address == address)
            pair = login_from & (_C.name == name)
            if wait := _wait(s, pair, LOGIN_FAILURES, LOGIN_WINDOW, at):
                raise _refuse(wait, "username")
            if wait := _wait(s, login_from, ADDRESS_FAILURES, LOGIN_WINDOW, at):
                raise _refuse(wait, "address")
            if _known(s, name, address, at):
                standing = KNOWN
            elif (s.scalar(select(_C.id).where(pair, _C.at > at - LOGIN_WINDOW).limit(1)) is None
                  and s.scalar(select(Account.id).where(Account.login == name)) is not None):
                standing = TRUSTED
            else:
                standing = OTHER
            return self._write(s, "login", name, address, at), standing

        attempt, standing = transaction(self._sessions, admit)
        try:
            yield standing
        except AuthenticationError:
            metrics.LOGIN_FAILURES.inc()
            raise
        except BaseException:
            self._give_back(attempt)
            raise
        self._give_back(attempt)
        self.remember(name, address)

    def remember(self, name: str, address: str) -> None:
        """Make ``address`` known for the canonical username ``name`` (it signed in or up from there) for
        :data:`KNOWN_FOR`; a database that fails here only leaves it unknown."""
        at = self._clock()

        def mark(s: Session) -> None:
            s.execute(delete(_ATTEMPTS).where(_C.kind == "known", _C.name == name, _C.address == address))
            s.execute(insert(_ATTEMPTS).values(kind="known", name=name, address=address, at=at))
        try:
            transaction(self._sessions, mark)
        except Exception:
            log.warning("cannot note a sign-in's address as known for its account", exc_info=True)

    def slowdown(self, name: str, address: str) -> float:
        """Seconds to wait before answering a sign-in for the canonical username ``name`` from ``address``: 0 until
        its failures from all addresses in the window reach :data:`USERNAME_BACKSTOP` (:func:`slowdown_for`), and 0
        from an address known for it (the backstop slows a botnet, never the owner at home)."""
        at = self._clock()

        def look(s: Session) -> float:
            if _known(s, name, address, at):
                return 0.0
            failures = s.scalar(select(func.count()).select_from(_ATTEMPTS).where(
                _C.kind == "login", _C.name == name, _C.at > at - LOGIN_WINDOW))
            return slowdown_for(int(failures or 0))
        return read(self._sessions, look)

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
            s.execute(delete(_ATTEMPTS).where(_C.at <= oldest, _C.kind != "known"))
            s.execute(delete(_ATTEMPTS).where(_C.at <= at - KNOWN_FOR, _C.kind == "known"))
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


def _known(s: Session, name: str, address: str, at: float) -> bool:
    """Whether the account ``name`` signed in or up from ``address`` in the last :data:`KNOWN_FOR` seconds."""
    return s.scalar(select(_C.id).where(_C.kind == "known", _C.name == name, _C.address == address,
                                        _C.at > at - KNOWN_FOR).limit(1)) is not None


def _lower_priority() -> None:
    """Run this thread at a lower OS priority (Linux sets it per thread), so that bets, the dealer and
    the event loop always go first and hashing uses only the CPU they leave."""
    if sys.platform == "linux":
        with suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), HASH_NICE)


class HashGate:
    """Password hashes run here, at most ``slots`` at once on threads of their own at a lower OS priority.

    ``admit()`` is held around a whole sign-in or sign-up: at most ``slots + queue`` of them are in
    progress at once, and one more is refused at once (429) before it reads or hashes anything;
    ``admit(TRUSTED)`` (a sign-in :meth:`LoginLimiter.login` trusts) may also take one of ``kept`` places
    the others cannot, and its hash runs before the others' still waiting; ``admit(KNOWN)`` (from an address
    known for the account) one of ``kept`` more that only such sign-ins take, its hash before every other.
    Calling the gate with the work (``gate(lambda: hash_password(p))``) runs it on a hashing thread and waits for
    its result.
    """

    def __init__(self, slots: int | None = None, queue: int | None = None, kept: int | None = None) -> None:
        self.slots = max(1, HASH_SLOTS if slots is None else slots)
        self.queue = HASH_QUEUE if queue is None else queue
        self.kept = HASH_KEPT if kept is None else kept
        self._lock = threading.Lock()
        self._admitted = 0
        self._work: PriorityQueue[tuple[int, int, Future[Any] | None, Callable[[], Any] | None]] = PriorityQueue()
        self._order = itertools.count()
        self._standing: ContextVar[int] = ContextVar("hash_standing", default=OTHER)
        for number in range(self.slots):
            threading.Thread(target=_hash_forever, args=(self._work,), name=f"password-hash-{number}",
                             daemon=True).start()
        weakref.finalize(self, _stop, self._work, self.slots)  # its threads go with the app

    @contextmanager
    def admit(self, standing: int = OTHER) -> Iterator[None]:
        with self._lock:
            if self._admitted >= self.slots + self.queue + self.kept * min(standing, KNOWN):
                busy = RateLimitedError.coded("rate.busy")
                busy.retry_after = 3
                raise busy
            self._admitted += 1
        token = self._standing.set(standing)
        try:
            yield
        finally:
            self._standing.reset(token)
            with self._lock:
                self._admitted -= 1

    def __call__(self, work: Callable[[], T]) -> T:
        future: Future[T] = Future()
        # a known address's sign-in first, then a trusted one, then the others; each kind in the order it came
        self._work.put((KNOWN - min(self._standing.get(), KNOWN), next(self._order), future, work))
        return future.result()


def _hash_forever(work: PriorityQueue[tuple[int, int, Future[Any] | None, Callable[[], Any] | None]]) -> None:
    """A hashing thread: at a lower priority, each piece of work in the queue's order until told to stop."""
    _lower_priority()
    while True:
        _, _, future, job = work.get()
        if future is None or job is None:
            return
        if future.set_running_or_notify_cancel():
            try:
                future.set_result(job())
            except BaseException as error:  # handed to the caller waiting for it
                future.set_exception(error)


def _stop(work: PriorityQueue[Any], threads: int) -> None:
    for _ in range(threads):
        work.put((KNOWN + 1, -1, None, None))  # after everything already waiting
