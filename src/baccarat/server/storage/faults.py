"""Storage faults: errors that mean the database cannot save (or be reached) right now.

A full disk, a database that turned read-only, a file that cannot be opened, or a PostgreSQL
server that is down are not bugs in a request: every request that writes fails the same way
until someone fixes the machine.  The server answers them ``503`` with ``Retry-After`` instead of
a bare ``500``, and logs them as one line at most every few seconds (:class:`FaultLog`) instead
of a traceback per request or per dealer tick.  ``baccarat serve`` uses the same words for a
database that cannot be opened at start-up.

>>> import sqlite3
>>> from sqlalchemy.exc import OperationalError
>>> full = OperationalError("INSERT INTO bet ...", {}, sqlite3.OperationalError("database or disk is full"))
>>> storage_problem(full)
'disk full'
>>> describe(full)  # the driver's words only: never the statement or its parameters
'database or disk is full'
>>> storage_problem(ValueError("no")) is None
True
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator

from baccarat.server.storage import logs

DISK_FULL = "disk full"
READ_ONLY = "database is read-only"
CANNOT_OPEN = "cannot open the database file"
DISK_ERROR = "disk I/O error"
UNREACHABLE = "database server unreachable"

#: SQLite primary result codes (``sqlite3.Error.sqlite_errorcode & 0xFF``) that mean the database cannot save.
_SQLITE_CODES = {13: DISK_FULL, 8: READ_ONLY, 14: CANNOT_OPEN, 10: DISK_ERROR}  # FULL, READONLY, CANTOPEN, IOERR
#: The same by message, for drivers and wrappers that lose the code.
_SQLITE_TEXTS = {"database or disk is full": DISK_FULL, "attempt to write a readonly database": READ_ONLY,
                 "unable to open database": CANNOT_OPEN, "disk i/o error": DISK_ERROR}
#: PostgreSQL SQLSTATEs (exact, then by class) that mean the server cannot save or cannot be reached.
_SQLSTATES = {"53100": DISK_FULL, "25006": READ_ONLY, "58030": DISK_ERROR, "53300": UNREACHABLE,
              "57P01": UNREACHABLE, "57P02": UNREACHABLE, "57P03": UNREACHABLE}
_SQLSTATE_CLASSES = {"08": UNREACHABLE}  # connection exceptions


def storage_problem(error: BaseException) -> str | None:
    """A short reason (one of the constants above) if ``error`` means the database cannot save or be
    reached right now, else ``None`` (a bug, a constraint, a lost race: not a storage fault).

    Looks through SQLAlchemy's wrapper (``.orig``) and the exception's causes.  A PostgreSQL
    error without a SQLSTATE from the driver (psycopg's connection refused, server closed the
    connection) and a connection SQLAlchemy found dead count as unreachable; PostgreSQL's other
    ``OperationalError`` kinds (serialization failure, deadlock, lock timeout, cancelled query) do not.
    """
    for link in _chain(error):
        code = getattr(link, "sqlite_errorcode", None)
        if isinstance(code, int) and code & 0xFF in _SQLITE_CODES:
            return _SQLITE_CODES[code & 0xFF]
        module = type(link).__module__
        if module == "sqlite3" or module.startswith("sqlite3."):
            text = str(link).lower()
            for words, reason in _SQLITE_TEXTS.items():
                if words in text:
                    return reason
        if module.startswith(("psycopg", "psycopg2", "asyncpg", "pg8000")):
            state = getattr(link, "sqlstate", None) or getattr(link, "pgcode", None)
            if isinstance(state, str):
                if state in _SQLSTATES or state[:2] in _SQLSTATE_CLASSES:
                    return _SQLSTATES.get(state) or _SQLSTATE_CLASSES[state[:2]]
            elif {kind.__name__ for kind in type(link).__mro__} & {"OperationalError", "InterfaceError"}:
                return UNREACHABLE  # raised by the client library itself: no connection to ask the server on
        if getattr(link, "connection_invalidated", False):  # sqlalchemy.exc.DBAPIError on a dead connection
            return UNREACHABLE
    return None


def describe(error: BaseException, *, limit: int = 200) -> str:
    """The first line of the driver's own message, at most ``limit`` characters.

    For a SQLAlchemy error this is the DBAPI error's text, never SQLAlchemy's rendering of it,
    which carries the SQL statement and its parameters (password hashes, tokens, shoe seeds).
    """
    inner = getattr(error, "orig", None)
    lines = [" ".join(line.split()) for line in str(inner if isinstance(inner, BaseException) else error).splitlines()]
    text = next((line for line in lines if line), type(error).__name__)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    todo: list[BaseException] = [error]
    while todo and len(seen) < 16:
        link = todo.pop(0)
        if id(link) in seen:
            continue
        seen.add(id(link))
        yield link
        todo.extend(e for e in (getattr(link, "orig", None), link.__cause__, link.__context__)
                    if isinstance(e, BaseException))


class FaultLog:
    """Logs storage faults as one line each, at most one line per reason every ``interval`` seconds.

    Each line says how many faults of that reason went unlogged since the previous one, so a disk
    that fills up during a busy evening gives a handful of lines, not a traceback per request.
    Safe to share between threads (the dealer runs in one, requests in others).
    """

    def __init__(self, logger: logging.Logger, *, interval: float = 10.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._logger = logger
        self._throttle = logs.Throttled(logger, every=interval, clock=clock)

    def report(self, reason: str, error: BaseException, *, consequence: str) -> bool:
        """Log ``reason`` (from :func:`storage_problem`) unless it was logged in the last interval;
        ``consequence`` says what the server does about it ("requests are answered 503").
        Returns whether a line was written."""
        quiet = self._throttle.due(reason)
        if quiet is None:
            return False
        since = f" ({quiet} more since the last report)" if quiet else ""
        self._logger.error("storage fault: %s: %s; %s%s", reason, describe(error), consequence, since)
        return True
