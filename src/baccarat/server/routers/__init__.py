"""The HTTP API's routes, one router per resource: accounts and sessions, games, tables, history,
fairness, player protection, the operator's actions and the operator console's reports, lookup and
audit trail (oversight).  :mod:`baccarat.server.app` includes them all."""

from baccarat.server.routers import accounts, fairness, games, history, operator, oversight, protection, tables

ALL = (accounts.router, games.router, tables.router, history.router, fairness.router, protection.router,
       operator.router, oversight.router)
