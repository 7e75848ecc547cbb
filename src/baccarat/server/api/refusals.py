"""Refusals over HTTP, in one place: :class:`~baccarat.core.errors.BaccaratError` and the framework's own
refusals (404, 405, 400, 413, 422: the schema's) become ``{"error", "code", "params", "detail", "message"}``: the kind
of error, its stable code and params (:mod:`baccarat.core.messages`: a client words the refusal in its
own language from these), the detail (words, or a 422's list of problems), and one sentence in English.
A database that cannot save (:mod:`baccarat.server.storage.faults`) is 503 with ``Retry-After``; anything
else unexpected is a bare 500 with no detail (the traceback goes to the server log, never to the client).
The body-size limit is :mod:`baccarat.server.api.body_limit`'s.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException

from baccarat.core.errors import (
    AuthenticationError,
    AuthorizationError,
    BaccaratError,
    BetLimitError,
    ConfigurationError,
    ConflictError,
    IllegalActionError,
    InsufficientFundsError,
    InvalidAmountError,
    RateLimitedError,
    UnavailableError,
    UnknownSeatError,
    UnknownWagerError,
    WagerPrerequisiteError,
)
from baccarat.core.messages import CATALOGUE, Param, render
from baccarat.core.text import storable
from baccarat.server.api.text import BAD_TEXT
from baccarat.server.storage import faults, logs, metrics

log = logging.getLogger("baccarat.server")

STATUS = {
    AuthenticationError: 401,
    AuthorizationError: 403,
    ConflictError: 409,
    InsufficientFundsError: 409,
    # A request the schema allows that a rule in force refuses (the table's limits and game, the house's password
    # policy, a report's longest span) is 409, never 422: 422 means the request breaks the schema (a generated
    # client or a fuzzer can tell the two apart, and a schema-valid request is never "unprocessable").
    ConfigurationError: 409,
    InvalidAmountError: 409,
    UnknownWagerError: 409,
    BetLimitError: 409,
    WagerPrerequisiteError: 409,
    UnknownSeatError: 404,
    IllegalActionError: 409,  #: the table is not in a state that allows it (no more bets, not seated...)
    RateLimitedError: 429,
    UnavailableError: 503,  #: not now: the database's schema is not this server's (server.upgrading)
}

#: Refusals raised by our own code for what the schema states (a required header missing or malformed, text that
#: cannot be stored, a username outside its pattern, a password outside its length, a break of neither or both
#: kinds): 422, as the framework's own validation would answer.  A password the schema allows but the house refuses
#: (common, the username) is 409.
SCHEMA_CODES = frozenset({
    "request.idempotency_key_missing", "request.idempotency_key", "request.bad_text", "account.role",
    "account.username_not_text", "account.username_length", "account.username_space", "account.username_character",
    "account.username_invisible", "account.password_length", "account.password_unstorable", "protection.break_choice"})

#: Seconds a client is asked to wait (``Retry-After``) when the database cannot save.
RETRY_AFTER = 5
UNAVAILABLE = CATALOGUE["server.unavailable"]


def _message(detail: Any) -> str:
    """One sentence for the player: the detail itself, or a 422's problems as words."""
    if isinstance(detail, list):
        words = [f"{problem['field'].removeprefix('body.')}: {problem['problem']}" if isinstance(problem, dict)
                 else str(problem) for problem in detail]
        return "; ".join(words) or "the request was refused"
    return str(detail)


def refusal(status: int, kind: str, detail: Any, headers: Mapping[str, str] | None = None, *, code: str,
           params: Mapping[str, Param] | None = None) -> JSONResponse:
    """Every refusal has this shape: ``{"error": <kind>, "code": <code>, "params": {...}, "detail": <words>,
    "message": <a sentence>}``; the request's access line says its code and params (``refusal``,
    ``refusal_params``: machine values, never a password or a token, which no code's params hold)."""
    logs.note(refusal=code, refusal_params=dict(params or {}))
    return JSONResponse({"error": kind, "code": code, "params": dict(params or {}), "detail": detail,
                         "message": _message(detail)}, status_code=status, headers=headers)


#: Codes for Starlette's and FastAPI's own refusals, which say only "Not Found" or "Method Not Allowed".
_HTTP_CODES = {
    400: ("BadRequest", "request.unreadable"),
    404: ("NotFound", "request.not_found"),
    405: ("MethodNotAllowed", "request.method_refused"),
    413: ("TooLarge", "request.too_large"),
}
_FASTAPI_BODY_ERROR = "There was an error parsing the body"  # FastAPI's 400 for a body it cannot decode


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def _location(error: Any) -> list[str]:
    """Where a problem is, cut short before any part that is not storable text: the answer never repeats
    text the server refuses to hold.  A map key that cannot be stored is named by its map (``bets``, not
    ``bets.<key>.[key]``: pydantic writes a lone surrogate in a location as U+FFFD, which would name a key the
    client never sent)."""
    location = [str(part) for part in error.get("loc", ())]
    if error.get("type") == BAD_TEXT and location[-1:] == ["[key]"]:
        location = location[:-2]
    bad = next((n for n, part in enumerate(location) if not storable(part)), len(location))
    return location[:bad]


def _invalid(problems: list[Any]) -> tuple[str, dict[str, Param]]:
    """A 422's code and params.  Text that cannot be stored (:mod:`baccarat.server.api.text`):
    ``request.bad_text`` naming the field.  Anything else: ``request.invalid`` with the first problem's field
    (``username``, ``bets.banker``; ``body`` for a body that is not JSON) and its kind (pydantic's error type:
    ``string_too_short``, ``missing``, ``json_invalid``)."""
    first = problems[0] if problems else {}
    field = "body" if first.get("type") == "json_invalid" else ".".join(_location(first)).removeprefix("body.")
    if first.get("type") == BAD_TEXT:
        return "request.bad_text", {"field": field}
    return "request.invalid", {"field": field, "problem": str(first.get("type", ""))}


def _problem(error: Any) -> dict[str, str]:
    """One validation problem for the player: which field, and what is wrong with it."""
    location = _location(error)
    if error.get("type") == "json_invalid":  # FastAPI says "JSON decode error" at "body.<offset>"
        reason = (error.get("ctx") or {}).get("error", "")
        return {"field": "body", "problem": f"the body is not valid JSON: {reason} at character {location[-1]}"}
    return {"field": ".".join(location), "problem": error.get("msg", "")}


def install(app: FastAPI) -> None:
    """Answer every refusal of ``app`` in the one shape."""
    storage_faults = faults.FaultLog(log)

    @app.exception_handler(BaccaratError)
    async def _known(_: Request, error: BaccaratError) -> JSONResponse:
        status = 422 if error.code in SCHEMA_CODES else next(
            (code for kind, code in STATUS.items() if isinstance(error, kind)), 400)
        if isinstance(error, RateLimitedError):
            metrics.LIMIT_REFUSALS.labels(error.code, str(error.params.get("rule", ""))).inc()
        wait = getattr(error, "retry_after", None) or (RETRY_AFTER if status == 503 else None)
        return refusal(status, type(error).__name__, str(error), {"Retry-After": str(wait)} if wait else None,
                      code=error.code, params=error.params)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, error: RequestValidationError) -> JSONResponse:
        problems = []
        for problem in error.errors():  # once each: a header read by two dependencies is refused twice
            if problem not in problems:
                problems.append(problem)
        code, params = _invalid(problems)
        return refusal(422, "InvalidRequest", [_problem(e) for e in problems], code=code, params=params)

    @app.exception_handler(HTTPException)
    async def _refused(request: Request, error: HTTPException) -> JSONResponse:
        """Starlette's and FastAPI's own refusals (unknown address, wrong method, unreadable body,
        too large) in the same shape as ours, their headers (``Allow`` on a 405) kept."""
        status, headers = error.status_code, error.headers or {}
        phrase = _phrase(status)
        kind, code = _HTTP_CODES.get(status, ("".join(w for w in phrase.title().split() if w.isalnum()),
                                             "request.refused"))
        params: dict[str, Param] = {"status": status} if code == "request.refused" else {}
        if status == 413:  # the body limit's, with the limit in its params
            params = dict(getattr(error, "params", {}))
        words = phrase if code == "request.refused" else render(code, params)
        detail: Any = error.detail
        if detail not in (phrase, _FASTAPI_BODY_ERROR, "", None):
            words = detail  # raised with words of its own: keep them
        allowed = next((value for name, value in headers.items() if name.lower() == "allow"), None)
        if status == 405 and allowed:
            code, params = "request.method_not_allowed", {"method": request.method, "allowed": allowed}
            words = render(code, params)
        return refusal(status, kind, words, headers, code=code, params=params)

    @app.exception_handler(DBAPIError)
    async def _database(request: Request, error: DBAPIError) -> JSONResponse:
        """A full disk, a read-only or unopenable database, a PostgreSQL server that is down: 503 with
        ``Retry-After`` and one log line now and then (:mod:`baccarat.server.storage.faults`), not a 500 and a
        traceback per request.  Any other database error is unexpected."""
        reason = faults.storage_problem(error)
        if reason is None:
            return await _unexpected(request, error)
        storage_faults.report(reason, error, consequence="requests that need the database are answered 503")
        return refusal(503, "Unavailable", UNAVAILABLE, {"Retry-After": str(RETRY_AFTER)}, code="server.unavailable")

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, error: Exception) -> JSONResponse:
        log.exception("unexpected error", exc_info=error)
        return JSONResponse({"error": "InternalError", "code": "server.error", "params": {}, "detail": "internal error",
                             "message": CATALOGUE["server.error"]}, status_code=500)
