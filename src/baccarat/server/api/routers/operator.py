"""The staff's routes: the pit boss's (open and close tables, change their limits, void a round that cannot be
dealt, stand a player up) and the cashier's (credit or debit a player's wallet; a large credit waits for a second
member of staff).  Every route answers 403 to a role that may not take its action (:mod:`baccarat.server.house.roles`),
and every action is written to the audit trail in its own transaction (:mod:`baccarat.server.operator.actions`)."""

from __future__ import annotations

import logging

from fastapi import APIRouter, Request
from sqlalchemy.orm import Session

from baccarat.server.api.deps import REFUSALS, Id, IdempotencyKey, Token, once, run, staff
from baccarat.server.api.requests import LimitsBody, Movement, TableBody, VoidBody
from baccarat.server.operator import actions as operations
from baccarat.server.playing import dealing, seating, shapes
from baccarat.server.playing.timeline import Pace

log = logging.getLogger("baccarat.server")
router = APIRouter(prefix="/api/operator", tags=["operator"], responses=REFUSALS)


@router.post("/tables", status_code=201, response_model=shapes.TableView)
def open_new_table(request: Request, body: TableBody, token: Token) -> shapes.TableView:
    """A new table, open for bets at once."""
    manager = staff(request, token, "open_tables")

    def work(s: Session) -> shapes.TableView:
        return operations.open_new_table(
            s, manager, body.name, body.game, paytable=body.paytable, decks=body.decks, cut_card=body.cut_card,
            betting_seconds=body.betting_seconds, decision_seconds=body.decision_seconds,
            pace=Pace(body.no_more_bets_seconds, body.card_seconds, body.results_seconds),
            squeeze_seconds=body.squeeze_seconds)
    return run(request, work)


@router.post("/tables/{table_id}/close", response_model=shapes.TableView)
def close_table(request: Request, table_id: Id, token: Token) -> shapes.TableView:
    """Close now if no bets are on the layout, else after the round in play is settled."""
    manager = staff(request, token, "close_tables")
    return run(request, lambda s: operations.close_table(s, manager, table_id))


@router.post("/tables/{table_id}/open", response_model=shapes.TableView)
def reopen_table(request: Request, table_id: Id, token: Token) -> shapes.TableView:
    """Open a closed table again, with a new shoe."""
    manager = staff(request, token, "open_tables")
    return run(request, lambda s: operations.reopen_table(s, manager, table_id))


@router.put("/tables/{table_id}/limits", response_model=shapes.TableView)
def change_limits(request: Request, table_id: Id, body: LimitsBody, token: Token) -> shapes.TableView:
    """New limits, effective from the next round."""
    manager = staff(request, token, "change_limits")
    return run(request, lambda s: operations.set_limits(s, manager, table_id, body.minimum, body.maximums))


@router.post("/tables/{table_id}/rounds/{number}/void", response_model=dealing.VoidedRound)
def void_round(request: Request, table_id: Id, number: Id, body: VoidBody, token: Token) -> dealing.VoidedRound:
    """Void a round in play that cannot be dealt: every unsettled stake is refunded."""
    manager = staff(request, token, "void_rounds")
    result = run(request, lambda s: operations.void_round(s, manager, table_id, number, reason=body.reason))
    log.critical("operator voided table %s round %s: %s", table_id, number, body.reason)
    return result


@router.post("/tables/{table_id}/seats/{seat}/stand", response_model=seating.StoodUp)
def stand_player(request: Request, table_id: Id, seat: Id, token: Token) -> seating.StoodUp:
    """Free a seat whoever holds it (a player who sits and never plays), announced to the table; the
    player's money is not touched.  Refused while the player has bets in play."""
    manager = staff(request, token, "stand_players")
    return run(request, lambda s: operations.stand_player(s, manager, table_id, seat))


def _move(request: Request, token: str | None, account_id: int, body: Movement, key: str | None,
          sign: int) -> operations.WalletBalance:
    manager = staff(request, token, "move_money")

    def move(s: Session) -> operations.WalletBalance:
        return operations.move_money(s, manager, account_id, sign * body.amount, memo=body.memo,
                                     approval_above=request.app.state.settings.credit_approval_above)
    return once(request, manager, key, {"account_id": account_id, "sign": sign, **body.model_dump()}, move)


@router.post("/wallets/{account_id}/credit", response_model=operations.WalletBalance)
def credit(request: Request, account_id: Id, body: Movement, token: Token,
           idempotency_key: IdempotencyKey = None) -> operations.WalletBalance:
    """Add play money to a player's wallet from the cashier; once per idempotency key.  Above the house's threshold
    (``BACCARAT_CREDIT_APPROVAL_ABOVE``) nothing moves yet: ``awaiting_approval`` names the request a second member
    of staff approves (``POST /api/operator/credits/{id}/approve``)."""
    return _move(request, token, account_id, body, idempotency_key, +1)


@router.post("/wallets/{account_id}/debit", response_model=operations.WalletBalance)
def debit(request: Request, account_id: Id, body: Movement, token: Token,
          idempotency_key: IdempotencyKey = None) -> operations.WalletBalance:
    """Take money from a wallet back to the cashier (refused beyond its balance); once per idempotency key."""
    return _move(request, token, account_id, body, idempotency_key, -1)
