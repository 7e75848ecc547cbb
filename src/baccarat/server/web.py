"""The browser table: plain HTML, CSS and JavaScript served by the app (no build step).

The page talks to the same REST routes and table WebSocket as any client; it never sees a card
before the server reveals it.  Its responses carry a strict Content-Security-Policy: scripts and
styles only from this server, connections only back to it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

STATIC = Path(__file__).parent / "static"
POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
          "connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")


def install(app: FastAPI) -> None:
    """``/`` is the page, ``/static/...`` its script and styles."""
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.middleware("http")
    async def _policy(request: Request, call_next: Callable[[Request], Any]) -> Any:
        response = await call_next(request)
        if not request.url.path.startswith("/api/"):
            response.headers["Content-Security-Policy"] = POLICY
            response.headers["X-Content-Type-Options"] = "nosniff"
            response.headers["Referrer-Policy"] = "no-referrer"
        return response
