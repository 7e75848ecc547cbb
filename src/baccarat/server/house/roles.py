"""Who may do what: the staff's roles, with the duties separated as a casino separates them.

* **cashier**: credits and debits players' wallets (a credit above the house's threshold waits for a second
  member of staff), finds players and reads their statements;
* **pit boss**: runs the tables (opens, closes, limits, voids, stands players up), approves a cashier's large
  credit, reads the console, the reports and the recall of what the tables have shown;
* **surveillance**: reads everything and changes nothing: the console, the reports, players' statements, the
  audit trail, and the recall of a round still being dealt with every card (its job is to watch the deal as it
  happens, from the camera's side: it plays no part in the game and moves no money);
* **administrator**: staff accounts and their roles, and the audit trail; no table and no money.

A staff account plays no game: it holds no money (a wallet of a staff account is never credited, and an account
becomes staff only with its wallet empty), takes no seat and places no bet.  Players have the role ``player``.

This module is the one place the matrix is written: the routes ask :func:`may`, and ``GET /api/me`` sends the
account's actions (:func:`actions_of`) so that the console shows only what its user may do.
"""

from __future__ import annotations

from baccarat.core.errors import AuthorizationError

PLAYER = "player"
CASHIER, PIT_BOSS, SURVEILLANCE, ADMIN = "cashier", "pit_boss", "surveillance", "admin"
#: The staff's roles, in the order the console lists them.
STAFF = (CASHIER, PIT_BOSS, SURVEILLANCE, ADMIN)
ROLES = (PLAYER, *STAFF)

#: Each staff action and the roles that may take it.
PERMITS: dict[str, frozenset[str]] = {
    "open_tables": frozenset({PIT_BOSS}),
    "close_tables": frozenset({PIT_BOSS}),
    "change_limits": frozenset({PIT_BOSS}),
    "void_rounds": frozenset({PIT_BOSS}),
    "stand_players": frozenset({PIT_BOSS}),
    "move_money": frozenset({CASHIER}),
    "approve_credits": frozenset({CASHIER, PIT_BOSS}),
    "console": frozenset({PIT_BOSS, SURVEILLANCE}),
    "reports": frozenset({PIT_BOSS, SURVEILLANCE}),
    "players": frozenset({CASHIER, PIT_BOSS, SURVEILLANCE}),
    "recall": frozenset({PIT_BOSS, SURVEILLANCE}),
    "recall_in_play": frozenset({SURVEILLANCE}),  # every card of a round still being dealt
    "audit": frozenset({SURVEILLANCE, ADMIN}),
    "staff": frozenset({ADMIN}),
}


def is_staff(role: str) -> bool:
    return role in STAFF


def may(role: str, action: str) -> bool:
    """Whether an account of ``role`` may take ``action`` (an unknown action: nobody may)."""
    return role in PERMITS.get(action, frozenset())


def actions_of(role: str) -> list[str]:
    """The actions an account of ``role`` may take, in the matrix's order (none for a player)."""
    return [action for action, roles in PERMITS.items() if role in roles]


def require(role: str, action: str) -> None:
    """Refuse (403 ``auth.staff_only``, naming the roles that may) unless ``role`` may take ``action``."""
    if not may(role, action):
        raise AuthorizationError.coded("auth.staff_only", action=action,
                                       roles=[r for r in STAFF if r in PERMITS.get(action, frozenset())])


def require_player(role: str) -> None:
    """Refuse (403 ``auth.staff_cannot_play``) a staff account's seat, bet or decision."""
    if is_staff(role):
        raise AuthorizationError.coded("auth.staff_cannot_play")
