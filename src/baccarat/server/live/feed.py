"""A table's feed: the table read once for all its sockets, and pushed to them at the right moments.

One :class:`TableFeed` per watched table (in each server process).  It reads the public view, every
watcher's own state and the watchers' session tokens in one snapshot (three queries for the table,
not three per socket) when the table may have changed:

* on SQLite (and ``BACCARAT_PUSHES=poll``) every :data:`POLL` seconds, longer for a crowd
  (:data:`CROWD_GAP` per watcher: 2,000 watchers are pushed once a second at most while bets come in);
* with LISTEN/NOTIFY (:mod:`baccarat.server.storage.notify`) when notified, at most once per
  :data:`NOTIFY_GAP`, and every :data:`RESYNC` seconds otherwise (a token that expired);
* at the table's timeline's next moment (a card, the result, the next window).

A timeline moment is read *ahead*: when nothing a player does can change what the moment shows (the
round is dealt: no bet or decision is taken until the next window or decision period opens), the
table is read shortly before the moment, as it will be at that moment, and every socket's frame is
made then; at the moment the frames are only sent.  So a crowd's settlement pushes start at the
result's moment, not after the reads of 2,000 bettors' states.  Nothing is sent before its moment
(a card is never shown early); a change written between that read and the moment (a seat taken) is
read on the next poll or notification, as any other.

Each socket has one task that waits for a newer version and pushes it (:meth:`TableFeed.wait_newer`);
the feed wakes them in slices (:data:`SLICE`), so bets arriving on other sockets are read between
slices rather than after the whole crowd's pushes.

The frames are made without the table's wagers (their names in every language, their pays, their
places on the felt: three quarters of a view); :meth:`TableFeed.with_wagers` adds them for a socket
that has not been sent them yet, or since they changed, or that did not ask for them ``"once"``
(:mod:`baccarat.server.live.sockets`): the page asks, so a crowd's pushes are a third of the size, for
the server to send and for every player's device to read.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from typing import TypedDict, cast

from sqlalchemy import Table, select
from sqlalchemy.orm import Session, sessionmaker

from baccarat.server.playing import seating, views
from baccarat.server.playing.shapes import TableView, YourState
from baccarat.server.storage import clock, faults, metrics
from baccarat.server.storage.db import among, on_postgresql, read, transaction
from baccarat.server.storage.models import Token, aware
from baccarat.server.storage.models import now as _now

log = logging.getLogger("baccarat.server")
#: One line per storage fault every 10 s for all the tables' feeds, not one per table per second.
_STORAGE = faults.FaultLog(log)

POLL = 0.2  #: how often a table is read for changes to push (and for signed-out tokens), without LISTEN/NOTIFY
#: With LISTEN/NOTIFY: how often a table is read with no notification (a token that expired, a change made
#: outside the server), and the least time between two reads (a burst of bets is read and pushed every
#: NOTIFY_GAP, not once a bet)
RESYNC, NOTIFY_GAP = 1.0, 0.05
#: Seconds between two pushes of a changed table per watcher: a table watched by thousands is pushed less
#: often (2,000 watchers: once a second at most), never once a bet; its timeline's moments are pushed when due
CROWD_GAP = 0.0005
SLICE = 16  #: sockets woken at a time: between two slices (about a millisecond) the event loop reads what has arrived
#: How long before a timeline moment the table is read for it: twice the last read, within these bounds
AHEAD_LEAST, AHEAD_MOST = 0.05, 0.4
#: The phases whose next moment no player can change: a dealt round's cards and result, the results pause
#: (the next window opens at its moment; no bet is taken before).  Betting and a decision period are not:
#: a bet or decision may land up to their last instant, so their ends are read when due.
_READ_AHEAD = frozenset({"no_more_bets", "dealing", "result"})


_TOKENS = cast(Table, Token.__table__)
#: the watchers' tokens, SQLite's query and PostgreSQL's (see :func:`baccarat.server.storage.db.among`)
_TOKEN_STATES = {postgresql: select(_TOKENS.c.token_hash, _TOKENS.c.expires_at).where(
    among(_TOKENS.c.token_hash, "digests", postgresql)) for postgresql in (False, True)}


def _valid_tokens(s: Session, digests: list[str]) -> set[str]:
    """Those of the token hashes ``digests`` that are still signed in: one query for a whole table."""
    if not digests:
        return set()
    now = _now()  # the steady clock, as accounts.authenticate
    connection = s.connection()
    rows = connection.execute(_TOKEN_STATES[on_postgresql(connection)], {"digests": digests})
    return {digest for digest, expires_at in rows if aware(expires_at) > now}


class StateFrame(TypedDict):
    """A state push's shape (:func:`state_frame` writes it as text, the view already JSON)."""

    type: str  #: "state"
    #: asked ``"wagers": "once"``, its ``wagers`` only in a socket's first push and when they changed (see the module)
    table: TableView
    you: YourState | None


#: How a state push begins, up to the first key of its table view (:meth:`TableFeed.with_wagers` adds one there)
_FRAME_START = '{"type": "state", "table": {'


def state_frame(table_text: str, mine: YourState | None) -> str:
    """A state push (:class:`StateFrame`): the table view (already JSON) and the player's own state."""
    return f'{_FRAME_START}{table_text[1:]}, "you": {json.dumps(mine)}}}'


def _without_wagers(view: TableView) -> str:
    """The view as JSON without its wagers (the other keys in their order)."""
    return json.dumps({key: value for key, value in view.items() if key != "wagers"})


@dataclass
class Reading:
    """One read of a table (see :meth:`TableFeed._read`)."""

    view: TableView
    text: str  #: the view as JSON without its wagers (when it changed)
    wagers: str | None  #: the view's wagers as JSON, when they changed
    #: each watcher's state frame (:func:`state_frame`), when the view changed since the last read; else None
    frames: dict[int, str] | None
    valid: set[str]  #: the watchers' token hashes still signed in
    returned: list[int]  #: watchers whose seat says away (their last close was written after they came back)
    soonest: datetime | None  #: the timeline's next moment after the one read
    ahead: bool  #: whether that moment may be read ahead (see :data:`_READ_AHEAD`)


class TableFeed:
    """One feed per watched table in this process (see the module's description)."""

    def __init__(self, sessions: sessionmaker[Session], table_id: int, *, notified: bool = False,
                 resync: float = RESYNC):
        self.sessions, self.table_id = sessions, table_id
        #: woken by LISTEN/NOTIFY (:mod:`baccarat.server.storage.notify`): read on a notification, at the timeline's
        #: next moment, and every ``resync`` seconds (token expiries); else polled every :data:`POLL`
        self.notified, self.resync = notified, resync
        self.poked = asyncio.Event()
        self.reads = 0  #: how often the table was read (the tests count them)
        self.view: TableView | None = None
        self.text = "{}"  #: the view as JSON, without its wagers
        self.frames: dict[int, str] = {}  #: account id -> its state frame for the view on show (without its wagers)
        self.version = 0
        #: the wagers of the view on show as JSON, and their version (a socket is sent them when it has not that one)
        self.wagers, self.wagers_version = "[]", 0
        #: one future per socket waiting for a newer view (see :meth:`wait_newer`)
        self.waiting: set[asyncio.Future[None]] = set()
        self.watchers: Counter[int] = Counter()  #: account id -> open sockets
        self.tokens: Counter[str] = Counter()  #: token hash -> open sockets
        self.signed_out: set[str] = set()  #: token hashes found no longer valid
        self.task: asyncio.Task[None] | None = None
        self.ahead = AHEAD_LEAST  #: how long before a timeline moment it is read (see :data:`AHEAD_LEAST`)
        #: the version first showing a round's result, and the result's moment (the settlement push is timed from it)
        self.result_version, self.result_at = -1, cast(datetime | None, None)

    def _read(self, accounts: list[int], digests: list[str], at: datetime | None) -> Reading:
        """The table as it is (``at`` None) or as it will be at the moment ``at`` (read ahead)."""
        def work(s: Session) -> Reading:
            now = at or _now()
            view, moment = views.table_view_at(s, self.table_id, now)
            # the view is new when anything but its clock changed (server_time is stamped on every read)
            new = self.view is None or {**view, "server_time": None} != {**self.view, "server_time": None}
            text, wagers, frames = "", None, None
            if new:  # every watcher's frame made here, off the event loop's moment
                text = _without_wagers(view)  # encoded once for all the table's sockets
                if self.view is None or view["wagers"] != self.view["wagers"]:
                    wagers = json.dumps(view["wagers"])
                yours = views.yours(s, moment, accounts)
                frames = {account_id: state_frame(text, mine) for account_id, mine in yours.items()}
            returned = [row.account_id for row in moment.seats or []
                        if row.away_since is not None and row.account_id in accounts]
            return Reading(view, text, wagers, frames, _valid_tokens(s, digests), returned,
                           min(moment.changes, default=None), view.get("phase") in _READ_AHEAD)
        return read(self.sessions, work)

    async def run(self) -> None:
        """Read the table and publish what changed, at the right moments, while any socket watches it."""
        try:
            await self._publish()
        finally:  # nobody here watches it any more: this process no longer vouches for its bettors
            metrics.TABLE_BETTORS.labels(str(self.table_id)).set(0)

    async def _publish(self) -> None:
        at: datetime | None = None  # the moment the next read is for (None: now)
        while self.watchers:
            # the watcher lists are copied here, on the event loop that changes them, not in the thread
            digests = list(self.tokens)
            self.poked.clear()  # a change notified from now on is read again after this read
            self.reads += 1
            started = clock.monotonic()
            try:
                reading = await asyncio.to_thread(self._read, list(self.watchers), digests, at)
            except Exception as error:  # the database is away: the sockets keep their last state, reads go on
                problem = faults.storage_problem(error)
                if problem is None:
                    log.exception("cannot read table %s for its sockets; trying again", self.table_id)
                else:
                    _STORAGE.report(problem, error, consequence="table sockets keep their last state")
                at = None
                await clock.sleep(1.0)
                continue
            if at is not None:  # read ahead: shown at its moment, never before
                self.ahead = min(AHEAD_MOST, max(AHEAD_LEAST, 2 * (clock.monotonic() - started)))
                await clock.sleep(max(0.0, (at - _now()).total_seconds()))
            gone = set(digests) - reading.valid - self.signed_out  # a token never comes back once gone
            if reading.frames is not None or gone:
                if reading.frames is not None:
                    self._shown(reading.view)
                    self.view, self.text, self.frames = reading.view, reading.text, reading.frames
                    if reading.wagers is not None:
                        self.wagers, self.wagers_version = reading.wagers, self.wagers_version + 1
                    self.version += 1
                self.signed_out |= gone
                await self._wake()
            for account_id in reading.returned:
                with suppress(Exception):  # marked back on the next read
                    await asyncio.to_thread(transaction, self.sessions,
                                            lambda s, a=account_id: seating.mark_back(s, self.table_id, a))
            wait, at = self._next(reading, at or _now())
            if self.notified:
                # a burst of notifications is read once a gap, not once each (a crowd's pushes cost a gap of their own)
                first = min(max(NOTIFY_GAP, CROWD_GAP * len(self.watchers)), wait)
                await clock.sleep(first)
                if wait > first and await clock.wait(self.poked, wait - first):
                    at = None  # notified: read now
            else:
                await clock.sleep(wait)

    def _shown(self, view: TableView) -> None:
        """Before ``view`` is published: the table's bettors for the metrics, and whether it is the first to
        show a round's result (its pushes are timed from the result's moment)."""
        metrics.TABLE_BETTORS.labels(str(self.table_id)).set(view.get("bettors") or 0)
        started, before = view.get("phase_started_at"), self.view
        if view.get("phase") == "result" and started and (before is None or before.get("phase") != "result"
                                                           or before.get("round_number") != view.get("round_number")):
            self.result_version, self.result_at = self.version + 1, datetime.fromisoformat(started)

    def _next(self, reading: Reading, read_at: datetime) -> tuple[float, datetime | None]:
        """How long to wait before the next read, and the moment it is for (None: the time it is made)."""
        longest = self.longest(len(self.watchers))
        if reading.soonest is None:
            return longest, None
        until = (reading.soonest - _now()).total_seconds()
        if until > longest:
            return longest, None
        if reading.ahead and reading.soonest > read_at:
            return max(0.0, until - self.ahead), reading.soonest
        return max(0.0, until) + 0.005, None  # read just after the moment: it shows then

    def longest(self, watchers: int) -> float:
        """The longest wait between two reads: :attr:`resync` when notified, else the poll (longer for a crowd)."""
        return self.resync if self.notified else max(POLL, CROWD_GAP * watchers)

    def frame(self, account_id: int, mine: YourState | None = None) -> str | None:
        """A state push for ``account_id``, without the view's wagers: with ``mine`` as their own state, else
        the one read with the view (None if the view was read before they joined)."""
        if mine is not None:
            return state_frame(self.text, mine)
        return self.frames.get(account_id)

    def with_wagers(self, frame: str) -> str:
        """``frame`` (from :meth:`frame`) with the wagers of the view on show, for a socket not sent them yet."""
        rest = frame[len(_FRAME_START):]
        return f'{_FRAME_START}"wagers": {self.wagers}{"" if rest.startswith("}") else ", "}{rest}'

    async def wait_newer(self, version: int, digest: str | None = None) -> None:
        """Until the view is newer than ``version``, or the token whose hash is ``digest`` is gone."""
        while not (self.version > version or digest in self.signed_out):
            # a future of this socket's own: cancelling this wait (the socket closed) touches no other socket's
            future = asyncio.get_running_loop().create_future()
            self.waiting.add(future)
            try:
                await future
            finally:
                self.waiting.discard(future)

    async def _wake(self) -> None:
        """Wake every socket waiting for a newer view, :data:`SLICE` at a time: O(sockets), and the
        event loop reads the network between two slices.  (An ``asyncio.Condition`` was O(sockets²):
        each woken waiter re-acquires its lock in turn, and each acquisition scans the lock's queue of
        waiters, so a crowded table held the event loop at every change.)"""
        waiting, self.waiting = list(self.waiting), set()
        for start in range(0, len(waiting), SLICE):
            for future in waiting[start:start + SLICE]:
                if not future.done():
                    future.set_result(None)
            if start + SLICE < len(waiting):
                await asyncio.sleep(0)

    def join(self, account_id: int, digest: str) -> None:
        self.watchers[account_id] += 1
        self.tokens[digest] += 1
        if self.task is None or self.task.done():
            self.task = clock.spawn(self.run())

    def leave(self, account_id: int, digest: str) -> None:
        self.watchers[account_id] -= 1
        if self.watchers[account_id] <= 0:
            del self.watchers[account_id]
        self.tokens[digest] -= 1
        if self.tokens[digest] <= 0:
            del self.tokens[digest]
            self.signed_out.discard(digest)

