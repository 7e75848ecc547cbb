"""Table changes announced through PostgreSQL LISTEN/NOTIFY, so that every server process pushes
them at once without polling the database.

A transaction that changes what a table shows marks it with :func:`changed`; just before it
commits, one ``NOTIFY baccarat_tables, '<ids>'`` is sent with it.  PostgreSQL delivers a
notification only when (and if) its transaction commits, so a listener never wakes for a change
that was rolled back, and never before the change can be read.

Each server process keeps one listening connection (:class:`Listener`, a thread with its own
psycopg connection) that hands the table ids to a callback (the table feeds of
:mod:`baccarat.server.live.sockets`).  A listener that loses its connection reconnects and wakes every
table (notifications sent meanwhile are lost).  SQLite has no notifications: its feeds poll.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from baccarat.server.storage.db import on_postgresql

log = logging.getLogger("baccarat.server")

CHANNEL = "baccarat_tables"
#: The id that stands for every table (a signed-out token may be watching any of them).
EVERY_TABLE = 0
_KEY = "baccarat_changed_tables"
_NOTIFY = text("SELECT pg_notify(:channel, :payload)")


def changed(s: Session, table_id: int) -> None:
    """This transaction changes what table ``table_id`` shows (:data:`EVERY_TABLE`: any table)."""
    s.info.setdefault(_KEY, set()).add(table_id)


@event.listens_for(Session, "before_commit")
def _announce(session: Session) -> None:
    """One NOTIFY for all the tables the transaction changed (PostgreSQL only)."""
    ids = session.info.pop(_KEY, None)
    if not ids or not on_postgresql(session.get_bind()):
        return
    session.connection().execute(_NOTIFY, {"channel": CHANNEL, "payload": ",".join(map(str, sorted(ids)))})


@event.listens_for(Session, "after_rollback")
def _forget(session: Session) -> None:
    session.info.pop(_KEY, None)


def parse(payload: str) -> set[int]:
    """The table ids of a notification's payload (a malformed one wakes every table).

    >>> sorted(parse("3,1"))
    [1, 3]
    >>> parse("x")
    {0}
    """
    try:
        return {int(part) for part in payload.split(",") if part}
    except ValueError:
        return {EVERY_TABLE}


def libpq_url(url: str) -> str:
    """A SQLAlchemy PostgreSQL URL as psycopg takes it (no ``+driver``), password included."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


#: Seconds the listening thread waits for a notification before it looks whether it should stop.
STOP_WAIT = 0.05


class Listener:
    """LISTEN on :data:`CHANNEL` in a thread of its own; ``wake`` gets each notification's table ids
    (from that thread: the caller hands them to its event loop)."""

    def __init__(self, url: str, wake: Callable[[set[int]], None], *, reconnect_pause: float = 1.0) -> None:
        self.url, self.wake, self.pause = libpq_url(url), wake, reconnect_pause
        self.stopping = threading.Event()
        self.listening = threading.Event()  #: set while a LISTEN is in force
        self.thread = threading.Thread(target=self._run, name="baccarat-listen", daemon=True)

    def start(self) -> Listener:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=5)

    def _run(self) -> None:
        import psycopg

        reported = False
        while not self.stopping.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True, application_name="baccarat listen") as connection:
                    connection.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    if reported:
                        log.warning("listening for table changes again")
                    reported = False
                    self.wake({EVERY_TABLE})  # anything sent while nobody listened
                    while not self.stopping.is_set():
                        # a short wait: stop() waits for it (a process's shutdown, every test app's)
                        for note in connection.notifies(timeout=STOP_WAIT):
                            self.wake(parse(note.payload))
            except Exception as error:  # the database went away: feeds keep their state, we reconnect
                self.listening.clear()
                if not reported:
                    log.warning("cannot listen for table changes (%s: %s); retrying", type(error).__name__, error)
                    reported = True
                self.stopping.wait(self.pause)
        self.listening.clear()


def tables_of(ids: Iterable[int], watched: Iterable[int]) -> set[int]:
    """Which of the ``watched`` tables a notification for ``ids`` concerns."""
    wanted = set(ids)
    return set(watched) if EVERY_TABLE in wanted else wanted & set(watched)


def describe(engine: Any) -> str:
    """How this process hears of table changes: ``notify`` (PostgreSQL) or ``poll``."""
    return "notify" if on_postgresql(engine) else "poll"
