"""The HTTP API (FastAPI): the application shell.  Routes live in routers per resource
(:mod:`baccarat.server.api.routers`), request bodies in :mod:`baccarat.server.api.requests`, answers as the
services' TypedDicts (:mod:`baccarat.server.api.responses`: so ``/openapi.json`` documents each one), refusals in
:mod:`baccarat.server.api.refusals`; the table WebSocket is in :mod:`baccarat.server.live.sockets` and the page
in :mod:`baccarat.server.api.web`.  Here: the database migrated and the dealer started with the app.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from baccarat.server.api import contract, refusals, routers, web
from baccarat.server.api.body_limit import BodyLimit
from baccarat.server.api.schema_gate import SchemaGate
from baccarat.server.house import accounts, audit, audit_heads, audit_keys, seed_keys
from baccarat.server.house.rate_limits import HashGate, LoginLimiter
from baccarat.server.live import cluster
from baccarat.server.live import sockets as live
from baccarat.server.playing import dealing, definitions, tables
from baccarat.server.playing.dealer import LATE_BETS, Dealer
from baccarat.server.storage import clock, faults, metrics
from baccarat.server.storage.db import make_engine, read, session_factory, transaction
from baccarat.server.storage.migrate import upgrade
from baccarat.server.storage.schema_watch import CHECK_SECONDS, NotReadyError, SchemaWatch
from baccarat.server.storage.settings import Settings

log = logging.getLogger("baccarat.server")

#: How often the dealer looks for rounds whose betting window has closed.
DEAL_INTERVAL = 0.1


async def _deal_forever(dealer: Dealer, schema: SchemaWatch) -> None:
    """Deal every due round, forever, while the database's schema is this server's.  A round that fails waits and
    is voided after repeated failures (see :mod:`baccarat.server.playing.dealer`); this loop survives even a
    failure to list the due rounds."""
    metrics.DEALING.set(1)
    try:
        await _deal_loop(dealer, schema)
    finally:  # cancelled: the dealer's lock was lost or given up
        metrics.DEALING.set(0)


async def _deal_loop(dealer: Dealer, schema: SchemaWatch) -> None:
    while True:
        try:
            await schema.check_soon()  # on another schema nothing is dealt (said once in the log)
            await asyncio.to_thread(dealer.deal_due)
            metrics.count_shown()  # the payouts of results now shown (never counted at the deal)
        except NotReadyError:
            await clock.sleep(CHECK_SECONDS)
            continue
        except Exception as error:  # the database itself is away: try again shortly
            problem = faults.storage_problem(error)
            if problem is None:
                log.exception("cannot look for rounds to deal")
            else:
                dealer.storage.report(problem, error, consequence="no round is dealt")
            await clock.sleep(1.0)
        await clock.sleep(DEAL_INTERVAL)


#: The cyclic collector's thresholds in a server process (Python's are 700, 10, 10).  A crowded table's sockets
#: keep a great many objects alive; with Python's thresholds full collections, each stopping the event loop,
#: ran again and again during a burst of bets, and each one was a queue of late answers.
COLLECTOR_THRESHOLDS = (50_000, 20, 100)
#: Seconds a thread holds the interpreter before another waiting for it gets it (Python's is 0.005).  A group
#: commit's thread and a feed's read thread hold it for whole switch intervals while the event loop waits to
#: read a bet off the network or to push; with a shorter interval a bet is read, and stamped as arrived, sooner
#: after it came in, so that (with the feed's slices) a bet sent just before the close is not refused as late.
#: The benchmarks (``benchmarks/``) measure it.
SWITCH_INTERVAL = 0.001


def tune_for_serving() -> None:
    """Set up the interpreter for a long-running server process: what was loaded at start-up (modules,
    classes, functions: the test checks there are many) is frozen out of every later collection,
    collections run less often (:data:`COLLECTOR_THRESHOLDS`), and threads take turns more often
    (:data:`SWITCH_INTERVAL`).  Memory freed by reference counting, nearly all of it, is freed at once as
    before; only cycles wait longer."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)
    sys.setswitchinterval(SWITCH_INTERVAL)


def served_app() -> FastAPI:
    """The application of one ``baccarat serve --workers N`` process (settings from the environment),
    with its interpreter set up for serving (:func:`tune_for_serving`)."""
    tune_for_serving()
    return create_app()


def create_app(settings: Settings | None = None) -> FastAPI:
    """The application; the database is migrated to the newest schema when it starts."""
    settings = settings or Settings()
    url = settings.url
    accounts.use_password_cost(settings.password_cost)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        upgrade(url)
        engine = make_engine(url)
        sessions = session_factory(engine)
        # every audit entry this process records is signed, in its own transaction, with a key kept
        # outside the database (made at the first start when none is configured)
        signing_key = audit_keys.ensure_key(settings)
        settings.check_audit_heads_place()
        audit.use_key(sessions, signing_key)
        # the shoes' seeds sealed under a key the database never holds (refused if the shoes in play need another)
        seed_key = read(sessions, lambda s: seed_keys.ready_key(s, settings))
        seed_keys.use(seed_key)
        sealed = transaction(sessions, lambda s: seed_keys.seal_in_clear(s, seed_key))
        if sealed:
            log.warning("seeds: sealed the seeds of %d shoes in play stored in clear (made before seeds were sealed)",
                        sealed)
        app.state.sessions = sessions
        app.state.signing_key = signing_key  # the house's signature on a history export, too (its own label)
        app.state.schema_watch = schema = SchemaWatch(sessions)  # no write on a schema this code was not built for
        app.state.limiter = LoginLimiter(sessions)  # counted in the database: every process sees the attempts
        # the rules-file games stored with the data, served by every process however it was started
        transaction(sessions, definitions.load_stored)
        transaction(sessions, lambda s: tables.ensure_default_tables(s, betting_seconds=settings.betting_seconds))
        repaired = transaction(sessions, dealing.repair_deadlines)
        if repaired:
            log.warning("%d round deadlines lay beyond one window ahead (the clock stepped back?): pulled in", repaired)
        transaction(sessions, accounts.repair_token_lifetimes)
        app.state.dealer = Dealer(sessions, seat_grace=settings.seat_grace_seconds,
                                  sit_out_rounds=settings.sit_out_rounds, late=LATE_BETS)
        async with (audit_heads.signing(sessions, signing_key, settings.audit_heads_path,
                                        every=settings.audit_head_seconds),
                    cluster.serving(app, engine, settings, lambda: _deal_forever(app.state.dealer, schema))):
            yield  # the dealer runs in the one process holding the dealer's lock (see baccarat.server.live.leader)
        engine.dispose()

    app = FastAPI(title="baccarat table server", version="0.1.0", lifespan=lifespan,
                  generate_unique_id_function=contract.operation_id)
    app.openapi = contract.documented(app, routers.ALL)  # type: ignore[method-assign]
    app.state.settings = settings
    app.state.hashing = HashGate()  # scrypt outside every transaction: one per core at most, at a lower OS priority
    refusals.install(app)
    app.add_middleware(SchemaGate)
    app.add_middleware(BodyLimit)
    app.add_middleware(contract.MethodsAllowed)

    for router in routers.ALL:
        app.include_router(router)
    live.install(app, settings.allowed_origins)
    web.install(app)
    return app
