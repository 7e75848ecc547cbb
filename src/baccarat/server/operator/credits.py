"""A cashier's credits and debits, and the four-eyes rule: a credit above the house's threshold
(``BACCARAT_CREDIT_APPROVAL_ABOVE``) is made only when a second member of staff approves it.

The request is recorded (``request_credit``) and nothing moves; the approval makes the credit with its audit
entry (``credit``, naming who asked and who approved) in one transaction; a rejection moves nothing.  Whoever asked
cannot approve: the second pair of eyes is another account's.

The threshold is on what a player is credited in a day, not on one credit (:func:`needs_approval`): credits split
under it (the attack: any number of 9,999.99 credits to one's own other account) reach it together, as a
casino's cage counts cash by the gaming day.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session
from typing_extensions import TypedDict

from baccarat.core.errors import ConflictError, UnknownSeatError
from baccarat.server.house import audit, wallet
from baccarat.server.storage.clock import now as _now
from baccarat.server.storage.models import Account, CreditRequest, LedgerTransaction, Posting, aware


class CreditAsked(TypedDict):
    """A credit waiting for approval, or decided."""

    id: int
    account_id: int
    player: str
    amount: int
    memo: str
    requested_by: str
    requested_at: str
    state: str
    decided_by: str | None
    decided_at: str | None
    transaction_id: int | None


#: How far back a player's credits count toward the approval threshold.
CREDIT_DAY = timedelta(hours=24)


def needs_approval(s: Session, account_id: int, amount: int, approval_above: int) -> bool:
    """Whether crediting ``amount`` to ``account_id`` now needs a second member of staff: with the credits the
    player was given in the last :data:`CREDIT_DAY` it passes ``approval_above``.  The player's wallet is held
    first, so two credits at once are counted one after the other."""
    wallet.hold_shown_balance(s, account_id, _now())
    given = s.scalar(select(func.coalesce(func.sum(Posting.amount), 0))
                     .join(LedgerTransaction, LedgerTransaction.id == Posting.transaction_id)
                     .where(Posting.account == wallet.wallet_account(account_id), LedgerTransaction.kind == "credit",
                            LedgerTransaction.created_at >= _now() - CREDIT_DAY)) or 0
    return int(given) + amount > approval_above


def moved(s: Session, actor: Account | str, account_id: int, amount: int, *, memo: str = "",
          approval: dict[str, object] | None = None) -> tuple[int, int]:
    """Move ``amount`` between the cashier and the wallet (credit > 0, debit < 0) with its audit entry; the
    wallet's new balance and the movement's id."""
    kind = "credit" if amount > 0 else "debit"
    before = wallet.balance(s, account_id)
    movement = wallet.transfer(s, kind, {wallet.CASHIER: -amount, wallet.wallet_account(account_id): amount},
                               memo=memo)
    after = wallet.balance(s, account_id)
    audit.record(s, actor, kind, f"account {account_id}", {"balance": before},
                 {"balance": after, "amount": abs(amount), "memo": memo, **(approval or {})}, movement=movement)
    return after, movement


def ask(s: Session, actor: Account | str, player: Account, amount: int, *, memo: str = "") -> int:
    """Record a credit to be approved; its id."""
    if not isinstance(actor, Account):
        raise ConflictError.coded("credit.needs_staff")
    request = CreditRequest(account_id=player.id, amount=amount, memo=memo, requested_by=actor.id,
                            requested_at=_now(), state="pending")
    s.add(request)
    s.flush()
    audit.record(s, actor, "request_credit", f"account {player.id}", {},
                 {"request": request.id, "amount": amount, "memo": memo})
    return request.id


def _shown(s: Session, request: CreditRequest) -> CreditAsked:
    names = dict(s.execute(select(Account.id, Account.username).where(Account.id.in_(
        {request.account_id, request.requested_by} | ({request.decided_by} if request.decided_by else set())))).all())
    return {"id": request.id, "account_id": request.account_id, "player": names[request.account_id],
            "amount": request.amount, "memo": request.memo, "requested_by": names[request.requested_by],
            "requested_at": aware(request.requested_at).isoformat(), "state": request.state,
            "decided_by": names.get(request.decided_by) if request.decided_by else None,
            "decided_at": aware(request.decided_at).isoformat() if request.decided_at else None,
            "transaction_id": request.transaction_id}


def waiting(s: Session) -> list[CreditAsked]:
    """The credits waiting for approval, oldest first."""
    return [_shown(s, r) for r in s.scalars(select(CreditRequest).where(CreditRequest.state == "pending")
                                            .order_by(CreditRequest.id))]


def _pending(s: Session, actor: Account, request_id: int) -> CreditRequest:
    # locked: two approvers at once make one credit (the second finds it decided)
    request = s.scalar(select(CreditRequest).where(CreditRequest.id == request_id).with_for_update()
                       .execution_options(populate_existing=True))
    if request is None:
        raise UnknownSeatError.coded("credit.unknown", request=request_id)
    if request.state != "pending":
        raise ConflictError.coded("credit.decided", request=request_id, state=request.state)
    if request.requested_by == actor.id:
        raise ConflictError.coded("credit.own_request")
    return request


def approve(s: Session, actor: Account, request_id: int) -> CreditAsked:
    """Make the credit asked for, recorded with who asked and who approved."""
    request = _pending(s, actor, request_id)
    asker = s.get(Account, request.requested_by)
    request.state, request.decided_by, request.decided_at = "approved", actor.id, _now()
    approval: dict[str, object] = {"request": request.id, "requested_by": asker.username if asker else None}
    _, request.transaction_id = moved(s, actor, request.account_id, request.amount, memo=request.memo,
                                      approval=approval)
    return _shown(s, request)


def reject(s: Session, actor: Account, request_id: int) -> CreditAsked:
    """Refuse the credit asked for: nothing moves."""
    request = _pending(s, actor, request_id)
    request.state, request.decided_by, request.decided_at = "rejected", actor.id, _now()
    audit.record(s, actor, "reject_credit", f"account {request.account_id}", {"request": request.id},
                 {"amount": request.amount})
    return _shown(s, request)
