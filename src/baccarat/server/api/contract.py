"""The API's contract, ``/openapi.json``, and the server kept to it: short stable operation ids, the
refusals each route really gives written into the schema, and the methods of an address answered as
the schema lists them (``OPTIONS``, and ``Allow`` on a 405).

Schemathesis with every check runs against ``baccarat serve`` in the test suite
(``tests/server/api/test_contract.py``), and a client generated from the schema by
openapi-python-client plays a round there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from baccarat.core.messages import render
from baccarat.server.api.refusals import refusal

#: The order the methods of one address are listed in (``Allow``).
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
#: The header of the money-moving routes that take one (bets, decisions, credits and debits): the server
#: refuses such a request without it (``request.idempotency_key_missing``), so the schema says it is required.
IDEMPOTENCY_KEY = "idempotency-key"
_REFUSAL = {"$ref": "#/components/schemas/Refusal"}
#: What a route that reads a body may also answer (FastAPI's own 400, and the body limit's 413).
BODY_REFUSALS = {
    "400": "the body could not be read: send JSON encoded in UTF-8",
    "413": "the body is too large (over 16 KiB)",
}


def operation_id(route: APIRoute) -> str:
    """A route's ``operationId``: its function's name in camelCase (``take_seat`` is ``takeSeat``), short and
    stable, where FastAPI's default adds the path and method (``take_seat_api_tables__table_id__seats_post``),
    which a generated client makes its function names.  ``tests/server/api/test_contract.py`` pins them.

    >>> from fastapi.routing import APIRoute
    >>> operation_id(APIRoute("/api/me", lambda: None, name="who_am_i"))
    'whoAmI'
    """
    first, *rest = route.name.split("_")
    return first + "".join(word.capitalize() for word in rest)


def _document(schema: dict[str, Any]) -> dict[str, Any]:
    """What FastAPI cannot say from the routes' signatures, added to its schema: a route that reads a body
    may answer 400 (a body that is not UTF-8) and 413 (too large); the idempotency key is required where a
    route takes one (its handler refuses a request without it)."""
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            if "requestBody" in operation:
                for status, words in BODY_REFUSALS.items():
                    operation["responses"].setdefault(status, {
                        "description": words, "content": {"application/json": {"schema": _REFUSAL}}})
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "header" and parameter.get("name", "").lower() == IDEMPOTENCY_KEY:
                    parameter["required"] = True
                    # 8 to 128 characters, as baccarat.server.house.wallet.check_key takes them
                    parameter["schema"] = {"type": "string", "minLength": 8, "maxLength": 128,
                                           "title": "Idempotency-Key",
                                           "description": "one key per request: a retry with the same key "
                                                          "is answered from the first request's result"}
    return schema


#: Schemas already made in this process, by the routers they document: every app of the server includes the
#: same routers, and building the schema takes a third of a second, which the first request of each app (the
#: tests make hundreds) waited for (:class:`MethodsAllowed` reads it).
_MADE: dict[tuple[object, ...], dict[str, Any]] = {}


def documented(app: FastAPI, routers: Sequence[object]) -> Callable[[], dict[str, Any]]:
    """``app.openapi`` with :func:`_document`'s additions, made once per process for the ``routers`` that
    ``app`` includes (FastAPI caches the schema per app)."""
    build = app.openapi
    key = (app.title, app.version, *map(id, routers))  # routers are not hashable: the same objects, by identity

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            if key not in _MADE:
                _MADE[key] = _document(build())
            app.openapi_schema = _MADE[key]
        return app.openapi_schema

    return openapi


def _pattern(path: str) -> re.Pattern[str]:
    """A documented path (``/api/tables/{table_id}``) as a pattern matching the addresses it stands for; a
    parameter is one path segment, as in Starlette's routing."""
    parts = re.split(r"(\{[^}/]+\})", path)
    return re.compile("".join("[^/]+" if part.startswith("{") else re.escape(part) for part in parts) + "$")


class MethodsAllowed:
    """The methods of a documented address, as ``/openapi.json`` lists them: ``OPTIONS`` is answered 204
    with ``Allow``, and any other method the address does not answer is refused 405 with the whole list in
    ``Allow`` (Starlette's router names only the first route it finds at the address: ``POST`` for
    ``/api/sessions``, which also answers ``DELETE``).  Addresses outside the schema (the pages, the static
    files) are left to the router.  ``HEAD`` is answered wherever ``GET`` is, the pages included (FastAPI's
    routes refused it 405, ``/health`` too): the GET's status and headers, no body.

    A CORS middleware, if one is ever added, is added after this one and so answers preflights first.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._paths: list[tuple[re.Pattern[str], str]] | None = None

    def _allowed(self, scope: Scope) -> str | None:
        if self._paths is None:
            paths: dict[str, dict[str, Any]] = scope["app"].openapi()["paths"]
            self._paths = [(_pattern(path), ", ".join(m for m in METHODS if m.lower() in operations))
                           for path, operations in paths.items()]
        return next((allowed for pattern, allowed in self._paths if pattern.match(scope["path"])), None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not isinstance(scope.get("app"), FastAPI):
            await self.app(scope, receive, send)
            return
        allowed = self._allowed(scope)
        method = scope["method"]
        if method == "HEAD" and ("GET" in (allowed or "GET").split(", ")):
            # HEAD wherever GET is (a load balancer's probe, a proxy's check): the GET's status and headers, no body
            await self.app({**scope, "method": "GET"}, receive, _headless(send))
        elif allowed is None or method in allowed.split(", "):
            await self.app(scope, receive, send)
        elif method == "OPTIONS":
            await Response(status_code=204, headers={"Allow": allowed})(scope, receive, send)
        else:
            params = {"method": method, "allowed": allowed}
            await refusal(405, "MethodNotAllowed", render("request.method_not_allowed", params), {"Allow": allowed},
                          code="request.method_not_allowed", params=params)(scope, receive, send)


def _headless(send: Send) -> Send:
    """``send`` with every body sent as empty (its headers, ``Content-Length`` included, as the GET's)."""
    async def headless(message: Message) -> None:
        if message["type"] == "http.response.body":
            message = {**message, "body": b""}
        await send(message)
    return headless
