"""The HTTP API's routes, one router per resource: liveness and readiness (health), accounts and sessions,
games, tables, history, fairness, player protection, the staff's actions (operator), the operator console's reports,
lookup and audit trail (oversight), staff accounts and credit approvals (staff), and the answering process (server).
:mod:`baccarat.server.api.app` includes them all."""

# First: the answers' TypedDicts are given their pydantic config there before any route's model is built.
from baccarat.server.api import responses  # noqa: F401
from baccarat.server.api.routers import (
    accounts,
    fairness,
    games,
    health,
    history,
    operator,
    oversight,
    protection,
    server,
    staff,
    tables,
)

ALL = (health.router, accounts.router, games.router, tables.router, history.router, fairness.router,
       protection.router, operator.router, oversight.router, staff.router, server.router)
