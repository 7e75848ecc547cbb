"""Tables: the lobby, a table's view, your seat, bets and Lucky Draw decisions, the scoreboards,
the strategy hint and revealed shoes.  The table's live feed is the WebSocket in
:mod:`baccarat.server.live.sockets`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from sqlalchemy import select
from sqlalchemy.orm import Session

from baccarat.core.errors import BaccaratError
from baccarat.server.api.deps import REFUSALS, Id, IdempotencyKey, Token, look, me, once, player, run
from baccarat.server.api.requests import BetsBody, DecisionBody, SeatBody
from baccarat.server.api.responses import Seated
from baccarat.server.live.access import arrived
from baccarat.server.playing import betting, dealing, records, scoreboards, seating, shapes, views
from baccarat.server.storage import metrics
from baccarat.server.storage.models import GameTable, now

router = APIRouter(tags=["tables"], responses=REFUSALS)


@router.get("/api/tables", response_model=list[shapes.TableView])
def list_tables(request: Request) -> list[shapes.TableView]:
    """Every table as a player sees it now (the lobby)."""
    def work(s: Session) -> list[shapes.TableView]:
        ids = s.scalars(select(GameTable.id).order_by(GameTable.id))
        return [views.table_view(s, table_id) for table_id in ids]
    return look(request, work)


@router.get("/api/tables/{table_id}", response_model=shapes.TableView)
def show_table(request: Request, table_id: Id) -> shapes.TableView:
    """One table as a player sees it now."""
    return look(request, lambda s: views.table_view(s, table_id))


@router.get("/api/tables/{table_id}/you", response_model=shapes.YourState)
def your_state(request: Request, table_id: Id, token: Token) -> shapes.YourState:
    """Your seat, shown balance, bets on the round on show and, once shown, their settlement."""
    account = me(request, token)
    return look(request, lambda s: views.you(s, table_id, account.id))


@router.post("/api/tables/{table_id}/seats", status_code=201, response_model=Seated)
def take_seat(request: Request, table_id: Id, body: SeatBody, token: Token) -> Seated:
    """Sit down: at the seat asked for, or the first free one; at a full table you are put in line for the next seat
    freed there (refused with ``table.full``, which says your place)."""
    account = player(request, token)
    taken = run(request, lambda s: seating.sit(s, table_id, account.id, body.seat))
    if isinstance(taken, seating.InLine):  # in line, committed: the refusal says so
        raise taken.refusal()
    return {"seat": taken}


@router.delete("/api/tables/{table_id}/seats", status_code=204)
def leave_seat(request: Request, table_id: Id, token: Token) -> None:
    """Stand up (refused while your bets are on a round in play)."""
    account = me(request, token)
    run(request, lambda s: seating.leave(s, table_id, account.id))


@router.post("/api/tables/{table_id}/bets", status_code=201, response_model=betting.BetAnswer)
def bet(request: Request, table_id: Id, body: BetsBody, token: Token,
        idempotency_key: IdempotencyKey = None) -> betting.BetAnswer:
    """Stake wagers on the open round (added to what you have on it); once per idempotency key."""
    account = player(request, token)
    try:
        answer = once(request, account, idempotency_key, betting.bet_request(table_id, body.bets, body.round),
                      lambda s: betting.place_bets(s, table_id, account.id, body.bets, round_number=body.round))
    except BaccaratError as error:  # no such table: not labelled by its number (the metric's labels stay few)
        metrics.bet_answered(0 if error.code == "table.unknown" else table_id, error.code, arrived(request))
        raise
    metrics.bet_answered(table_id, None, arrived(request))
    return answer


@router.post("/api/tables/{table_id}/take-back", response_model=betting.TakeBackAnswer)
def take_back(request: Request, table_id: Id, body: BetsBody, token: Token,
              idempotency_key: IdempotencyKey = None) -> betting.TakeBackAnswer:
    """Take chips back off the layout while betting is open (what stays must still be a bet the table takes; the
    stakes and their fees go back to your wallet); once per idempotency key."""
    account = player(request, token)
    return once(request, account, idempotency_key, betting.take_back_request(table_id, body.bets, body.round),
                lambda s: betting.take_back(s, table_id, account.id, body.bets, round_number=body.round))


@router.post("/api/tables/{table_id}/decision", status_code=201, response_model=dealing.DecisionAnswer)
def decision(request: Request, table_id: Id, body: DecisionBody, token: Token,
             idempotency_key: IdempotencyKey = None) -> dealing.DecisionAnswer:
    """Lucky Draw: draw (staking the Draw wager, equal to Enter) or stand."""
    account = player(request, token)
    return once(request, account, idempotency_key, betting.decision_request(table_id, body.action, body.round),
                lambda s: dealing.decide(s, table_id, account.id, body.action, round_number=body.round))


@router.get("/api/tables/{table_id}/roads", response_model=shapes.TableRoads)
def roads(request: Request, table_id: Id) -> shapes.TableRoads:
    """The current shoe's scoreboards (Bead Plate, Big Road, derived roads, asks, statistics)."""
    return look(request, lambda s: scoreboards.table_roads(s, table_id))


@router.get("/api/tables/{table_id}/strategy", response_model=records.StrategyCard)
def strategy(request: Request, table_id: Id) -> records.StrategyCard:
    """Lucky Draw: the optimal Draw decisions by seat total and up card (the page's hint)."""
    return look(request, lambda s: records.table_strategy(s, table_id))


@router.get("/api/tables/{table_id}/shoes/{number}", response_model=records.ShoeRecord)
def shoe(request: Request, table_id: Id, number: Id, in_play: Annotated[bool, Query(
        description="a shoe still in play (algorithm 3): its record without the seed, with its Merkle root and "
                    "the rounds shown so far, each card proven")] = False) -> records.ShoeRecord:
    """A finished shoe's record, its server seed revealed, for ``baccarat verify`` (refused while in
    play, unless ``in_play`` asks for the record of a shoe of algorithm 3 as it stands)."""
    at = now() if in_play else None
    return look(request, lambda s: records.shoe_record(s, table_id, number, in_play_at=at))
