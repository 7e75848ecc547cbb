"""``GET /health`` (liveness: the process answers) and ``GET /ready`` (readiness: the service can take bets
and deal now), for a load balancer or an orchestrator's probes.

``/ready`` asks the database, in one read: that it answers, that its schema is at this code's newest
revisions, and that a process of the service holds the dealer's lock.  On PostgreSQL that process may be any
of the service's (several serve one database; one deals, :mod:`baccarat.server.live.leader`): a process that
does not deal is ready as long as another one does, since it takes bets for the rounds the other deals; the
answer names the dealing process.  On SQLite the one process deals: it is ready once its dealer runs.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import Field
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from baccarat.core.messages import render
from baccarat.server.api.refusals import RETRY_AFTER, refusal
from baccarat.server.api.responses import Answer, Health, Refusal
from baccarat.server.live.leader import dealer_process
from baccarat.server.storage import faults
from baccarat.server.storage.db import on_postgresql, read
from baccarat.server.storage.migrate import code_heads, database_heads

log = logging.getLogger("baccarat.server")

router = APIRouter(tags=["health"])

#: Milliseconds a statement of ``/ready`` may take on PostgreSQL before it counts as not answering.
STATEMENT_TIMEOUT_MS = 2000


class Readiness(Answer):
    status: Literal["ready"]
    database: Literal["sqlite", "postgresql"]
    migrations: list[str] = Field(description="the schema's revisions: the database's, which are this server's")
    dealer: int | None = Field(description="the operating system's id of the process that deals (it holds the "
                                           "dealer's lock); null when PostgreSQL does not show the holder's name")
    dealing_here: bool = Field(description="whether the process that answered is the one that deals")


@router.get("/health", response_model=Health)
def health() -> Health:
    """The server answers (it does not look at the database)."""
    return {"status": "ok"}


def _look(s: Session, postgresql: bool) -> tuple[frozenset[str], int | None]:
    connection = s.connection()
    if postgresql:
        connection.exec_driver_sql(f"SET LOCAL statement_timeout = {STATEMENT_TIMEOUT_MS}")
    return database_heads(connection), dealer_process(connection) if postgresql else None


def _not_ready(code: str, **params: Any) -> JSONResponse:
    return refusal(503, "NotReady", render(code, params), {"Retry-After": str(RETRY_AFTER)}, code=code, params=params)


@router.get("/ready", response_model=Readiness, responses={503: {
    "model": Refusal, "description": "not ready: the database does not answer (ready.database), its schema is not "
                                     "this server's (ready.migrations), or no process deals (ready.no_dealer)"}})
def ready(request: Request) -> Any:
    """The service can take bets and deal: the database answers, its migrations are this server's, and a process
    of the service holds the dealer's lock; else 503 naming the first that is not so."""
    state = request.app.state
    sessions, leadership = state.sessions, state.leadership
    postgresql = on_postgresql(sessions.kw["bind"])
    try:
        migrations, holder = read(sessions, lambda s: _look(s, postgresql))
    except SQLAlchemyError as error:
        # logged here in full; the answer, which anyone may read, names no host, path or driver message
        log.warning("not ready: the database does not answer (%s: %s)",
                    faults.storage_problem(error) or type(error).__name__, faults.describe(error))
        return _not_ready("ready.database")
    expected = code_heads()
    if migrations != expected:
        return _not_ready("ready.migrations", database=sorted(migrations), expected=sorted(expected))
    if postgresql:  # the database's word: this process's own flag lags a lost lock connection by a check
        if holder is None:
            return _not_ready("ready.no_dealer")
        dealer, here = holder, holder == os.getpid() or (holder == 0 and bool(leadership.leading))
    elif leadership.leading:
        dealer, here = os.getpid(), True
    else:
        return _not_ready("ready.no_dealer")
    return Readiness(status="ready", database="postgresql" if postgresql else "sqlite", migrations=sorted(migrations),
                     dealer=dealer or None, dealing_here=here)
