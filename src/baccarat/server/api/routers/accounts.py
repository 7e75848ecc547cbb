"""Accounts and sessions: register, log in and out, and who you are."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from baccarat.server.api.deps import REFUSALS, Token, address, look, me, run
from baccarat.server.api.requests import Credentials
from baccarat.server.api.responses import AccountCreated, Me, SessionToken
from baccarat.server.house import accounts, roles, wallet
from baccarat.server.live.connections import address_key
from baccarat.server.storage import logs

router = APIRouter(tags=["accounts"], responses=REFUSALS)


@router.post("/api/accounts", status_code=201, response_model=AccountCreated)
def register(request: Request, body: Credentials) -> AccountCreated:
    """A new account with the server's grant of play money; limited per client address, and the
    password is hashed with no transaction open (see :func:`accounts.sign_up`)."""
    state = request.app.state
    where = address_key(address(request))
    with state.limiter.registration(where), state.hashing.admit():
        account = accounts.sign_up(state.sessions, body.username, body.password,
                                   grant=state.settings.grant, hashing=state.hashing)
    state.limiter.remember(accounts.login_key(account.username), where)  # its owner's address: known for it
    logs.note(account_id=account.id)
    balance = look(request, lambda s: wallet.balance(s, account.id))
    return {"id": account.id, "username": account.username, "balance": balance}


@router.post("/api/sessions", status_code=201, response_model=SessionToken)
async def log_in(request: Request, body: Credentials) -> SessionToken:
    """A session token; failures limited per username from one client address and per address (an IPv6 client's
    /64 network), hashed outside any transaction; a known username with no failure from the address has places of
    its own in the hashing gate, and one from an address the account signed up or in from more places still, so that
    a flood from other addresses cannot keep its owner out.  A username with very many failures from all addresses
    is answered after a wait, except from such a known address
    (:meth:`~baccarat.server.house.rate_limits.LoginLimiter.slowdown`), awaited here so that no thread is held
    while it waits."""
    state = request.app.state
    name, where = accounts.login_key(body.username), address_key(address(request))
    if wait := await run_in_threadpool(state.limiter.slowdown, name, where):
        await asyncio.sleep(wait)

    def sign_in() -> SessionToken:
        with state.limiter.login(name, where) as standing, state.hashing.admit(standing):
            return {"token": accounts.sign_in(state.sessions, body.username, body.password, hashing=state.hashing)}

    return await run_in_threadpool(sign_in)


@router.delete("/api/sessions", status_code=204)
def log_out(request: Request, token: Token) -> None:
    """End this session: its token stops working at once, on REST and on the table's WebSocket."""
    me(request, token)
    run(request, lambda s: accounts.log_out(s, token or ""))


@router.get("/api/me", response_model=Me)
def who_am_i(request: Request, token: Token) -> Me:
    """Your account and balance."""
    account = me(request, token)
    balance = look(request, lambda s: wallet.shown_balance(s, account.id))  # never ahead of a result on show
    return {"id": account.id, "username": account.username, "role": account.role,
            "actions": roles.actions_of(account.role), "balance": balance}
