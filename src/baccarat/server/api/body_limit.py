"""The request body limit: bodies over :data:`MAX_BODY` are refused (413) while they are received,
counting the bytes that actually arrive, not the length a client declares."""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from baccarat.core.messages import Param, render
from baccarat.server.api.refusals import refusal

#: The largest request body accepted (bytes); bigger ones get 413 before they are read.
MAX_BODY = 16_384
#: The 413's params: the limit.
TOO_LARGE: dict[str, Param] = {"limit": MAX_BODY}


class BodyTooLarge(HTTPException):
    """Raised from ``receive`` once the bytes received pass :data:`MAX_BODY`.  An HTTPException,
    because FastAPI turns any other error while reading a body into a 400."""

    def __init__(self) -> None:
        # Connection: close tells uvicorn to stop reading this client, not to read and discard the rest.
        super().__init__(413, render("request.too_large", TOO_LARGE), headers={"Connection": "close"})
        self.params = TOO_LARGE


class BodyLimit:
    """Refuses request bodies over :data:`MAX_BODY` by counting the bytes actually received.

    A declared ``Content-Length`` over the limit is refused before anything is read; a chunked
    body (no length declared) or a body longer than declared is refused as soon as the count
    passes the limit, so no more than about ``MAX_BODY`` plus one chunk is ever held (an
    ``http`` middleware that trusted ``Content-Length`` let a 256 MB chunked body be read whole).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = Headers(scope=scope).get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            too_large = BodyTooLarge()
            await refusal(413, "TooLarge", too_large.detail, too_large.headers, code="request.too_large",
                         params=TOO_LARGE)(scope, receive, send)
            return
        received, started = 0, False

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > MAX_BODY:
                    raise BodyTooLarge()
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except BodyTooLarge as too_large:  # normally answered by the HTTPException handler; this is the fallback
            if started:
                raise
            await refusal(413, "TooLarge", too_large.detail, too_large.headers, code="request.too_large",
                         params=TOO_LARGE)(scope, receive, send)
