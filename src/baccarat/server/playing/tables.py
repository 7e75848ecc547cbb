"""Tables and rounds in the database, driven by the core :class:`~baccarat.core.table.Table`.

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
it, and its cards are fixed only then (:mod:`baccarat.server.playing.fairness`).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from baccarat.core.coup import MAX_COUP_CARDS
from baccarat.core.errors import ConfigurationError, ConflictError, UnknownSeatError, UnknownWagerError
from baccarat.core.fair import ALGORITHM, commitment, new_server_seed
from baccarat.core.games import Game, TableLimits
from baccarat.core.messages import render
from baccarat.core.registry import built_in, game_codes, get_game
from baccarat.core.shoe import check_cut_card, check_decks
from baccarat.server.house import seed_keys
from baccarat.server.playing import definitions, fairness
from baccarat.server.playing.game_info import limits_json, stored_limits
from baccarat.server.playing.shapes import TableView
from baccarat.server.playing.timeline import Pace
from baccarat.server.playing.views import table_view
from baccarat.server.storage import notify
from baccarat.server.storage.models import Announcement, Bet, GameTable, Round, ShoeRow
from baccarat.server.storage.models import now as _now


def default_tables() -> tuple[tuple[str, str], ...]:
    """(name, game) of the table each registered game gets: ``<code>-1``."""
    return tuple((f"{code}-1", code) for code in game_codes())


#: The squeeze table among the default tables, and its squeeze time per card; the most a table may give.
SQUEEZE_TABLE, SQUEEZE_SECONDS, SQUEEZE_MOST = "mini-squeeze", 6.0, 30.0

#: The seat stored with a punto banco bet placed without a seat (seats are numbered from 1).
NO_SEAT = 0


def game_of(table: GameTable) -> Game:
    return get_game(table.game, paytable=table.paytable)


def limits_of(table: GameTable) -> TableLimits:
    return stored_limits(table.game, table.paytable, table.limits)


def create_table(s: Session, name: str, game: str, *, paytable: int | None = None, decks: int = 8,
                 cut_card: int = 14, betting_seconds: float = 15.0, decision_seconds: float = 10.0,
                 pace: Pace | None = None, squeeze_seconds: float = 0.0, now: datetime | None = None) -> GameTable:
    """A new open table with its first shoe committed and its first round open.  ``squeeze_seconds``: a
    squeeze table's time per card for each side's squeezer (:mod:`baccarat.server.playing.squeeze`), 0 for none."""
    chosen = get_game(game, paytable=paytable)
    pace = (pace or Pace()).check()
    if not (squeeze_seconds == 0 or 1 <= squeeze_seconds <= SQUEEZE_MOST):
        raise ConfigurationError.coded("table.squeeze", most=SQUEEZE_MOST)
    if squeeze_seconds and chosen.kind != "punto_banco":
        raise ConfigurationError.coded("table.squeeze_game", game=chosen.code, names={"game": chosen.name})
    check_cut_card(cut_card, 52 * check_decks(decks))
    for label, seconds in (("betting", betting_seconds), ("decision", decision_seconds)):
        if not 0.1 <= seconds <= 600:
            raise ConfigurationError.coded("table.window", window=label)
    if s.scalar(select(GameTable.id).where(GameTable.name == name)) is not None:
        raise ConflictError.coded("table.name_taken", name=name)
    table = GameTable(name=name, game=chosen.code, paytable=chosen.paytable, decks=decks, cut_card=cut_card,
                      betting_seconds=betting_seconds, decision_seconds=decision_seconds, status="open",
                      no_more_bets_seconds=pace.no_more_bets, card_seconds=pace.card, results_seconds=pace.results,
                      squeeze_seconds=float(squeeze_seconds),
                      definition=None if built_in(chosen.code) else definitions.digest_of(s, chosen.code))
    s.add(table)
    s.flush()
    _open_round(s, table, 1, now or _now())
    return table


def ensure_default_tables(s: Session, *, betting_seconds: float = 15.0, pace: Pace | None = None) -> None:
    """One table per served game on a database that has none; and a game from a rules file that has no
    table yet gets one (``serve --rules``), unless its table's name is taken.

    Processes starting together (``serve --workers``) make them one at a time: on PostgreSQL the first holds the
    tables' lock until it commits, and the others then find the tables made (without it, two processes both found
    the database fresh; the second's inserts failed on the names and had used up ids, so the tables were not
    numbered 1, 2, 3 and a worker answered "There is no table 2").  SQLite's writers take turns already."""
    if s.get_bind().dialect.name == "postgresql":
        s.execute(text("LOCK TABLE game_tables IN SHARE ROW EXCLUSIVE MODE"))
    fresh = s.scalar(select(func.count(GameTable.id))) == 0
    for name, game in default_tables():
        if not fresh and (built_in(game) or s.scalar(select(GameTable.id).where(
                (GameTable.game == game) | (GameTable.name == name)).limit(1)) is not None):
            continue
        create_table(s, name, game, betting_seconds=betting_seconds, decision_seconds=betting_seconds, pace=pace)
    if fresh:  # and one mini-baccarat squeeze table, as in every live studio
        create_table(s, SQUEEZE_TABLE, "mini", betting_seconds=betting_seconds, decision_seconds=betting_seconds,
                     pace=pace, squeeze_seconds=SQUEEZE_SECONDS)


def _current_shoe(s: Session, table: GameTable) -> ShoeRow | None:
    return s.scalar(select(ShoeRow).where(ShoeRow.table_id == table.id).order_by(ShoeRow.number.desc()).limit(1))


def _new_shoe(s: Session, table: GameTable, number: int) -> ShoeRow:
    """A committed shoe; no card is taken (not even the burn) until it is sealed at its first deal."""
    seed = new_server_seed()
    committed = commitment(seed)
    # the seed is stored sealed under the process's seed key (the database never holds it in clear in play)
    row = ShoeRow(table_id=table.id, number=number, server_seed=seed_keys.seal(seed.hex(), committed),
                  commitment=committed,
                  algorithm=ALGORITHM, decks=table.decks, cut_card=table.cut_card, position=0,
                  last_coup=False, finished=False, definition=table.definition)
    s.add(row)
    s.flush()
    return row


def announce(s: Session, table_id: int, at: datetime, kind: str, *, seat: int | None = None,
             name: str | None = None, **params: int | float) -> None:
    """Tell everyone at the table (shown in the table view from ``at``): the news ``news.<kind>`` with
    ``seat``, ``name`` and ``params``, stored with its params so that each client words it in its own
    language, and with its English words."""
    notify.changed(s, table_id)
    values: dict[str, object] = {**params, **({} if seat is None else {"seat": seat}),
                                 **({} if name is None else {"name": name})}
    s.add(Announcement(table_id=table_id, at=at, kind=kind, seat=seat, name=name, params=json.dumps(values),
                       text=render(f"news.{kind}", values)[:255]))


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
            announce(s, table.id, opens, "new_shoe", shoe=shoe.number)
    if table.pending_limits is not None:  # limits changed by an operator take effect now
        table.limits, table.pending_limits = table.pending_limits, None
    row = Round(table_id=table.id, number=number, shoe_id=shoe.id, status="betting", opens_at=opens,
                closes_at=opens + timedelta(seconds=table.betting_seconds))
    s.add(row)
    s.flush()
    return row


def next_round(s: Session, table: GameTable, number: int, now: datetime, shoe: ShoeRow,
                opens_at: datetime | None = None) -> None:
    """Open the next round (taking bets from ``opens_at``), or finish closing a table an operator
    closed during a round."""
    if table.status == "closing":
        _shut(s, table, now)
    else:
        _open_round(s, table, number, now, shoe, opens_at)


def open_again(s: Session, table: GameTable, current: Round, now: datetime) -> None:
    """A betting window nobody bet in, at a table nobody watches, closed: the same round takes bets
    again for another window from ``now`` (it keeps its number, so round numbers count hands dealt), or
    the table finishes closing if an operator closed it meanwhile.

    Limits an operator changed take effect with the new window, as they would with a new round."""
    if table.status == "closing":
        current.status = "no_action"
        _shut(s, table, now)
        return
    notify.changed(s, table.id)
    if table.pending_limits is not None:
        table.limits, table.pending_limits = table.pending_limits, None
    current.opens_at, current.closes_at = now, now + timedelta(seconds=table.betting_seconds)


def _shut(s: Session, table: GameTable, now: datetime) -> None:
    """The table is closed: its shoe is dropped, so its seed is revealed (a shoe never leaves unrevealed)."""
    table.status = "closed"
    shoe = _current_shoe(s, table)
    if shoe is not None:
        fairness.end_shoe(s, shoe, now, "last hand" if shoe.finished else "table closed")
        shoe.finished = True


def close_table(s: Session, table_id: int, now: datetime | None = None) -> TableView:
    """Operator: close the table.  A round without bets ends now; a round with bets is dealt and
    settled as usual and the table closes after it (no bet is ever dropped)."""
    now = now or _now()
    table = table_row(s, table_id, lock=True)
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


def reopen_table(s: Session, table_id: int, now: datetime | None = None) -> TableView:
    """Operator: open a closed table again (with a new shoe), or cancel a pending close."""
    now = now or _now()
    table = table_row(s, table_id, lock=True)
    if table.status == "closing":
        table.status = "open"
    elif table.status == "closed":
        table.status = "open"
        last = s.scalar(select(func.max(Round.number)).where(Round.table_id == table_id)) or 0
        _open_round(s, table, last + 1, now)
    s.flush()
    return table_view(s, table_id)


def set_limits(s: Session, table_id: int, minimum: int, maximums: dict[str, int]) -> TableView:
    """Operator: new table limits, effective from the next round (the open round keeps its limits)."""
    table = table_row(s, table_id, lock=True)
    game = game_of(table)
    for code in maximums:
        if code not in game.betting_codes:
            game.wager(code)  # names the valid wagers
            raise UnknownWagerError.coded("limits.not_at_betting", wager=code, game=game.code,
                                          names={"game": game.name})
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


def table_row(s: Session, table_id: int, *, lock: bool = False) -> GameTable:
    """The table; ``lock`` holds its row (limits, status) until the transaction ends."""
    table = s.get(GameTable, table_id, with_for_update=lock)
    if table is None:
        raise UnknownSeatError.coded("table.unknown", table=table_id)
    if lock:  # locked to change it: its sockets are told at commit
        notify.changed(s, table_id)
    return table


