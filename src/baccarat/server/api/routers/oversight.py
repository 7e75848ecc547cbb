"""The operator console's API (staff only, each route to the roles of :mod:`baccarat.server.house.roles`): the
tables at a glance, reports per table, day and wager with the theoretical win, player lookup with statements and
game recall, and the audit trail.
Every report and statement also comes as CSV (``?format=csv``)."""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import BeforeValidator

from baccarat.server.api.deps import REFUSALS, Audit, Console, Id, Players, Recall, Reports, look
from baccarat.server.api.text import Text
from baccarat.server.house import audit, roles
from baccarat.server.operator import lookup
from baccarat.server.operator import reports as reports

router = APIRouter(prefix="/api/operator", tags=["operator console"], responses=REFUSALS)

def _iso_day(value: object) -> object:
    """A day only as the schema writes it (``YYYY-MM-DD``): pydantic would also take ``0`` or ``1700000000`` as
    a day since 1970, which the schema does not say."""
    if isinstance(value, str) and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise ValueError("a day is written YYYY-MM-DD")
    return value


Day = Annotated[date | None, BeforeValidator(_iso_day), Query(description="UTC date, YYYY-MM-DD")]
Format = Annotated[Literal["json", "csv"], Query(description="json, or csv for a spreadsheet")]
TableFilter = Annotated[int | None, Query(ge=1, le=2**31 - 1, description="one table only")]


def _csv(text: str, name: str) -> Response:
    return Response(text, media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@router.get("/console", response_model=list[lookup.ConsoleTable])
def console(request: Request, _: Console) -> list[lookup.ConsoleTable]:
    """Every table: status, limits, seated players, and the round in play with its bets so far."""
    return look(request, lookup.console_tables)


@router.get("/reports/tables", response_model=reports.TablesReport,
            responses={200: {"content": {"text/csv": {}}}})
def tables_report(request: Request, _: Reports, start: Annotated[Day, Query(alias="from")] = None,
                  end: Annotated[Day, Query(alias="to")] = None, table: TableFilter = None,
                  format: Format = "json") -> Any:
    """Per table and day: rounds, handle, win (house net), hold, theoretical win; and the daily
    series of all tables for the chart."""
    report = look(request, lambda s: reports.tables_report(s, start, end, table_id=table))
    if format == "csv":
        return _csv(reports.as_csv(report["rows"], reports.TABLE_COLUMNS),
                    f"tables-{report['from']}-{report['to']}.csv")
    return report


@router.get("/reports/wagers", response_model=reports.WagersReport,
            responses={200: {"content": {"text/csv": {}}}})
def wagers_report(request: Request, _: Reports, start: Annotated[Day, Query(alias="from")] = None,
                  end: Annotated[Day, Query(alias="to")] = None, table: TableFilter = None,
                  format: Format = "json") -> Any:
    """Per table and wager: handle, win, hold, the wager's exact house edge and theoretical win."""
    report = look(request, lambda s: reports.wagers_report(s, start, end, table_id=table))
    if format == "csv":
        return _csv(reports.as_csv(report["rows"], reports.WAGER_COLUMNS),
                    f"wagers-{report['from']}-{report['to']}.csv")
    return report


@router.get("/players", response_model=list[lookup.FoundPlayer])
def find_players(request: Request, _: Players,
                 q: Annotated[Text, Query(max_length=32, description="part of a name, or an id")] = ""
                 ) -> list[lookup.FoundPlayer]:
    return look(request, lambda s: lookup.find_players(s, q))


@router.get("/players/{account_id}", response_model=lookup.PlayerRecord,
            responses={200: {"content": {"text/csv": {}}}})
def player(request: Request, account_id: Id, _: Players,
           lines: Annotated[int, Query(ge=1, le=10_000, description="statement lines, newest first")] = 500,
           format: Format = "json") -> Any:
    """Balance, protection, and the statement of every wallet movement with its round and bets
    (as CSV: the statement)."""
    found = look(request, lambda s: lookup.player(s, account_id, lines=lines))
    if format == "csv":
        return _csv(reports.as_csv(lookup.statement_rows(found["statement"]), lookup.STATEMENT_COLUMNS),
                    f"statement-{found['username']}.csv")
    return found


@router.get("/tables/{table_id}/rounds/{number}", response_model=lookup.RecalledRound)
def recall(request: Request, table_id: Id, number: Id, caller: Recall) -> lookup.RecalledRound:
    """Game recall: the round's cards in deal order, every bet, the result and each settlement.  Of a round still
    being dealt, only what its table has shown so far, except to surveillance (``withheld`` says so)."""
    every_card = roles.may(caller.role, "recall_in_play")
    return look(request, lambda s: lookup.recall_round(s, table_id, number, every_card=every_card))


@router.get("/audit", response_model=list[audit.AuditEntryJson], responses={200: {"content": {"text/csv": {}}}})
def audit_trail(request: Request, _: Audit,
                after: Annotated[int, Query(ge=0, le=2**31 - 1, description="entries after this id")] = 0,
                limit: Annotated[int, Query(ge=1, le=1000)] = 200, format: Format = "json") -> Any:
    """Staff actions, oldest first: who, when, what, before and after, and the hash chain."""
    entries = look(request, lambda s: audit.trail(s, after_id=after, limit=limit))
    if format == "csv":
        rows = [{**e, "before": audit.canonical(e["before"]), "after": audit.canonical(e["after"])}
                for e in entries]
        return _csv(reports.as_csv(rows, ["id", "at", "actor", "actor_id", "action", "target", "before", "after",
                                          "previous", "digest"]), "audit.csv")
    return entries


@router.get("/audit/verify", response_model=audit.ChainCheck)
def verify_audit(request: Request, _: Audit) -> audit.ChainCheck:
    """Check the whole chain and every entry's signature (with this server's public key); names the
    first broken entry."""
    public = audit.public_key(request.app.state.sessions)
    return look(request, lambda s: audit.verify(s, public=public))
