"""Engines and transactions for SQLite (default) and PostgreSQL.

SQLite runs in WAL mode with ``synchronous=FULL`` (a committed transaction
survives a crash or power loss) and every writing transaction starts with
``BEGIN IMMEDIATE``; writers queue in this process on a first-come lock, and
readers (:func:`read`) take snapshots that never wait for them.

PostgreSQL runs ``READ COMMITTED`` with ``synchronous_commit`` on and explicit
row locks where transactions meet: a bet or a decision holds its round's row
``FOR SHARE``, the dealer and the operator take it ``FOR UPDATE`` (so a bet is
either in the round the dealer settles, or refused because the round moved on);
a wallet changes only by a conditional ``UPDATE`` (``balance + amount >= 0``);
uniqueness (one bet per wager, one answer per idempotency key, one seat each)
is a constraint.  :func:`transaction` retries a transaction that lost a race to
a deadlock or to a concurrent duplicate; on the retry it finds the other's row
and answers as for any duplicate.  (SERIALIZABLE gave the same guarantees but,
with its page-level predicate locks, failed most concurrent bets on one round and
confirmed far fewer a second: ``benchmarks/server_load.py`` measures it.)
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import (
    ARRAY,
    JSON,
    Engine,
    String,
    Table,
    Text,
    any_,
    bindparam,
    cast,
    column,
    create_engine,
    event,
    func,
    insert,
    select,
)
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from baccarat.server.storage import metrics

T = TypeVar("T")

RETRIES = 20


def sqlite_url(data_dir: Path) -> str:
    """The default database: ``baccarat.sqlite3`` in the data directory."""
    return f"sqlite:///{(data_dir / 'baccarat.sqlite3').resolve()}"


#: Seconds to wait for a PostgreSQL server to answer a new connection (libpq's ``connect_timeout``).
CONNECT_SECONDS = 10


def make_engine(url: str) -> Engine:
    """An engine with the durability settings above."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _pragmas(connection: Any, _record: Any) -> None:
            connection.isolation_level = None  # let SQLAlchemy's BEGIN below be the only BEGIN
            cursor = connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=FULL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _begin(connection: Any) -> None:
            # Readers (see read()) take a snapshot and, in WAL mode, never wait for the writer.
            reading = connection.get_execution_options().get("reading")
            connection.exec_driver_sql("BEGIN" if reading else "BEGIN IMMEDIATE")

        metrics.watch_pool(engine)
        return engine
    # a database host that accepts and then says nothing must not hold a request (or /ready) for ever: libpq's
    # connect_timeout, unless the URL sets its own
    timeout = {} if "connect_timeout=" in url else {"connect_timeout": CONNECT_SECONDS}
    # a commit is on disk when it is acknowledged, whatever the server's own default says
    durable = {} if "options=" in url else {"options": "-c synchronous_commit=on"}
    engine = create_engine(url, isolation_level="READ COMMITTED", pool_pre_ping=True,
                           connect_args={**timeout, **durable})
    metrics.watch_pool(engine)
    return engine


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


def retryable(error: DBAPIError) -> bool:
    """A lost race (deadlock, serialization failure, concurrent duplicate, a locked SQLite): try again."""
    code = getattr(error.orig, "sqlstate", None) or getattr(error.orig, "pgcode", None)
    if code in ("40001", "40P01", "23505"):  # serialization failure, deadlock, a concurrent duplicate
        return True
    return isinstance(error, OperationalError) and "database is locked" in str(error.orig)


class FairLock:
    """A re-entrant lock granted in the order it was asked for.

    ``threading.RLock`` lets the thread that releases it take it straight back, so the dealer
    settling twenty rounds in a row would keep every bet waiting for all twenty; here a bet that
    arrived during one round's settlement goes before the next round.
    """

    def __init__(self) -> None:
        self._state = threading.Condition(threading.Lock())
        self._next_ticket = 0
        self._serving = 0
        self._abandoned: set[int] = set()
        self._owner: int | None = None
        self._depth = 0

    def __enter__(self) -> FairLock:
        me = threading.get_ident()
        with self._state:
            if self._owner == me:
                self._depth += 1
                return self
            ticket = self._next_ticket
            self._next_ticket += 1
            try:
                while self._serving != ticket:
                    self._state.wait()
            except BaseException:  # interrupted while waiting: give the turn up
                self._abandoned.add(ticket)
                self._advance()
                raise
            self._owner, self._depth = me, 1
        return self

    def __exit__(self, *_: object) -> None:
        with self._state:
            self._depth -= 1
            if self._depth == 0:
                self._owner = None
                self._serving += 1
                self._advance()

    def _advance(self) -> None:
        while self._serving in self._abandoned:
            self._abandoned.discard(self._serving)
            self._serving += 1
        self._state.notify_all()


#: One writer at a time per SQLite database in this process.  SQLite allows one writer anyway; a
#: writer that finds the database locked sleeps in SQLite's busy handler for up to 100 ms at a
#: time, whereas one waiting on this lock starts the moment the previous commit ends.
_SQLITE_WRITERS: dict[str, FairLock] = {}
_REGISTRY = threading.Lock()


def _writer_lock(sessions: sessionmaker[Session]) -> AbstractContextManager[Any]:
    bind = sessions.kw.get("bind")
    if not isinstance(bind, Engine) or bind.dialect.name != "sqlite":
        return nullcontext()
    with _REGISTRY:
        return _SQLITE_WRITERS.setdefault(str(bind.url), FairLock())


def transaction(sessions: sessionmaker[Session], work: Callable[[Session], T]) -> T:
    """Run ``work`` in one transaction, committed durably before returning; retried on a lost race."""
    return _run(sessions, work, reading=False)


def read(sessions: sessionmaker[Session], work: Callable[[Session], T]) -> T:
    """Run read-only ``work`` on one consistent snapshot; on SQLite it never waits for a writer."""
    return _run(sessions, work, reading=True)


def _run(sessions: sessionmaker[Session], work: Callable[[Session], T], *, reading: bool) -> T:
    for attempt in range(RETRIES):
        if reading:
            bind = sessions.kw["bind"]
            opened = Session(bind.execution_options(reading=True), expire_on_commit=False)
            lock: AbstractContextManager[Any] = nullcontext()
        else:
            opened, lock = sessions(), _writer_lock(sessions)
        with lock, opened as session:
            try:
                with session.begin():
                    return work(session)
            except DBAPIError as error:
                if not retryable(error) or attempt == RETRIES - 1:
                    raise
        time.sleep(min(0.001 * 2**attempt, 0.2))
    raise AssertionError("unreachable")  # pragma: no cover


@contextmanager
def connect(url: str) -> Iterator[sessionmaker[Session]]:
    """Sessions on ``url``, the engine disposed of afterwards."""
    engine = make_engine(url)
    try:
        yield session_factory(engine)
    finally:
        engine.dispose()


def among(column: Any, name: str, postgresql: bool) -> Any:
    """``column`` is one of the values of the list parameter ``name``: ``= ANY(array)`` on PostgreSQL (one
    parameter however long the list: an ``IN`` list of 2,000 was compiled and parsed anew for every
    statement), ``IN (...)`` elsewhere."""
    if postgresql:
        return column == any_(bindparam(name, type_=ARRAY(column.type)))
    return column.in_(bindparam(name, expanding=True))


def _record_type(column: Any) -> Any:
    """A JSON row's type for ``column``: a string without its length, so that the column itself refuses
    a longer string, as for a row written alone (the arrays before these rows were cast to
    ``VARCHAR(n)[]``, which cut a longer string short, silently)."""
    return String() if isinstance(column.type, String) else column.type


def unnested(table: Table, columns: tuple[str, ...]) -> Any:
    """PostgreSQL: the rows of one JSON parameter (``given``, made by :func:`given`: a list of objects keyed by
    column name) as a ``FROM`` item whose columns are ``columns``, typed as ``table``'s.  An ``UPDATE ... FROM``
    it changes a row once however often its key is given: each key must be given once.

    One JSON text, not an array per column: psycopg builds each array element by element in Python (for a
    large batch, interpreter time held from the event loop), where the standard library's encoder writes the
    whole text in C."""
    rows = func.json_to_recordset(cast(bindparam("given", type_=Text), JSON))
    return rows.table_valued(*(column(name, _record_type(table.c[name])) for name in columns)
                             ).render_derived(name="given", with_types=True)


def _json_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()  # with its offset: PostgreSQL reads the same moment
    raise TypeError(f"no JSON form for {type(value).__name__} in a row")


def given(rows: Sequence[Mapping[str, object]]) -> dict[str, str]:
    """The parameter of :func:`unnested` for ``rows`` (the same keys in each, column names)."""
    return {"given": json.dumps(rows, default=_json_value, separators=(",", ":"))}


@lru_cache(maxsize=64)
def _insert_unnested(table: Table, columns: tuple[str, ...]) -> Any:
    given = unnested(table, columns)
    return insert(table).from_select(list(columns), select(*(given.c[name] for name in columns)))


def insert_rows(connection: Any, table: Table, rows: Sequence[Mapping[str, object]]) -> None:
    """``rows`` (the same keys in each, column names) into ``table``.

    On PostgreSQL in one statement, the rows as one JSON parameter (:func:`unnested`): an ``executemany`` sends
    each row as a statement of its own, which the server runs one by one (a burst's batch has several rows a
    bet: the statements were most of its time).  Elsewhere an ``executemany`` (SQLite runs it in one C loop)."""
    if not rows:
        return
    if on_postgresql(connection):
        connection.execute(_insert_unnested(table, tuple(rows[0])), given(rows))
    else:
        connection.execute(insert(table), rows)


@lru_cache(maxsize=16)
def _new_ids(table: Table) -> Any:
    sequence = func.pg_get_serial_sequence(table.name, "id")
    return select(func.nextval(sequence)).select_from(func.generate_series(1, bindparam("count")))


def new_ids(connection: Any, table: Table, count: int) -> list[int]:
    """PostgreSQL: ``count`` new ids of ``table`` from its ``id`` column's sequence (rows inserted with
    them in one statement, :func:`insert_rows`, then need no ``RETURNING``, whose order PostgreSQL
    does not promise)."""
    return list(connection.execute(_new_ids(table), {"count": count}).scalars())


def on_postgresql(connection: Any) -> bool:
    """Whether ``connection`` (an engine, a connection or a session's bind) talks to PostgreSQL: the server's
    one test for it (the queries built with :func:`among`, the advisory locks, LISTEN/NOTIFY, several
    processes); the migrations, written once and never changed, keep their own."""
    return bool(connection.dialect.name == "postgresql")
