"""The table WebSocket: live table state for each player, and bets and decisions as commands.

Protocol (JSON text frames):

* The client's first frame authenticates: ``{"type": "auth", "token": "..."}`` (tokens never
  travel in URLs).  A browser's ``Origin`` must be the server's own (the page it served) or one of
  the allowed ones (``BACCARAT_ALLOWED_ORIGINS``).
* The server sends ``{"type": "state", "table": {...}, "you": {...}}`` at once and whenever the
  table changes: the public table view at that moment (never a seed before its shoe ends, never a
  card before the round's timeline shows it, see :mod:`baccarat.server.timeline`) and the
  player's own seat, shown balance, bets and settlement on the round on show.  A change of the
  timeline (a card's moment, the result, the next window) is pushed at its moment, not only
  when the database changes.
* A player whose table sockets all close is marked away: the seat is kept for a grace period
  (:func:`baccarat.server.tables.free_away_seats`) and is theirs again when they reconnect.
* Commands: ``{"type": "bet", "key": "...", "bets": {...}, "round": N}`` and ``{"type": "decision",
  "key": "...", "action": "draw"|"stand", "round": N}`` (``round`` optional: the round meant, refused
  once it is past).  Each has an idempotency key: a replayed command is answered from
  its stored result.  Answers: ``{"type": "ok", "key", "result"}`` or ``{"type": "error", "error",
  "detail", "message"}`` (the error's code, and the refusal in the player's words).  A bet's ``result``
  holds the player's seat, balance, bets and round (the client takes them from it; the table's next
  state push shows the layout's totals); a decision's answer is followed by a state push.
* Limits: every frame, the first (auth) frame included, of at most :data:`MAX_FRAME` bytes; at most
  :data:`MAX_RATE` commands per second; at most :data:`MAX_SOCKETS` table sockets per account; beyond
  that the connection is closed (1009 / 1008).  A malformed frame (binary, not JSON, nested too deep,
  not a JSON object) gets an error and changes nothing.  The size check here runs on a frame already
  received: a real server must also be given :data:`MAX_FRAME` as uvicorn's ``ws_max_size``, which
  refuses a bigger frame from its header, before buffering it (``baccarat serve`` does).
* Signing out ends the session everywhere: a socket whose token is logged out or expires is closed
  with :data:`SIGNED_OUT` (4401) within about :data:`POLL` seconds (with LISTEN/NOTIFY: a logout notifies
  every table at once, an expiry is seen within :data:`RESYNC` seconds), and no command is taken on it in
  between (each command checks the token in its own transaction).
* On PostgreSQL each process hears of every change through LISTEN/NOTIFY (:mod:`baccarat.server.notify`),
  whichever process made it, and reads the table only then (and at its timeline's moments); SQLite polls.

Every refusal is an error frame or a close code with a fixed reason written for the player; an
exception's own text never reaches the client.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections import Counter
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from fastapi import FastAPI, WebSocket, WebSocketDisconnect
from sqlalchemy import Table, bindparam, select
from sqlalchemy.orm import Session, sessionmaker
from starlette.types import Message

from baccarat.errors import BaccaratError, ConfigurationError
from baccarat.server import accounts, bulkbets, faults, notify, tables, views, wallet
from baccarat.server.batch import Batcher, Command, Outcome
from baccarat.server.db import read, transaction
from baccarat.server.models import Token, aware
from baccarat.server.models import now as _now
from baccarat.server.settings import Settings

log = logging.getLogger("baccarat.server")
#: One line per storage fault every 10 s for all the tables' pollers, not one per table per second.
_STORAGE = faults.FaultLog(log)

MAX_FRAME = 4096  #: bytes per frame, the first one included; ``baccarat serve`` gives it to uvicorn as ``ws_max_size``
MAX_RATE = 50  #: commands per second per connection
MAX_SOCKETS = 8  #: open table sockets per account in this server process
POLL = 0.2  #: how often a connection looks for changes to push (and for signed-out tokens), without LISTEN/NOTIFY
#: With LISTEN/NOTIFY: how often a table is read with no notification (a token that expired, a change made
#: outside the server), and the least time between two reads (a burst of bets is read and pushed every
#: NOTIFY_GAP, not once a bet)
RESYNC, NOTIFY_GAP = 1.0, 0.05
#: Seconds between two pushes of a changed table per watcher: a table watched by thousands is pushed less
#: often (2,000 watchers: once a second at most), never once a bet; its timeline's moments are pushed when due
CROWD_GAP = 0.0005
AUTH_TIMEOUT = 10.0  #: seconds to send the auth frame
MAX_ID = 2**31 - 1  #: table ids are 32-bit columns: a bigger one is refused before it reaches a query
SIGNED_OUT = 4401  #: close code: the socket's session token was logged out or has expired

AUTH_FIRST = "authenticate first: send your session token"
SIGNED_OUT_REASON = "signed out: log in again"
TOO_MANY = "too many open tables for this account: close one first"
#: What a session token may look like (``secrets.token_urlsafe`` makes 43 of ``[A-Za-z0-9_-]``): anything else
#: is refused before it is hashed (a list has no ``encode``, a lone surrogate cannot be encoded).
TOKEN = re.compile(r"[\x21-\x7e]{1,256}")


class Close(Exception):
    """Close the socket with ``code`` and a fixed ``reason`` worded for the player."""

    def __init__(self, code: int, reason: str):
        super().__init__(reason)
        self.code, self.reason = code, reason


def parse(message: Message) -> Any:
    """The JSON value of a received frame.

    Raises :class:`Close` (1009) for a frame over :data:`MAX_FRAME` bytes, and
    :class:`~baccarat.errors.ConfigurationError` with a fixed detail for a binary frame, text that
    is not JSON or is nested too deep for the parser, and strings that are not text (a ``\\ud800``
    escape makes a lone surrogate, which neither the database nor a reply could encode).

    >>> parse({"type": "websocket.receive", "text": '{"type": "auth"}'})
    {'type': 'auth'}
    >>> parse({"type": "websocket.receive", "text": "[" * 2000 + "]" * 2000})
    Traceback (most recent call last):
    baccarat.errors.ConfigurationError: malformed frame: nested too deep
    """
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
    text, data = message.get("text"), message.get("bytes")
    if text is None:
        if data is not None and len(data) > MAX_FRAME:
            raise Close(1009, "frame too large")
        raise ConfigurationError("malformed frame: frames are JSON text, not binary")
    # characters first: a 16 MB frame is refused without encoding it (only a test client can send one here)
    if len(text) > MAX_FRAME or len(text.encode("utf-8", "surrogatepass")) > MAX_FRAME:
        raise Close(1009, "frame too large")
    try:
        value = json.loads(text)
        json.dumps(value, ensure_ascii=False).encode()
    except RecursionError:
        raise ConfigurationError("malformed frame: nested too deep") from None
    except UnicodeError:
        raise ConfigurationError("malformed frame: not Unicode text") from None
    except ValueError:
        raise ConfigurationError("malformed frame: not JSON") from None
    return value


_TOKENS = cast(Table, Token.__table__)
_TOKEN_STATES = select(_TOKENS.c.token_hash, _TOKENS.c.expires_at).where(
    _TOKENS.c.token_hash.in_(bindparam("digests", expanding=True)))
# FOR KEY SHARE on PostgreSQL: a logout (which deletes the row) waits for the command's transaction, or the
# command finds the row gone, so no command commits after the logout; SQLite runs one writer at a time anyway.
_TOKEN_NOW = select(_TOKENS.c.account_id, _TOKENS.c.expires_at).where(
    _TOKENS.c.token_hash == bindparam("digest")).with_for_update(read=True, key_share=True)


def _valid_tokens(s: Session, digests: list[str]) -> set[str]:
    """Those of the token hashes ``digests`` that are still signed in: one query for a whole table."""
    if not digests:
        return set()
    now = _now()  # the steady clock, as accounts.authenticate
    rows = s.connection().execute(_TOKEN_STATES, {"digests": digests})
    return {digest for digest, expires_at in rows if aware(expires_at) > now}


def _check_signed_in(s: Session, digest: str, account_id: int) -> None:
    """Raises :class:`Close` (:data:`SIGNED_OUT`) unless the socket's token still stands, in ``s``'s transaction."""
    row = s.connection().execute(_TOKEN_NOW, {"digest": digest}).first()
    if row is None or row.account_id != account_id or aware(row.expires_at) <= _now():
        raise Close(SIGNED_OUT, SIGNED_OUT_REASON)


class TableFeed:
    """One poller per watched table: the public view is read once per :data:`POLL` for all its
    sockets (not once per socket); when it changes, every watcher's own state is read in the same
    snapshot (three queries for the table, not three per socket), :attr:`version` goes up and the
    sockets wake.  The same snapshot looks up all the watchers' session tokens in one query; the
    sockets of the tokens gone (logged out, expired) wake to close."""

    def __init__(self, sessions: sessionmaker[Session], table_id: int, *, notified: bool = False,
                 resync: float = RESYNC):
        self.sessions, self.table_id = sessions, table_id
        #: woken by LISTEN/NOTIFY (:mod:`baccarat.server.notify`): read on a notification, at the timeline's
        #: next moment, and every ``resync`` seconds (token expiries); else polled every :data:`POLL`
        self.notified, self.resync = notified, resync
        self.poked = asyncio.Event()
        self.reads = 0  #: how often the table was read (the tests count them)
        self.view: dict[str, Any] | None = None
        self.text = "null"  #: the view as JSON
        self.yours: dict[int, dict[str, Any]] = {}
        self.version = 0
        #: one future per socket waiting for a newer view (see :meth:`wait_newer`)
        self.waiting: set[asyncio.Future[None]] = set()
        self.watchers: Counter[int] = Counter()  #: account id -> open sockets
        self.tokens: Counter[str] = Counter()  #: token hash -> open sockets
        self.signed_out: set[str] = set()  #: token hashes found no longer valid
        self.task: asyncio.Task[None] | None = None
        self.returned: list[int] = []  #: watchers marked away in the database: marked back on the next poll

    def _read(self, accounts: list[int], digests: list[str]
              ) -> tuple[dict[str, Any], dict[int, dict[str, Any]] | None, set[str], float]:
        def work(s: Session) -> tuple[dict[str, Any], dict[int, dict[str, Any]] | None, set[str], float]:
            now = _now()
            view, moment = views.table_view_at(s, self.table_id, now)
            # the view is new when anything but its clock changed (server_time is stamped on every read)
            new = self.view is None or {**view, "server_time": None} != {**self.view, "server_time": None}
            yours = views.yours(s, moment, accounts) if new else None
            # a watcher whose seat says away (their last socket's close was written after they came back)
            self.returned = [row.account_id for row in moment.seats or []
                             if row.away_since is not None and row.account_id in accounts]
            soonest = min(moment.changes, default=None)
            most = self.longest(len(accounts))
            wait = most if soonest is None else max(0.0, min(most, (soonest - now).total_seconds()))
            return view, yours, _valid_tokens(s, digests), wait
        return read(self.sessions, work)

    async def run(self) -> None:
        while self.watchers:
            # the watcher lists are copied here, on the event loop that changes them, not in the thread
            digests = list(self.tokens)
            self.poked.clear()  # a change notified from now on is read again after this read
            self.reads += 1
            try:
                view, yours, valid, wait = await asyncio.to_thread(self._read, list(self.watchers), digests)
            except Exception as error:  # the database is away: the sockets keep their last state, polling goes on
                problem = faults.storage_problem(error)
                if problem is None:
                    log.exception("cannot read table %s for its sockets; trying again", self.table_id)
                else:
                    _STORAGE.report(problem, error, consequence="table sockets keep their last state")
                await asyncio.sleep(1.0)
                continue
            for account_id in self.returned:
                with suppress(Exception):
                    await asyncio.to_thread(transaction, self.sessions,
                                            lambda s, a=account_id: tables.mark_back(s, self.table_id, a))
            gone = set(digests) - valid - self.signed_out  # a token never comes back once gone
            if yours is not None or gone:
                if yours is not None:
                    self.view, self.yours, self.version = view, yours, self.version + 1
                    self.text = json.dumps(view)  # encoded once for all the table's sockets
                self.signed_out |= gone
                self._wake()
            # the next card, result or window is pushed at its moment, not up to a poll later
            due = wait + 0.005 if wait < self.longest(len(self.watchers)) else wait
            if self.notified:
                # a burst of notifications is read once a gap, not once each (a crowd's pushes cost a gap of their own)
                first = min(max(NOTIFY_GAP, CROWD_GAP * len(self.watchers)), due)
                await asyncio.sleep(first)
                if due > first:
                    with suppress(TimeoutError):
                        await asyncio.wait_for(self.poked.wait(), due - first)
            else:
                await asyncio.sleep(due)

    def longest(self, watchers: int) -> float:
        """The longest wait between two reads: :attr:`resync` when notified, else the poll (longer for a crowd)."""
        return self.resync if self.notified else max(POLL, CROWD_GAP * watchers)

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

    def _wake(self) -> None:
        """Wake every socket waiting for a newer view: O(sockets).  (An ``asyncio.Condition`` was
        O(sockets²): each of the woken waiters re-acquires its lock in turn, and each acquisition scans
        the lock's queue of waiters; 2,000 sockets held the event loop for half a second a change.)"""
        waiting, self.waiting = self.waiting, set()
        for future in waiting:
            if not future.done():
                future.set_result(None)

    def join(self, account_id: int, digest: str) -> None:
        self.watchers[account_id] += 1
        self.tokens[digest] += 1
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self.run())

    def leave(self, account_id: int, digest: str) -> None:
        self.watchers[account_id] -= 1
        if self.watchers[account_id] <= 0:
            del self.watchers[account_id]
        self.tokens[digest] -= 1
        if self.tokens[digest] <= 0:
            del self.tokens[digest]
            self.signed_out.discard(digest)


def _feed(app: FastAPI, sessions: sessionmaker[Session], table_id: int) -> TableFeed:
    feeds: dict[int, TableFeed] = app.state.__dict__.setdefault("feeds", {})
    feed = feeds.get(table_id)
    if feed is None or feed.task is None or feed.task.done():
        feed = feeds[table_id] = TableFeed(sessions, table_id, notified=getattr(app.state, "pushes", "") == "notify",
                                           resync=getattr(app.state, "resync", RESYNC))
    return feed


def new_batcher(sessions: sessionmaker[Session], *, bulk: bool = True) -> Batcher:
    """A group commit for socket commands: their bets placed together (``bulk``) or each alone."""
    return Batcher(sessions, bulk=bets_together if bulk else None)


def _batcher(app: FastAPI, sessions: sessionmaker[Session]) -> Batcher:
    """This process's group commit for socket commands."""
    found: Batcher | None = getattr(app.state, "batcher", None)
    if found is None:
        found = app.state.batcher = new_batcher(sessions, bulk=Settings().bulk_bets)
    return found


def wake(app: FastAPI, ids: set[int]) -> None:
    """A notification (on the event loop): the feeds of the tables ``ids`` read their table now."""
    feeds: dict[int, TableFeed] = app.state.__dict__.get("feeds", {})
    for table_id in notify.tables_of(ids, list(feeds)):
        feeds[table_id].poked.set()


def _command(s: Session, table_id: int, account_id: int, digest: str, frame: dict[str, Any],
             received: datetime | None = None) -> dict[str, Any]:
    # the token is checked in the command's own transaction: between the feed's polls a logged-out
    # socket is still open, but it can no longer bet
    _check_signed_in(s, digest, account_id)
    kind, key = frame.get("type"), frame.get("key")
    if not isinstance(key, str):
        raise ConfigurationError("a command needs a 'key' (idempotency key)")
    if kind == "bet":
        bets, number = bulkbets.bet_frame(frame)
        return wallet.idempotent(s, account_id, key, tables.bet_request(table_id, bets, number),
                                 lambda: tables.place_bets(s, table_id, account_id, bets, received,
                                                           round_number=number))
    if kind == "decision":
        action = frame.get("action")
        if action not in ("draw", "stand"):
            raise ConfigurationError("'action' is 'draw' or 'stand'")
        number = bulkbets.frame_round(frame, "the decision is")
        return wallet.idempotent(s, account_id, key, tables.decision_request(table_id, action, number),
                                 lambda: tables.decide(s, table_id, account_id, action, round_number=number))
    raise ConfigurationError("unknown command: 'type' is 'bet' or 'decision'")


@dataclass(frozen=True)
class SocketCommand:
    """A socket's command as a group commit's command (a function of the session alone); its fields
    let the batch place the bets of many sockets together (:mod:`baccarat.server.bulkbets`)."""

    table_id: int
    account_id: int
    digest: str
    frame: dict[str, Any]
    received: datetime

    def __call__(self, s: Session) -> dict[str, Any]:
        return _command(s, self.table_id, self.account_id, self.digest, self.frame, self.received)


def bets_together(s: Session, commands: list[Command]) -> list[Outcome]:
    """A group commit's socket commands, their bets placed together (:func:`baccarat.server.bulkbets.run_batch`)."""
    return bulkbets.run_batch(s, commands, signed_out=lambda: Close(SIGNED_OUT, SIGNED_OUT_REASON))


def _mark_away(sessions: sessionmaker[Session], table_id: int, account_id: int) -> None:
    try:
        transaction(sessions, lambda s: tables.mark_away(s, table_id, account_id))
    except Exception:  # the seat stays as it was; the player is stood up after sitting out instead
        log.exception("cannot mark account %s away from table %s", account_id, table_id)


def _allowed(socket: WebSocket, allowed_origins: tuple[str, ...]) -> bool:
    """No ``Origin`` (not a browser), the server's own (the page it served), or a configured one."""
    origin, host = socket.headers.get("origin"), socket.headers.get("host")
    if origin is None or origin in allowed_origins:
        return True
    return host is not None and origin in (f"http://{host}", f"https://{host}")


async def _token(socket: WebSocket) -> str:
    """The session token sent in the first frame."""
    try:
        first = parse(await asyncio.wait_for(socket.receive(), timeout=AUTH_TIMEOUT))
    except (TimeoutError, ConfigurationError):
        raise Close(1008, AUTH_FIRST) from None
    token = first.get("token") if isinstance(first, dict) and first.get("type") == "auth" else None
    if not isinstance(token, str) or not TOKEN.fullmatch(token):
        raise Close(1008, AUTH_FIRST)
    return token


def install(app: FastAPI, allowed_origins: tuple[str, ...]) -> None:
    """Add ``/ws/tables/{table_id}`` to ``app``."""
    sockets: Counter[int] = Counter()  #: account id -> open table sockets, all tables together
    app.state.table_sockets = sockets

    @app.websocket("/ws/tables/{table_id}")
    async def table_socket(socket: WebSocket, table_id: int) -> None:
        if not _allowed(socket, allowed_origins):
            await socket.close(code=1008, reason="origin not allowed")
            return
        await socket.accept()
        try:
            await _serve(socket, table_id)
        except Close as close:
            with suppress(WebSocketDisconnect, RuntimeError):  # the client may have gone meanwhile
                await socket.close(code=close.code, reason=close.reason)
        except WebSocketDisconnect:
            return
        except Exception:  # a fault of the server's, not of the frame: logged, and a clean close
            log.exception("table socket failed (table %s)", table_id)
            with suppress(WebSocketDisconnect, RuntimeError):
                await socket.close(code=1011, reason="server error: try again")

    async def _serve(socket: WebSocket, table_id: int) -> None:
        if not 1 <= table_id <= MAX_ID:
            raise Close(1008, "no such table")
        sessions: sessionmaker[Session] = socket.app.state.sessions
        token = await _token(socket)

        def auth(s: Session) -> int:
            tables.table_view(s, table_id)  # an unknown table is refused here
            return accounts.authenticate(s, token).id

        try:
            account_id = await asyncio.to_thread(read, sessions, auth)
        except BaccaratError as error:  # our own refusals ("no table 9", "log in again") are worded for players
            raise Close(1008, str(error)[:100]) from None
        # checked and counted with no await in between: two sockets opening at once cannot both pass
        if sockets[account_id] >= MAX_SOCKETS:
            raise Close(1008, TOO_MANY)
        sockets[account_id] += 1
        try:
            await _play(socket, sessions, table_id, account_id, accounts._digest(token))
        finally:
            sockets[account_id] -= 1
            if sockets[account_id] <= 0:
                del sockets[account_id]

    async def _play(socket: WebSocket, sessions: sessionmaker[Session], table_id: int, account_id: int,
                    digest: str) -> None:
        feed = _feed(socket.app, sessions, table_id)
        first = not feed.watchers[account_id]
        feed.join(account_id, digest)  # at once, with no await since _feed: every socket of a table shares its feed
        stamps: list[float] = []
        seen = -1
        waiter: asyncio.Task[None] | None = None
        receiver: asyncio.Task[Any] | None = None

        def you() -> dict[str, Any]:
            return read(sessions, lambda s: views.you(s, table_id, account_id))

        async def push(mine: dict[str, Any] | None = None) -> None:
            nonlocal seen
            if feed.view is None:
                await feed.wait_newer(0)
            # the player's own state: from their command's answer, or read with the view, or (on
            # joining, or joined after that read) on its own
            mine = mine or (feed.yours.get(account_id) if seen >= 0 else None) or await asyncio.to_thread(you)
            seen = feed.version
            await socket.send_text(f'{{"type": "state", "table": {feed.text}, "you": {json.dumps(mine)}}}')

        try:
            if first:  # the first socket of theirs here: the seat is theirs again
                with suppress(Exception):
                    await asyncio.to_thread(transaction, sessions, lambda s: tables.mark_back(s, table_id, account_id))
            await push()
            waiter = asyncio.create_task(feed.wait_newer(seen, digest))
            receiver = asyncio.create_task(socket.receive())
            while True:
                done, _ = await asyncio.wait({waiter, receiver}, return_when=asyncio.FIRST_COMPLETED)
                if waiter in done:
                    if digest in feed.signed_out:
                        raise Close(SIGNED_OUT, SIGNED_OUT_REASON)
                    await push()
                    waiter = asyncio.create_task(feed.wait_newer(seen, digest))
                if receiver not in done:
                    continue
                message = receiver.result()
                if message["type"] == "websocket.disconnect":
                    return
                receiver = asyncio.create_task(socket.receive())
                received = _now()  # a bet is on time if it arrived before the close, however long its batch waits
                now = time.monotonic()
                stamps = [t for t in stamps if now - t < 1.0] + [now]
                if len(stamps) > MAX_RATE:
                    raise Close(1008, "too many commands")
                try:
                    frame = parse(message)
                    if not isinstance(frame, dict):
                        raise ConfigurationError("a command is a JSON object")
                    # with the other sockets' commands in one transaction (group commit, see batch)
                    result = await _batcher(socket.app, sessions).run(
                        SocketCommand(table_id, account_id, digest, frame, received),
                        table=table_id, received=received)
                except BaccaratError as error:
                    await socket.send_json({"type": "error", "error": type(error).__name__, "detail": str(error),
                                            "message": str(error)})
                    continue
                await socket.send_json({"type": "ok", "key": frame.get("key"), "result": result})
                # A bet's answer holds the player's seat, balance, bets and round: no state follows it (at a
                # crowded table that push, the whole view again, was half the event loop's work in a burst);
                # the table's next push carries the layout's new totals.  A decision's changes are pushed now.
                if frame.get("type") != "bet" or "seat" not in result:
                    await push(await asyncio.to_thread(you))
        finally:
            feed.leave(account_id, digest)
            for task in (waiter, receiver):
                if task is not None:
                    task.cancel()
            if not feed.watchers[account_id]:  # their last socket here: the seat's grace period starts
                # on a thread of its own, not awaited: this task may be being cancelled (the client vanished)
                asyncio.get_running_loop().run_in_executor(None, _mark_away, sessions, table_id, account_id)
