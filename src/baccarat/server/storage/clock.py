"""The server's time: UTC wall-clock time that never steps, and the sleeps of its loops.

Round deadlines and token lifetimes are stored as UTC datetimes, so the server needs wall-clock
time; but the operating system's wall clock can jump (an NTP step, an operator's ``date -s``).
When it jumped 13 hours forward and back, every table kept rounds closing 13 hours ahead, with
bets in escrow and no deal, and every player was logged out.  This clock reads the wall clock
once, when the process starts, and moves it on by the *monotonic* clock, which never steps (NTP
only slews it, at most 0.05 %).  A step therefore reaches the server only at its next start,
where :func:`baccarat.server.playing.dealing.repair_deadlines` pulls stored deadlines that lie too far
ahead back within one window.

Time is a dependency, the loops' included: the dealer's, the table feeds' polls and resyncs, the lease
renewals, the dealer's election and the audit heads' signing wait with :func:`sleep` and :func:`wait`, are
started with :func:`spawn`, and read durations with :func:`monotonic`, never with ``asyncio`` or ``time``
directly.  The process's own time is :class:`RealTime`; a test installs a :class:`ManualTime` with
:func:`use` and moves it with ``advance(seconds)``, which runs what is due, in order.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Protocol, TypeVar

T = TypeVar("T")


class SteadyClock:
    """Wall-clock time anchored once and advanced by a monotonic clock.

    >>> ticks = iter([0.0, 2.5])
    >>> clock = SteadyClock(wall=lambda: datetime(2026, 1, 1, tzinfo=UTC), monotonic=lambda: next(ticks))
    >>> clock.now().isoformat()
    '2026-01-01T00:00:02.500000+00:00'
    """

    def __init__(self, *, wall: Callable[[], datetime] = lambda: datetime.now(UTC),
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._anchor_wall, self._anchor_monotonic = wall(), monotonic()

    def now(self) -> datetime:
        """The current UTC time, steady since the anchor."""
        return self._anchor_wall + timedelta(seconds=self._monotonic() - self._anchor_monotonic)


class ManualClock:
    """A clock that stands still until moved: tests inject it with :func:`use` (a limit increase
    that waits 24 hours is checked without waiting 24 hours).

    >>> clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    >>> clock.advance(hours=25).isoformat()
    '2026-01-02T01:00:00+00:00'
    """

    def __init__(self, start: datetime) -> None:
        self.moment = start

    def now(self) -> datetime:
        return self.moment

    def advance(self, **delta: float) -> datetime:
        """Move on by ``timedelta(**delta)``; returns the new time."""
        self.moment += timedelta(**delta)
        return self.moment


class Clock(Protocol):
    def now(self) -> datetime: ...


class Scheduler(Protocol):
    """What the server's loops wait with."""

    def monotonic(self) -> float: ...

    def spawn(self, work: Coroutine[object, object, T]) -> asyncio.Task[T]: ...

    async def sleep(self, seconds: float) -> None: ...

    async def wait(self, event: asyncio.Event, timeout: float) -> bool: ...


class RealTime:
    """The process's own time: its monotonic clock and asyncio's sleeps."""

    def monotonic(self) -> float:
        return time.monotonic()

    def spawn(self, work: Coroutine[object, object, T]) -> asyncio.Task[T]:
        return asyncio.create_task(work)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    async def wait(self, event: asyncio.Event, timeout: float) -> bool:
        """Whether ``event`` was set within ``timeout`` seconds."""
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except TimeoutError:
            return False
        return True


@dataclass(order=True)
class _Sleeper:
    due: float
    order: int
    future: asyncio.Future[None] = field(compare=False)
    loop: asyncio.AbstractEventLoop = field(compare=False)
    task: asyncio.Task[object] | None = field(compare=False)


class ManualTime:
    """Time that stands still until a test moves it: the wall clock (:meth:`now`), the monotonic clock and
    every sleep of the server's loops (install it with :func:`use`).

    :meth:`advance` moves time to each sleeper's moment in turn (ties in the order they fell asleep), wakes
    it, and waits until every task that ever slept here is asleep again, waiting for an event, or done,
    before it moves on: what is due runs, in order, and the test reads its effects when ``advance`` returns.
    A task woken by something else (a bet's notification) is waited for the same way.

    >>> held = ManualTime(datetime(2026, 1, 1, tzinfo=UTC))
    >>> woke, started = [], threading.Event()
    >>> async def loop():
    ...     for _ in range(3):
    ...         await held.sleep(1.0)
    ...         woke.append(held.monotonic())
    >>> async def serve():
    ...     task = held.spawn(loop())
    ...     started.set()
    ...     await task
    >>> runner = threading.Thread(target=asyncio.run, args=(serve(),))
    >>> runner.start(), started.wait()
    (None, True)
    >>> held.advance(2.5)
    >>> woke, held.now().isoformat()
    ([1.0, 2.0], '2026-01-01T00:00:02.500000+00:00')
    >>> held.advance(1.0)
    >>> runner.join()
    >>> woke
    [1.0, 2.0, 3.0]
    """

    #: Seconds of real time a woken task may take to settle before :meth:`advance` names it and gives up.
    SETTLE = 30.0

    def __init__(self, start: datetime) -> None:
        self.start, self.elapsed = start, 0.0
        self._sleepers: list[_Sleeper] = []
        self._order = itertools.count()
        self._known: set[asyncio.Task[object]] = set()
        self._resting: set[asyncio.Task[object]] = set()  # asleep, or waiting for an event
        #: the event each task in :meth:`wait` waits for: once it is set, that task is about to run, not resting
        self._waiting: dict[asyncio.Task[object], asyncio.Event] = {}
        self._changed = threading.Condition()

    def now(self) -> datetime:
        return self.start + timedelta(seconds=self.elapsed)

    def monotonic(self) -> float:
        return self.elapsed

    def spawn(self, work: Coroutine[object, object, T]) -> asyncio.Task[T]:
        """``work`` as a task of the running loop, waited for by :meth:`advance` from the start."""
        task = asyncio.create_task(work)
        with self._changed:
            self._known.add(task)
        return task

    async def sleep(self, seconds: float) -> None:
        await self._sleep(seconds, asyncio.current_task())

    async def wait(self, event: asyncio.Event, timeout: float) -> bool:
        """Whether ``event`` was set before ``timeout`` seconds of this time passed."""
        if event.is_set():
            return True
        owner = asyncio.current_task()
        if owner is not None:
            with self._changed:
                self._waiting[owner] = event
        setting = asyncio.ensure_future(event.wait())
        sleeping = asyncio.ensure_future(self._sleep(timeout, owner))
        try:
            done, _ = await asyncio.wait({setting, sleeping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in (setting, sleeping):
                waiting.cancel()
            with self._changed:
                self._waiting.pop(owner, None)  # type: ignore[arg-type]
        self._awake(owner)
        return setting in done and not setting.cancelled()

    async def _sleep(self, seconds: float, owner: asyncio.Task[object] | None) -> None:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._changed:
            heapq.heappush(self._sleepers, _Sleeper(self.elapsed + max(0.0, seconds), next(self._order), future,
                                                    loop, owner))
            if owner is not None:
                self._known.add(owner)
                self._resting.add(owner)
            self._changed.notify_all()
        try:
            await future
        finally:
            future.cancel()  # cancelled while asleep: advance skips it
        self._awake(owner)

    def _awake(self, owner: asyncio.Task[object] | None) -> None:
        with self._changed:
            self._resting.discard(owner)
            self._changed.notify_all()

    def advance(self, seconds: float) -> None:
        """Move time on by ``seconds``, running what falls due on the way, in order (from the test's thread)."""
        until = self.elapsed + seconds
        self.settle()
        while True:
            with self._changed:
                while self._sleepers and self._sleepers[0].future.done():
                    heapq.heappop(self._sleepers)
                if not self._sleepers or self._sleepers[0].due > until:
                    self.elapsed = until
                    return
                sleeper = heapq.heappop(self._sleepers)
                self.elapsed = max(self.elapsed, sleeper.due)
                self._resting.discard(sleeper.task)
            sleeper.loop.call_soon_threadsafe(_wake, sleeper.future)
            self.settle()

    def settle(self) -> None:
        """Wait until every task that ever slept here is asleep, waiting for an event not yet set, or done (real
        time, at most :data:`SETTLE` seconds: a task that takes longer is named).  A task whose event was set (by a
        task woken here, or by the test) is about to run: it is waited for, and time does not move past it."""
        deadline = time.monotonic() + self.SETTLE
        with self._changed:
            while busy := [task for task in self._known if not task.done() and (
                    task not in self._resting or (task in self._waiting and self._waiting[task].is_set()))]:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"these tasks did not settle in {self.SETTLE:g} s: {busy}")
                self._changed.wait(0.002)  # a task also settles by ending, which says nothing
            self._known = {task for task in self._known if not task.done()}


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


#: The process's clock (anchored on first import, when the server starts).
CLOCK: Clock = SteadyClock()
#: What the process's loops wait with.
SCHEDULER: Scheduler = RealTime()


def now() -> datetime:
    """The current UTC time on the process's clock."""
    return CLOCK.now()


def monotonic() -> float:
    """Seconds on the process's monotonic clock (for durations)."""
    return SCHEDULER.monotonic()


def spawn(work: Coroutine[object, object, T]) -> asyncio.Task[T]:
    """``work`` as a task of the running event loop: a loop of the server's, which a test's time waits for."""
    return SCHEDULER.spawn(work)


async def sleep(seconds: float) -> None:
    """Sleep ``seconds`` on the process's time."""
    await SCHEDULER.sleep(seconds)


async def wait(event: asyncio.Event, timeout: float) -> bool:
    """Whether ``event`` was set within ``timeout`` seconds of the process's time."""
    return await SCHEDULER.wait(event, timeout)


def use(clock: Clock) -> Clock:
    """Make ``clock`` the process's clock (tests); returns the one it replaces.  A :class:`ManualTime` becomes
    the loops' scheduler too (and any other clock gives them back the process's own time)."""
    global CLOCK, SCHEDULER
    previous, CLOCK = CLOCK, clock
    SCHEDULER = clock if isinstance(clock, ManualTime) else RealTime()
    return previous
