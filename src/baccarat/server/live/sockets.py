"""The table WebSocket: live table state for each player, and bets and decisions as commands.

Protocol (JSON text frames):

* The client's first frame authenticates: ``{"type": "auth", "token": "..."}`` (tokens never
  travel in URLs); ``"wagers": "once"`` in it asks for the table's wagers only in the first push and
  when they change (the page keeps the last ones; a crowd's pushes are a third of the size).  A
  browser's ``Origin`` must be the server's own (the page it served) or one of the allowed ones
  (``BACCARAT_ALLOWED_ORIGINS``).
* The server sends ``{"type": "state", "table": {...}, "you": {...}}`` at once and whenever the
  table changes: the public table view at that moment (never a seed before its shoe ends, never a
  card before the round's timeline shows it, see :mod:`baccarat.server.playing.timeline`) and the
  player's own seat, shown balance, bets and settlement on the round on show.  A change of the
  timeline (a card's moment, the result, the next window) is pushed at its moment, not only
  when the database changes (the table's feed, :mod:`baccarat.server.live.feed`, reads it once for all
  its sockets, ahead of a dealt round's moments).
* A player whose table sockets all close is marked away: the seat is kept for a grace period
  (:func:`baccarat.server.playing.seating.free_away_seats`) and is theirs again when they reconnect.
* Commands: ``{"type": "bet", "key": "...", "bets": {...}, "round": N}``, ``{"type": "take_back", "key": "...",
  "bets": {...}, "round": N}`` (chips back off the layout while betting is open) and ``{"type": "decision",
  "key": "...", "action": "draw"|"stand", "round": N}`` (``round`` optional: the round meant, refused
  once it is past).  Each has an idempotency key: a replayed command is answered from
  its stored result.  Answers: ``{"type": "ok", "key", "result"}`` or ``{"type": "error", "error", "code",
  "params", "detail", "message"}`` (the error's class, its stable code and params, and the refusal in
  English: :mod:`baccarat.core.messages`).  A bet's ``result``
  holds the player's seat, balance, bets and round (the client takes them from it; the table's next
  state push shows the layout's totals); a take-back's and a decision's answers are followed by a state push.
* At a squeeze table (:mod:`baccarat.server.playing.squeeze`) a side's squeezer peels the card being squeezed:
  ``{"type": "squeeze", "card": I, "lift": 0..1, "edge": "corner"|"short"|"long"}`` (lifted that far from
  there, shown to every watcher with the part of the face it uncovers; 1 turns it) and ``{"type": "turn", "card":
  I}`` (turned now).  No key: a resent peel shows the same lift.  Answered ``{"type": "ok", "result": {"card",
  "lift", "edge"}}``; anyone else's is refused (``squeeze.not_yours``).
* Limits: every frame, the first (auth) frame included, of at most :data:`MAX_FRAME` bytes; at most
  :data:`~baccarat.server.live.pacing.MAX_RATE` commands a second per socket, sustained (a squeezer's peels paced
  besides: :mod:`baccarat.server.live.pacing`); at most :data:`MAX_SOCKETS` table sockets per account, counted in
  the database across every server process (:mod:`baccarat.server.live.leases`), so the commands an account
  can send are bounded whatever the number of processes; beyond that the connection is closed (1009 / 1008).
  A malformed frame (binary, not JSON, nested too deep, not a JSON object, text that cannot be stored anywhere
  in it: ``request.bad_text`` naming the field) gets an error and changes nothing.  The size check here runs on
  a frame already received: a real server must also be given :data:`MAX_FRAME` as uvicorn's ``ws_max_size``,
  which refuses a bigger frame from its header, before buffering it (``baccarat serve`` does).
* Signing out ends the session everywhere: a socket whose token is logged out or expires is closed
  with :data:`SIGNED_OUT` (4401) within about :data:`~baccarat.server.live.feed.POLL` seconds (with
  LISTEN/NOTIFY: a logout notifies every table at once, an expiry is seen within
  :data:`~baccarat.server.live.feed.RESYNC` seconds), and no command is taken on it in between (each
  command checks the token in its own transaction).
* On PostgreSQL each process hears of every change through LISTEN/NOTIFY (:mod:`baccarat.server.storage.notify`),
  whichever process made it, and reads the table only then (and at its timeline's moments); SQLite polls.

Every refusal is an error frame or a close code with a fixed reason written for the player; an
exception's own text never reaches the client.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections import Counter
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypedDict, cast

from fastapi import FastAPI, WebSocket, WebSocketDisconnect
from sqlalchemy import Table, bindparam, select
from sqlalchemy.orm import Session, sessionmaker
from starlette.types import Message
from starlette.websockets import WebSocketDisconnected

from baccarat.core.errors import AuthorizationError, BaccaratError, ConfigurationError
from baccarat.core.text import unstorable_field
from baccarat.server.house import accounts, roles
from baccarat.server.live.arrival import ARRIVED
from baccarat.server.live.feed import RESYNC, TableFeed
from baccarat.server.live.leases import Leases
from baccarat.server.live.pacing import CommandRate, PeelPace
from baccarat.server.playing import bulk_bets as bulkbets
from baccarat.server.playing import commands, seating, views
from baccarat.server.playing.commands import CommandAnswer
from baccarat.server.playing.shapes import YourState
from baccarat.server.playing.squeeze import Peel
from baccarat.server.storage import logs, metrics, notify
from baccarat.server.storage.db import read, transaction
from baccarat.server.storage.group_commit import Batcher, Command, Outcome
from baccarat.server.storage.models import Token, aware
from baccarat.server.storage.models import now as _now
from baccarat.server.storage.settings import Settings

log = logging.getLogger("baccarat.server")

MAX_FRAME = 4096  #: bytes per frame, the first one included; ``baccarat serve`` gives it to uvicorn as ``ws_max_size``
MAX_SOCKETS = 8  #: open table sockets per account, in all the server processes together
AUTH_TIMEOUT = 10.0  #: seconds to send the auth frame
MAX_ID = 2**31 - 1  #: table ids are 32-bit columns: a bigger one is refused before it reaches a query
SIGNED_OUT = 4401  #: close code: the socket's session token was logged out or has expired

AUTH_FIRST = "authenticate first: send your session token"
SIGNED_OUT_REASON = "signed out: log in again"
TOO_MANY = "too many open tables for this account: close one first"
#: The cancellation message of a socket's reading task when its pusher ended (signed out, or a push failed).
PUSHER_ENDED = "the socket's pushes ended"
#: What a session token may look like (``secrets.token_urlsafe`` makes 43 of ``[A-Za-z0-9_-]``): anything else
#: is refused before it is hashed (a list has no ``encode``, a lone surrogate cannot be encoded).
TOKEN = re.compile(r"[\x21-\x7e]{1,256}")


class OkFrame(TypedDict):
    """The answer to a command."""

    type: str  #: "ok"
    key: str | None  #: the command's idempotency key (None: a squeeze peel or turn, which has none)
    result: CommandAnswer


class ErrorFrame(TypedDict):
    """A command refused: the refusal's code and params for the client to word, and its English words."""

    type: str  #: "error"
    error: str  #: the error's family
    code: str
    params: Mapping[str, object]
    detail: str
    message: str


class Close(Exception):
    """Close the socket with ``code`` and a fixed ``reason`` worded for the player."""

    def __init__(self, code: int, reason: str):
        super().__init__(reason)
        self.code, self.reason = code, reason


def parse(message: Message) -> Any:
    """The JSON value of a received frame.

    Raises :class:`Close` (1009) for a frame over :data:`MAX_FRAME` bytes, and
    :class:`~baccarat.core.errors.ConfigurationError` with a fixed detail for a binary frame, text that
    is not JSON or is nested too deep for the parser, and ``request.bad_text`` naming the field for text
    that cannot be stored (:mod:`baccarat.core.text`: a ``\\u0000``, which PostgreSQL refuses, or a
    ``\\ud800`` escape, a lone surrogate, which neither the database nor a reply could encode), whatever the
    frame and wherever in it: no command ever carries such text into a batch of bets.

    >>> parse({"type": "websocket.receive", "text": '{"type": "auth"}'})
    {'type': 'auth'}
    >>> try:
    ...     parse({"type": "websocket.receive", "text": "[" * 2000 + "]" * 2000})
    ... except ConfigurationError as error:
    ...     print(error.code, error.params)
    frame.too_deep {}
    >>> try:
    ...     parse({"type": "websocket.receive", "text": '{"type": "bet", "key": "k\\\\u0000"}'})
    ... except ConfigurationError as error:
    ...     print(error.code, error.params)
    request.bad_text {'field': 'key'}
    """
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
    text, data = message.get("text"), message.get("bytes")
    if text is None:
        if data is not None and len(data) > MAX_FRAME:
            raise Close(1009, "frame too large")
        raise ConfigurationError.coded("frame.binary")
    # characters first: a 16 MB frame is refused without encoding it (only a test client can send one here)
    if len(text) > MAX_FRAME or len(text.encode("utf-8", "surrogatepass")) > MAX_FRAME:
        raise Close(1009, "frame too large")
    try:
        value = json.loads(text)
    except RecursionError:
        raise ConfigurationError.coded("frame.too_deep") from None
    except ValueError:
        raise ConfigurationError.coded("frame.not_json") from None
    field = unstorable_field(value, root="frame")
    if field is not None:
        raise ConfigurationError.coded("request.bad_text", field=field)
    return value


_TOKENS = cast(Table, Token.__table__)
# FOR KEY SHARE on PostgreSQL: a logout (which deletes the row) waits for the command's transaction, or the
# command finds the row gone, so no command commits after the logout; SQLite runs one writer at a time anyway.
_TOKEN_NOW = select(_TOKENS.c.account_id, _TOKENS.c.expires_at).where(
    _TOKENS.c.token_hash == bindparam("digest")).with_for_update(read=True, key_share=True)


def _check_signed_in(s: Session, digest: str, account_id: int) -> None:
    """Raises :class:`Close` (:data:`SIGNED_OUT`) unless the socket's token still stands, in ``s``'s transaction."""
    row = s.connection().execute(_TOKEN_NOW, {"digest": digest}).first()
    if row is None or row.account_id != account_id or aware(row.expires_at) <= _now():
        raise Close(SIGNED_OUT, SIGNED_OUT_REASON)


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


def _command(s: Session, table_id: int, account_id: int, digest: str, frame: bulkbets.CommandFrame,
             received: datetime | None = None) -> CommandAnswer:
    # the token is checked in the command's own transaction: between the feed's polls a logged-out
    # socket is still open, but it can no longer bet
    _check_signed_in(s, digest, account_id)
    return commands.run(s, table_id, account_id, frame, received)


@dataclass(frozen=True)
class SocketCommand:
    """A socket's command as a group commit's command (a function of the session alone); its fields
    let the batch place the bets of many sockets together (:mod:`baccarat.server.playing.bulk_bets`)."""

    table_id: int
    account_id: int
    digest: str
    frame: bulkbets.CommandFrame
    received: datetime

    def __call__(self, s: Session) -> CommandAnswer:
        return _command(s, self.table_id, self.account_id, self.digest, self.frame, self.received)


def bets_together(s: Session, commands: list[Command]) -> list[Outcome]:
    """A group commit's socket commands, their bets placed together
    (:func:`baccarat.server.playing.bulk_bets.run_batch`)."""
    return bulkbets.run_batch(s, commands, signed_out=lambda: Close(SIGNED_OUT, SIGNED_OUT_REASON))


def _mark_away(sessions: sessionmaker[Session], table_id: int, account_id: int, leases: Leases) -> None:
    elsewhere = leases.process, leases.alive_since()  # a socket of theirs here in another process: not away
    try:
        transaction(sessions, lambda s: seating.mark_away(s, table_id, account_id, elsewhere=elsewhere))
    except Exception:  # the seat stays as it was; the player is stood up after sitting out instead
        log.exception("cannot mark account %s away from table %s", account_id, table_id)


def _allowed(socket: WebSocket, allowed_origins: tuple[str, ...]) -> bool:
    """No ``Origin`` (not a browser), the server's own (the page it served), or a configured one."""
    origin, host = socket.headers.get("origin"), socket.headers.get("host")
    if origin is None or origin in allowed_origins:
        return True
    return host is not None and origin in (f"http://{host}", f"https://{host}")


async def _auth(socket: WebSocket) -> tuple[str, bool]:
    """The session token sent in the first frame, and whether the client asks for the table's wagers only when
    they are new to it (``"wagers": "once"``)."""
    try:
        first = parse(await asyncio.wait_for(socket.receive(), timeout=AUTH_TIMEOUT))
    except (TimeoutError, ConfigurationError):
        raise Close(1008, AUTH_FIRST) from None
    token = first.get("token") if isinstance(first, dict) and first.get("type") == "auth" else None
    if not isinstance(token, str) or not TOKEN.fullmatch(token):
        raise Close(1008, AUTH_FIRST)
    return token, first.get("wagers") == "once"


def install(app: FastAPI, allowed_origins: tuple[str, ...]) -> None:
    """Add ``/ws/tables/{table_id}`` to ``app``."""
    sockets: Counter[int] = Counter()  #: account id -> open table sockets, all tables together
    app.state.table_sockets = sockets
    peels = PeelPace()  #: the squeezers' peels, paced before any database work

    @app.websocket("/ws/tables/{table_id}")
    async def table_socket(socket: WebSocket, table_id: int) -> None:
        logs.note(table_id=table_id)  # this socket's lines, its close line included, name the table
        if not _allowed(socket, allowed_origins):
            await socket.close(code=1008, reason="origin not allowed")
            return
        await socket.accept()
        try:
            await _serve(socket, table_id)
        except Close as close:
            with suppress(WebSocketDisconnect, RuntimeError):  # the client may have gone meanwhile
                await socket.close(code=close.code, reason=close.reason)
        except (WebSocketDisconnect, WebSocketDisconnected):  # gone, or closed while an answer was on its way
            return
        except Exception:  # a fault of the server's, not of the frame: logged, and a clean close
            log.exception("table socket failed (table %s)", table_id)
            with suppress(WebSocketDisconnect, RuntimeError):
                await socket.close(code=1011, reason="server error: try again")

    async def _serve(socket: WebSocket, table_id: int) -> None:
        if not 1 <= table_id <= MAX_ID:
            raise Close(1008, "no such table")
        sessions: sessionmaker[Session] = socket.app.state.sessions
        token, wagers_once = await _auth(socket)

        def auth(s: Session) -> tuple[int, str]:
            views.table_view(s, table_id)  # an unknown table is refused here
            account = accounts.authenticate(s, token)
            return account.id, account.role

        try:
            account_id, role = await asyncio.to_thread(read, sessions, auth)
        except BaccaratError as error:  # our own refusals ("no table 9", "log in again") are worded for players
            raise Close(1008, str(error)[:100]) from None
        logs.note(account_id=account_id)
        # counted in the database, where every process sees it: two sockets opening at once, in this
        # process or another, cannot both take the last place (baccarat.server.live.leases)
        held: Leases = socket.app.state.leases
        lease = await asyncio.to_thread(held.take, account_id, table_id, most=MAX_SOCKETS)
        if lease is None:
            raise Close(1008, TOO_MANY)
        sockets[account_id] += 1
        metrics.OPEN_SOCKETS.inc()
        try:
            await _play(socket, sessions, table_id, account_id, accounts._digest(token), watching=roles.is_staff(role),
                        wagers_once=wagers_once)
        finally:
            try:  # shielded: this task may be being cancelled (the client vanished); the lease goes all the same
                await asyncio.shield(asyncio.to_thread(held.give_back, lease))
            finally:
                metrics.OPEN_SOCKETS.dec()
                sockets[account_id] -= 1
                if sockets[account_id] <= 0:
                    del sockets[account_id]

    async def _play(socket: WebSocket, sessions: sessionmaker[Session], table_id: int, account_id: int,
                    digest: str, *, watching: bool = False, wagers_once: bool = False) -> None:
        feed = _feed(socket.app, sessions, table_id)
        first = not feed.watchers[account_id]
        feed.join(account_id, digest)  # at once, with no await since _feed: every socket of a table shares its feed
        rate = CommandRate()
        seen = -1  # the feed's version this socket was last pushed
        wagers_seen = 0  # ... and the version of the wagers it was last sent (0: none yet)
        pusher: asyncio.Task[None] | None = None

        def you() -> YourState:
            return read(sessions, lambda s: views.you(s, table_id, account_id))

        async def push(mine: YourState | None = None) -> None:
            nonlocal seen, wagers_seen
            if feed.view is None:
                await feed.wait_newer(0)
            # the player's own state: from their command's answer, or read with the view (the frame made
            # then), or (on joining, or joined after that read) on its own
            text = feed.frame(account_id, mine) if mine is not None or seen >= 0 else None
            if text is None:
                text = feed.frame(account_id, await asyncio.to_thread(you))
            seen = feed.version  # with no await since the frame was made: the version it shows
            # the wagers go with every push, or (asked "once") with a socket's first push and when they change
            if not wagers_once or wagers_seen != feed.wagers_version:
                text, wagers_seen = feed.with_wagers(cast(str, text)), feed.wagers_version
            await socket.send_text(cast(str, text))
            if seen == feed.result_version and feed.result_at is not None:  # this push shows a result
                metrics.SETTLEMENT_PUSH.observe(max(0.0, metrics.since(feed.result_at)))

        async def pushes() -> None:
            """This socket's pushes: one task for as long as it is open, woken by the feed."""
            while True:
                await feed.wait_newer(seen, digest)
                if digest in feed.signed_out:
                    raise Close(SIGNED_OUT, SIGNED_OUT_REASON)
                await push()

        reading = asyncio.current_task()
        waiting = False  # whether this task waits for the socket's next frame (the pusher's end interrupts only that)

        def pusher_ended(_: asyncio.Task[None]) -> None:
            if waiting and reading is not None:
                reading.cancel(PUSHER_ENDED)

        try:
            if first:  # the first socket of theirs here: the seat is theirs again
                with suppress(Exception):
                    await asyncio.to_thread(transaction, sessions, lambda s: seating.mark_back(s, table_id, account_id))
            await push()
            pusher = asyncio.create_task(pushes())
            pusher.add_done_callback(pusher_ended)
            while True:
                # The frames are read here, in this task: no task and no asyncio.wait a frame (in a burst of bets
                # they were much of the event loop's work, and thousands of live objects for the collector)
                if pusher.done():
                    pusher.result()  # signed out (Close), or the socket failed under a push
                    return
                waiting = True
                try:
                    message = await socket.receive()
                except asyncio.CancelledError as cancelled:
                    if cancelled.args != (PUSHER_ENDED,) or reading is None or reading.uncancel():
                        raise  # cancelled from outside (the client vanished, the server stops)
                    continue  # the pusher's end, raised at the loop's top
                finally:
                    waiting = False
                if message["type"] == "websocket.disconnect":
                    return
                # a bet is on time if it arrived before the close, however long its batch waits: the moment its
                # frame was read off the network where the protocol stamped it (baccarat.server.live.arrival)
                arrived = message.get(ARRIVED)
                received = arrived if isinstance(arrived, datetime) else _now()
                if rate.too_many(received):  # counted by arrival (baccarat.server.live.pacing)
                    raise Close(1008, "too many commands")
                frame: Any = None
                try:
                    frame = parse(message)
                    if not isinstance(frame, dict):
                        raise ConfigurationError.coded("command.not_object")
                    if watching:  # a staff account's socket watches the table; staff do not play (house/roles.py)
                        raise AuthorizationError.coded("auth.staff_cannot_play")
                    await socket.app.state.schema_watch.check_soon()  # no write on another schema (server.upgrading)
                    if peels.flooding(table_id, account_id, frame, received):
                        # an account's peels over their rate at this table: dropped, unanswered, and this socket
                        # read slower and slower while they come (the network's flow control slows the sender)
                        await asyncio.sleep(peels.backoff(table_id, account_id))
                        continue
                    paced = peels.too_soon(table_id, account_id, frame, received)
                    if isinstance(paced, BaccaratError):  # too soon after the last peel answered: its answer again,
                        raise paced.with_traceback(None)  # with no database work
                    if paced is not None:
                        await socket.send_json({"type": "ok", "key": None, "result": paced})
                        continue
                    # with the other sockets' commands in one transaction (group commit, see batch)
                    try:
                        result = await _batcher(socket.app, sessions).run(
                            SocketCommand(table_id, account_id, digest, frame, received),
                            table=table_id, received=received)
                    except BaccaratError as error:
                        peels.answered(table_id, account_id, frame, received, error)
                        raise
                    peels.answered(table_id, account_id, frame, received, cast(Peel, result))
                except BaccaratError as error:
                    if isinstance(frame, dict) and frame.get("type") == "bet":
                        metrics.bet_answered(table_id, error.code, received)
                    refused: ErrorFrame = {"type": "error", "error": type(error).__name__, "code": error.code,
                                           "params": error.params, "detail": str(error), "message": str(error)}
                    await socket.send_json(refused)
                    continue
                if frame.get("type") == "bet":
                    metrics.bet_answered(table_id, None, received)
                answered: OkFrame = {"type": "ok", "key": frame.get("key"), "result": result}  # (a str; a peel's: None)
                await socket.send_json(answered)
                # A bet's answer holds the player's seat, balance, bets and round: no state follows it (at a
                # crowded table that push, the whole view again, was much of the event loop's work in a burst);
                # the table's next push carries the layout's new totals.  A decision's changes are pushed now.
                # (a peel's or a turn's change reaches every watcher, this socket included, with the table's push)
                if frame.get("type") in ("decision", "take_back") or (frame.get("type") == "bet"
                                                                      and "seat" not in result):
                    await push(await asyncio.to_thread(you))
        finally:
            feed.leave(account_id, digest)
            if pusher is not None:
                pusher.remove_done_callback(pusher_ended)
                pusher.cancel()
            if not feed.watchers[account_id]:  # their last socket here: the seat's grace period starts
                # on a thread of its own, not awaited: this task may be being cancelled (the client vanished)
                asyncio.get_running_loop().run_in_executor(None, _mark_away, sessions, table_id, account_id,
                                                             socket.app.state.leases)
