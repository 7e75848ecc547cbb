"""The table WebSocket: live table state for each player, and bets and decisions as commands.

Protocol (JSON text frames):

* The client's first frame authenticates: ``{"type": "auth", "token": "..."}`` (tokens never
  travel in URLs).  A browser's ``Origin`` must be the server's own (the page it served) or an allowed one.
* The server sends ``{"type": "state", "table": {...}, "you": {...}}`` at once and whenever the
  table changes: the public table view (never a seed before its shoe ends, never a card not dealt
  face up) and the player's own seat, balance and bets on the open round.
* Commands: ``{"type": "bet", "key": "...", "bets": {...}}`` and ``{"type": "decision", "key": "...",
  "action": "draw"|"stand"}``.  Each has an idempotency key: a replayed command is answered from
  its stored result.  Answers: ``{"type": "ok", "key", "result"}`` or ``{"type": "error", "detail"}``.
* Limits: frames of at most :data:`MAX_FRAME` bytes, at most :data:`MAX_RATE` commands per second;
  beyond that the connection is closed (1009 / 1008).  A malformed frame gets an error and changes
  nothing.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from typing import Any, cast

from fastapi import FastAPI, WebSocket, WebSocketDisconnect
from sqlalchemy import Table, bindparam, select
from sqlalchemy.orm import Session, sessionmaker

from baccarat.errors import AuthenticationError, BaccaratError, ConfigurationError
from baccarat.server import accounts, tables, wallet
from baccarat.server.db import read, transaction
from baccarat.server.models import Bet, Seat

MAX_FRAME = 4096
MAX_RATE = 50  #: commands per second per connection
POLL = 0.2  #: how often a connection looks for changes to push


class TableFeed:
    """One poller per watched table: the public view is read once per :data:`POLL` for all its
    sockets (not once per socket); when it changes, every watcher's own state is read in the same
    snapshot (three queries for the table, not three per socket), :attr:`version` goes up and the
    sockets wake."""

    def __init__(self, sessions: sessionmaker[Session], table_id: int):
        self.sessions, self.table_id = sessions, table_id
        self.view: dict[str, Any] | None = None
        self.text = "null"  #: the view as JSON
        self.yours: dict[int, dict[str, Any]] = {}
        self.version = 0
        self.changed = asyncio.Condition()
        self.watchers: Counter[int] = Counter()  #: account id -> open sockets
        self.task: asyncio.Task[None] | None = None

    def _read(self, accounts: list[int]) -> tuple[dict[str, Any], dict[int, dict[str, Any]] | None]:
        def work(s: Session) -> tuple[dict[str, Any], dict[int, dict[str, Any]] | None]:
            view = tables.table_view(s, self.table_id)
            return view, (None if view == self.view else _yours(s, self.table_id, accounts))
        return read(self.sessions, work)

    async def run(self) -> None:
        while self.watchers:
            # the watcher list is copied here, on the event loop that changes it, not in the thread
            view, yours = await asyncio.to_thread(self._read, list(self.watchers))
            if yours is not None:
                async with self.changed:
                    self.view, self.yours, self.version = view, yours, self.version + 1
                    self.text = json.dumps(view)  # encoded once for all the table's sockets
                    self.changed.notify_all()
            await asyncio.sleep(POLL)

    async def wait_newer(self, version: int) -> None:
        async with self.changed:
            await self.changed.wait_for(lambda: self.version > version)


def _feed(app: FastAPI, sessions: sessionmaker[Session], table_id: int) -> TableFeed:
    feeds: dict[int, TableFeed] = app.state.__dict__.setdefault("feeds", {})
    feed = feeds.get(table_id)
    if feed is None or feed.task is None or feed.task.done():
        feed = feeds[table_id] = TableFeed(sessions, table_id)
    return feed


_SEATS = cast(Table, Seat.__table__)
_BETS = cast(Table, Bet.__table__)
_YOUR_SEATS = select(_SEATS.c.account_id, _SEATS.c.number).where(
    _SEATS.c.table_id == bindparam("table"), _SEATS.c.account_id.in_(bindparam("accounts", expanding=True)))
_YOUR_BETS = select(_BETS.c.account_id, _BETS.c.wager, _BETS.c.amount).where(
    _BETS.c.round_id == bindparam("round"), _BETS.c.account_id.in_(bindparam("accounts", expanding=True)))


def _yours(s: Session, table_id: int, account_ids: list[int]) -> dict[int, dict[str, Any]]:
    """Each account's seat, balance and bets on the table's round in play (betting or deciding)."""
    connection = s.connection()
    params: dict[str, Any] = {"table": table_id, "accounts": account_ids}
    seats = {account_id: number for account_id, number in connection.execute(_YOUR_SEATS, params)}
    balances = dict(wallet.balances(s, account_ids))
    bets: dict[int, dict[str, int]] = {}
    current = tables.round_in_play(s, table_id)
    if current is not None:
        for account_id, wager, amount in connection.execute(_YOUR_BETS, {**params, "round": current.id}):
            bets.setdefault(account_id, {})[wager] = amount
    return {a: {"seat": seats.get(a), "balance": balances.get(a), "bets": bets.get(a, {})} for a in account_ids}


def _command(s: Session, table_id: int, account_id: int, frame: dict[str, Any]) -> dict[str, Any]:
    kind, key = frame.get("type"), frame.get("key")
    if not isinstance(key, str):
        raise ConfigurationError("a command needs a 'key' (idempotency key)")
    if kind == "bet":
        bets = frame.get("bets")
        if not isinstance(bets, dict) or not all(isinstance(k, str) and type(v) is int for k, v in bets.items()):
            raise ConfigurationError("'bets' is wager code -> amount in minor units")
        return wallet.idempotent(s, account_id, key, {"table": table_id, "bets": bets},
                                 lambda: tables.place_bets(s, table_id, account_id, bets))
    if kind == "decision":
        action = frame.get("action")
        if action not in ("draw", "stand"):
            raise ConfigurationError("'action' is 'draw' or 'stand'")
        return wallet.idempotent(s, account_id, key, {"table": table_id, "action": action},
                                 lambda: tables.decide(s, table_id, account_id, action))
    raise ConfigurationError("unknown command: 'type' is 'bet' or 'decision'")


def install(app: FastAPI, allowed_origins: tuple[str, ...]) -> None:
    """Add ``/ws/tables/{table_id}`` to ``app``."""

    @app.websocket("/ws/tables/{table_id}")
    async def table_socket(socket: WebSocket, table_id: int) -> None:
        origin = socket.headers.get("origin")
        same_site = {f"{scheme}://{socket.headers.get('host')}" for scheme in ("http", "https")}
        if origin is not None and origin not in allowed_origins and origin not in same_site:
            await socket.close(code=1008, reason="origin not allowed")
            return
        await socket.accept()
        sessions: sessionmaker[Session] = socket.app.state.sessions
        try:
            first = json.loads(await asyncio.wait_for(socket.receive_text(), timeout=10))
            token = first.get("token") if isinstance(first, dict) and first.get("type") == "auth" else None

            def auth(s: Session) -> int:
                tables.table_view(s, table_id)  # an unknown table is refused here
                return accounts.authenticate(s, token).id

            account_id = await asyncio.to_thread(read, sessions, auth)
        except (AuthenticationError, BaccaratError, ValueError, TimeoutError, AttributeError) as error:
            await socket.close(code=1008, reason=str(error)[:100] or "authenticate first")
            return
        except WebSocketDisconnect:
            return

        feed = _feed(socket.app, sessions, table_id)
        feed.watchers[account_id] += 1
        if feed.task is None or feed.task.done():
            feed.task = asyncio.create_task(feed.run())
        stamps: list[float] = []
        seen = -1
        waiter: asyncio.Task[None] | None = None
        receiver: asyncio.Task[Any] | None = None

        def you() -> dict[str, Any]:
            return read(sessions, lambda s: _yours(s, table_id, [account_id])[account_id])

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
            await push()
            waiter = asyncio.create_task(feed.wait_newer(seen))
            receiver = asyncio.create_task(socket.receive())
            while True:
                done, _ = await asyncio.wait({waiter, receiver}, return_when=asyncio.FIRST_COMPLETED)
                if waiter in done:
                    await push()
                    waiter = asyncio.create_task(feed.wait_newer(seen))
                if receiver not in done:
                    continue
                message = receiver.result()
                if message["type"] == "websocket.disconnect":
                    return
                receiver = asyncio.create_task(socket.receive())
                raw = message.get("text") if message.get("text") is not None else message.get("bytes")
                if raw is None or len(raw) > MAX_FRAME:
                    await socket.close(code=1009, reason="frame too large")
                    return
                now = time.monotonic()
                stamps = [t for t in stamps if now - t < 1.0] + [now]
                if len(stamps) > MAX_RATE:
                    await socket.close(code=1008, reason="too many commands")
                    return
                try:
                    frame = json.loads(raw)
                    if not isinstance(frame, dict):
                        raise ConfigurationError("a command is a JSON object")
                    result = await asyncio.to_thread(
                        transaction, sessions, lambda s, f=frame: _command(s, table_id, account_id, f))
                    await socket.send_json({"type": "ok", "key": frame.get("key"), "result": result})
                    # the player's own seat, balance and bets have changed: a bet's answer holds them all
                    mine = ({key: result[key] for key in ("seat", "balance", "bets")}
                            if frame.get("type") == "bet" and "seat" in result else None)
                    await push(mine)
                except (BaccaratError, ValueError, UnicodeDecodeError) as error:
                    detail = str(error) if isinstance(error, BaccaratError) else "malformed frame: not JSON"
                    await socket.send_json({"type": "error", "detail": detail})
        except WebSocketDisconnect:
            return
        finally:
            feed.watchers[account_id] -= 1
            if feed.watchers[account_id] <= 0:
                del feed.watchers[account_id]
            for task in (waiter, receiver):
                if task is not None:
                    task.cancel()
