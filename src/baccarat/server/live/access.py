"""Access lines and request ids: one log line per HTTP request, and one when a table socket opens and when it
closes, each request and socket with an id of its own.

``baccarat serve``'s protocols (:mod:`baccarat.server.live.connections`) run the app inside :class:`RequestLog`,
outside uvicorn's ``X-Forwarded-For`` handling, so the connection's own address is known: an ``X-Request-ID``
is taken from a trusted proxy (``--trusted-proxy``) when it is sane (:data:`SANE_ID`), and from nobody else (a
client could otherwise fill the logs with ids of its choosing, or another request's); otherwise one is made.
The id is sent back in the answer's ``X-Request-ID`` header (and a socket's accept) and carried by every
line logged for the request (:mod:`baccarat.server.storage.logs`).

An access line (logger ``baccarat.access``, level info) holds ``method``, ``path`` (never the query string:
it could hold a token), ``status``, ``duration_ms``, ``client`` (the client's address, a trusted proxy's
``X-Forwarded-For`` applied), and the ``table_id`` of the path and ``account_id`` of the caller where known.
A socket's lines are ``socket open`` (once accepted) and ``socket closed`` with its close ``code`` (the
server's, or the client's; 1006 when the connection dropped without one) and its ``duration_ms``; a socket
refused before it was accepted is answered 403 and logged as closed with ``status`` 403.  The connections the
caps refuse before reading a byte (:mod:`~baccarat.server.live.connections`) reach no app and have no line.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from datetime import datetime
from typing import Protocol

from starlette.datastructures import Headers
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from baccarat.server.storage import logs
from baccarat.server.storage.models import now as _now

log = logging.getLogger("baccarat.access")

#: An ``X-Request-ID`` taken from a trusted proxy: up to 128 letters, digits and ``-_.:/+=@`` (a UUID, a
#: proxy's hex id, a trace id); anything else is replaced by an id of our own.
SANE_ID = re.compile(r"[A-Za-z0-9._:/+=@-]{1,128}")
#: The close code of a socket that ended with neither side sending one (the connection dropped).
DROPPED = 1006
#: Key of a request's arrival moment in its scope's state (Starlette's ``request.state``).
ARRIVED = "baccarat_arrived"


def arrived(request: HTTPConnection) -> datetime | None:
    """When ``request`` came (its head read), on the server's clock; None where no :class:`RequestLog` runs
    (an app driven by a test client)."""
    moment = request.scope.get("state", {}).get(ARRIVED)
    return moment if isinstance(moment, datetime) else None


class Addresses(Protocol):
    """The trusted proxies' addresses: a set, or uvicorn's trusted hosts (networks as well)."""

    def __contains__(self, host: str, /) -> bool: ...


class RequestLog:
    """The app, each request and socket run in a log context with its id and logged (see the module)."""

    def __init__(self, app: ASGIApp, trusted: Addresses = frozenset()) -> None:
        self.app, self.trusted = app, trusted

    def request_id(self, scope: Scope) -> str:
        """A trusted proxy's sane ``X-Request-ID``, else a new one."""
        given = Headers(scope=scope).get("x-request-id")
        peer = scope.get("client")
        if given is not None and peer is not None and peer[0] in self.trusted and SANE_ID.fullmatch(given):
            return given
        return uuid.uuid4().hex

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        request_id = self.request_id(scope)
        header = (b"x-request-id", request_id.encode("ascii"))
        started = time.perf_counter()
        # the moment it came, on the server's clock, for what times its answer (request.state.arrived)
        scope.setdefault("state", {})[ARRIVED] = _now()
        seen: dict[str, int] = {}  # what the exchange showed: its status, or a socket's close code

        async def sent(message: Message) -> None:
            kind = message["type"]
            if kind in ("http.response.start", "websocket.accept"):
                message = {**message, "headers": [*message.get("headers", []), header]}
            if kind == "http.response.start":
                seen["status"] = message["status"]
            elif kind == "websocket.accept":
                seen["status"] = 101
                log.info("socket open", extra=_where(scope))
            elif kind == "websocket.close":
                seen.setdefault("code", message.get("code", 1000))
            elif kind == "websocket.http.response.start":  # a refusal answered over HTTP
                seen["status"] = message["status"]
            await send(message)

        async def received() -> Message:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                seen.setdefault("code", message.get("code", DROPPED))
            return message

        with logs.context(request_id=request_id):
            try:
                await self.app(scope, received, sent)
            except BaseException:
                seen.setdefault("status", 500)
                raise
            finally:
                duration = round((time.perf_counter() - started) * 1000, 1)
                if scope["type"] == "http":
                    log.info("request", extra={**_where(scope), "status": seen.get("status", 500),
                                               "duration_ms": duration})
                else:
                    closed = {"code": seen.get("code", DROPPED)} if seen.get("status") == 101 else {
                        "status": seen.get("status", 403)}  # closed before accepting: uvicorn answers 403
                    log.info("socket closed", extra={**_where(scope), **closed, "duration_ms": duration})


def _where(scope: Scope) -> dict[str, object]:
    """The request's method (HTTP), path, client address and, once routed, its table."""
    client = scope.get("client")
    where: dict[str, object] = {"method": scope["method"]} if scope["type"] == "http" else {}
    where.update(path=scope.get("path", ""), client=client[0] if client else None)
    table = scope.get("path_params", {}).get("table_id")  # the path's text (FastAPI checks it later)
    if isinstance(table, str) and table.isascii() and table.isdigit() and len(table) <= 10:
        where["table_id"] = int(table)
    return where
