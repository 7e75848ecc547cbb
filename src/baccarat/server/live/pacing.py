"""A table socket's commands paced in the process, before any database work.

* :class:`CommandRate`: at most :data:`MAX_RATE` commands a second per socket, counted by when each frame *arrived*
  (:mod:`baccarat.server.live.arrival`), not when the socket got round to it: frames queue while one is carried
  out, and a count by reading let 80 frames a second through on each socket at the pace they were read.
* :class:`PeelPace`: a peel frame that arrives within :data:`~baccarat.server.playing.squeeze.PEEL_EVERY` of the
  last one this process took from the same account at the same table is answered with that peel, as the database
  would answer it (a peel too soon changes nothing), without a transaction or a push.  A flood of 80 peel frames
  a second on each of four sockets held 74 % of a core where a squeeze takes 19 %: each frame was a locked read of
  the round and a push of the player's state.  Across processes the stored moment of the last peel paces them
  (:func:`baccarat.server.playing.squeeze.peel`), and an account's sockets are capped across the service, so the
  peels that reach the database stay bounded.  A full lift (a turn) is never paced.
"""

from __future__ import annotations

import threading
from datetime import datetime

from baccarat.server.playing.squeeze import PEEL_EVERY, Peel

MAX_RATE = 50  #: commands per second per connection


class CommandRate:
    """The arrivals of one socket's commands in the last second."""

    def __init__(self, most: int = MAX_RATE) -> None:
        self.most = most
        self._arrivals: list[float] = []

    def too_many(self, arrived: datetime) -> bool:
        """Count a command that arrived at ``arrived``: whether more than ``most`` arrived within a second."""
        moment = arrived.timestamp()
        self._arrivals = [t for t in self._arrivals if moment - t < 1.0] + [moment]
        return len(self._arrivals) > self.most


class PeelPace:
    """The last peel this process took from each (table, account), and when its frame arrived."""

    def __init__(self, every: float = PEEL_EVERY) -> None:
        self.every = every
        self._lock = threading.Lock()
        self._last: dict[tuple[int, int], tuple[datetime, Peel]] = {}

    def too_soon(self, table_id: int, account_id: int, frame: dict[str, object], arrived: datetime) -> Peel | None:
        """The peel to answer with when the peel ``frame`` that arrived at ``arrived`` comes too soon after the last
        one taken (of the same card); None when it goes on to the database (a full lift, a turn, always does)."""
        lift = frame.get("lift")
        if frame.get("type") != "squeeze" or isinstance(lift, bool) or not isinstance(lift, int | float) or lift >= 1:
            return None
        with self._lock:
            last = self._last.get((table_id, account_id))
        if last is None or last[1]["card"] != frame.get("card"):
            return None
        return last[1] if 0 <= (arrived - last[0]).total_seconds() < self.every else None

    def took(self, table_id: int, account_id: int, arrived: datetime, peel: Peel) -> None:
        """The database answered a peel that arrived at ``arrived`` with ``peel``."""
        with self._lock:
            if len(self._last) > 10_000:  # squeezes long over: forgotten (a new one starts unpaced once)
                self._last.clear()
            self._last[(table_id, account_id)] = (arrived, peel)
