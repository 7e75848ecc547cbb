"""Limits on signing in and signing up: attempts per username and per client address, and a bound
on how many passwords are hashed at once.

Both live in memory (one server process) and are thread-safe: the HTTP routes run in a thread
pool, so a limit that only counted an attempt once it had finished let 40 parallel wrong passwords
through (all 401, none 429).  Here an attempt is *reserved* under a lock before its password is
hashed, and the reservation is given back only if the attempt turns out not to count (a right
password, or a request refused before any hashing).

scrypt takes a whole core for a while per hash (by design); :class:`HashGate` runs at most one hash
per core, on threads of lower OS priority, and refuses a sign-in at once, rather than queueing without
end, when too many are in progress, so a flood of sign-ins cannot take the CPU away from the bets and the
dealer.  (With the hashes at normal priority on every core, parallel attackers still held a bet's write
back; the interpreter's own threads were starved.)
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from typing import TypeVar

from baccarat.core.errors import AuthenticationError, RateLimitedError
from baccarat.core.messages import CATALOGUE

#: Failed logins allowed per username (its canonical form) in :data:`LOGIN_WINDOW` seconds.
LOGIN_FAILURES, LOGIN_WINDOW = 10, 60.0
#: Failed logins allowed per client address in :data:`LOGIN_WINDOW` seconds, whatever the usernames.
ADDRESS_FAILURES = 30
#: Registration attempts allowed per client address in :data:`REGISTRATION_WINDOW` seconds.
ADDRESS_REGISTRATIONS, REGISTRATION_WINDOW = 20, 60.0
#: Password hashes running at once: one per core this process may use (scrypt is pure CPU).
HASH_SLOTS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
#: How much lower the hashing threads' priority is (a nice value, 0 to 19; Linux only).
HASH_NICE = 10
#: Sign-ins (and sign-ups) allowed in progress beyond one per hash slot; one more is refused at
#: once (429).  Eight waiting behind two slots is about a quarter of a second at most.
HASH_QUEUE = 8
#: Sweep keys whose attempts have all expired after this many new keys (random usernames would
#: otherwise grow the tables without end).
SWEEP_EVERY = 1024
#: The words of the refusal when too many sign-ins are hashing at once (code ``rate.busy``).
BUSY = CATALOGUE["rate.busy"]

T = TypeVar("T")


class Window:
    """Attempts per key in a sliding window of ``seconds`` (not thread-safe: the caller locks)."""

    def __init__(self, limit: int, seconds: float) -> None:
        self.limit, self.seconds = limit, seconds
        self._times: dict[str, deque[float]] = {}
        self._new_keys = 0

    def wait(self, key: str, now: float) -> float:
        """Seconds until ``key`` may try again; 0 when it may now."""
        times = self._times.get(key)
        if times is None:
            return 0.0
        while times and now - times[0] >= self.seconds:
            times.popleft()
        if not times:
            del self._times[key]
            return 0.0
        if len(times) < self.limit:
            return 0.0
        return times[len(times) - self.limit] + self.seconds - now

    def add(self, key: str, now: float) -> None:
        if key not in self._times:
            self._new_keys += 1
            if self._new_keys >= SWEEP_EVERY:
                self._sweep(now)
        self._times.setdefault(key, deque()).append(now)

    def remove(self, key: str, at: float) -> None:
        """Give back the attempt added at ``at`` (a reservation that did not count)."""
        times = self._times.get(key)
        if times is not None and at in times:
            times.remove(at)
            if not times:
                del self._times[key]

    def __len__(self) -> int:
        return len(self._times)

    def _sweep(self, now: float) -> None:
        self._new_keys = 0
        for key in [k for k, times in self._times.items() if not times or now - times[-1] >= self.seconds]:
            del self._times[key]


def _refuse(wait: float, rule: str) -> RateLimitedError:
    """429 for ``rule`` (``username``, ``address`` or ``registrations``), saying how long to wait."""
    return RateLimitedError.coded("rate.limited", seconds=max(1, math.ceil(wait)), rule=rule)


class LoginLimiter:
    """Failed logins per username and per client address, and registrations per client address.

    ``login`` and ``registration`` are context managers around the attempt: they refuse it (429,
    saying how long to wait) when the limit is already reached, counting the attempts still in
    progress, and otherwise reserve a place that the attempt keeps or gives back when it ends.
    """

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._names = Window(LOGIN_FAILURES, LOGIN_WINDOW)
        self._addresses = Window(ADDRESS_FAILURES, LOGIN_WINDOW)
        self._registrations = Window(ADDRESS_REGISTRATIONS, REGISTRATION_WINDOW)

    @contextmanager
    def login(self, name: str, address: str) -> Iterator[None]:
        """Around one login for the canonical username ``name`` from ``address``.

        A wrong password (:class:`~baccarat.core.errors.AuthenticationError`) keeps its place in both
        counts; a right one, or a login refused for another reason (the server busy), gives it back.
        """
        with self._lock:
            now = self._clock()  # read under the lock, so that each key's times are in order
            if wait := self._names.wait(name, now):
                raise _refuse(wait, "username")
            if wait := self._addresses.wait(address, now):
                raise _refuse(wait, "address")
            self._names.add(name, now)
            self._addresses.add(address, now)
        try:
            yield
        except AuthenticationError:
            raise
        except BaseException:
            self._give_back(((self._names, name), (self._addresses, address)), now)
            raise
        self._give_back(((self._names, name), (self._addresses, address)), now)

    @contextmanager
    def registration(self, address: str) -> Iterator[None]:
        """Around one registration from ``address``: every attempt counts (a taken name too, so
        that registering cannot be used to list usernames quickly) except one refused as busy."""
        with self._lock:
            now = self._clock()
            if wait := self._registrations.wait(address, now):
                raise _refuse(wait, "registrations")
            self._registrations.add(address, now)
        try:
            yield
        except RateLimitedError:
            self._give_back(((self._registrations, address),), now)
            raise

    def _give_back(self, places: tuple[tuple[Window, str], ...], at: float) -> None:
        with self._lock:
            for window, key in places:
                window.remove(key, at)


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
