"""Seats at a table: sitting down and leaving, a player away after their socket closed, and the seats freed
after the grace period, after sitting out too many betting windows, or by an operator.

A seat cannot be squatted by leaving and sitting again: the windows a player sat out are theirs at that table
(a :class:`~baccarat.server.storage.models.SeatMark` keeps them when the seat is given up, and sitting there again
within the sit-out period takes them back), and a player refused a seat at a full table is in line for one (a
:class:`~baccarat.server.storage.models.SeatRequest`): a freed seat goes to the first in line, in the same
transaction, before anyone else can sit in it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, delete, select, update
from sqlalchemy.orm import Session
from typing_extensions import TypedDict

from baccarat.core.errors import (
    BaccaratError,
    ConflictError,
    IllegalActionError,
    UnknownSeatError,
)
from baccarat.server.house import protection
from baccarat.server.playing.tables import announce, game_of, round_in_play, table_row
from baccarat.server.storage import notify
from baccarat.server.storage.models import (
    Account,
    Bet,
    GameTable,
    Round,
    Seat,
    SeatMark,
    SeatRequest,
    SocketLease,
    aware,
)
from baccarat.server.storage.models import now as _now

#: A seated player who lets this many betting windows in a row close without a bet is stood up.
SIT_OUT_ROUNDS = 5


#: A player whose sockets all closed keeps the seat this long (seconds) to come back.
SEAT_GRACE_SECONDS = 60.0

#: A player refused a seat at a full table stays in line for one this long (seconds) from the first time they asked.
SEAT_REQUEST_SECONDS = 300.0


@dataclass(frozen=True)
class InLine:
    """A player who asked for a seat at a full table is in line for the next one freed there, at ``place`` (from 1);
    the caller commits the request and refuses the seat (``table.full`` says the place)."""

    place: int

    def refusal(self) -> IllegalActionError:
        """The refusal to answer with, once the request is committed."""
        return IllegalActionError.coded("table.full", place=self.place, minutes=round(SEAT_REQUEST_SECONDS / 60))


def sit(s: Session, table_id: int, account_id: int, seat: int | None = None,
        now: datetime | None = None) -> int | InLine:
    """Take ``seat`` (or the first free one) at the table; returns the seat number.  At a full table the player
    is put in line instead (:class:`InLine`): the next seat freed there is theirs."""
    now = now or _now()
    table = table_row(s, table_id)
    if table.status != "open":
        raise IllegalActionError.coded("table.closed")
    protection.check_play(s, account_id, now)  # a time-out or self-exclusion: no seat
    taken = {row.number: row.account_id for row in s.scalars(select(Seat).where(Seat.table_id == table_id))}
    if account_id in taken.values():
        return next(number for number, owner in taken.items() if owner == account_id)
    seats = game_of(table).max_seats
    free = [n for n in range(1, seats + 1) if n not in taken]
    if seat is None:
        if not free:
            return InLine(_ask(s, table_id, account_id, now))
        seat = free[0]
    if not isinstance(seat, int) or not 1 <= seat <= seats:
        raise UnknownSeatError.coded("seat.out_of_range", seats=seats)
    if seat in taken:
        raise ConflictError.coded("seat.taken", seat=seat)
    _take(s, table_id, account_id, seat, now)
    return seat


def _take(s: Session, table_id: int, account_id: int, seat: int, now: datetime) -> None:
    """Seat the player, with the windows they had sat out there if they gave a seat up within the sit-out period,
    out of line for a seat there."""
    mark = s.get(SeatMark, (table_id, account_id))
    s.add(Seat(table_id=table_id, number=seat, account_id=account_id, idle_rounds=0 if mark is None else
               mark.idle_rounds))
    if mark is not None:
        s.delete(mark)
    s.execute(delete(SeatRequest).where(SeatRequest.table_id == table_id, SeatRequest.account_id == account_id))
    name = s.scalar(select(Account.username).where(Account.id == account_id))
    announce(s, table_id, now, "seated", seat=seat, name=name)
    s.flush()


def _in_line(s: Session, table_id: int, now: datetime) -> Any:
    """The table's line for a seat, oldest request first (requests older than :data:`SEAT_REQUEST_SECONDS` are
    dropped)."""
    since = now - timedelta(seconds=SEAT_REQUEST_SECONDS)
    s.execute(delete(SeatRequest).where(SeatRequest.table_id == table_id, SeatRequest.asked_at <= since))
    return select(SeatRequest).where(SeatRequest.table_id == table_id).order_by(SeatRequest.id)


def _ask(s: Session, table_id: int, account_id: int, now: datetime) -> int:
    """Put the player in line for a seat at the table (asking again keeps their place: the request lasts
    :data:`SEAT_REQUEST_SECONDS` from the first time); returns their place in line, from 1."""
    line = _in_line(s, table_id, now)
    request = s.scalar(select(SeatRequest).where(SeatRequest.table_id == table_id,
                                                 SeatRequest.account_id == account_id))
    if request is None:
        request = SeatRequest(table_id=table_id, account_id=account_id, asked_at=now)
        s.add(request)
        s.flush()
    return 1 + [row.account_id for row in s.scalars(line)].index(account_id)


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
    raise ConflictError.coded("table.busy")  # pragma: no cover - ten rounds dealt while waiting


def leave(s: Session, table_id: int, account_id: int, now: datetime | None = None) -> None:
    """Give up the seat; refused while the player has bets on the round in play.

    Seat changes and bets on a round are serialised: leaving locks the round in play, and a bet
    reads its seat only once it holds that round, so a bet and a departure cannot both succeed
    (which once left a bet on a seat that someone else then took)."""
    current = _lock_round_in_play(s, table_id)
    if current is not None and s.scalar(select(Bet.id).where(Bet.round_id == current.id,
                                                             Bet.account_id == account_id).limit(1)):
        raise IllegalActionError.coded("seat.leave_with_bets")
    seat = s.scalar(select(Seat).where(Seat.table_id == table_id, Seat.account_id == account_id))
    if seat is not None:
        free_seat(s, seat, now or _now(), "left")
    # out of line for a seat here too
    s.execute(delete(SeatRequest).where(SeatRequest.table_id == table_id, SeatRequest.account_id == account_id))


def free_seat(s: Session, seat: Seat, now: datetime, kind: str, **params: int | float) -> None:
    """Give the seat up and say so: the news ``news.<kind>`` with the player's name, the seat and ``params``.  The
    windows the player had sat out are kept (a :class:`SeatMark`), and the seat goes to the first in line who may
    play (:func:`sit` puts a player refused at a full table in line)."""
    name = s.scalar(select(Account.username).where(Account.id == seat.account_id))
    announce(s, seat.table_id, now, kind, seat=seat.number, name=name, **params)
    table_id, number, account_id = seat.table_id, seat.number, seat.account_id
    mark = s.get(SeatMark, (table_id, account_id))
    if seat.idle_rounds:
        window = s.get(GameTable, table_id).windows  # type: ignore[union-attr]
        if mark is None:
            s.add(SeatMark(table_id=table_id, account_id=account_id, idle_rounds=seat.idle_rounds, window=window))
        else:
            mark.idle_rounds, mark.window = seat.idle_rounds, window
    elif mark is not None:
        s.delete(mark)
    s.delete(seat)
    s.flush()  # the seat's row is gone before another takes its number
    for request in list(s.scalars(_in_line(s, table_id, now))):
        s.delete(request)
        if s.scalar(select(Seat.id).where(Seat.table_id == table_id, Seat.account_id == request.account_id)):
            continue  # seated here meanwhile
        try:
            protection.check_play(s, request.account_id, now)
        except BaccaratError:  # on a break since they asked
            continue
        _take(s, table_id, request.account_id, number, now)
        return


def _has_bets_in_play(s: Session, table_id: int, account_id: int) -> bool:
    return s.scalar(select(Bet.id).join(Round, Round.id == Bet.round_id).where(
        Round.table_id == table_id, Round.status.in_(("betting", "decision")), Bet.account_id == account_id
    ).limit(1)) is not None


def mark_away(s: Session, table_id: int, account_id: int, now: datetime | None = None, *,
              elsewhere: tuple[str, float] | None = None) -> None:
    """The player's last socket at the table closed: the grace period starts (if they are seated).

    ``elsewhere`` (this process's lease name, the oldest heartbeat still alive): not if the player holds a
    live socket at this table in another process.  A page that reconnects to another process (a rolling
    restart closes its socket with 1012 and it comes back at once) may be marked back before this process
    marks it away; one statement, checking the leases as it marks, keeps that player's seat theirs."""
    where = [Seat.table_id == table_id, Seat.account_id == account_id, Seat.away_since.is_(None)]
    if elsewhere is not None:
        process, alive_since = elsewhere
        where.append(~select(SocketLease.id).where(
            SocketLease.account_id == account_id, SocketLease.table_id == table_id,
            SocketLease.process != process, SocketLease.heartbeat > alive_since).exists())
    marked = s.execute(update(Seat).where(*where).values(away_since=now or _now()))
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
            free_seat(s, seat, now, "seat_freed", seconds=grace)
            freed += 1
    return freed


def count_idle(s: Session, table_id: int, bettors: set[int], now: datetime, sit_out_rounds: int) -> None:
    """A betting window closed (``bettors``: who bet in it; empty for a window nobody bet in, dealt only while
    anyone watches the table): seated players who did not bet sat it out; after ``sit_out_rounds`` windows in
    a row they are stood up, connected or not (a player at a real table who never plays gives the seat back).

    Windows nobody bet on count too: counting only dealt rounds once let seven players who sat down and
    never bet hold a Lucky Draw table full for good, since a round without bets was never dealt.

    The table counts the window, and a mark of windows sat out is forgotten once ``sit_out_rounds`` more have
    closed since its seat was given up (a player who left that long ago sits down with a fresh count)."""
    table = s.get(GameTable, table_id)
    if table is not None:
        table.windows = (table.windows or 0) + 1
        s.execute(delete(SeatMark).where(SeatMark.table_id == table_id,
                                         SeatMark.window <= table.windows - sit_out_rounds))
    for seat in list(s.scalars(select(Seat).where(Seat.table_id == table_id).order_by(Seat.number))):
        if seat.account_id in bettors:
            seat.idle_rounds = 0
            continue
        seat.idle_rounds = (seat.idle_rounds or 0) + 1
        if seat.idle_rounds >= sit_out_rounds:
            free_seat(s, seat, now, "stood_up", rounds=seat.idle_rounds)


class StoodUp(TypedDict):
    """A player an operator stood up (:func:`stand_up`): the seat freed and who sat there."""

    table: int
    seat: int
    account_id: int
    name: str


def seated_at(s: Session, table_id: int, number: int) -> Seat:
    """The seat ``number`` of the table, taken: refused for an unknown table (``table.unknown``), a seat
    the game does not have (``seat.out_of_range``) or an empty one (``seat.empty``)."""
    seats = game_of(table_row(s, table_id)).max_seats
    if not 1 <= number <= seats:
        raise UnknownSeatError.coded("seat.out_of_range", seats=seats)
    seat = s.scalar(select(Seat).where(Seat.table_id == table_id, Seat.number == number))
    if seat is None:
        raise UnknownSeatError.coded("seat.empty", seat=number)
    return seat


def stand_up(s: Session, table_id: int, number: int, now: datetime | None = None) -> StoodUp:
    """Operator: free seat ``number`` of the table whoever sits there, announced (``news.operator_stood``);
    the player's money is not touched.  Refused (``seat.stand_with_bets``) while the player has bets on
    the round in play: those bets are played for that seat, so the seat goes once the round is settled."""
    now = now or _now()
    seated_at(s, table_id, number)  # the refusals, before any lock is taken
    _lock_round_in_play(s, table_id)  # as leave does: no bet can read this seat meanwhile
    seat = seated_at(s, table_id, number)  # read again under the lock: it may have changed hands
    if _has_bets_in_play(s, table_id, seat.account_id):
        raise IllegalActionError.coded("seat.stand_with_bets", seat=number)
    name = s.scalar(select(Account.username).where(Account.id == seat.account_id)) or ""
    account_id = seat.account_id
    free_seat(s, seat, now, "operator_stood")
    s.flush()
    return {"table": table_id, "seat": number, "account_id": account_id, "name": name}


def take_break(s: Session, account_id: int, *, hours: int | None = None, months: int | None = None,
               now: datetime | None = None) -> protection.ProtectionStatus:
    """A time-out or self-exclusion (:func:`baccarat.server.house.protection.take_break`), and the player
    stood up from every seat without a bet in play (a seat with a bet is given back after its round,
    by the sit-out rules).  Returns the player's protection status."""
    now = now or _now()
    protection.take_break(s, account_id, hours=hours, months=months, now=now)
    for table_id in list(s.scalars(select(Seat.table_id).where(Seat.account_id == account_id))):
        try:
            leave(s, table_id, account_id, now)
        except IllegalActionError:  # bets in play: the seat goes after the round
            continue
    return protection.status(s, account_id, now)
