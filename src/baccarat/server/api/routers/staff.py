"""The staff and their duties: the administrator's accounts and roles, and the credits waiting for a second member
of staff (:mod:`baccarat.server.operator.staff`, :mod:`baccarat.server.operator.credits`)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from baccarat.server.api.deps import REFUSALS, Approver, Id, Staff, look, run
from baccarat.server.api.requests import RoleBody, StaffBody
from baccarat.server.house import accounts
from baccarat.server.operator import credits, staff

router = APIRouter(prefix="/api/operator", tags=["staff"], responses=REFUSALS)


@router.get("/staff", response_model=staff.StaffList)
def staff_list(request: Request, _: Staff) -> staff.StaffList:
    """The staff's roles and every staff account with its role (administrators only)."""
    return look(request, staff.staff_list)


@router.post("/staff", status_code=201, response_model=staff.StaffMember)
def new_staff(request: Request, body: StaffBody, admin: Staff) -> staff.StaffMember:
    """A new staff account with its role (no wallet money: staff do not play); recorded in the audit trail."""
    state = request.app.state
    made: list[staff.StaffMember] = []
    with state.hashing.admit():
        accounts.sign_up(state.sessions, body.username, body.password, grant=0, role=body.role,
                         hashing=state.hashing, then=lambda s, account: made.append(staff.added(s, admin, account)))
    return made[-1]


@router.put("/accounts/{account_id}/role", response_model=staff.StaffMember)
def set_role(request: Request, account_id: Id, body: RoleBody, admin: Staff) -> staff.StaffMember:
    """Give an account a role (``player``: no longer staff).  A player becomes staff only with an empty wallet and
    nothing in play; nobody changes their own role.  The account's sessions end."""
    return run(request, lambda s: staff.set_role(s, admin, account_id, body.role))


@router.get("/credits", response_model=list[credits.CreditAsked])
def credits_waiting(request: Request, _: Approver) -> list[credits.CreditAsked]:
    """The credits above the house's threshold waiting for a second member of staff, oldest first."""
    return look(request, credits.waiting)


@router.post("/credits/{request_id}/approve", response_model=credits.CreditAsked)
def approve_credit(request: Request, request_id: Id, approver: Approver) -> credits.CreditAsked:
    """Make a credit another member of staff asked for (never one's own request)."""
    return run(request, lambda s: credits.approve(s, approver, request_id))


@router.post("/credits/{request_id}/reject", response_model=credits.CreditAsked)
def reject_credit(request: Request, request_id: Id, approver: Approver) -> credits.CreditAsked:
    """Refuse a credit another member of staff asked for: nothing moves."""
    return run(request, lambda s: credits.reject(s, approver, request_id))
