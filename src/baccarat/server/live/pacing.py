"""A table socket's commands paced in the process, before any database work.

* :class:`CommandRate`: at most :data:`MAX_RATE` commands a second per socket sustained (:data:`BURST` at once),
  counted by when each frame *arrived* (:mod:`baccarat.server.live.arrival`), not when the socket got round to
  it: frames queue while one is carried out, and a count by reading let 80 frames a second through on each
  socket at the pace they were read.
* :class:`PeelPace`: a peel frame that arrives within :data:`~baccarat.server.playing.squeeze.PEEL_EVERY` of the
  last one this process took from the same account at the same table is answered with that peel, as the database
  would answer it (a peel too soon changes nothing), without a transaction or a push.  A flood of 80 peel frames
  a second on each of four sockets held 74 % of a core where a squeeze takes 19 %: each frame was a locked read of
  the round and a push of the player's state.  A refusal (the card not squeezable yet, not this player's) is
  answered again the same way for the same time.  Across processes the stored moment of the last peel paces them
  (:func:`baccarat.server.playing.squeeze.peel`), and an account's sockets are capped across the service, so the
  peels that reach the database stay bounded.  A full lift (a turn) is never paced.  Beyond that, an account's
  peel frames at a table, on all its sockets in the process together, are a token bucket of :data:`PEEL_RATE` a
  second (:data:`PEEL_RATE` at once): a frame over it is dropped unanswered, before any other work.  The page
  sends one every 0.15 s at most; a squeezer flooding from eight sockets (240 frames a second) cost 1.5 to 2.5
  times a squeeze in answers alone.  A socket whose peel is dropped then waits before it reads its next frame
  (:meth:`PeelPace.backoff`: 0.05 s, doubled at each drop of the account's until a second passes without one, up
  to 2 s): the frames wait in the network, whose flow control slows the sender, so a flood is not even read at
  its pace.
"""

from __future__ import annotations

import threading
from datetime import datetime

from baccarat.core.errors import BaccaratError
from baccarat.server.playing.squeeze import PEEL_EVERY, Peel

MAX_RATE = 50  #: commands per second per connection, sustained
PEEL_RATE = 20  #: peel frames per second per account and table, on all its sockets in the process
BACKOFF_FIRST, BACKOFF_MOST = 0.05, 2.0  #: seconds a socket waits after a peel of its account was dropped
QUIET = 1.0  #: seconds without a dropped peel after which an account's backoff starts again from the first
BURST = 2 * MAX_RATE  #: commands that may arrive at once (frames read off the network together after a stall)


class CommandRate:
    """One socket's commands as a token bucket on their arrival times: :data:`BURST` at once, :data:`MAX_RATE` a
    second sustained.  A window of one second on arrival stamps closed honest sockets of a busy server: frames that
    queued in the kernel while it was busy are read, and stamped, together."""

    def __init__(self, rate: float = MAX_RATE, burst: int = BURST) -> None:
        self.rate, self.burst = rate, burst
        self._tokens = float(burst)
        self._at: float | None = None

    def too_many(self, arrived: datetime) -> bool:
        """Count a command that arrived at ``arrived``: whether it is over the sustained rate and the burst."""
        moment = arrived.timestamp()
        if self._at is not None:
            self._tokens = min(float(self.burst), self._tokens + max(0.0, moment - self._at) * self.rate)
        self._at = moment if self._at is None else max(self._at, moment)
        if self._tokens < 1:
            return True
        self._tokens -= 1
        return False


class PeelPace:
    """The last answer the database gave a peel from each (table, account), and when that peel's frame arrived: the
    peel on show, or the refusal (the card not being squeezed now, or not by this player)."""

    def __init__(self, every: float = PEEL_EVERY, rate: float = PEEL_RATE) -> None:
        self.every, self.rate = every, rate
        self._lock = threading.Lock()
        self._last: dict[tuple[int, int], tuple[datetime, object, Peel | BaccaratError]] = {}
        self._buckets: dict[tuple[int, int], CommandRate] = {}
        #: by (table, account): peels dropped with less than :data:`QUIET` between them, and when the last was
        self._drops: dict[tuple[int, int], tuple[int, float]] = {}

    def flooding(self, table_id: int, account_id: int, frame: dict[str, object], arrived: datetime) -> bool:
        """Count a peel frame (not a full lift) of ``account_id`` at ``table_id`` that arrived at ``arrived``:
        whether it is over the account's :data:`PEEL_RATE` there (then it is dropped, unanswered)."""
        lift = frame.get("lift")
        if frame.get("type") != "squeeze" or (isinstance(lift, int | float) and not isinstance(lift, bool)
                                              and lift >= 1):
            return False
        with self._lock:
            if len(self._buckets) > 10_000:  # squeezes long over: forgotten
                self._buckets.clear()
                self._drops.clear()
            bucket = self._buckets.setdefault((table_id, account_id), CommandRate(self.rate, int(self.rate)))
            over = bucket.too_many(arrived)
            if over:
                moment = arrived.timestamp()
                drops, last = self._drops.get((table_id, account_id), (0, moment))
                self._drops[(table_id, account_id)] = (drops + 1 if moment - last < QUIET else 1, moment)
            return over

    def backoff(self, table_id: int, account_id: int) -> float:
        """Seconds a socket of ``account_id`` at ``table_id`` waits before reading again, its peel just dropped:
        :data:`BACKOFF_FIRST`, doubled at each drop of the account's since it was last :data:`QUIET`, at most
        :data:`BACKOFF_MOST` (peels taken meanwhile do not reset it: a flood's frames pass as the bucket fills)."""
        with self._lock:
            drops, _ = self._drops.get((table_id, account_id), (0, 0.0))
        return min(BACKOFF_FIRST * 2 ** max(drops - 1, 0), BACKOFF_MOST) if drops else 0.0

    def too_soon(self, table_id: int, account_id: int, frame: dict[str, object], arrived: datetime
                 ) -> Peel | BaccaratError | None:
        """The answer for the peel ``frame`` that arrived at ``arrived`` when it comes within ``every`` of the last
        one answered (of the same card): that answer again (a refusal to raise); None when it goes on to the database
        (a full lift, a turn, always does)."""
        lift = frame.get("lift")
        if frame.get("type") != "squeeze" or isinstance(lift, bool) or not isinstance(lift, int | float) or lift >= 1:
            return None
        with self._lock:
            last = self._last.get((table_id, account_id))
        if last is None or last[1] != frame.get("card"):
            return None
        return last[2] if 0 <= (arrived - last[0]).total_seconds() < self.every else None

    def answered(self, table_id: int, account_id: int, frame: dict[str, object], arrived: datetime,
                 answer: Peel | BaccaratError) -> None:
        """The database answered the peel ``frame`` that arrived at ``arrived`` with ``answer``."""
        if frame.get("type") != "squeeze":
            return
        with self._lock:
            if len(self._last) > 10_000:  # squeezes long over: forgotten (a new one starts unpaced once)
                self._last.clear()
            self._last[(table_id, account_id)] = (arrived, frame.get("card"), answer)
