"""Wallets and the double-entry ledger: the only code that moves money in the database.

Every movement is one :class:`~baccarat.server.storage.models.LedgerTransaction` whose
postings sum to zero.  A wallet's balance changes by a conditional ``UPDATE``
(``balance + amount >= 0``) in the same database transaction, so two
concurrent stakes of a whole balance cannot both pass: the database serializes
them and the second finds too little.  A request with an idempotency key is
answered from its stored result when retried.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar, cast

from sqlalchemy import Table, bindparam, func, insert, select, update
from sqlalchemy.orm import Session

from baccarat.core.errors import ConfigurationError, ConflictError, InsufficientFundsError
from baccarat.core.text import storable
from baccarat.server.storage.db import among, given, insert_rows, new_ids, on_postgresql, unnested
from baccarat.server.storage.models import Bet, IdempotentRequest, LedgerTransaction, Posting, Settlement, Wallet, now
from baccarat.server.storage.models import now as _now

CASHIER = "cashier"
HOUSE = "house"
#: An answer stored for its idempotency key: a JSON object (a bet's or decision's answer, a balance).
Answer = TypeVar("Answer", bound=Mapping[str, object])


def wallet_account(account_id: int) -> str:
    return f"wallet:{account_id}"


def escrow_account(round_id: int) -> str:
    return f"escrow:{round_id}"


_ENTRIES = cast(Table, LedgerTransaction.__table__)
_POSTINGS = cast(Table, Posting.__table__)
_WALLETS = cast(Table, Wallet.__table__)
_REQUESTS = cast(Table, IdempotentRequest.__table__)
# Core statements built once: a bet moves money many times a second, and the ORM's per-statement
# work was most of a bet's cost (see benchmarks/server_load.py).
_NEW_ENTRY = insert(_ENTRIES).returning(_ENTRIES.c.id)
_APPLY = (update(_WALLETS)
          .where(_WALLETS.c.account_id == bindparam("wallet"), _WALLETS.c.balance + bindparam("delta") >= 0)
          .values(balance=_WALLETS.c.balance + bindparam("delta"))
          .returning(_WALLETS.c.balance))
#: Credits never take a wallet below zero: a movement touching more wallets than BULK credits them in one
#: statement (a round's settlement pays thousands of bettors at once): an executemany, and on PostgreSQL the
#: wallets and amounts as one JSON parameter (see db.unnested)
_CREDIT = (update(_WALLETS).where(_WALLETS.c.account_id == bindparam("wallet"))
           .values(balance=_WALLETS.c.balance + bindparam("delta")))
_CREDITS = unnested(_WALLETS, ("account_id", "balance"))
_CREDIT_PG = (update(_WALLETS).where(_WALLETS.c.account_id == _CREDITS.c.account_id)
              .values(balance=_WALLETS.c.balance + _CREDITS.c.balance))
BULK = 8
_BALANCES = {postgresql: select(_WALLETS.c.account_id, _WALLETS.c.balance).where(
    among(_WALLETS.c.account_id, "wallets", postgresql)) for postgresql in (False, True)}
_BALANCE = select(_WALLETS.c.balance).where(_WALLETS.c.account_id == bindparam("wallet"))
_STORED = select(_REQUESTS.c.request_hash, _REQUESTS.c.response).where(
    _REQUESTS.c.account_id == bindparam("account"), _REQUESTS.c.key == bindparam("key"))
_NEW_REQUEST = insert(_REQUESTS)


def transfer(session: Session, kind: str, postings: Mapping[str, int], *, memo: str = "",
             balances: dict[int, int] | None = None) -> int:
    """Record one balanced movement and apply it to the wallets it touches; returns its id.  A given
    ``balances`` gets the new balance of each wallet debited (a bet's answer needs it: no second read).

    Raises :class:`InsufficientFundsError` when a wallet would go negative (the caller's
    transaction is then rolled back, so nothing of the movement remains).
    """
    if not postings or sum(postings.values()) != 0:
        raise ConfigurationError(f"postings must sum to zero, got {dict(postings)}")
    if not all(isinstance(amount, int) and not isinstance(amount, bool) for amount in postings.values()):
        raise ConfigurationError("amounts are whole minor units")
    session.flush()  # rows this movement refers to (a new wallet) are written first
    connection = session.connection()
    entry: int = connection.execute(_NEW_ENTRY, {"kind": kind, "memo": memo, "created_at": now()}).scalar_one()
    credits = []
    for account, amount in postings.items():
        if account.startswith("wallet:"):
            if amount >= 0 and len(postings) > BULK:
                credits.append({"wallet": int(account.split(":", 1)[1]), "delta": amount})
            else:
                owner = int(account.split(":", 1)[1])
                after = _apply(session, owner, amount)
                if balances is not None:
                    balances[owner] = after
    if credits:  # a round's settlement: every winner's wallet in one statement, in one order (no deadlock)
        credits.sort(key=lambda row: row["wallet"])
        if on_postgresql(connection):  # each wallet once (the postings' keys), as db.unnested asks
            done = connection.execute(_CREDIT_PG, given([{"account_id": row["wallet"], "balance": row["delta"]}
                                                         for row in credits])).rowcount
        else:
            done = connection.execute(_CREDIT, credits).rowcount
        if done not in (-1, len(credits)):  # a wallet that is not there: nothing of the movement may stay
            raise ConfigurationError(f"{len(credits) - done} of the wallets credited do not exist")
    # The postings are written once their wallets are held (the UPDATE above locks them until the commit):
    # a wallet's postings are then numbered in the order its balance changed, so a player's history
    # (GET /api/history/export) follows the balance movement by movement, even with concurrent movements.
    insert_rows(connection, _POSTINGS, [{"transaction_id": entry, "account": account, "amount": amount}
                                        for account, amount in postings.items()])
    return entry


_NEW_ENTRIES = insert(_ENTRIES).returning(_ENTRIES.c.id, sort_by_parameter_order=True)
_DEBIT = (update(_WALLETS)
          .where(_WALLETS.c.account_id == bindparam("wallet"), _WALLETS.c.balance >= bindparam("total"))
          .values(balance=_WALLETS.c.balance - bindparam("total")))
#: PostgreSQL: every wallet's debit in one statement, the wallets and totals as JSON rows (db.unnested)
_DEBITS = unnested(_WALLETS, ("account_id", "balance"))
_DEBIT_PG = (update(_WALLETS)
             .where(_WALLETS.c.account_id == _DEBITS.c.account_id, _WALLETS.c.balance >= _DEBITS.c.balance)
             .values(balance=_WALLETS.c.balance - _DEBITS.c.balance))


def stake_many(session: Session, stakes: Sequence[tuple[int, str, int, str]]) -> None:
    """Many stakes at once, each ``(account, escrow, amount, memo)`` its own ledger movement (the wallet to the
    round's escrow), written with one statement per table of rows: a group commit's bets.

    The caller holds every wallet (``SELECT ... FOR UPDATE``, in one order) and has checked each stake against
    the balance shown (:func:`baccarat.core.stakes.check_stakes`), so no wallet can go short here; if one did,
    nothing of the movements may stay: raised, and the caller's savepoint is rolled back."""
    if not stakes:
        return
    connection = session.connection()
    created = now()
    entries = [{"kind": "stake", "memo": memo, "created_at": created} for _, _, _, memo in stakes]
    totals: dict[int, int] = {}
    for account, _, amount, _ in stakes:
        totals[account] = totals.get(account, 0) + amount
    debits = sorted(totals.items())
    if on_postgresql(connection):  # every table's rows in one statement (see db.insert_rows)
        ids = new_ids(connection, _ENTRIES, len(entries))
        insert_rows(connection, _ENTRIES, [{"id": entry, **row} for entry, row in zip(ids, entries, strict=True)])
        done = connection.execute(_DEBIT_PG, given([{"account_id": account, "balance": total}
                                                    for account, total in debits])).rowcount
    else:
        ids = [row[0] for row in connection.execute(_NEW_ENTRIES, entries)]
        done = connection.execute(_DEBIT, [{"wallet": account, "total": total} for account, total in debits]
                                  ).rowcount
    if done not in (-1, len(debits)):  # the wallets were held and checked: this cannot happen
        raise ConfigurationError(f"{len(debits) - done} wallets could not be debited")
    insert_rows(connection, _POSTINGS, [{"transaction_id": entry, "account": account, "amount": amount}
                                        for entry, (owner, escrow, total, _) in zip(ids, stakes, strict=True)
                                        for account, amount in ((wallet_account(owner), -total), (escrow, total))])


def _apply(session: Session, account_id: int, amount: int) -> int:
    changed = session.connection().execute(_APPLY, {"wallet": account_id, "delta": amount}).scalar_one_or_none()
    if changed is None:
        have = balance(session, account_id)  # raises when there is no wallet at all
        raise InsufficientFundsError.coded("wallet.short", amount=-amount, balance=have)
    return int(changed)


def balances(session: Session, account_ids: Collection[int]) -> list[tuple[int, int]]:
    """(account id, balance) of each of these accounts that has a wallet."""
    connection = session.connection()
    rows = connection.execute(_BALANCES[on_postgresql(connection)], {"wallets": list(account_ids)})
    return [(account_id, int(value)) for account_id, value in rows]


def balance(session: Session, account_id: int) -> int:
    value = session.connection().execute(_BALANCE, {"wallet": account_id}).scalar_one_or_none()
    if value is None:
        raise ConfigurationError(f"no wallet for account {account_id}")
    return int(value)


def request_hash(body: Any) -> str:
    """A stable hash of a request body (to refuse a key reused for a different request)."""
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def check_key(key: Any) -> None:
    """Refuse an idempotency key that is not 8 to 128 characters, or holds text that cannot be stored
    (NUL, an unpaired surrogate: :mod:`baccarat.core.text`), before any statement looks it up.  The edges
    refuse such text first (the HTTP header, the socket frame); this keeps a key from any other caller from
    reaching PostgreSQL, which would fail the whole transaction rather than this one request."""
    if not isinstance(key, str) or not 8 <= len(key) <= 128:
        raise ConfigurationError.coded("request.idempotency_key")
    if not storable(key):
        raise ConfigurationError.coded("request.bad_text", field="key")


def idempotent(session: Session, account_id: int, key: str, body: Any,
               work: Callable[[], Answer]) -> Answer:
    """Run ``work`` once per (account, key): a retry gets the stored answer, a different body a conflict."""
    check_key(key)
    digest = request_hash(body)
    connection = session.connection()
    stored = connection.execute(_STORED, {"account": account_id, "key": key}).first()
    if stored is not None:
        if stored.request_hash != digest:
            raise ConflictError.coded("request.idempotency_key_reused")
        return cast(Answer, json.loads(stored.response))  # the JSON of the answer ``work`` gave for this key
    answer = work()
    connection.execute(_NEW_REQUEST, {"account_id": account_id, "key": key, "request_hash": digest,
                                      "response": json.dumps(answer), "created_at": now()})
    return answer


def check_ledger(session: Session) -> dict[str, int]:
    """Ledger drift, all zero when the books are right.

    ``total``: sum of all postings; ``unbalanced``: transactions whose postings
    do not sum to zero; ``wallets``: sum over wallets of |stored balance - postings|.
    """
    total = session.scalar(select(func.coalesce(func.sum(Posting.amount), 0))) or 0
    per_transaction = select(Posting.transaction_id).group_by(Posting.transaction_id).having(
        func.sum(Posting.amount) != 0)
    unbalanced = len(session.scalars(per_transaction).all())
    posted = dict(session.execute(select(Posting.account, func.sum(Posting.amount))
                                  .where(Posting.account.like("wallet:%")).group_by(Posting.account)).all())
    drift = 0
    for account_id, stored in session.execute(select(Wallet.account_id, Wallet.balance)).all():
        drift += abs(stored - int(posted.get(wallet_account(account_id), 0)))
    return {"total": int(total), "unbalanced": unbalanced, "wallets": drift}


# --- the shown balance: what the player has been shown -------------------------------------------

_BET_ROWS = cast(Table, Bet.__table__)
_SETTLEMENT_ROWS = cast(Table, Settlement.__table__)
#: Payouts already in the wallets but not shown yet (their result is still to come).
_AHEAD = {postgresql: (select(_BET_ROWS.c.account_id, func.sum(_BET_ROWS.c.amount + _SETTLEMENT_ROWS.c.net))
                       .select_from(_SETTLEMENT_ROWS.join(_BET_ROWS, _BET_ROWS.c.id == _SETTLEMENT_ROWS.c.bet_id))
                       .where(_SETTLEMENT_ROWS.c.shown_at > bindparam("now"),
                              among(_BET_ROWS.c.account_id, "accounts", postgresql))
                       .group_by(_BET_ROWS.c.account_id)) for postgresql in (False, True)}


def pending_payouts(s: Session, account_ids: Iterable[int], now: datetime) -> dict[int, int]:
    """Account -> what its wallet already holds from results not shown by ``now``."""
    accounts = list(account_ids)
    if not accounts:
        return {}
    connection = s.connection()
    rows = connection.execute(_AHEAD[on_postgresql(connection)], {"now": now, "accounts": accounts})
    return {account_id: int(amount) for account_id, amount in rows if amount}


def shown_balances(s: Session, account_ids: Iterable[int], now: datetime | None = None) -> dict[int, int]:
    """Each account's balance as shown at ``now``: its wallet less the payouts whose result is still
    to be shown (stakes leave the balance at once; winnings arrive with the result), never below zero
    (an operator's debit can take what a result not yet shown will bring)."""
    accounts = list(account_ids)
    ahead = pending_payouts(s, accounts, now or _now())
    return {account_id: max(balance - ahead.get(account_id, 0), 0) for account_id, balance in balances(s, accounts)}


_HOLD = select(_WALLETS.c.balance).where(_WALLETS.c.account_id == bindparam("wallet")).with_for_update()


def hold_shown_balance(s: Session, account_id: int, now: datetime) -> int:
    """Hold the player's wallet until this transaction ends (the player's other bets queue behind it) and return
    what they may stake: the balance shown at ``now``, read once the row is held (so a settlement that
    commits meanwhile is counted both in the balance and in what is not shown yet)."""
    held = s.connection().execute(_HOLD, {"wallet": account_id}).scalar_one_or_none()
    if held is None:
        raise ConfigurationError(f"no wallet for account {account_id}")
    return max(int(held) - pending_payouts(s, [account_id], now).get(account_id, 0), 0)


def shown_balance(s: Session, account_id: int, now: datetime | None = None) -> int:
    """The account's balance as shown at ``now`` (:func:`shown_balances`)."""
    return max(balance(s, account_id) - pending_payouts(s, [account_id], now or _now()).get(account_id, 0), 0)


def stake(s: Session, account_id: int, escrow: str, amount: int, *, memo: str, now: datetime,
          shown_before: int | None = None) -> tuple[int, int]:
    """Move ``amount`` from the player's wallet to ``escrow`` (a round's); returns the wallet's balance
    after it and the balance shown after it.

    What a player may spend is the balance they have been shown: winnings already in the wallet whose
    result the table has not shown yet can be neither staked nor named.  A stake over the shown balance
    is refused (``wallet.short``, naming the shown balance) and moves nothing.  The shown balance is read
    after the wallet's row is held (the transfer's ``UPDATE``), so a settlement that commits meanwhile is
    counted both in the balance and in what is not shown yet.  ``shown_before`` is that balance as
    :func:`hold_shown_balance` read it in this transaction: the wallet has been held since, so nothing shown
    or pending has changed, and the balance shown after is it less ``amount``, with no second read.
    """
    after: dict[int, int] = {}
    try:
        transfer(s, "stake", {wallet_account(account_id): -amount, escrow: amount}, memo=memo, balances=after)
    except InsufficientFundsError:
        shown_now = shown_balance(s, account_id, now)
        # nothing left to stake: say the balance is used up, not "more than the balance of 0.00"
        raise (InsufficientFundsError.coded("bet.balance_used_up", amount=amount) if shown_now <= 0
               else InsufficientFundsError.coded("wallet.short", amount=amount, balance=shown_now)) from None
    shown = (shown_before - amount if shown_before is not None
             else after[account_id] - pending_payouts(s, [account_id], now).get(account_id, 0))
    if shown < 0:  # the transaction is rolled back by the caller's refusal: nothing moved
        raise (InsufficientFundsError.coded("bet.balance_used_up", amount=amount) if shown + amount <= 0
               else InsufficientFundsError.coded("wallet.short", amount=amount, balance=shown + amount))
    return after[account_id], shown
