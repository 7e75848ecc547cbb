"""Storage: the database engine and transactions, the table models and their Alembic migrations,
the server's settings, and storage faults (a full disk, a database that is down)."""
