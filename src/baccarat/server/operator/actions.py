"""Operator actions, each done and written to the audit trail in one transaction
(:mod:`baccarat.server.house.audit`): open, close and reopen a table, change its limits, void a round,
stand a player up, credit or debit a player's wallet.  The REST routes and ``baccarat void-round`` both come through
here."""

from __future__ import annotations

import json
from typing import Unpack

from sqlalchemy import select
from sqlalchemy.orm import Session
from typing_extensions import TypedDict

from baccarat.core.errors import ConflictError, UnknownSeatError
from baccarat.server.house import audit, roles, wallet
from baccarat.server.operator import credits
from baccarat.server.playing import dealing, seating, tables, views
from baccarat.server.playing.dealing import VoidedRound
from baccarat.server.playing.shapes import LimitsJson, TableView
from baccarat.server.playing.timeline import Pace
from baccarat.server.storage.models import Account, GameTable, Round, Seat


class TableSettings(TypedDict, total=False):
    """A new table's settings (:func:`baccarat.server.playing.tables.create_table`'s keywords)."""

    paytable: int | None
    decks: int
    cut_card: int
    betting_seconds: float
    decision_seconds: float
    pace: Pace | None
    squeeze_seconds: float


class TableState(TypedDict, total=False):
    """A table's settings as the audit trail records them before and after a change (none: no table)."""

    name: str
    game: str
    status: str
    limits: LimitsJson | None
    pending_limits: LimitsJson | None


class WalletBalance(TypedDict):
    """A wallet's balance after a cashier's credit or debit; a credit above the house's threshold is not made yet
    but waits for a second member of staff (``awaiting_approval``: its request's id; the balance is unchanged)."""

    account_id: int
    balance: int
    awaiting_approval: int | None


def _table_state(s: Session, table_id: int) -> TableState:
    table = s.get(GameTable, table_id, populate_existing=True)
    if table is None:
        return {}
    return {"name": table.name, "game": table.game, "status": table.status,
            "limits": json.loads(table.limits) if table.limits else None,
            "pending_limits": json.loads(table.pending_limits) if table.pending_limits else None}


def open_new_table(s: Session, actor: Account | str, name: str, game: str, **settings: Unpack[TableSettings]
                   ) -> TableView:
    """A new table (:func:`baccarat.server.playing.tables.create_table`), recorded."""
    table = tables.create_table(s, name, game, **settings)
    pace = settings.get("pace")
    shown: dict[str, object] = {key: value for key, value in settings.items() if key != "pace"}
    if pace is not None:
        shown.update(no_more_bets_seconds=pace.no_more_bets, card_seconds=pace.card, results_seconds=pace.results)
    audit.record(s, actor, "open_table", f"table {table.id}", {}, {**_table_state(s, table.id), **shown})
    return views.table_view(s, table.id)


def close_table(s: Session, actor: Account | str, table_id: int) -> TableView:
    return audit.audited(s, actor, "close_table", f"table {table_id}", lambda: _table_state(s, table_id),
                         lambda: tables.close_table(s, table_id))


def reopen_table(s: Session, actor: Account | str, table_id: int) -> TableView:
    return audit.audited(s, actor, "reopen_table", f"table {table_id}", lambda: _table_state(s, table_id),
                         lambda: tables.reopen_table(s, table_id))


def set_limits(s: Session, actor: Account | str, table_id: int, minimum: int, maximums: dict[str, int]
               ) -> TableView:
    return audit.audited(s, actor, "change_limits", f"table {table_id}", lambda: _table_state(s, table_id),
                         lambda: tables.set_limits(s, table_id, minimum, maximums))


def void_round(s: Session, actor: Account | str, table_id: int, number: int, *, reason: str) -> VoidedRound:
    def look() -> dict[str, str | None]:
        current = s.scalar(select(Round).where(Round.table_id == table_id, Round.number == number)
                           .execution_options(populate_existing=True))
        return {"status": current.status if current is not None else None}

    return audit.audited(s, actor, "void_round", f"table {table_id} round {number}", look,
                         lambda: dealing.void_round(s, table_id, number, reason=reason),
                         extra=lambda result: {"reason": reason.strip()[:200], "refunded": result["refunded"],
                                               "bets_refunded": result["bets_refunded"]},
                         movement=lambda result: result["movement"])


def stand_player(s: Session, actor: Account | str, table_id: int, seat: int) -> seating.StoodUp:
    """Free seat ``seat`` of the table (:func:`baccarat.server.playing.seating.stand_up`), recorded with who
    sat there; the player's money is not touched."""
    def look() -> dict[str, object]:
        taken = s.scalar(select(Seat).where(Seat.table_id == table_id, Seat.number == seat)
                         .execution_options(populate_existing=True))
        return {"account_id": None if taken is None else taken.account_id}

    return audit.audited(s, actor, "stand_player", f"table {table_id} seat {seat}", look,
                         lambda: seating.stand_up(s, table_id, seat),
                         extra=lambda result: {"player": result["name"]})


def move_money(s: Session, actor: Account | str, account_id: int, amount: int, *, memo: str = "",
               approval_above: int | None = None) -> WalletBalance:
    """Credit (``amount`` > 0) or debit (< 0) a player's wallet from the cashier, recorded.  A credit that takes the
    player's credits of the last day above ``approval_above`` is a request a second member of staff approves
    (:mod:`baccarat.server.operator.credits`).
    Only a player's wallet moves: a staff account holds no money (:mod:`baccarat.server.house.roles`)."""
    player = s.get(Account, account_id)
    if player is None:
        raise UnknownSeatError.coded("operator.account_unknown", account=account_id)
    if roles.is_staff(player.role):
        raise ConflictError.coded("operator.staff_wallet", username=player.username)
    if approval_above is not None and amount > 0 and credits.needs_approval(s, account_id, amount, approval_above):
        request = credits.ask(s, actor, player, amount, memo=memo)
        return {"account_id": account_id, "balance": wallet.balance(s, account_id), "awaiting_approval": request}
    balance, _ = credits.moved(s, actor, account_id, amount, memo=memo)
    return {"account_id": account_id, "balance": balance, "awaiting_approval": None}
