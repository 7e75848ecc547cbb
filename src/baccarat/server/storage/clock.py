"""The server's clock: UTC wall-clock time that never steps.

Round deadlines and token lifetimes are stored as UTC datetimes, so the server needs wall-clock
time; but the operating system's wall clock can jump (an NTP step, an operator's ``date -s``).
When it jumped 13 hours forward and back, every table kept rounds closing 13 hours ahead, with
bets in escrow and no deal, and every player was logged out.  This clock reads the wall clock
once, when the process starts, and moves it on by the *monotonic* clock, which never steps (NTP
only slews it, at most 0.05 %).  A step therefore reaches the server only at its next start,
where :func:`baccarat.server.playing.dealing.repair_deadlines` pulls stored deadlines that lie too far
ahead back within one window.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Protocol


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


#: The process's clock (anchored on first import, when the server starts).
CLOCK: Clock = SteadyClock()


def now() -> datetime:
    """The current UTC time on the process's clock."""
    return CLOCK.now()


def use(clock: Clock) -> Clock:
    """Make ``clock`` the process's clock (tests); returns the one it replaces."""
    global CLOCK
    previous, CLOCK = CLOCK, clock
    return previous
