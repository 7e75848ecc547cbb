"""Wallets and the double-entry ledger: the only code that moves money in the database.

Every movement is one :class:`~baccarat.server.models.LedgerTransaction` whose
postings sum to zero.  A wallet's balance changes by a conditional ``UPDATE``
(``balance + amount >= 0``) in the same database transaction, so two
concurrent stakes of a whole balance cannot both pass: the database serializes
them and the second finds too little.  A request with an idempotency key is
answered from its stored result when retried.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from baccarat.errors import ConfigurationError, ConflictError, InsufficientFundsError
from baccarat.money import format_amount
from baccarat.server.models import IdempotentRequest, LedgerTransaction, Posting, Wallet

CASHIER = "cashier"
HOUSE = "house"


def wallet_account(account_id: int) -> str:
    return f"wallet:{account_id}"


def escrow_account(round_id: int) -> str:
    return f"escrow:{round_id}"


def transfer(session: Session, kind: str, postings: Mapping[str, int], *, memo: str = "") -> int:
    """Record one balanced movement and apply it to the wallets it touches; returns its id."""
    if sum(postings.values()) != 0 or not postings:
        raise ConfigurationError(f"postings must sum to zero, got {dict(postings)}")
    entry = LedgerTransaction(kind=kind, memo=memo)
    session.add(entry)
    session.flush()
    for account, amount in postings.items():
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise ConfigurationError("amounts are whole minor units")
        session.add(Posting(transaction_id=entry.id, account=account, amount=amount))
        if account.startswith("wallet:"):
            _apply(session, int(account.split(":", 1)[1]), amount)
    session.flush()
    return entry.id


def _apply(session: Session, account_id: int, amount: int) -> None:
    result = session.execute(
        update(Wallet)
        .where(Wallet.account_id == account_id, Wallet.balance + amount >= 0)
        .values(balance=Wallet.balance + amount)
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        balance = session.scalar(select(Wallet.balance).where(Wallet.account_id == account_id))
        if balance is None:
            raise ConfigurationError(f"no wallet for account {account_id}")
        raise InsufficientFundsError(f"{format_amount(-amount)} is more than the balance of {format_amount(balance)}")


def balance(session: Session, account_id: int) -> int:
    value = session.scalar(select(Wallet.balance).where(Wallet.account_id == account_id))
    if value is None:
        raise ConfigurationError(f"no wallet for account {account_id}")
    return value


def request_hash(body: Any) -> str:
    """A stable hash of a request body (to refuse a key reused for a different request)."""
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def idempotent(session: Session, account_id: int, key: str, body: Any,
               work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run ``work`` once per (account, key): a retry gets the stored answer, a different body a conflict."""
    if not isinstance(key, str) or not 8 <= len(key) <= 128:
        raise ConfigurationError("an idempotency key is 8 to 128 characters")
    digest = request_hash(body)
    stored = session.scalar(select(IdempotentRequest).where(IdempotentRequest.account_id == account_id,
                                                            IdempotentRequest.key == key))
    if stored is not None:
        if stored.request_hash != digest:
            raise ConflictError("this idempotency key was used for a different request")
        answer: dict[str, Any] = json.loads(stored.response)
        return answer
    answer = work()
    session.add(IdempotentRequest(account_id=account_id, key=key, request_hash=digest, response=json.dumps(answer)))
    session.flush()
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
