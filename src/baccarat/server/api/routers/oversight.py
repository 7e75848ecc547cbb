"""The operator console's API (operators only): the tables at a glance, reports per table, day and
wager with the theoretical win, player lookup with statements and game recall, and the audit trail.
Every report and statement also comes as CSV (``?format=csv``)."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import Field

from baccarat.server.api.deps import REFUSALS, Id, Operator, look
from baccarat.server.api.responses import Answer, Limits
from baccarat.server.api.routers.protection import ProtectionOut
from baccarat.server.api.text import Text
from baccarat.server.house import audit
from baccarat.server.operator import lookup
from baccarat.server.operator import reports as reports

router = APIRouter(prefix="/api/operator", tags=["operator console"], responses=REFUSALS)

Day = Annotated[date | None, Query(description="UTC date, YYYY-MM-DD")]
Format = Annotated[Literal["json", "csv"], Query(description="json, or csv for a spreadsheet")]
TableFilter = Annotated[int | None, Query(ge=1, le=2**31 - 1, description="one table only")]


# The answers' fields are declared in the order the console has always received them (the fields a model
# declares come first, then any it does not): these shapes are :mod:`baccarat.server.operator.lookup`'s,
# :mod:`~baccarat.server.operator.reports`' and :mod:`~baccarat.server.house.audit`'s TypedDicts.


class ConsoleSeat(Answer):
    seat: int
    account_id: int
    username: str
    away: bool


class RoundInPlay(Answer):
    round: int
    status: str
    bets: int
    staked: int = Field(description="minor units")
    players: int
    closes_at: str


class DayAtTable(Answer):
    day: str = Field(description="the UTC day")
    rounds: int
    bets: int
    handle: int = Field(description="minor units staked today (the drop), as the tables report counts them")
    win: int = Field(description="the house's net today, minor units")


class ConsoleTable(Answer):
    id: int
    name: str
    game: str
    status: str
    seats: list[ConsoleSeat]
    round: RoundInPlay | None
    paytable: int | None
    decks: int
    limits: Limits
    pending_limits: Limits | None = Field(description="limits that apply from the next round")
    today: DayAtTable


class Tally(Answer):
    rounds: int
    bets: int
    handle: int = Field(description="minor units staked")
    win: int = Field(description="the house's net, minor units")
    hold: float | None = Field(description="win / handle")
    theoretical: int = Field(description="the theoretical win, rounded to the cent")
    theoretical_exact: str = Field(description="the theoretical win as an exact fraction of a cent")
    theoretical_hold: float | None


class _Day(Answer):
    day: str = Field(description="the UTC date, YYYY-MM-DD")


class _TableInfo(Answer):
    table_id: int
    table: str
    game: str
    paytable: int | None
    decks: int


class _WagerInfo(Answer):
    table_id: int
    table: str
    game: str
    wager: str
    wager_name: str
    edge: float = Field(description="the wager's exact house edge, as a number")
    edge_exact: str = Field(description="the house edge as an exact fraction")


# The fields come in the order of the bases from the last to the first (the day, the table or wager, then
# the tally), as the report's JSON has them.
class DayTotals(Tally, _Day):
    pass


class TableTotals(Tally, _TableInfo):
    pass


class TableDay(Tally, _TableInfo, _Day):
    pass


class WagerTotals(Tally, _WagerInfo):
    pass


class TablesReport(Answer):
    rows: list[TableDay]
    tables: list[TableTotals]
    series: list[DayTotals]
    total: Tally
    start: str = Field(alias="from", description="the first day reported, YYYY-MM-DD")
    to: str = Field(description="the last day reported")


class WagersReport(Answer):
    rows: list[WagerTotals]
    start: str = Field(alias="from", description="the first day reported, YYYY-MM-DD")
    to: str = Field(description="the last day reported")


class PlayerFound(Answer):
    id: int
    username: str
    role: str
    balance: int
    created_at: str


class StatementBet(Answer):
    bet_id: int
    wager: str
    amount: int
    event: str | None
    net: int | None


class StatementLine(Answer):
    transaction_id: int
    at: str
    kind: str
    amount: int
    balance: int = Field(description="the wallet's balance after it")
    memo: str
    table_id: int | None = None
    table: str | None = None
    round: int | None = None
    bets: list[StatementBet] | None = Field(default=None, description="play: the player's bets on the round")


class PlayerOut(Answer):
    id: int
    username: str
    balance: int
    protection: ProtectionOut
    statement: list[StatementLine]
    role: str
    created_at: str


class RecalledCard(Answer):
    to: str | None
    card: str
    reason: str | None
    at: str | None


class RecalledBet(Answer):
    bet_id: int
    account_id: int
    player: str
    seat: int
    wager: str
    amount: int
    event: str | None
    net: int | None
    transaction_id: int | None


class RecalledDecision(Answer):
    account_id: int
    seat: int
    action: str
    timed_out: bool = Field(description="the seat stood because its time ran out")


class RecalledRound(Answer):
    table_id: int
    round: int
    status: str
    deal: list[RecalledCard]
    bets: list[RecalledBet]
    table: str
    game: str
    paytable: int | None
    round_id: int
    shoe: int
    closes_at: str
    dealt_at: str | None
    decisions: list[RecalledDecision]
    handle: int
    house_net: int
    player_cards: list[str] | None = None
    banker_cards: list[str] | None = None
    player_total: int | None = None
    banker_total: int | None = None
    winner: str | None = None
    hands: dict[str, list[str]] | None = None
    void: str | None = None


class AuditEntryOut(Answer):
    id: int
    at: str
    actor: str
    action: str
    target: str
    # the state the action changed, as it recorded it: free-form JSON, different for every action
    before: Any
    after: Any
    previous: str
    digest: str
    actor_id: int | None = Field(description="the operator's account (none for the command line)")


class ChainBreak(Answer):
    id: int
    problem: str


class ChainCheck(Answer):
    ok: bool
    entries: int
    broken: ChainBreak | None
    head: str | None
    signed: int = Field(description="entries signed (each signature checked with this server's public key)")
    unsigned: int = Field(description="entries made before the signing key existed")
    key: str | None = Field(description="the SHA-256 fingerprint of the public key the signatures were checked with")
    heads: int = Field(description="signed heads checked: none here (`baccarat audit verify` checks the heads file)")


def _csv(text: str, name: str) -> Response:
    return Response(text, media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@router.get("/console", response_model=list[ConsoleTable])
def console(request: Request, _: Operator) -> list[lookup.ConsoleTable]:
    """Every table: status, limits, seated players, and the round in play with its bets so far."""
    return look(request, lookup.console_tables)


@router.get("/reports/tables", response_model=TablesReport,
            responses={200: {"content": {"text/csv": {}}}})
def tables_report(request: Request, _: Operator, start: Annotated[Day, Query(alias="from")] = None,
                  end: Annotated[Day, Query(alias="to")] = None, table: TableFilter = None,
                  format: Format = "json") -> Any:
    """Per table and day: rounds, handle, win (house net), hold, theoretical win; and the daily
    series of all tables for the chart."""
    report = look(request, lambda s: reports.tables_report(s, start, end, table_id=table))
    if format == "csv":
        return _csv(reports.as_csv(report["rows"], reports.TABLE_COLUMNS),
                    f"tables-{report['from']}-{report['to']}.csv")
    return report


@router.get("/reports/wagers", response_model=WagersReport,
            responses={200: {"content": {"text/csv": {}}}})
def wagers_report(request: Request, _: Operator, start: Annotated[Day, Query(alias="from")] = None,
                  end: Annotated[Day, Query(alias="to")] = None, table: TableFilter = None,
                  format: Format = "json") -> Any:
    """Per table and wager: handle, win, hold, the wager's exact house edge and theoretical win."""
    report = look(request, lambda s: reports.wagers_report(s, start, end, table_id=table))
    if format == "csv":
        return _csv(reports.as_csv(report["rows"], reports.WAGER_COLUMNS),
                    f"wagers-{report['from']}-{report['to']}.csv")
    return report


@router.get("/players", response_model=list[PlayerFound])
def find_players(request: Request, _: Operator,
                 q: Annotated[Text, Query(max_length=32, description="part of a name, or an id")] = ""
                 ) -> list[lookup.FoundPlayer]:
    return look(request, lambda s: lookup.find_players(s, q))


@router.get("/players/{account_id}", response_model=PlayerOut, response_model_exclude_unset=True,
            responses={200: {"content": {"text/csv": {}}}})
def player(request: Request, account_id: Id, _: Operator,
           lines: Annotated[int, Query(ge=1, le=10_000, description="statement lines, newest first")] = 500,
           format: Format = "json") -> Any:
    """Balance, protection, and the statement of every wallet movement with its round and bets
    (as CSV: the statement)."""
    found = look(request, lambda s: lookup.player(s, account_id, lines=lines))
    if format == "csv":
        return _csv(reports.as_csv(lookup.statement_rows(found["statement"]), lookup.STATEMENT_COLUMNS),
                    f"statement-{found['username']}.csv")
    return found


@router.get("/tables/{table_id}/rounds/{number}", response_model=RecalledRound, response_model_exclude_unset=True)
def recall(request: Request, table_id: Id, number: Id, _: Operator) -> lookup.RecalledRound:
    """Game recall: the round's cards in deal order, every bet, the result and each settlement."""
    return look(request, lambda s: lookup.recall_round(s, table_id, number))


@router.get("/audit", response_model=list[AuditEntryOut], responses={200: {"content": {"text/csv": {}}}})
def audit_trail(request: Request, _: Operator,
                after: Annotated[int, Query(ge=0, le=2**31 - 1, description="entries after this id")] = 0,
                limit: Annotated[int, Query(ge=1, le=1000)] = 200, format: Format = "json") -> Any:
    """Operator actions, oldest first: who, when, what, before and after, and the hash chain."""
    entries = look(request, lambda s: audit.trail(s, after_id=after, limit=limit))
    if format == "csv":
        rows = [{**e, "before": audit.canonical(e["before"]), "after": audit.canonical(e["after"])}
                for e in entries]
        return _csv(reports.as_csv(rows, ["id", "at", "actor", "actor_id", "action", "target", "before", "after",
                                          "previous", "digest"]), "audit.csv")
    return entries


@router.get("/audit/verify", response_model=ChainCheck)
def verify_audit(request: Request, _: Operator) -> audit.ChainCheck:
    """Check the whole chain and every entry's signature (with this server's public key); names the
    first broken entry."""
    public = audit.public_key(request.app.state.sessions)
    return look(request, lambda s: audit.verify(s, public=public))
