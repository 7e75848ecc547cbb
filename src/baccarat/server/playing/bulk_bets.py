"""The bets of a group commit (the sockets' commands) placed together: a few set-based statements for the whole batch.

A bet alone costs about fifteen statements (its token, idempotency key, table and round, the round's
lock, seat, the bets on the layout, the stake's ledger movement, the wallet, the bet, the client seed,
the pending payouts, the stored answer, its savepoint), and at a burst the statements, not the
database, set the pace.  Here the bets of a batch are read once for all (the tokens, the stored
answers, the table and its round, held once, the seats, the bets on the layout, the wallets, locked
in one order, the pending payouts), checked one after another in Python by the functions
:func:`baccarat.server.playing.betting.place_bets` checks a bet alone with (the round's window,
:func:`~baccarat.server.playing.betting.check_window`; the stake rule, :func:`baccarat.core.stakes.check_stakes`,
against each wallet's running shown balance), and written with one statement per table of rows (executemany): one
ledger movement per bet as ever and the wallets (:func:`baccarat.server.house.wallet.stake_many`), the bets
(:func:`~baccarat.server.playing.betting.bet_rows`), the client seeds, the stored answers.

What is not the common case runs alone as before (:func:`baccarat.server.storage.group_commit.run_one`, its own
savepoint), every command of its player in order: a player with a protection row (limits and
breaks are counted under that row's lock, :func:`baccarat.server.house.protection.own_limits`), a command
that is not a bet, a table that is not punto banco or has no round taking bets.  Players are
independent of one another (a bet reads and writes only its own player's key, wallet, bets and
seed; the round is held for the whole transaction), so the outcomes are those of the commands run
one by one (``tests/server/playing/test_bulk_bets.py`` pins a batch's answers and books, through this path and
through each command alone, on both databases).  If a bulk write fails for any reason but a lost race (which retries the
batch), its savepoint is rolled back and every command runs alone.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import lru_cache
from typing import Any, Protocol, TypedDict, cast

from sqlalchemy import Select, and_, bindparam, func, select
from sqlalchemy import Table as SqlTable
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from baccarat.core.errors import ConfigurationError, ConflictError
from baccarat.core.registry import get_game
from baccarat.core.stakes import check_stakes, fee_for, fees_of
from baccarat.server.house import wallet
from baccarat.server.playing import betting, fairness, tables
from baccarat.server.playing.betting import BetAnswer
from baccarat.server.playing.game_info import stored_limits
from baccarat.server.storage import db, metrics, notify
from baccarat.server.storage.db import retryable
from baccarat.server.storage.group_commit import Command, Outcome, run_one
from baccarat.server.storage.models import (
    Account,
    Bet,
    IdempotentRequest,
    Protection,
    Seat,
    Settlement,
    ShoeSeed,
    Token,
    Wallet,
    aware,
)
from baccarat.server.storage.models import now as _now

log = logging.getLogger(__name__)


#: A command frame as the client sent it: any JSON object, so its values are truly arbitrary (each field is
#: checked where it is read: :func:`bet_frame`, :func:`frame_round`).
CommandFrame = dict[str, Any]


class _AnswerRow(TypedDict):
    account_id: int
    key: str
    request_hash: str
    response: str
    created_at: datetime


class BetCommand(Protocol):
    """A socket's command (:class:`baccarat.server.live.sockets.SocketCommand`): callable alone, and its fields."""

    table_id: int
    account_id: int
    digest: str
    frame: CommandFrame
    received: datetime

    def __call__(self, s: Session) -> Any: ...


def bet_frame(frame: CommandFrame) -> tuple[dict[str, int], int | None]:
    """A bet command's bets and the round named (or None), refused in the player's words when malformed."""
    bets = frame.get("bets")
    if not isinstance(bets, dict) or not all(isinstance(k, str) and type(v) is int for k, v in bets.items()):
        raise ConfigurationError.coded("command.bets")
    return bets, frame_round(frame, "command.bets_round")


def frame_round(frame: CommandFrame, refusal: str) -> int | None:
    """The round a socket command names (or None), refused with the code ``refusal`` when it is not one
    (``command.bets_round``, ``command.decision_round``: what the round is meant for)."""
    number = frame.get("round")
    if number is not None and (type(number) is not int or not 1 <= number <= 2**31 - 1):
        raise ConfigurationError.coded(refusal)
    return number


def _could_be_stored(key: object) -> bool:
    """Whether ``key`` passes :func:`baccarat.server.house.wallet.check_key` (only such keys are looked up)."""
    try:
        wallet.check_key(key)
    except ConfigurationError:
        return False
    return True


def _table(model: Any) -> SqlTable:
    return cast(SqlTable, model.__table__)


_TOKENS, _WALLETS, _REQUESTS, _BETS = _table(Token), _table(Wallet), _table(IdempotentRequest), _table(Bet)
_SEATS, _PROTECTION, _ACCOUNTS, _SEEDS = _table(Seat), _table(Protection), _table(Account), _table(ShoeSeed)
_SETTLEMENTS = _table(Settlement)

@lru_cache(maxsize=4)
def _queries(postgresql: bool) -> dict[str, Select[Any]]:
    """The batch's reads: a list of values is ``= ANY(array)`` on PostgreSQL, ``IN (...)`` elsewhere."""
    def among(column: Any, name: str) -> Any:
        return db.among(column, name, postgresql)
    # FOR KEY SHARE as one command's token check (live._check_signed_in): a logout waits for this transaction
    token_rows = select(_TOKENS.c.token_hash, _TOKENS.c.account_id, _TOKENS.c.expires_at).where(
        among(_TOKENS.c.token_hash, "digests")).with_for_update(read=True, key_share=True)
    protected = select(_PROTECTION.c.account_id).where(
        among(_PROTECTION.c.account_id, "accounts"))
    # every wallet of the batch held at once, in one order (two batches never wait on each other crosswise)
    hold_wallets = (select(_WALLETS.c.account_id, _WALLETS.c.balance)
                    .where(among(_WALLETS.c.account_id, "accounts"))
                    .order_by(_WALLETS.c.account_id).with_for_update())
    seated = select(_SEATS.c.account_id, _SEATS.c.number).where(
        _SEATS.c.table_id == bindparam("table"), among(_SEATS.c.account_id, "accounts"))
    on_layout = select(_BETS.c.account_id, _BETS.c.wager, _BETS.c.amount).where(
        _BETS.c.round_id == bindparam("round"), among(_BETS.c.account_id, "accounts")
    ).order_by(_BETS.c.id)  # in the order placed, as betting.place_bets reads them
    # payouts in the wallets whose result is not shown yet, by the moment it is (each bet's answer is at its own moment)
    ahead = (select(_BETS.c.account_id, _SETTLEMENTS.c.shown_at, func.sum(_BETS.c.amount + _SETTLEMENTS.c.net))
             .select_from(_SETTLEMENTS.join(_BETS, _BETS.c.id == _SETTLEMENTS.c.bet_id))
             .where(_SETTLEMENTS.c.shown_at > bindparam("now"), among(_BETS.c.account_id, "accounts"))
             .group_by(_BETS.c.account_id, _SETTLEMENTS.c.shown_at))
    seeds_set = select(_ACCOUNTS.c.id, _ACCOUNTS.c.client_seed).where(
        among(_ACCOUNTS.c.id, "accounts"), _ACCOUNTS.c.client_seed.is_not(None))
    seeds_taken = select(_SEEDS.c.account_id).where(
        _SEEDS.c.shoe_id == bindparam("shoe"), among(_SEEDS.c.account_id, "accounts"))
    return {"token_rows": token_rows, "protected": protected, "hold_wallets": hold_wallets,
            "seated": seated, "on_layout": on_layout, "ahead": ahead, "seeds_set": seeds_set,
            "seeds_taken": seeds_taken}


def _read(connection: Any, name: str, values: Mapping[str, object]) -> Any:
    return connection.execute(_queries(db.on_postgresql(connection))[name], values)


_STORED_COLUMNS = (_REQUESTS.c.account_id, _REQUESTS.c.key, _REQUESTS.c.request_hash, _REQUESTS.c.response)
#: PostgreSQL: the (account, key) pairs as JSON rows (db.unnested)
_PG_PAIRS = db.unnested(_REQUESTS, ("account_id", "key"))
_STORED_PG = select(*_STORED_COLUMNS).select_from(_PG_PAIRS.join(
    _REQUESTS, and_(_REQUESTS.c.account_id == _PG_PAIRS.c.account_id, _REQUESTS.c.key == _PG_PAIRS.c.key)))
#: SQLite: the pairs as one JSON parameter, walked with json_each
_SQLITE_PAIRS = func.json_each(bindparam("pairs")).table_valued("value").alias("wanted")
_STORED_SQLITE = select(*_STORED_COLUMNS).select_from(_SQLITE_PAIRS.join(_REQUESTS, and_(
    _REQUESTS.c.account_id == func.json_extract(_SQLITE_PAIRS.c.value, "$[0]"),
    _REQUESTS.c.key == func.json_extract(_SQLITE_PAIRS.c.value, "$[1]"))))


def _stored(connection: Any, pairs: list[tuple[int, str]]) -> Any:
    """The stored answers of the ``pairs`` (account, idempotency key): one index look-up per pair, in a
    statement compiled once whatever the batch's size.

    Not ``account_id IN (...) AND key IN (...)``: on the (account, key) index SQLite probes every
    combination of the two lists (n bets: n² look-ups); nor a ``VALUES`` list, which SQLAlchemy compiles anew
    for every batch (a large part of the batch's time)."""
    if not pairs:
        return []
    if db.on_postgresql(connection):
        return connection.execute(_STORED_PG, db.given([{"account_id": a, "key": k} for a, k in pairs]))
    return connection.execute(_STORED_SQLITE, {"pairs": json.dumps(pairs)})


class _Betting:
    """What a batch needs of one table: its row (:func:`betting.betting_row`), game, limits, seats, layout."""

    def __init__(self, row: Any, seats: dict[int, int], placed: dict[int, dict[str, int]]) -> None:
        self.row, self.seats, self.placed = row, seats, placed
        self.game = get_game(row.game, paytable=row.paytable)
        self.limits = stored_limits(row.game, row.paytable, row.limits)


def run_batch(s: Session, commands: list[Command], *, signed_out: Callable[[], Exception]) -> list[Outcome]:
    """One outcome per command, in order, as if each had run alone in its savepoint (see the module).
    ``signed_out`` makes the refusal of a command whose session token is gone."""
    outcomes: list[Outcome | None] = [None] * len(commands)
    bulk = _bulk_commands(s, commands)
    if bulk:
        try:
            with s.begin_nested():
                for index, outcome in _place(s, [(i, cast(BetCommand, commands[i])) for i in bulk],
                                             signed_out).items():
                    outcomes[index] = outcome
        except DBAPIError as error:
            if retryable(error):
                raise  # the whole batch again
            log.exception("bulk bets failed: each bet of the batch runs alone")
            outcomes = [None] * len(commands)  # nothing of the bulk write stayed: each command alone
        except Exception:
            log.exception("bulk bets failed: each bet of the batch runs alone")
            outcomes = [None] * len(commands)
    return [outcome if outcome is not None else run_one(s, command)
            for outcome, command in zip(outcomes, commands, strict=True)]


def _bulk_commands(s: Session, commands: list[Command]) -> list[int]:
    """The indexes of the commands placed together: bets on open punto banco rounds (held here until the
    commit) of players without a protection row, all of whose commands in the batch are such bets."""
    if not all(all(hasattr(c, name) for name in ("table_id", "account_id", "frame", "received", "digest"))
               for c in commands):
        return []  # a command of another kind could touch anyone's money: everything alone, in order
    fields = [(i, cast(BetCommand, c)) for i, c in enumerate(commands)]
    open_tables = {table_id for table_id in sorted({c.table_id for _, c in fields}) if _open_punto_banco(s, table_id)}
    alone = set(_read(s.connection(), "protected", {"accounts": sorted({c.account_id for _, c in fields})}).scalars())
    alone |= {c.account_id for _, c in fields if c.table_id not in open_tables or c.frame.get("type") != "bet"}
    return [i for i, c in fields if c.account_id not in alone]


def _open_punto_banco(s: Session, table_id: int) -> bool:
    """Whether the table has a punto banco round taking bets, now held against the dealer (FOR SHARE)."""
    known: dict[int, Any] = s.info.setdefault("betting_rows", {})  # shared with betting.place_bets
    row = known.get(table_id) or betting.betting_row(s.connection(), table_id)
    if row is None or row.id is None or get_game(row.game, paytable=row.paytable).kind != "punto_banco":
        return False
    if not betting.hold_round(s, row.id, "betting"):
        known.pop(table_id, None)
        return False
    known[table_id] = row
    return True


def _place(s: Session, batch: list[tuple[int, BetCommand]], signed_out: Callable[[], Exception]
           ) -> dict[int, Outcome]:
    """Check every bet of ``batch`` in order against the state read once, then write the accepted ones."""
    connection = s.connection()
    accounts = sorted({c.account_id for _, c in batch})
    tokens = {row.token_hash: row for row in _read(connection, "token_rows",
                                                   {"digests": sorted({c.digest for _, c in batch})})}
    balances: dict[int, int] = {account: int(balance) for account, balance in
                                _read(connection, "hold_wallets", {"accounts": accounts})}
    # read with the wallets held: the keys, bets and balances of every bet of these players that committed
    # before (another process's bets of theirs stake their wallets too, so they are all in or all waiting)
    # only keys a bet could have been stored under: one holding NUL would fail the statement on PostgreSQL and
    # move the whole batch off this path (its command is refused by wallet.check_key in _one)
    pairs = sorted({(c.account_id, c.frame["key"]) for _, c in batch if _could_be_stored(c.frame.get("key"))})
    stored: dict[tuple[int, str], tuple[str, str]] = {
        (row.account_id, row.key): (row.request_hash, row.response) for row in _stored(connection, pairs)}
    known: dict[int, Any] = s.info["betting_rows"]
    betting: dict[int, _Betting] = {}
    for table_id in sorted({c.table_id for _, c in batch}):
        row = known[table_id]
        players = sorted({c.account_id for _, c in batch if c.table_id == table_id})
        placed: dict[int, dict[str, int]] = defaultdict(dict)
        for account, wager, amount in _read(connection, "on_layout", {"round": row.id, "accounts": players}):
            placed[account][wager] = int(amount)
        seats = dict(_read(connection, "seated", {"table": table_id, "accounts": players}).all())
        betting[table_id] = _Betting(row, {a: int(n) for a, n in seats.items()}, placed)
    earliest = min(c.received for _, c in batch)
    ahead: dict[int, list[tuple[datetime, int]]] = defaultdict(list)
    for account, shown_at, amount in _read(connection, "ahead", {"now": earliest, "accounts": accounts}):
        ahead[account].append((aware(shown_at), int(amount or 0)))
    signed_in_at = _now()  # the steady clock, as live._check_signed_in

    outcomes: dict[int, Outcome] = {}
    writes = _Writes()
    for index, command in batch:
        try:
            token = tokens.get(command.digest)
            if token is None or token.account_id != command.account_id or aware(token.expires_at) <= signed_in_at:
                raise signed_out()
            outcomes[index] = (True, _one(command, betting[command.table_id], stored, balances, ahead, writes,
                                          connection))
        except DBAPIError:
            raise  # not a refusal: the bulk write's savepoint goes, and the batch runs alone or again
        except Exception as error:  # this bet's refusal: nothing of it was written
            outcomes[index] = (False, error)
    writes.run(s)
    return outcomes


class _Writes:
    """The accepted bets' rows, written at the end with one statement each (executemany)."""

    def __init__(self) -> None:
        self.stakes: list[tuple[int, str, int, str]] = []  #: (account, escrow, amount, memo): wallet.stake_many
        self.new_bets: dict[tuple[int, int, str], betting.NewBet] = {}  # in the order first placed
        self.added: dict[tuple[int, int, str], int] = defaultdict(int)
        self.answers: list[_AnswerRow] = []
        self.seeds: dict[int, set[int]] = defaultdict(set)  # shoe -> accounts whose seed it may take
        self.tables: set[int] = set()
        self.staked: dict[int, int] = defaultdict(int)  # table -> chips staked (counted once committed)

    def run(self, s: Session) -> None:
        connection = s.connection()
        if not self.stakes:
            return
        metrics.after_commit(s, metrics.count_money(metrics.STAKES, self.staked))  # dropped if the savepoint goes
        wallet.stake_many(s, self.stakes)  # the ledger movements and the wallets: the house's to write
        betting.add_to_bets(connection, [{"round": r, "account": a, "code": code, "added": amount}
                                         for (r, a, code), amount in self.added.items()])
        db.insert_rows(connection, _BETS, list(self.new_bets.values()))
        for shoe, players in self.seeds.items():  # before the shoe's first deal: the players' seeds go in
            taken = set(_read(connection, "seeds_taken", {"shoe": shoe, "accounts": sorted(players)}).scalars())
            if players - taken:
                db.insert_rows(connection, _SEEDS, [{"shoe_id": shoe, "account_id": account, "seed": seed}
                                                    for account, seed in _read(connection, "seeds_set", {
                                                        "accounts": sorted(players - taken)})])
        db.insert_rows(connection, _REQUESTS, self.answers)
        for table_id in sorted(self.tables):
            notify.changed(s, table_id)


def _one(command: BetCommand, table: _Betting, stored: dict[tuple[int, str], tuple[str, str]],
         balances: dict[int, int], ahead: dict[int, list[tuple[datetime, int]]], writes: _Writes,
         connection: Any) -> BetAnswer:
    """One bet, checked in the order and words of commands.run, wallet.idempotent and betting.place_bets."""
    account, frame, now = command.account_id, command.frame, command.received
    key = frame.get("key")
    if not isinstance(key, str):
        raise ConfigurationError.coded("command.key_missing")
    bets, number = bet_frame(frame)
    wallet.check_key(key)
    digest = wallet.request_hash(betting.bet_request(command.table_id, bets, number))
    answered = stored.get((account, key))
    if answered is not None:
        if answered[0] != digest:
            raise ConflictError.coded("request.idempotency_key_reused")
        return cast(BetAnswer, json.loads(answered[1]))  # the answer stored for this key
    if not bets:
        raise ConfigurationError.coded("bet.malformed")
    row = table.row
    betting.check_window(connection, row, command.table_id, now, number)
    seat = table.seats.get(account) or tables.NO_SEAT
    placed = table.placed[account]
    have = balances.get(account)
    if have is None:
        raise ConfigurationError(f"no wallet for account {account}")
    unshown = sum(amount for at, amount in ahead.get(account, ()) if at > now)
    # the spendable balance is the shown one (wallet.hold_shown_balance); these players have no own limits
    together = check_stakes(table.game, table.limits, placed, bets, balance=max(have - unshown, 0))
    total = sum(bets.values()) + fee_for(table.game, placed, bets)  # the stakes and their fees, as place_bets
    balance = balances[account] = have - total
    balance_before = balance + total + sum(placed.values()) + fees_of(table.game, placed)
    writes.stakes.append((account, wallet.escrow_account(row.id), total, f"table {row.name} round {row.number}"))
    writes.staked[command.table_id] += sum(bets.values())  # (the metric counts stakes, not fees)
    new, added = betting.bet_rows(row.id, account, seat, placed, bets, balance_before=balance_before)
    for bet in new:
        writes.new_bets[(row.id, account, bet["wager"])] = bet
    for chips in added:
        spot = (row.id, account, chips["code"])
        if spot in writes.new_bets:  # first placed in this batch: its row is not written yet
            writes.new_bets[spot]["amount"] += chips["added"]
        else:
            writes.added[spot] += chips["added"]
    if fairness.takes_seeds(row.algorithm, row.client_seeds):
        writes.seeds[row.shoe_id].add(account)
    writes.tables.add(command.table_id)
    table.placed[account] = together
    shown = balance - unshown
    answer: BetAnswer = {"table": command.table_id, "round": row.number, "seat": seat or None, "bets": together,
              "added": dict(bets), "balance": shown}
    text = json.dumps(answer)
    stored[(account, key)] = (digest, text)
    writes.answers.append({"account_id": account, "key": key, "request_hash": digest, "response": text,
                           "created_at": _now()})
    return answer
