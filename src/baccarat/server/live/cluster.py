"""What each server process runs besides answering requests, so that any number of them can serve
one PostgreSQL database: the dealer, in the one process holding the dealer's lock
(:mod:`baccarat.server.live.leader`), and the listener that wakes this process's table sockets on every
change, whichever process made it (:mod:`baccarat.server.storage.notify`), and the renewal of this
process's table-socket leases (:mod:`baccarat.server.live.leases`).  On SQLite (one process) the process
deals and its table sockets poll.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress

from fastapi import FastAPI
from sqlalchemy import Engine

from baccarat.server.live import sockets as live
from baccarat.server.live.leader import Leadership, deal_while_leading
from baccarat.server.live.leases import Leases, renew_forever
from baccarat.server.storage import clock, notify
from baccarat.server.storage.db import on_postgresql
from baccarat.server.storage.settings import Settings

log = logging.getLogger("baccarat.server")

#: Seconds a stopping process waits for its group commit in flight (one transaction takes milliseconds).
DRAIN_SECONDS = 2.0


@asynccontextmanager
async def serving(app: FastAPI, engine: Engine, settings: Settings,
                  deal_forever: Callable[[], Awaitable[None]]) -> AsyncIterator[None]:
    """Run the dealer election and the listener for as long as the block runs."""
    leadership = app.state.leadership = Leadership(engine)
    pushes = notify.describe(engine) if settings.pushes != "poll" else "poll"
    app.state.pushes, app.state.resync = pushes, settings.resync_seconds
    app.state.process = os.getpid()
    listener = None
    if pushes == "notify":
        loop = asyncio.get_running_loop()

        def wake(ids: set[int]) -> None:  # from the listener's thread
            with suppress(RuntimeError):  # the loop is closing
                loop.call_soon_threadsafe(live.wake, app, ids)
        listener = notify.Listener(engine.url.render_as_string(hide_password=False), wake).start()
    app.state.listener = listener
    # the socket commands' group commit; the dealer waits for the bets in it that arrived before a close
    app.state.batcher = live.new_batcher(app.state.sessions, bulk=settings.bulk_bets)
    if getattr(app.state, "dealer", None) is not None:
        app.state.dealer.bets_waiting = app.state.batcher.waiting_before
    # this process's table sockets, counted with every other process's against the cap per account
    leases = app.state.leases = Leases(app.state.sessions)
    if not on_postgresql(engine):  # the database's only process: any lease there is a dead one's
        await asyncio.to_thread(leases.forget_others)
    if getattr(app.state, "dealer", None) is not None:  # a table watched from any process is dealt every window
        app.state.dealer.watched_since = leases.alive_since
    renewing = clock.spawn(renew_forever(leases))
    dealer = clock.spawn(deal_while_leading(leadership, deal_forever))
    try:
        yield
    finally:
        # stopping: the table sockets are closed and the requests finished (or cancelled after the grace, see
        # baccarat.cli.serve.STOP_GRACE); the group commit in flight is committed before anything else stops
        if not await app.state.batcher.drain(DRAIN_SECONDS):
            log.error("stopping: socket commands still being committed after %.0f s (none of them was answered)",
                      DRAIN_SECONDS)
        # then the dealer's lock is given up (its connection closed): another process deals at its next try
        for task in (dealer, renewing):
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task
        if listener is not None:
            await asyncio.to_thread(listener.stop)
