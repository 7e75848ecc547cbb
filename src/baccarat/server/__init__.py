"""The table server: tables played live over REST and a WebSocket, with wallets and a double-entry
ledger in a real database (SQLite, or PostgreSQL for several processes).

The sub-packages, each importing only from those below it:

* :mod:`~baccarat.server.api`: the FastAPI app, its routers per resource, request and response
  schemas, refusals and their codes, and the browser page;
* :mod:`~baccarat.server.live`: the table WebSocket, its feeds, group commit and bulk bets, and what
  lets several processes serve one database (the dealer's lock, LISTEN/NOTIFY);
* :mod:`~baccarat.server.house`: accounts, operator actions, lookup and reports;
* :mod:`~baccarat.server.playing`: tables, seating, betting, dealing and what a client may see of
  them (views on the table's timeline, history, fairness);
* :mod:`~baccarat.server.storage`: the database, its models and migrations, settings and storage
  faults.

Rules stay in :mod:`baccarat.core`: the server stores what the core decides, and moves money only
through :mod:`baccarat.server.house.wallet`.
"""
