"""Tables and rounds in the database, driven by the core :class:`~baccarat.table.Table`.

Lucky Draw rounds have two stages: the first deal (Block Bonus is settled
then) opens a decision window in which every seat with an Enter wager draws
(staking the Draw wager) or stands; when all have decided or the window ends
(a missing decision stands), the round is finished by dealing it again from
the same cursor in the core and applying the decisions in seat order.

A round is dealt and settled in **one** database transaction, from the table's
stored provably fair shoe: the seed and the stored position give the same
cards every time.  If the server dies before that transaction commits, the
round is still open with its bets in escrow, and the next deal (after a
restart) deals the very same cards; if it dies after, the round is settled
and the position has moved on.  A bet is confirmed only after the
transaction holding its stake has committed.

Shoes follow the house procedure: a new shoe (and its commitment) is made
before a round opens whenever the current one is finished or cannot cover a
coup, so every bet is placed on a shoe whose commitment is already published.
Until its first deal a shoe takes the client seeds of the players who bet on
it, and its cards are fixed only then (:mod:`baccarat.server.fairness`).
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, cast

from sqlalchemy import CursorResult, bindparam, func, insert, select, update
from sqlalchemy import Table as SqlTable
from sqlalchemy.orm import Session

from baccarat.cards import standard_deck
from baccarat.coup import MAX_COUP_CARDS
from baccarat.errors import (
    ConfigurationError,
    ConflictError,
    IllegalActionError,
    ShoeError,
    UnknownSeatError,
    UnknownWagerError,
)
from baccarat.events import BetSettled, CardDealt, CoupResolved
from baccarat.fair import ALGORITHM, commitment, new_server_seed
from baccarat.games import Game, TableLimits, settle
from baccarat.money import MAX_AMOUNT
from baccarat.presets import built_in, game_codes, get_game
from baccarat.roads import hand_json, hand_of
from baccarat.server import fairness, notify, protection, wallet
from baccarat.server.db import insert_rows, on_postgresql
from baccarat.server.models import (
    Account,
    Announcement,
    Bet,
    Decision,
    GameTable,
    Round,
    Seat,
    Settlement,
    ShoeRow,
    aware,
)
from baccarat.server.models import now as _now
from baccarat.server.timeline import Pace, later, pace_of, schedule, stamp
from baccarat.server.views import limits_json, pending_payouts, recall, stored_limits, table_roads, table_view

__all__ = ["recall", "table_roads", "table_view"]  # the views, where callers have always found them
from baccarat.shoe import Shoe, check_cut_card, check_decks
from baccarat.table import Table


def default_tables() -> tuple[tuple[str, str], ...]:
    """(name, game) of the table each registered game gets: ``<code>-1``."""
    return tuple((f"{code}-1", code) for code in game_codes())
#: A seated player who lets this many dealt rounds go by without a bet is stood up.
SIT_OUT_ROUNDS = 5
#: A player whose sockets all closed keeps the seat this long (seconds) to come back.
SEAT_GRACE_SECONDS = 60.0
#: The seat stored with a punto banco bet placed without a seat (seats are numbered from 1).
NO_SEAT = 0
#: A bet that reaches the server this long after the announced close is still taken, as a dealer takes the
#: chips already on their way when calling "no more bets": a bet is judged by the moment it arrived
#: (:mod:`baccarat.server.arrival`), and one sent a millisecond before the close arrives after it.  The
#: page stops taking bets at the close itself.  Nothing is dealt before the dealer's wait after the close
#: (:data:`baccarat.server.dealer.LATE_BETS`, longer), so a bet taken in this allowance learns nothing.
ON_THE_WAY = timedelta(seconds=0.25)


def betting_closed(closes_at: datetime, now: datetime) -> bool:
    """Whether a bet that arrived at ``now`` is too late for a window that closes at ``closes_at``
    (:data:`ON_THE_WAY` after the close)."""
    return aware(closes_at) + ON_THE_WAY <= now


def game_of(table: GameTable) -> Game:
    return get_game(table.game, paytable=table.paytable)


def limits_of(table: GameTable) -> TableLimits:
    return stored_limits(table.game, table.paytable, table.limits)


def create_table(s: Session, name: str, game: str, *, paytable: int | None = None, decks: int = 8,
                 cut_card: int = 14, betting_seconds: float = 15.0, decision_seconds: float = 10.0,
                 pace: Pace | None = None, now: datetime | None = None) -> GameTable:
    """A new open table with its first shoe committed and its first round open."""
    chosen = get_game(game, paytable=paytable)
    pace = (pace or Pace()).check()
    check_cut_card(cut_card, 52 * check_decks(decks))
    for label, seconds in (("betting", betting_seconds), ("decision", decision_seconds)):
        if not 0.1 <= seconds <= 600:
            raise ConfigurationError(f"the {label} window is 0.1 to 600 seconds")
    if s.scalar(select(GameTable.id).where(GameTable.name == name)) is not None:
        raise ConflictError(f"there is already a table called {name!r}")
    table = GameTable(name=name, game=chosen.code, paytable=chosen.paytable, decks=decks, cut_card=cut_card,
                      betting_seconds=betting_seconds, decision_seconds=decision_seconds, status="open",
                      no_more_bets_seconds=pace.no_more_bets, card_seconds=pace.card, results_seconds=pace.results)
    s.add(table)
    s.flush()
    _open_round(s, table, 1, now or _now())
    return table


def ensure_default_tables(s: Session, *, betting_seconds: float = 15.0, pace: Pace | None = None) -> None:
    """One table per served game on a database that has none; and a game from a rules file that has no
    table yet gets one (``serve --rules``), unless its table's name is taken."""
    fresh = s.scalar(select(func.count(GameTable.id))) == 0
    for name, game in default_tables():
        if not fresh and (built_in(game) or s.scalar(select(GameTable.id).where(
                (GameTable.game == game) | (GameTable.name == name)).limit(1)) is not None):
            continue
        create_table(s, name, game, betting_seconds=betting_seconds, decision_seconds=betting_seconds, pace=pace)


def _current_shoe(s: Session, table: GameTable) -> ShoeRow | None:
    return s.scalar(select(ShoeRow).where(ShoeRow.table_id == table.id).order_by(ShoeRow.number.desc()).limit(1))


def _new_shoe(s: Session, table: GameTable, number: int) -> ShoeRow:
    """A committed shoe; no card is taken (not even the burn) until it is sealed at its first deal."""
    seed = new_server_seed()
    row = ShoeRow(table_id=table.id, number=number, server_seed=seed.hex(), commitment=commitment(seed),
                  algorithm=ALGORITHM, decks=table.decks, cut_card=table.cut_card, position=0,
                  last_coup=False, finished=False)
    s.add(row)
    s.flush()
    return row


def announce(s: Session, table_id: int, at: datetime, kind: str, text: str, *, seat: int | None = None,
             name: str | None = None) -> None:
    """Tell everyone at the table (shown in the table view from ``at``)."""
    notify.changed(s, table_id)
    s.add(Announcement(table_id=table_id, at=at, kind=kind, seat=seat, name=name, text=text[:255]))


def _open_round(s: Session, table: GameTable, number: int, now: datetime, shoe: ShoeRow | None = None,
                opens_at: datetime | None = None) -> Round:
    """The next round, on ``shoe`` (the table's current one; looked up when not given), taking bets
    from ``opens_at`` (after the previous round's results pause) or at once."""
    opens = opens_at or now
    notify.changed(s, table.id)
    shoe = shoe or _current_shoe(s, table)
    game = game_of(table)
    # A round is never split across shoes: the most cards it can need (Lucky Draw: three per seat plus three).
    needed = MAX_COUP_CARDS if game.kind == "punto_banco" else 3 * game.max_seats + 3
    if shoe is None or shoe.finished or shoe.revealed_at is not None or 52 * shoe.decks - shoe.position < needed:
        if shoe is not None:  # the shoe is over: its seed is published
            fairness.end_shoe(s, shoe, now, "last hand" if shoe.finished else "too few cards")
        shoe = _new_shoe(s, table, 1 if shoe is None else shoe.number + 1)
        if shoe.number > 1:
            announce(s, table.id, opens, "new_shoe", f"New shoe: shoe {shoe.number}, the scoreboards start again")
    if table.pending_limits is not None:  # limits changed by an operator take effect now
        table.limits, table.pending_limits = table.pending_limits, None
    row = Round(table_id=table.id, number=number, shoe_id=shoe.id, status="betting", opens_at=opens,
                closes_at=opens + timedelta(seconds=table.betting_seconds))
    s.add(row)
    s.flush()
    return row


def _next_round(s: Session, table: GameTable, number: int, now: datetime, shoe: ShoeRow,
                opens_at: datetime | None = None) -> None:
    """Open the next round (taking bets from ``opens_at``), or finish closing a table an operator
    closed during a round."""
    if table.status == "closing":
        _shut(s, table, now)
    else:
        _open_round(s, table, number, now, shoe, opens_at)


def _shut(s: Session, table: GameTable, now: datetime) -> None:
    """The table is closed: its shoe is dropped, so its seed is revealed (a shoe never leaves unrevealed)."""
    table.status = "closed"
    shoe = _current_shoe(s, table)
    if shoe is not None:
        fairness.end_shoe(s, shoe, now, "last hand" if shoe.finished else "table closed")
        shoe.finished = True


def close_table(s: Session, table_id: int, now: datetime | None = None) -> dict[str, Any]:
    """Operator: close the table.  A round without bets ends now; a round with bets is dealt and
    settled as usual and the table closes after it (no bet is ever dropped)."""
    now = now or _now()
    table = _table(s, table_id, lock=True)
    if table.status == "open":
        current = open_round(s, table_id)
        if current is not None:
            s.refresh(current, with_for_update=True)  # no bet slips in while we look
        if (current is not None and current.status == "betting"
                and s.scalar(select(Bet.id).where(Bet.round_id == current.id).limit(1)) is None):
            current.status = "no_action"
            _shut(s, table, now)
        else:
            table.status = "closing"
    s.flush()
    return table_view(s, table_id)


def reopen_table(s: Session, table_id: int, now: datetime | None = None) -> dict[str, Any]:
    """Operator: open a closed table again (with a new shoe), or cancel a pending close."""
    now = now or _now()
    table = _table(s, table_id, lock=True)
    if table.status == "closing":
        table.status = "open"
    elif table.status == "closed":
        table.status = "open"
        last = s.scalar(select(func.max(Round.number)).where(Round.table_id == table_id)) or 0
        _open_round(s, table, last + 1, now)
    s.flush()
    return table_view(s, table_id)


def set_limits(s: Session, table_id: int, minimum: int, maximums: dict[str, int]) -> dict[str, Any]:
    """Operator: new table limits, effective from the next round (the open round keeps its limits)."""
    table = _table(s, table_id, lock=True)
    game = game_of(table)
    for code in maximums:
        if code not in game.betting_codes:
            game.wager(code)  # names the valid wagers
            raise UnknownWagerError(f"{code!r} is not placed at the betting stage in {game.name}")
    limits = TableLimits(minimum, maximums)  # checks minimum > 0 and every maximum >= minimum
    table.pending_limits = json.dumps(limits_json(limits))
    s.flush()
    return table_view(s, table_id)


def open_round(s: Session, table_id: int) -> Round | None:
    """The round taking bets, if any."""
    return s.scalar(select(Round).where(Round.table_id == table_id, Round.status == "betting"))


def round_in_play(s: Session, table_id: int) -> Round | None:
    """The round taking bets or (Lucky Draw) waiting for decisions, if any."""
    return s.scalar(select(Round).where(Round.table_id == table_id, Round.status.in_(("betting", "decision"))))


def _table(s: Session, table_id: int, *, lock: bool = False) -> GameTable:
    """The table; ``lock`` holds its row (limits, status) until the transaction ends."""
    table = s.get(GameTable, table_id, with_for_update=lock)
    if table is None:
        raise UnknownSeatError(f"no table {table_id}")
    if lock:  # locked to change it: its sockets are told at commit
        notify.changed(s, table_id)
    return table


def sit(s: Session, table_id: int, account_id: int, seat: int | None = None, now: datetime | None = None) -> int:
    """Take ``seat`` (or the first free one) at the table; returns the seat number."""
    table = _table(s, table_id)
    if table.status != "open":
        raise IllegalActionError("the table is closed")
    protection.check_play(s, account_id, now)  # a time-out or self-exclusion: no seat
    taken = {row.number: row.account_id for row in s.scalars(select(Seat).where(Seat.table_id == table_id))}
    if account_id in taken.values():
        return next(number for number, owner in taken.items() if owner == account_id)
    seats = game_of(table).max_seats
    free = [n for n in range(1, seats + 1) if n not in taken]
    if seat is None:
        if not free:
            raise IllegalActionError("the table is full")
        seat = free[0]
    if not isinstance(seat, int) or not 1 <= seat <= seats:
        raise UnknownSeatError(f"seat must be a number from 1 to {seats}")
    if seat in taken:
        raise ConflictError(f"seat {seat} is taken")
    s.add(Seat(table_id=table_id, number=seat, account_id=account_id, idle_rounds=0))
    name = s.scalar(select(Account.username).where(Account.id == account_id))
    announce(s, table_id, now or _now(), "seated", f"{name} sits down at seat {seat}", seat=seat, name=name)
    s.flush()
    return seat


def _lock_round_in_play(s: Session, table_id: int) -> Round | None:
    """The round in play, held FOR UPDATE: bets and decisions on it (which hold it FOR SHARE) wait
    until this transaction ends, and those committed before are seen.  If the dealer moved the
    table on while we waited, the round that replaced it is locked instead."""
    for _ in range(10):
        current = round_in_play(s, table_id)
        if current is None:
            return None
        s.refresh(current, with_for_update=True)
        if current.status in ("betting", "decision"):
            return current
    raise ConflictError("the table is busy; try again")  # pragma: no cover - ten rounds dealt while waiting


def leave(s: Session, table_id: int, account_id: int, now: datetime | None = None) -> None:
    """Give up the seat; refused while the player has bets on the round in play.

    Seat changes and bets on a round are serialised: leaving locks the round in play, and a bet
    reads its seat only once it holds that round, so a bet and a departure cannot both succeed
    (which once left a bet on a seat that someone else then took)."""
    current = _lock_round_in_play(s, table_id)
    if current is not None and s.scalar(select(Bet.id).where(Bet.round_id == current.id,
                                                             Bet.account_id == account_id).limit(1)):
        raise IllegalActionError("your bets are on the layout: you can leave once this round is settled")
    seat = s.scalar(select(Seat).where(Seat.table_id == table_id, Seat.account_id == account_id))
    if seat is not None:
        _free(s, seat, now or _now(), "left", "{name} leaves seat {seat}")


def _free(s: Session, seat: Seat, now: datetime, kind: str, words: str) -> None:
    """Give the seat up and say so (``words`` with ``{name}`` and ``{seat}``)."""
    name = s.scalar(select(Account.username).where(Account.id == seat.account_id))
    announce(s, seat.table_id, now, kind, words.format(name=name, seat=seat.number), seat=seat.number, name=name)
    s.delete(seat)


def _has_bets_in_play(s: Session, table_id: int, account_id: int) -> bool:
    return s.scalar(select(Bet.id).join(Round, Round.id == Bet.round_id).where(
        Round.table_id == table_id, Round.status.in_(("betting", "decision")), Bet.account_id == account_id
    ).limit(1)) is not None


def mark_away(s: Session, table_id: int, account_id: int, now: datetime | None = None) -> None:
    """The player's last socket at the table closed: the grace period starts (if they are seated)."""
    marked = s.execute(update(Seat).where(Seat.table_id == table_id, Seat.account_id == account_id,
                                          Seat.away_since.is_(None)).values(away_since=now or _now()))
    if cast(CursorResult[Any], marked).rowcount:  # only a change is told to the table's sockets
        notify.changed(s, table_id)


def mark_back(s: Session, table_id: int, account_id: int) -> None:
    """The player is connected to the table again: the seat is theirs."""
    marked = s.execute(update(Seat).where(Seat.table_id == table_id, Seat.account_id == account_id,
                                          Seat.away_since.is_not(None)).values(away_since=None))
    if cast(CursorResult[Any], marked).rowcount:  # only a change is told to the table's sockets
        notify.changed(s, table_id)


def away_too_long(s: Session, now: datetime, *, grace: float = SEAT_GRACE_SECONDS) -> bool:
    """Is any player away for longer than ``grace`` seconds (a cheap read before :func:`free_away_seats`)?"""
    return s.scalar(select(Seat.id).where(Seat.away_since <= now - timedelta(seconds=grace)).limit(1)) is not None


def free_away_seats(s: Session, now: datetime | None = None, *, grace: float = SEAT_GRACE_SECONDS) -> int:
    """Free the seats of players disconnected for longer than ``grace`` seconds (never while a bet of
    theirs is in play: the seat is freed after that round); returns how many."""
    now = now or _now()
    freed = 0
    away = list(s.execute(select(Seat.id, Seat.table_id).where(Seat.away_since <= now - timedelta(seconds=grace))))
    for seat_id, table_id in away:
        _lock_round_in_play(s, table_id)  # as leave does: no bet can read this seat meanwhile
        seat = s.scalar(select(Seat).where(Seat.id == seat_id).execution_options(populate_existing=True))
        if (seat is not None and seat.away_since is not None
                and aware(seat.away_since) <= now - timedelta(seconds=grace)
                and not _has_bets_in_play(s, table_id, seat.account_id)):
            _free(s, seat, now, "seat_freed",
                  f"{{name}}'s seat {{seat}} is free: disconnected for more than {grace:g} s")
            freed += 1
    return freed


def _count_idle(s: Session, table_id: int, bettors: set[int], now: datetime, sit_out_rounds: int) -> None:
    """A round was dealt: seated players who did not bet on it sat it out; after ``sit_out_rounds``
    in a row they are stood up (a player at a real table who never plays gives the seat back)."""
    for seat in s.scalars(select(Seat).where(Seat.table_id == table_id)):
        if seat.account_id in bettors:
            seat.idle_rounds = 0
            continue
        seat.idle_rounds = (seat.idle_rounds or 0) + 1
        if seat.idle_rounds >= sit_out_rounds:
            _free(s, seat, now, "stood_up",
                  f"{{name}} is stood up from seat {{seat}}: no bet in {seat.idle_rounds} rounds")


_ROUNDS = cast(SqlTable, Round.__table__)
_SEATS = cast(SqlTable, Seat.__table__)
_BETS = cast(SqlTable, Bet.__table__)
_TABLES = cast(SqlTable, GameTable.__table__)
_SETTLEMENTS = cast(SqlTable, Settlement.__table__)
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
_ROUND_STATUS = select(_ROUNDS.c.status).where(_ROUNDS.c.id == bindparam("round")).with_for_update(read=True)


def _hold_round(s: Session, round_id: int, status: str) -> bool:
    """Lock the round against the dealer until this transaction ends; False if it has moved on."""
    return s.connection().execute(_ROUND_STATUS, {"round": round_id}).scalar_one_or_none() == status


def place_bets(s: Session, table_id: int, account_id: int, bets: dict[str, int], now: datetime | None = None,
               *, round_number: int | None = None) -> dict[str, Any]:
    """Put ``bets`` on the open round; the stakes go from the wallet to the round's escrow.

    ``round_number`` names the round the bets are meant for: a bet that arrives after that round's
    window closed is refused ("betting closed for round N") instead of landing in the next round.
    Without it the bets go on whichever round is open, and the answer says which.
    """
    now = now or _now()
    if not bets or not isinstance(bets, dict):
        raise ConfigurationError("bets are wager code -> amount in minor units")
    connection = s.connection()
    # read once per transaction and table: a group commit (see batch) places many bets in one transaction,
    # and bets change neither the table, nor the round (its status is checked under its lock below), nor the shoe
    known: dict[int, Any] = s.info.setdefault("betting_rows", {})
    row = known.get(table_id) or connection.execute(_BETTING, {"table": table_id}).first()
    if row is None:
        raise UnknownSeatError(f"no table {table_id}")
    known[table_id] = row
    if round_number is not None and round_number != row.number:
        _refuse_round(connection, table_id, round_number, row.number)
    if row.id is None:
        raise IllegalActionError("no more bets: wait for the next round to open")
    if row.opens_at is not None and aware(row.opens_at) > now:
        wait = math.ceil((aware(row.opens_at) - now).total_seconds())
        raise IllegalActionError(f"betting opens in {wait} s: round {row.number} takes bets then")
    if betting_closed(row.closes_at, now) or not _hold_round(s, row.id, "betting"):
        known.pop(table_id, None)  # the dealer moved on: the next bet of this transaction reads the table again
        raise IllegalActionError(f"no more bets: betting closed for round {row.number}; bet on the next round")
    # Read under the round's lock (see leave): the seat cannot be given up between here and the insert.
    seat = connection.execute(_YOUR_SEAT, {"table": table_id, "account": account_id}).scalar_one_or_none()
    game = get_game(row.game, paytable=row.paytable)
    if seat is None:
        if game.kind == "lucky_draw":  # each Lucky Draw hand is a seat's: its player decides
            raise IllegalActionError("take a seat at the table first: in Lucky Draw each seat plays its own hand")
        seat = NO_SEAT  # punto banco: any player may bet on the one coup, seated or not
    placed: dict[str, int] = {wager: amount for wager, amount in connection.execute(
        _PLACED, {"round": row.id, "account": account_id})}
    limits = stored_limits(row.game, row.paytable, row.limits)
    check_layout(game, limits, seat, placed, bets)
    total = sum(bets.values())
    protection.check_stake(s, account_id, total, now)  # the player's own limits, under their lock
    after: dict[int, int] = {}
    wallet.transfer(s, "stake", {wallet.wallet_account(account_id): -total, wallet.escrow_account(row.id): total},
                    memo=f"table {row.name} round {row.number}", balances=after)
    # The stake holds this wallet's row until commit, so the player's other bets now queue behind this
    # one: read what is on the layout again, and check again if a bet of theirs landed meanwhile
    # (PostgreSQL; SQLite runs one writer at a time, so nothing can have landed there).
    again = {wager: amount for wager, amount in connection.execute(_PLACED, {"round": row.id, "account": account_id})
             } if on_postgresql(s.get_bind()) else placed
    if again != placed:
        placed = again
        check_layout(game, limits, seat, placed, bets)
    balance = after[account_id]
    balance_before = balance + total + sum(placed.values())
    added = [{"round": row.id, "account": account_id, "code": code, "added": amount}
             for code, amount in bets.items() if code in placed]
    if added:  # one bet per account and wager: raised by what was added (the unique key holds it)
        connection.execute(_ADD_TO_BET, added)
    new = [{"round_id": row.id, "account_id": account_id, "seat": seat, "wager": code, "amount": amount,
            "balance_before": balance_before} for code, amount in bets.items() if code not in placed]
    if new:
        connection.execute(_NEW_BET, new)
    if fairness.takes_seeds(row.algorithm, row.client_seeds):  # before its first deal: the player's seed goes in
        fairness.take_client_seed(s, row.shoe_id, account_id)
    notify.changed(s, table_id)
    together = dict(placed)
    for code, amount in bets.items():
        together[code] = together.get(code, 0) + amount
    return {"table": table_id, "round": row.number, "seat": seat or None, "bets": together, "added": dict(bets),
            "balance": balance - pending_payouts(s, [account_id], now).get(account_id, 0)}


def decision_request(table_id: int, action: str, round_number: int | None) -> dict[str, Any]:
    """What a decision's idempotency key stands for (the round only when named, as for bets)."""
    return {"table": table_id, "action": action, **({} if round_number is None else {"round": round_number})}


def check_layout(game: Game, limits: TableLimits, seat: int, placed: dict[str, int], bets: dict[str, int]) -> None:
    """Refuse ``bets`` on top of the player's ``placed`` ones as the core refuses them (wager codes,
    amounts, limits, prerequisites), exactly as at a live table: chips on a spot already bet add up
    to it, and over the maximum it names the room left on that spot."""
    check = Table(game, limits=limits, shoe_factory=_checking_shoe)
    spot = seat or 1  # the checking table is this player's alone: any seat of it will do
    check.sit(spot, "check", MAX_AMOUNT)
    check.open_betting()
    if placed:
        check.place_bets(spot, placed)
    check.place_bets(spot, bets)


def bet_request(table_id: int, bets: dict[str, int], round_number: int | None) -> dict[str, Any]:
    """What a bet's idempotency key stands for, over REST and WebSocket alike (the round only when
    named, so keys stored before bets could name one still match their retries)."""
    return {"table": table_id, "bets": bets, **({} if round_number is None else {"round": round_number})}


def _refuse_round(connection: Any, table_id: int, wanted: int, open_number: int | None) -> None:
    """Bets named for a round that is not the one open: say which, and what to do."""
    last = open_number if open_number is not None else connection.execute(_LAST_ROUND, {"table": table_id}).scalar()
    if wanted > (last or 0):
        raise IllegalActionError(f"round {wanted} is not open for bets yet"
                                 + (f": round {open_number} is" if open_number is not None else ""))
    raise IllegalActionError(f"no more bets: betting closed for round {wanted}"
                             + (f"; round {open_number} is open" if open_number is not None else ""))


_CHECKING_DECK = tuple(standard_deck())


def _checking_shoe() -> Shoe:
    return Shoe(_CHECKING_DECK, cut_card=0)  # the checking table opens betting but never deals


def due_rounds(s: Session, now: datetime, *, late: float = 0.0) -> list[int]:
    """Rounds to move on: betting windows that closed (``late`` seconds ago: bets that arrived before the
    close are still being written), and Lucky Draw decisions that are all in or timed out."""
    closed = s.scalars(select(Round.id).where(Round.status == "betting",
                                              Round.closes_at <= now - timedelta(seconds=late)))
    deciding = s.scalars(select(Round).where(Round.status == "decision"))
    ready = [r.id for r in deciding if r.decides_at is not None and (aware(r.decides_at) <= now
                                                                     or _all_decided(s, r.id))]
    return sorted([*closed, *ready])


def _all_decided(s: Session, round_id: int) -> bool:
    players = set(s.scalars(select(Bet.account_id).where(Bet.round_id == round_id, Bet.wager == "enter")))
    decided = set(s.scalars(select(Decision.account_id).where(Decision.round_id == round_id)))
    return players <= decided


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
                raise IllegalActionError(f"more players have bets on this round than the table has seats ({seats})")
            chosen[bet.account_id] = bet.seat if bet.seat not in taken and 1 <= bet.seat <= seats else free[0]
    return chosen


def _replay(s: Session, table: GameTable, current: Round, bets: list[Bet]
            ) -> tuple[Table, Shoe, list[Any], dict[int, int]]:
    """The round rebuilt in the core from the stored shoe and bets, dealt up to the decisions;
    also the account playing each core seat.

    Deterministic: the same seed, cursor and bets always give the same cards, so a round can be
    dealt again after a crash, or finished after its decision window.
    """
    shoe_row = _round_shoe(s, current)
    fairness.seal(s, shoe_row)  # the shoe's first deal fixes its client seeds, its cards and its burn
    stored = Shoe(list(fairness.shoe_cards(shoe_row)), cut_card=shoe_row.cut_card, burn=True)
    given = [stored]

    def factory() -> Shoe:
        if not given:
            raise ShoeError("a round never needs a second shoe: it is changed before betting opens")
        return given.pop()

    game = game_of(table)
    core = Table(game, limits=limits_of(table), shoe_factory=factory)
    if game.kind == "punto_banco":
        return _replay_coup(core, shoe_row, current, bets)
    seat_of = core_seats(bets, game.max_seats)
    by_seat: dict[int, dict[str, int]] = {}
    for bet in bets:
        by_seat.setdefault(seat_of[bet.account_id], {})[bet.wager] = bet.amount
    for seat, stakes in sorted(by_seat.items()):
        core.sit(seat, f"seat {seat}", sum(stakes.values()))  # Draw stakes are in the sum: they are escrowed
    core.open_betting()
    shoe = core.shoe
    assert shoe is not None
    start = current.first_card if current.first_card is not None else shoe_row.position
    shoe.resume(start, last_coup=shoe_row.last_coup)  # the table's shoe, at the stored cursor
    for seat, stakes in sorted(by_seat.items()):
        core.place_bets(seat, {code: amount for code, amount in stakes.items() if code != "draw"})
    core.close_betting()
    current.first_card = start
    return core, shoe, core.deal(), {seat: account for account, seat in seat_of.items()}


def _replay_coup(core: Table, shoe_row: ShoeRow, current: Round, bets: list[Bet]
                 ) -> tuple[Table, Shoe, list[Any], dict[int, int]]:
    """Punto banco: one coup for every bettor, however many (seated or not).  The core deals it with
    no seat at all; each account's bets are then settled on it, the account's id standing for the
    seat in the settlement events (so :func:`_settle` reads them as it reads Lucky Draw's)."""
    core.open_betting()
    shoe = core.shoe
    assert shoe is not None
    start = current.first_card if current.first_card is not None else shoe_row.position
    shoe.resume(start, last_coup=shoe_row.last_coup)
    core.close_betting()
    current.first_card = start
    events = core.deal()
    coup = next(e.coup for e in events if isinstance(e, CoupResolved))
    wagers = {w.code: w for w in core.game.wagers}
    for bet in bets:
        done = settle(wagers[bet.wager], coup, bet.amount)
        events.append(BetSettled(core.round_no, seat=bet.account_id, wager=done.wager, stake=bet.amount,
                                 event=done.event, odds=done.odds, net=done.net))
    return core, shoe, events, {bet.account_id: bet.account_id for bet in bets}


def _settle(s: Session, table: GameTable, current: Round, bets: list[Bet], events: list[Any],
            account_of: dict[int, int], shown_at: datetime) -> None:
    """Pay out every settled bet not yet paid (Block Bonus is paid at the first deal), as one
    ledger movement: the stakes leave escrow, each player's returns go to their wallet, the
    difference to or from the house; each bet's settlement row points at that movement.  The
    players are shown it at ``shown_at`` (their shown balance leaves it out until then)."""
    bet_of = {(b.account_id, b.wager): b for b in bets}
    paid = set(s.scalars(select(Settlement.bet_id).where(Settlement.bet_id.in_([b.id for b in bets]))))
    settled = [(bet_of[(account_of[e.seat], e.wager)], e) for e in events if isinstance(e, BetSettled)]
    settled = [(bet, event) for bet, event in settled if bet.id not in paid]
    if not settled:
        return
    escrow = wallet.escrow_account(current.id)
    postings: dict[str, int] = {escrow: 0, wallet.HOUSE: 0}
    for bet, event in settled:
        postings[escrow] -= bet.amount
        postings[wallet.HOUSE] -= event.net
        owner = wallet.wallet_account(bet.account_id)
        postings[owner] = postings.get(owner, 0) + bet.amount + event.net
    entry = wallet.transfer(s, "settle", {account: amount for account, amount in postings.items() if amount},
                            memo=f"table {table.name} round {current.number}")
    insert_rows(s.connection(), _SETTLEMENTS, [{"bet_id": bet.id, "event": event.event, "net": event.net,
                                                "transaction_id": entry, "shown_at": shown_at}
                                               for bet, event in settled])


def deal_round(s: Session, round_id: int, now: datetime, *, sit_out_rounds: int = SIT_OUT_ROUNDS) -> None:
    """Move one round on, in one transaction (idempotent): deal and settle it, or for Lucky Draw
    deal the first cards and open the decisions, then finish it once they are in.

    Settlement is immediate; what players see follows the timeline (:mod:`baccarat.server.timeline`):
    each card is stored with the moment it is shown, the result with ``result_at``, and the next
    round takes bets from ``opens_at``, after the results pause."""
    current = s.get(Round, round_id)
    if current is None:
        return
    table = _table(s, current.table_id, lock=True)  # locks in one order everywhere: the table, then the round
    s.refresh(current, with_for_update=True)
    pace = pace_of(table)
    if current.status == "betting" and aware(current.closes_at) <= now:
        bets = list(s.scalars(select(Bet).where(Bet.round_id == round_id).order_by(Bet.id)))
        if not bets:
            current.status = "no_action"
            _next_round(s, table, current.number + 1, now, _round_shoe(s, current))
            return
        _count_idle(s, table.id, {bet.account_id for bet in bets}, now, sit_out_rounds)
        core, shoe, events, account_of = _replay(s, table, current, bets)
        # NO MORE BETS lasts its pause from the close of betting (longer only if the deal is late)
        start = max(later(aware(current.closes_at), pace.no_more_bets), now)
        deal = schedule([e for e in events if isinstance(e, CardDealt)], start, pace.card)
        current.dealt_at = now
        if core.seat_to_act is not None:  # Lucky Draw: the decisions open once the first deal is shown
            decisions_at = later(datetime.fromisoformat(deal[-1]["at"]), pace.card)
            _settle(s, table, current, bets, events, account_of, decisions_at)  # Block Bonus
            current.status = "decision"
            current.decides_at = later(decisions_at, table.decision_seconds)
            current.result = json.dumps({"cards": [c["card"] for c in deal], "first_deal": _first_deal(events),
                                         "deal": deal, "decisions_at": stamp(decisions_at),
                                         "names": _names(s, account_of)})
            return
        result_at = later(datetime.fromisoformat(deal[-1]["at"]), pace.card)
        _settle(s, table, current, bets, events, account_of, result_at)
        _close(s, table, current, bets, shoe, events, now, deal, result_at)
    elif current.status == "decision" and (aware(current.decides_at or now) <= now or _all_decided(s, round_id)):
        bets = list(s.scalars(select(Bet).where(Bet.round_id == round_id).order_by(Bet.id)))
        core, shoe, events, account_of = _replay(s, table, current, bets)
        actions = {d.account_id: d.action for d in s.scalars(select(Decision).where(Decision.round_id == round_id))}
        while core.seat_to_act is not None:
            seat = core.seat_to_act
            account = account_of[seat]
            events += core.decide(seat, actions.get(account, "stand"), timed_out=account not in actions)
        stored = json.loads(current.result or "{}")
        first = stored.get("deal", [])
        dealt = [e for e in events if isinstance(e, CardDealt)]
        opened = datetime.fromisoformat(stored["decisions_at"]) if "decisions_at" in stored else now
        deal = first + schedule(dealt[len(first):], later(max(opened, now), pace.card), pace.card)
        result_at = later(datetime.fromisoformat(deal[-1]["at"]), pace.card)
        current.dealt_at = now
        _settle(s, table, current, bets, events, account_of, result_at)
        _close(s, table, current, bets, shoe, events, now, deal, result_at,
               kept={key: stored[key] for key in ("names", "decisions_at") if key in stored})


def _names(s: Session, account_of: dict[int, int]) -> dict[str, str]:
    """``seat:N`` -> the name of the player whose hand it is (Lucky Draw's hands are the players')."""
    names = dict(s.execute(select(Account.id, Account.username).where(Account.id.in_(set(account_of.values())))).all())
    return {f"seat:{seat}": names.get(account, "") for seat, account in sorted(account_of.items())}


def _first_deal(events: list[Any]) -> dict[str, list[str]]:
    """The face-up cards of Lucky Draw's first deal: each seat's two cards and the dealer's up card."""
    shown: dict[str, list[str]] = {}
    for event in events:
        if isinstance(event, CardDealt):
            shown.setdefault(event.to, []).append(str(event.card))
    return shown


def _round_shoe(s: Session, current: Round) -> ShoeRow:
    shoe = s.get(ShoeRow, current.shoe_id)
    assert shoe is not None  # a foreign key
    return shoe


def _close(s: Session, table: GameTable, current: Round, bets: list[Bet], shoe: Shoe, events: list[Any],
           now: datetime, deal: list[dict[str, Any]], result_at: datetime, *, kept: dict[str, Any] | None = None
           ) -> None:
    """The round is settled: its result (shown from ``result_at``) is stored, and the next round
    opens after the results pause."""
    shoe_row = _round_shoe(s, current)
    shoe_row.position, shoe_row.last_coup, shoe_row.finished = shoe.position, shoe.last_coup, shoe.finished
    result: dict[str, Any] = {"cards": [str(e.card) for e in events if isinstance(e, CardDealt)], "deal": deal}
    coup = next((e.coup for e in events if isinstance(e, CoupResolved)), None)
    if coup is not None:
        result.update(player_cards=[str(c) for c in coup.player_cards],
                      banker_cards=[str(c) for c in coup.banker_cards],
                      player_total=coup.player_total, banker_total=coup.banker_total, winner=coup.winner,
                      reasons={"player": coup.player_reason, "banker": coup.banker_reason},
                      hand=hand_json(hand_of(coup)),
                      spots={w.code: {"event": w.event(coup), "odds": str(w.odds(coup))}
                             for w in game_of(table).wagers})
    else:
        result["hands"] = _first_deal(events)
        result.update({"names": {}, **(kept or {})})  # Lucky Draw: whose hands, when the decisions opened
    result["balances"] = {str(a): balance for a, balance in sorted(wallet.balances(s, {b.account_id for b in bets}))}
    current.result = json.dumps(result)
    current.status = "settled"
    current.result_at = result_at
    _next_round(s, table, current.number + 1, now, shoe_row, later(result_at, pace_of(table).results))


def decide(s: Session, table_id: int, account_id: int, action: str, now: datetime | None = None,
           *, round_number: int | None = None) -> dict[str, Any]:
    """Lucky Draw: stand, or draw one card with a Draw wager equal to Enter (staked now).

    ``round_number`` names the round the decision is meant for: a decision resent after that round's
    decisions ended is refused, never taken for the next round's hand (which the player has not seen)."""
    now = now or _now()
    if action not in ("draw", "stand"):
        raise ConfigurationError("a decision is 'draw' or 'stand'")
    current = s.scalar(select(Round).where(Round.table_id == table_id, Round.status == "decision"))
    if current is None or aware(current.decides_at or now) <= now or not _hold_round(s, current.id, "decision"):
        over = f" for round {round_number}: its decisions are over" if round_number is not None else " now"
        raise IllegalActionError(f"no decision is awaited at this table{over}")
    if round_number is not None and round_number != current.number:
        raise IllegalActionError(f"your decision was for round {round_number}, whose decisions are over: "
                                 f"round {current.number} awaits yours now; decide again if you want to")
    opens = json.loads(current.result or "{}").get("decisions_at")
    if opens is not None and datetime.fromisoformat(opens) > now:
        wait = math.ceil((datetime.fromisoformat(opens) - now).total_seconds())
        raise IllegalActionError(f"the cards are still being dealt: decide in {wait} s")
    enter = s.scalar(select(Bet).where(Bet.round_id == current.id, Bet.account_id == account_id,
                                       Bet.wager == "enter"))
    if enter is None:
        raise IllegalActionError("you have no Enter wager in this round")
    if s.scalar(select(Decision.id).where(Decision.round_id == current.id, Decision.account_id == account_id)):
        raise ConflictError("you have already decided this round")
    if action == "draw":
        protection.check_stake(s, account_id, enter.amount, now)  # standing stays possible
        wallet.transfer(s, "stake", {wallet.wallet_account(account_id): -enter.amount,
                                     wallet.escrow_account(current.id): enter.amount},
                        memo=f"round {current.number} Draw wager")
        s.add(Bet(round_id=current.id, account_id=account_id, seat=enter.seat, wager="draw", amount=enter.amount,
                  balance_before=enter.balance_before))
    s.add(Decision(round_id=current.id, account_id=account_id, seat=enter.seat, action=action))
    notify.changed(s, table_id)
    s.flush()
    return {"table": table_id, "round": current.number, "action": action,
            "balance": wallet.balance(s, account_id) - pending_payouts(s, [account_id], now).get(account_id, 0)}


def void_round(s: Session, table_id: int, number: int, *, reason: str, now: datetime | None = None
               ) -> dict[str, Any]:
    """Void a round that cannot be dealt: every stake not yet settled goes back to its player in one
    ledger movement (a Lucky Draw Block Bonus settled at the first deal stands), the round is
    marked ``void`` with the reason, and the table moves on to its next round.

    Cards already shown (a Lucky Draw first deal) are taken out of the shoe, so the next round
    never deals them again; a round voided before its deal leaves the shoe untouched.
    """
    now = now or _now()
    if not isinstance(reason, str) or not reason.strip():
        raise ConfigurationError("say why the round is voided")
    table = _table(s, table_id, lock=True)  # the table, then the round: the dealer's lock order
    current = s.scalar(select(Round).where(Round.table_id == table_id, Round.number == number))
    if current is None:
        raise UnknownSeatError(f"no round {number} at table {table.name}")
    s.refresh(current, with_for_update=True)
    if current.status not in ("betting", "decision"):
        raise IllegalActionError(f"round {number} is already {current.status.replace('_', ' ')}: only a round "
                                 "in play can be voided")
    bets = list(s.scalars(select(Bet).where(Bet.round_id == current.id).order_by(Bet.id)))
    paid = set(s.scalars(select(Settlement.bet_id).where(Settlement.bet_id.in_([b.id for b in bets]))))
    open_bets = [bet for bet in bets if bet.id not in paid]
    refunds: dict[str, int] = {}
    for bet in open_bets:
        owner = wallet.wallet_account(bet.account_id)
        refunds[owner] = refunds.get(owner, 0) + bet.amount
    if refunds:
        entry = wallet.transfer(s, "refund", {wallet.escrow_account(current.id): -sum(refunds.values()), **refunds},
                                memo=f"table {table.name} round {number} void: {reason.strip()[:120]}")
        insert_rows(s.connection(), _SETTLEMENTS, [{"bet_id": bet.id, "event": "Void", "net": 0,
                                                    "transaction_id": entry, "shown_at": now} for bet in open_bets])
    shoe_row = _round_shoe(s, current)
    shown = json.loads(current.result or "{}").get("cards", []) if current.status == "decision" else []
    if shown and current.first_card is not None:
        shoe = Shoe(list(fairness.shoe_cards(shoe_row)), cut_card=shoe_row.cut_card, burn=True)
        shoe.resume(current.first_card, last_coup=shoe_row.last_coup)
        shoe.start_coup(len(shown))
        for _ in shown:
            shoe.draw()
        shoe.end_coup()  # the voided coup counts as the shoe's coup after the cut card, as at a live table
        shoe_row.position, shoe_row.last_coup, shoe_row.finished = shoe.position, shoe.last_coup, shoe.finished
    # the cards already shown stay on the record; those dealt but not yet shown are never shown
    seen = [card for card in json.loads(current.result or "{}").get("deal", [])
            if datetime.fromisoformat(card["at"]) <= now] if current.status == "decision" else []
    current.result = json.dumps({"cards": shown, "void": reason.strip()[:200], "deal": seen,
                                 "balances": {str(a): b for a, b in
                                              sorted(wallet.balances(s, {b.account_id for b in bets}))}})
    current.status = "void"
    current.result_at = current.dealt_at = now
    # the Block Bonus already paid at the first deal counts from now if it was not shown yet
    s.execute(update(Settlement).where(Settlement.bet_id.in_([b.id for b in bets]), Settlement.shown_at > now)
              .values(shown_at=now))
    _next_round(s, table, current.number + 1, now, shoe_row)
    return {"table": table_id, "round": number, "status": "void", "refunded": sum(refunds.values()),
            "bets_refunded": len(open_bets)}


def repair_deadlines(s: Session, now: datetime | None = None) -> int:
    """At start-up: pull back deadlines stored further ahead than one window (and a whole paced
    deal) from ``now`` (the wall clock stepped back since they were written), so no table waits
    hours for its next deal.  Returns how many were changed."""
    now = now or _now()
    changed = 0
    for current, table in s.execute(select(Round, GameTable).join(GameTable, GameTable.id == Round.table_id)
                                    .where(Round.status.in_(("betting", "decision")))).all():
        pace = pace_of(table)
        # the longest a window can wait to open: a whole deal (3 cards a seat plus 3) and the results pause
        wait = timedelta(seconds=pace.no_more_bets + pace.card * (3 * 7 + 5) + pace.results)
        if current.status == "betting":
            opens = aware(current.opens_at) if current.opens_at is not None else now
            betting_end = max(opens, now) + timedelta(seconds=table.betting_seconds)
            if opens > now + wait:
                current.opens_at, betting_end = now, now + timedelta(seconds=table.betting_seconds)
            if opens > now + wait or aware(current.closes_at) > betting_end:
                current.closes_at, changed = betting_end, changed + 1
        deciding_end = now + wait + timedelta(seconds=table.decision_seconds)
        if current.status == "decision" and current.decides_at is not None and aware(current.decides_at) > deciding_end:
            current.decides_at, changed = deciding_end, changed + 1
    return changed


@lru_cache(maxsize=8)
def _strategy_card(paytable: int | None, decks: int) -> dict[str, list[int]]:
    from baccarat.analysis.composition import Composition  # numpy: only when a hint is asked for
    from baccarat.analysis.lucky_draw import cells, total_strategy_card

    card = total_strategy_card(cells(get_game("lucky-draw", paytable=paytable), Composition.full(decks)))
    return {str(total): [up for up in range(10) if card[total, up]] for total in range(10)}


def table_strategy(s: Session, table_id: int) -> dict[str, Any]:
    """Lucky Draw's hint: the exact total-dependent strategy card of the table's game for a full shoe
    (seat total -> the up-card values, 0 for a ten or face card, on which drawing is optimal)."""
    table = _table(s, table_id)
    game = game_of(table)
    if game.kind != "lucky_draw":
        raise IllegalActionError(f"{game.name} has no Draw decision")
    return {"basis": f"total-dependent strategy card, full {table.decks}-deck shoe, DrawWin pay table "
                     f"{table.paytable}", "draw": _strategy_card(table.paytable, table.decks)}


def shoe_record(s: Session, table_id: int, number: int) -> dict[str, Any]:
    """A revealed shoe's record for ``baccarat verify`` (refused while the shoe is in play): its
    seeds, the game, how it ended, and every round dealt from it with its cards in deal order
    (Lucky Draw rounds also name the seats dealt to, in order, and those that drew; a round voided
    after its first deal keeps the cards it showed, which left the shoe)."""
    row = s.scalar(select(ShoeRow).where(ShoeRow.table_id == table_id, ShoeRow.number == number))
    if row is None:
        raise UnknownSeatError(f"no shoe {number} at table {table_id}")
    if row.revealed_at is None:
        raise IllegalActionError("the shoe is still in play: its seed is revealed when it ends")
    table = _table(s, table_id)
    rounds = [r for r in s.scalars(select(Round).where(Round.shoe_id == row.id, Round.status.in_(("settled", "void")))
                                   .order_by(Round.number)) if json.loads(r.result or "{}").get("cards")]
    seats = _lucky_seats(s, table, rounds) if game_of(table).kind == "lucky_draw" else {}
    entries = []
    for current in rounds:
        result = json.loads(current.result or "{}")
        entry: dict[str, Any] = {"round": current.number, "cards": result["cards"], **seats.get(current.id, {})}
        if current.status == "void":
            entry["void"] = result.get("void", "")
        entries.append(entry)
    burned = Shoe(list(fairness.shoe_cards(row)), cut_card=row.cut_card, burn=True).burned
    record: dict[str, Any] = {"shoe": row.number, "table": table.name, "table_id": table.id,
                              "algorithm": row.algorithm, "game": table.game}
    if table.paytable is not None:
        record["paytable"] = table.paytable
    record.update(decks=row.decks, cut_card=row.cut_card, commitment=row.commitment, server_seed=row.server_seed)
    if row.algorithm == ALGORITHM:
        record["client_seeds"] = fairness.seeds_of(row)
    record["burned"] = [str(c) for c in burned]
    if row.ended is not None:
        record["ended"] = row.ended
    record["rounds"] = entries
    return record


def _lucky_seats(s: Session, table: GameTable, rounds: list[Round]) -> dict[int, dict[str, list[int]]]:
    """Round id -> the seats dealt to, in deal order, and those that drew, as the dealer placed the
    players' bets (:func:`core_seats`)."""
    bets: dict[int, list[Bet]] = {}
    for bet in s.scalars(select(Bet).where(Bet.round_id.in_([r.id for r in rounds])).order_by(Bet.id)):
        bets.setdefault(bet.round_id, []).append(bet)
    seats = {}
    for round_id, placed in bets.items():
        seat_of = core_seats(placed, game_of(table).max_seats)
        seats[round_id] = {"seats": sorted(seat_of[b.account_id] for b in placed if b.wager == "enter"),
                           "drew": sorted(seat_of[b.account_id] for b in placed if b.wager == "draw")}
    return seats
