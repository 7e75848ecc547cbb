"""The HTTP API's routes, one router per resource: liveness and readiness (health), accounts and sessions,
games, tables, history, fairness, player protection, the operator's actions, the operator console's reports, lookup and
audit trail (oversight), and the answering process (server).  :mod:`baccarat.server.api.app` includes
them all."""

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
    tables,
)

ALL = (health.router, accounts.router, games.router, tables.router, history.router, fairness.router,
       protection.router, operator.router, oversight.router, server.router)
