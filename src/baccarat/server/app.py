"""The HTTP API (FastAPI): accounts, wallets, tables, bets, decisions, history and operator
routes over REST; the table WebSocket is in :mod:`baccarat.server.live`.

Errors of the :class:`~baccarat.errors.BaccaratError` family become HTTP
answers here and nowhere else, and so do the framework's own refusals (404,
405, 400, 413), all as ``{"error", "detail", "message"}``: the code, the detail
as before (words, or a 422's list of problems), and one sentence for the player.  A database that cannot save
(:mod:`baccarat.server.faults`) is 503 with ``Retry-After``; anything else
unexpected is a bare 500 with no detail (the traceback goes to the server
log, never to the client).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from http import HTTPStatus
from typing import Annotated, Any, Literal, TypeVar

from fastapi import Depends, FastAPI, Header, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError
from sqlalchemy import select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from baccarat.errors import (
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
    UnknownSeatError,
    UnknownWagerError,
    WagerPrerequisiteError,
)
from baccarat.fair import CLIENT_SEED, CLIENT_SEED_RULE
from baccarat.money import MAX_AMOUNT
from baccarat.server import accounts, cluster, fairness, faults, live, tables, views, wallet, web
from baccarat.server import history as played
from baccarat.server.db import make_engine, read, session_factory, transaction
from baccarat.server.dealer import LATE_BETS, Dealer
from baccarat.server.migrate import upgrade
from baccarat.server.models import Account, GameTable
from baccarat.server.ratelimit import HashGate, LoginLimiter
from baccarat.server.routers.server import router as server_router
from baccarat.server.settings import Settings
from baccarat.server.timeline import Pace

log = logging.getLogger("baccarat.server")
T = TypeVar("T")

STATUS = {
    AuthenticationError: 401,
    AuthorizationError: 403,
    ConflictError: 409,
    InsufficientFundsError: 409,
    ConfigurationError: 422,
    InvalidAmountError: 422,
    UnknownWagerError: 422,
    BetLimitError: 422,
    WagerPrerequisiteError: 422,
    UnknownSeatError: 404,
    IllegalActionError: 409,  #: the table is not in a state that allows it (no more bets, not seated...)
    RateLimitedError: 429,
}

#: The largest request body accepted (bytes); bigger ones get 413 before they are read.
MAX_BODY = 16_384
#: Seconds a client is asked to wait (``Retry-After``) when the database cannot save.
RETRY_AFTER = 5
UNAVAILABLE = "the table server cannot save right now; try again in a moment"


def _message(detail: Any) -> str:
    """One sentence for the player: the detail itself, or a 422's problems as words."""
    if isinstance(detail, list):
        words = [f"{problem['field'].removeprefix('body.')}: {problem['problem']}" if isinstance(problem, dict)
                 else str(problem) for problem in detail]
        return "; ".join(words) or "the request was refused"
    return str(detail)


def _error(status: int, kind: str, detail: Any, headers: Mapping[str, str] | None = None) -> JSONResponse:
    """Every refusal has this shape: ``{"error": <kind>, "detail": <words>, "message": <a sentence>}``."""
    return JSONResponse({"error": kind, "detail": detail, "message": _message(detail)}, status_code=status,
                        headers=headers)


#: Words for Starlette's and FastAPI's own refusals, which say only "Not Found" or "Method Not Allowed".
_HTTP_WORDS = {
    400: ("BadRequest", "the request could not be read: send a JSON body encoded in UTF-8"),
    404: ("NotFound", "there is nothing at this address"),
    405: ("MethodNotAllowed", "this address does not answer that method"),
    413: ("TooLarge", f"request bodies are at most {MAX_BODY} bytes"),
}
_FASTAPI_BODY_ERROR = "There was an error parsing the body"  # FastAPI's 400 for a body it cannot decode


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def _problem(error: Any) -> dict[str, str]:
    """One validation problem for the player: which field, and what is wrong with it."""
    location = [str(part) for part in error.get("loc", ())]
    if error.get("type") == "json_invalid":  # FastAPI says "JSON decode error" at "body.<offset>"
        reason = (error.get("ctx") or {}).get("error", "")
        return {"field": "body", "problem": f"the body is not valid JSON: {reason} at character {location[-1]}"}
    return {"field": ".".join(location), "problem": error.get("msg", "")}


class BodyTooLarge(HTTPException):
    """Raised from ``receive`` once the bytes received pass :data:`MAX_BODY`.  An HTTPException,
    because FastAPI turns any other error while reading a body into a 400."""

    def __init__(self) -> None:
        # Connection: close tells uvicorn to stop reading this client, not to read and discard the rest.
        super().__init__(413, f"request bodies are at most {MAX_BODY} bytes", headers={"Connection": "close"})


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
            await _error(413, "TooLarge", too_large.detail, too_large.headers)(scope, receive, send)
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
            await _error(413, "TooLarge", too_large.detail, too_large.headers)(scope, receive, send)


# The login and registration limits (per username and per client address) and the bound on
# concurrent password hashes: LoginLimiter and HashGate in baccarat.server.ratelimit.


class Strict(BaseModel):
    """Request bodies refuse unknown fields and take every value as the JSON type it is declared
    as: no ``"8"`` for 8 decks, no ``true`` for seat 1 (pydantic's default, lax mode, converts them)."""

    model_config = ConfigDict(extra="forbid", strict=True)


def _json_integer(words: str) -> BeforeValidator:
    """Refuse anything but a JSON integer, with ``words`` as the message.  Even strict pydantic takes
    ``true`` and ``1.0`` for ``Literal[1, 2]`` (they compare equal to 1), and lax mode took ``"100"``,
    ``"1_000"``, ``1e3`` and ``true`` as amounts; the WebSocket never did."""

    def check(value: object) -> object:
        if type(value) is not int:  # bool is a subclass of int, and not a number here
            raise PydanticCustomError("int_type", words)
        return value

    return BeforeValidator(check)


#: An amount in a request body: a JSON integer of minor units (cents), as on the WebSocket.
Amount = Annotated[int, _json_integer(
    "amounts are whole numbers of minor units (cents) written as JSON integers, e.g. 1050 for 10.50")]


class Credentials(Strict):
    username: str = Field(min_length=3, max_length=32)
    password: str = Field(min_length=8, max_length=128)


class Movement(Strict):
    amount: Amount = Field(gt=0, le=MAX_AMOUNT, description="minor units")
    memo: str = Field(default="", max_length=200)


#: How often the dealer looks for rounds whose betting window has closed.
DEAL_INTERVAL = 0.1


async def _deal_forever(dealer: Dealer) -> None:
    """Deal every due round, forever.  A round that fails waits and is voided after repeated failures
    (see :mod:`baccarat.server.dealer`); this loop survives even a failure to list the due rounds."""
    while True:
        try:
            await asyncio.to_thread(dealer.deal_due)
        except Exception as error:  # the database itself is away: try again shortly
            problem = faults.storage_problem(error)
            if problem is None:
                log.exception("cannot look for rounds to deal")
            else:
                dealer.storage.report(problem, error, consequence="no round is dealt")
            await asyncio.sleep(1.0)
        await asyncio.sleep(DEAL_INTERVAL)


class BetsBody(Strict):
    bets: dict[str, Amount] = Field(description="wager code -> amount in minor units")
    round: int | None = Field(default=None, ge=1, le=2**31 - 1, description=(
        "the round the bets are meant for: refused if its betting has closed (without it, the open round)"))


class TableBody(Strict):
    name: str = Field(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9][A-Za-z0-9 _.-]*$")
    game: Literal["mini", "ez", "lucky-draw"]
    paytable: Annotated[Literal[1, 2], _json_integer("the pay table is 1 or 2")] | None = Field(
        default=None, description="Lucky Draw's DrawWin pay table")
    decks: int = Field(default=8, ge=1, le=16)
    cut_card: int = Field(default=14, ge=0, le=832, description="cards behind the cut card")
    betting_seconds: float = Field(default=15.0, ge=0.1, le=600)
    decision_seconds: float = Field(default=10.0, ge=0.1, le=600)
    no_more_bets_seconds: float = Field(default=1.0, ge=0, le=10,
                                        description="from the close of betting to the first card")
    card_seconds: float = Field(default=0.6, ge=0, le=5, description="between two cards shown")
    results_seconds: float = Field(default=4.0, ge=0, le=60, description="the results pause before the next window")


class LimitsBody(Strict):
    minimum: Amount = Field(gt=0, le=MAX_AMOUNT, description="minor units; every wager must meet it")
    maximums: dict[str, Annotated[Amount, Field(gt=0, le=MAX_AMOUNT)]] = Field(
        default_factory=dict, description="wager code -> maximum in minor units")


class VoidBody(Strict):
    reason: str = Field(min_length=1, max_length=200, description="why the round is voided (kept with the round)")


class DecisionBody(Strict):
    action: Literal["draw", "stand"]


def _client_seed(value: object) -> object:
    """A client seed as :mod:`baccarat.fair` takes it, refused in the player's words (not a regex)."""
    if not isinstance(value, str) or not CLIENT_SEED.fullmatch(value):
        raise PydanticCustomError("client_seed", CLIENT_SEED_RULE)
    return value


class ClientSeedBody(Strict):
    seed: Annotated[str, BeforeValidator(_client_seed)] = Field(pattern=r"^[\x21-\x7e]{1,64}$",
                                                                description=CLIENT_SEED_RULE)


class SeatBody(Strict):
    seat: int | None = Field(default=None, ge=1, le=7)


def bearer(authorization: Annotated[str | None, Header()] = None) -> str | None:
    """The session token from ``Authorization: Bearer <token>`` (tokens never travel in URLs)."""
    if authorization and authorization.startswith("Bearer "):
        return authorization.removeprefix("Bearer ").strip()
    return None


# Module level: FastAPI resolves annotations by name, so the aliases must be importable.
Token = Annotated[str | None, Depends(bearer)]
#: Ids in paths: positive and within a 32-bit column (the fuzzer found 500s for huge ones).
Id = Annotated[int, Path(ge=1, le=2**31 - 1)]


def create_app(settings: Settings | None = None) -> FastAPI:
    """The application; the database is migrated to the newest schema when it starts."""
    settings = settings or Settings()
    url = settings.url

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        upgrade(url)
        engine = make_engine(url)
        sessions = session_factory(engine)
        app.state.sessions = sessions
        transaction(sessions, lambda s: tables.ensure_default_tables(s, betting_seconds=settings.betting_seconds))
        repaired = transaction(sessions, tables.repair_deadlines)
        if repaired:
            log.warning("%d round deadlines lay beyond one window ahead (the clock stepped back?): pulled in", repaired)
        transaction(sessions, accounts.repair_token_lifetimes)
        app.state.dealer = Dealer(sessions, seat_grace=settings.seat_grace_seconds,
                                  sit_out_rounds=settings.sit_out_rounds, late=LATE_BETS)
        async with cluster.serving(app, engine, settings, lambda: _deal_forever(app.state.dealer)):
            yield  # the dealer runs in the one process holding the dealer's lock (see baccarat.server.leader)
        engine.dispose()

    app = FastAPI(title="baccarat table server", version="0.1.0", lifespan=lifespan)

    limiter = LoginLimiter()
    hashing = HashGate()  # scrypt outside every transaction: one per core at most, at a lower OS priority

    app.add_middleware(BodyLimit)
    storage_faults = faults.FaultLog(log)

    @app.exception_handler(BaccaratError)
    async def _known(_: Request, error: BaccaratError) -> JSONResponse:
        status = next((code for kind, code in STATUS.items() if isinstance(error, kind)), 400)
        wait = getattr(error, "retry_after", None)
        return _error(status, type(error).__name__, str(error), {"Retry-After": str(wait)} if wait else None)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, error: RequestValidationError) -> JSONResponse:
        return _error(422, "InvalidRequest", [_problem(e) for e in error.errors()])

    @app.exception_handler(HTTPException)
    async def _refused(request: Request, error: HTTPException) -> JSONResponse:
        """Starlette's and FastAPI's own refusals (unknown address, wrong method, unreadable body,
        too large) in the same shape as ours, their headers (``Allow`` on a 405) kept."""
        status, headers = error.status_code, error.headers or {}
        phrase = _phrase(status)
        kind, words = _HTTP_WORDS.get(status, ("".join(w for w in phrase.title().split() if w.isalnum()), phrase))
        detail: Any = error.detail
        if detail not in (phrase, _FASTAPI_BODY_ERROR, "", None):
            words = detail  # raised with words of its own: keep them
        allowed = next((value for name, value in headers.items() if name.lower() == "allow"), None)
        if status == 405 and allowed:
            words = f"this address does not answer {request.method}; it answers {allowed}"
        return _error(status, kind, words, headers)

    @app.exception_handler(DBAPIError)
    async def _database(request: Request, error: DBAPIError) -> JSONResponse:
        """A full disk, a read-only or unopenable database, a PostgreSQL server that is down: 503 with
        ``Retry-After`` and one log line now and then (:mod:`baccarat.server.faults`), not a 500 and a
        traceback per request.  Any other database error is unexpected."""
        reason = faults.storage_problem(error)
        if reason is None:
            return await _unexpected(request, error)
        storage_faults.report(reason, error, consequence="requests that need the database are answered 503")
        return _error(503, "Unavailable", UNAVAILABLE, {"Retry-After": str(RETRY_AFTER)})

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, error: Exception) -> JSONResponse:
        log.exception("unexpected error", exc_info=error)
        return JSONResponse({"error": "InternalError", "detail": "internal error",
                             "message": "something went wrong on the server: try again"}, status_code=500)

    def run(request: Request, work: Callable[[Session], T]) -> T:
        sessions: sessionmaker[Session] = request.app.state.sessions
        return transaction(sessions, work)

    def look(request: Request, work: Callable[[Session], T]) -> T:
        """Read-only work: a snapshot that never queues behind the writers."""
        sessions: sessionmaker[Session] = request.app.state.sessions
        return read(sessions, work)

    def me(request: Request, token: str | None) -> Account:
        return look(request, lambda s: accounts.authenticate(s, token))

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    def address(request: Request) -> str:
        return request.client.host if request.client else ""

    @app.post("/api/accounts", status_code=201)
    def register(request: Request, body: Credentials) -> dict[str, Any]:
        """A new account; the password is hashed with no transaction open (see accounts.sign_up)."""
        with limiter.registration(address(request)), hashing.admit():
            account = accounts.sign_up(request.app.state.sessions, body.username, body.password,
                                       grant=settings.grant, hashing=hashing)
        balance = look(request, lambda s: wallet.balance(s, account.id))
        return {"id": account.id, "username": account.username, "balance": balance}

    @app.post("/api/sessions", status_code=201)
    def log_in(request: Request, body: Credentials) -> dict[str, str]:
        """A session token; limited per username and per client address, hashed outside any transaction."""
        with limiter.login(accounts.login_key(body.username), address(request)), hashing.admit():
            return {"token": accounts.sign_in(request.app.state.sessions, body.username, body.password,
                                              hashing=hashing)}

    @app.delete("/api/sessions", status_code=204)
    def log_out(request: Request, token: Token) -> None:
        me(request, token)
        run(request, lambda s: accounts.log_out(s, token or ""))

    @app.get("/api/me")
    def who_am_i(request: Request, token: Token) -> dict[str, Any]:
        account = me(request, token)
        balance = look(request, lambda s: views.shown_balance(s, account.id))  # never ahead of a result on show
        return {"id": account.id, "username": account.username, "role": account.role, "balance": balance}

    def once(request: Request, account: Account, key: str | None, body: dict[str, Any],
             act: Callable[[Session], dict[str, Any]]) -> dict[str, Any]:
        """A money-moving request: done once per idempotency key, a retry answered from the stored result."""
        if key is None:
            raise ConfigurationError("money-moving requests need an Idempotency-Key header")
        return run(request, lambda s: wallet.idempotent(s, account.id, key, body, lambda: act(s)))

    def operator_move(request: Request, token: str | None, account_id: Id, body: Movement, key: str | None,
                      sign: int) -> dict[str, Any]:
        manager = operator(request, token, "credit or debit wallets")

        def move(s: Session) -> dict[str, Any]:
            amount = sign * body.amount
            wallet.transfer(s, "credit" if sign > 0 else "debit",
                            {wallet.CASHIER: -amount, wallet.wallet_account(account_id): amount}, memo=body.memo)
            return {"account_id": account_id, "balance": wallet.balance(s, account_id)}
        return once(request, manager, key, {"account_id": account_id, "sign": sign, **body.model_dump()}, move)

    def operator(request: Request, token: str | None, what: str) -> Account:
        account = me(request, token)
        if account.role != "operator":
            raise AuthorizationError(f"only an operator may {what}")
        return account

    @app.post("/api/operator/tables", status_code=201)
    def open_new_table(request: Request, body: TableBody, token: Token) -> dict[str, Any]:
        operator(request, token, "open tables")

        def work(s: Session) -> dict[str, Any]:
            table = tables.create_table(s, body.name, body.game, paytable=body.paytable, decks=body.decks,
                                        cut_card=body.cut_card, betting_seconds=body.betting_seconds,
                                        decision_seconds=body.decision_seconds,
                                        pace=Pace(body.no_more_bets_seconds, body.card_seconds, body.results_seconds))
            return tables.table_view(s, table.id)
        return run(request, work)

    @app.post("/api/operator/tables/{table_id}/close")
    def close_table(request: Request, table_id: Id, token: Token) -> dict[str, Any]:
        """Close now if no bets are on the layout, else after the round in play is settled."""
        operator(request, token, "close tables")
        return run(request, lambda s: tables.close_table(s, table_id))

    @app.post("/api/operator/tables/{table_id}/open")
    def reopen_table(request: Request, table_id: Id, token: Token) -> dict[str, Any]:
        operator(request, token, "open tables")
        return run(request, lambda s: tables.reopen_table(s, table_id))

    @app.put("/api/operator/tables/{table_id}/limits")
    def change_limits(request: Request, table_id: Id, body: LimitsBody, token: Token) -> dict[str, Any]:
        """New limits, effective from the next round."""
        operator(request, token, "change table limits")
        return run(request, lambda s: tables.set_limits(s, table_id, body.minimum, body.maximums))

    @app.post("/api/operator/tables/{table_id}/rounds/{number}/void")
    def void_round(request: Request, table_id: Id, number: Id, body: VoidBody, token: Token) -> dict[str, Any]:
        """Void a round in play that cannot be dealt: every unsettled stake is refunded."""
        operator(request, token, "void rounds")
        result = run(request, lambda s: tables.void_round(s, table_id, number, reason=body.reason))
        log.critical("operator voided table %s round %s: %s", table_id, number, body.reason)
        return result

    @app.post("/api/operator/wallets/{account_id}/credit")
    def credit(request: Request, account_id: Id, body: Movement, token: Token,
               idempotency_key: Annotated[str | None, Header()] = None) -> dict[str, Any]:
        return operator_move(request, token, account_id, body, idempotency_key, +1)

    @app.post("/api/operator/wallets/{account_id}/debit")
    def debit(request: Request, account_id: Id, body: Movement, token: Token,
              idempotency_key: Annotated[str | None, Header()] = None) -> dict[str, Any]:
        return operator_move(request, token, account_id, body, idempotency_key, -1)

    @app.get("/api/games")
    def games() -> list[dict[str, Any]]:
        """Every game's wagers with their names and pays (Lucky Draw once per DrawWin pay table)."""
        return views.games_json()

    @app.get("/api/tables/{table_id}/you")
    def your_state(request: Request, table_id: Id, token: Token) -> dict[str, Any]:
        """Your seat, shown balance, bets on the round on show and, once shown, their settlement."""
        account = me(request, token)
        return look(request, lambda s: views.you(s, table_id, account.id))

    @app.get("/api/tables")
    def list_tables(request: Request) -> list[dict[str, Any]]:
        def work(s: Session) -> list[dict[str, Any]]:
            ids = s.scalars(select(GameTable.id).order_by(GameTable.id))
            return [tables.table_view(s, table_id) for table_id in ids]
        return look(request, work)

    @app.get("/api/tables/{table_id}")
    def show_table(request: Request, table_id: Id) -> dict[str, Any]:
        return look(request, lambda s: tables.table_view(s, table_id))

    @app.post("/api/tables/{table_id}/seats", status_code=201)
    def take_seat(request: Request, table_id: Id, body: SeatBody, token: Token) -> dict[str, int]:
        account = me(request, token)
        return {"seat": run(request, lambda s: tables.sit(s, table_id, account.id, body.seat))}

    @app.delete("/api/tables/{table_id}/seats", status_code=204)
    def leave_seat(request: Request, table_id: Id, token: Token) -> None:
        account = me(request, token)
        run(request, lambda s: tables.leave(s, table_id, account.id))

    @app.post("/api/tables/{table_id}/bets", status_code=201)
    def bet(request: Request, table_id: Id, body: BetsBody, token: Token,
            idempotency_key: Annotated[str | None, Header()] = None) -> dict[str, Any]:
        account = me(request, token)
        return once(request, account, idempotency_key, tables.bet_request(table_id, body.bets, body.round),
                    lambda s: tables.place_bets(s, table_id, account.id, body.bets, round_number=body.round))

    @app.post("/api/tables/{table_id}/decision", status_code=201)
    def decision(request: Request, table_id: Id, body: DecisionBody, token: Token,
                 idempotency_key: Annotated[str | None, Header()] = None) -> dict[str, Any]:
        """Lucky Draw: draw (staking the Draw wager, equal to Enter) or stand."""
        account = me(request, token)
        return once(request, account, idempotency_key, {"table": table_id, "action": body.action},
                    lambda s: tables.decide(s, table_id, account.id, body.action))

    @app.get("/api/tables/{table_id}/roads")
    def roads(request: Request, table_id: Id) -> dict[str, Any]:
        """The current shoe's scoreboards (Bead Plate, Big Road, derived roads, asks, statistics)."""
        return look(request, lambda s: tables.table_roads(s, table_id))

    @app.get("/api/tables/{table_id}/strategy")
    def strategy(request: Request, table_id: Id) -> dict[str, Any]:
        """Lucky Draw: the optimal Draw decisions by seat total and up card (the page's hint)."""
        return look(request, lambda s: tables.table_strategy(s, table_id))

    @app.get("/api/tables/{table_id}/shoes/{number}")
    def shoe(request: Request, table_id: Id, number: Id) -> dict[str, Any]:
        return look(request, lambda s: tables.shoe_record(s, table_id, number))

    @app.get("/api/history")
    def history(request: Request, token: Token) -> list[dict[str, Any]]:
        account = me(request, token)
        return look(request, lambda s: tables.recall(s, account.id))

    # --- provably fair: the player's client seed and their history for `baccarat verify` ---------

    @app.get("/api/history/export")
    def history_export(request: Request, token: Token, limit: Annotated[int, Query(
            ge=1, le=played.MOST_ROUNDS, description="how many of your last rounds")] = played.DEFAULT_ROUNDS,
            ) -> dict[str, Any]:
        """Your last rounds with their bets, settlements and balances, your wallet's movements since,
        and the records of their shoes once revealed: check it with `baccarat verify FILE`."""
        account = me(request, token)
        return look(request, lambda s: played.export(s, account.id, limit))

    @app.get("/api/fairness/client-seed")
    def your_client_seed(request: Request, token: Token) -> dict[str, Any]:
        account = me(request, token)
        return look(request, lambda s: fairness.client_seed(s, account.id))

    @app.put("/api/fairness/client-seed")
    def set_client_seed(request: Request, body: ClientSeedBody, token: Token) -> dict[str, Any]:
        """Your client seed, taken into each shoe you bet on before its first deal."""
        account = me(request, token)
        return run(request, lambda s: fairness.set_client_seed(s, account.id, body.seed))

    app.include_router(server_router)
    live.install(app, settings.allowed_origins)
    web.install(app)
    return app
