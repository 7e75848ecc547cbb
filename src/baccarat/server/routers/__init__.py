"""The HTTP API's routes, one router per resource: accounts and sessions, games, tables, history,
fairness and the operator's routes.  :mod:`baccarat.server.app` includes them all."""

from baccarat.server.routers import accounts, fairness, games, history, operator, tables

ALL = (accounts.router, games.router, tables.router, history.router, fairness.router, operator.router)
