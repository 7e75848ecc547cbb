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
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, cast

from sqlalchemy import Table as SqlTable
from sqlalchemy import bindparam, func, insert, select
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
from baccarat.games import Game, TableLimits
from baccarat.money import MAX_AMOUNT
from baccarat.presets import get_game
from baccarat.roads import hand_from_json, hand_json, hand_of, roads
from baccarat.server import fairness, wallet
from baccarat.server.models import (
    Account,
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
from baccarat.shoe import Shoe, check_cut_card, check_decks
from baccarat.table import Table

#: Tables made on a fresh database.
DEFAULT_TABLES = (("mini-1", "mini"), ("ez-1", "ez"), ("lucky-draw-1", "lucky-draw"))


def game_of(table: GameTable) -> Game:
    return get_game(table.game, paytable=table.paytable)


def limits_of(table: GameTable) -> TableLimits:
    return _stored_limits(table.game, table.paytable, table.limits)


def create_table(s: Session, name: str, game: str, *, paytable: int | None = None, decks: int = 8,
                 cut_card: int = 14, betting_seconds: float = 15.0, decision_seconds: float = 10.0,
                 now: datetime | None = None) -> GameTable:
    """A new open table with its first shoe committed and its first round open."""
    chosen = get_game(game, paytable=paytable)
    check_cut_card(cut_card, 52 * check_decks(decks))
    for label, seconds in (("betting", betting_seconds), ("decision", decision_seconds)):
        if not 0.1 <= seconds <= 600:
            raise ConfigurationError(f"the {label} window is 0.1 to 600 seconds")
    if s.scalar(select(GameTable.id).where(GameTable.name == name)) is not None:
        raise ConflictError(f"there is already a table called {name!r}")
    table = GameTable(name=name, game=chosen.code, paytable=chosen.paytable, decks=decks, cut_card=cut_card,
                      betting_seconds=betting_seconds, decision_seconds=decision_seconds, status="open")
    s.add(table)
    s.flush()
    _open_round(s, table, 1, now or _now())
    return table


def ensure_default_tables(s: Session, *, betting_seconds: float = 15.0) -> None:
    """One table per served game on a database that has none."""
    if s.scalar(select(func.count(GameTable.id))) == 0:
        for name, game in DEFAULT_TABLES:
            create_table(s, name, game, betting_seconds=betting_seconds, decision_seconds=betting_seconds)


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


def _open_round(s: Session, table: GameTable, number: int, now: datetime, shoe: ShoeRow | None = None) -> Round:
    """The next round, on ``shoe`` (the table's current one; looked up when not given)."""
    shoe = shoe or _current_shoe(s, table)
    game = game_of(table)
    # A round is never split across shoes: the most cards it can need (Lucky Draw: three per seat plus three).
    needed = MAX_COUP_CARDS if game.kind == "punto_banco" else 3 * game.max_seats + 3
    if shoe is None or shoe.finished or shoe.revealed_at is not None or 52 * shoe.decks - shoe.position < needed:
        if shoe is not None:  # the shoe is over: its seed is published
            fairness.end_shoe(s, shoe, now, "last hand" if shoe.finished else "too few cards")
        shoe = _new_shoe(s, table, 1 if shoe is None else shoe.number + 1)
    if table.pending_limits is not None:  # limits changed by an operator take effect now
        table.limits, table.pending_limits = table.pending_limits, None
    row = Round(table_id=table.id, number=number, shoe_id=shoe.id, status="betting",
                closes_at=now + timedelta(seconds=table.betting_seconds))
    s.add(row)
    s.flush()
    return row


def _next_round(s: Session, table: GameTable, number: int, now: datetime, shoe: ShoeRow) -> None:
    """Open the next round, or finish closing a table an operator closed during a round."""
    if table.status == "closing":
        _shut(s, table, now)
    else:
        _open_round(s, table, number, now, shoe)


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
    table.pending_limits = json.dumps(_limits_json(limits))
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
    return table


def sit(s: Session, table_id: int, account_id: int, seat: int | None = None) -> int:
    """Take ``seat`` (or the first free one) at the table; returns the seat number."""
    table = _table(s, table_id)
    if table.status != "open":
        raise IllegalActionError("the table is closed")
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
    s.add(Seat(table_id=table_id, number=seat, account_id=account_id))
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


def leave(s: Session, table_id: int, account_id: int) -> None:
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
        s.delete(seat)


_ROUNDS = cast(SqlTable, Round.__table__)
_SEATS = cast(SqlTable, Seat.__table__)
_BETS = cast(SqlTable, Bet.__table__)
_TABLES = cast(SqlTable, GameTable.__table__)
_SETTLEMENTS = cast(SqlTable, Settlement.__table__)
# A bet is the hottest request: its reads are Core statements built once (the ORM's per-statement
# work was most of its cost), one for the table, round and seat together.
_SHOES = cast(SqlTable, ShoeRow.__table__)
_BETTING = (select(_TABLES.c.name, _TABLES.c.game, _TABLES.c.paytable, _TABLES.c.limits,
                   _ROUNDS.c.id, _ROUNDS.c.number, _ROUNDS.c.closes_at, _ROUNDS.c.shoe_id,
                   _SHOES.c.algorithm, _SHOES.c.client_seeds)
            .select_from(_TABLES)
            .outerjoin(_ROUNDS, (_ROUNDS.c.table_id == _TABLES.c.id) & (_ROUNDS.c.status == "betting"))
            .outerjoin(_SHOES, _SHOES.c.id == _ROUNDS.c.shoe_id)
            .where(_TABLES.c.id == bindparam("table")))
_LAST_ROUND = select(func.max(_ROUNDS.c.number)).where(_ROUNDS.c.table_id == bindparam("table"))
_YOUR_SEAT = select(_SEATS.c.number).where(_SEATS.c.table_id == bindparam("table"),
                                           _SEATS.c.account_id == bindparam("account"))
_PLACED = select(_BETS.c.wager, _BETS.c.amount).where(_BETS.c.round_id == bindparam("round"),
                                                      _BETS.c.account_id == bindparam("account"))
_NEW_BET = insert(_BETS)
_NEW_SETTLEMENT = insert(_SETTLEMENTS)


#: A bet or decision holds its round's row FOR SHARE; the dealer and operators take it FOR UPDATE
#: (PostgreSQL; SQLite has one writer at a time and ignores the clause).
_ROUND_STATUS = select(_ROUNDS.c.status).where(_ROUNDS.c.id == bindparam("round")).with_for_update(read=True)


def _hold_round(s: Session, round_id: int, status: str) -> bool:
    """Lock the round against the dealer until this transaction ends; False if it has moved on."""
    return s.connection().execute(_ROUND_STATUS, {"round": round_id}).scalar_one_or_none() == status


@lru_cache(maxsize=256)
def _stored_limits(game: str, paytable: int | None, stored: str | None) -> TableLimits:
    if stored is None:
        return get_game(game, paytable=paytable).limits
    data = json.loads(stored)
    return TableLimits(data["minimum"], data["maximums"])


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
    row = connection.execute(_BETTING, {"table": table_id}).first()
    if row is None:
        raise UnknownSeatError(f"no table {table_id}")
    if round_number is not None and round_number != row.number:
        _refuse_round(connection, table_id, round_number, row.number)
    if row.id is None:
        raise IllegalActionError("no more bets: wait for the next round to open")
    if aware(row.closes_at) <= now or not _hold_round(s, row.id, "betting"):
        raise IllegalActionError(f"no more bets: betting closed for round {row.number}; bet on the next round")
    # Read under the round's lock (see leave): the seat cannot be given up between here and the insert.
    seat = connection.execute(_YOUR_SEAT, {"table": table_id, "account": account_id}).scalar_one_or_none()
    if seat is None:
        raise IllegalActionError("take a seat at the table first")
    placed: dict[str, int] = {wager: amount for wager, amount in connection.execute(
        _PLACED, {"round": row.id, "account": account_id})}
    if set(bets) & set(placed):
        raise ConflictError(f"already on the layout this round: {', '.join(sorted(set(bets) & set(placed)))}")
    # The core checks wager codes, amounts, limits and prerequisites, exactly as at a live table.
    check = Table(get_game(row.game, paytable=row.paytable), limits=_stored_limits(row.game, row.paytable, row.limits),
                  shoe_factory=_checking_shoe)
    check.sit(seat, "check", MAX_AMOUNT)
    check.open_betting()
    check.place_bets(seat, {**placed, **bets})
    total = sum(bets.values())
    wallet.transfer(s, "stake", {wallet.wallet_account(account_id): -total, wallet.escrow_account(row.id): total},
                    memo=f"table {row.name} round {row.number}")
    balance = wallet.balance(s, account_id)
    balance_before = balance + total + sum(placed.values())
    connection.execute(_NEW_BET, [{"round_id": row.id, "account_id": account_id, "seat": seat, "wager": code,
                                   "amount": amount, "balance_before": balance_before}
                                  for code, amount in bets.items()])
    if fairness.takes_seeds(row.algorithm, row.client_seeds):  # before its first deal: the player's seed goes in
        fairness.take_client_seed(s, row.shoe_id, account_id)
    return {"table": table_id, "round": row.number, "seat": seat, "bets": {**placed, **bets},
            "balance": balance}


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


def _checking_shoe() -> Shoe:
    return Shoe(standard_deck(), cut_card=0)  # the checking table opens betting but never deals


def due_rounds(s: Session, now: datetime) -> list[int]:
    """Rounds to move on: betting windows that closed, and Lucky Draw decisions that are all in or timed out."""
    closed = s.scalars(select(Round.id).where(Round.status == "betting", Round.closes_at <= now))
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


def _settle(s: Session, table: GameTable, current: Round, bets: list[Bet], events: list[Any],
            account_of: dict[int, int]) -> None:
    """Pay out every settled bet not yet paid (Block Bonus is paid at the first deal), as one
    ledger movement: the stakes leave escrow, each player's returns go to their wallet, the
    difference to or from the house; each bet's settlement row points at that movement."""
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
    s.connection().execute(_NEW_SETTLEMENT, [{"bet_id": bet.id, "event": event.event, "net": event.net,
                                              "transaction_id": entry} for bet, event in settled])


def deal_round(s: Session, round_id: int, now: datetime) -> None:
    """Move one round on, in one transaction (idempotent): deal and settle it, or for Lucky Draw
    deal the first cards and open the decisions, then finish it once they are in."""
    current = s.get(Round, round_id)
    if current is None:
        return
    table = _table(s, current.table_id, lock=True)  # locks in one order everywhere: the table, then the round
    s.refresh(current, with_for_update=True)
    if current.status == "betting" and aware(current.closes_at) <= now:
        bets = list(s.scalars(select(Bet).where(Bet.round_id == round_id).order_by(Bet.id)))
        if not bets:
            current.status = "no_action"
            _next_round(s, table, current.number + 1, now, _round_shoe(s, current))
            return
        core, shoe, events, account_of = _replay(s, table, current, bets)
        _settle(s, table, current, bets, events, account_of)  # punto banco: everything; Lucky Draw: Block Bonus
        if core.seat_to_act is not None:
            current.status = "decision"
            current.decides_at = now + timedelta(seconds=table.decision_seconds)
            current.result = json.dumps({"cards": [str(e.card) for e in events if isinstance(e, CardDealt)],
                                         "first_deal": _first_deal(events)})
            return
        _close(s, table, current, bets, shoe, events, now)
    elif current.status == "decision" and (aware(current.decides_at or now) <= now or _all_decided(s, round_id)):
        bets = list(s.scalars(select(Bet).where(Bet.round_id == round_id).order_by(Bet.id)))
        core, shoe, events, account_of = _replay(s, table, current, bets)
        actions = {d.account_id: d.action for d in s.scalars(select(Decision).where(Decision.round_id == round_id))}
        while core.seat_to_act is not None:
            seat = core.seat_to_act
            account = account_of[seat]
            events += core.decide(seat, actions.get(account, "stand"), timed_out=account not in actions)
        _settle(s, table, current, bets, events, account_of)
        _close(s, table, current, bets, shoe, events, now)


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
           now: datetime) -> None:
    shoe_row = _round_shoe(s, current)
    shoe_row.position, shoe_row.last_coup, shoe_row.finished = shoe.position, shoe.last_coup, shoe.finished
    result: dict[str, Any] = {"cards": [str(e.card) for e in events if isinstance(e, CardDealt)]}
    coup = next((e.coup for e in events if isinstance(e, CoupResolved)), None)
    if coup is not None:
        result.update(player_cards=[str(c) for c in coup.player_cards],
                      banker_cards=[str(c) for c in coup.banker_cards],
                      player_total=coup.player_total, banker_total=coup.banker_total, winner=coup.winner,
                      reasons={"player": coup.player_reason, "banker": coup.banker_reason},
                      hand=hand_json(hand_of(coup)))
    else:
        result["hands"] = _first_deal(events)
    result["balances"] = {str(a): balance for a, balance in sorted(wallet.balances(s, {b.account_id for b in bets}))}
    current.result = json.dumps(result)
    current.status = "settled"
    _next_round(s, table, current.number + 1, now, shoe_row)


def decide(s: Session, table_id: int, account_id: int, action: str, now: datetime | None = None) -> dict[str, Any]:
    """Lucky Draw: stand, or draw one card with a Draw wager equal to Enter (staked now)."""
    now = now or _now()
    if action not in ("draw", "stand"):
        raise ConfigurationError("a decision is 'draw' or 'stand'")
    current = s.scalar(select(Round).where(Round.table_id == table_id, Round.status == "decision"))
    if current is None or aware(current.decides_at or now) <= now or not _hold_round(s, current.id, "decision"):
        raise IllegalActionError("no decision is awaited at this table now")
    enter = s.scalar(select(Bet).where(Bet.round_id == current.id, Bet.account_id == account_id,
                                       Bet.wager == "enter"))
    if enter is None:
        raise IllegalActionError("you have no Enter wager in this round")
    if s.scalar(select(Decision.id).where(Decision.round_id == current.id, Decision.account_id == account_id)):
        raise ConflictError("you have already decided this round")
    if action == "draw":
        wallet.transfer(s, "stake", {wallet.wallet_account(account_id): -enter.amount,
                                     wallet.escrow_account(current.id): enter.amount},
                        memo=f"round {current.number} Draw wager")
        s.add(Bet(round_id=current.id, account_id=account_id, seat=enter.seat, wager="draw", amount=enter.amount,
                  balance_before=enter.balance_before))
    s.add(Decision(round_id=current.id, account_id=account_id, seat=enter.seat, action=action))
    s.flush()
    return {"table": table_id, "round": current.number, "action": action, "balance": wallet.balance(s, account_id)}


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
        s.connection().execute(_NEW_SETTLEMENT, [{"bet_id": bet.id, "event": "Void", "net": 0,
                                                  "transaction_id": entry} for bet in open_bets])
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
    current.result = json.dumps({"cards": shown, "void": reason.strip()[:200],
                                 "balances": {str(a): b for a, b in
                                              sorted(wallet.balances(s, {b.account_id for b in bets}))}})
    current.status = "void"
    _next_round(s, table, current.number + 1, now, shoe_row)
    return {"table": table_id, "round": number, "status": "void", "refunded": sum(refunds.values()),
            "bets_refunded": len(open_bets)}


def repair_deadlines(s: Session, now: datetime | None = None) -> int:
    """At start-up: pull back deadlines stored further ahead than one window from ``now`` (the wall
    clock stepped back since they were written), so no table waits hours for its next deal.
    Returns how many were changed."""
    now = now or _now()
    changed = 0
    for current, table in s.execute(select(Round, GameTable).join(GameTable, GameTable.id == Round.table_id)
                                    .where(Round.status.in_(("betting", "decision")))).all():
        betting_end = now + timedelta(seconds=table.betting_seconds)
        if current.status == "betting" and aware(current.closes_at) > betting_end:
            current.closes_at, changed = betting_end, changed + 1
        deciding_end = now + timedelta(seconds=table.decision_seconds)
        if current.status == "decision" and current.decides_at is not None and aware(current.decides_at) > deciding_end:
            current.decides_at, changed = deciding_end, changed + 1
    return changed


_ACCOUNTS = cast(SqlTable, Account.__table__)
# The table view is read for every watched table several times a second: Core statements, each
# on an index (rounds by table, status and number).
_VIEW_TABLE = select(_TABLES).where(_TABLES.c.id == bindparam("table"))
_VIEW_ROUNDS = select(_ROUNDS).where(_ROUNDS.c.table_id == bindparam("table"),
                                     _ROUNDS.c.status.in_(("betting", "decision")))
_VIEW_LAST = (select(_ROUNDS.c.number, _ROUNDS.c.result)
              .where(_ROUNDS.c.table_id == bindparam("table"), _ROUNDS.c.status == "settled")
              .order_by(_ROUNDS.c.number.desc()).limit(1))
_VIEW_SHOE = (select(_SHOES.c.id, _SHOES.c.number, _SHOES.c.algorithm, _SHOES.c.commitment, _SHOES.c.position,
                     _SHOES.c.decks, _SHOES.c.cut_card, _SHOES.c.last_coup, _SHOES.c.client_seeds)
              .where(_SHOES.c.table_id == bindparam("table")).order_by(_SHOES.c.number.desc()).limit(1))
_VIEW_SEATS = (select(_SEATS.c.number, _ACCOUNTS.c.username)
               .join(_ACCOUNTS, _ACCOUNTS.c.id == _SEATS.c.account_id)
               .where(_SEATS.c.table_id == bindparam("table")).order_by(_SEATS.c.number))


def _limits_json(limits: TableLimits) -> dict[str, Any]:
    return {"minimum": limits.minimum, "maximums": dict(limits.maximums)}


def table_view(s: Session, table_id: int) -> dict[str, Any]:
    """What anyone may see of a table: never a seed before its shoe is over, never an undealt card."""
    connection = s.connection()
    params = {"table": table_id}
    table = connection.execute(_VIEW_TABLE, params).first()
    if table is None:
        raise UnknownSeatError(f"no table {table_id}")
    rounds = {row.status: row for row in connection.execute(_VIEW_ROUNDS, params)}
    current, deciding = rounds.get("betting"), rounds.get("decision")
    shoe = connection.execute(_VIEW_SHOE, params).first()
    last = connection.execute(_VIEW_LAST, params).first()
    view: dict[str, Any] = {
        "id": table.id, "name": table.name, "game": table.game, "status": table.status,
        "paytable": table.paytable, "betting_seconds": table.betting_seconds,
        "limits": _limits_json(_stored_limits(table.game, table.paytable, table.limits)),
        "pending_limits": None if table.pending_limits is None else json.loads(table.pending_limits),
        "seats": {str(number): name for number, name in connection.execute(_VIEW_SEATS, params)},
        "round": None if current is None else {"number": current.number,
                                               "closes_at": aware(current.closes_at).isoformat()},
        "shoe": None if shoe is None else {"number": shoe.number, "algorithm": shoe.algorithm,
                                           "commitment": shoe.commitment, "cards_dealt": shoe.position,
                                           "cards": 52 * shoe.decks, "cut_card": shoe.cut_card,
                                           "last_hand": shoe.last_coup,
                                           # until its first deal the shoe takes the seeds of those who bet;
                                           # then they are public (the server seed stays secret)
                                           "taking_client_seeds": fairness.takes_seeds(shoe.algorithm,
                                                                                       shoe.client_seeds),
                                           "client_seeds": None if shoe.client_seeds is None
                                           else json.loads(shoe.client_seeds)},
        "last_result": None,
        "decision": None,
    }
    if deciding is not None and deciding.result and deciding.decides_at is not None:
        view["decision"] = {"round": deciding.number, "decides_at": aware(deciding.decides_at).isoformat(),
                            "first_deal": json.loads(deciding.result)["first_deal"]}
    if last is not None and last.result:
        result = json.loads(last.result)
        result.pop("balances", None)
        view["last_result"] = {"round": last.number, **result}
    return view


def table_roads(s: Session, table_id: int) -> dict[str, Any]:
    """The scoreboards of the table's current shoe (they start again with each shoe)."""
    table = _table(s, table_id)
    game = game_of(table)
    if game.kind != "punto_banco":
        raise IllegalActionError(f"{game.name} has no Banker and Player scoreboards")
    shoe = s.connection().execute(_VIEW_SHOE, {"table": table_id}).first()
    results: list[str | None] = [] if shoe is None else list(s.scalars(select(Round.result).where(
        Round.shoe_id == shoe.id, Round.status == "settled").order_by(Round.number)))
    hands = [hand_from_json(data["hand"]) for data in (json.loads(r or "{}") for r in results) if "hand" in data]
    return {"shoe": None if shoe is None else shoe.number, **roads(hands).to_json()}


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
    seats = _lucky_seats(s, table, rounds) if table.game == "lucky-draw" else {}
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


def recall(s: Session, account_id: int, limit: int = 20) -> list[dict[str, Any]]:
    """The player's last rounds: cards in deal order, bets, results, balance before and after, and
    the shoe each was dealt from (and in Lucky Draw the seat that was theirs), for checking it."""
    rows = s.execute(select(Round, GameTable, ShoeRow.number).join(Bet, Bet.round_id == Round.id)
                     .join(GameTable, GameTable.id == Round.table_id).join(ShoeRow, ShoeRow.id == Round.shoe_id)
                     .where(Bet.account_id == account_id, Round.status.in_(("settled", "refunded", "void")))
                     .group_by(Round.id, GameTable.id, ShoeRow.number).order_by(Round.id.desc()).limit(limit)).all()
    history = []
    for current, table, shoe_number in rows:
        bets = s.execute(select(Bet, Settlement).join(Settlement, Settlement.bet_id == Bet.id)
                         .where(Bet.round_id == current.id, Bet.account_id == account_id).order_by(Bet.id)).all()
        result = json.loads(current.result or "{}")
        detail = {key: value for key, value in result.items() if key not in ("balances", "cards", "winner")}
        entry = {
            "table": table.name, "table_id": current.table_id, "round": current.number, "status": current.status,
            "shoe": shoe_number, "time": aware(current.closes_at).isoformat(), "detail": detail,
            "cards": result.get("cards", []), "winner": result.get("winner"),
            "bets": {b.wager: {"amount": b.amount, "event": st.event, "net": st.net} for b, st in bets},
            "balance_before": bets[0][0].balance_before if bets else None,
            "balance_after": result.get("balances", {}).get(str(account_id)),
        }
        if table.game == "lucky-draw":
            everyone = list(s.scalars(select(Bet).where(Bet.round_id == current.id).order_by(Bet.id)))
            entry["seat"] = f"seat:{core_seats(everyone, game_of(table).max_seats)[account_id]}"
        history.append(entry)
    return history
