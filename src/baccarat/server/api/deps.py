"""What the routers share: the session token, path ids, running work in a transaction or a read
snapshot, and who is asking.  Authentication runs inside each handler (not as a dependency) so a
malformed body is refused before the token is looked at, as it always was."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Header, Path, Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session, sessionmaker

from baccarat.core.errors import ConfigurationError
from baccarat.core.text import storable
from baccarat.server.api.responses import Refusal
from baccarat.server.api.text import Text
from baccarat.server.house import accounts, roles, wallet
from baccarat.server.storage import logs
from baccarat.server.storage.db import read, transaction
from baccarat.server.storage.models import Account

T = TypeVar("T")
#: A money-moving request's answer: a JSON object (bets placed, a decision, a balance).
Answer = TypeVar("Answer", bound=Mapping[str, object])


#: The schema's security scheme (``components.securitySchemes``): a generated client is given the token once.
SESSION = HTTPBearer(scheme_name="session", auto_error=False,
                     description="The session token `POST /api/sessions` answers, as `Authorization: Bearer <token>`.")


def bearer(credentials: Annotated[HTTPAuthorizationCredentials | None, Security(SESSION)] = None) -> str | None:
    """The session token from ``Authorization: Bearer <token>`` (tokens never travel in URLs); text no database can
    store is no token (the route answers 401, as for any token that is not a session's)."""
    if credentials is None or not storable(credentials.credentials):
        return None
    return credentials.credentials.strip()


# Module level: FastAPI resolves annotations by name, so the aliases must be importable.
Token = Annotated[str | None, Depends(bearer)]
#: Ids in paths: positive and within a 32-bit column (the fuzzer found 500s for huge ones).
Id = Annotated[int, Path(ge=1, le=2**31 - 1)]
#: The ``Idempotency-Key`` header of a money-moving request.
IdempotencyKey = Annotated[Text | None, Header()]

#: The refusals every route may give, documented once for ``/openapi.json``: FastAPI's ``responses``, whose
#: values are OpenAPI response objects (any JSON OpenAPI allows there, hence ``Any``).
REFUSALS: dict[int | str, dict[str, Any]] = {
    code: {"model": Refusal, "description": words} for code, words in (
        (401, "not logged in, or the session has ended"), (403, "not allowed for this account"),
        (404, "no such table, seat, round or shoe"),
        (409, "not now, or not by the rules in force: the table's state, limits or game, the wallet, the house's "
              "policy; the code says which"),
        (422, "the request breaks the schema: the message says what to change"),
        (429, "too many attempts: wait and retry"),
        (503, "the server cannot save right now: retry after the Retry-After header's seconds"))}


def run(request: Request, work: Callable[[Session], T]) -> T:
    """``work`` in one transaction (retried on a lost race, see :func:`~baccarat.server.storage.db.transaction`)."""
    sessions: sessionmaker[Session] = request.app.state.sessions
    return transaction(sessions, work)


def look(request: Request, work: Callable[[Session], T]) -> T:
    """Read-only work: a snapshot that never queues behind the writers."""
    sessions: sessionmaker[Session] = request.app.state.sessions
    return read(sessions, work)


def me(request: Request, token: str | None) -> Account:
    """The account the token belongs to (401 when none); the request's log lines name it from here on."""
    account = look(request, lambda s: accounts.authenticate(s, token))
    logs.note(account_id=account.id)
    return account


def staff(request: Request, token: str | None, action: str) -> Account:
    """The caller's account if its role may take ``action`` (:mod:`baccarat.server.house.roles`), else 403
    ``auth.staff_only`` naming the roles that may."""
    account = me(request, token)
    roles.require(account.role, action)
    return account


def player(request: Request, token: str | None) -> Account:
    """The caller's account if it plays (403 ``auth.staff_cannot_play`` for a staff account)."""
    account = me(request, token)
    roles.require_player(account.role)
    return account


def caller(request: Request, token: Token) -> Account:
    """The caller's account, as a dependency (401 without a valid token)."""
    return me(request, token)


Caller = Annotated[Account, Depends(caller)]


def _staff_for(action: str) -> Callable[[Request, str | None], Account]:
    def may(request: Request, token: Token) -> Account:
        return staff(request, token, action)
    may.__name__ = f"staff_who_may_{action}"
    return may


#: The caller, whose role must allow the route's action, as a dependency (403 otherwise).
Console = Annotated[Account, Depends(_staff_for("console"))]
Reports = Annotated[Account, Depends(_staff_for("reports"))]
Players = Annotated[Account, Depends(_staff_for("players"))]
Recall = Annotated[Account, Depends(_staff_for("recall"))]
Audit = Annotated[Account, Depends(_staff_for("audit"))]
Staff = Annotated[Account, Depends(_staff_for("staff"))]
Approver = Annotated[Account, Depends(_staff_for("approve_credits"))]


def once(request: Request, account: Account, key: str | None, body: Mapping[str, object],
         act: Callable[[Session], Answer]) -> Answer:
    """A money-moving request: done once per idempotency key, a retry answered from the stored result."""
    if key is None:
        raise ConfigurationError.coded("request.idempotency_key_missing")
    return run(request, lambda s: wallet.idempotent(s, account.id, key, body, lambda: act(s)))


def address(request: Request) -> str:
    """The client's address (behind ``serve --trusted-proxy``, from ``X-Forwarded-For``)."""
    return request.client.host if request.client else ""
