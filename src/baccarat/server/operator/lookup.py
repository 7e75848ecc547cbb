"""Player lookup for operators: find a player, their balance and protection, a statement of every
ledger movement of their wallet (with the round and bets it was for), and the recall of any
round (cards in deal order, every bet, the result and each settlement), as GLI-19's game recall
asks.  Operators see the stored state, results included as soon as they are settled."""

from __future__ import annotations

import json
from datetime import datetime
from typing import NotRequired, cast

from sqlalchemy import func, select
from sqlalchemy.orm import Session
from typing_extensions import TypedDict

from baccarat.core.errors import UnknownSeatError
from baccarat.server.house import protection, wallet
from baccarat.server.operator import reports
from baccarat.server.playing import views
from baccarat.server.playing.shapes import DealtCard, LimitsJson, StoredResult
from baccarat.server.storage.models import (
    Account,
    Bet,
    Decision,
    GameTable,
    LedgerTransaction,
    Posting,
    Round,
    Seat,
    Settlement,
    ShoeRow,
    aware,
)
from baccarat.server.storage.models import now as _now

#: Statement lines in one answer unless fewer are asked for.
STATEMENT_LINES = 500


class FoundPlayer(TypedDict):
    id: int
    username: str
    role: str
    balance: int
    created_at: str


class PlayerRecord(FoundPlayer):
    """A player as the console shows them: balance, protection and statement."""

    protection: protection.ProtectionStatus
    statement: list[StatementLine]


class StatementBet(TypedDict):
    bet_id: int
    wager: str
    amount: int
    event: str | None
    """None until settled"""
    net: int | None


class _PlayerBet(StatementBet):
    transaction_id: int | None
    """the settlement's movement"""


class StatementLine(TypedDict):
    """One movement of the wallet, with the balance after it (and for play, the round and bets)."""

    transaction_id: int
    at: str
    kind: str
    amount: int
    balance: int
    """the wallet's balance after it"""
    memo: str
    table_id: NotRequired[int]
    table: NotRequired[str]
    round: NotRequired[int]
    bets: NotRequired[list[StatementBet]]
    """play: the player's bets on the round"""


class RecalledCard(TypedDict):
    to: str | None
    card: str
    reason: str | None
    at: str | None


class RecalledBet(TypedDict):
    bet_id: int
    account_id: int
    player: str
    seat: int
    wager: str
    amount: int
    event: str | None
    net: int | None
    transaction_id: int | None


class RecalledDecision(TypedDict):
    account_id: int
    seat: int
    action: str
    timed_out: bool
    """the seat stood because its time ran out (no decision was sent)"""


class RecalledRound(TypedDict):
    """Game recall: a round as stored, with its result's cards, totals, winner or void once it has them."""

    # the API answers the keys in the order written here, as it always has
    table_id: int
    round: int
    status: str
    deal: list[RecalledCard]
    """the cards in deal order"""
    bets: list[RecalledBet]
    table: str
    game: str
    paytable: int | None
    round_id: int
    shoe: int
    closes_at: str
    dealt_at: str | None
    decisions: list[RecalledDecision]
    handle: int
    """minor units staked on the round"""
    house_net: int | None
    """the house's net on the round, minor units (None while withheld)"""
    withheld: bool
    """a round still being dealt recalled by staff other than surveillance: only the cards its table has shown, no
    result, settlement or net (they are stored the moment it is dealt, before the table shows them)"""
    player_cards: NotRequired[list[str]]
    banker_cards: NotRequired[list[str]]
    player_total: NotRequired[int]
    banker_total: NotRequired[int]
    winner: NotRequired[str]
    hands: NotRequired[dict[str, list[str]]]
    """Lucky Draw: seat:N and dealer -> cards"""
    void: NotRequired[str]


class ConsoleSeat(TypedDict):
    seat: int
    account_id: int
    username: str
    away: bool


class RoundInPlay(TypedDict):
    """The round the table shows now (the live monitor's and the players' round): in its result, the round just
    dealt, not the next one already taking bets behind it."""

    round: int
    status: str
    phase: str
    """the table's phase as players see it: betting, no_more_bets, dealing, decisions or result"""
    bets: int
    staked: int
    """minor units"""
    players: int
    closes_at: str


class ConsoleTable(TypedDict):
    """A table as the operator console shows it."""

    # the API answers the keys in the order written here, as it always has
    id: int
    name: str
    game: str
    status: str
    seats: list[ConsoleSeat]
    round: RoundInPlay | None
    """the round in play, with the bets on it so far"""
    paytable: int | None
    decks: int
    limits: LimitsJson
    pending_limits: LimitsJson | None
    """limits that apply from the next round"""
    today: reports.DayAtTable
    """the drop (handle) and win so far today (UTC), as the reports count them"""


#: The stored result's keys a recall shows as they are.
_RECALLED = ("player_cards", "banker_cards", "player_total", "banker_total", "winner", "hands", "void")


def find_players(s: Session, text: str, *, limit: int = 20, now: datetime | None = None) -> list[FoundPlayer]:
    """Accounts whose name contains ``text`` (case-insensitive), or whose id it is, each with the balance the table
    has shown (:func:`player`'s: a squeezed round's winnings only once its result is shown)."""
    words = text.strip().casefold()
    query = select(Account).order_by(Account.login).limit(limit)
    if words.isascii() and words.isdigit() and int(words) <= 2**31 - 1:  # an id the column can hold
        query = query.where((Account.id == int(words)) | Account.login.contains(words, autoescape=True))
    elif words:
        query = query.where(Account.login.contains(words, autoescape=True))
    found = list(s.scalars(query))
    balances = wallet.shown_balances(s, [a.id for a in found], now or _now())
    return [{"id": a.id, "username": a.username, "role": a.role, "balance": balances.get(a.id, 0),
             "created_at": aware(a.created_at).isoformat()} for a in found]


def _account(s: Session, account_id: int) -> Account:
    account = s.get(Account, account_id)
    if account is None:
        raise UnknownSeatError.coded("operator.account_unknown", account=account_id)
    return account


def player(s: Session, account_id: int, *, lines: int = STATEMENT_LINES, now: datetime | None = None) -> PlayerRecord:
    """The player's balance, protection and newest ``lines`` statement lines (newest first), as the table has shown
    them: a settlement whose result is not shown yet (a round being squeezed) is in neither."""
    account = _account(s, account_id)
    now = now or _now()
    return {"id": account.id, "username": account.username, "role": account.role,
            "created_at": aware(account.created_at).isoformat(), "balance": wallet.shown_balance(s, account.id, now),
            "protection": protection.status(s, account.id), "statement": statement(s, account.id, lines=lines,
                                                                                 now=now)}


def statement(s: Session, account_id: int, *, lines: int = STATEMENT_LINES,
              now: datetime | None = None) -> list[StatementLine]:
    """Every movement of the wallet the table has shown, newest first, with the balance after it and, for play,
    the table, round and the player's bets on it (stakes; and for a settlement each bet's result).  A settlement
    whose result the table shows later (a squeeze) is left out until then: staff learn no result before the
    table shows it, as the players do not."""
    _account(s, account_id)
    now = now or _now()
    name = wallet.wallet_account(account_id)
    unshown = (select(Settlement.transaction_id).join(Bet, Bet.id == Settlement.bet_id)
               .where(Bet.account_id == account_id, Settlement.shown_at > now))
    rows = s.execute(select(Posting.id, Posting.transaction_id, Posting.amount, LedgerTransaction.kind,
                            LedgerTransaction.memo, LedgerTransaction.created_at)
                     .join(LedgerTransaction, LedgerTransaction.id == Posting.transaction_id)
                     .where(Posting.account == name, Posting.transaction_id.not_in(unshown))
                     .order_by(Posting.id.desc()).limit(lines)).all()
    if not rows:
        return []
    after = s.scalar(select(func.coalesce(func.sum(Posting.amount), 0))
                     .where(Posting.account == name, Posting.id <= rows[0].id,
                            Posting.transaction_id.not_in(unshown))) or 0
    escrow = {transaction: int(account.split(":", 1)[1]) for transaction, account in s.execute(
        select(Posting.transaction_id, Posting.account).where(
            Posting.transaction_id.in_([r.transaction_id for r in rows]), Posting.account.like("escrow:%")))}
    rounds = {r.id: r for r in s.execute(select(Round.id, Round.number, GameTable.id.label("table_id"),
                                                GameTable.name).join(GameTable, GameTable.id == Round.table_id)
                                         .where(Round.id.in_(set(escrow.values()))))}
    bets: dict[int, list[_PlayerBet]] = {}
    for bet, settled in s.execute(select(Bet, Settlement).outerjoin(Settlement, Settlement.bet_id == Bet.id)
                                  .where(Bet.round_id.in_(set(escrow.values())), Bet.account_id == account_id)
                                  .order_by(Bet.id)):
        shown: Settlement | None = settled
        if settled is not None and settled.shown_at is not None and aware(settled.shown_at) > now:
            shown = None  # its result is not shown yet
        bets.setdefault(bet.round_id, []).append(
            {"bet_id": bet.id, "wager": bet.wager, "amount": bet.amount,
             "event": shown.event if shown else None, "net": shown.net if shown else None,
             "transaction_id": shown.transaction_id if shown else None})
    lines_out: list[StatementLine] = []
    balance = int(after)
    for row in rows:
        line: StatementLine = {"transaction_id": row.transaction_id, "at": aware(row.created_at).isoformat(),
                                "kind": row.kind, "amount": int(row.amount), "balance": balance, "memo": row.memo}
        round_id = escrow.get(row.transaction_id)
        if round_id is not None and round_id in rounds:
            where = rounds[round_id]
            line.update({"table_id": where.table_id, "table": where.name, "round": where.number})
            mine = bets.get(round_id, [])
            if row.kind == "settle" or row.kind == "refund":
                mine = [b for b in mine if b["transaction_id"] == row.transaction_id]
            line["bets"] = [{"bet_id": b["bet_id"], "wager": b["wager"], "amount": b["amount"], "event": b["event"],
                             "net": b["net"]} for b in mine]
        lines_out.append(line)
        balance -= int(row.amount)
    return lines_out


def statement_rows(lines: list[StatementLine]) -> list[dict[str, object]]:
    """Statement lines flattened for CSV (bets as ``wager amount result net`` words)."""
    return [{**line, "bets": "; ".join(f"{b['wager']} {b['amount']}" + (f" {b['event']} {b['net']}" if b["event"]
                                                                         else "") for b in line.get("bets", []))}
            for line in lines]


STATEMENT_COLUMNS = ["transaction_id", "at", "kind", "amount", "balance", "table_id", "table", "round", "bets", "memo"]


def recall_round(s: Session, table_id: int, number: int, *, every_card: bool = True,
                 now: datetime | None = None) -> RecalledRound:
    """One round as stored: its cards in deal order (who each went to and why), the hands and
    result, every bet with its player and settlement, Lucky Draw's decisions, and a void's reason.

    Without ``every_card`` (any staff but surveillance) a round whose result the table has not shown yet is
    recalled as the table shows it at ``now``: the cards turned so far, the bets, no result, settlement or net
    (``withheld``), so that nobody at the pit learns a card before the players do."""
    found = s.execute(select(Round, GameTable, ShoeRow.number).join(GameTable, GameTable.id == Round.table_id)
                      .join(ShoeRow, ShoeRow.id == Round.shoe_id)
                      .where(Round.table_id == table_id, Round.number == number)).first()
    if found is None:
        raise UnknownSeatError.coded("round.unknown", round=number, table=table_id)
    current, table, shoe_number = found
    result: StoredResult = json.loads(current.result or "{}")
    at = now or _now()
    withheld = not every_card and current.status in ("betting", "decision", "settled") and (
        current.result_at is None or aware(current.result_at) > at)
    bets: list[RecalledBet] = []
    for bet, stored_settlement, username in s.execute(
            select(Bet, Settlement, Account.username).outerjoin(Settlement, Settlement.bet_id == Bet.id)
            .join(Account, Account.id == Bet.account_id).where(Bet.round_id == current.id).order_by(Bet.id)):
        settled: Settlement | None = None if withheld else stored_settlement
        bets.append({"bet_id": bet.id, "account_id": bet.account_id, "player": username, "seat": bet.seat,
                     "wager": bet.wager, "amount": bet.amount, "event": settled.event if settled else None,
                     "net": settled.net if settled else None,
                     "transaction_id": settled.transaction_id if settled else None})
    decisions: list[RecalledDecision] = [{"account_id": d.account_id, "seat": d.seat, "action": d.action,
                                          "timed_out": False}
                 for d in s.scalars(select(Decision).where(Decision.round_id == current.id).order_by(Decision.id))]
    if current.status == "settled" and "decisions_at" in result and not withheld:
        # Lucky Draw: a seat in play (an Enter bet) whose player sent no decision stood when the time ran
        # out; no decision row is written for it, so the recall says so here (seat order, as they acted)
        decided = {d["account_id"] for d in decisions}
        stood = sorted({(b["seat"], b["account_id"]) for b in bets
                        if b["wager"] == "enter" and b["seat"] is not None and b["account_id"] not in decided})
        decisions += [{"account_id": account, "seat": seat, "action": "stand", "timed_out": True}
                      for seat, account in stood]
    deal = result.get("deal", [])
    if withheld:  # the cards turned by now, as the table shows them (a card's ``at`` is when its face shows)
        deal = [card for card in deal if datetime.fromisoformat(card["at"]) <= at]
    recalled: RecalledRound = {
        "table_id": table.id, "table": table.name, "game": table.game, "paytable": table.paytable,
        "round": current.number, "round_id": current.id, "shoe": shoe_number,
        "status": "dealing" if withheld and current.status == "settled" else current.status,
        "closes_at": aware(current.closes_at).isoformat(),
        "dealt_at": aware(current.dealt_at).isoformat() if current.dealt_at and not withheld else None,
        "deal": [_recalled_card(card) for card in deal],
        "bets": bets, "decisions": decisions,
        "handle": sum(b["amount"] for b in bets),
        "house_net": None if withheld else -sum(b["net"] for b in bets if b["net"] is not None),
        "withheld": withheld,
    }
    if not withheld:
        stored = cast(dict[str, object], result)
        recalled.update(cast(RecalledRound, {key: stored[key] for key in _RECALLED if key in stored}))
    return recalled


def _recalled_card(card: DealtCard) -> RecalledCard:
    """A stored card (rounds stored before a card's recipient, reason and moment were kept lack them)."""
    return {"to": card.get("to"), "card": card["card"], "reason": card.get("reason"), "at": card.get("at")}


def console_tables(s: Session) -> list[ConsoleTable]:
    """Every table as the operator console shows it: status, limits (and any waiting for the next
    round), seated players, the round in play with the bets on it so far, and the day's drop and win."""
    out: list[ConsoleTable] = []
    day = _now().date()  # (UTC, the reports' days)
    today = reports.day_by_table(s, day)
    for table in s.scalars(select(GameTable).order_by(GameTable.id)):
        view = views.table_view(s, table.id)
        number = view["round_number"]  # the round on show, as the live monitor and the players see it
        current = None if number is None else s.scalar(
            select(Round).where(Round.table_id == table.id, Round.number == number))
        in_play: RoundInPlay | None = None
        if current is not None:
            placed = s.execute(select(func.count(Bet.id), func.coalesce(func.sum(Bet.amount), 0),
                                      func.count(func.distinct(Bet.account_id)))
                               .where(Bet.round_id == current.id)).one()
            in_play = {"round": current.number, "status": current.status, "phase": view["phase"],
                       "bets": int(placed[0]),
                       "staked": int(placed[1]), "players": int(placed[2]),
                       "closes_at": aware(current.closes_at).isoformat()}
        seated = s.execute(select(Account.id, Account.username, Seat.number, Seat.away_since)
                           .join(Account, Account.id == Seat.account_id).where(Seat.table_id == table.id)
                           .order_by(Seat.number)).all()
        out.append({"id": table.id, "name": table.name, "game": table.game, "paytable": table.paytable,
                    "decks": table.decks, "status": table.status, "limits": view["limits"],
                    "pending_limits": json.loads(table.pending_limits) if table.pending_limits else None,
                    "seats": [{"seat": row.number, "account_id": row.id, "username": row.username,
                               "away": row.away_since is not None} for row in seated],
                    "round": in_play,
                    "today": today.get(table.id) or {"day": day.isoformat(), "rounds": 0, "bets": 0, "handle": 0,
                                                     "win": 0}})
    return out

