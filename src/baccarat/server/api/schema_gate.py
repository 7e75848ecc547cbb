"""Readiness enforced over HTTP: a request that may write (any method but GET, HEAD and OPTIONS) is refused 503
``server.upgrading`` with ``Retry-After`` while the database's schema is not this server's
(:mod:`baccarat.server.storage.schema_watch`; the table socket's commands and the dealer ask the same watch)."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from baccarat.server.api.refusals import RETRY_AFTER, refusal
from baccarat.server.storage.schema_watch import NotReadyError, SchemaWatch

#: The methods that never write.
SAFE = frozenset({"GET", "HEAD", "OPTIONS"})


class SchemaGate:
    """Asks the app's :class:`SchemaWatch` (``app.state.schema_watch``, set when it starts) before a request that may
    write."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in SAFE:
            watch: SchemaWatch | None = getattr(scope["app"].state, "schema_watch", None)
            if watch is not None:
                try:
                    await watch.check_soon()
                except NotReadyError as error:
                    await refusal(503, type(error).__name__, str(error), {"Retry-After": str(RETRY_AFTER)},
                                  code=error.code, params=error.params)(scope, receive, send)
                    return
        await self.app(scope, receive, send)
