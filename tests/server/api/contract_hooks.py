"""Schemathesis hooks for ``st run`` in ``test_contract.py`` (loaded through ``SCHEMATHESIS_HOOKS`` by the
command, never imported by pytest): for every generated request the session token of an account whose role may
call it, and a new one after a generated ``DELETE /api/sessions`` or role change ended it.

The test names the server's database and the operator in ``BACCARAT_CONTRACT_DATABASE``,
``BACCARAT_CONTRACT_USER`` and ``BACCARAT_CONTRACT_PASSWORD``.
"""

from __future__ import annotations

import os
from typing import Any

import schemathesis

from baccarat.server.house import accounts
from baccarat.server.storage.db import connect, transaction

_tokens: dict[str, str] = {}


def _new_token(role: str) -> str:
    """A token made in the database: the generated logins run into the login limits, this one must not."""
    name, password = os.environ["BACCARAT_CONTRACT_USER"], os.environ["BACCARAT_CONTRACT_PASSWORD"]
    with connect(os.environ["BACCARAT_CONTRACT_DATABASE"]) as sessions:
        return transaction(sessions, lambda s: accounts.log_in(s, f"{name}_{role}", password))


#: Who calls an operation under each prefix (the test made an account of each role): a role that may, so that the
#: generated requests reach the routes' work rather than their 403.  Other staff routes: surveillance reads, the pit
#: boss acts; the rest: a player.
CALLERS = (("/api/operator/wallets", "cashier"), ("/api/operator/credits", "pit_boss"),
           ("/api/operator/staff", "admin"), ("/api/operator/accounts", "admin"),
           ("/api/operator/audit", "surveillance"))


def _role(case: Any) -> str:
    if not case.path.startswith("/api/operator"):
        return "player"
    return next((role for prefix, role in CALLERS if case.path.startswith(prefix)),
                "surveillance" if case.method.upper() == "GET" else "pit_boss")


@schemathesis.auth(refresh_interval=None)  # asked every time: the token changes when a generated logout ends it
class StaffTokens:
    def get(self, case: Any, ctx: Any) -> str:
        role = _role(case)
        if role not in _tokens:
            _tokens[role] = _new_token(role)
        return _tokens[role]

    def set(self, case: Any, data: str, ctx: Any) -> None:
        # the session token is the schema's security scheme (no header parameter): the caller's, always
        headers = {name: value for name, value in (case.headers or {}).items() if name.lower() != "authorization"}
        case.headers = {**headers, "Authorization": f"Bearer {data}"}


@schemathesis.hook
def after_call(context: Any, case: Any, response: Any) -> None:
    if case.method.upper() == "DELETE" and case.path == "/api/sessions":  # it may have ended the session
        _tokens.pop(_role(case), None)
    if case.method.upper() == "PUT" and case.path.endswith("/role"):  # a role changed ends that account's sessions
        _tokens.clear()

