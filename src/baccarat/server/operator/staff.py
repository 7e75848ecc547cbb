"""The administrator's work: the staff's accounts and their roles (:mod:`baccarat.server.house.roles`), each
change written to the audit trail in its own transaction.

An account becomes staff only when it could never play again by accident: its wallet empty, no seat held or
asked for, no bet on a round in play (a settlement would pay a staff wallet).  A role changed ends the account's
sessions, so its sockets close and its next request is made with the new role.  Nobody changes their own role:
an administrator is made or unmade by another one, so the house always keeps one.
"""

from __future__ import annotations

from sqlalchemy import delete, exists, select
from sqlalchemy.orm import Session
from typing_extensions import TypedDict

from baccarat.core.errors import ConfigurationError, ConflictError, UnknownSeatError
from baccarat.server.house import audit, roles, wallet
from baccarat.server.storage import notify
from baccarat.server.storage.models import Account, Bet, Round, Seat, SeatRequest, Token, aware


class StaffMember(TypedDict):
    """A staff account as the administrator's list shows it."""

    account_id: int
    username: str
    role: str
    created_at: str


def _member(account: Account) -> StaffMember:
    return {"account_id": account.id, "username": account.username, "role": account.role,
            "created_at": aware(account.created_at).isoformat()}


class StaffList(TypedDict):
    """The staff's roles (in the matrix's order) and every staff account, by role then name."""

    roles: list[str]
    staff: list[StaffMember]


def staff_list(s: Session) -> StaffList:
    found = s.scalars(select(Account).where(Account.role.in_(roles.STAFF)))
    members = sorted((_member(a) for a in found), key=lambda m: (roles.STAFF.index(m["role"]), m["username"].lower()))
    return {"roles": list(roles.STAFF), "staff": members}


def added(s: Session, actor: Account | str, account: Account) -> StaffMember:
    """Record a new staff account (made by :func:`baccarat.server.house.accounts.sign_up` in this transaction)."""
    audit.record(s, actor, "create_staff", f"account {account.id}", {},
                 {"username": account.username, "role": account.role})
    return _member(account)


def set_role(s: Session, actor: Account, account_id: int, role: str) -> StaffMember:
    """Give the account ``account_id`` the role ``role`` (``player`` makes a member of staff a player again)."""
    if role not in roles.ROLES:
        raise ConfigurationError.coded("account.role", roles=list(roles.ROLES))
    account = s.get(Account, account_id, populate_existing=True)
    if account is None:
        raise UnknownSeatError.coded("operator.account_unknown", account=account_id)
    if account.id == actor.id:
        raise ConflictError.coded("staff.own_role")
    before = account.role
    if before == role:
        return _member(account)
    if roles.is_staff(role) and not roles.is_staff(before):
        _refuse_playing(s, account)
    account.role = role
    # its sessions end: its sockets close (in every process) and it logs in again with the new role
    s.execute(delete(Token).where(Token.account_id == account.id))
    notify.changed(s, notify.EVERY_TABLE)
    audit.record(s, actor, "set_role", f"account {account.id}", {"role": before},
                 {"username": account.username, "role": role})
    return _member(account)


def _refuse_playing(s: Session, account: Account) -> None:
    balance = wallet.balance(s, account.id)
    if balance:
        raise ConflictError.coded("staff.wallet_not_empty", username=account.username, balance=balance)
    seated = s.scalar(select(exists().where(Seat.account_id == account.id))) or s.scalar(
        select(exists().where(SeatRequest.account_id == account.id)))
    in_play = s.scalar(select(exists().where(Bet.account_id == account.id, Bet.round_id == Round.id,
                                             Round.status.in_(("betting", "decision")))))
    if seated or in_play:
        raise ConflictError.coded("staff.still_playing", username=account.username)
