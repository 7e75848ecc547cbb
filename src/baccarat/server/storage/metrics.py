"""The server's metrics for Prometheus (``baccarat serve --metrics-port``), defined in one place.

Every metric is named ``baccarat_...`` and documented in ``docs/running.md``; its labels are bounded: a
table's id (tables are made by operators) and a refusal's stable code (:data:`baccarat.core.messages.CATALOGUE`),
never an account.  ``deploy/grafana/baccarat.json`` charts them (a test checks that it names only these).

With ``--workers N`` every process writes its values to files in ``PROMETHEUS_MULTIPROC_DIR`` (set by
``baccarat serve`` before the workers start, so :mod:`prometheus_client` reads it when they import it), and the
supervising process serves their sum (:func:`multiprocess_registry`): the counters and histograms of every
process, a dead one's included (a counter never goes back); the gauges as their ``multiprocess_mode`` says,
the live processes only.  With one process the values are kept in memory and served from there.

Money and rounds are counted once their transaction commits (:func:`after_commit`): a transaction that is
retried, or a savepoint rolled back, counts nothing.  Payouts are counted when the table shows the round's result
(:func:`when_shown`), never when it is dealt: a figure that moved at the deal would tell the result seconds before
the table does (the whole squeeze at a squeeze table).  The process that dealt the round counts them (its dealer's
loop, :func:`count_shown`); one that stops between a deal and its result leaves that round's payouts uncounted: a
counter may lag the ledger, never lead the table.

``/metrics`` can require a bearer token (``baccarat serve --metrics-token``, or ``BACCARAT_METRICS_TOKEN``): a
scrape without it is answered 401.
"""

from __future__ import annotations

import glob
import heapq
import hmac
import itertools
import logging
import os
import re
import socket
import threading
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.mmap_dict import MmapedDict
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from prometheus_client.registry import Collector
from sqlalchemy import event
from sqlalchemy.orm import Session, SessionTransaction

from baccarat.server.storage.models import now as _now

log = logging.getLogger("baccarat.server")

#: Seconds: from a few milliseconds (a bet's group commit, a push) to the dealer's longest wait for late bets.
_SECONDS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: The deal's lag: the dealer waits half a second after a close for bets still on their way (LATE_BETS).
_LAG = (0.1, 0.25, 0.5, 0.6, 0.75, 1.0, 1.5, 2.5, 5.0, 10.0, 30.0)

BETS = Counter("baccarat_bets", "Bet commands answered (each socket frame or POST of bets is one): accepted, or "
               "refused with the refusal's code. A replayed idempotency key is answered, and counted, again.",
               ["table", "outcome", "code"])
STAKES = Counter("baccarat_stakes", "Chips staked by the bets committed.", ["table"])
PAYOUTS = Counter("baccarat_payouts", "Chips paid into players' wallets at settlement (stakes returned and "
                  "winnings), not counting void refunds; counted when the table shows the result.", ["table"])
REFUNDS = Counter("baccarat_refunds", "Chips given back to players when a round is voided.", ["table"])
ROUNDS = Counter("baccarat_rounds", "Rounds finished: dealt, no_action (nobody bet) or void.", ["table", "outcome"])
LOGIN_FAILURES = Counter("baccarat_login_failures", "Sign-ins refused for a wrong username or password.")
LIMIT_REFUSALS = Counter("baccarat_limit_refusals", "Requests refused by a rate limit (429): rate.limited by rule "
                         "(username, address, registrations) or rate.busy (too many passwords being hashed).",
                         ["code", "rule"])
BET_COMMIT = Histogram("baccarat_bet_commit_seconds", "Seconds from a bet's arrival (a socket frame read off the "
                       "network, or a POST's head) to its answer, committed or refused.", buckets=_SECONDS)
DEAL_LAG = Histogram("baccarat_deal_lag_seconds", "Seconds from a round's close of betting to its deal (the dealer "
                     "waits 0.5 s for bets on their way).", buckets=_LAG)
SETTLEMENT_PUSH = Histogram("baccarat_settlement_push_seconds", "Seconds from a round's result moment (after its "
                            "last card) to the push that shows it, for each table socket.", buckets=_SECONDS)
OPEN_SOCKETS = Gauge("baccarat_open_sockets", "Table WebSockets open (signed in), all processes together.",
                     multiprocess_mode="livesum")
TABLE_BETTORS = Gauge("baccarat_table_bettors", "Players with bets on the round on show at a table, as its feed "
                      "reads it; 0 once no socket of the process watches it.", ["table"],
                      multiprocess_mode="livemax")
DB_CONNECTIONS = Gauge("baccarat_db_connections_in_use", "Database connections checked out of the pools "
                       "(the dealer's lock holds one), all processes together.", multiprocess_mode="livesum")
DEALING = Gauge("baccarat_dealing", "Processes dealing the rounds: 1 in the one holding the dealer's lock, summed "
                "over the live processes (1 expected).", multiprocess_mode="livesum")

SCHEMA_CURRENT = Gauge("baccarat_schema_current", "1 while the database's schema is the one the process was built "
                       "for (it takes writes), 0 while it is not (it refuses them: server.upgrading); the least over "
                       "the live processes.", multiprocess_mode="livemin")

#: Every metric above (the dashboard's test reads their names).
ALL = (BETS, STAKES, PAYOUTS, REFUNDS, ROUNDS, LOGIN_FAILURES, LIMIT_REFUSALS, BET_COMMIT, DEAL_LAG,
       SETTLEMENT_PUSH, OPEN_SOCKETS, TABLE_BETTORS, DB_CONNECTIONS, DEALING, SCHEMA_CURRENT)


def bet_answered(table_id: int, code: str | None, received: datetime | None = None) -> None:
    """A bet command answered at ``table_id``: accepted (``code`` None) or refused with ``code``; its arrival
    ``received`` (a socket frame's, a request's) times its answer."""
    BETS.labels(str(table_id), "accepted" if code is None else "refused", code or "").inc()
    if received is not None:
        BET_COMMIT.observe((_now() - received).total_seconds())


def since(moment: datetime) -> float:
    """Seconds from ``moment`` to now on the server's clock."""
    return (_now() - moment).total_seconds()


# --- counted when the transaction commits --------------------------------------------------------------------

_HOOKS = "metrics_after_commit"


def after_commit(s: Session, count: Callable[[], None]) -> None:
    """Run ``count`` once ``s``'s transaction has committed; never if the transaction, or the savepoint in
    which this is called, is rolled back (a refused command, a lost race retried)."""
    inner = s.get_nested_transaction() or s.get_transaction()
    s.info.setdefault(_HOOKS, []).append((inner, count))


def _within(transaction: SessionTransaction | None, ended: SessionTransaction) -> bool:
    while transaction is not None:
        if transaction is ended:
            return True
        transaction = transaction.parent
    return False


@event.listens_for(Session, "after_soft_rollback")
def _rolled_back(s: Session, previous: SessionTransaction) -> None:
    hooks = s.info.get(_HOOKS)
    if hooks:
        s.info[_HOOKS] = [(where, count) for where, count in hooks if not _within(where, previous)]


@event.listens_for(Session, "after_commit")
def _committed(s: Session) -> None:
    if s.get_nested_transaction() is not None:  # a savepoint released (SQLAlchemy calls this for those too)
        return
    for _, count in s.info.pop(_HOOKS, ()):
        count()


def count_money(counter: Counter, amounts: dict[int, int]) -> Callable[[], None]:
    """A count of chips by table id (for :func:`after_commit`)."""
    def count() -> None:
        for table_id, amount in amounts.items():
            if amount:
                counter.labels(str(table_id)).inc(amount)
    return count


# --- counted when the table shows it --------------------------------------------------------------------------

_SHOWN_LATER: list[tuple[datetime, int, Callable[[], None]]] = []
_SHOWN_LOCK = threading.Lock()
_ORDER = itertools.count()


def when_shown(moment: datetime, count: Callable[[], None]) -> Callable[[], None]:
    """``count`` kept until ``moment`` (a round's result), for :func:`after_commit`: what would tell a result
    moves only once the table shows it (:func:`count_shown` makes the counts that have come due)."""
    def keep() -> None:
        with _SHOWN_LOCK:
            heapq.heappush(_SHOWN_LATER, (moment, next(_ORDER), count))
    return keep


def count_shown(now: datetime | None = None) -> int:
    """Make the counts kept by :func:`when_shown` whose moment has come by ``now``; returns how many."""
    now = now or _now()
    made = 0
    while True:
        with _SHOWN_LOCK:
            if not _SHOWN_LATER or _SHOWN_LATER[0][0] > now:
                return made
            _, _, count = heapq.heappop(_SHOWN_LATER)
        count()
        made += 1


# --- database connections ------------------------------------------------------------------------------------

def watch_pool(engine: Any) -> None:
    """Count ``engine``'s connections in use in :data:`DB_CONNECTIONS`: only those checked out.  A checkout whose
    pre-ping finds the connection dead and whose reconnect fails (the database down) fires a check-in with no
    check-out: counted both ways, the gauge fell by one with each (to -217 after an outage)."""
    out: set[int] = set()  # the pool's connection records checked out now
    lock = threading.Lock()

    def checkout(_connection: Any, record: Any, _proxy: Any) -> None:
        with lock:
            if id(record) not in out:
                out.add(id(record))
                DB_CONNECTIONS.inc()

    def checkin(_connection: Any, record: Any) -> None:
        with lock:
            if id(record) in out:
                out.discard(id(record))
                DB_CONNECTIONS.dec()

    event.listen(engine, "checkout", checkout)
    event.listen(engine, "checkin", checkin)


# --- serving the processes' sum ------------------------------------------------------------------------------

_LIVE_FILE = re.compile(r"gauge_live\w+_(\d+)\.db")
MERGE_TRIES = 3  #: a scrape's tries at checking and merging the processes' files


class _Processes(Collector):
    """The values of every process writing to ``path``; the live gauges of processes gone are dropped first
    (a worker killed and restarted by the supervisor no longer counts its sockets).  A file that cannot be read
    (a worker killed while it made it left it empty, or cut short) is left out and said once in the log: with
    it, every scrape of the instance answered 500 until the instance was restarted."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._skipped: set[str] = set()

    def collect(self) -> Iterable[Any]:
        for pid in {int(found.group(1)) for name in os.listdir(self.path) if (found := _LIVE_FILE.fullmatch(name))}:
            if not _alive(pid):
                mark_process_dead(pid, self.path)  # type: ignore[no-untyped-call]
        # a file may break between its check and the merge (its process killed then, its live gauge removed): the
        # files are checked again and merged without it, rather than the scrape answering 500
        for _ in range(MERGE_TRIES - 1):
            try:
                return self._merged()
            except Exception:  # checked and merged again
                continue
        return self._merged()

    def _merged(self) -> list[Any]:
        """The sum of the files that can be read now."""
        files = self._readable()
        return MultiProcessCollector.merge(files, accumulate=True)  # type: ignore[no-any-return,no-untyped-call]

    def _readable(self) -> list[str]:
        """The files of the processes' values that can be read now (each one left out is said once)."""
        readable = []
        for name in sorted(glob.glob(os.path.join(self.path, "*.db"))):
            try:
                for _ in MmapedDict.read_all_values_from_file(name):  # type: ignore[no-untyped-call]
                    pass
            except FileNotFoundError:  # a dead process's live gauge, just removed
                continue
            except Exception as error:  # (struct.error, a key that is not JSON...): what a kill mid-write leaves
                if name not in self._skipped:
                    self._skipped.add(name)
                    log.warning("metrics: left out %s, which cannot be read (%s: a process killed while writing "
                                "it?); the other processes' values are served", os.path.basename(name),
                                f"{type(error).__module__}.{type(error).__qualname__}".removeprefix("builtins."))
                continue
            readable.append(name)
        return readable


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process took the number: ours is gone
        return False
    return True


def multiprocess_registry(path: Path) -> CollectorRegistry:
    """A registry serving the sum of the processes that write their values to ``path``."""
    registry = CollectorRegistry()
    registry.register(_Processes(str(path)))
    return registry


def serve(host: str, port: int, path: Path | None = None, token: str | None = None) -> int:
    """Serve ``/metrics`` on ``host``:``port`` (0: any free port) from a thread of this process: this process's
    values, or with ``path`` the sum of the processes writing there (:func:`multiprocess_registry`); with
    ``token``, only to a scrape that sends ``Authorization: Bearer <token>`` (401 otherwise).  Returns the port
    bound; raises :class:`OSError` when the address cannot be listened on."""
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    from prometheus_client import REGISTRY, make_wsgi_app
    from prometheus_client.exposition import ThreadingWSGIServer

    metrics_app = make_wsgi_app(REGISTRY if path is None else multiprocess_registry(path))
    expected = None if token is None else f"Bearer {token}".encode()

    def guarded(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        given = environ.get("HTTP_AUTHORIZATION", "").encode("latin-1")
        if expected is not None and not hmac.compare_digest(given, expected):
            start_response("401 Unauthorized", [("Content-Type", "text/plain; charset=utf-8"),
                                                ("WWW-Authenticate", 'Bearer realm="metrics"')])
            return [b"The metrics need the bearer token this server was given (--metrics-token): send it as "
                    b"Authorization: Bearer <token>.\n"]
        return metrics_app(environ, start_response)  # type: ignore[no-any-return]

    class Server(ThreadingWSGIServer):
        address_family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0][0]

    class Quiet(WSGIRequestHandler):
        def log_message(self, *_: Any) -> None:  # the access lines are the server's, not the scrapes'
            pass

    server = make_server(host, port, guarded, Server, handler_class=Quiet)
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    return int(server.server_port)
