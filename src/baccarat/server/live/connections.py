"""The connections a server process holds: capped per client address and in all, and never held half-open.

uvicorn waits for a request's head as long as a client takes, and takes every connection the operating
system hands it.  1,100 connections that each sent part of a request, from one address, used up a server's
1,024 files; the process could then accept nothing else, and every other request failed for as long as
they were held.  So ``baccarat serve`` runs uvicorn's h11 protocol as :class:`GuardedH11Protocol`:

* **Request timeout** (``BACCARAT_HEAD_SECONDS``): a request, head and body, not read in full within this long
  of the connection's start (or of the first byte after an idle wait between requests) closes the connection,
  without an answer.  The deadline is not moved by each byte that arrives, so a head or a body sent a byte at a
  time is cut off too, and so is a complete head whose body never comes.
* **Idle timeout** (``BACCARAT_IDLE_SECONDS``): uvicorn's keep-alive timeout, the wait for the next request
  after an answer.
* **Per-address cap** (``BACCARAT_CONNECTIONS_PER_ADDRESS``): connections held at once from one address
  (an IPv6 client by its /64 network, which one subscriber holds whole).  The next is answered 503
  ``server.too_many_connections`` at once and closed, and the address is logged once, when it first
  reaches the cap (again only after all its connections have closed).  A trusted proxy's connections
  (``--trusted-proxy``) are not capped by address: its clients' connections all come from its address, so
  that cap is the proxy's to keep (nginx's ``limit_conn``), and the proxy reads each head before passing
  it on.  They count toward the process's cap.
* **Slow readers**: a connection whose client stops reading its answers (the transport's buffer full) has the
  request's deadline to read on before it is closed, and counts meanwhile as one still reading (below).
* **Process cap** (``BACCARAT_MAX_CONNECTIONS``): connections held at once by the process, kept below its
  file limit by :data:`RESERVE` files for the database, logs and the like.  At the cap, a new connection takes
  the place of the oldest one still reading its request (head or body; an honest client sends its request at
  once, an attacker holding sockets does not) or not reading its answers, which is closed unanswered; only when
  every connection held has its request read and its answers taken (it is being answered, waits idle between
  requests, or is a WebSocket) is the new one answered 503 ``server.busy`` at once and closed, so the process never
  runs out of files.

The caps answer before reading anything: whatever a refused client sends is never read, and the refused
connection's file is given back at once.  A connection that becomes a WebSocket keeps its place in both
counts until it closes (:class:`CountedWebSocketProtocol`).  Each process of ``serve --workers`` counts
its own connections (the files are each process's own).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import resource
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import h11
from uvicorn.config import Config
from uvicorn.middleware.proxy_headers import _TrustedHosts
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from baccarat.core.errors import ConfigurationError
from baccarat.core.messages import Param, render
from baccarat.server.live import access
from baccarat.server.live.arrival import StampedWebSocketProtocol
from baccarat.server.storage.settings import Settings

log = logging.getLogger("baccarat.server")

#: Files kept back from connections: at least this many, or a tenth of the file limit if more (the database's
#: files and pooled connections, the logs, the listening socket, static files being sent).
RESERVE = 64
#: The per-address cap's default is a quarter of the process's cap, and no more than this: enough for a venue's
#: players behind one address, each with a page's few connections and its table socket.
PER_ADDRESS = 256
#: Seconds a refused client is asked to wait (``Retry-After``).
RETRY_AFTER = 5
#: Once the process's cap has been reached and logged, it is logged again after the count falls this far below.
_RELOG_BELOW = 0.9
#: An unlimited file limit is taken as this many files (the kernel holds a process to fewer: Linux's nr_open).
_UNLIMITED = 2**20


def file_limit() -> int:
    """This process's soft limit on open files (an unlimited one as :data:`_UNLIMITED`)."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return _UNLIMITED if soft == resource.RLIM_INFINITY else soft


def raise_file_limit() -> int:
    """Raise this process's soft limit on open files to its hard limit (the most it may hold); returns the
    soft limit now in force (:func:`file_limit`).  Processes it starts inherit the limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    # an unlimited hard limit may be more than the kernel grants (macOS): then the soft one stays
    with contextlib.suppress(ValueError, OSError):
        if hard != soft:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return file_limit()


@dataclass(frozen=True)
class ConnectionLimits:
    """How long a head may take and how many connections are held at once (per address, in all)."""

    head_seconds: float
    per_address: int
    total: int

    @classmethod
    def for_files(cls, files: int, settings: Settings | None = None) -> ConnectionLimits:
        """The limits of a process that may hold ``files`` open files: the settings' where given, else the
        defaults worked out from ``files``.  A process cap that leaves less than the reserve is refused.

        >>> ConnectionLimits.for_files(1024, Settings())
        ConnectionLimits(head_seconds=10.0, per_address=230, total=922)
        >>> ConnectionLimits.for_files(65536, Settings())
        ConnectionLimits(head_seconds=10.0, per_address=256, total=58983)
        """
        settings = settings or Settings()
        most = files - max(RESERVE, files // 10)
        if most < 1:
            raise ConfigurationError(f"the file limit ({files} open files) leaves no room for connections: "
                                     f"raise it (ulimit -n) above {RESERVE}")
        total = settings.max_connections or most
        if total > most:
            raise ConfigurationError(f"BACCARAT_MAX_CONNECTIONS: {total} is more than this process's file limit "
                                     f"allows ({files} open files, less {files - most} kept for the database "
                                     f"and logs: give {most} or less, or raise the limit)")
        per_address = settings.connections_per_address or max(1, min(PER_ADDRESS, total // 4))
        return cls(head_seconds=settings.head_seconds, per_address=per_address, total=total)


def address_key(host: str) -> str:
    """What the per-address cap counts by: an IPv4 address; an IPv6 client's /64 network (one subscriber's
    share: any address in it is theirs to use); an IPv4 client seen through an IPv6 socket as itself.

    >>> address_key("203.0.113.7"), address_key("::ffff:203.0.113.7")
    ('203.0.113.7', '203.0.113.7')
    >>> address_key("2001:db8:1:2:aaaa::1")
    '2001:db8:1:2::/64'
    """
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:  # not an IP address (a Unix socket's peer): counted by what it is
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class Addresses(Protocol):
    """Addresses that can be asked for membership: a set, or uvicorn's trusted hosts (networks as well)."""

    def __contains__(self, host: str, /) -> bool: ...


def _answer(code: str, params: dict[str, Param]) -> bytes:
    """A whole 503 response in the refusals' shape (:mod:`baccarat.server.api.refusals`), closing."""
    words = render(code, params)
    body = json.dumps({"error": "Unavailable", "code": code, "params": params, "detail": words,
                       "message": words}).encode()
    head = (f"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            f"retry-after: {RETRY_AFTER}\r\nconnection: close\r\n\r\n")
    return head.encode("ascii") + body


class Place:
    """One admitted connection's place in the counts; :meth:`release` gives it back (once, however often
    it is called)."""

    __slots__ = ("_key", "_ledger")

    def __init__(self, ledger: Ledger, key: str | None) -> None:
        self._ledger: Ledger | None = ledger
        self._key = key

    def release(self) -> None:
        """Give the place back: the connection has closed."""
        if self._ledger is not None:
            self._ledger.release(self._key)
            self._ledger = None


class Ledger:
    """The connections one server process holds, by address and in all; admits or refuses new ones."""

    def __init__(self, limits: ConnectionLimits, *, trusted: Addresses = frozenset()) -> None:
        self.limits = limits
        self.trusted = trusted
        self.total = 0
        self.by_address: dict[str, int] = {}
        self._logged_addresses: set[str] = set()
        self._logged_full = False
        self.busy = _answer("server.busy", {})
        self.too_many = _answer("server.too_many_connections", {"limit": limits.per_address})
        #: The places of the connections still reading a request, oldest first, each with what drops it.
        self.reading: dict[Place, Callable[[], None]] = {}

    def reads(self, place: Place, drop: Callable[[], None]) -> None:
        """``place``'s connection is reading a request (from now, if it was not already): ``drop`` closes it."""
        self.reading.setdefault(place, drop)

    def read(self, place: Place) -> None:
        """``place``'s connection has its request read (or is closing)."""
        self.reading.pop(place, None)

    def admit(self, host: str | None) -> Place | bytes:
        """A place for a new connection from ``host`` (``None``: no address), or the 503 to answer it with.  At
        the process's cap the oldest connection still reading its request is dropped for it, if there is one."""
        key = None if host is None or host in self.trusted else address_key(host)
        if self.total >= self.limits.total and self.reading and (
                key is None or self.by_address.get(key, 0) < self.limits.per_address):
            oldest = next(iter(self.reading))
            drop = self.reading.pop(oldest)
            drop()  # closed unanswered, and its place given back here
            oldest.release()
        if self.total >= self.limits.total:
            if not self._logged_full:
                self._logged_full = True
                log.warning("this process holds %d connections, its cap (BACCARAT_MAX_CONNECTIONS): new ones are "
                            "answered 503 until some close", self.total)
            return self.busy
        if key is not None:
            held = self.by_address.get(key, 0)
            if held >= self.limits.per_address:
                if key not in self._logged_addresses:
                    self._logged_addresses.add(key)
                    log.warning("%s holds %d connections, the cap per address (BACCARAT_CONNECTIONS_PER_ADDRESS): "
                                "its new ones are answered 503 until some close", key, held)
                return self.too_many
            self.by_address[key] = held + 1
        self.total += 1
        return Place(self, key)

    def release(self, key: str | None) -> None:
        """A connection counted under ``key`` has closed (use :meth:`Place.release`)."""
        self.total -= 1
        if self.total < self.limits.total * _RELOG_BELOW:
            self._logged_full = False
        if key is not None:
            held = self.by_address[key] - 1
            if held:
                self.by_address[key] = held
            else:  # the address is gone: forgotten, and logged again if it comes back and reaches the cap
                del self.by_address[key]
                self._logged_addresses.discard(key)


#: Each uvicorn server's ledger (one per process in ``baccarat serve``), made when its first connection comes.
_ledgers: weakref.WeakKeyDictionary[ServerState, Ledger] = weakref.WeakKeyDictionary()


def ledger_of(server_state: ServerState, config: Config) -> Ledger:
    """The ledger of the server whose state is ``server_state``: made on first use, from the file limit and the
    settings in the environment (a ``serve --workers`` process has no other), trusting ``config``'s proxies."""
    ledger = _ledgers.get(server_state)
    if ledger is None:
        files = file_limit()
        trusted: Addresses = _TrustedHosts(config.forwarded_allow_ips) if config.proxy_headers else frozenset()
        ledger = _ledgers[server_state] = Ledger(ConnectionLimits.for_files(files), trusted=trusted)
    return ledger


def use_ledger(server_state: ServerState, ledger: Ledger) -> None:
    """Count the connections of the server whose state is ``server_state`` in ``ledger`` (instead of one made
    from the environment on first use)."""
    _ledgers[server_state] = ledger


#: The states of a client still sending its request: its head (before any byte, or part of it) or its body.
_READING = (h11.IDLE, h11.SEND_BODY)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request head and the caps on connections held."""

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.ledger = ledger_of(server_state, config)
        # outside uvicorn's X-Forwarded-For handling: the request id is taken only from a trusted proxy's address
        self.app = access.RequestLog(self.app, self.ledger.trusted)
        self.place: Place | None = None
        self.head_timer: asyncio.TimerHandle | None = None
        self.write_timer: asyncio.TimerHandle | None = None
        self.upgraded = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        admitted = self.ledger.admit(self.client[0] if self.client else None)
        if isinstance(admitted, bytes):  # answered without reading a byte, and the file given back at once
            transport.write(admitted)
            transport.close()
            return
        self.place = admitted
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._head_read()
        if self.write_timer is not None:
            self.write_timer.cancel()
            self.write_timer = None
        if self.place is not None:
            self.place.release()
            self.place = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        # IDLE: no request head read in full since the last answer (or the start); SEND_BODY: its body still
        # coming; a pipelined head waiting for an answer to go out first is DONE, and is the keep-alive timer's once
        # that answer is sent
        if self.conn.their_state in _READING and not self.transport.is_closing() and not self.upgraded:
            self._await_head()
        else:
            self._head_read()

    def pause_writing(self) -> None:
        """The client does not read its answers (the transport's buffer passed its high-water mark): a slow reader
        holds a file as a slow sender does, so it has a request's deadline to read on, and at the process's cap a
        new connection may take its place meanwhile (five addresses' 45 connections each, every one 30 pipelined
        requests for the schema never read, held a 192-connection process, and /health answered 503 busy)."""
        super().pause_writing()
        if self.write_timer is None:
            self.write_timer = self.loop.call_later(self.ledger.limits.head_seconds, self._write_too_slow)
        if self.place is not None:
            self.ledger.reads(self.place, self._dropped)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self.write_timer is not None:
            self.write_timer.cancel()
            self.write_timer = None
        if self.place is not None and not (self.conn.their_state in _READING and self.head_timer is not None):
            self.ledger.read(self.place)

    def _write_too_slow(self) -> None:
        self.write_timer = None
        if not self.transport.is_closing():
            self.transport.abort()  # its answers are not read: nothing more is sent (connection_lost gives the place)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        # the connection is the WebSocket's from here (h11 may still be reading the upgrade request's "body")
        self.upgraded = True
        self._head_read()
        super().handle_websocket_upgrade(event)
        place, self.place = self.place, None
        if place is not None:
            websocket = self.transport.get_protocol()
            if isinstance(websocket, CountedWebSocketProtocol):  # it holds the place until it closes
                websocket.place = place
            else:  # a protocol that would never give it back: given back now, the socket uncounted
                place.release()

    def _await_head(self) -> None:
        """Start the request's deadline, unless it is running (a byte more does not move it); the connection is
        one still reading its request, which a new one may take the place of at the process's cap."""
        if self.head_timer is None:
            self.head_timer = self.loop.call_later(self.ledger.limits.head_seconds, self._head_too_slow)
        if self.place is not None:
            self.ledger.reads(self.place, self._dropped)

    def _head_read(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None
        if self.place is not None:
            self.ledger.read(self.place)

    def _head_too_slow(self) -> None:
        self.head_timer = None
        # no answer: a client that sent part of a request, slowly or on purpose, is not waiting for one
        if self.conn.their_state in _READING and not self.transport.is_closing():
            self._head_read()
            self.transport.close()

    def _dropped(self) -> None:
        """A new connection takes this one's place at the process's cap: closed unanswered (the ledger gives the
        place back)."""
        self.place = None
        self._head_read()
        self.transport.abort()


class CountedWebSocketProtocol(StampedWebSocketProtocol):
    """The table WebSocket's protocol (:class:`~baccarat.server.live.arrival.StampedWebSocketProtocol`), holding
    the place of the connection it was upgraded from until it closes."""

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.place: Place | None = None
        self.app = access.RequestLog(self.app, ledger_of(server_state, config).trusted)
        # the websockets library logs every frame at debug level (``--log-level debug``): the first one holds the
        # session token, so none is logged (the access lines say when a socket opened and closed)
        self.conn.debug = False

    def connection_lost(self, exc: Exception | None) -> None:
        if self.place is not None:
            self.place.release()
            self.place = None
        super().connection_lost(exc)
