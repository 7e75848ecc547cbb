"""Bets on a table's open round: each checked by the stake rule (:func:`baccarat.core.stakes.check_stakes`: the
layout, the table's limits, the player's own limits and shown balance), its stake moved into the round's escrow
in the same transaction that stores it."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any, NotRequired, cast

from sqlalchemy import Table as SqlTable
from sqlalchemy import bindparam, delete, func, insert, select, update
from sqlalchemy.orm import Session
from typing_extensions import TypedDict

from baccarat.core.errors import (
    ConfigurationError,
    IllegalActionError,
    UnknownSeatError,
)
from baccarat.core.money import check_amount
from baccarat.core.registry import get_game
from baccarat.core.stakes import check_stakes, fee_for, fees_of
from baccarat.server.house import protection, wallet
from baccarat.server.playing import fairness
from baccarat.server.playing.game_info import stored_limits
from baccarat.server.playing.tables import NO_SEAT
from baccarat.server.storage import metrics, notify
from baccarat.server.storage.models import (
    Bet,
    GameTable,
    Round,
    Seat,
    ShoeRow,
    aware,
)
from baccarat.server.storage.models import now as _now

#: A bet that reaches the server this long after the announced close is still taken, as a dealer takes the
#: chips already on their way when calling "no more bets": a bet is judged by the moment it arrived
#: (:mod:`baccarat.server.live.arrival`), and one sent a millisecond before the close arrives after it.  The
#: page stops taking bets at the close itself.  Nothing is dealt before the dealer's wait after the close
#: (:data:`baccarat.server.playing.dealer.LATE_BETS`, longer), so a bet taken in this allowance learns nothing.
ON_THE_WAY = timedelta(seconds=0.25)


class BetAnswer(TypedDict):
    """Bets placed: the answer over REST and the WebSocket (and stored for the idempotency key)."""

    table: int
    round: int
    seat: int | None
    """None for a punto banco bettor without a seat"""
    bets: dict[str, int]
    """your stakes on the round after this request"""
    added: dict[str, int]
    """what this request added"""
    balance: int
    """shown balance"""


class TakeBackAnswer(TypedDict):
    """Chips taken back off the layout while betting is open: the answer over REST and the WebSocket."""

    table: int
    round: int
    seat: int | None
    """None for a punto banco bettor without a seat"""
    bets: dict[str, int]
    """your stakes on the round after this request (a spot taken back whole is not in it)"""
    taken: dict[str, int]
    """what this request took back"""
    refunded: int
    """what went back to your wallet: the stakes taken back and their fees"""
    balance: int
    """shown balance"""


class BetRequest(TypedDict):
    """What a bet's (or a take-back's) idempotency key stands for."""

    table: int
    bets: dict[str, int]
    round: NotRequired[int]
    take_back: NotRequired[bool]


class DecisionRequest(TypedDict):
    """What a decision's idempotency key stands for."""

    table: int
    action: str
    round: NotRequired[int]


def betting_closed(closes_at: datetime, now: datetime) -> bool:
    """Whether a bet that arrived at ``now`` is too late for a window that closes at ``closes_at``
    (:data:`ON_THE_WAY` after the close)."""
    return aware(closes_at) + ON_THE_WAY <= now


_ROUNDS = cast(SqlTable, Round.__table__)


_SEATS = cast(SqlTable, Seat.__table__)


_BETS = cast(SqlTable, Bet.__table__)


_TABLES = cast(SqlTable, GameTable.__table__)


# A bet is the hottest request: its reads are Core statements built once (the ORM's per-statement
# work was most of its cost), one for the table, round and seat together.
_SHOES = cast(SqlTable, ShoeRow.__table__)


_BETTING = (select(_TABLES.c.name, _TABLES.c.game, _TABLES.c.paytable, _TABLES.c.limits,
                   _ROUNDS.c.id, _ROUNDS.c.number, _ROUNDS.c.opens_at, _ROUNDS.c.closes_at, _ROUNDS.c.shoe_id,
                   _SHOES.c.algorithm, _SHOES.c.client_seeds)
            .select_from(_TABLES)
            .outerjoin(_ROUNDS, (_ROUNDS.c.table_id == _TABLES.c.id) & (_ROUNDS.c.status == "betting"))
            .outerjoin(_SHOES, _SHOES.c.id == _ROUNDS.c.shoe_id)
            .where(_TABLES.c.id == bindparam("table")))


_LAST_ROUND = select(func.max(_ROUNDS.c.number)).where(_ROUNDS.c.table_id == bindparam("table"))
#: When the round before a given one shows its result (None: it has none, or it is not dealt yet).
_RESULT_BEFORE = select(_ROUNDS.c.result_at).where(_ROUNDS.c.table_id == bindparam("table"),
                                                   _ROUNDS.c.number == bindparam("number") - 1)


_YOUR_SEAT = select(_SEATS.c.number).where(_SEATS.c.table_id == bindparam("table"),
                                           _SEATS.c.account_id == bindparam("account"))


# in the order placed: which spot a refusal names when several are over (the core checks them in order) is then
# always the same, whatever order the database keeps the rows in
_PLACED = select(_BETS.c.wager, _BETS.c.amount).where(_BETS.c.round_id == bindparam("round"),
                                                      _BETS.c.account_id == bindparam("account")).order_by(_BETS.c.id)


_NEW_BET = insert(_BETS)


_ADD_TO_BET = (update(_BETS).where(_BETS.c.round_id == bindparam("round"), _BETS.c.account_id == bindparam("account"),
                                   _BETS.c.wager == bindparam("code"))
               .values(amount=_BETS.c.amount + bindparam("added")))


#: A bet or decision holds its round's row FOR SHARE; the dealer and operators take it FOR UPDATE
#: (PostgreSQL; SQLite has one writer at a time and ignores the clause).
_TAKE_FROM_BET = (update(_BETS).where(_BETS.c.round_id == bindparam("round"),
                                      _BETS.c.account_id == bindparam("account"), _BETS.c.wager == bindparam("code"))
                  .values(amount=_BETS.c.amount - bindparam("taken")))
_BET_TAKEN_BACK = delete(_BETS).where(_BETS.c.round_id == bindparam("round"),
                                      _BETS.c.account_id == bindparam("account"), _BETS.c.wager == bindparam("code"))


_ROUND_STATUS = select(_ROUNDS.c.status).where(_ROUNDS.c.id == bindparam("round")).with_for_update(read=True)


def hold_round(s: Session, round_id: int, status: str) -> bool:
    """Lock the round against the dealer until this transaction ends; False if it has moved on."""
    return s.connection().execute(_ROUND_STATUS, {"round": round_id}).scalar_one_or_none() == status


def betting_row(connection: Any, table_id: int) -> Any:
    """The table with its round taking bets (``id`` None when none is) and that round's shoe, or None for no
    such table: what a bet needs of them, read with one statement."""
    return connection.execute(_BETTING, {"table": table_id}).first()


def check_window(connection: Any, row: Any, table_id: int, now: datetime, round_number: int | None) -> None:
    """Refuse a bet that arrived at ``now`` unless it may go on the round of :func:`betting_row`'s ``row``: it is
    refused when it names another round (``round_number``), when no round takes bets, before the window opens (saying
    when only once the round before shows its result) and after it closed (with :data:`ON_THE_WAY`).  The one
    check of the window for a bet alone and for the bets of a batch (:mod:`baccarat.server.playing.bulk_bets`); the
    round's lock is the caller's."""
    if round_number is not None and round_number != row.number:
        _refuse_round(connection, table_id, round_number, row.number)
    if row.id is None:
        raise IllegalActionError.coded("bet.round_over")
    if row.opens_at is not None and aware(row.opens_at) > now:
        # the window opens a results pause after the round before shows its result, which a deal of more cards
        # puts later: until that result is shown, how long to wait would tell how many cards are to come
        shown_at = connection.execute(_RESULT_BEFORE, {"table": table_id, "number": row.number}).scalar()
        if shown_at is not None and aware(shown_at) > now:
            raise IllegalActionError.coded("bet.dealing", round=row.number)
        wait = math.ceil((aware(row.opens_at) - now).total_seconds())
        raise IllegalActionError.coded("bet.opens_in", seconds=wait, round=row.number)
    if betting_closed(row.closes_at, now):
        raise IllegalActionError.coded("bet.closed", round=row.number)


class NewBet(TypedDict):
    """A bet's row, first chips of a player on a spot of a round."""

    round_id: int
    account_id: int
    seat: int
    wager: str
    amount: int
    balance_before: int


class AddedChips(TypedDict):
    """Chips added to a player's bet already on a spot (:func:`add_to_bets`)."""

    round: int
    account: int
    code: str
    added: int


def bet_rows(round_id: int, account_id: int, seat: int, placed: dict[str, int], bets: dict[str, int], *,
             balance_before: int) -> tuple[list[NewBet], list[AddedChips]]:
    """Accepted ``bets`` as rows: a new bet per spot the player has nothing on (``placed``), chips added to the
    bet on each other spot (one bet per player and spot: the unique key holds it)."""
    new: list[NewBet] = [{"round_id": round_id, "account_id": account_id, "seat": seat, "wager": code,
                          "amount": amount, "balance_before": balance_before}
                         for code, amount in bets.items() if code not in placed]
    added: list[AddedChips] = [{"round": round_id, "account": account_id, "code": code, "added": amount}
                               for code, amount in bets.items() if code in placed]
    return new, added


def add_to_bets(connection: Any, added: list[AddedChips]) -> None:
    """Raise bets already on the layout by what was added (one statement for them all)."""
    if added:
        connection.execute(_ADD_TO_BET, added)


def place_bets(s: Session, table_id: int, account_id: int, bets: dict[str, int], now: datetime | None = None,
               *, round_number: int | None = None) -> BetAnswer:
    """Put ``bets`` on the open round; the stakes go from the wallet to the round's escrow.

    ``round_number`` names the round the bets are meant for: a bet that arrives after that round's
    window closed is refused ("betting closed for round N") instead of landing in the next round.
    Without it the bets go on whichever round is open, and the answer says which.
    """
    now = now or _now()
    if not bets or not isinstance(bets, dict):
        raise ConfigurationError.coded("bet.malformed")
    connection = s.connection()
    # read once per transaction and table: a group commit (see batch) places many bets in one transaction,
    # and bets change neither the table, nor the round (its status is checked under its lock below), nor the shoe
    known: dict[int, Any] = s.info.setdefault("betting_rows", {})
    row = known.get(table_id) or betting_row(connection, table_id)
    if row is None:
        raise UnknownSeatError.coded("table.unknown", table=table_id)
    known[table_id] = row
    check_window(connection, row, table_id, now, round_number)
    if not hold_round(s, row.id, "betting"):
        known.pop(table_id, None)  # the dealer moved on: the next bet of this transaction reads the table again
        raise IllegalActionError.coded("bet.closed", round=row.number)
    # Read under the round's lock (see leave): the seat cannot be given up between here and the insert.
    seat = connection.execute(_YOUR_SEAT, {"table": table_id, "account": account_id}).scalar_one_or_none()
    game = get_game(row.game, paytable=row.paytable)
    if seat is None:
        if game.kind == "lucky_draw":  # each Lucky Draw hand is a seat's: its player decides
            raise IllegalActionError.coded("bet.sit_first")
        seat = NO_SEAT  # punto banco: any player may bet on the one coup, seated or not
    # the player's own breaks and limits (under their protection row's lock), then their wallet, held: their
    # other bets queue here, so what is on the layout is read once and cannot change before this commits
    protection.check_play(s, account_id, now)
    own = protection.own_limits(s, account_id, now)
    shown_before = wallet.hold_shown_balance(s, account_id, now)
    placed: dict[str, int] = {wager: amount for wager, amount in connection.execute(
        _PLACED, {"round": row.id, "account": account_id})}
    together = check_stakes(game, stored_limits(row.game, row.paytable, row.limits), placed, bets, own_limits=own,
                            balance=shown_before)
    total = sum(bets.values()) + fee_for(game, placed, bets)  # the stakes and their fees go into escrow together
    balance, shown = wallet.stake(s, account_id, wallet.escrow_account(row.id), total,
                                  memo=f"table {row.name} round {row.number}", now=now, shown_before=shown_before)
    new, added = bet_rows(row.id, account_id, seat, placed, bets,
                          balance_before=balance + total + sum(placed.values()) + fees_of(game, placed))
    add_to_bets(connection, added)
    if new:
        connection.execute(_NEW_BET, new)
    metrics.after_commit(s, metrics.count_money(metrics.STAKES, {table_id: sum(bets.values())}))
    if fairness.takes_seeds(row.algorithm, row.client_seeds):  # before its first deal: the player's seed goes in
        fairness.take_client_seed(s, row.shoe_id, account_id)
    notify.changed(s, table_id)
    return {"table": table_id, "round": row.number, "seat": seat or None, "bets": together, "added": dict(bets),
            "balance": shown}


def take_back(s: Session, table_id: int, account_id: int, bets: dict[str, int], now: datetime | None = None,
              *, round_number: int | None = None) -> TakeBackAnswer:
    """Take chips back off the layout while the round's window is open, as a player lifts chips at a live table
    before "no more bets": ``bets`` (wager -> minor units) come off the player's bets on the open round, and the
    stakes with their fees go back from the round's escrow to the wallet in one movement (a ``refund``, which the
    player's own stake and loss limits count back).  A spot taken back whole has no bet left.  What stays must be
    a bet the table takes as it stands (each spot's minimum, a side wager's base: the stake rule, with nothing
    placed before it); more than is on a spot is refused (``bet.take_back_more``).  The window, the round and its
    lock are a bet's (:func:`check_window`)."""
    now = now or _now()
    if not bets or not isinstance(bets, dict):
        raise ConfigurationError.coded("bet.malformed")
    connection = s.connection()
    row = betting_row(connection, table_id)
    if row is None:
        raise UnknownSeatError.coded("table.unknown", table=table_id)
    check_window(connection, row, table_id, now, round_number)
    if not hold_round(s, row.id, "betting"):
        raise IllegalActionError.coded("bet.closed", round=row.number)
    game = get_game(row.game, paytable=row.paytable)
    shown_before = wallet.hold_shown_balance(s, account_id, now)  # the player's bets and take-backs queue here
    placed: dict[str, int] = {wager: amount for wager, amount in connection.execute(
        _PLACED, {"round": row.id, "account": account_id})}
    for code, amount in bets.items():
        wager = game.wager(code)  # an unknown wager: its refusal
        check_amount(amount)
        if amount > placed.get(code, 0):
            raise IllegalActionError.coded("bet.take_back_more", wager=code, amount=amount,
                                           placed=placed.get(code, 0), names={"wager": wager.name})
    left = {code: placed[code] - bets.get(code, 0) for code in placed if placed[code] > bets.get(code, 0)}
    if left:
        check_stakes(game, stored_limits(row.game, row.paytable, row.limits), {}, left)
    refund = sum(placed.values()) + fees_of(game, placed) - sum(left.values()) - fees_of(game, left)
    wallet.transfer(s, "refund", {wallet.escrow_account(row.id): -refund, wallet.wallet_account(account_id): refund},
                    memo=f"table {row.name} round {row.number}: taken back")
    taken = [{"round": row.id, "account": account_id, "code": code, "taken": amount} for code, amount in bets.items()]
    for statement, rows in ((_TAKE_FROM_BET, [t for t in taken if t["code"] in left]),
                            (_BET_TAKEN_BACK, [t for t in taken if t["code"] not in left])):
        if rows:
            connection.execute(statement, rows)
    seat = connection.execute(_YOUR_SEAT, {"table": table_id, "account": account_id}).scalar_one_or_none()
    notify.changed(s, table_id)
    return {"table": table_id, "round": row.number, "seat": seat or None, "bets": left, "taken": dict(bets),
            "refunded": refund, "balance": shown_before + refund}


def take_back_request(table_id: int, bets: dict[str, int], round_number: int | None) -> BetRequest:
    """What a take-back's idempotency key stands for (a bet's, marked as taking back)."""
    request = bet_request(table_id, bets, round_number)
    request["take_back"] = True
    return request


def decision_request(table_id: int, action: str, round_number: int | None) -> DecisionRequest:
    """What a decision's idempotency key stands for (the round only when named, as for bets)."""
    request: DecisionRequest = {"table": table_id, "action": action}
    if round_number is not None:
        request["round"] = round_number
    return request


def bet_request(table_id: int, bets: dict[str, int], round_number: int | None) -> BetRequest:
    """What a bet's idempotency key stands for, over REST and WebSocket alike (the round only when
    named, so keys stored before bets could name one still match their retries)."""
    request: BetRequest = {"table": table_id, "bets": bets}
    if round_number is not None:
        request["round"] = round_number
    return request


def _refuse_round(connection: Any, table_id: int, wanted: int, open_number: int | None) -> None:
    """Bets named for a round that is not the one open: say which, and what to do."""
    last = open_number if open_number is not None else connection.execute(_LAST_ROUND, {"table": table_id}).scalar()
    if wanted > (last or 0):
        if open_number is None:
            raise IllegalActionError.coded("bet.round_not_open", round=wanted)
        raise IllegalActionError.coded("bet.round_not_open_other", round=wanted, open=open_number)
    if open_number is None:
        raise IllegalActionError.coded("bet.round_closed", round=wanted)
    raise IllegalActionError.coded("bet.round_closed_other", round=wanted, open=open_number)
