"""The table WebSocket: live table state for each player, and bets and decisions as commands.

Protocol (JSON text frames):

* The client's first frame authenticates: ``{"type": "auth", "token": "..."}`` (tokens never
  travel in URLs).  A browser's ``Origin`` must be one of the allowed origins.
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
from typing import Any

from fastapi import FastAPI, WebSocket, WebSocketDisconnect
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from baccarat.errors import AuthenticationError, BaccaratError, ConfigurationError
from baccarat.server import accounts, tables, wallet
from baccarat.server.db import transaction
from baccarat.server.models import Bet, Seat

MAX_FRAME = 4096
MAX_RATE = 50  #: commands per second per connection
POLL = 0.2  #: how often a connection looks for changes to push


class TableFeed:
    """One poller per watched table: the public view is read once per :data:`POLL` for all its
    sockets (not once per socket), and a change bumps :attr:`version` and wakes the sockets."""

    def __init__(self, sessions: sessionmaker[Session], table_id: int):
        self.sessions, self.table_id = sessions, table_id
        self.view: dict[str, Any] | None = None
        self.version = 0
        self.changed = asyncio.Condition()
        self.watchers = 0
        self.task: asyncio.Task[None] | None = None

    def _read(self) -> dict[str, Any]:
        with self.sessions() as s:
            return tables.table_view(s, self.table_id)

    async def run(self) -> None:
        while self.watchers:
            view = await asyncio.to_thread(self._read)
            if view != self.view:
                async with self.changed:
                    self.view, self.version = view, self.version + 1
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


def _you(s: Session, table_id: int, account_id: int) -> dict[str, Any]:
    seat = s.scalar(select(Seat.number).where(Seat.table_id == table_id, Seat.account_id == account_id))
    current = tables.open_round(s, table_id)
    bets = {} if current is None else {
        b.wager: b.amount for b in s.scalars(select(Bet).where(Bet.round_id == current.id,
                                                              Bet.account_id == account_id))}
    return {"seat": seat, "balance": wallet.balance(s, account_id), "bets": bets}


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
        if origin is not None and origin not in allowed_origins:
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

            account_id = await asyncio.to_thread(transaction, sessions, auth)
        except (AuthenticationError, BaccaratError, ValueError, TimeoutError, AttributeError) as error:
            await socket.close(code=1008, reason=str(error)[:100] or "authenticate first")
            return
        except WebSocketDisconnect:
            return

        feed = _feed(socket.app, sessions, table_id)
        feed.watchers += 1
        if feed.task is None or feed.task.done():
            feed.task = asyncio.create_task(feed.run())
        stamps: list[float] = []
        seen = -1
        waiter: asyncio.Task[None] | None = None
        receiver: asyncio.Task[Any] | None = None

        def you() -> dict[str, Any]:
            with sessions() as s:
                return _you(s, table_id, account_id)

        async def push(mine: dict[str, Any] | None = None) -> None:
            nonlocal seen
            if feed.view is None:
                await feed.wait_newer(0)
            seen = feed.version
            await socket.send_json({"type": "state", "table": feed.view,
                                    "you": mine or await asyncio.to_thread(you)})

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
            feed.watchers -= 1
            for task in (waiter, receiver):
                if task is not None:
                    task.cancel()
