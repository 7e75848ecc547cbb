"""The browser table: plain HTML, CSS and JavaScript served by the app (no build step).

The page talks to the same REST routes and table WebSocket as any client; it never sees a card
before the server reveals it.  Its responses carry a strict Content-Security-Policy: scripts and
styles only from this server, connections only back to it (its own origin, and its WebSocket at the
host the page was asked from).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

STATIC = Path(__file__).parents[1] / "static"
POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
          "connect-src {connect}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
#: A Host header fit to be written into the policy: a DNS name or IPv4 address, or an IPv6 address in
#: brackets, and an optional port; nothing that could end a directive (``;``), add a source (a space)
#: or a path.
HOST = re.compile(rf"(?:{_LABEL}(?:\.{_LABEL})*|\[[0-9A-Fa-f:.]{{2,45}}\])(?::[0-9]{{1,5}})?")


def policy(host: str | None) -> str:
    """The Content-Security-Policy of a page asked for at ``host`` (the Host header).

    ``'self'`` is the page's own origin; the table WebSocket is ``ws://`` or ``wss://`` at the same
    host (CSP level 2 browsers do not count those as ``'self'``), and nowhere else.  A Host header
    that is not a plain host and port leaves ``'self'`` alone.

    >>> policy("127.0.0.1:8000").split("; ")[4]
    "connect-src 'self' ws://127.0.0.1:8000 wss://127.0.0.1:8000"
    >>> policy("evil.example; script-src *").split("; ")[4]
    "connect-src 'self'"
    """
    connect = "'self'"
    if host is not None and len(host) <= 255 and HOST.fullmatch(host):
        connect += f" ws://{host} wss://{host}"
    return POLICY.format(connect=connect)


def install(app: FastAPI) -> None:
    """``/`` is the page, ``/operator`` the operator console, ``/static/...`` their scripts and styles."""
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/operator", include_in_schema=False)
    def console() -> FileResponse:
        """The operator console (its API answers operators only)."""
        return FileResponse(STATIC / "operator.html")

    @app.middleware("http")
    async def _policy(request: Request, call_next: Callable[[Request], Any]) -> Any:
        response = await call_next(request)
        if not request.url.path.startswith("/api/"):
            response.headers["Content-Security-Policy"] = policy(request.headers.get("host"))
            response.headers["X-Content-Type-Options"] = "nosniff"
            response.headers["Referrer-Policy"] = "no-referrer"
        return response
