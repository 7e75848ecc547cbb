"""The table server: accounts, wallets and a double-entry ledger in a real database.

Layer: an edge (FastAPI, SQLAlchemy, Alembic).  Rules stay in the core; this
package stores what the core decides and moves money only through
:mod:`baccarat.server.wallet`.  Work in progress (issue 5): the database, the
migrations, accounts and the wallet are here; tables, rounds and the
WebSocket are not yet.
"""
