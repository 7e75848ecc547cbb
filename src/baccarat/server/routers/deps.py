"""Dependencies the routers share: the session token, the caller's account, an operator, and
transactions on ``request.app.state.sessions`` (so a router needs nothing of ``create_app``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, TypeVar

from fastapi import Depends, Header, Request
from sqlalchemy.orm import Session, sessionmaker

from baccarat.errors import AuthorizationError
from baccarat.server import accounts
from baccarat.server.db import read, transaction
from baccarat.server.models import Account

T = TypeVar("T")


def bearer(authorization: Annotated[str | None, Header()] = None) -> str | None:
    """The session token from ``Authorization: Bearer <token>`` (tokens never travel in URLs)."""
    if authorization and authorization.startswith("Bearer "):
        return authorization.removeprefix("Bearer ").strip()
    return None


Token = Annotated[str | None, Depends(bearer)]


def run(request: Request, work: Callable[[Session], T]) -> T:
    """``work`` in one writing transaction."""
    sessions: sessionmaker[Session] = request.app.state.sessions
    return transaction(sessions, work)


def look(request: Request, work: Callable[[Session], T]) -> T:
    """Read-only ``work`` on one snapshot."""
    sessions: sessionmaker[Session] = request.app.state.sessions
    return read(sessions, work)


def account(request: Request, token: Token) -> Account:
    """The caller's account (401 without a valid token)."""
    return look(request, lambda s: accounts.authenticate(s, token))


def operator(request: Request, token: Token) -> Account:
    """The caller, who must be an operator (403 otherwise)."""
    caller = account(request, token)
    if caller.role != "operator":
        raise AuthorizationError("only an operator may use the operator console, its reports and the audit trail")
    return caller


Caller = Annotated[Account, Depends(account)]
Operator = Annotated[Account, Depends(operator)]
