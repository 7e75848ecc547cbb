"""The scoreboards of the shoe on show and a player's own history, each as shown by ``now``: no hand on the
roads, no round in the history, before the round's result is on show (:mod:`baccarat.server.playing.timeline`);
and the seat each Lucky Draw bettor plays in the core."""

from __future__ import annotations

import json
from datetime import datetime
from typing import cast

from sqlalchemy import ColumnElement, and_, bindparam, func, or_, select
from sqlalchemy import Table as SqlTable
from sqlalchemy.orm import Session

from baccarat.core.cards import Card, hand_total
from baccarat.core.errors import IllegalActionError, UnknownSeatError
from baccarat.core.games import Game
from baccarat.core.registry import get_game
from baccarat.core.roads import hand_from_json, roads
from baccarat.server.playing import shapes
from baccarat.server.playing.timeline import card_label
from baccarat.server.playing.views import moment
from baccarat.server.storage.models import (
    Account,
    Bet,
    GameTable,
    Round,
    Settlement,
    ShoeRow,
    aware,
)
from baccarat.server.storage.models import now as _now

_SHOES = cast(SqlTable, ShoeRow.__table__)
#: the shoe whose roads are drawn: the one on show, else the table's newest
_SHOE = select(_SHOES.c.id, _SHOES.c.number).where(_SHOES.c.id == bindparam("shoe"))
_NEWEST_SHOE = (select(_SHOES.c.id, _SHOES.c.number).where(_SHOES.c.table_id == bindparam("table"))
                .order_by(_SHOES.c.number.desc()).limit(1))


def table_roads(s: Session, table_id: int, now: datetime | None = None) -> shapes.TableRoads:
    """The scoreboards of the shoe on show (they start again with each shoe), with the hands whose
    result is shown by ``now``."""
    now = now or _now()
    state = moment(s, table_id, now)
    game = get_game(state.table.game, paytable=state.table.paytable)
    if game.kind != "punto_banco":
        raise IllegalActionError.coded("roads.none", game=game.code, names={"game": game.name})
    connection = s.connection()
    shoe = (connection.execute(_SHOE, {"shoe": state.on_show.shoe_id}).first() if state.on_show is not None
            else connection.execute(_NEWEST_SHOE, {"table": table_id}).first())
    results: list[str | None] = [] if shoe is None else list(s.scalars(select(Round.result).where(
        Round.shoe_id == shoe.id, Round.status == "settled", or_(Round.result_at.is_(None), Round.result_at <= now))
        .order_by(Round.number)))
    hands_ = [hand_from_json(data["hand"]) for data in (json.loads(r or "{}") for r in results) if "hand" in data]
    drawn = roads(hands_).to_json()
    return {"shoe": None if shoe is None else shoe.number, "bead_plate": drawn["bead_plate"],
            "big_road": drawn["big_road"], "big_eye_boy": drawn["big_eye_boy"], "small_road": drawn["small_road"],
            "cockroach_pig": drawn["cockroach_pig"], "ask": drawn["ask"], "stats": drawn["stats"]}


def _result_words(result: shapes.StoredResult, username: str | None) -> str | None:
    """The round's result in words: ``Banker wins 7 : 5``; Lucky Draw from the player's side:
    ``You win 8 : 6``, ``Dealer wins 6 : 3``, ``Push 5 : 5``."""
    if "void" in result:
        return "Void: every stake refunded"
    if "winner" in result:
        player, banker = result["player_total"], result["banker_total"]
        return {"tie": f"Tie {player} : {banker}", "banker": f"Banker wins {banker} : {player}",
                "player": f"Player wins {player} : {banker}"}[result["winner"]]
    hands_ = result.get("hands", {})
    mine = next((seat for seat, name in result.get("names", {}).items() if name == username), None)
    if mine is None or mine not in hands_ or "dealer" not in hands_:
        return None
    you = hand_total(Card.parse(c) for c in hands_[mine])
    dealer = hand_total(Card.parse(c) for c in hands_["dealer"])
    return (f"You win {you} : {dealer}" if you > dealer else f"Dealer wins {dealer} : {you}" if dealer > you
            else f"Push {you} : {dealer}")


#: How many rounds ``GET /api/history`` sends at once, unless asked for fewer, and the most it sends.
RECALL_ROUNDS, MOST_RECALL_ROUNDS = 20, 100


def dealt_time() -> ColumnElement[datetime]:
    """When a round was dealt (its last deal), or for one refunded before any card, when its betting closed: the
    history's order.  Never the round's id: a table left idle keeps its open round (a low id) until someone bets."""
    return func.coalesce(Round.dealt_at, Round.closes_at)


def recall(s: Session, account_id: int, limit: int = RECALL_ROUNDS, now: datetime | None = None, *,
           table_id: int | None = None, before: str | None = None) -> list[shapes.RecallEntry]:
    """The player's last rounds whose result is shown by ``now``, the newest dealt first (at ``table_id`` only, if
    given; older than the row whose ``cursor`` is ``before``, for the next page): cards in deal order, bets,
    results, balance before and after, the shoe each was dealt from and in Lucky Draw the seat that was theirs,
    for checking it."""
    now = now or _now()
    query = (select(Round, GameTable.name, GameTable.game, GameTable.paytable, ShoeRow.number)
             .join(Bet, Bet.round_id == Round.id).join(GameTable, GameTable.id == Round.table_id)
             .join(ShoeRow, ShoeRow.id == Round.shoe_id)
             .where(Bet.account_id == account_id, Round.status.in_(("settled", "refunded", "void")),
                    or_(Round.result_at.is_(None), Round.result_at <= now)))
    if table_id is not None:
        query = query.where(Round.table_id == table_id)
    if before is not None:
        after = s.execute(select(dealt_time(), Round.id).where(Round.id == _cursor(before))).first()
        if after is None:
            raise UnknownSeatError.coded("history.cursor", cursor=before)
        query = query.where(or_(dealt_time() < after[0], and_(dealt_time() == after[0], Round.id < after[1])))
    rows = s.execute(query.group_by(Round.id, GameTable.name, GameTable.game, GameTable.paytable, ShoeRow.number)
                     .order_by(dealt_time().desc(), Round.id.desc()).limit(limit)).all()
    history: list[shapes.RecallEntry] = []
    username = s.scalar(select(Account.username).where(Account.id == account_id)) if rows else None
    for current, name, game_code, paytable, shoe_number in rows:
        game = get_game(game_code, paytable=paytable)
        bets = s.execute(select(Bet, Settlement).join(Settlement, Settlement.bet_id == Bet.id)
                         .where(Bet.round_id == current.id, Bet.account_id == account_id).order_by(Bet.id)).all()
        result: shapes.StoredResult = json.loads(current.result or "{}")
        detail = cast(shapes.RoundDetail, {key: value for key, value in result.items()
                                    if key not in ("balances", "cards", "winner", "deal", "names", "spots")})
        cards = result.get("cards", [])
        entry: shapes.RecallEntry = {
            "cursor": str(current.id), "table": name, "table_id": current.table_id, "round": current.number,
            "status": current.status,
            "shoe": shoe_number, "time": aware(current.closes_at).isoformat(), "detail": detail,
            "cards": cards, "cards_named": [card_label(c) for c in cards], "winner": result.get("winner"),
            "result_message": _result_words(result, username),
            "bets": {b.wager: {"amount": b.amount, "event": st.event, "net": st.net, "name": _name(game, b.wager)}
                     for b, st in bets},
            "balance_before": bets[0][0].balance_before if bets else None,
            "balance_after": result.get("balances", {}).get(str(account_id)),
        }
        if game.kind == "lucky_draw":
            everyone = list(s.scalars(select(Bet).where(Bet.round_id == current.id).order_by(Bet.id)))
            entry["seat"] = f"seat:{core_seats(everyone, game.max_seats)[account_id]}"
        history.append(entry)
    return history


def _cursor(text: str) -> int:
    """The round a history cursor names (a cursor is opaque to clients: today a round's row id)."""
    if not text.isascii() or not text.isdigit() or len(text) > 12:
        raise UnknownSeatError.coded("history.cursor", cursor=text)
    return int(text)


def _name(game: Game, code: str) -> str:
    try:
        return game.wager(code).name
    except LookupError:
        return code


def core_seats(bets: list[Bet], seats: int) -> dict[int, int]:
    """Account -> the seat it plays in the core: the seat it bet from, unless another account's
    bets came from that seat first (then the lowest free one).  Bets belong to accounts; the seat
    number only orders Lucky Draw's deal, so two accounts can never be mixed up."""
    chosen: dict[int, int] = {}
    for bet in bets:  # in the order they were placed
        if bet.account_id not in chosen:
            taken = set(chosen.values())
            free = [n for n in range(1, seats + 1) if n not in taken]
            if not free:
                raise IllegalActionError.coded("round.seats_exceeded", seats=seats)
            chosen[bet.account_id] = bet.seat if bet.seat not in taken and 1 <= bet.seat <= seats else free[0]
    return chosen
